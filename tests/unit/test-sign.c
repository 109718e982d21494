/* Unit tests of the readers and writers of signed policies (key.c, shared
 * by the front end and sharness-exec-sign, and privkey.c, the signer's): the ECDSA P-256 SHA-256 known answer of RFC 6979 A.2.5 through
 * our key and signature formats, the exact SPKI bytes, and the edge cases
 * of DER and PEM that the readers must refuse or take. TAP on stdout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bearssl.h>

#include "key.h"
#include "sign/privkey.h"
#include "tap.h"

const char *progname = "test-sign";

static size_t unhex(const char *h, unsigned char *out)
{
	size_t n = 0;

	for (; h[0] && h[1]; h += 2)
		out[n++] = (unsigned char)strtoul((char[]){ h[0], h[1], 0 }, NULL, 16);
	return n;
}

/* RFC 6979 A.2.5: the P-256 key, and the SHA-256 signature of "sample". */
static const char rfc_x[] =
	"C9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721";
static const char rfc_q[] = "04"
	"60FED4BA255A9D31C961EB74C6356D68C049B8923B61FA6CE669622E60F29FB6"
	"7903FE1008B8BC99A41AE9E95628BC64F2F1B20C2D7E9F5177A3C294D4462299";
static const char rfc_rs[] =
	"EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716"
	"F7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8";

static void known_answer(void)
{
	unsigned char x[32], q[65], rs[64], der[256], sig[SIG_DER_MAX], raw[64];
	unsigned char digest[32], spki[SPKI_P256_LEN], fp[32];
	char pem[1024], fp_text[HASH_TEXT_LEN + 1];
	br_ec_private_key sk = { BR_EC_secp256r1, x, sizeof x };
	br_ec_public_key pk = { BR_EC_secp256r1, q, sizeof q };
	br_sha256_context h;
	struct privkey k;
	struct pubkey pub;
	const char *why = NULL;
	size_t n;

	unhex(rfc_x, x);
	unhex(rfc_q, q);
	unhex(rfc_rs, rs);
	n = br_encode_ec_raw_der(der, &sk, &pk);
	tap_ok(n > 0 && pem_encode(pem, sizeof pem, der, n, "EC PRIVATE KEY") > 0,
	       "the RFC 6979 key encodes as SEC1 PEM");
	tap_ok(key_private_parse(pem, strlen(pem), &k, &why), "key_private_parse reads it (%s)",
	       why ? why : "ok");
	tap_ok(!memcmp(k.pub.q, q, sizeof q), "its public point is RFC 6979's");

	br_sha256_init(&h);
	br_sha256_update(&h, "sample", 6);
	br_sha256_out(&h, digest);
	n = key_sign(&k, digest, sig);
	tap_ok(n > 0 && sig_der_decode(sig, n, raw), "key_sign writes DER that sig_der_decode reads");
	tap_ok(!memcmp(raw, rs, sizeof rs), "the signature of \"sample\" is RFC 6979's r and s");
	tap_ok(key_verify(&k.pub, digest, raw), "key_verify accepts it");
	raw[63] ^= 1;
	tap_ok(!key_verify(&k.pub, digest, raw), "... and refuses it with one bit of s flipped");
	raw[63] ^= 1;
	digest[0] ^= 0x80;
	tap_ok(!key_verify(&k.pub, digest, raw), "... and for another digest");

	spki_encode_p256(q, spki);
	n = unhex("3059301306072A8648CE3D020106082A8648CE3D030107034200", der);
	tap_ok(n == 26 && !memcmp(spki, der, n) && !memcmp(spki + 26, q, 65),
	       "the SPKI is the 26-byte P-256 header and the point");
	br_sha256_init(&h);
	br_sha256_update(&h, spki, sizeof spki);
	br_sha256_out(&h, fp);
	hash_format(fp, fp_text);
	tap_ok(!strcmp(k.pub.fp_text, fp_text), "the fingerprint is SHA-256 of the SPKI");
	pem_encode(pem, sizeof pem, spki, sizeof spki, "PUBLIC KEY");
	tap_ok(key_public_parse(pem, strlen(pem), &pub, &why) && !memcmp(pub.q, q, sizeof q),
	       "key_public_parse reads the PEM of that SPKI");
	explicit_bzero(&k, sizeof k);
}

