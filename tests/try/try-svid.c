/* try-svid: a session CA and a leaf for each ROLE, written to DIR, for
 * tests/launch/svid.bats (x509.h): DIR/ca.pem, and DIR/ROLE.pem with its key
 * DIR/ROLE.key (SEC1 PEM, mode 0600). The CA's key is made in locked
 * memory in a non-dumpable process, is never written, and is wiped before
 * exit. Prints "session HEX", "ca sha256:HEX" and one "ROLE URI" line a
 * leaf; exits 0, 1 on failure, 2 on usage errors.
 *
 *   try-svid [-l LIFETIME_SECONDS] DIR ROLE...
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "launch/x509.h"

const char *progname = "try-svid";

/* Secret memory: the CA, and the leaf key of the moment. */
struct secrets {
	struct svid_ca ca;
	struct privkey leaf;
	char pem[1024];
};

static int write_file(int dir, const char *name, const char *text, mode_t mode)
{
	int fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);

	if (fd < 0 || fchmod(fd, mode) < 0 || write_all(fd, text, strlen(text)) < 0 ||
	    close(fd) < 0) {
		fprintf(stderr, "try-svid: unable to write %s: %s\n", name, strerror(errno));
		return -1;
	}
	return 0;
}

static int leaf(int dir, struct secrets *s, const char *role)
{
	struct svid_cert cert;
	char name[SVID_ROLE_MAX + 8], pem[2 * SVID_CERT_MAX];
	const char *why;

	if (!svid_leaf_make(&s->ca, role, &s->leaf, &cert, &why)) {
		fprintf(stderr, "try-svid: %s: %s\n", role, why);
		return -1;
	}
	snprintf(name, sizeof name, "%s.pem", role);
	if (!svid_cert_pem(&cert, pem, sizeof pem) || write_file(dir, name, pem, 0644) < 0)
		return -1;
	snprintf(name, sizeof name, "%s.key", role);
	if (!key_private_pem(&s->leaf, s->pem, sizeof s->pem) ||
	    write_file(dir, name, s->pem, 0600) < 0)
		return -1;
	explicit_bzero(s->pem, sizeof s->pem);
	explicit_bzero(&s->leaf, sizeof s->leaf);
	printf("%s %s\n", role, cert.uri);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned char session[SVID_SESSION_LEN];
	char pem[2 * SVID_CERT_MAX], hash[HASH_TEXT_LEN + 1];
	unsigned long lifetime = 0;
	struct secrets *s;
	const char *why;
	int opt, dir, rc = 0;

	while ((opt = getopt(argc, argv, "+l:")) != -1) {
		if (opt != 'l' || !(lifetime = strtoul(optarg, NULL, 10)))
			return fprintf(stderr, "usage: try-svid [-l SECONDS] DIR ROLE...\n"), 2;
	}
	if (argc - optind < 2)
		return fprintf(stderr, "usage: try-svid [-l SECONDS] DIR ROLE...\n"), 2;
	if (svid_harden() < 0 || !(s = svid_secret_alloc(sizeof *s))) {
		fprintf(stderr, "try-svid: unable to lock memory for keys: %s\n", strerror(errno));
		return 1;
	}
	if ((dir = open(argv[optind], O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    random_fill(session, sizeof session) < 0) {
		fprintf(stderr, "try-svid: %s: %s\n", argv[optind], strerror(errno));
		return 1;
	}
	if (!svid_ca_make(&s->ca, session, time(NULL), lifetime, &why)) {
		fprintf(stderr, "try-svid: %s\n", why);
		rc = 1;
	}
	if (!rc && (!svid_cert_pem(&s->ca.cert, pem, sizeof pem) ||
	            write_file(dir, "ca.pem", pem, 0644) < 0))
		rc = 1;
	svid_cert_hash(&s->ca.cert, hash);
	if (!rc)
		printf("session %s\nca %s\n", s->ca.session, hash);
	for (int i = optind + 1; !rc && i < argc; i++)
		rc = leaf(dir, s, argv[i]) < 0;
	svid_secret_free(s, sizeof *s);
	return rc || fflush(stdout) ? 1 : 0;
}
