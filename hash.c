/* The canonical form and hash of a policy (hash.h). Primitives stand in
 * the text in canonical form already (json_parse saw to it), but for -0.
 * Recursion follows the document, whose depth json_parse bounded. */
#include <stdlib.h>
#include <string.h>

#include <bearssl.h>

#include "hash.h"
#include "text.h"

struct canon {
	const struct json_doc *doc;
	void (*out)(void *ctx, const void *buf, size_t len);
	void *ctx;
	struct text_item *keys;  /* a stack: each open object sorts its keys here */
	size_t nkeys;
};

static void put(struct canon *c, const char *s, size_t n)
{
	if (n)
		c->out(c->ctx, s, n);
}

static void put_out(void *ctx, const char *s, size_t n)
{
	put(ctx, s, n);
}

/* Decoded bytes S[0..N) as a canonical JSON string (text.h). */
static void put_string(struct canon *c, const char *s, size_t n)
{
	json_quote(put_out, c, s, n);
}

static void emit(struct canon *c, unsigned i)
{
	const struct json_doc *d = c->doc;
	const jsmntok_t *t = &d->tok[i];
	size_t n = (size_t)(t->end - t->start), base = c->nkeys;
	const char *s;

	switch (json_type(d, i)) {
	case JSON_OBJECT:
		/* Sorted by their decoded UTF-8 bytes, which is code point
		 * order; json_parse refused duplicates, so it is total. */
		JSON_EACH_MEMBER(d, i, m, k) {
			struct text_item *key = &c->keys[c->nkeys++];
			key->s = json_str(d, k, &key->len);
			key->at = k + 1;
			(void)m;
		}
		if (t->size)    /* NULL + 0 is undefined */
			text_sort(c->keys + base, (size_t)t->size);
		put(c, "{", 1);
		for (size_t m = 0; m < (size_t)t->size; m++) {
			if (m)
				put(c, ",", 1);
			put_string(c, c->keys[base + m].s, c->keys[base + m].len);
			put(c, ":", 1);
			emit(c, (unsigned)c->keys[base + m].at);
		}
		put(c, "}", 1);
		c->nkeys = base;
		break;
	case JSON_ARRAY:
		put(c, "[", 1);
		JSON_EACH_ELEMENT(d, i, m, e) {
			if (m)
				put(c, ",", 1);
			emit(c, e);
		}
		put(c, "]", 1);
		break;
	case JSON_STRING:
		s = json_str(d, i, &n);
		put_string(c, s, n);
		break;
	case JSON_NUMBER:
	case JSON_TRUE:
	case JSON_FALSE:
	case JSON_NULL:
		if (n == 2 && !memcmp(d->text + t->start, "-0", 2))
			put(c, "0", 1);
		else
			put(c, d->text + t->start, n);
		break;
	}
}

int canon_write(const struct json_doc *doc,
                void (*out)(void *ctx, const void *buf, size_t len), void *ctx)
{
	struct canon c = { doc, out, ctx, NULL, 0 };

	/* A key is followed by its value: at most NTOK / 2 keys in all. */
	if (!(c.keys = malloc((doc->ntok / 2 + 1) * sizeof *c.keys)))
		return 0;
	emit(&c, 0);
	free(c.keys);
	return 1;
}

static void sha_out(void *ctx, const void *buf, size_t len)
{
	br_sha256_update(ctx, buf, len);
}

int hash_doc(const struct json_doc *doc, unsigned char digest[HASH_LEN])
{
	br_sha256_context sc;

	br_sha256_init(&sc);
	if (!canon_write(doc, sha_out, &sc))
		return 0;
	br_sha256_out(&sc, digest);
	return 1;
}

void hash_format(const unsigned char digest[HASH_LEN], char *out)
{
	memcpy(out, "sha256:", 7);
	hex_encode(out + 7, digest, HASH_LEN);
	out[HASH_TEXT_LEN] = '\0';
}

int hash_parse(const char *s, unsigned char digest[HASH_LEN])
{
	unsigned char d[HASH_LEN];

	if (strncmp(s, "sha256:", 7) || strlen(s) != HASH_TEXT_LEN)
		return 0;
	for (size_t i = 0; i < HASH_LEN; i++) {
		int hi = hex_value(s[7 + 2 * i]), lo = hex_value(s[8 + 2 * i]);

		if (hi < 0 || lo < 0)
			return 0;
		d[i] = (unsigned char)(hi << 4 | lo);
	}
	memcpy(digest, d, HASH_LEN);
	return 1;
}

int hash_equal(const unsigned char a[HASH_LEN], const unsigned char b[HASH_LEN])
{
	unsigned diff = 0;

	for (size_t i = 0; i < HASH_LEN; i++)
		diff |= (unsigned)(a[i] ^ b[i]);
	return (int)(1 & ((diff - 1) >> 8));   /* no branch on the secret */
}
