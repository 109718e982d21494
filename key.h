/* Keys and signatures of signed policies (DESIGN.md 2.3): ECDSA P-256,
 * the private key PEM "EC PRIVATE KEY" (SEC1; PKCS#8 "PRIVATE KEY" is
 * read too), the public key PEM "PUBLIC KEY" (SubjectPublicKeyInfo), its
 * fingerprint "sha256:" + hex of SHA-256 over that DER, the signature
 * ECDSA-SHA256 in ASN.1 DER over the policy's canonical bytes. BearSSL does
 * the cryptography; nothing here dies: each reader returns 1, or 0 with
 * one line in ERR that names the file. */
#ifndef SHARNESS_KEY_H
#define SHARNESS_KEY_H

#include <stddef.h>
#include "hash.h"
#include "spki.h"

#define KEY_FILE_MAX  16384  /* an RSA-4096 private key is 3.3 KB */
#define SIG_FILE_MAX  256    /* a DER P-256 signature is at most 72 bytes */

struct pubkey {
	unsigned char q[P256_POINT_LEN];            /* on the curve */
	unsigned char fp[HASH_LEN];                 /* SHA-256 of the SPKI */
	char fp_text[HASH_TEXT_LEN + 1];            /* "sha256:..." */
};

struct privkey {
	unsigned char x[P256_SCALAR_LEN];           /* 0 < x < n */
	struct pubkey pub;
};

/* Read PATH, a regular file of at most MAX bytes, into BUF (MAX bytes).
 * It is looked at before it is opened (opening a device can act, a FIFO
 * block) and again on the descriptor. With TRUST, a file that someone
 * else than root or the caller could change is refused too. */
int small_file_read(const char *path, unsigned char *buf, size_t max, size_t *len,
                    int trust, char *err, size_t errlen);

/* The public key in TEXT (PEM; other objects skipped): 1, or 0 and a
 * phrase in *WHY ("an RSA key", "a private key, not a public key", ...). */
int key_public_parse(const void *text, size_t len, struct pubkey *k, const char **why);
/* The private key in TEXT, as key_public_parse. K holds a secret: wipe it
 * with explicit_bzero after use. */
int key_private_parse(const void *text, size_t len, struct privkey *k, const char **why);

/* The public key in file PATH; TRUST as in small_file_read. */
int key_public_read(const char *path, int trust, struct pubkey *k, char *err, size_t errlen);
int key_private_read(const char *path, struct privkey *k, char *err, size_t errlen);
/* The signature in file PATH (raw DER, as `openssl dgst -sign` writes). */
int sig_read(const char *path, unsigned char raw[SIG_RAW_LEN], char *err, size_t errlen);

/* Fill K's fingerprint from its point. */
void key_fingerprint(struct pubkey *k);
/* 1 when RAW is K's signature of the SHA-256 digest DIGEST. */
int key_verify(const struct pubkey *k, const unsigned char digest[HASH_LEN],
               const unsigned char raw[SIG_RAW_LEN]);
/* Sign DIGEST with K (RFC 6979 nonces: no randomness needed) into SIG,
 * DER; returns its length, 0 on failure. */
size_t key_sign(const struct privkey *k, const unsigned char digest[HASH_LEN],
                unsigned char sig[SIG_DER_MAX]);

#endif
