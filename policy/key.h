/* What the verify path (verify.c) and sharness-exec-sign share (DESIGN.md
 * 2.3): PEM (RFC 7468) on BearSSL's decoder, and the DER BearSSL does not
 * read for us, each taken only in its one DER encoding (X.690 10): a
 * P-256 SubjectPublicKeyInfo (RFC 5480), whose SHA-256 is the key's
 * fingerprint, and an ECDSA-Sig-Value (RFC 3279 2.2.3). PEM and DER input
 * is untrusted and may be any bytes. */
#ifndef SHARNESS_KEY_H
#define SHARNESS_KEY_H

#include <stddef.h>
#include "hash.h"

#define P256_POINT_LEN   65  /* 0x04 || X || Y */
#define P256_SCALAR_LEN  32
#define SPKI_PREFIX_LEN  26
#define SPKI_P256_LEN    (SPKI_PREFIX_LEN + P256_POINT_LEN)
#define SIG_RAW_LEN      64  /* r || s, each 32 bytes big-endian */
#define SIG_DER_MAX      72  /* 2 + 2 * (2 + 33) */
#define KEY_FILE_MAX  16384  /* an RSA-4096 private key is 3.3 KB */

struct pubkey {
	unsigned char q[P256_POINT_LEN];            /* on the curve */
	char fp_text[HASH_TEXT_LEN + 1];            /* "sha256:..." */
};

enum pem_status {
	PEM_FOUND,   /* exactly one object named NAME, decoded whole */
	PEM_NONE,    /* no object named NAME */
	PEM_BAD      /* not valid PEM, or NAME twice, or too large */
};

/* Look through TEXT (LEN bytes) for an object named NAME (upper case);
 * every other object is skipped, and bytes between objects are ignored.
 * PEM_FOUND: its contents are in DER (at most CAP bytes), their length in
 * *DERLEN. PEM_BAD: *WHY says what is wrong, as a phrase. */
enum pem_status pem_find(const void *text, size_t len, const char *name,
                         unsigned char *der, size_t cap, size_t *derlen, const char **why);
/* 1 when TEXT (LEN bytes) holds S: what a file holds instead, for a message. */
int pem_holds(const void *text, size_t len, const char *s);

/* What every P-256 SubjectPublicKeyInfo is, before its point. */
extern const unsigned char spki_p256_prefix[SPKI_PREFIX_LEN];
/* Read DER (LEN bytes) as the SubjectPublicKeyInfo of a P-256 key: NULL
 * and the point, checked to lie on the curve, in Q; or what DER is
 * instead, as a phrase ("an RSA key", ...). */
const char *spki_decode_p256(const unsigned char *der, size_t len,
                             unsigned char q[P256_POINT_LEN]);
/* Read DER (LEN bytes) as an ECDSA-Sig-Value of P-256: 1 and r || s in
 * RAW when it is one, with 0 < r, s < 2^256; 0 otherwise. Whether r and s
 * lie below the group order is the verifier's business. */
int sig_der_decode(const unsigned char *der, size_t len, unsigned char raw[SIG_RAW_LEN]);

/* The public key in TEXT (PEM "PUBLIC KEY"; other objects skipped) into K
 * with its fingerprint: 1, or 0 and a phrase in *WHY ("an RSA key", ...). */
int key_public_parse(const void *text, size_t len, struct pubkey *k, const char **why);
/* 1 when RAW is K's signature of the SHA-256 digest DIGEST. */
int key_verify(const struct pubkey *k, const unsigned char digest[HASH_LEN],
               const unsigned char raw[SIG_RAW_LEN]);

#endif
