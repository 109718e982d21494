/* X509-SVIDs for a launch session (x509.h). Every certificate is
 *
 *   Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm,
 *                              signatureValue BIT STRING }
 *   TBSCertificate ::= SEQUENCE { [0] version v3, serialNumber, signature,
 *       issuer, validity, subject, subjectPublicKeyInfo, [3] extensions }
 *
 * (RFC 5280 4.1) with a positive serial of 16 random bytes, ecdsa-with-
 * SHA256 with its parameters absent (RFC 5758 3.2), and UTCTime (through
 * 2049, GeneralizedTime after, RFC 5280 4.1.2.5). The CA's subject and
 * issuer are one CN; a leaf's subject is empty, so its subjectAltName is
 * critical (RFC 5280 4.1.2.6, SPIFFE X509-SVID 3.1). A leaf's role is a
 * DNS label: it is one of the leaf's dNSNames too. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <bearssl.h>

#include "text.h"
#include "x509.h"

/* Object identifiers, DER contents only. */
static const unsigned char oid_ecdsa_sha256[] = { 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02 };
static const unsigned char oid_cn[] = { 0x55, 0x04, 0x03 };
static const unsigned char oid_ski[] = { 0x55, 0x1d, 0x0e };
static const unsigned char oid_key_usage[] = { 0x55, 0x1d, 0x0f };
static const unsigned char oid_san[] = { 0x55, 0x1d, 0x11 };
static const unsigned char oid_basic[] = { 0x55, 0x1d, 0x13 };
static const unsigned char oid_aki[] = { 0x55, 0x1d, 0x23 };
static const unsigned char oid_eku[] = { 0x55, 0x1d, 0x25 };
static const unsigned char oid_server_auth[] = { 0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x01 };
static const unsigned char oid_client_auth[] = { 0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x02 };

/* keyUsage BIT STRINGs (RFC 5280 4.2.1.3), trailing zero bits dropped
 * (X.690 11.2.2): keyCertSign (5) and cRLSign (6); digitalSignature (0). */
static const unsigned char ku_ca[] = { 0x01, 0x06 };
static const unsigned char ku_leaf[] = { 0x07, 0x80 };
/* basicConstraints: cA TRUE, pathLenConstraint 0; cA FALSE is the empty
 * SEQUENCE, since DER leaves out a DEFAULT value (X.690 11.5). */
static const unsigned char bc_ca[] = { 0x01, 0x01, 0xff, 0x02, 0x01, 0x00 };

enum { CRITICAL = 1 };

/* A DER writer into a fixed buffer: a constructed value is begun with a
 * three-byte length and ended by shrinking it to the shortest form. */
struct der {
	unsigned char *b;
	size_t n, cap;
	int bad;                    /* ran out of room */
};

static void put(struct der *d, const void *p, size_t n)
{
	if (!n)
		return;
	if (d->bad || n > d->cap - d->n) {
		d->bad = 1;
		return;
	}
	memcpy(d->b + d->n, p, n);
	d->n += n;
}

static size_t begin(struct der *d, unsigned char tag)
{
	const unsigned char h[4] = { tag, 0x82, 0, 0 };

	put(d, h, sizeof h);
	return d->n;
}

static void end(struct der *d, size_t at)
{
	size_t len = d->n - at, hl = len < 0x80 ? 1 : len < 0x100 ? 2 : 3;
	unsigned char *l = d->b + at - 3;

	if (d->bad)
		return;
	if (hl == 1) {
		l[0] = (unsigned char)len;
	} else {
		l[0] = (unsigned char)(0x80 | (hl - 1));
		l[hl - 1] = (unsigned char)len;
		if (hl == 3)
			l[1] = (unsigned char)(len >> 8);
	}
	memmove(l + hl, d->b + at, len);
	d->n -= 3 - hl;
}

static void prim(struct der *d, unsigned char tag, const void *p, size_t n)
{
	size_t at = begin(d, tag);

	put(d, p, n);
	end(d, at);
}

static void algorithm(struct der *d)
{
	size_t at = begin(d, 0x30);

	prim(d, 0x06, oid_ecdsa_sha256, sizeof oid_ecdsa_sha256);
	end(d, at);
}

/* A Name of one RDN, CN=CN, or the empty Name when CN is NULL. */
static void name(struct der *d, const char *cn)
{
	size_t seq = begin(d, 0x30), set, atv;

	if (cn) {
		set = begin(d, 0x31);
		atv = begin(d, 0x30);
		prim(d, 0x06, oid_cn, sizeof oid_cn);
		prim(d, 0x0c, cn, strlen(cn));          /* UTF8String */
		end(d, atv);
		end(d, set);
	}
	end(d, seq);
}

