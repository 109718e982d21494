/* Unit tests for cgroup.c. The cgroup v2 path cannot run for real on the
 * machines these tests run on (their v2 hierarchy has no controllers; v1
 * holds memory and pids), so it is exercised here against a temporary
 * directory laid out like a delegated cgroup2 tree, with a fake
 * /proc/self/cgroup text. A plain directory is not cgroupfs: mkdir does not
 * create the interface files, so the tests make them in advance where the
 * kernel would, and a write to cgroup.subtree_control never fails with
 * EBUSY. What cgroup.c decides (where, what, with which values, what it
 * refuses and what it undoes) is the same; the v1 path runs for real in
 * tests/step/limits.bats and is checked here as well. No process is signalled. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "common.h"
#include "tap.h"

const char *progname = "test-cgroup";

static char root[PATH_MAX];
static pid_t self;
static char why[PATH_MAX + 256];

/* --- a fake tree, paths relative to ROOT --- */

static const char *at(const char *rel)
{
	static char path[2][2 * PATH_MAX];
	static int i;

	i ^= 1;
	snprintf(path[i], sizeof path[i], "%s/%s", root, rel);
	return path[i];
}

static void mkfile(const char *rel, const char *content)
{
	int fd = open(at(rel), O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write_all(fd, content, strlen(content)) < 0 || close(fd) < 0) {
		perror(at(rel));
		exit(99);
	}
}

static void mkd(const char *rel)
{
	if (mkdir(at(rel), 0755) < 0 && errno != EEXIST) {
		perror(at(rel));
		exit(99);
	}
}

static const char *slurp(const char *rel)
{
	static char buf[4096];
	int fd = open(at(rel), O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);

	if (fd >= 0)
		close(fd);
	if (n < 0)
		return "(missing)";
	buf[n] = '\0';
	return buf;
}

static int exists(const char *rel)
{
	return access(at(rel), F_OK) == 0;
}

static int is(const char *rel, const char *want)
{
	const char *got = slurp(rel);

	if (strcmp(got, want))
		tap_diag("%s: got '%s', want '%s'", rel, got, want);
	return !strcmp(got, want);
}

/* A fresh case directory beneath the temporary base. */
static void fresh(const char *base, const char *name)
{
	snprintf(root, sizeof root, "%s/%s", base, name);
	mkd("");
}

/* What the kernel puts in a new cgroup: the tests make it beforehand. */
static void kernel_v2(const char *rel)
{
	char p[PATH_MAX];

	mkd(rel);
	snprintf(p, sizeof p, "%s/cgroup.procs", rel), mkfile(p, "");
	snprintf(p, sizeof p, "%s/memory.max", rel), mkfile(p, "max");
	snprintf(p, sizeof p, "%s/memory.swap.max", rel), mkfile(p, "max");
	snprintf(p, sizeof p, "%s/pids.max", rel), mkfile(p, "max");
}

/* cgroupfs makes the interface files along with a directory; a plain
 * directory does not, so the hook does, unless a case turns it off (0).
 * 2: no memsw file; 3: a run's cgroup (not a .sv leaf) is "domain
 * invalid", as beneath a thread root. */
static int fake_kernel = 1;

static void made(const char *dir)
{
	static const char *const v2[] = { "cgroup.procs", "memory.max", "memory.swap.max",
	                                  "pids.max", "cpu.max", NULL };
	static const char *const mem[] = { "cgroup.procs", "memory.limit_in_bytes",
	                                   "memory.memsw.limit_in_bytes", CG_TCP_FILE, NULL };
	static const char *const pids[] = { "cgroup.procs", "pids.max", NULL };
	static const char *const cpu[] = { "cgroup.procs", "cpu.cfs_period_us", "cpu.cfs_quota_us",
	                                   NULL };
	const char *const *files = strstr(dir, "/memory/") ? mem : strstr(dir, "/pids/") ? pids :
	                           strstr(dir, "/cpu/") ? cpu : v2;

	if (fake_kernel && files == v2) {
		char p[2 * PATH_MAX];
		int invalid = fake_kernel == 3 && !strstr(dir, CG_SV_SUFFIX);
		const char *t = invalid ? "domain invalid\n" : "domain\n";
		int fd;

		snprintf(p, sizeof p, "%s/cgroup.type", dir);
		fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write_all(fd, t, strlen(t)) < 0 || close(fd) < 0)
			exit(99);
	}
	for (; fake_kernel && *files; files++) {
		if (fake_kernel == 2 && (!strcmp(*files, "memory.memsw.limit_in_bytes") ||
		                         !strcmp(*files, CG_TCP_FILE)))
			continue; /* no swap accounting, an old kernel */
		char p[2 * PATH_MAX];
		int fd;

		snprintf(p, sizeof p, "%s/%s", dir, *files);
		fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write_all(fd, strcmp(*files, "cgroup.procs") ? "max" : "", 
		                        strcmp(*files, "cgroup.procs") ? 3 : 0) < 0 || close(fd) < 0)
			exit(99);
	}
}

/* cgroupfs removes a cgroup's interface files along with it; a plain
 * directory keeps them, and rmdir(2) fails with ENOTEMPTY. This rmdir,
 * which cgroup.c links to here in place of libc's, removes the files
 * first, as the kernel would (not the subdirectories: those are cgroups). */
int rmdir(const char *path)
{
	char p[2 * PATH_MAX];
	struct dirent *e;
	DIR *d = opendir(path);

	while (d && (e = readdir(d)))
		if (e->d_type == DT_REG && snprintf(p, sizeof p, "%s/%s", path, e->d_name) < (int)sizeof p)
			unlink(p);
	if (d)
		closedir(d);
	return (int)syscall(SYS_rmdir, path);
}

