/* cgroup.c, the cgroup library (cgroup.h): sharness-exec-supervise makes,
 * opens (cg_open), kills and removes the run's cgroup with it, the limits
 * step caps and joins it, and the launcher makes, joins and removes its
 * session's cgroups.
 *
 * The new cgroup is only ever made beneath the caller's own cgroup, found
 * from /proc/self/cgroup and checked against cgroup.procs, so every limit
 * placed above the caller keeps applying to the confined command. Interface
 * files are written with O_TRUNC and no O_CREAT, as `echo V > file` does:
 * cgroupfs creates them along with the directory. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>

#include "cgroup.h"
#include "common.h"

#define PREFIX_LEN (sizeof CG_PREFIX - 1)

const char *const cg_ctl[CG_NCTL] = { "memory", "pids", "cpu" };

static int fail(char *why, size_t whysz, const char *fmt, ...) PRINTF(3, 4);
static int fail(char *why, size_t whysz, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whysz, fmt, ap);
	va_end(ap);
	return -1;
}

/* OUT = ROOT PATH [/ NAME], where the PATH "/" is ROOT itself. */
static int mkpath(char *out, const char *root, const char *path, const char *name)
{
	int r = snprintf(out, PATH_MAX, "%s%s%s%s", root, strcmp(path, "/") ? path : "",
	                 name ? "/" : "", name ? name : "");

	if (r < 0 || r >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

/* Read DIR/FILE, which is small (cgroup.controllers and the like). */
int cg_read(const char *dir, const char *file, char *buf, size_t n)
{
	char path[PATH_MAX];
	size_t len = 0;
	ssize_t r;
	int fd;

	if (mkpath(path, dir, "/", file) < 0 ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	while (len + 1 < n && (r = read(fd, buf + len, n - 1 - len)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			close(fd);
			return -1;
		}
		len += (size_t)r;
	}
	buf[len] = '\0';
	close(fd);
	return 0;
}

/* Is WORD one of the space-separated words of LIST? */
static int has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ') &&
		    (p[n] == '\0' || p[n] == ' ' || p[n] == '\n'))
			return 1;
	return 0;
}

/* The controllers of MASK as cgroup.subtree_control words: "+memory +cpu". */
static void ctl_words(char *out, size_t n, int mask, char sign)
{
	out[0] = '\0';
	for (int i = 0; i < CG_NCTL; i++)
		if (mask & 1 << i)
			snprintf(out + strlen(out), n - strlen(out), "%s%c%s", out[0] ? " " : "",
			         sign, cg_ctl[i]);
}

/* Write VAL to DIR/FILE: 1 done, -1 failed; 0 when an OPTIONAL file is
 * missing. */
int cg_put(const char *dir, const char *file, const char *val, int optional)
{
	char path[PATH_MAX];
	int fd, r;

	if (mkpath(path, dir, "/", file) < 0)
		return -1;
	if ((fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)) < 0)
		return optional && errno == ENOENT ? 0 : -1;
	r = write_all(fd, val, strlen(val));
	if (close(fd) < 0 && r == 0)
		r = -1;
	return r < 0 ? -1 : 1;
}

/* cg_put(), with a reason in WHY when it fails. */
static int put_why(const char *dir, const char *file, const char *val, int optional,
                   char *why, size_t whysz)
{
	if (cg_put(dir, file, val, optional) >= 0)
		return 0;
	return fail(why, whysz, "unable to write %s to %s/%s: %s", val, dir, file,
	            strerror(errno));
}

int cg_move(const char *dir, pid_t pid)
{
	char val[24];

	snprintf(val, sizeof val, "%d", (int)pid);
	return cg_put(dir, "cgroup.procs", val, 0) < 0 ? -1 : 0;
}

/* Move SELF into DIR. When ALSO (the caller) is given, SELF is its parent,
 * waiting for it: moved only while it is still our parent, so that its
 * pid cannot have been reused by another process. */
static int move_self(const char *dir, pid_t self, pid_t also)
{
	if (also > 0 && getppid() != self) {
		errno = ESRCH;
		return -1;
	}
	return cg_move(dir, self);
}

/* Count the processes in DIR/cgroup.procs, telling SELF apart. It may be
 * the root of a v1 hierarchy, listing every process: no fixed buffer. */
