/* freeze_when_ready (launch.h), on the cgroup2 hierarchy alone: there a
 * frozen task still dies on SIGKILL, so the kernel's kill of the
 * session's pid namespace (the launcher SIGKILLed) ends a frozen
 * component as it does any other; on cgroup v1 a frozen task survives
 * SIGKILL until thawed, and the v1 freezer is never used. cgroup.freeze
 * is a core file of every non-root cgroup2 cgroup: no controller is
 * needed, so the hybrid layout's /sys/fs/cgroup/unified serves as well as
 * a unified /sys/fs/cgroup.
 *
 * The launcher refuses (126, before anything runs) where no cgroup2
 * hierarchy is mounted or its own cgroup there is not writable. The
 * session's init, in the session's cgroup there (cgroups.c), makes a
 * cgroup "role-ROLE" beneath it for each freezing component before
 * anything starts; the component's fork joins it before it execs, so its
 * whole run (supervisor, watcher, the confined command and its run's
 * cgroup beneath) is in it. Once the component is ready, the init writes
 * "1" to its cgroup.freeze and waits until cgroup.events says "frozen 1"
 * (poll on POLLPRI: the kernel notifies each change of the file), at most
 * FREEZE_TIMEOUT_MS; then the next component starts, or main. Where it
 * cannot, the init's loop ends the session as told (126, naming it). A
 * frozen component's clients hang: its listening sockets still take
 * connections into their backlog, and nothing accepts them. At the
 * session's end end.c thaws every frozen component, "0", before the first
 * signal. The launcher's watcher removes the cgroup with the session's
 * (cgroups.c). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "common.h"
#include "launch.h"

#define FREEZE_TIMEOUT_MS 10000
#define ROLE_CG "role-"

/* This process's cgroup on the cgroup2 hierarchy into DIR: 0; or -1 with
 * WHY, a clause. */
static int v2_self(char *dir, size_t n, char *why, size_t whysz)
{
	static char text[16384];
	char path[PATH_MAX];
	const char *root = cg2_root();

	snprintf(why, whysz, "no cgroup2 hierarchy is mounted here (at " CG_ROOT " or "
	         CG_ROOT "/unified)");
	if (!root)
		return -1;
	snprintf(why, whysz, "this process has no cgroup2 cgroup in /proc/self/cgroup");
	if (cg_read("/proc/self", "cgroup", text, sizeof text) < 0 ||
	    cg_self_path(text, NULL, path, sizeof path) < 0 ||
	    (size_t)snprintf(dir, n, "%s%s", root, strcmp(path, "/") ? path : "") >= n)
		return -1;
	/* launch --dry-run by another caller than root cannot tell whether
	 * root may write there: the mount alone is checked */
	if (geteuid() == 0 && faccessat(AT_FDCWD, dir, W_OK, AT_EACCESS) < 0) {
		snprintf(why, whysz, "its cgroup2 cgroup %s is not writable: %s", dir,
		         strerror(errno));
		return -1;
	}
	return 0;
}

void freeze_check(const struct component *c)
{
	char dir[PATH_MAX], why[PATH_MAX + 128];

	if (c->freeze_when_ready && v2_self(dir, sizeof dir, why, sizeof why) < 0)
		die_hint(EXIT_CONFINE, 0, "mount cgroup2 (on a hybrid machine at " CG_ROOT "/unified), "
		         "or leave freeze_when_ready out", "component %s: freeze_when_ready needs "
		         "cgroup v2 (on cgroup v1 a frozen task survives SIGKILL until thawed), and %s. "
		         "Nothing ran.", q(c->role), why);
}

/* The session's end for the refusal of R's freeze_when_ready, WHY. */
static int refuse(const struct role *r, const char *why)
{
	fatal_say(EXIT_CONFINE, 0, "component %s: freeze_when_ready: %s. Nothing ran.",
	          q(r->c->role), why);
	return END_CODE(EXIT_CONFINE);
}

/* The session's cgroup on cgroup v2, which the init is in, open into
 * *AT: 0, or the session's end, refused for R, the first component that
 * freezes. */