/* REL with its "%d" replaced by our pid */
static const char *named(const char *rel)
{
	static char buf[2][PATH_MAX];
	static int i;
	const char *d = strstr(rel, "%d");

	i ^= 1;
	snprintf(buf[i], sizeof buf[i], "%.*s%d%s", (int)(d - rel), rel, (int)self, d + 2);
	return buf[i];
}

static const char *procs_with(int others)
{
	static char buf[64];

	if (others)
		snprintf(buf, sizeof buf, "4000001\n%d\n4000002\n", (int)self);
	else
		snprintf(buf, sizeof buf, "%d\n", (int)self);
	return buf;
}

/* A delegated cgroup2 tree: ROOT/user.slice/job.scope is the caller's. */
static void tree_v2(const char *controllers, const char *subtree, int others)
{
	mkfile("cgroup.controllers", "cpu io memory pids\n");
	mkd("user.slice");
	mkd("user.slice/job.scope");
	mkfile("user.slice/job.scope/cgroup.controllers", controllers);
	mkfile("user.slice/job.scope/cgroup.subtree_control", subtree);
	mkfile("user.slice/job.scope/cgroup.procs", procs_with(others));
	mkfile("user.slice/job.scope/cgroup.type", "domain\n");
}

#define V2_TEXT "1:name=systemd:/user.slice/job.scope\n0::/user.slice/job.scope\n"

static pid_t dead_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return pid;
}

/* --- cg_self_path --- */

/* TEXT with its newlines shown as \n, for a one-line test name */
static const char *esc(const char *text)
{
	static char buf[256];
	size_t n = 0;

	for (; *text && n + 3 < sizeof buf; text++)
		if (*text == '\n')
			buf[n++] = '\\', buf[n++] = 'n';
		else
			buf[n++] = *text;
	buf[n] = '\0';
	return buf;
}

static void test_self_path(void)
{
	static const struct { const char *text, *ctl, *want; int err; } c[] = {
		{ "0::/user.slice/a.scope\n", NULL, "/user.slice/a.scope", 0 },
		{ "0::/\n", NULL, "/", 0 },
		{ "0::/x", NULL, "/x", 0 },
		{ "0::/a:b\n", NULL, "/a:b", 0 },
		{ "0::/a/..b/c.\n", NULL, "/a/..b/c.", 0 },
		{ "4:memory:/m\n0::/u\n", NULL, "/u", 0 },
		{ "4:memory:/m\n", NULL, NULL, ENOENT },
		{ "10::/x\n", NULL, NULL, ENOENT },
		{ "", NULL, NULL, ENOENT },
		{ "0::/../../user.slice\n", NULL, NULL, EINVAL },
		{ "0::/..\n", NULL, NULL, EINVAL },
		{ "0::/a/../b\n", NULL, NULL, EINVAL },
		{ "0::/a/./b\n", NULL, NULL, EINVAL },
		{ "0::/a//b\n", NULL, NULL, EINVAL },
		{ "0::/a/\n", NULL, NULL, EINVAL },
		{ "0::a/b\n", NULL, NULL, EINVAL },
		{ "0::\n", NULL, NULL, EINVAL },
		{ "12:pids:/p\n4:memory:/process_api/x\n0::/\n", "memory", "/process_api/x", 0 },
		{ "12:pids:/p\n4:memory:/process_api/x\n0::/\n", "pids", "/p", 0 },
		{ "3:cpu,cpuacct:/c\n", "cpu", "/c", 0 },
		{ "3:cpu,cpuacct:/c\n", "cpuacct", "/c", 0 },
		{ "3:cpu,cpuacct:/c\n", "acct", NULL, ENOENT },
		{ "5:memoryx:/c\n", "memory", NULL, ENOENT },
		{ "9:name=systemd:/\n", "systemd", NULL, ENOENT },
		{ "0::/\n", "memory", NULL, ENOENT },
		{ "4:memory:/../x\n", "memory", NULL, EINVAL },
	};
	char out[PATH_MAX];

	for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
		int r = cg_self_path(c[i].text, c[i].ctl, out, sizeof out);

		if (c[i].want)
			tap_ok(r == 0 && !strcmp(out, c[i].want), "self path %s in '%s' is %s",
			       c[i].ctl ? c[i].ctl : "v2", esc(c[i].text), c[i].want);
		else
			tap_ok(r == -1 && errno == c[i].err, "self path %s in '%s' fails with %s",
			       c[i].ctl ? c[i].ctl : "v2", esc(c[i].text), strerror(c[i].err));
	}
	tap_ok(cg_self_path("0::/abcdef\n", NULL, out, 7) == -1 && errno == ENAMETOOLONG,
	       "self path longer than the buffer fails with ENAMETOOLONG");
	tap_ok(cg_self_path("0::/abcde\n", NULL, out, 7) == 0 && !strcmp(out, "/abcde"),
	       "self path that just fits is accepted");
}

/* What supervise and limits do together: make the cgroup with the
 * controllers the caps need, then write the caps into every directory. */
/* DIR open, as the limits step has it (cg_caps, cg_tcp and cg_cpu take
 * a descriptor); the one before is closed. */