/* UTCTime YYMMDDHHMMSSZ through 2049, GeneralizedTime after. */
static void when(struct der *d, time_t t)
{
	struct tm tm;
	char s[64];
	int utc;

	if (!gmtime_r(&t, &tm)) {
		d->bad = 1;
		return;
	}
	utc = tm.tm_year + 1900 < 2050;
	snprintf(s, sizeof s, "%0*d%02d%02d%02d%02d%02dZ", utc ? 2 : 4,
	         utc ? tm.tm_year % 100 : tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
	         tm.tm_hour, tm.tm_min, tm.tm_sec);
	prim(d, utc ? 0x17 : 0x18, s, strlen(s));
}

/* Extension OID, CRITICAL or not (DEFAULT FALSE: then left out), whose
 * extnValue holds VALUE wrapped in TAG (0: VALUE is whole DER). */
static void extension(struct der *d, const unsigned char *oid, size_t oidlen, int critical,
                      unsigned char tag, const void *value, size_t n)
{
	static const unsigned char yes[] = { 0x01, 0x01, 0xff };
	size_t ext = begin(d, 0x30), octets;

	prim(d, 0x06, oid, oidlen);
	if (critical)
		put(d, yes, sizeof yes);
	octets = begin(d, 0x04);
	if (tag)
		prim(d, tag, value, n);
	else
		put(d, value, n);
	end(d, octets);
	end(d, ext);
}

/* subjectAltName: one uniformResourceIdentifier [6] IA5String; a leaf's
 * then its host names, its ROLE and localhost, as dNSName [2] IA5String,
 * and the loopback's addresses, 127.0.0.1 and ::1, as iPAddress [7]
 * (X509-SVID 2: other SAN types may stand beside the one URI SAN). */
static void san(struct der *d, const char *uri, const char *role, int critical)
{
	static const unsigned char v4[] = { 127, 0, 0, 1 }, v6[16] = { [15] = 1 };
	unsigned char v[64 + SVID_URI_MAX + SVID_ROLE_MAX];
	struct der in = { v, 0, sizeof v, 0 };
	size_t seq = begin(&in, 0x30);

	prim(&in, 0x86, uri, strlen(uri));
	if (role) {
		prim(&in, 0x82, role, strlen(role));
		prim(&in, 0x82, "localhost", strlen("localhost"));
		prim(&in, 0x87, v4, sizeof v4);
		prim(&in, 0x87, v6, sizeof v6);
	}
	end(&in, seq);
	if (in.bad)
		d->bad = 1;
	extension(d, oid_san, sizeof oid_san, critical, 0, v, in.n);
}

/* A positive INTEGER of 16 random bytes: the first not 0 (so that DER's
 * shortest form keeps all 16), a 0 before it when its top bit is set. */
static int serial(struct der *d)
{
	unsigned char s[1 + SVID_SESSION_LEN] = { 0 };

	do {
		if (random_fill(s + 1, SVID_SESSION_LEN) < 0)
			return 0;
	} while (!s[1]);
	if (s[1] & 0x80)
		prim(d, 0x02, s, sizeof s);
	else
		prim(d, 0x02, s + 1, SVID_SESSION_LEN);
	return 1;
}

/* The extensions of a CA (when LEAF is NULL) or of a leaf whose URI SAN
 * is LEAF, issued by CA. */
static void extensions(struct der *d, const struct svid_ca *ca, const char *leaf)
{
	/* room for begin()'s three-byte lengths, before end() shrinks them */
	unsigned char eku[64], aki[64];
	struct der e = { eku, 0, sizeof eku, 0 }, a = { aki, 0, sizeof aki, 0 };
	size_t outer = begin(d, 0xa3), seq = begin(d, 0x30), at;

	if (!leaf) {
		extension(d, oid_basic, sizeof oid_basic, CRITICAL, 0x30, bc_ca, sizeof bc_ca);
		extension(d, oid_key_usage, sizeof oid_key_usage, CRITICAL, 0x03, ku_ca, sizeof ku_ca);
		extension(d, oid_ski, sizeof oid_ski, 0, 0x04, ca->keyid, SVID_KEYID_LEN);
		san(d, ca->cert.uri, NULL, 0);
	} else {
		extension(d, oid_basic, sizeof oid_basic, CRITICAL, 0x30, NULL, 0);
		extension(d, oid_key_usage, sizeof oid_key_usage, CRITICAL, 0x03, ku_leaf,
		          sizeof ku_leaf);
		at = begin(&e, 0x30);
		prim(&e, 0x06, oid_server_auth, sizeof oid_server_auth);
		prim(&e, 0x06, oid_client_auth, sizeof oid_client_auth);
		end(&e, at);
		extension(d, oid_eku, sizeof oid_eku, 0, 0, eku, e.n);
		at = begin(&a, 0x30);
		prim(&a, 0x80, ca->keyid, SVID_KEYID_LEN);   /* [0] keyIdentifier */
		end(&a, at);
		extension(d, oid_aki, sizeof oid_aki, 0, 0, aki, a.n);
		san(d, leaf, strrchr(leaf, '/') + 1, CRITICAL);
	}
	d->bad |= e.bad | a.bad;
	end(d, seq);
	end(d, outer);
}

