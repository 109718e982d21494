/* The session's namespaces and state directories (launch.h). The
 * launcher leaves the host's network for a namespace of the session's own
 * whose only interface is lo, up: every component and main are in it, so
 * a port is the session's, whoever else on the machine has it. It leaves
 * the host's mounts for a namespace of its own (slave to the host's, so
 * nothing mounted here goes back), with a tmpfs at SESSION_DIR: mounted
 * only there, it goes when the last process of the session does; the
 * manifest's shared directories beneath it, in SHARE_DIR, and the logs
 * main reads in LOGS_DIR. */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "launch.h"

static void loopback_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (sock < 0 || ioctl(sock, SIOCGIFFLAGS, &ifr) < 0)
		die(EXIT_CONFINE, "unable to read the session's loopback");
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(sock, SIOCSIFFLAGS, &ifr) < 0)
		die(EXIT_CONFINE, "unable to bring the session's loopback up");
	close(sock);
}

/* Role R's inline policy, as the manifest's bytes have it, in a sealed
 * memfd: its run reads it as /proc/LAUNCHER/fd/N, pinned by its hash. */
static int policy_memfd(const struct launch *s, const struct component *c)
{
	const jsmntok_t *t = &s->l.doc.tok[c->policy_tok];
	int fd = sealed_memfd("sharness-exec-policy", MFD_CLOEXEC, s->l.text + t->start,
	                      (size_t)(t->end - t->start));

	if (fd < 0)
		die(EXIT_CONFINE, "unable to put the policy of %s in a memfd", q(c->role));
	return fd;
}

/* SHARE_DIR/NAME for each share, in the session's tmpfs DIR: its first
 * writer's, its group's, set-group-ID so that what is made in it is the
 * group's too; 2770, or 2750 when roles read it. */
static void shares_make(const struct launch *s, int dir)
{
	int share;

	if (!s->man.nshare)
		return;
	if (mkdirat(dir, "share", 0755) < 0 ||
	    (share = openat(dir, "share", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		die(EXIT_CONFINE, "unable to make %s", SHARE_DIR);
	for (size_t i = 0; i < s->man.nshare; i++) {
		const struct share *sh = &s->man.share[i];
		mode_t mode = sh->nread ? 02750 : 02770;

		if (mkdirat(share, sh->name, 0700) < 0 ||
		    fchownat(share, sh->name, s->r[sh->write[0]].uid, s->share_gid[i],
		             AT_SYMLINK_NOFOLLOW) < 0 ||
		    fchmodat(share, sh->name, mode, 0) < 0)
			die(EXIT_CONFINE, "unable to make the shared directory %s/%s", SHARE_DIR,
			    sh->name);
	}
	close(share);
}

/* LOGS_DIR, for main's read_logs: the launcher's, main's group's, 0750;
 * in it ROLE.log for each role named, 0640, which the init appends to. */
static void logs_make(struct launch *s, int dir)
{
	gid_t gid = s->r[s->n - 1].gid;
	char name[MANIFEST_ROLE_MAX + 8];
	int logs;

	if (!s->man.nread_logs)
		return;
	if (mkdirat(dir, "logs", 0700) < 0 ||
	    fchownat(dir, "logs", (uid_t)-1, gid, AT_SYMLINK_NOFOLLOW) < 0 ||
	    fchmodat(dir, "logs", 0750, 0) < 0 ||
	    (logs = openat(dir, "logs", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		die(EXIT_CONFINE, "unable to make %s", LOGS_DIR);
	for (size_t i = 0; i < s->man.nread_logs; i++) {
		struct role *r = &s->r[s->man.read_logs[i]];

		snprintf(name, sizeof name, "%s.log", r->c->role);
		if ((r->live = openat(logs, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND |
		                      O_CLOEXEC, 0600)) < 0 ||
		    fchown(r->live, (uid_t)-1, gid) < 0 || fchmod(r->live, 0640) < 0)
			die(EXIT_CONFINE, "unable to make %s/%s", LOGS_DIR, name);
	}
	close(logs);
}

void session_make(struct launch *s)
{
	int run = run_dir(), dir = own_dir(run, "session", 0755);

	close(dir);
	close(run);
	if (unshare(CLONE_NEWNET | CLONE_NEWNS) < 0)
		die(EXIT_CONFINE, "unable to make the session's network and mount namespaces");
	loopback_up();
	if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0)
		die(EXIT_CONFINE, "unable to make the session's mounts a slave of the host's");
	if (mount("sharness-exec-session", SESSION_DIR, "tmpfs", MS_NOSUID | MS_NODEV,
	          "mode=0755") < 0)
		die(EXIT_CONFINE, "unable to mount the session's tmpfs on %s", SESSION_DIR);
	if ((dir = open(SESSION_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		die(EXIT_CONFINE, "unable to open %s", SESSION_DIR);
	for (size_t i = 0; i < s->n; i++) {
		struct role *r = &s->r[i];

		snprintf(r->state, sizeof r->state, "%s/%s", SESSION_DIR, r->c->role);
		if (mkdirat(dir, r->c->role, 0700) < 0 ||
		    fchownat(dir, r->c->role, r->uid, r->gid, AT_SYMLINK_NOFOLLOW) < 0)
			die(EXIT_CONFINE, "unable to make the state directory %s", r->state);
		r->policy = policy_memfd(s, r->c);
	}
	shares_make(s, dir);
	logs_make(s, dir);
	close(dir);
}