static int procs_scan(const char *dir, pid_t self, int *has_self, int *others)
{
	char path[PATH_MAX];
	FILE *f;
	int pid;

	if (mkpath(path, dir, "/", "cgroup.procs") < 0 || !(f = fopen(path, "re")))
		return -1;
	*has_self = *others = 0;
	while (fscanf(f, "%d", &pid) == 1)
		*(pid == self ? has_self : others) += 1;
	fclose(f);
	return 0;
}

int cg_self_path(const char *text, const char *controller, char *out, size_t outsz)
{
	for (const char *line = text, *end; *line; line = *end ? end + 1 : end) {
		const char *c1, *c2, *p;
		size_t len;

		end = strchrnul(line, '\n');
		if (!(c1 = memchr(line, ':', (size_t)(end - line))) ||
		    !(c2 = memchr(c1 + 1, ':', (size_t)(end - c1 - 1))))
			continue;
		if (!controller) {
			if (c1 != line + 1 || line[0] != '0' || c2 != c1 + 1)
				continue;
		} else {
			/* the controller list is comma-separated: "cpu,cpuacct" */
			size_t n = strlen(controller);
			for (p = c1 + 1; p < c2; p = strchrnul(p, ',') + 1)
				if (!strncmp(p, controller, n) && (p + n == c2 || p[n] == ','))
					break;
			if (p >= c2)
				continue;
		}
		p = c2 + 1;
		len = (size_t)(end - p);
		if (len == 0 || p[0] != '/') {
			errno = EINVAL;
			return -1;
		}
		/* every component after a '/' must be a plain name */
		for (const char *s = p; len > 1 && s < end; ) {
			const char *e = memchr(s + 1, '/', (size_t)(end - s - 1));
			size_t cl;

			e = e ? e : end;
			cl = (size_t)(e - s - 1);
			if (cl == 0 || (cl == 1 && s[1] == '.') ||
			    (cl == 2 && s[1] == '.' && s[2] == '.')) {
				errno = EINVAL;
				return -1;
			}
			s = e;
		}
		if (len >= outsz) {
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(out, p, len);
		out[len] = '\0';
		return 0;
	}
	errno = ENOENT;
	return -1;
}

static const char *self_path_why(void)
{
	return errno == ENOENT ? "not listed in /proc/self/cgroup" :
	       errno == EINVAL ? "refusing the path in /proc/self/cgroup (outside our view?)" :
	       strerror(errno);
}

/* FN(child, DEPTH + 1) for every cgroup directly beneath DIR, down to a
 * nesting of 16. */
static void each_child(const char *dir, int depth, int (*fn)(const char *, int))
{
	struct dirent *e;
	DIR *d;

	if (depth >= 16 || !(d = opendir(dir)))
		return;
	while ((e = readdir(d))) {
		char sub[PATH_MAX];

		if (e->d_type == DT_DIR && strcmp(e->d_name, ".") &&
		    strcmp(e->d_name, "..") && mkpath(sub, dir, "/", e->d_name) == 0)
			fn(sub, depth + 1);
	}
	closedir(d);
}

static const char *remove_all(struct cgroup *cg, pid_t self, pid_t also);

void (*cg_made)(const char *dir);

/* Can a process join the cgroup DIR, just made? On v2 it must be a plain
 * domain: beneath a thread root (a cgroup with processes and a threaded
 * controller such as pids enabled for its children) or in a threaded
 * subtree, a new cgroup is "domain invalid" or "threaded", and writing a
 * pid to its cgroup.procs fails with EOPNOTSUPP. No cgroup.type: v1, or v2
 * before Linux 4.14, which had no threaded mode. */
static int usable(const char *dir, char *why, size_t whysz)
{
	char type[32];

	if (cg_read(dir, "cgroup.type", type, sizeof type) < 0 || !strcmp(type, "domain\n"))
		return 0;
	type[strcspn(type, "\n")] = '\0';
	return fail(why, whysz, "cgroup v2 %s is \"%s\", not a domain a process can join "
	            "(its parent is in threaded mode)", dir, type);
}

/* mkdir PARENT/sharness-exec.SELF[SUFFIX] into OUT (on V2, one usable()). A name that exists
 * already is another run's (pids repeat across pid namespaces, and a group
 * of a run that is gone may be left): never ours to use or remove, so the
 * next free name sharness-exec.SELF-N[SUFFIX] is taken instead. */
static int make_child(char *out, const char *parent, pid_t self, const char *suffix,
                      int v2, char *why, size_t whysz)
{
	char name[64], path[PATH_MAX];

	for (int n = 1; n <= 64; n++) {
		if (n == 1)
			snprintf(name, sizeof name, CG_PREFIX "%d%s", (int)self, suffix);
		else
			snprintf(name, sizeof name, CG_PREFIX "%d-%d%s", (int)self, n, suffix);
		if (mkpath(path, parent, "/", name) < 0)
			break;
		if (mkdir(path, 0755) == 0) {
			if (cg_made)
				cg_made(path);
			if (v2 && usable(path, why, whysz) < 0) {
				rmdir(path);
				return -1;
			}
			memcpy(out, path, sizeof path);
			return 0;
		}
		if (errno != EEXIST)
			break;
	}
	return fail(why, whysz, "unable to create cgroup %s: %s", path, strerror(errno));
}

int cg2_setup(struct cgroup *cg, const char *root, const char *text, pid_t self,
              pid_t also, int want, char *why, size_t whysz)
{
	char path[PATH_MAX], buf[512], val[32], type[32];
	int has_self, others, enable = 0;

	memset(cg, 0, sizeof *cg);
	if (cg_self_path(text, NULL, path, sizeof path) < 0)
		return fail(why, whysz, "cgroup v2: %s", self_path_why());
	if (mkpath(cg->home, root, path, NULL) < 0 ||
	    cg_read(cg->home, "cgroup.controllers", buf, sizeof buf) < 0)
		return fail(why, whysz, "cgroup v2 %s: %s", cg->home, strerror(errno));
	for (int i = 0; i < CG_NCTL; i++)
		if ((want & 1 << i) && !has_word(buf, cg_ctl[i]))
			return fail(why, whysz, "cgroup v2 %s: the %s controller is not available "
			            "there", cg->home, cg_ctl[i]);
	if (procs_scan(cg->home, self, &has_self, &others) < 0)
		return fail(why, whysz, "cgroup v2 %s: %s", cg->home, strerror(errno));
	if (!has_self)
		return fail(why, whysz, "cgroup v2 %s does not hold this process", cg->home);
	if (also > 0 && others > 0 && getpid() == also) {
		int has_also, not_also;

		/* ALSO, the caller, counts as ours: one of the others is it */
		if (procs_scan(cg->home, also, &has_also, &not_also) < 0)
			return fail(why, whysz, "cgroup v2 %s: %s", cg->home, strerror(errno));
		others -= has_also;
	}
	if (faccessat(AT_FDCWD, cg->home, W_OK, AT_EACCESS) < 0)
		return fail(why, whysz, "cgroup v2 %s: %s", cg->home, strerror(errno));
	if (cg_read(cg->home, "cgroup.subtree_control", buf, sizeof buf) < 0)
		return fail(why, whysz, "cgroup v2 %s: %s", cg->home, strerror(errno));

	/* Only the root of a hierarchy has no cgroup.type (and so does every
	 * cgroup before Linux 4.14, which had no threaded mode: there the
	 * write below fails with EBUSY for any controller). */
	if (cg_read(cg->home, "cgroup.type", type, sizeof type) < 0) {
		if (errno != ENOENT)
			return fail(why, whysz, "cgroup v2 %s: %s", cg->home, strerror(errno));
		type[0] = '\0';
	}
	for (int i = 0; i < CG_NCTL; i++)
		if ((want & 1 << i) && !has_word(buf, cg_ctl[i]))
			enable |= 1 << i;
	if (enable) {
		/* The "no internal processes" rule: a cgroup other than the
		 * root may enable domain controllers (memory) for its children
		 * only while no process is in it (else EBUSY), and enabling a
		 * threaded one (pids) beside a process succeeds but makes the
		 * cgroup a thread root, whose new children are "domain
		 * invalid" and refuse a process (EOPNOTSUPP): the caller's
		 * own cgroup would change type under its other processes.
		 * When we are alone there (a unit or scope delegated to this
		 * very command, e.g. systemd-run --user --scope -p
		 * Delegate=yes), do what podman and docker's dind do: move
		 * into a leaf first; cg_remove moves us back. We never move
		 * the caller's other processes, nor enable anything beside
		 * them: the caller falls back to rlimits. */
		if (others && type[0])
			return fail(why, whysz, "cgroup v2 %s holds other processes, so it cannot "
			            "enable controllers for a child", cg->home);
		if (!others) {
			if (make_child(cg->sv, cg->home, self, CG_SV_SUFFIX, 1, why, whysz) < 0)
				goto undo;
			if (move_self(cg->sv, self, also) < 0 || (also > 0 && cg_enter(cg->sv) < 0)) {
				fail(why, whysz, "unable to move into cgroup %s: %s", cg->sv,
				     strerror(errno));
				goto undo;
			}
			cg->moved = 1;
		}
		ctl_words(val, sizeof val, enable, '+');
		if (put_why(cg->home, "cgroup.subtree_control", val, 0, why, whysz) < 0) {
			/* EBUSY: a process came in meanwhile (or a kernel
			 * before 4.14); EOPNOTSUPP: the cgroup is in a
			 * threaded subtree, where no domain controller goes. */
			if (errno == EBUSY)
				fail(why, whysz, "cgroup v2 %s holds other processes, so it cannot "
				     "enable controllers for a child", cg->home);
			else if (errno == EOPNOTSUPP)
				fail(why, whysz, "cgroup v2 %s is in threaded mode (%s), so it cannot "
				     "enable %s for a child", cg->home,
				     type[0] ? (type[strcspn(type, "\n")] = '\0', type) : "?", val);
			goto undo;
		}
		cg->enabled = enable;
	}
	if (make_child(cg->dir[0], cg->home, self, "", 1, why, whysz) < 0)
		goto undo;
	cg->n = 1;
	cg->version = 2;
	return 0;
undo:
	remove_all(cg, self, also);
	return -1;
}

/* Is HIER/PATH, on v1, the caller's own cgroup without a look at its
 * cgroup.procs (which on a hierarchy's root lists every process of the
 * machine)? In the initial cgroup namespace, whose inode number is fixed
 * (PROC_CGROUP_INIT_INO), /proc/self/cgroup gives each path from its
 * hierarchy's true root; and HIER shows that root when it has
 * release_agent, which only the root of a v1 hierarchy has (a bind
 * mount of a cgroup beneath has none). Else procs_scan decides. */
static int v1_true_root(const char *hier)
{
	static int init_ns = -1;
	char link[64], path[PATH_MAX];
	ssize_t n;

	if (init_ns < 0) {
		n = readlink("/proc/self/ns/cgroup", link, sizeof link - 1);
		link[n > 0 ? n : 0] = '\0';
		init_ns = !strcmp(link, "cgroup:[4026531835]");
	}
	return init_ns && mkpath(path, hier, "/", "release_agent") == 0 &&
	       faccessat(AT_FDCWD, path, F_OK, AT_EACCESS) == 0;
}

int cg1_setup(struct cgroup *cg, const char *root, const char *text, pid_t self,
              int want, char *why, size_t whysz)
{
	const char *const *ctl = cg_ctl;
	char hier[PATH_MAX], home[PATH_MAX], path[PATH_MAX], val[32];
	int has_self, others;

	memset(cg, 0, sizeof *cg);
	for (int i = 0; i < CG_NCTL; i++) {
		char *dir = cg->dir[cg->n];

		if (!(want & 1 << i))
			continue;
		if (cg_self_path(text, ctl[i], path, sizeof path) < 0) {
			fail(why, whysz, "cgroup v1 %s: %s", ctl[i], self_path_why());
			goto undo;
		}
		has_self = 1;
		if (mkpath(hier, root, "/", ctl[i]) < 0 || mkpath(home, hier, path, NULL) < 0 ||
		    (!v1_true_root(hier) && procs_scan(home, self, &has_self, &others) < 0)) {
			fail(why, whysz, "cgroup v1 %s%s: %s", hier, path, strerror(errno));
			goto undo;
		}
		if (!has_self) {
			fail(why, whysz, "cgroup v1 %s does not hold this process", home);
			goto undo;
		}
		/* Before Linux 5.11 a memory cgroup could be cut off from its
		 * parent's accounting: then a child would escape the caller's. */
		if (i == 0 && cg_read(home, "memory.use_hierarchy", val, sizeof val) == 0 &&
		    val[0] == '0') {
			fail(why, whysz, "cgroup v1 %s has memory.use_hierarchy 0", home);
			goto undo;
		}
		if (make_child(dir, home, self, "", 0, why, whysz) < 0)
			goto undo;
		cg->ctl[cg->n++] = 1 << i;
	}
	cg->version = 1;
	return 0;
undo:
	cg_remove(cg, self);
	return -1;
}

/* The calling thread, its process's only one (every caller is), into
 * DIR: on v1 through "tasks", which moves one thread without the write
 * lock on every thread group that cgroup.procs takes, whose RCU grace
 * period was 5 to 50 ms a run here; v2 has no "tasks". */
int cg_enter(const char *dir)
{
	int r = cg_put(dir, "tasks", "0", 1);

	return r == 0 ? (cg_put(dir, "cgroup.procs", "0", 0) < 0 ? -1 : 0) : r < 0 ? -1 : 0;
}

int cg_open(const char *dir, int *dirfd, int *joinfd)
{
	int err;

	*joinfd = -1;
	if ((*dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	/* "tasks" first, as cg_enter: v1's, one thread; v2 has none */
	if ((*joinfd = openat(*dirfd, "tasks", O_WRONLY | O_CLOEXEC)) < 0 && errno == ENOENT)
		*joinfd = openat(*dirfd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
	if (*joinfd >= 0)
		return 0;
	err = errno;
	close(*dirfd);
	*dirfd = -1;
	errno = err;
	return -1;
}

const char *cg_join(const struct cgroup *cg, pid_t pid)
{
	for (int i = 0; i < cg->n; i++)
		if (cg_move(cg->dir[i], pid) < 0)
			return cg->dir[i];
	return NULL;
}

int cg_kill(const struct cgroup *cg)
{
	int left = 0;

	for (int i = 0; i < cg->n; i++) {
		char path[PATH_MAX];
		int killall, pid;
		FILE *f;

		/* cgroup.kill kills the whole subtree at once, no fork can race
		 * it. Without it (v1, or v2 before 5.14) kill pid by pid, as
		 * systemd does; a pid read here could in theory exit and be
		 * reused before the kill(2), a race v1 offers no way to close. */
		killall = cg->version == 2 && cg_put(cg->dir[i], "cgroup.kill", "1", 0) > 0;
		if (mkpath(path, cg->dir[i], "/", "cgroup.procs") < 0 || !(f = fopen(path, "re")))
			continue;
		while (fscanf(f, "%d", &pid) == 1) {
			left++;
			if (!killall && pid > 0)
				kill(pid, SIGKILL);
		}
		fclose(f);
	}
	return left;
}

/* rmdir DIR and, first, every cgroup a nested run or the command itself
 * made inside it: all of it is ours, and no process is left in it. The
 * kernel may count a just-killed process for a moment: retry EBUSY. */
int cg_remove_tree(const char *dir, int depth)
{
	/* Most often there is nothing beneath: no walk of it then. */
	if (rmdir(dir) == 0 || errno == ENOENT)
		return 0;
	each_child(dir, depth, cg_remove_tree);
	for (int i = 0; i < 200; i++) {
		if (rmdir(dir) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			break;
		sleep_ms(5);
	}
	return -1;
}

/* Remember the first failure, and its errno, in *BAD and *ERR. */
static void note(int failed, const char *what, const char **bad, int *err)
{
	if (failed && !*bad) {
		*bad = what;
		*err = errno;
	}
}

const char *cg_remove(struct cgroup *cg, pid_t self)
{
	return remove_all(cg, self, 0);
}

/* cg_remove, which also moves ALSO, when not 0, back: it is the caller. */
static const char *remove_all(struct cgroup *cg, pid_t self, pid_t also)
{
	const char *bad = NULL;
	char val[32];
	int err = 0;

	/* The order matters on v2: the caller's cgroup must have no
	 * controller enabled for children before we may move back into it. */
	for (int i = 0; i < cg->n; i++)
		note(cg_remove_tree(cg->dir[i], 0) < 0, cg->dir[i], &bad, &err);
	if (cg->enabled) {
		ctl_words(val, sizeof val, cg->enabled, '-');
		note(cg_put(cg->home, "cgroup.subtree_control", val, 0) < 0, cg->home, &bad, &err);
	}
	if (cg->moved)
		note(move_self(cg->home, self, also) < 0 || (also > 0 && cg_enter(cg->home) < 0),
		     cg->home, &bad, &err);
	if (cg->sv[0])
		note(cg_remove_tree(cg->sv, 0) < 0, cg->sv, &bad, &err);
	errno = err;
	return bad;
}

const char *cg2_root(void)
{
	struct statfs st;

	if (statfs(CG_ROOT, &st) == 0 && (long)st.f_type == CGROUP2_SUPER_MAGIC)
		return CG_ROOT;
	return statfs(CG_ROOT "/unified", &st) == 0 &&
	       (long)st.f_type == CGROUP2_SUPER_MAGIC ? CG_ROOT "/unified" : NULL;
}
