/* json-fuzzer: the strict reader and the canonical hash (json.c, hash.c).
 * Every input goes through json_parse; an accepted one through canon_write
 * and hash_doc, whose digest must survive hash_format and hash_parse. A
 * refusal must come with a reason of one line. ASan, UBSan and LSan do the
 * rest: any crash, undefined behaviour or leak is a finding.
 *
 * Build and run: see fuzz/README.md. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "json.h"

/* hash.c quotes file names with common.c's quote(), whose messages name us. */
const char *progname = "json-fuzzer";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond, what) do { if (!(cond)) { \
	fprintf(stderr, "json-fuzzer: check failed: %s (%s)\n", what, #cond); \
	abort(); } } while (0)

struct count {
	size_t bytes;
	unsigned char last;
};

static void count_out(void *ctx, const void *buf, size_t len)
{
	struct count *c = ctx;

	CHECK(len > 0, "canon_write emitted an empty chunk");
	c->bytes += len;
	c->last = ((const unsigned char *)buf)[len - 1];
}

/* The reason is one line: no newline, no control byte, NUL-terminated. */
static void check_reason(const char *err, size_t errlen)
{
	size_t n = strnlen(err, errlen);

	CHECK(n > 0 && n < errlen, "refusal without a reason");
	for (size_t i = 0; i < n; i++)
		CHECK((unsigned char)err[i] >= 0x20 && err[i] != 0x7f,
		      "control byte in a refusal reason");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char digest[HASH_LEN], back[HASH_LEN];
	char err[256], text[HASH_TEXT_LEN + 1];
	struct json_doc doc;
	struct count c = { 0, 0 };
	char *copy;

	/* An exact-size heap copy, so ASan sees any read past the end. */
	if (!(copy = malloc(size ? size : 1)))
		return 0;
	memcpy(copy, data, size);
	memset(err, 0, sizeof err);
	if (!json_parse(&doc, copy, size, err, sizeof err)) {
		check_reason(err, sizeof err);
		CHECK(doc.tok == NULL && doc.ntok == 0, "refused document not left empty");
		json_free(&doc);
		free(copy);
		return 0;
	}
	CHECK(doc.ntok >= 1 && json_type(&doc, 0) == JSON_OBJECT, "top level not an object");
	CHECK(json_next(&doc, 0) == doc.ntok, "top level does not span every token");
	CHECK(canon_write(&doc, count_out, &c), "canon_write failed");
	CHECK(c.bytes >= 2 && c.last == '}', "canonical form is not an object");
	CHECK(hash_doc(&doc, digest), "hash_doc failed");
	hash_format(digest, text);
	CHECK(strlen(text) == HASH_TEXT_LEN, "hash_format length");
	CHECK(hash_parse(text, back) && hash_equal(digest, back), "hash_parse round trip");
	back[size % HASH_LEN] ^= 1;
	CHECK(!hash_equal(digest, back), "hash_equal missed a flipped bit");
	json_free(&doc);
	free(copy);
	return 0;
}
