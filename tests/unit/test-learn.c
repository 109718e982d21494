/* draft_consider() of learnrules.c: what a refused access may add to a
 * learned draft. learn is steered by the command it learns from, so every
 * grant outside the conservative allowlist (system directories, the cwd's
 * subtree, a tmpfs for /tmp, /dev's plain nodes and ptys, the run's own
 * /proc) must come out as a suggestion, and a suggestion must never reach
 * the draft. TAP on stdout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "learn/learn.h"
#include "tap.h"

const char *progname = "test-learn";

static const struct learn_ctx ctx = { .cwd = "/srv/proj", .home = "/home/ci" };
static const struct learn_ctx ctx_net = { .cwd = "/srv/proj", .home = "/home/ci",
                                          .allow_network = 1 };

static struct draft fresh(void)
{
	struct draft d;

	memset(&d, 0, sizeof d);
	d.p.net_none = 1;
	d.p.no_new_privs = 1;
	if (!(d.p.id = strdup("t")))
		exit(99);
	return d;
}

static int has(const struct strlist *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return 1;
	return 0;
}

static size_t paths(const struct draft *d)
{
	return d->p.read.n + d->p.write.n + d->p.exec.n + d->p.tmpfs.n;
}

/* KIND on PATH is granted as LIST gets WANT. */
static void grants(const char *kind, const char *path, const char *list, const char *want)
{
	struct draft d = fresh();
	struct denial x = { .kind = kind, .path = path, .port = -1, .state = "hidden" };
	const struct strlist *l = !strcmp(list, "read") ? &d.p.read :
	                          !strcmp(list, "write") ? &d.p.write :
	                          !strcmp(list, "exec") ? &d.p.exec : &d.p.tmpfs;

	tap_ok(draft_consider(&d, &x, &ctx) == 1 && has(l, want) && paths(&d) == 1 &&
	       d.nadd == 1 && d.add[0].granted,
	       "%s %s: files.%s gets %s", kind, path, list, want);
	draft_free(&d);
}

/* KIND on PATH is only suggested: the draft stays empty. */
static void suggests(const char *kind, const char *path, const char *want)
{
	struct draft d = fresh();
	struct denial x = { .kind = kind, .path = path, .port = -1, .state = "hidden" };

	tap_ok(draft_consider(&d, &x, &ctx) == 0 && paths(&d) == 0 && d.nadd == 1 &&
	       !d.add[0].granted && !strcmp(d.add[0].value, want),
	       "%s %s: only suggested, as %s", kind, path, want);
	draft_free(&d);
}

int main(void)
{
	grants("read", "/usr/share/zoneinfo/UTC", "read", "/usr");
	grants("exec", "/usr/lib/go/bin/go", "exec", "/usr");
	grants("list", "/etc/ssl/certs", "read", "/etc");
	grants("write", "/srv/proj/build/out.o", "write", "/srv/proj");
	grants("exec", "/srv/proj/build/test", "exec", "/srv/proj");
	grants("create", "/tmp/go-build123/x", "tmpfs", "/tmp");
	grants("write", "/var/tmp/cache", "tmpfs", "/var/tmp");
	grants("write", "/dev/null", "write", "/dev/null");
	grants("read", "/dev/urandom", "write", "/dev/urandom");
	grants("read", "/dev/null", "write", "/dev/null");
	grants("read", "/dev/ptmx", "read", "/dev");
	grants("read", "/proc/self/stat", "read", "/proc");

	suggests("read", "/opt/fixtures/x.txt", "/opt/fixtures");
	suggests("list", "/opt/fixtures", "/opt/fixtures");
	suggests("read", "/home/ci/.gitconfig", "/home/ci");
	suggests("create", "/home/ci/.cache/foo", "/home/ci/.cache");
	suggests("read", "/srv/proj/.ssh/id_ed25519", "/srv/proj/.ssh");
	suggests("read", "/root/.bashrc", "/root");
	suggests("read", "/run/user/1000/bus", "/run/user/1000");
	suggests("connect_unix", "/var/run/docker.sock", "/var/run/docker.sock");
	suggests("connect_unix", "/srv/proj/sock", "/srv/proj/sock");
	suggests("read", "/proc/1/environ", "/proc/1");
	suggests("read", "/proc/self/environ", "/proc/self");
	suggests("read", "/proc/keys", "/proc");
	suggests("write", "/usr/lib/x", "/usr/lib");
	suggests("write", "/etc/passwd", "/etc");
	suggests("read", "/sys/fs/cgroup/cpu.max", "/sys/fs/cgroup");
	suggests("read", "/dev/kvm", "/dev");

	{
		struct learn_ctx c = ctx;
		struct draft d = fresh();
		struct denial x = { .kind = "read", .path = "/var/tmp/h/.config/x", .port = -1 };
		c.envhome = "/var/tmp/h";
		tap_ok(draft_consider(&d, &x, &c) == 0 && paths(&d) == 0 && d.nadd == 1,
		       "beneath $HOME, wherever it is, only suggested");
		draft_free(&d);
	}
	{
		struct draft d = fresh();
		struct denial x = { .kind = "read", .path = "/usr/lib/x", .port = -1,
		                    .state = "unknown" };
		tap_ok(draft_consider(&d, &x, &ctx) == 0 && paths(&d) == 0 && d.nadd == 1,
		       "a path the observer could not decide is only suggested");
		draft_free(&d);
	}
	{
		struct draft d = fresh();
		struct denial x = { .kind = "read", .path = "/opt/gone", .port = -1,
		                    .state = "absent" };
		tap_ok(draft_consider(&d, &x, &ctx) == 0 && d.nadd == 0,
		       "a path that exists nowhere adds nothing, not even a suggestion");
		draft_free(&d);
	}
	{
		struct draft d = fresh();
		struct denial x = { .kind = "read", .path = "/usr/bin/x", .port = -1 };
		draft_consider(&d, &x, &ctx);
		x.path = "/usr/lib/y";
		tap_ok(draft_consider(&d, &x, &ctx) == 0 && d.p.read.n == 1 && d.nadd == 1,
		       "a second refusal beneath a granted directory adds nothing");
		draft_free(&d);
	}
	{
		struct draft d = fresh();
		struct denial x = { .kind = "connect_tcp", .port = 443 };
		tap_ok(draft_consider(&d, &x, &ctx) == 0 && d.p.net_none && d.p.nconnect == 0 &&
		       d.nadd == 1 && !d.add[0].granted,
		       "a TCP connect under \"none\" is only suggested without --allow-network");
		draft_free(&d);
		d = fresh();
		tap_ok(draft_consider(&d, &x, &ctx_net) == 1 && !d.p.net_none &&
		       d.p.nconnect == 1 && d.p.connect_ports[0] == 443,
		       "with --allow-network it turns \"none\" into the object form with port 443");
		draft_retract(&d, "test");
		tap_ok(d.p.net_none && d.p.nconnect == 0 && !d.add[0].granted,
		       "a retracted port grant gives \"none\" back");
		draft_free(&d);
	}
	{
		struct draft d = fresh();
		struct denial x = { .kind = "read", .path = "/usr/bin/x", .port = -1 };
		draft_consider(&d, &x, &ctx);
		draft_retract(&d, "refused");
		tap_ok(d.p.read.n == 0 && !d.add[0].granted &&
		       strstr(d.add[0].why, "check refuses it: refused") != NULL,
		       "a retracted path grant leaves the draft and becomes a suggestion");
		draft_free(&d);
	}
	return tap_done();
}
