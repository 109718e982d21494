/* What the verify path and sharness-exec-sign share (key.h). */
#include <stdio.h>
#include <string.h>
#include <bearssl.h>

#include "common.h"
#include "key.h"

/* --- PEM, on BearSSL's decoder: one event at a time --- */

struct sink {
	unsigned char *buf;
	size_t cap, len;
	int over;
};

static void sink_take(void *ctx, const void *src, size_t n)
{
	struct sink *s = ctx;

	if (s->over || n > s->cap - s->len) {
		s->over = 1;
		return;
	}
	memcpy(s->buf + s->len, src, n);
	s->len += n;
}

enum pem_status pem_find(const void *text, size_t len, const char *name,
                         unsigned char *der, size_t cap, size_t *derlen, const char **why)
{
	br_pem_decoder_context pc;
	struct sink sink = { der, cap, 0, 0 };
	const unsigned char *p = text;
	int in_object = 0, found = 0, tail = 0, ev;

	br_pem_decoder_init(&pc);
	do {
		/* The END line of a file without a final newline is only
		 * seen once one follows. Without an event, push() takes all. */
		if (!len && !tail) {
			p = (const unsigned char *)"\n";
			len = 1;
			tail = 1;
		}
		size_t n = br_pem_decoder_push(&pc, p, len);
		p += n;
		len -= n;
		ev = br_pem_decoder_event(&pc);
		if (ev == BR_PEM_ERROR) {
			*why = "invalid PEM (bad base64)";
			return PEM_BAD;
		}
		in_object = ev == BR_PEM_BEGIN_OBJ || (in_object && ev != BR_PEM_END_OBJ);
		if (ev != BR_PEM_BEGIN_OBJ)
			continue;
		if (strcmp(br_pem_decoder_name(&pc), name)) {
			br_pem_decoder_setdest(&pc, NULL, NULL);
		} else if (found++) {
			*why = "more than one object of that name";
			return PEM_BAD;
		} else {
			br_pem_decoder_setdest(&pc, sink_take, &sink);
		}
	} while (len || !tail || ev);
	*why = in_object ? "invalid PEM (an object has no END line)" : "the object is too large";
	if (in_object || sink.over)
		return PEM_BAD;
	*derlen = sink.len;
	return found ? PEM_FOUND : PEM_NONE;
}

int pem_holds(const void *text, size_t len, const char *s)
{
	return memmem(text, len, s, strlen(s)) != NULL;
}

/* --- DER: a key is taken only as the one encoding there is of it, the
 * prefix below and the point --- */

/* SEQUENCE { SEQUENCE { id-ecPublicKey, prime256v1 }, BIT STRING (0 unused
 * bits, then the 65-byte point) }. */
const unsigned char spki_p256_prefix[SPKI_PREFIX_LEN] = {
	0x30, 0x59, 0x30, 0x13,
	0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01,
	0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07,
	0x03, 0x42, 0x00,
};

/* Anything else is refused. What it is instead is said by the first
 * algorithm or curve identifier (tag, length, OID) found in it: only to
 * word the refusal. */
static const char *spki_other(const unsigned char *der, size_t len)
{
	static const struct { unsigned char id[11]; const char *what; } ids[] = {
		{ { 6, 9, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 1, 1, 1 }, "an RSA key" },
		{ { 6, 5, 0x2b, 0x81, 0x04, 0x00, 0x22 }, "a P-384 key" },
		{ { 6, 5, 0x2b, 0x81, 0x04, 0x00, 0x23 }, "a P-521 key" },
	};

	/* The same header, but a BIT STRING of 0x02 or 0x03 and X. */
	if (len == SPKI_PREFIX_LEN + 1 + P256_SCALAR_LEN &&
	    !memcmp(der + 2, spki_p256_prefix + 2, SPKI_PREFIX_LEN - 5) &&
	    (der[SPKI_PREFIX_LEN] == 2 || der[SPKI_PREFIX_LEN] == 3))
		return "a P-256 key in compressed form";
	for (size_t i = 0; i < sizeof ids / sizeof *ids; i++)
		if (memmem(der, len, ids[i].id, ids[i].id[1] + 2u))
			return ids[i].what;
	return "not an ECDSA P-256 public key";
}