static int session_cg(const struct launch *s, const struct role *r, int *at)
{
	char dir[PATH_MAX], why[PATH_MAX + 128], name[64];
	const char *base;

	snprintf(name, sizeof name, "sharness-exec-session-%s", s->session);
	if (v2_self(dir, sizeof dir, why, sizeof why) < 0)
		return refuse(r, why);
	if (!(base = strrchr(dir, '/')) || strcmp(base + 1, name))
		return refuse(r, "the session's init is not in the session's cgroup on cgroup v2");
	if ((*at = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return refuse(r, strerror(errno));
	if (faccessat(*at, "cgroup.freeze", W_OK, 0) < 0)
		return refuse(r, "this kernel's cgroup2 has no cgroup.freeze (Linux 5.2 has)");
	return 0;
}

int freeze_prepare(struct launch *s)
{
	char name[MANIFEST_ROLE_MAX + 8];
	int at = -1, end = 0;

	for (size_t i = 0; i < s->n; i++)
		s->r[i].cg = -1;
	for (size_t i = 0; !end && i + 1 < s->n; i++) {
		struct role *r = &s->r[i];

		if (!r->c->freeze_when_ready || (at < 0 && (end = session_cg(s, r, &at))))
			continue;
		snprintf(name, sizeof name, ROLE_CG "%s", r->c->role);
		if (mkdirat(at, name, 0755) < 0 ||
		    (r->cg = openat(at, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
			end = refuse(r, strerror(errno));
	}
	if (at >= 0)
		close(at);
	return end;
}

static int put(int dir, const char *file, const char *val)
{
	int fd = openat(dir, file, O_WRONLY | O_TRUNC | O_CLOEXEC), ok;

	if (fd < 0)
		return -1;
	ok = write_all(fd, val, strlen(val));
	return close(fd) < 0 ? -1 : ok;
}

void freeze_join(const struct role *r)
{
	if (r->cg >= 0 && put(r->cg, "cgroup.procs", "0") < 0)
		die(EXIT_CONFINE, "unable to move %s into its cgroup", q(r->c->role));
}

/* Is the cgroup of EVENTS (open) frozen? 1, 0, or -1. */
static int frozen(int events)
{
	char buf[256];
	ssize_t n = pread(events, buf, sizeof buf - 1, 0);

	if (n < 0)
		return -1;
	buf[n] = '\0';
	return strstr(buf, "\nfrozen 1") || !strncmp(buf, "frozen 1", 8);
}

int freeze_role(struct launch *s, struct role *r)
{
	struct pollfd p[2] = { { .fd = s->sigfd, .events = POLLIN }, { .events = POLLPRI } };
	struct signalfd_siginfo si;
	struct timespec t0, t;
	long ms = FREEZE_TIMEOUT_MS;
	int f;

	if (r->cg < 0)
		return 0;
	if ((p[1].fd = openat(r->cg, "cgroup.events", O_RDONLY | O_CLOEXEC)) < 0 ||
	    put(r->cg, "cgroup.freeze", "1") < 0)
		die(EXIT_CONFINE, "unable to freeze %s", q(r->c->role));
	r->frozen = 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((f = frozen(p[1].fd)) == 0 && ms > 0) {
		if (poll(p, 2, (int)ms) < 0 && errno != EINTR)
			die(EXIT_CONFINE, "unable to wait for %s to freeze", q(r->c->role));
		if (p[0].revents && read(s->sigfd, &si, sizeof si) == sizeof si) {
			close(p[1].fd);
			return END_SIGNAL((int)si.ssi_signo);
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		ms = FREEZE_TIMEOUT_MS - (t.tv_sec - t0.tv_sec) * 1000 -
		     (t.tv_nsec - t0.tv_nsec) / 1000000;
	}
	close(p[1].fd);
	if (f < 0)
		die(EXIT_CONFINE, "unable to read whether %s is frozen", q(r->c->role));
	if (!f) {
		fatal_say(EXIT_CONFINE, 0, "component %s is not frozen within %d s",
		          q(r->c->role), FREEZE_TIMEOUT_MS / 1000);
		return END_CODE(EXIT_CONFINE);
	}
	return 0;
}

void freeze_thaw(struct launch *s)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->r[i].frozen && put(s->r[i].cg, "cgroup.freeze", "0") < 0)
			warnx_("unable to thaw %s: %s", q(s->r[i].c->role), strerror(errno));
		else
			s->r[i].frozen = 0;
}
