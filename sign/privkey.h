/* The private half of signed policies, sharness-exec-sign's alone
 * (DESIGN.md 2.3): an ECDSA P-256 key in PEM "EC PRIVATE KEY" (SEC1;
 * PKCS#8 "PRIVATE KEY" is read too), signing, and the encoders keygen
 * writes its files with. Nothing here dies. */
#ifndef SHARNESS_PRIVKEY_H
#define SHARNESS_PRIVKEY_H

#include <stddef.h>
#include "key.h"

struct privkey {
	unsigned char x[P256_SCALAR_LEN];           /* 0 < x < n */
	struct pubkey pub;
};

/* The private key in TEXT (PEM; other objects skipped): 1, or 0 and a
 * phrase in *WHY. K holds a secret: wipe it with explicit_bzero. */
int key_private_parse(const void *text, size_t len, struct privkey *k, const char **why);
/* N bytes from getrandom(2), which waits until the kernel's pool is
 * seeded, never after: 0, or -1 with errno set. */
int random_fill(void *buf, size_t n);
/* A fresh key into K (a secret: wipe it), from getrandom(2) through
 * BearSSL's HMAC-DRBG and br_ec_keygen: 1, or 0 (errno set when
 * getrandom failed). Its stack temporaries are wiped; BearSSL's own
 * inside br_ec_keygen cannot be. */
int key_generate(struct privkey *k);
/* K as PEM "EC PRIVATE KEY" (SEC1, RFC 5915, with its curve and public
 * key), as openssl writes it, into OUT (CAP bytes): its length, or 0. */
size_t key_private_pem(const struct privkey *k, char *out, size_t cap);
/* Sign DIGEST with K (RFC 6979 nonces: no randomness needed) into SIG,
 * DER; returns its length, 0 on failure. */
size_t key_sign(const struct privkey *k, const unsigned char digest[HASH_LEN],
                unsigned char sig[SIG_DER_MAX]);

/* The SubjectPublicKeyInfo of the uncompressed P-256 point Q. */
void spki_encode_p256(const unsigned char q[P256_POINT_LEN],
                      unsigned char out[SPKI_P256_LEN]);
/* Write DER (LEN bytes) as one PEM object named NAME into OUT, which holds
 * CAP bytes: 64-character lines, each ended by a newline, as openssl
 * writes them. Returns the length written (a NUL follows it), or 0 when
 * OUT is too small. */
size_t pem_encode(char *out, size_t cap, const void *der, size_t len, const char *name);

#endif
