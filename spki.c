/* SubjectPublicKeyInfo of a P-256 key and the ECDSA-Sig-Value, in DER
 * (spki.h). The reader takes one tag-length-value at a time and refuses
 * what DER forbids: indefinite or non-minimal lengths, high tag numbers,
 * non-minimal or negative integers, trailing bytes. */
#include <string.h>
#include <bearssl.h>

#include "spki.h"

/* SEQUENCE { SEQUENCE { id-ecPublicKey, prime256v1 }, BIT STRING (0 unused
 * bits, then the 65-byte point) }: 26 bytes of header, then the point. */
static const unsigned char spki_p256_prefix[] = {
	0x30, 0x59, 0x30, 0x13,
	0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01,
	0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07,
	0x03, 0x42, 0x00,
};

static const unsigned char oid_rsa[] =   /* 1.2.840.113549.1.1.1 */
	{ 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01 };
static const unsigned char oid_ec[] =    /* 1.2.840.10045.2.1 */
	{ 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01 };
static const unsigned char oid_p256[] =  /* 1.2.840.10045.3.1.7 */
	{ 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07 };
static const unsigned char oid_p384[] =  /* 1.3.132.0.34 */
	{ 0x2b, 0x81, 0x04, 0x00, 0x22 };
static const unsigned char oid_p521[] =  /* 1.3.132.0.35 */
	{ 0x2b, 0x81, 0x04, 0x00, 0x23 };

/* What is left to read. */
struct der {
	const unsigned char *p;
	size_t n;
};

/* Take one element with tag TAG off the front of D; its contents in V. */
static int der_take(struct der *d, unsigned char tag, struct der *v)
{
	size_t len, hdr = 2;

	if (d->n < 2 || d->p[0] != tag)
		return 0;
	len = d->p[1];
	if (len & 0x80) {
		size_t k = len & 0x7f;

		/* 0: indefinite (BER only); nothing here is 64 KiB long. */
		if (k == 0 || k > 2 || d->n < 2 + k || d->p[2] == 0)
			return 0;
		len = k == 1 ? d->p[2] : (size_t)d->p[2] << 8 | d->p[3];
		if (len < 0x80)                 /* fits the short form */
			return 0;
		hdr += k;
	}
	if (d->n - hdr < len)
		return 0;
	v->p = d->p + hdr;
	v->n = len;
	d->p += hdr + len;
	d->n -= hdr + len;
	return 1;
}

static int der_is(const struct der *v, const unsigned char *oid, size_t len)
{
	return v->n == len && !memcmp(v->p, oid, len);
}

void spki_encode_p256(const unsigned char q[P256_POINT_LEN],
                      unsigned char out[SPKI_P256_LEN])
{
	memcpy(out, spki_p256_prefix, sizeof spki_p256_prefix);
	memcpy(out + sizeof spki_p256_prefix, q, P256_POINT_LEN);
}

enum spki_status spki_decode_p256(const unsigned char *der, size_t len,
                                  unsigned char q[P256_POINT_LEN])
{
	static const unsigned char one = 1;
	struct der all = { der, len }, spki, alg, bits, oid, params;
	unsigned char canon[SPKI_P256_LEN], point[P256_POINT_LEN];

	if (!der_take(&all, 0x30, &spki) || all.n ||
	    !der_take(&spki, 0x30, &alg) || !der_take(&spki, 0x03, &bits) || spki.n ||
	    !der_take(&alg, 0x06, &oid))
		return SPKI_BAD_DER;
	if (der_is(&oid, oid_rsa, sizeof oid_rsa))
		return SPKI_RSA;
	if (!der_is(&oid, oid_ec, sizeof oid_ec))
		return SPKI_NOT_EC;
	/* Explicit curve parameters (a SEQUENCE) name no curve we know. */
	if (!der_take(&alg, 0x06, &params) || alg.n)
		return SPKI_OTHER_CURVE;
	if (der_is(&params, oid_p384, sizeof oid_p384))
		return SPKI_P384;
	if (der_is(&params, oid_p521, sizeof oid_p521))
		return SPKI_P521;
	if (!der_is(&params, oid_p256, sizeof oid_p256))
		return SPKI_OTHER_CURVE;
	if (bits.n < 1 || bits.p[0] != 0)       /* unused bits */
		return SPKI_BAD_DER;
	if (bits.n == 2 + P256_SCALAR_LEN && (bits.p[1] == 2 || bits.p[1] == 3))
		return SPKI_COMPRESSED;
	if (bits.n != 1 + P256_POINT_LEN || bits.p[1] != 4)
		return SPKI_BAD_POINT;
	/* The element-by-element reading above admits one encoding only;
	 * comparing with the encoder's output keeps it so. */
	spki_encode_p256(bits.p + 1, canon);
	if (len != SPKI_P256_LEN || memcmp(der, canon, SPKI_P256_LEN))
		return SPKI_BAD_DER;
	/* BearSSL's mul() decodes the point and refuses one off the curve. */
	memcpy(point, bits.p + 1, P256_POINT_LEN);
	if (!br_ec_p256_m31.mul(point, P256_POINT_LEN, &one, 1, BR_EC_secp256r1))
		return SPKI_BAD_POINT;
	memcpy(q, bits.p + 1, P256_POINT_LEN);
	return SPKI_OK;
}

const char *spki_status_text(enum spki_status status)
{
	switch (status) {
	case SPKI_OK:          return "an ECDSA P-256 key";
	case SPKI_BAD_DER:     return "not a DER SubjectPublicKeyInfo";
	case SPKI_RSA:         return "an RSA key";
	case SPKI_NOT_EC:      return "not an elliptic-curve key";
	case SPKI_P384:        return "a P-384 key";
	case SPKI_P521:        return "a P-521 key";
	case SPKI_OTHER_CURVE: return "a key on another curve than P-256";
	case SPKI_COMPRESSED:  return "a P-256 key in compressed form";
	case SPKI_BAD_POINT:   return "not a point of P-256";
	}
	return "unknown";
}

/* A positive INTEGER of at most 256 bits, minimal, not zero: into OUT,
 * big-endian, zero-padded on the left. */
static int der_uint256(struct der *d, unsigned char out[P256_SCALAR_LEN])
{
	struct der v;

	if (!der_take(d, 0x02, &v) || v.n == 0 || (v.p[0] & 0x80))
		return 0;
	if (v.p[0] == 0 && v.n > 1) {
		if (!(v.p[1] & 0x80))           /* a needless leading zero */
			return 0;
		v.p++;
		v.n--;
	}
	if (v.n > P256_SCALAR_LEN || (v.n == 1 && v.p[0] == 0))
		return 0;
	memset(out, 0, P256_SCALAR_LEN);
	memcpy(out + P256_SCALAR_LEN - v.n, v.p, v.n);
	return 1;
}

int sig_der_decode(const unsigned char *der, size_t len,
                   unsigned char raw[SIG_RAW_LEN])
{
	struct der all = { der, len }, seq;

	return len <= SIG_DER_MAX &&
	       der_take(&all, 0x30, &seq) && !all.n &&
	       der_uint256(&seq, raw) && der_uint256(&seq, raw + P256_SCALAR_LEN) &&
	       !seq.n;
}
