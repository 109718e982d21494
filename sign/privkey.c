/* The private half of signed policies (privkey.h), on BearSSL. */
#include <errno.h>
#include <string.h>
#include <sys/random.h>
#include <bearssl.h>

#include "privkey.h"

/* 0 < X < n, the order of P-256's group, as BearSSL requires of a key. */
static int scalar_ok(const unsigned char *x, size_t xlen, unsigned char out[P256_SCALAR_LEN])
{
	const unsigned char *n;
	size_t nlen;

	while (xlen && !*x) {
		x++;
		xlen--;
	}
	if (!xlen || xlen > P256_SCALAR_LEN)
		return 0;
	memset(out, 0, P256_SCALAR_LEN);
	memcpy(out + P256_SCALAR_LEN - xlen, x, xlen);
	n = br_ec_p256_m31.order(BR_EC_secp256r1, &nlen);
	return nlen == P256_SCALAR_LEN && memcmp(out, n, P256_SCALAR_LEN) < 0;
}

/* K's public half, from its secret, read back as the verify path reads a
 * .pub file: 1, or 0 when it is no P-256 key. */
static int public_half(struct privkey *k)
{
	br_ec_private_key sk = { BR_EC_secp256r1, k->x, P256_SCALAR_LEN };
	unsigned char q[BR_EC_KBUF_PUB_MAX_SIZE], spki[SPKI_P256_LEN];
	br_ec_public_key pk;
	const char *why;
	char pem[256];

	if (br_ec_compute_pub(&br_ec_p256_m31, &pk, q, &sk) != P256_POINT_LEN)
		return 0;
	spki_encode_p256(q, spki);
	return pem_encode(pem, sizeof pem, spki, sizeof spki, "PUBLIC KEY") &&
	       key_public_parse(pem, strlen(pem), &k->pub, &why);
}

int key_private_parse(const void *text, size_t len, struct privkey *k, const char **why)
{
	br_skey_decoder_context dc;     /* holds a copy of the secret */
	unsigned char der[4096];
	const br_ec_private_key *sk;
	size_t dlen;
	int ok = 0;
	enum pem_status st = pem_find(text, len, "EC PRIVATE KEY", der, sizeof der, &dlen, why);

	if (st == PEM_NONE)                     /* PKCS#8 */
		st = pem_find(text, len, "PRIVATE KEY", der, sizeof der, &dlen, why);
	if (st == PEM_NONE)
		*why = pem_holds(text, len, "-----BEGIN ENCRYPTED PRIVATE KEY-----") ?
		       "an encrypted private key: sharness-exec reads only unencrypted ones" :
		       pem_holds(text, len, "PRIVATE KEY-----") ? "not an ECDSA P-256 private key" :
		       pem_holds(text, len, "PUBLIC KEY-----") ? "a public key, not a private key" :
		       pem_holds(text, len, "-----BEGIN CERTIFICATE-----") ? "a certificate, not a key" :
		       "no PEM \"EC PRIVATE KEY\" object in it";
	if (st != PEM_FOUND)
		return 0;
	br_skey_decoder_init(&dc);
	br_skey_decoder_push(&dc, der, dlen);
	explicit_bzero(der, sizeof der);
	if (br_skey_decoder_last_error(&dc)) {
		*why = "not a valid private key";
	} else if (br_skey_decoder_key_type(&dc) != BR_KEYTYPE_EC) {
		*why = "an RSA key";
	} else if ((sk = br_skey_decoder_get_ec(&dc))->curve != BR_EC_secp256r1) {
		*why = sk->curve == BR_EC_secp384r1 ? "a P-384 key" :
		       sk->curve == BR_EC_secp521r1 ? "a P-521 key" : "a key on another curve than P-256";
	} else if (!scalar_ok(sk->x, sk->xlen, k->x) || !public_half(k)) {
		*why = "not a valid P-256 private key";
	} else {
		ok = 1;
	}
	explicit_bzero(&dc, sizeof dc);
	if (!ok)
		explicit_bzero(k, sizeof *k);
	return ok;
}

int random_fill(void *buf, size_t n)
{
	size_t got = 0;
	ssize_t r;

	while (got < n) {
		if ((r = getrandom((unsigned char *)buf + got, n - got, 0)) < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

int key_generate(struct privkey *k)
{
	unsigned char seed[48], kbuf[BR_EC_KBUF_PRIV_MAX_SIZE];
	br_hmac_drbg_context rng;
	br_ec_private_key sk;
	int ok = 0;

	if (random_fill(seed, sizeof seed) < 0)
		return 0;
	br_hmac_drbg_init(&rng, &br_sha256_vtable, seed, sizeof seed);
	explicit_bzero(seed, sizeof seed);
	if (br_ec_keygen(&rng.vtable, &br_ec_p256_m31, &sk, kbuf, BR_EC_secp256r1) == P256_SCALAR_LEN) {
		memcpy(k->x, sk.x, P256_SCALAR_LEN);
		ok = public_half(k);
	}
	explicit_bzero(&rng, sizeof rng);
	explicit_bzero(kbuf, sizeof kbuf);
	explicit_bzero(&sk, sizeof sk);
	if (!ok)
		explicit_bzero(k, sizeof *k);
	return ok;
}

size_t key_private_pem(const struct privkey *k, char *out, size_t cap)
{
	unsigned char x[P256_SCALAR_LEN], q[P256_POINT_LEN], der[256];
	br_ec_private_key sk = { BR_EC_secp256r1, x, sizeof x };
	br_ec_public_key pk = { BR_EC_secp256r1, q, sizeof q };
	size_t n;

	memcpy(x, k->x, sizeof x);
	memcpy(q, k->pub.q, sizeof q);
	n = br_encode_ec_raw_der(NULL, &sk, &pk) <= sizeof der ? br_encode_ec_raw_der(der, &sk, &pk) : 0;
	n = n ? pem_encode(out, cap, der, n, "EC PRIVATE KEY") : 0;
	explicit_bzero(x, sizeof x);
	explicit_bzero(der, sizeof der);
	return n;
}

size_t key_sign(const struct privkey *k, const unsigned char digest[HASH_LEN],
                unsigned char sig[SIG_DER_MAX])
{
	unsigned char x[P256_SCALAR_LEN];
	br_ec_private_key sk = { BR_EC_secp256r1, x, sizeof x };
	size_t n;

	memcpy(x, k->x, sizeof x);
	n = br_ecdsa_i31_sign_asn1(&br_ec_p256_m31, &br_sha256_vtable, digest, &sk, sig);
	explicit_bzero(x, sizeof x);
	return n;
}

void spki_encode_p256(const unsigned char q[P256_POINT_LEN],
                      unsigned char out[SPKI_P256_LEN])
{
	memcpy(out, spki_p256_prefix, SPKI_PREFIX_LEN);
	memcpy(out + SPKI_PREFIX_LEN, q, P256_POINT_LEN);
}

size_t pem_encode(char *out, size_t cap, const void *der, size_t len, const char *name)
{
	if (br_pem_encode(NULL, der, len, name, BR_PEM_LINE64) >= cap)
		return 0;
	return br_pem_encode(out, der, len, name, BR_PEM_LINE64);
}
