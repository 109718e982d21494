/* The two small DER formats BearSSL does not read or write for us
 * (DESIGN.md 2.3): a P-256 public key as SubjectPublicKeyInfo (RFC 5280
 * 4.1.2.7, RFC 5480) and an ECDSA signature as ECDSA-Sig-Value (RFC 3279
 * 2.2.3). Both readers accept exactly the DER encoding (ITU-T X.690 10):
 * nothing BER allows beside it, nothing after it. No heap; the input is
 * untrusted and may be any bytes. */
#ifndef SHARNESS_SPKI_H
#define SHARNESS_SPKI_H

#include <stddef.h>

#define P256_POINT_LEN  65   /* 0x04 || X || Y */
#define P256_SCALAR_LEN 32
#define SPKI_P256_LEN   91   /* the whole SubjectPublicKeyInfo */
#define SIG_RAW_LEN     64   /* r || s, each 32 bytes big-endian */
#define SIG_DER_MAX     72   /* 2 + 2 * (2 + 33) */

enum spki_status {
	SPKI_OK,
	SPKI_BAD_DER,      /* not one DER SubjectPublicKeyInfo */
	SPKI_RSA,          /* rsaEncryption */
	SPKI_NOT_EC,       /* another algorithm (Ed25519, DSA, ...) */
	SPKI_P384,         /* id-ecPublicKey on secp384r1 */
	SPKI_P521,         /* ... on secp521r1 */
	SPKI_OTHER_CURVE,  /* ... on another curve, or explicit parameters */
	SPKI_COMPRESSED,   /* a P-256 point in compressed form */
	SPKI_BAD_POINT     /* not a point of P-256 */
};

/* Write the SubjectPublicKeyInfo of the uncompressed P-256 point Q into
 * OUT. Q MUST be a valid point (BearSSL's br_ec_compute_pub made it). */
void spki_encode_p256(const unsigned char q[P256_POINT_LEN],
                      unsigned char out[SPKI_P256_LEN]);

/* Read DER (LEN bytes) as the SubjectPublicKeyInfo of a P-256 key; on
 * SPKI_OK the point, checked to lie on the curve, is in Q. */
enum spki_status spki_decode_p256(const unsigned char *der, size_t len,
                                  unsigned char q[P256_POINT_LEN]);

/* What STATUS means, as a phrase: "an RSA key", "a P-384 key", ... */
const char *spki_status_text(enum spki_status status);

/* Read DER (LEN bytes) as an ECDSA-Sig-Value of P-256: 1 and r || s in
 * RAW when it is one, with 0 < r, s < 2^256; 0 otherwise. Whether r and s
 * lie below the group order is the verifier's business. */
int sig_der_decode(const unsigned char *der, size_t len,
                   unsigned char raw[SIG_RAW_LEN]);

#endif
