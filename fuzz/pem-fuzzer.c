/* pem-fuzzer: the PEM reader (pem.c) and the key readers on top of it
 * (key.c, spki.c, BearSSL's private key decoder). An object found must
 * survive being written again and read back; a key read must be a point
 * of P-256, and a private key's public half a key the public reader takes;
 * every refusal must come with a phrase of one line. ASan, UBSan and LSan
 * do the rest.
 *
 * Build and run: see fuzz/README.md. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key.h"
#include "sign/privkey.h"

/* hash.c quotes file names with common.c's quote(), whose messages name us. */
const char *progname = "pem-fuzzer";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond, what) do { if (!(cond)) { \
	fprintf(stderr, "pem-fuzzer: check failed: %s (%s)\n", what, #cond); \
	abort(); } } while (0)

static void check_phrase(const char *s, size_t max)
{
	size_t n;

	CHECK(s != NULL, "no phrase");
	n = strnlen(s, max);
	CHECK(n < max, "a phrase without its NUL");
	for (size_t i = 0; i < n; i++)
		CHECK((unsigned char)s[i] >= 0x20 && s[i] != 0x7f, "a control byte in a phrase");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "PUBLIC KEY", "EC PRIVATE KEY" };
	static unsigned char der[4096], again[4096];
	static char pem[8192];
	unsigned char spki[SPKI_P256_LEN], q[P256_POINT_LEN];
	struct privkey sk;
	struct pubkey pk;
	const char *why;
	size_t len, len2;
	char *copy;

	if (!(copy = malloc(size ? size : 1)))
		return 0;
	memcpy(copy, data, size);

	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		why = NULL;
		switch (pem_find(copy, size, names[i], der, sizeof der, &len, &why)) {
		case PEM_FOUND:
			CHECK(len <= sizeof der, "decoded past the buffer");
			CHECK(pem_encode(pem, sizeof pem, der, len, names[i]) > 0, "cannot write it again");
			CHECK(pem_find(pem, strlen(pem), names[i], again, sizeof again, &len2,
			               &why) == PEM_FOUND, "what was written is not read back");
			CHECK(len2 == len && !memcmp(again, der, len), "read back other bytes");
			break;
		case PEM_NONE:
			break;
		case PEM_BAD:
			check_phrase(why, 256);
			break;
		}
	}

	why = NULL;
	if (key_public_parse(copy, size, &pk, &why)) {
		CHECK(!strncmp(pk.fp_text, "sha256:", 7) && strlen(pk.fp_text) == HASH_TEXT_LEN,
		      "a fingerprint of another shape");
		spki_encode_p256(pk.q, spki);
		CHECK(!spki_decode_p256(spki, sizeof spki, q) && !memcmp(q, pk.q, sizeof q),
		      "an accepted key that is not a point of P-256");
	} else {
		check_phrase(why, 256);
	}
	why = NULL;
	if (key_private_parse(copy, size, &sk, &why)) {
		spki_encode_p256(sk.pub.q, spki);
		CHECK(!spki_decode_p256(spki, sizeof spki, q),
		      "a private key whose public half is not a point of P-256");
		explicit_bzero(&sk, sizeof sk);
	} else {
		check_phrase(why, 256);
	}
	free(copy);
	return 0;
}
