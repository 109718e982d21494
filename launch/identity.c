/* The session's identities (launch.h, x509.h): a CA made in locked memory
 * of a process that cannot dump core nor be read through /proc (its key
 * is never written anywhere), and for each role with "identity" a key and
 * an X509-SVID, spiffe://SESSION/ROLE, in its state directory: cert.pem,
 * key.pem and ca.pem, mode 0400, that role's uid's. The secrets are wiped
 * with explicit_bzero before this returns, so before the launcher's first
 * fork; BearSSL's own stack temporaries in keygen and sign cannot be. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "launch.h"
#include "x509.h"

struct secrets {
	struct svid_ca ca;
	struct privkey leaf;
	char pem[1024];
};

static void put_file(const struct role *r, int dir, const char *name, const char *text)
{
	int fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0400);

	if (fd < 0 || fchown(fd, r->uid, r->gid) < 0 || write_all(fd, text, strlen(text)) < 0 ||
	    close(fd) < 0)
		die(EXIT_CONFINE, "unable to write %s/%s", r->state, name);
}

static void issue(struct secrets *x, const struct role *r, const char *ca_pem)
{
	char pem[2 * SVID_CERT_MAX];
	struct svid_cert cert;
	const char *why;
	int dir = open(r->state, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (dir < 0)
		die(EXIT_CONFINE, "unable to open %s", r->state);
	if (!svid_leaf_make(&x->ca, r->c->role, &x->leaf, &cert, &why))
		diex(EXIT_CONFINE, "%s: %s", q(r->c->role), why);
	if (!svid_cert_pem(&cert, pem, sizeof pem) ||
	    !key_private_pem(&x->leaf, x->pem, sizeof x->pem))
		diex(EXIT_CONFINE, "%s: unable to write its certificate or key as PEM",
		     q(r->c->role));
	put_file(r, dir, "cert.pem", pem);
	put_file(r, dir, "key.pem", x->pem);
	put_file(r, dir, "ca.pem", ca_pem);
	explicit_bzero(x->pem, sizeof x->pem);
	explicit_bzero(&x->leaf, sizeof x->leaf);
	close(dir);
}

void identity_issue(struct launch *s)
{
	char ca_pem[2 * SVID_CERT_MAX];
	struct secrets *x;
	const char *why;

	if (svid_harden() < 0 || !(x = svid_secret_alloc(sizeof *x)))
		die(EXIT_CONFINE, "unable to lock memory for the session's keys");
	if (!svid_ca_make(&x->ca, s->id, time(NULL), 0, &why))
		diex(EXIT_CONFINE, "session CA: %s", why);
	svid_cert_hash(&x->ca.cert, s->ca_hash);
	if (!svid_cert_pem(&x->ca.cert, ca_pem, sizeof ca_pem))
		diex(EXIT_CONFINE, "session CA: unable to write its certificate as PEM");
	for (size_t i = 0; i < s->n; i++)
		if (s->r[i].c->identity)
			issue(x, &s->r[i], ca_pem);
	svid_secret_free(x, sizeof *x);
}