static int dfd(const char *dir)
{
	static int fd = -1;

	if (fd >= 0)
		close(fd);
	return fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static int setup_caps(int v, struct cgroup *cg, const char *r, const char *text,
                      unsigned long mib, unsigned long pids)
{
	int done = 0, want = (mib ? CG_MEMORY : 0) | (pids ? CG_PIDS : 0);

	if ((v == 2 ? cg2_setup(cg, r, text, self, 0, want, why, sizeof why) :
	     cg1_setup(cg, r, text, self, want, why, sizeof why)) < 0)
		return -1;
	for (int i = 0; i < cg->n; i++)
		if (cg_caps(dfd(cg->dir[i]), cg->dir[i], mib, pids, &done, why, sizeof why) < 0)
			return -1;
	return (done & ~CG_V1) == ((mib ? CG_MEMORY : 0) | (pids ? CG_PIDS : 0)) ? 0 : -2;
}

/* --- cgroup v2 --- */

static void test_v2(const char *base)
{
	struct cgroup cg;
	int r;

	/* Beside the caller's other processes: nothing is enabled (memory
	 * would fail with EBUSY; pids alone would succeed and turn the
	 * caller's cgroup into a thread root whose children refuse a
	 * process), nothing is made, the caller falls back to rlimits. */
	static const struct { unsigned long mib, pids; } shared[] = { { 64, 20 }, { 64, 0 }, { 0, 20 } };
	for (size_t i = 0; i < sizeof shared / sizeof *shared; i++) {
		fresh(base, "v2-shared");
		tree_v2("cpu memory pids\n", "", 1);
		r = setup_caps(2, &cg, root, V2_TEXT, shared[i].mib, shared[i].pids);
		tap_ok(r == -1 && cg.version == 0 && strstr(why, "holds other processes"),
		       "v2 beside other processes, -m %lu -p %lu: refused: %s", shared[i].mib,
		       shared[i].pids, why);
		tap_ok(is("user.slice/job.scope/cgroup.subtree_control", "") &&
		       is("user.slice/job.scope/cgroup.procs", procs_with(1)) &&
		       !exists(named("user.slice/job.scope/sharness-exec.%d")) &&
		       !exists(named("user.slice/job.scope/sharness-exec.%d.sv")),
		       "v2 beside other processes, -m %lu -p %lu: nothing enabled, made or moved",
		       shared[i].mib, shared[i].pids);
	}
	/* a tracking cgroup (no controller) is fine beside them */
	r = cg2_setup(&cg, root, V2_TEXT, self, 0, 0, why, sizeof why);
	tap_ok(r == 0 && cg.n == 1 && !cg.moved && is("user.slice/job.scope/cgroup.subtree_control", ""),
	       "v2 beside other processes: a tracking cgroup enables nothing");
	cg_remove(&cg, self);

	/* A thread root (pids enabled beside processes, by someone else):
	 * the kernel makes its new children "domain invalid". */
	fresh(base, "v2-threadroot");
	tree_v2("memory pids\n", "pids\n", 1);
	mkfile("user.slice/job.scope/cgroup.type", "domain threaded\n");
	fake_kernel = 3;
	r = cg2_setup(&cg, root, V2_TEXT, self, 0, 0, why, sizeof why);
	tap_ok(r == -1 && strstr(why, "\"domain invalid\"") &&
	       !exists(named("user.slice/job.scope/sharness-exec.%d")),
	       "v2 beneath a thread root: a tracking cgroup is refused and removed: %s", why);
	r = setup_caps(2, &cg, root, V2_TEXT, 0, 20);
	tap_ok(r == -1 && strstr(why, "\"domain invalid\"") &&
	       !exists(named("user.slice/job.scope/sharness-exec.%d")) &&
	       is("user.slice/job.scope/cgroup.subtree_control", "pids\n"),
	       "v2 beneath a thread root: -p refused, nothing left: %s", why);
	/* Alone, when a process comes in between our look and our write
	 * (pids enabled beside it makes a thread root): undone. */
	fresh(base, "v2-race");
	tree_v2("memory pids\n", "", 0);
	r = setup_caps(2, &cg, root, V2_TEXT, 0, 20);
	fake_kernel = 1;
	tap_ok(r == -1 && strstr(why, "\"domain invalid\""), "v2 alone, raced: refused: %s", why);
	tap_ok(!exists(named("user.slice/job.scope/sharness-exec.%d")) &&
	       !exists(named("user.slice/job.scope/sharness-exec.%d.sv")) &&
	       is("user.slice/job.scope/cgroup.subtree_control", "-pids") &&
	       is("user.slice/job.scope/cgroup.procs", named("%d")),
	       "v2 alone, raced: pids disabled again, moved back, both cgroups removed");

	/* Without cgroup.type (the root, or Linux before 4.14, where the
	 * kernel itself refuses with EBUSY beside processes): tried. */
	fresh(base, "v2-notype");
	tree_v2("cpu memory pids\n", "", 1);
	unlink(at("user.slice/job.scope/cgroup.type"));
	r = setup_caps(2, &cg, root, V2_TEXT, 64, 20);
	tap_ok(r == 0 && cg.version == 2 && cg.n == 1, "v2: set up beneath the caller's cgroup");
	tap_ok(!strcmp(cg.dir[0], at(named("user.slice/job.scope/sharness-exec.%d"))),
	       "v2: the child is the caller's cgroup's sharness-exec.<pid>");
	tap_ok(is(named("user.slice/job.scope/sharness-exec.%d/memory.max"), "67108864"),
	       "v2: memory.max is 64 MiB in bytes");
	tap_ok(is(named("user.slice/job.scope/sharness-exec.%d/memory.swap.max"), "0"),
	       "v2: memory.swap.max is 0");
	tap_ok(cg_tcp(dfd(cg.dir[0]), cg.dir[0], 64, 0, why, sizeof why) == 2 &&
	       !exists(named("user.slice/job.scope/sharness-exec.%d/" CG_TCP_FILE)),
	       "v2: cg_tcp writes nothing: memory.max holds socket memory");
	tap_ok(is(named("user.slice/job.scope/sharness-exec.%d/pids.max"), "20"),
	       "v2: pids.max is 20");
	tap_ok(is("user.slice/job.scope/cgroup.subtree_control", "+memory +pids"),
	       "v2: memory and pids enabled for children");
	tap_ok(!cg.moved && !exists(named("user.slice/job.scope/sharness-exec.%d.sv")),
	       "v2: with other processes there, the supervisor does not move");
	tap_ok(cg_join(&cg, 4242) == NULL &&
	       is(named("user.slice/job.scope/sharness-exec.%d/cgroup.procs"), "4242"),
	       "v2: joining writes the pid to the child's cgroup.procs");
	cg_remove(&cg, self);
	tap_ok(is("user.slice/job.scope/cgroup.subtree_control", "-memory -pids"),
	       "v2: removing disables the controllers it enabled");
	tap_ok(is("user.slice/job.scope/cgroup.procs", procs_with(1)),
	       "v2: removing leaves the caller's cgroup.procs alone");

	/* alone in a delegated cgroup: the "no internal processes" rule */
	fresh(base, "v2-alone");
	tree_v2("memory pids\n", "", 0);
	r = setup_caps(2, &cg, root, V2_TEXT, 1, 1);
	tap_ok(r == 0 && cg.moved, "v2 alone: set up, moving the supervisor");
	tap_ok(is(named("user.slice/job.scope/sharness-exec.%d.sv/cgroup.procs"),
	          named("%d")),
	       "v2 alone: the supervisor went into sharness-exec.<pid>.sv");
	tap_ok(is(named("user.slice/job.scope/sharness-exec.%d/memory.max"), "1048576") &&
	       is(named("user.slice/job.scope/sharness-exec.%d/pids.max"), "1"),
	       "v2 alone: limits written in the child, not in the leaf");
	tap_ok(is(named("user.slice/job.scope/sharness-exec.%d.sv/pids.max"), "max"),
	       "v2 alone: the supervisor's leaf is not capped");
	mkfile("user.slice/job.scope/cgroup.procs", "");
	cg_remove(&cg, self);
	tap_ok(is("user.slice/job.scope/cgroup.procs", named("%d")) &&
	       is("user.slice/job.scope/cgroup.subtree_control", "-memory -pids"),
	       "v2 alone: removing disables the controllers, then moves back");

	/* The supervisor's watcher does the set up for it: both are in the
	 * caller's cgroup, which is theirs alone; both move into the leaf.
	 * The supervisor is the watcher's parent (here: ours). */
	fresh(base, "v2-watcher");
	tree_v2("memory pids\n", "", 0);
	{
		char procs[64], sv[64];
		pid_t parent = getppid();

		snprintf(procs, sizeof procs, "%d\n%d\n", (int)parent, (int)self);
		mkfile("user.slice/job.scope/cgroup.procs", procs);
		r = cg2_setup(&cg, root, V2_TEXT, parent, self, CG_MEMORY | CG_PIDS, why, sizeof why);
		snprintf(sv, sizeof sv, "user.slice/job.scope/sharness-exec.%d.sv/cgroup.procs",
		         (int)parent);
		tap_ok(r == 0 && cg.moved && is("user.slice/job.scope/cgroup.subtree_control",
		                                 "+memory +pids") && is(sv, "0"),
		       "v2: the watcher counts as the supervisor's, and moves into the leaf after it");
		r = cg2_setup(&cg, root, V2_TEXT, parent, 0, CG_MEMORY | CG_PIDS, why, sizeof why);
		tap_ok(r == -1 && strstr(why, "holds other processes"),
		       "v2: without ALSO the same process is another's: %s", why);
		/* a supervisor that is not our parent (it died, and its pid
		 * may be anyone's now) is never moved */
		fresh(base, "v2-watcher-orphan");
		tree_v2("memory pids\n", "", 0);
		snprintf(procs, sizeof procs, "4000009\n%d\n", (int)self);
		mkfile("user.slice/job.scope/cgroup.procs", procs);
		r = cg2_setup(&cg, root, V2_TEXT, 4000009, self, CG_MEMORY | CG_PIDS, why, sizeof why);
		tap_ok(r == -1 && strstr(why, "No such process") &&
		       !exists("user.slice/job.scope/sharness-exec.4000009.sv") &&
		       is("user.slice/job.scope/cgroup.subtree_control", ""),
		       "v2: a supervisor that is no longer the watcher's parent is not moved: %s", why);
	}

	/* controllers already enabled (the root cgroup may hold processes) */
	fresh(base, "v2-enabled");
	tree_v2("memory pids\n", "memory pids\n", 0);
	r = setup_caps(2, &cg, root, V2_TEXT, 0, 7);
	tap_ok(r == 0 && !cg.moved && !cg.enabled &&
	       is("user.slice/job.scope/cgroup.subtree_control", "memory pids\n"),
	       "v2: controllers already enabled are left as they are");
	tap_ok(is(named("user.slice/job.scope/sharness-exec.%d/pids.max"), "7") &&
	       is(named("user.slice/job.scope/sharness-exec.%d/memory.max"), "max"),
	       "v2: -p alone writes pids.max only");
	cg_remove(&cg, self);
	tap_ok(is("user.slice/job.scope/cgroup.subtree_control", "memory pids\n"),
	       "v2: removing does not disable what it did not enable");

	/* the caller's cgroup at the root of the hierarchy */
	fresh(base, "v2-root");
	mkfile("cgroup.controllers", "memory pids\n");
	mkfile("cgroup.subtree_control", "memory pids\n");
	mkfile("cgroup.procs", procs_with(1));
	r = setup_caps(2, &cg, root, "0::/\n", 8, 0);
	tap_ok(r == 0 && !strcmp(cg.dir[0], at(named("sharness-exec.%d"))) &&
	       is(named("sharness-exec.%d/memory.max"), "8388608"),
	       "v2: caller at the root, child right beneath it");

	/* missing controllers */
	fresh(base, "v2-nomem");
	tree_v2("cpu pids\n", "", 1);
	r = setup_caps(2, &cg, root, V2_TEXT, 64, 20);
	mkfile("user.slice/job.scope/cgroup.procs", procs_with(0));
	tap_ok(r == -1 && strstr(why, "memory controller") && cg.version == 0,
	       "v2: no memory controller, refused: %s", why);
	tap_ok(is("user.slice/job.scope/cgroup.subtree_control", "") &&
	       !exists(named("user.slice/job.scope/sharness-exec.%d")),
	       "v2: refused before touching anything");
	r = setup_caps(2, &cg, root, V2_TEXT, 0, 20);
	tap_ok(r == 0 && is("user.slice/job.scope/cgroup.subtree_control", "+pids"),
	       "v2: no memory controller is fine for -p alone");
	cg_remove(&cg, self);
	fresh(base, "v2-nopids");
	tree_v2("memory\n", "", 1);
	r = setup_caps(2, &cg, root, V2_TEXT, 64, 20);
	tap_ok(r == -1 && strstr(why, "pids controller"), "v2: no pids controller, refused: %s", why);

	/* paths it must refuse */
	fresh(base, "v2-dotdot");
	mkd("sub");
	mkfile("sub/cgroup.controllers", "memory pids\n");
	mkfile("sub/cgroup.subtree_control", "");
	mkfile("sub/cgroup.procs", procs_with(0));
	mkfile("cgroup.controllers", "memory pids\n");
	mkfile("cgroup.subtree_control", "");
	mkfile("cgroup.procs", procs_with(0));
	r = setup_caps(2, &cg, at("sub"), "0::/../\n", 64, 20);
	tap_ok(r == -1 && strstr(why, "refusing"), "v2: '/..' refused: %s", why);
	r = setup_caps(2, &cg, at("sub"), "0::/..\n", 64, 20);
	tap_ok(r == -1 && strstr(why, "refusing") && !exists(named("sharness-exec.%d")) &&
	       !exists(named("sharness-exec.%d.sv")) && is("cgroup.subtree_control", ""),
	       "v2: nothing made above the mount point");
	r = setup_caps(2, &cg, root, "1:memory:/\n", 64, 20);
	tap_ok(r == -1 && strstr(why, "not listed"), "v2: no 0:: line: %s", why);

	/* a cgroup that is not ours */
	fresh(base, "v2-notours");
	tree_v2("memory pids\n", "", 1);
	mkfile("user.slice/job.scope/cgroup.procs", "4000001\n");
	r = setup_caps(2, &cg, root, V2_TEXT, 64, 20);
	tap_ok(r == -1 && strstr(why, "does not hold this process") &&
	       is("user.slice/job.scope/cgroup.subtree_control", ""),
	       "v2: a cgroup that does not list us is refused: %s", why);

	/* a failure half way is undone: here every name it may take is
	 * taken, so the controllers are enabled and no child can be made */
	fresh(base, "v2-undo");
	tree_v2("memory pids\n", "", 0);
	mkd(named("user.slice/job.scope/sharness-exec.%d"));
	for (int i = 2; i <= 64; i++) {
		char n[64];
		snprintf(n, sizeof n, "user.slice/job.scope/sharness-exec.%%d-%d", i);
		mkd(named(n));
	}
	r = setup_caps(2, &cg, root, V2_TEXT, 64, 20);
	tap_ok(r == -1 && strstr(why, at(named("user.slice/job.scope/sharness-exec.%d-64"))) &&
	       strstr(why, "File exists"),
	       "v2: no free name after 64 tries: %s", why);
	tap_ok(is("user.slice/job.scope/cgroup.subtree_control", "-memory -pids"),
	       "v2: the controllers it enabled are disabled again");
	tap_ok(exists(named("user.slice/job.scope/sharness-exec.%d")) &&
	       exists(named("user.slice/job.scope/sharness-exec.%d-64")),
	       "v2: and the names taken by others stay");

	/* limits: a cap with no file for it is an error, not a silent skip */
	fresh(base, "v2-nofile");
	tree_v2("memory pids\n", "", 1);
	unlink(at("user.slice/job.scope/cgroup.type"));
	fake_kernel = 0;
	r = setup_caps(2, &cg, root, V2_TEXT, 64, 20);
	tap_ok(r == -2 && cg.version == 2, "v2: caps without interface files are not done");
	cg_remove(&cg, self);
	tap_ok(!exists(named("user.slice/job.scope/sharness-exec.%d")),
	       "v2: and the supervisor removes the cgroup");

	/* a tracking cgroup: no controller, subtree_control untouched */
	fresh(base, "v2-track");
	tree_v2("", "", 0);
	r = cg2_setup(&cg, root, V2_TEXT, self, 0, 0, why, sizeof why);
	tap_ok(r == 0 && cg.n == 1 && !cg.moved && is("user.slice/job.scope/cgroup.subtree_control", ""),
	       "v2: a cgroup without controllers needs no move and enables nothing");
	cg_remove(&cg, self);
	tap_ok(!exists(named("user.slice/job.scope/sharness-exec.%d")), "v2: tracking cgroup removed");
	fake_kernel = 1;

	/* alone, and the move fails: nothing enabled, the leaf removed */
	fresh(base, "v2-undo-move");
	tree_v2("memory pids\n", "", 0);
	fake_kernel = 0;
	r = setup_caps(2, &cg, root, V2_TEXT, 64, 20);
	fake_kernel = 1;
	tap_ok(r == -1 && strstr(why, "unable to move into cgroup"),
	       "v2 alone: a failed move is reported: %s", why);
	tap_ok(!exists(named("user.slice/job.scope/sharness-exec.%d.sv")) &&
	       is("user.slice/job.scope/cgroup.subtree_control", "") &&
	       is("user.slice/job.scope/cgroup.procs", procs_with(0)),
	       "v2 alone: and undone, without touching subtree_control");

	/* our name taken by another run (another pid namespace's, or one that
	 * is gone): never used nor touched; the next name is ours */
	fresh(base, "v2-taken");
	tree_v2("memory pids\n", "", 0);
	mkd(named("user.slice/job.scope/sharness-exec.%d"));
	mkfile(named("user.slice/job.scope/sharness-exec.%d/cgroup.procs"), "4000003\n");
	r = setup_caps(2, &cg, root, V2_TEXT, 64, 20);
	tap_ok(r == 0 && !strcmp(cg.dir[0], at(named("user.slice/job.scope/sharness-exec.%d-2"))) &&
	       is(named("user.slice/job.scope/sharness-exec.%d-2/memory.max"), "67108864"),
	       "v2: a name taken already: sharness-exec.<pid>-2 instead");
	cg_remove(&cg, self);
	tap_ok(is(named("user.slice/job.scope/sharness-exec.%d/cgroup.procs"), "4000003\n"),
	       "v2: the other run's cgroup is left as it was");
}

/* A run never touches a cgroup it did not make: the sharness-exec.<pid>
 * groups of other runs beside it stay, whether their supervisor is alive,
 * dead, or in another pid namespace (where its pid means nothing here). */
static void test_siblings(const char *base)
{
	struct cgroup cg;
	char name[3][64];
	pid_t d1 = dead_pid(), d2 = dead_pid();
	int r;

	fresh(base, "siblings");
	tree_v2("memory pids\n", "", 0);
	snprintf(name[0], sizeof name[0], "user.slice/job.scope/sharness-exec.%d", (int)d1);
	snprintf(name[1], sizeof name[1], "user.slice/job.scope/sharness-exec.%d.sv", (int)d1);
	snprintf(name[2], sizeof name[2], "user.slice/job.scope/sharness-exec.%d", (int)d2);
	mkd(name[0]);
	mkd(name[1]);
	kernel_v2(name[2]);
	mkd("user.slice/job.scope/sharness-exec.1");
	mkfile("user.slice/job.scope/sharness-exec.1/cgroup.procs", "4000004\n");
	r = setup_caps(2, &cg, root, V2_TEXT, 64, 20);
	tap_ok(r == 0, "siblings: setup works");
	tap_ok(exists(name[0]) && exists(name[1]) && exists(name[2]) &&
	       is("user.slice/job.scope/sharness-exec.1/cgroup.procs", "4000004\n"),
	       "siblings: other runs' cgroups, of dead pids or not, are left alone");
	cg_remove(&cg, self);
	tap_ok(exists(name[0]) && exists(name[1]) && exists(name[2]),
	       "siblings: and still there after our cleanup");
}

/* --- cgroup v1 --- */

#define V1_TEXT "12:pids:/\n9:name=systemd:/\n4:memory:/process_api/x\n3:cpu,cpuacct:/\n0::/\n"

static void tree_v1(const char *use_hierarchy)
{
	mkd("memory");
	mkd("memory/process_api");
	mkd("memory/process_api/x");
	mkfile("memory/process_api/x/cgroup.procs", procs_with(1));
	mkfile("memory/process_api/x/memory.use_hierarchy", use_hierarchy);
	mkd("pids");
	mkfile("pids/cgroup.procs", procs_with(1));
}

static void test_v1(const char *base)
{
	struct cgroup cg;
	int r;

	fresh(base, "v1");
	tree_v1("1\n");
	r = setup_caps(1, &cg, root, V1_TEXT, 100, 30);
	tap_ok(r == 0 && cg.version == 1 && cg.n == 2, "v1: set up in both hierarchies");
	tap_ok(!strcmp(cg.dir[0], at(named("memory/process_api/x/sharness-exec.%d"))) &&
	       !strcmp(cg.dir[1], at(named("pids/sharness-exec.%d"))),
	       "v1: each beneath the caller's own cgroup in that hierarchy");
	tap_ok(is(named("memory/process_api/x/sharness-exec.%d/memory.limit_in_bytes"), "104857600") &&
	       is(named("memory/process_api/x/sharness-exec.%d/memory.memsw.limit_in_bytes"), "104857600"),
	       "v1: memory and memory+swap capped at 100 MiB");
	tap_ok(is(named("pids/sharness-exec.%d/pids.max"), "30"), "v1: pids.max is 30");
	tap_ok(cg_join(&cg, 4243) == NULL &&
	       is(named("memory/process_api/x/sharness-exec.%d/cgroup.procs"), "4243") &&
	       is(named("pids/sharness-exec.%d/cgroup.procs"), "4243"),
	       "v1: joining writes the pid to both");
	cg_remove(&cg, self);

	fresh(base, "v1-mem");
	tree_v1("1\n");
	r = setup_caps(1, &cg, root, V1_TEXT, 1048576, 0);
	tap_ok(r == 0 && cg.n == 1 && !exists(named("pids/sharness-exec.%d")) &&
	       is(named("memory/process_api/x/sharness-exec.%d/memory.limit_in_bytes"),
	          "1099511627776"),
	       "v1: -m alone uses the memory hierarchy only, 1 TiB fits");
	cg_remove(&cg, self);

	fresh(base, "v1-nomemsw");
	tree_v1("1\n");
	fake_kernel = 2;
	r = setup_caps(1, &cg, root, V1_TEXT, 2, 0);
	fake_kernel = 1;
	tap_ok(r == 0 && is(named("memory/process_api/x/sharness-exec.%d/memory.limit_in_bytes"),
	                    "2097152"),
	       "v1: no memsw file (no swap accounting) is fine");
	tap_ok(cg_tcp(dfd(cg.dir[0]), cg.dir[0], 2, 0, why, sizeof why) == 0,
	       "v1: cg_tcp says when the kernel has no " CG_TCP_FILE);
	cg_remove(&cg, self);

	fresh(base, "v1-tcp");
	tree_v1("1\n");
	r = setup_caps(1, &cg, root, V1_TEXT, 64, 0);
	tap_ok(r == 0 && cg_tcp(dfd(cg.dir[0]), cg.dir[0], 64, 0, why, sizeof why) == 1 &&
	       is(named("memory/process_api/x/sharness-exec.%d/" CG_TCP_FILE), "67108864"),
	       "v1: cg_tcp caps TCP buffers at the memory cap");
	cg_remove(&cg, self);

	fresh(base, "v1-nohier");
	tree_v1("0\n");
	r = setup_caps(1, &cg, root, V1_TEXT, 64, 20);
	tap_ok(r == -1 && strstr(why, "use_hierarchy"),
	       "v1: memory.use_hierarchy 0 would escape the caller's accounting: %s", why);

	fresh(base, "v1-nopids");
	tree_v1("1\n");
	r = setup_caps(1, &cg, root, "4:memory:/process_api/x\n", 64, 20);
	tap_ok(r == -1 && strstr(why, "pids") && strstr(why, "not listed"),
	       "v1: no pids line: %s", why);

	fresh(base, "v1-dotdot");
	tree_v1("1\n");
	r = setup_caps(1, &cg, root, "4:memory:/process_api/../x\n", 64, 0);
	tap_ok(r == -1 && strstr(why, "refusing"), "v1: '..' refused: %s", why);

	fresh(base, "v1-notours");
	tree_v1("1\n");
	mkfile("pids/cgroup.procs", "1\n");
	r = setup_caps(1, &cg, root, V1_TEXT, 0, 20);
	tap_ok(r == -1 && strstr(why, "does not hold this process"),
	       "v1: a cgroup that does not list us is refused: %s", why);

	/* A hierarchy's true root (release_agent) seen from the initial
	 * cgroup namespace: /proc/self/cgroup is taken at its word, and the
	 * root's cgroup.procs, every process of the machine, is not read. */
	{
		char ns[64] = "";
		ssize_t n = readlink("/proc/self/ns/cgroup", ns, sizeof ns - 1);
		int init_ns = n > 0 && (ns[n] = '\0', !strcmp(ns, "cgroup:[4026531835]"));

		fresh(base, "v1-trueroot");
		tree_v1("1\n");
		mkfile("pids/cgroup.procs", "1\n");
		mkfile("pids/release_agent", "");
		r = setup_caps(1, &cg, root, V1_TEXT, 0, 20);
		tap_ok(init_ns ? r == 0 && exists(named("pids/sharness-exec.%d")) :
		       r == -1 && strstr(why, "does not hold this process"),
		       "v1: a true root is not listed %s", init_ns ? "(initial cgroup namespace)" :
		       "outside the initial cgroup namespace: refused");
		if (r == 0)
			cg_remove(&cg, self);
	}

	fresh(base, "v1-undo");
	mkd("memory");
	mkfile("memory/cgroup.procs", procs_with(1));
	mkd("pids"); /* without cgroup.procs: refused after memory is made */
	fake_kernel = 0;
	r = cg1_setup(&cg, root, "4:memory:/\n12:pids:/\n", self, CG_MEMORY | CG_PIDS, why, sizeof why);
	fake_kernel = 1;
	tap_ok(r == -1 && strstr(why, "pids") && !exists(named("memory/sharness-exec.%d")),
	       "v1: the memory cgroup made first is removed when the pids one fails: %s", why);

	fresh(base, "v1-track");
	tree_v1("1\n");
	r = cg1_setup(&cg, root, V1_TEXT, self, CG_PIDS, why, sizeof why);
	tap_ok(r == 0 && cg.n == 1 && is(named("pids/sharness-exec.%d/pids.max"), "max"),
	       "v1: a tracking cgroup in the pids hierarchy, uncapped");
	cg_remove(&cg, self);
}

/* --- the CPU cap (cgroupcpu.c) --- */

/* cgroup v2, in a delegated tree laid out as systemd makes one: the cpu
 * controller enabled with the others, cpu.max written, all undone. */
static void test_cpu_v2(const char *base)
{
	struct cgroup cg;
	unsigned long q;
	int r;

	fresh(base, "cpu-v2");
	tree_v2("cpu memory pids\n", "", 0);
	r = cg2_setup(&cg, root, V2_TEXT, self, 0, CG_MEMORY | CG_CPU, why, sizeof why);
	tap_ok(r == 0 && cg.moved && is("user.slice/job.scope/cgroup.subtree_control",
	                                "+memory +cpu"),
	       "cpu v2: the cpu controller is enabled for the run's cgroup with memory");
	r = cg_cpu(dfd(cg.dir[0]), cg.dir[0], 50, 0, &q, why, sizeof why);
	tap_ok(r == 1 && q == 50000 && is(named("user.slice/job.scope/sharness-exec.%d/cpu.max"),
	                                  "50000 100000"),
	       "cpu v2: 50 %% of one CPU is cpu.max \"50000 100000\"");
	r = cg_cpu(dfd(cg.dir[0]), cg.dir[0], 409600, 0, &q, why, sizeof why);
	tap_ok(r == 1 && is(named("user.slice/job.scope/sharness-exec.%d/cpu.max"),
	                    "409600000 100000"),
	       "cpu v2: 409600 %% (4096 CPUs) is cpu.max \"409600000 100000\"");
	tap_ok(is(named("user.slice/job.scope/sharness-exec.%d.sv/cpu.max"), "max"),
	       "cpu v2: the supervisor's leaf is not capped");
	mkfile("user.slice/job.scope/cgroup.procs", "");
	cg_remove(&cg, self);
	tap_ok(is("user.slice/job.scope/cgroup.subtree_control", "-memory -cpu") &&
	       is("user.slice/job.scope/cgroup.procs", named("%d")) &&
	       !exists(named("user.slice/job.scope/sharness-exec.%d")),
	       "cpu v2: removing disables memory and cpu, moves back, removes the cgroup");

	/* not delegated: cgroup.controllers does not list cpu */
	fresh(base, "cpu-v2-none");
	tree_v2("memory pids\n", "", 0);
	r = cg2_setup(&cg, root, V2_TEXT, self, 0, CG_MEMORY | CG_CPU, why, sizeof why);
	tap_ok(r == -1 && strstr(why, "the cpu controller is not available there") &&
	       is("user.slice/job.scope/cgroup.subtree_control", "") &&
	       !exists(named("user.slice/job.scope/sharness-exec.%d.sv")),
	       "cpu v2: no cpu in cgroup.controllers: refused before touching anything: %s", why);
	/* and the search again without it (watcher.c) gets memory its cgroup,
	 * where the limits step finds no cpu file */
	r = cg2_setup(&cg, root, V2_TEXT, self, 0, CG_MEMORY, why, sizeof why);
	tap_ok(r == 0, "cpu v2: without cpu, memory still gets its cgroup");
	unlink(at(named("user.slice/job.scope/sharness-exec.%d/cpu.max")));
	r = cg_cpu(dfd(cg.dir[0]), cg.dir[0], 50, 0, &q, why, sizeof why);
	tap_ok(r == 0, "cpu v2: a cgroup without cpu files: nothing written (0)");
	mkfile("user.slice/job.scope/cgroup.procs", "");
	cg_remove(&cg, self);
}

/* cgroup v1: the cpu hierarchy, beneath the caller's own cgroup there */
static void test_cpu_v1(const char *base)
{
	struct cgroup cg;
	unsigned long q;
	int r;

	fresh(base, "cpu-v1");
	tree_v1("1\n");
	mkd("cpu");
	mkfile("cpu/cgroup.procs", procs_with(1));
	r = cg1_setup(&cg, root, V1_TEXT, self, CG_PIDS | CG_CPU, why, sizeof why);
	tap_ok(r == 0 && cg.n == 2 && !strcmp(cg.dir[0], at(named("pids/sharness-exec.%d"))) &&
	       !strcmp(cg.dir[1], at(named("cpu/sharness-exec.%d"))),
	       "cpu v1: a cgroup in the cpu hierarchy (\"cpu,cpuacct\" in /proc/self/cgroup)");
	tap_ok(cg_cpu(dfd(cg.dir[0]), cg.dir[0], 50, 0, &q, why, sizeof why) == 0,
	       "cpu v1: the pids cgroup has no cpu files (0)");
	r = cg_cpu(dfd(cg.dir[1]), cg.dir[1], 50, 0, &q, why, sizeof why);
	tap_ok(r == 1 && q == 50000 && is(named("cpu/sharness-exec.%d/cpu.cfs_period_us"), "100000") &&
	       is(named("cpu/sharness-exec.%d/cpu.cfs_quota_us"), "50000"),
	       "cpu v1: cfs_period_us 100000, cfs_quota_us 50000");
	cg_remove(&cg, self);
	tap_ok(!exists(named("cpu/sharness-exec.%d")), "cpu v1: removed");
}

int main(void)
{
	char base[] = "/tmp/test-cgroup.XXXXXX";
	char cmd[64];

	self = getpid();
	cg_made = made;
	if (!mkdtemp(base)) {
		perror("mkdtemp");
		return 99;
	}
	tap_diag("the cgroup v2 path runs against a fake tree in %s", base);
	test_self_path();
	test_v2(base);
	test_siblings(base);
	test_v1(base);
	test_cpu_v2(base);
	test_cpu_v1(base);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
	if (system(cmd) != 0)
		tap_diag("could not remove %s", base);
	return tap_done();
}