/* The certificate of KEY's public half into OUT: issued by CA (whose
 * subject is the CN below), for the CA itself when LEAF is NULL, else
 * for URI SAN LEAF; signed with CA's key. */
static int certificate(const struct svid_ca *ca, const struct pubkey *key, const char *leaf,
                       struct svid_cert *out)
{
	static const unsigned char v3[] = { 0xa0, 0x03, 0x02, 0x01, 0x02 };
	unsigned char spki[SPKI_P256_LEN], digest[HASH_LEN], sig[SIG_DER_MAX + 1] = { 0 };
	struct der d = { out->der, 0, sizeof out->der, 0 };
	size_t cert = begin(&d, 0x30), tbs = begin(&d, 0x30), validity, n;
	char cn[64];
	br_sha256_context sc;

	snprintf(cn, sizeof cn, "sharness-exec session %s", ca->session);
	put(&d, v3, sizeof v3);
	if (!serial(&d))
		return 0;
	algorithm(&d);
	name(&d, cn);
	validity = begin(&d, 0x30);
	when(&d, ca->not_before);
	when(&d, ca->not_after);
	end(&d, validity);
	name(&d, leaf ? NULL : cn);
	spki_encode_p256(key->q, spki);
	put(&d, spki, sizeof spki);
	extensions(&d, ca, leaf);
	end(&d, tbs);
	if (d.bad)
		return 0;
	/* the TBSCertificate, its tag and length included, is what is signed */
	br_sha256_init(&sc);
	br_sha256_update(&sc, d.b + cert, d.n - cert);
	br_sha256_out(&sc, digest);
	if (!(n = key_sign(&ca->key, digest, sig + 1)))
		return 0;
	algorithm(&d);
	prim(&d, 0x03, sig, n + 1);                 /* no unused bits */
	end(&d, cert);
	out->len = d.n;
	return !d.bad;
}

int svid_role_ok(const char *role)
{
	size_t len = strlen(role);

	return len && len <= SVID_ROLE_MAX && role[0] != '-' && role[len - 1] != '-' &&
	       strspn(role, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	                    "0123456789-") == len;
}

int svid_ca_make(struct svid_ca *ca, const unsigned char session[SVID_SESSION_LEN],
                 time_t now, unsigned long lifetime, const char **why)
{
	br_sha1_context sc;

	memset(ca, 0, sizeof *ca);
	hex_encode(ca->session, session, SVID_SESSION_LEN);
	ca->not_before = now - SVID_BACKDATE;
	ca->not_after = now + (time_t)(lifetime ? lifetime : SVID_LIFETIME);
	snprintf(ca->cert.uri, sizeof ca->cert.uri, "spiffe://%s", ca->session);
	*why = "unable to make a P-256 key";
	if (!key_generate(&ca->key))
		return 0;
	/* RFC 5280 4.2.1.2 (1): SHA-1 of the subjectPublicKey's bits */
	br_sha1_init(&sc);
	br_sha1_update(&sc, ca->key.pub.q, P256_POINT_LEN);
	br_sha1_out(&sc, ca->keyid);
	*why = "unable to encode or sign the CA certificate";
	return certificate(ca, &ca->key.pub, NULL, &ca->cert);
}

int svid_leaf_make(const struct svid_ca *ca, const char *role, struct privkey *key,
                   struct svid_cert *cert, const char **why)
{
	memset(cert, 0, sizeof *cert);
	*why = "not a role: a DNS label, 1-63 of [A-Za-z0-9-], no - first or last";
	if (!svid_role_ok(role))
		return 0;
	snprintf(cert->uri, sizeof cert->uri, "spiffe://%.32s/%.63s", ca->session, role);
	*why = "unable to make a P-256 key";
	if (!key_generate(key))
		return 0;
	*why = "unable to encode or sign the certificate";
	return certificate(ca, &key->pub, cert->uri, cert);
}

size_t svid_cert_pem(const struct svid_cert *cert, char *out, size_t cap)
{
	return pem_encode(out, cap, cert->der, cert->len, "CERTIFICATE");
}

void svid_cert_hash(const struct svid_cert *cert, char out[HASH_TEXT_LEN + 1])
{
	unsigned char digest[HASH_LEN];
	br_sha256_context sc;

	br_sha256_init(&sc);
	br_sha256_update(&sc, cert->der, cert->len);
	br_sha256_out(&sc, digest);
	hash_format(digest, out);
}

void *svid_secret_alloc(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int e;

	if (p == MAP_FAILED)
		return NULL;
	if (mlock(p, n) < 0 || madvise(p, n, MADV_DONTDUMP) < 0) {
		e = errno;
		munmap(p, n);
		errno = e;
		return NULL;
	}
	return p;
}

void svid_secret_free(void *p, size_t n)
{
	if (!p)
		return;
	explicit_bzero(p, n);
	munlock(p, n);
	munmap(p, n);
}

int svid_harden(void)
{
	const struct rlimit zero = { 0, 0 };

	return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0 || setrlimit(RLIMIT_CORE, &zero) < 0 ? -1 : 0;
}