static void spki_cases(void)
{
	static const struct {
		const char *hex;
		const char *want;
		const char *what;
	} cases[] = {
		{ "30", "not an ECDSA P-256 public key", "one byte" },
		{ "3080", "not an ECDSA P-256 public key", "indefinite length" },
		/* rsaEncryption, a NULL and a BIT STRING that need not be RSA */
		{ "3012300d06092a864886f70d0101010500030100", "an RSA key", "rsaEncryption" },
		{ "300e300906072a8648ce3d0201030100", "not an ECDSA P-256 public key",
		  "id-ecPublicKey without a curve" },
		{ "3015301006072a8648ce3d020106052b81040022030100", "a P-384 key", "secp384r1" },
		{ "3015301006072a8648ce3d020106052b81040023030100", "a P-521 key", "secp521r1" },
		{ "300e30090607 2b6570 0000 030100", "not an ECDSA P-256 public key", "garbage inside" },
		{ "300a300506032b6570030100", "not an ECDSA P-256 public key", "Ed25519" },
		{ "3039301306072a8648ce3d020106082a8648ce3d030107032200"
		  "0360fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6",
		  "a P-256 key in compressed form", "RFC 6979's key, compressed" },
	};
	unsigned char der[256], q[65], good[SPKI_P256_LEN];
	const char *why;
	char hex[512];

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		size_t j = 0;
		for (const char *p = cases[i].hex; *p; p++)
			if (*p != ' ')
				hex[j++] = *p;
		hex[j] = '\0';
		size_t n = unhex(hex, der);
		why = spki_decode_p256(der, n, q);
		tap_ok(why && !strcmp(why, cases[i].want), "spki: %s is %s (%s)",
		       cases[i].what, cases[i].want, why ? why : "taken");
	}
	unhex(rfc_q, q);
	spki_encode_p256(q, good);
	tap_ok(!spki_decode_p256(good, sizeof good, q), "spki: the RFC 6979 key is P-256");
	memcpy(der, good, sizeof good);
	der[sizeof good] = 0;
	tap_ok(spki_decode_p256(der, sizeof good + 1, q) != NULL, "spki: a trailing byte is refused");
	der[SPKI_P256_LEN - 1] ^= 1;
	why = spki_decode_p256(der, sizeof good, q);
	tap_ok(why && !strcmp(why, "not a point of P-256"), "spki: a point off the curve is refused");
	der[SPKI_P256_LEN - 1] ^= 1;
	der[SPKI_PREFIX_LEN] = 6;       /* the hybrid form: X, Y and Y's parity */
	tap_ok(spki_decode_p256(der, sizeof good, q) != NULL, "spki: a point in hybrid form is refused");
	/* The long form of a length that fits the short form. */
	{
		unsigned char l[SPKI_P256_LEN + 1] = { 0x30, 0x81, 0x59 };
		memcpy(l + 3, good + 2, SPKI_P256_LEN - 2);
		tap_ok(spki_decode_p256(l, sizeof l, q) != NULL, "spki: a non-minimal length is refused");
	}
}

