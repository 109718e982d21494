/* resolve_rule() of trust.c: how the front end resolves a rule path before
 * the chain starts (DESIGN.md 2). The merged-/usr links must come out
 * resolved (the helpers follow no symlink: an unresolved /bin is refused
 * by them as a symlink loop), another user's link must be refused, and a
 * walk that fails for any reason but a missing or unsearchable component
 * must fail, never hand the path on as it is. TAP on stdout. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../common.h"
#include "../../trust.h"
#include "tap.h"

const char *progname = "test-trust";

static char dir[PATH_MAX];

static const char *at(const char *rel)
{
	static char buf[4][2 * PATH_MAX];
	static int i;

	i = (i + 1) % 4;
	if (snprintf(buf[i], sizeof buf[i], "%s/%s", dir, rel) >= (int)sizeof buf[i])
		exit(99);
	return buf[i];
}

/* PATH resolves to WANT. */
static void resolves(const char *path, const char *want, const char *what)
{
	char out[PATH_MAX], why[2 * QUOTED_MAX + 64];
	int r = resolve_rule(path, out, why, sizeof why);

	if (!tap_ok(r == 0 && !strcmp(out, want), "%s", what))
		tap_diag("%s: got %d [%s] (%s), want [%s]", path, r, r ? "" : out,
		         r ? why : "", want);
}

/* PATH is refused, and the reason contains WANT. */
static void refused(const char *path, const char *want, const char *what)
{
	char out[PATH_MAX], why[2 * QUOTED_MAX + 64];
	int r = resolve_rule(path, out, why, sizeof why);

	if (!tap_ok(r < 0 && strstr(why, want), "%s", what))
		tap_diag("%s: got %d [%s], want a refusal with [%s]", path, r,
		         r ? why : out, want);
}

static void link_as(const char *target, const char *name, uid_t uid)
{
	if (symlink(target, at(name)) < 0 || lchown(at(name), uid, uid) < 0) {
		perror(name);
		exit(99);
	}
}

/* As uid 1000 (a child): root's link is trusted, another user's is not.
 * Inside a user namespace root's files would show as 65534: the walk runs
 * before any exists, and this is what it must read there. */
static int as_1000(void)
{
	char out[PATH_MAX], why[2 * QUOTED_MAX + 64];
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		if (setresgid(1000, 1000, 1000) < 0 || setresuid(1000, 1000, 1000) < 0)
			_exit(98);
		if (resolve_rule(at("rootlink/f"), out, why, sizeof why) < 0 ||
		    strcmp(out, at("target/f")))
			_exit(1);
		if (resolve_rule(at("nobodylink"), out, why, sizeof why) == 0)
			_exit(2);
		if (resolve_rule(at("link1000"), out, why, sizeof why) < 0 ||
		    strcmp(out, at("target")))
			_exit(3);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

int main(void)
{
	char tmpl[] = "/tmp/test-trust.XXXXXX", real[PATH_MAX], why[2 * QUOTED_MAX + 64];
	char out[PATH_MAX];
	struct rlimit rl, low;
	int r;

	if (!mkdtemp(tmpl) || !realpath(tmpl, dir) || chmod(dir, 0755) < 0) {
		perror("mkdtemp");
		return 99;
	}
	if (mkdir(at("target"), 0755) < 0 || mkdir(at("a"), 0755) < 0 ||
	    close(open(at("target/f"), O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) < 0) {
		perror("mkdir");
		return 99;
	}
	link_as("target", "rel", getuid());
	link_as(at("target"), "abs", getuid());
	link_as("../target", "a/up", getuid());
	link_as("rel", "chain", getuid());
	link_as("loop2", "loop1", getuid());
	link_as("loop1", "loop2", getuid());

	resolves(at("target"), at("target"), "a directory resolves to itself");
	resolves(at("target/f"), at("target/f"), "a file resolves to itself");
	resolves(at("rel"), at("target"), "the caller's relative symlink is followed");
	resolves(at("abs/f"), at("target/f"), "an absolute symlink, in the middle");
	resolves(at("a/up/f"), at("target/f"), "a link whose target climbs with ..");
	resolves(at("chain"), at("target"), "a link to a link");
	resolves(at("rel/missing/x"), at("target/missing/x"),
	         "a missing tail is appended as it is, its existing part resolved");
	refused(at("loop1"), strerror(ELOOP), "a loop is refused");
	resolves(at("rel/f/x"), at("target/f/x"),
	         "a path through a file goes on as it is (the helpers skip it)");
	/* Merged /usr: root's /bin -> usr/bin and the like. */
	for (const char *const *p = (const char *const[]){ "/bin", "/lib", "/lib64", "/sbin",
	                                                   NULL }; *p; p++) {
		struct stat st;
		char label[PATH_MAX + 64];
		if (lstat(*p, &st) < 0 || !S_ISLNK(st.st_mode) || !realpath(*p, real))
			continue;
		snprintf(label, sizeof label, "merged /usr: %s resolves to %s", *p, real);
		resolves(*p, real, label);
	}

	/* No descriptor left: refused, never handed on unresolved (the
	 * helpers would then meet /bin as a symlink). */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		/* Room for the walk's "/" in the lowest free slot, no more. */
		int lowest = open("/", O_PATH | O_CLOEXEC);
		close(lowest);
		low = rl;
		low.rlim_cur = (rlim_t)lowest + 1;
		if (lowest >= 0 && setrlimit(RLIMIT_NOFILE, &low) == 0) {
			r = resolve_rule(at("rel"), out, why, sizeof why);
			setrlimit(RLIMIT_NOFILE, &rl);
			if (!tap_ok(r < 0 && strstr(why, strerror(EMFILE)),
			            "out of descriptors: refused, not handed on as it is"))
				tap_diag("got %d [%s]", r, r ? why : out);
		}
	}

	if (geteuid() == 0) {
		char want[3 * PATH_MAX];
		link_as("target", "nobodylink", 65534);
		link_as("target", "rootlink", 0);
		link_as("target", "link1000", 1000);
		snprintf(want, sizeof want, "symlink \"%s\" is owned by uid 65534, "
		         "not by root or the caller", at("nobodylink"));
		refused(at("nobodylink/f"), want, "another user's symlink is refused, named");
		refused(at("link1000"), "owned by uid 1000",
		        "as root, uid 1000's symlink is another user's");
		r = as_1000();
		if (!tap_ok(r == 0, "as uid 1000: root's and its own links followed, "
		            "uid 65534's refused"))
			tap_diag("child status %d", r);
	} else {
		tap_diag("not root: the tests of other users' links are left out");
	}
	{
		char cmd[PATH_MAX + 16];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			tap_diag("unable to remove %s", dir);
	}
	return tap_done();
}
