/* Keys and signatures of signed policies (key.h). Every file here is
 * small: it is read whole into a buffer on the stack, never grown. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bearssl.h>

#include "common.h"
#include "key.h"
#include "pem.h"

static int refuse_file(char *err, size_t errlen, const char *path, const char *why)
{
	snprintf(err, errlen, "%s: %s", path, why);
	return 0;
}

/* A trust anchor must be as safe as the policy file (DESIGN.md 4.1): one
 * that nobody but the caller or root could have changed. */
static int file_trusted(const struct stat *st, const char *path, char *err, size_t errlen)
{
	if (st->st_mode & S_IWOTH)
		return refuse_file(err, errlen, path, "refused: writable by others");
	if (st->st_mode & S_IWGRP)
		return refuse_file(err, errlen, path, "refused: writable by its group");
	if (st->st_uid != 0 && st->st_uid != getuid())
		return refuse_file(err, errlen, path, "refused: owned by another user than root or the caller");
	return 1;
}

static const char *not_regular(const struct stat *st)
{
	return S_ISDIR(st->st_mode) ? "is a directory" :
	       S_ISFIFO(st->st_mode) ? "is a FIFO, not a regular file" :
	       "not a regular file";
}

int small_file_read(const char *path, unsigned char *buf, size_t max, size_t *len,
                    int trust, char *err, size_t errlen)
{
	struct stat st;
	ssize_t n;
	int fd, e;

	if (stat(path, &st) < 0)
		return refuse_file(err, errlen, path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return refuse_file(err, errlen, path, not_regular(&st));
	/* O_NONBLOCK: should it have become a FIFO since, open() does not
	 * wait for a writer; fstat() then says what it is. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return refuse_file(err, errlen, path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return refuse_file(err, errlen, path, S_ISREG(st.st_mode) ? strerror(errno) : not_regular(&st));
	}
	if (trust && !file_trusted(&st, path, err, errlen)) {
		close(fd);
		return 0;
	}
	if (st.st_size > (off_t)max) {
		close(fd);
		snprintf(err, errlen, "%s: larger than %zu bytes", path, max);
		return 0;
	}
	/* Read to the end, but never past MAX: the file may grow meanwhile. */
	n = read_upto(fd, buf, max);
	e = errno;
	close(fd);
	if (n > (ssize_t)max) {
		snprintf(err, errlen, "%s: larger than %zu bytes", path, max);
		return 0;
	}
	if (n < 0)
		return refuse_file(err, errlen, path, strerror(e));
	*len = (size_t)n;
	return 1;
}

void key_fingerprint(struct pubkey *k)
{
	unsigned char spki[SPKI_P256_LEN];
	br_sha256_context h;

	spki_encode_p256(k->q, spki);
	br_sha256_init(&h);
	br_sha256_update(&h, spki, sizeof spki);
	br_sha256_out(&h, k->fp);
	hash_format(k->fp, k->fp_text);
}

/* Why a file without the object we look for is not what was asked for. */
static const char *explain_other(const char *other, int want_private)
{
	if (!*other)
		return want_private ? "no PEM \"EC PRIVATE KEY\" object in it" :
		                      "no PEM \"PUBLIC KEY\" object in it";
	if (!strcmp(other, "ENCRYPTED PRIVATE KEY"))
		return "an encrypted private key: sharness-exec reads only unencrypted ones";
	if (strstr(other, "PRIVATE KEY"))
		return want_private ? "not an ECDSA P-256 private key" :
		                      "a private key, not a public key (give the .pub file)";
	if (!strcmp(other, "RSA PUBLIC KEY"))
		return "an RSA key";
	if (strstr(other, "PUBLIC KEY"))
		return want_private ? "a public key, not a private key" : "not a PEM \"PUBLIC KEY\"";
	if (!strcmp(other, "CERTIFICATE"))
		return "a certificate, not a key";
	return want_private ? "no PEM \"EC PRIVATE KEY\" object in it" :
	                      "no PEM \"PUBLIC KEY\" object in it";
}

int key_public_parse(const void *text, size_t len, struct pubkey *k, const char **why)
{
	unsigned char der[1024];
	char other[PEM_NAME_MAX];
	enum spki_status st;
	size_t dlen;

	switch (pem_find(text, len, "PUBLIC KEY", der, sizeof der, &dlen, other, why)) {
	case PEM_FOUND:
		break;
	case PEM_NONE:
		*why = explain_other(other, 0);
		return 0;
	case PEM_BAD:
		return 0;
	}
	if ((st = spki_decode_p256(der, dlen, k->q)) != SPKI_OK) {
		*why = spki_status_text(st);
		return 0;
	}
	key_fingerprint(k);
	return 1;
}

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

int key_private_parse(const void *text, size_t len, struct privkey *k, const char **why)
{
	br_skey_decoder_context dc;     /* holds a copy of the secret */
	unsigned char der[4096];
	char other[PEM_NAME_MAX];
	const br_ec_private_key *sk;
	br_ec_private_key mine;
	size_t dlen;
	int ok = 0;

	switch (pem_find(text, len, "EC PRIVATE KEY", der, sizeof der, &dlen, other, why)) {
	case PEM_FOUND:
		break;
	case PEM_NONE:
		if (!strcmp(other, "PRIVATE KEY") &&    /* PKCS#8 */
		    pem_find(text, len, "PRIVATE KEY", der, sizeof der, &dlen, other, why) == PEM_FOUND)
			break;
		*why = explain_other(other, 1);
		return 0;
	case PEM_BAD:
		return 0;
	}
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
	} else if (!scalar_ok(sk->x, sk->xlen, k->x)) {
		*why = "not a valid P-256 private key";
	} else {
		br_ec_public_key pk;
		unsigned char q[BR_EC_KBUF_PUB_MAX_SIZE];

		mine.curve = BR_EC_secp256r1;
		mine.x = k->x;
		mine.xlen = P256_SCALAR_LEN;
		if (br_ec_compute_pub(&br_ec_p256_m31, &pk, q, &mine) == P256_POINT_LEN) {
			memcpy(k->pub.q, q, P256_POINT_LEN);
			key_fingerprint(&k->pub);
			ok = 1;
		} else {
			*why = "not a valid P-256 private key";
		}
	}
	explicit_bzero(&dc, sizeof dc);
	if (!ok)
		explicit_bzero(k, sizeof *k);
	return ok;
}

int key_public_read(const char *path, int trust, struct pubkey *k, char *err, size_t errlen)
{
	unsigned char text[KEY_FILE_MAX];
	const char *why;
	size_t len;

	if (!small_file_read(path, text, sizeof text, &len, trust, err, errlen))
		return 0;
	if (!key_public_parse(text, len, k, &why))
		return refuse_file(err, errlen, path, why);
	return 1;
}

int key_private_read(const char *path, struct privkey *k, char *err, size_t errlen)
{
	unsigned char text[KEY_FILE_MAX];
	const char *why;
	size_t len;
	int ok;

	if (!small_file_read(path, text, sizeof text, &len, 0, err, errlen))
		return 0;
	ok = key_private_parse(text, len, k, &why);
	explicit_bzero(text, sizeof text);
	return ok ? 1 : refuse_file(err, errlen, path, why);
}

int sig_read(const char *path, unsigned char raw[SIG_RAW_LEN], char *err, size_t errlen)
{
	unsigned char der[SIG_FILE_MAX];
	size_t len;

	if (!small_file_read(path, der, sizeof der, &len, 0, err, errlen))
		return 0;
	if (!sig_der_decode(der, len, raw))
		return refuse_file(err, errlen, path, "not a DER ECDSA P-256 signature");
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