static void sig_cases(void)
{
	static const struct {
		const char *hex;
		int ok;
		const char *what;
	} cases[] = {
		{ "3006020101020101", 1, "r = s = 1" },
		{ "3006020100020101", 0, "r = 0" },
		{ "3006020101020180", 0, "a negative s" },
		{ "300702020001020101", 0, "r with a needless leading zero" },
		{ "30070202008002 0101", 1, "r = 0x80, its leading zero needed" },
		{ "300702010102010100", 0, "a trailing byte inside" },
		{ "3006020101020101 00", 0, "a trailing byte outside" },
		{ "308106020101020101", 0, "the sequence length in the long form" },
		{ "3005020101020101", 0, "a short sequence length" },
		{ "30060201010201", 0, "truncated" },
		{ "3026022100ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff020101", 1,
		  "r of 256 bits" },
		{ "3026022101ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff020101", 0,
		  "r of 257 bits" },
		{ "", 0, "nothing" },
	};
	unsigned char der[128], raw[64];
	char hex[256];

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		size_t j = 0;
		for (const char *p = cases[i].hex; *p; p++)
			if (*p != ' ')
				hex[j++] = *p;
		hex[j] = '\0';
		size_t n = unhex(hex, der);
		tap_ok(sig_der_decode(der, n, raw) == cases[i].ok, "sig: %s is %s",
		       cases[i].what, cases[i].ok ? "taken" : "refused");
	}
}

static void pem_cases(void)
{
	static const char two[] =
		"junk before\n-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n"
		"-----BEGIN PUBLIC KEY-----\r\nAAEC\r\n-----END PUBLIC KEY-----";
	static const char dup[] =
		"-----BEGIN PUBLIC KEY-----\nAAEC\n-----END PUBLIC KEY-----\n"
		"-----BEGIN PUBLIC KEY-----\nAAEC\n-----END PUBLIC KEY-----\n";
	static const char open_[] = "-----BEGIN PUBLIC KEY-----\nAAEC\n";
	static const char bad[] = "-----BEGIN PUBLIC KEY-----\nAA!C\n-----END PUBLIC KEY-----\n";
	static const char priv[] =
		"-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n"
		"-----BEGIN EC PRIVATE KEY-----\nAAEC\n-----END EC PRIVATE KEY-----\n";
	unsigned char der[16];
	struct pubkey pub;
	struct privkey k;
	const char *why = "";
	size_t n = 0;

	tap_ok(pem_find(two, strlen(two), "PUBLIC KEY", der, sizeof der, &n, &why) == PEM_FOUND &&
	       n == 3 && der[0] == 0 && der[1] == 1 && der[2] == 2,
	       "pem: the object is found past junk and another object, with CRLF and no final newline");
	tap_ok(pem_find(dup, strlen(dup), "PUBLIC KEY", der, sizeof der, &n, &why) == PEM_BAD,
	       "pem: two objects of the name asked for are refused (%s)", why);
	tap_ok(pem_find(open_, strlen(open_), "PUBLIC KEY", der, sizeof der, &n, &why) == PEM_BAD,
	       "pem: an object without its END line is refused (%s)", why);
	tap_ok(pem_find(bad, strlen(bad), "PUBLIC KEY", der, sizeof der, &n, &why) == PEM_BAD,
	       "pem: bad base64 is refused (%s)", why);
	tap_ok(pem_find(dup, strlen(dup), "PUBLIC KEY", der, 2, &n, &why) == PEM_BAD,
	       "pem: an object larger than the buffer is refused");
	tap_ok(pem_find(priv, strlen(priv), "PUBLIC KEY", der, sizeof der, &n, &why) == PEM_NONE,
	       "pem: no public key past EC PARAMETERS and a private key");
	tap_ok(pem_find(priv, strlen(priv), "EC PRIVATE KEY", der, sizeof der, &n, &why) == PEM_FOUND &&
	       n == 3, "pem: the private key past EC PARAMETERS");
	tap_ok(pem_find("", 0, "PUBLIC KEY", der, sizeof der, &n, &why) == PEM_NONE,
	       "pem: an empty file holds nothing");
	tap_ok(key_public_parse(priv, strlen(priv), &pub, &why) == 0 &&
	       !strcmp(why, "a private key, not a public key (give the .pub file)"),
	       "key: a private key given as public is named as one (%s)", why);
	tap_ok(key_private_parse(two, strlen(two), &k, &why) == 0 &&
	       !strcmp(why, "a public key, not a private key"),
	       "key: a public key given as private is named as one (%s)", why);
}

int main(void)
{
	known_answer();
	spki_cases();
	sig_cases();
	pem_cases();
	return tap_done();
}
