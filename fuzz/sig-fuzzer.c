/* sig-fuzzer: the ECDSA-Sig-Value reader (spki.c). What it accepts must be
 * exactly what BearSSL's br_ecdsa_raw_to_asn1 writes for those r and s (DER
 * admits one encoding), and BearSSL's own, laxer reader must read the same
 * r and s from it. ASan, UBSan and LSan do the rest.
 *
 * Build and run: see fuzz/README.md. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bearssl.h>

#include "key.h"

/* The replay build links hash.c and common.c, whose messages name us. */
const char *progname = "sig-fuzzer";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond, what) do { if (!(cond)) { \
	fprintf(stderr, "sig-fuzzer: check failed: %s (%s)\n", what, #cond); \
	abort(); } } while (0)

static int is_zero(const unsigned char *p, size_t n)
{
	unsigned char acc = 0;

	while (n--)
		acc |= *p++;
	return !acc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char raw[SIG_RAW_LEN], der[SIG_DER_MAX], theirs[SIG_DER_MAX], *copy;
	size_t n;

	if (!(copy = malloc(size ? size : 1)))
		return 0;
	memcpy(copy, data, size);
	if (sig_der_decode(copy, size, raw)) {
		CHECK(size <= SIG_DER_MAX, "accepted more than the longest signature");
		CHECK(!is_zero(raw, 32) && !is_zero(raw + 32, 32), "accepted a zero r or s");
		memcpy(der, raw, sizeof raw);
		n = br_ecdsa_raw_to_asn1(der, sizeof raw);
		CHECK(n == size && !memcmp(der, copy, size), "accepted bytes that are not DER");
		/* BearSSL's raw form is as long as the longer number needs,
		 * twice: compare each half, right-aligned. */
		memcpy(theirs, copy, size);
		n = br_ecdsa_asn1_to_raw(theirs, size);
		CHECK(n && n % 2 == 0 && n <= sizeof raw, "BearSSL does not read it");
		n /= 2;
		CHECK(is_zero(raw, 32 - n) && !memcmp(raw + 32 - n, theirs, n) &&
		      is_zero(raw + 32, 32 - n) && !memcmp(raw + 64 - n, theirs + n, n),
		      "BearSSL reads other numbers from it");
	}
	free(copy);
	return 0;
}
