/* resolve_rule() of trust.c: how the front end resolves a rule path before
 * the chain starts (DESIGN.md 2). The merged-/usr links must come out
 * resolved (the helpers follow no symlink: an unresolved /bin is refused
 * by them as a symlink loop), another user's link must be refused, and so
 * must a link in a directory the target's uid could write (an earlier run
 * could have planted it); a walk that fails for any reason but a missing
 * or unsearchable component must fail, never hand the path on as it is.
 * TAP on stdout. Run as root (make check here is): the links that are
 * followed live in a directory of uid 65534's, which neither root nor
 * uid 1000 may write. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <grp.h>
#include <stdint.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "common.h"
#include "trust.h"
#include "tap.h"

const char *progname = "test-trust";

static char dir[PATH_MAX];
static int acl_set;	/* the "acl" directory got its ACL */

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

	if (!tap_ok(r >= 0 && !strcmp(out, want), "%s", what))
		tap_diag("%s: got %d [%s] (%s), want [%s]", path, r, r < 0 ? "" : out,
		         r < 0 ? why : "", want);
}

/* PATH is refused, and the reason contains WANT. */
static void refused(const char *path, const char *want, const char *what)
{
	char out[PATH_MAX], why[2 * QUOTED_MAX + 64];
	int r = resolve_rule(path, out, why, sizeof why);

	if (!tap_ok(r < 0 && strstr(why, want), "%s", what))
		tap_diag("%s: got %d [%s], want a refusal with [%s]", path, r,
		         r < 0 ? why : out, want);
}

static void link_as(const char *target, const char *name, uid_t uid)
{
	if (symlink(target, at(name)) < 0 || lchown(at(name), uid, uid) < 0) {
		perror(name);
		exit(99);
	}
}

/* As uid 1000, gid 1000 (a child): root's link and its own are trusted,
 * another user's is not; and the directory rule weighs uid 1000. Inside a
 * user namespace root's files would show as 65534: the walk runs before
 * any exists, and this is what it must read there. */
static int as_1000(void)
{
	static const struct { const char *path; int ok; } cases[] = {
		{ "rootlink/f", 1 }, { "nobodylink", 0 }, { "link1000", 1 },
		{ "own1000/l", 0 }, { "sticky/rootl", 1 }, { "sticky/l1000", 0 },
		{ "group1000/l", 0 }, { "open/l", 0 }, { "acl/l", 0 },
	};
	char out[PATH_MAX], why[3 * QUOTED_MAX + 256];
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		gid_t none[1];
		if (setgroups(0, none) < 0 || setresgid(1000, 1000, 1000) < 0 ||
		    setresuid(1000, 1000, 1000) < 0)
			_exit(98);
		for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
			if ((acl_set || strcmp(cases[i].path, "acl/l")) &&
			    (resolve_rule(at(cases[i].path), out, why, sizeof why) >= 0) !=
			    cases[i].ok)
				_exit(1 + (int)i);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* A directory NAME of UID:GID with MODE. */
static void dir_as(const char *name, uid_t uid, gid_t gid, mode_t mode)
{
	if (mkdir(at(name), mode) < 0 || chown(at(name), uid, gid) < 0 ||
	    chmod(at(name), mode) < 0) {
		perror(name);
		exit(99);
	}
}

/* Give PATH the access ACL u::rwx,u:1000:rwx,g::r-x,m::rwx,o::r-x. */
static int set_acl(const char *path)
{
	struct { uint16_t tag, perm; uint32_t id; } e[5] = {
		{ 0x01, 7, (uint32_t)-1 }, { 0x02, 7, 1000 }, { 0x04, 5, (uint32_t)-1 },
		{ 0x10, 7, (uint32_t)-1 }, { 0x20, 5, (uint32_t)-1 },
	};
	unsigned char buf[4 + sizeof e];
	uint32_t version = 2;

	memcpy(buf, &version, 4);
	memcpy(buf + 4, e, sizeof e);
	return setxattr(path, "system.posix_acl_access", buf, sizeof buf, 0);
}

/* The directory rule, as root; then as uid 1000 (as_1000). */
static void parents(void)
{
	char want[3 * PATH_MAX];
	int r;

	link_as("target", "nobodylink", 65534);
	link_as("target", "rootlink", 0);
	link_as("target", "link1000", 1000);
	snprintf(want, sizeof want, "symlink \"%s\" is owned by uid 65534, "
	         "not by root or the caller", at("nobodylink"));
	refused(at("nobodylink/f"), want, "another user's symlink is refused, named");
	refused(at("link1000"), "owned by uid 1000",
	        "as root, uid 1000's symlink is another user's");
	/* Root's own directory, even without u+w (its owner may chmod it). */
	dir_as("own0", 0, 0, 0555);
	link_as("../target", "own0/l", 0);
	snprintf(want, sizeof want, "symlink \"%s\" (to \"../target\") lies in \"%s\", "
	         "which uid 0 owns: an earlier run as uid 0 could have planted it",
	         at("own0/l"), at("own0"));
	refused(at("own0/l"), want, "a link in a directory of the target's uid (0555) is refused");
	dir_as("own1000", 1000, 1000, 0555);
	link_as("../target", "own1000/l", 0);
	resolves(at("own1000/l"), at("target"), "as root, root's link in uid 1000's directory is followed");
	/* Sticky: a link not the target's, in a directory not the target's. */
	dir_as("sticky", 0, 0, 01777);
	link_as("../target", "sticky/rootl", 0);
	link_as("../target", "sticky/l1000", 1000);
	refused(at("sticky/rootl"), "which uid 0 owns", "as root, a sticky directory of root's is refused");
	/* Group-writable: only where the target is in the group. */
	dir_as("group1000", 65534, 1000, 0775);
	link_as("../target", "group1000/l", 0);
	resolves(at("group1000/l"), at("target"),
	         "as root, a directory writable by a group root is not in is followed");
	dir_as("group0", 65534, 0, 0775);
	link_as("../target", "group0/l", 0);
	refused(at("group0/l"), "its group (gid 0), which uid 0 is in, may write",
	        "as root, a directory writable by root's group is refused");
	/* An ACL naming uid 1000, in a directory of a group neither is in:
	 * its group bits are the ACL's mask. */
	dir_as("acl", 65534, 65534, 0755);
	link_as("../target", "acl/l", 0);
	if ((acl_set = set_acl(at("acl")) == 0))
		refused(at("acl/l"), "its ACL may let uid 0 write",
		        "a directory with an ACL and group-writable bits is refused");
	else
		tap_diag("no ACLs on this filesystem: the ACL case is left out");
	dir_as("open", 65534, 65534, 0777);
	link_as("../target", "open/l", 0);
	refused(at("open/l"), "which everyone may write", "a directory anyone may write is refused");
	r = as_1000();
	if (!tap_ok(r == 0, "as uid 1000: root's and its own links followed, uid 65534's "
	            "refused; links in its own, its group's or an open directory refused, "
	            "and its own in a sticky one"))
		tap_diag("child status %d (1 + the case that failed)", r);
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
	/* Neither root nor uid 1000 may write where the links are. */
	if (geteuid() == 0 && (chown(dir, 65534, 65534) < 0 || chown(at("a"), 65534, 65534) < 0)) {
		perror("chown");
		return 99;
	}

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

	if (geteuid() == 0)
		parents();
	else
		tap_diag("not root: the tests of other users' links are left out");
	{
		char cmd[PATH_MAX + 16];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			tap_diag("unable to remove %s", dir);
	}
	return tap_done();
}