const char *spki_decode_p256(const unsigned char *der, size_t len,
                             unsigned char q[P256_POINT_LEN])
{
	static const unsigned char one = 1;
	unsigned char point[P256_POINT_LEN];

	if (len != SPKI_P256_LEN || memcmp(der, spki_p256_prefix, SPKI_PREFIX_LEN))
		return spki_other(der, len);
	/* BearSSL's mul() decodes the point, uncompressed only, and
	 * refuses one off the curve. */
	memcpy(point, der + SPKI_PREFIX_LEN, P256_POINT_LEN);
	if (!br_ec_p256_m31.mul(point, P256_POINT_LEN, &one, 1, BR_EC_secp256r1))
		return "not a point of P-256";
	memcpy(q, der + SPKI_PREFIX_LEN, P256_POINT_LEN);
	return NULL;
}

int sig_der_decode(const unsigned char *der, size_t len,
                   unsigned char raw[SIG_RAW_LEN])
{
	static const unsigned char zero[P256_SCALAR_LEN];
	unsigned char buf[SIG_DER_MAX];
	size_t n;

	/* BearSSL's reader is lenient (bearssl_ec.h): keep what it reads
	 * only if its writer, which writes DER, gives back the same bytes. */
	if (len > SIG_DER_MAX)
		return 0;
	memcpy(buf, der, len);
	n = br_ecdsa_asn1_to_raw(buf, len) / 2;         /* each number's length */
	if (!n || n > P256_SCALAR_LEN)
		return 0;
	memset(raw, 0, SIG_RAW_LEN);
	memcpy(raw + P256_SCALAR_LEN - n, buf, n);
	memcpy(raw + SIG_RAW_LEN - n, buf + n, n);
	memcpy(buf, raw, SIG_RAW_LEN);
	return br_ecdsa_raw_to_asn1(buf, SIG_RAW_LEN) == len && !memcmp(buf, der, len) &&
	       memcmp(raw, zero, P256_SCALAR_LEN) && memcmp(raw + P256_SCALAR_LEN, zero, P256_SCALAR_LEN);
}

int key_public_parse(const void *text, size_t len, struct pubkey *k, const char **why)
{
	unsigned char der[1024], fp[HASH_LEN];
	br_sha256_context h;
	size_t dlen;

	switch (pem_find(text, len, "PUBLIC KEY", der, sizeof der, &dlen, why)) {
	case PEM_FOUND:
		break;
	case PEM_BAD:
		return 0;
	case PEM_NONE:
		/* Say what the file is instead. */
		*why = pem_holds(text, len, "PRIVATE KEY-----") ?
		       "a private key, not a public key (give the .pub file)" :
		       pem_holds(text, len, "-----BEGIN RSA PUBLIC KEY-----") ? "an RSA key" :
		       pem_holds(text, len, "-----BEGIN CERTIFICATE-----") ? "a certificate, not a key" :
		       "no PEM \"PUBLIC KEY\" object in it";
		return 0;
	}
	if ((*why = spki_decode_p256(der, dlen, k->q)))
		return 0;
	/* The decoder takes one encoding only: hashing the bytes read is
	 * hashing the key's own SubjectPublicKeyInfo. */
	br_sha256_init(&h);
	br_sha256_update(&h, der, dlen);
	br_sha256_out(&h, fp);
	hash_format(fp, k->fp_text);
	return 1;
}

int key_verify(const struct pubkey *k, const unsigned char digest[HASH_LEN],
               const unsigned char raw[SIG_RAW_LEN])
{
	unsigned char q[P256_POINT_LEN];
	br_ec_public_key pk = { BR_EC_secp256r1, q, sizeof q };

	memcpy(q, k->q, sizeof q);
	return br_ecdsa_i31_vrfy_raw(&br_ec_p256_m31, digest, HASH_LEN, &pk,
	                             raw, SIG_RAW_LEN) == 1;
}
