/* The session CA of `launch` and its leaves (DESIGN.md 4.8): X509-SVIDs
 * (SPIFFE X509-SVID 1.0 on RFC 5280), P-256, ecdsa-with-SHA256. BearSSL
 * makes the keys and signs; only the TBSCertificate is encoded here, by
 * hand, in DER (X.690 10). Keys live in memory that is locked, kept out of
 * core dumps, and wiped with explicit_bzero when freed; BearSSL's stack
 * temporaries inside keygen and sign cannot be wiped. Nothing here dies. */
#ifndef SHARNESS_X509_H
#define SHARNESS_X509_H

#include <stddef.h>
#include <time.h>
#include "sign/privkey.h"

#define SVID_SESSION_LEN   16                   /* random bytes */
#define SVID_SESSION_HEX   (2 * SVID_SESSION_LEN)
#define SVID_ROLE_MAX      63                   /* a DNS label */
#define SVID_URI_MAX       (sizeof "spiffe://" + SVID_SESSION_HEX + 1 + SVID_ROLE_MAX)
#define SVID_CERT_MAX      1024                 /* a CA is about 560 bytes */
#define SVID_KEYID_LEN     20                   /* SHA-1, RFC 5280 4.2.1.2 (1) */
#define SVID_LIFETIME      (24 * 60 * 60)       /* seconds, when not set */
#define SVID_BACKDATE      60                   /* notBefore: now less this */

struct svid_cert {
	unsigned char der[SVID_CERT_MAX];
	size_t len;
	char uri[SVID_URI_MAX];                     /* its one URI SAN */
};

/* The CA's key, and each leaf's while it is written out: in svid_secret
 * memory. */
struct svid_ca {
	struct privkey key;
	unsigned char keyid[SVID_KEYID_LEN];        /* its subject key identifier */
	char session[SVID_SESSION_HEX + 1];
	struct svid_cert cert;
	time_t not_before, not_after;
};

/* N bytes of memory for secrets: mlock(2)ed, MADV_DONTDUMP, zeroed; NULL
 * with errno set when it cannot be had (RLIMIT_MEMLOCK). svid_secret_free
 * wipes it first. Callers that hold a CA also make the process
 * non-dumpable with RLIMIT_CORE 0 (svid_harden). */
void *svid_secret_alloc(size_t n);
void svid_secret_free(void *p, size_t n);
/* PR_SET_DUMPABLE 0 and RLIMIT_CORE 0: 0, or -1 with errno set. */
int svid_harden(void);

/* 1 when ROLE is a DNS label, [A-Za-z0-9-]{1,63} with no "-" first or
 * last (a SPIFFE path segment, a host name, and a manifest's role). */
int svid_role_ok(const char *role);

/* A session CA into CA (in secret memory): a fresh key, the session id
 * from SESSION (16 bytes, written in lower-case hex), and a self-signed
 * certificate valid from NOW - 60 s to NOW + LIFETIME seconds, whose one
 * URI SAN is spiffe://SESSION. 1, or 0 with a phrase in *WHY. */
int svid_ca_make(struct svid_ca *ca, const unsigned char session[SVID_SESSION_LEN],
                 time_t now, unsigned long lifetime, const char **why);
/* A leaf for ROLE, signed by CA, valid as long as CA: a fresh key into
 * KEY (in secret memory) and its certificate into CERT, whose one URI SAN
 * is spiffe://SESSION/ROLE, beside the dNSNames ROLE and localhost and the
 * iPAddresses 127.0.0.1 and ::1. 1, or 0 with a phrase in *WHY. */
int svid_leaf_make(const struct svid_ca *ca, const char *role, struct privkey *key,
                   struct svid_cert *cert, const char **why);

/* CERT as PEM "CERTIFICATE" into OUT (CAP bytes): its length, or 0. */
size_t svid_cert_pem(const struct svid_cert *cert, char *out, size_t cap);
/* SHA-256 of CERT's DER, as "sha256:<hex>" (SHARNESS_AI_SESSION_CA). */
void svid_cert_hash(const struct svid_cert *cert, char out[HASH_TEXT_LEN + 1]);

#endif
