/* spki-fuzzer: the SubjectPublicKeyInfo reader (spki.c). What it accepts
 * must be exactly what the encoder writes for that point (DER admits one
 * encoding), and the same bytes wrapped in PEM must get the same verdict
 * from the PEM key reader (key.c, pem.c). ASan, UBSan and LSan do the
 * rest.
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
const char *progname = "spki-fuzzer";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond, what) do { if (!(cond)) { \
	fprintf(stderr, "spki-fuzzer: check failed: %s (%s)\n", what, #cond); \
	abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char q[P256_POINT_LEN], canon[SPKI_P256_LEN], *copy;
	static char pem[8192];
	const char *st;
	struct pubkey k;
	const char *why;
	int ok;

	if (!(copy = malloc(size ? size : 1)))
		return 0;
	memcpy(copy, data, size);
	st = spki_decode_p256(copy, size, q);
	CHECK(!st || *st, "a refusal without a reason");
	if (!st) {
		CHECK(q[0] == 4, "an accepted point is not uncompressed");
		spki_encode_p256(q, canon);
		CHECK(size == SPKI_P256_LEN && !memcmp(canon, copy, size),
		      "accepted bytes that are not the encoder's");
	}
	if (size < 1024 && pem_encode(pem, sizeof pem, copy, size, "PUBLIC KEY")) {
		ok = key_public_parse(pem, strlen(pem), &k, &why);
		CHECK(ok == !st, "the PEM reader and the DER reader disagree");
		if (ok)
			CHECK(!memcmp(k.q, q, sizeof q) && !strncmp(k.fp_text, "sha256:", 7),
			      "the PEM reader read another key");
		else
			CHECK(why && *why, "a refusal without a reason");
	}
	free(copy);
	return 0;
}
