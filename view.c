/* sharness-exec-view: the filesystem the rest of the chain sees. In a new
 * mount namespace, a new root (a tmpfs, or a clone of / when / is a rule)
 * holds only the paths in argv, each bound with the union of its own and its
 * ancestors' rights (-r read-only,noexec; -x read-only; -w read-write; all
 * nosuid,nodev; -p read-only beneath a write path); /proc a fresh procfs,
 * /sys read-only, /dev a minimal one; then pivot_root, the old root
 * detached, and the same working directory. Trusts only argv. Exit: 125
 * usage, 126 could not confine or exec, 127 PROGRAM not found; else
 * PROGRAM's own status. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/mount.h>
#include <linux/openat2.h>

#include "common.h"
#include "helper.h"

const char *progname = "sharness-exec-view";

#define USAGE "sharness-exec-view [-bt] [-r PATH]... [-x PATH]... [-w PATH]... " \
	"[-p PATH]... [-s LINK=TARGET]... [--] PROGRAM [ARG...]"

#ifndef MNT_DETACH
#define MNT_DETACH 2
#endif

/* Rights, as the landlock step grants them: write implies read and exec. */
enum { R = 1, X = 2, W = 4, PROT = 8 };
#define ATTR_RO (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | \
	MOUNT_ATTR_NOEXEC)

struct ent {
	char *path;
	unsigned rights;	/* its own: a mask of R X W PROT (0: implied) */
	unsigned eff;		/* with its ancestors', PROT applied */
	__u64 attr;		/* what it was mounted with */
	int mounted;		/* 1 bound or fresh, 2 built (/dev) */
	int link;		/* a symlink: recreated, its target bound */
};

static struct ent *ents;
static size_t nents;
static struct { char *link, *target; } *links;
static size_t nlinks;
static dev_t our_dev[2];	/* the tmpfs mounts we made: the root, /dev */
static int best;
static int test;	/* check mode (-t) */

static int sys_open_tree(int dfd, const char *path, unsigned flags)
{
	return (int)syscall(SYS_open_tree, dfd, path, flags);
}

static int sys_move_mount(int from, const char *fpath, int to, const char *tpath,
                          unsigned flags)
{
	return (int)syscall(SYS_move_mount, from, fpath, to, tpath, flags);
}

static int sys_setattr(int dfd, const char *path, unsigned flags, __u64 set)
{
	struct mount_attr a = { .attr_set = set };

	return (int)syscall(SYS_mount_setattr, dfd, path, flags, &a, sizeof a);
}

/* A detached mount of a new FS; -1 with errno when refused. */
static int new_fs(const char *fs, const char *const *opts, __u64 attr)
{
	int fd = (int)syscall(SYS_fsopen, fs, FSOPEN_CLOEXEC), m = -1, e;

	if (fd < 0)
		return -1;
	for (; opts && *opts; opts += 2)
		if (syscall(SYS_fsconfig, fd, opts[1] ? FSCONFIG_SET_STRING :
		            FSCONFIG_SET_FLAG, opts[0], opts[1], 0) < 0)
			goto out;
	if (syscall(SYS_fsconfig, fd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == 0)
		m = (int)syscall(SYS_fsmount, fd, FSMOUNT_CLOEXEC, attr);
out:
	e = errno;
	close(fd);
	errno = e;
	return m;
}

static int beneath(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (!strcmp(dir, "/"))
		return 1;
	return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}

/* Absolute, no "." or ".." component; repeated and trailing slashes go. */
static char *norm(const char *opt, const char *s)
{
	char *out = malloc(strlen(s) + 2), *o = out;
	const char *p = s;

	if (!out)
		die(EXIT_REFUSED, "out of memory");
	if (*s != '/' || strlen(s) >= PATH_MAX)
		usage_fail(USAGE, "unable to parse -%s %s: not an absolute path", opt, s);
	while (*p) {
		size_t n;
		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (!n)
			break;
		if ((n == 1 && p[0] == '.') || (n == 2 && !strncmp(p, "..", 2)))
			usage_fail(USAGE, "unable to parse -%s %s: has a . or .. "
			           "component", opt, s);
		*o++ = '/';
		memcpy(o, p, n);
		o += n;
		p += n;
	}
	if (o == out)
		*o++ = '/';
	*o = '\0';
	return out;
}

static struct ent *find(const char *path)
{
	for (size_t i = 0; i < nents; i++)
		if (!strcmp(ents[i].path, path))
			return &ents[i];
	return NULL;
}

static void add(char *path, unsigned rights)
{
	struct ent *e = find(path);

	if (e) {
		e->rights |= rights;
		free(path);
		return;
	}
	ents = reallocarray(ents, nents + 1, sizeof *ents);
	if (!ents)
		die(EXIT_REFUSED, "out of memory");
	ents[nents++] = (struct ent){ path, rights, 0, 0, 0, 0 };
}

static void add_link(char *link, char *target)
{
	links = reallocarray(links, nlinks + 1, sizeof *links);
	if (!links)
		die(EXIT_REFUSED, "out of memory");
	links[nlinks].link = link;
	links[nlinks++].target = target;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct ent *)a)->path, ((const struct ent *)b)->path);
}

/* Each path's rights: the union of its own and its ancestors' (write
 * implies read and exec), less write at or beneath a protected path. */
static unsigned effective(const char *path)
{
	unsigned u = 0, prot = 0;

	for (size_t i = 0; i < nents; i++) {
		if (!beneath(path, ents[i].path))
			continue;
		u |= ents[i].rights & (R | X | W);
		prot |= ents[i].rights & PROT;
	}
	if (u & W)
		u |= R | X;
	if (prot)
		u &= ~(unsigned)W;
	return u;
}

static __u64 attr_of(const struct ent *e)
{
	__u64 a = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;

	if (!(e->eff & W))
		a |= MOUNT_ATTR_RDONLY;
	if (!(e->eff & (W | X)))
		a |= MOUNT_ATTR_NOEXEC;
	/* Device nodes named one by one work; /dev whole is built below. */
	if (beneath(e->path, "/dev"))
		a &= ~(__u64)MOUNT_ATTR_NODEV;
	/* A capability-less uid 0 still passes their permission bits. */
	if (beneath(e->path, "/sys") || beneath(e->path, "/proc/sys") ||
	    beneath(e->path, "/proc/sysrq-trigger") ||
	    beneath(e->path, "/proc/irq") || beneath(e->path, "/proc/bus"))
		a |= ATTR_RO;
	return a;
}

static int ours(int fd)
{
	struct stat st;

	return fstatat(fd, "", &st, AT_EMPTY_PATH) == 0 &&
		(st.st_dev == our_dev[0] || st.st_dev == our_dev[1]);
}

/* An O_PATH descriptor of PATH in the new root (the working directory
 * while it is built), mounts followed, no symlink. Where it is missing and
 * CREATE, it is made (a directory, or an empty file when !DIR) on a tmpfs
 * of ours, never on a bound tree. -1 with errno. */
static int at_root(const char *path, int create, int dir)
{
	struct open_how how = { .flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
	                        .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH };
	char buf[PATH_MAX], *s, *next;
	int cur = AT_FDCWD, fd, last, e;

	if (strlen(path) >= sizeof buf) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = (int)syscall(SYS_openat2, AT_FDCWD, path[1] ? path + 1 : ".", &how, sizeof how);
	if (fd >= 0 || errno != ENOENT || !create)
		return fd;
	strcpy(buf, path);
	for (s = buf + 1; *s; s = next) {
		int flags;
		next = strchrnul(s, '/');
		last = !*next;
		if (*next)
			*next++ = '\0';
		flags = O_PATH | O_NOFOLLOW | O_CLOEXEC | (last && !dir ? 0 : O_DIRECTORY);
		fd = openat(cur, s, flags);
		if (fd < 0 && errno == ENOENT && ours(cur)) {
			if ((last && !dir ? mknodat(cur, s, S_IFREG | 0644, 0) :
			     mkdirat(cur, s, 0755)) == 0 || errno == EEXIST)
				fd = openat(cur, s, flags);
			else
				errno = ENOENT;
		}
		e = errno;
		if (cur != AT_FDCWD)
			close(cur);
		if (fd < 0) {
			errno = e;
			return -1;
		}
		cur = fd;
	}
	return cur;
}

static void no_mount_point(const char *path)
{
	die_hint(EXIT_CONFINE, errno, errno == ELOOP || errno == ENOTDIR ?
	         "a path beneath a symlink: pass the resolved path "
	         "(and -s LINK=TARGET for the link)" : NULL,
	         "unable to make the mount point %s in the new root", path);
}

/* Make the mount point PATH before the mount is opened: with both open
 * at once, a step under a low RLIMIT_NOFILE needs one descriptor less. */
static void mount_point(const char *path, int dir)
{
	int fd = at_root(path, 1, dir);

	if (fd < 0)
		no_mount_point(path);
	close(fd);
}

/* Attach MNT (a detached mount) at PATH in the new root. */
static void attach(int mnt, const char *path, int dir)
{
	int mp = at_root(path, 1, dir);

	if (mp < 0)
		no_mount_point(path);
	if (sys_move_mount(mnt, "", mp, "", MOVE_MOUNT_F_EMPTY_PATH |
	                   MOVE_MOUNT_T_EMPTY_PATH) < 0)
		die(EXIT_CONFINE, "unable to mount %s in the new root", path);
	close(mp);
}

/* A recursive clone of PATH (relative to DFD), opened without following
 * any symlink (the front end passes resolved paths), or -1 when it is
 * missing. *DIR says whether it is a directory. */
static int clone_at(int dfd, const char *path, int *dir)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC,
	                        .resolve = RESOLVE_NO_SYMLINKS };
	struct stat st;
	int fd, m;

	fd = (int)syscall(SYS_openat2, dfd, path, &how, sizeof how);
	if (fd < 0 && errno == ENOSYS)
		fd = openat(dfd, path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
		return -1;
	if (fd < 0)
		die_hint(EXIT_CONFINE, errno, errno == ELOOP ? "a symlink on the way "
		         "(it changed since the front end resolved it?)" : NULL,
		         "unable to open %s", path);
	if (fstat(fd, &st) < 0)
		die(EXIT_CONFINE, "unable to stat %s", path);
	*dir = S_ISDIR(st.st_mode);
	m = sys_open_tree(fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
	                  AT_RECURSIVE | AT_EMPTY_PATH);
	if (m < 0)
		die(EXIT_CONFINE, "unable to clone the mount tree at %s", path);
	close(fd);
	return m;
}

static int clone_host(const char *path, int *dir)
{
	return clone_at(AT_FDCWD, path, dir);
}

static void set_attr(int m, __u64 attr, const char *path)
{
	if (sys_setattr(m, "", AT_EMPTY_PATH | AT_RECURSIVE, attr) < 0)
		die(EXIT_CONFINE, "unable to set the mount flags of %s", path);
}

/* /proc: a fresh procfs of this pid namespace, mounted while the old root
 * (a fully visible /proc) is still here, as the kernel asks of a user
 * namespace; its sysctls and the like read-only. */
static int mount_proc(struct ent *e)
{
	static const char *const ro[] = { "sys", "sysrq-trigger", "irq", "bus" };
	int m;

	e->attr |= MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC;
	mount_point("/proc", 1);
	m = new_fs("proc", NULL, e->attr);

	if (m < 0) {
		if (errno != EPERM && errno != EACCES && errno != EBUSY)
			die(EXIT_CONFINE, "unable to mount a fresh /proc");
		if (!best)
			die_hint(EXIT_CONFINE, errno, "a masked /proc (as in a "
			         "container) or a pid namespace of another user "
			         "namespace; -b (--best-effort) leaves /proc out",
			         "unable to mount a fresh /proc");
		warnx_("best effort: /proc left out: a fresh procfs was refused (%s)",
		       strerror(errno));
		return 0;
	}
	attach(m, "/proc", 1);
	for (size_t i = 0; i < sizeof ro / sizeof *ro; i++) {
		int c = sys_open_tree(m, ro[i], OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
		                      AT_RECURSIVE | AT_SYMLINK_NOFOLLOW);
		if (c < 0 && errno == ENOENT)
			continue;
		if (c < 0)
			die(EXIT_CONFINE, "unable to clone /proc/%s", ro[i]);
		set_attr(c, ATTR_RO, ro[i]);
		if (sys_move_mount(c, "", m, ro[i], MOVE_MOUNT_F_EMPTY_PATH) < 0)
			die(EXIT_CONFINE, "unable to mount /proc/%s read-only", ro[i]);
		close(c);
	}
	close(m);
	return 1;
}

/* /dev named whole: a tmpfs with the usual nodes bound from the host, a
 * private devpts and /dev/shm, and the /proc/self/fd links (bwrap --dev). */
static void mount_dev(struct ent *e)
{
	static const char *const nodes[] = { "null", "zero", "full", "random",
	                                     "urandom", "tty" };
	static const char *const sym[][2] = { { "fd", "/proc/self/fd" },
		{ "stdin", "/proc/self/fd/0" }, { "stdout", "/proc/self/fd/1" },
		{ "stderr", "/proc/self/fd/2" }, { "ptmx", "pts/ptmx" } };
	static const char *const tmpfs_opts[] = { "mode", "0755", NULL };
	static const char *const shm_opts[] = { "mode", "1777", NULL };
	static const char *const pts_opts[] = { "newinstance", NULL,
		"ptmxmode", "0666", "mode", "620", NULL };
	__u64 attr = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC;
	char path[32];
	struct stat st;
	int m, d, dir;

	mount_point("/dev", 1);
	m = new_fs("tmpfs", tmpfs_opts, attr);
	if (m < 0 || fstat(m, &st) < 0)
		die(EXIT_CONFINE, "unable to mount a tmpfs for /dev");
	our_dev[1] = st.st_dev;
	attach(m, "/dev", 1);
	close(m);
	for (size_t i = 0; i < sizeof nodes / sizeof *nodes; i++) {
		snprintf(path, sizeof path, "/dev/%s", nodes[i]);
		if (lstat(path, &st) < 0)
			continue;
		mount_point(path, S_ISDIR(st.st_mode));
		if ((d = clone_host(path, &dir)) < 0)
			continue;
		set_attr(d, (e->attr & ~(__u64)MOUNT_ATTR_NODEV) | MOUNT_ATTR_RDONLY, path);
		attach(d, path, dir);
		close(d);
	}
	if ((m = at_root("/dev", 0, 1)) < 0)
		die(EXIT_CONFINE, "unable to open /dev in the new root");
	for (size_t i = 0; i < sizeof sym / sizeof *sym; i++)
		if (symlinkat(sym[i][1], m, sym[i][0]) < 0)
			die(EXIT_CONFINE, "unable to make the symlink /dev/%s", sym[i][0]);
	close(m);
	mount_point("/dev/pts", 1);
	d = new_fs("devpts", pts_opts, attr);
	if (d < 0)
		die(EXIT_CONFINE, "unable to mount a private devpts");
	attach(d, "/dev/pts", 1);
	close(d);
	mount_point("/dev/shm", 1);
	d = new_fs("tmpfs", shm_opts, attr | MOUNT_ATTR_NODEV);
	if (d < 0)
		die(EXIT_CONFINE, "unable to mount a private /dev/shm");
	attach(d, "/dev/shm", 1);
	close(d);
}

/* Recreate LINK -> TARGET in the new root, unless the bound tree has it. */
static void make_link(const char *link, const char *target)
{
	char *slash = strrchr(link, '/'), *parent, buf[PATH_MAX];
	int fd, n;

	fd = at_root(link, 0, 0);
	if (fd >= 0) {
		n = (int)readlinkat(fd, "", buf, sizeof buf - 1);
		close(fd);
		if (n >= 0 && (buf[n] = '\0', !strcmp(buf, target)))
			return;
		diex(EXIT_CONFINE, "unable to make the symlink %s: something else "
		     "is at that path in the new root", link);
	}
	parent = strndup(link, slash == link ? 1 : (size_t)(slash - link));
	if (!parent)
		die(EXIT_REFUSED, "out of memory");
	fd = at_root(parent, 1, 1);
	if (fd < 0 || !ours(fd) || symlinkat(target, fd, slash + 1) < 0)
		die(EXIT_CONFINE, "unable to make the symlink %s in the new root", link);
	close(fd);
	free(parent);
}

/* 1 when PATH lies in what the view grants. */
static int granted(const char *path)
{
	return (effective(path) & (R | X | W)) != 0;
}

/* The host's symlinks in the directories above the bound paths, where
 * their target lies in the view (merged /usr: /bin, /lib, /lib64, /sbin),
 * as Landlock alone lets them be followed: a policy of "/usr" still runs
 * /bin/sh. Only on our tmpfs; a bound tree has its own. */
static void host_links(void)
{
	char dir[PATH_MAX], host[PATH_MAX], target[PATH_MAX], *real;
	struct dirent *de;
	DIR *d;
	int fd;

	for (size_t i = 0; i < nents; i++) {
		if (ents[i].link || !granted(ents[i].path) || !strcmp(ents[i].path, "/"))
			continue;
		for (char *s = ents[i].path; (s = strchr(s, '/')); s++) {
			size_t n = s == ents[i].path ? 1 : (size_t)(s - ents[i].path);
			int seen = 0;
			memcpy(dir, ents[i].path, n);
			dir[n] = '\0';
			/* Each directory once: an earlier entry with it as an ancestor. */
			for (size_t j = 0; j < i && !seen; j++)
				seen = !ents[j].link && granted(ents[j].path) &&
					strcmp(ents[j].path, "/") &&
					!strncmp(ents[j].path, dir, n) &&
					(n == 1 || ents[j].path[n] == '/');
			if (seen)
				continue;
			if ((fd = at_root(dir, 0, 1)) < 0)
				continue;
			if (!ours(fd) || !(d = opendir(dir))) {
				close(fd);
				continue;
			}
			while ((de = readdir(d))) {
				ssize_t len;
				if ((de->d_type != DT_LNK && de->d_type != DT_UNKNOWN) ||
				    snprintf(host, sizeof host, "%s/%s", n == 1 ? "" : dir,
				             de->d_name) >= (int)sizeof host ||
				    (len = readlink(host, target, sizeof target - 1)) < 0)
					continue;
				target[len] = '\0';
				if (!(real = realpath(host, NULL)))
					continue;
				if (granted(real) && faccessat(fd, de->d_name, F_OK,
				                               AT_SYMLINK_NOFOLLOW) < 0 &&
				    symlinkat(target, fd, de->d_name) < 0)
					die(EXIT_CONFINE, "unable to make the symlink %s", host);
				free(real);
			}
			closedir(d);
			close(fd);
		}
	}
}

/* An inherited directory descriptor would reach outside the view
 * (openat(fd, "..") climbs the detached host tree). */
static void refuse_dir_fds(void)
{
	struct stat st;

	for (int fd = 0; fd <= 2; fd++)
		if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
			diex(EXIT_CONFINE, "refused: descriptor %d is an open "
			     "directory, a way out of the view", fd);
}

/* No mount namespace here: the rest of the chain runs with Landlock alone. */
static void no_view(const char *call, int err, size_t nprot, char **next)
{
	if (nprot && !best)
		die_hint(EXIT_CONFINE, err, "-b (--best-effort) runs without "
		         "them, leaving them writable", "unable to make a mount "
		         "namespace, which the protected paths (-p) need");
	if (geteuid() == 0 && !best)
		die_hint(EXIT_CONFINE, err, "for a root caller chmod and pathname "
		         "sockets outside the policy are critical; -b "
		         "(--best-effort) runs with Landlock alone",
		         "unable to make a mount namespace");
	warnx_("no mount namespace available (%s: %s): Landlock alone does "
	       "not hold chmod, utime, xattrs, pathname UNIX sockets, inotify "
	       "or noexec outside the policy%s", call, strerror(err),
	       nprot ? "; protected paths dropped" : "");
	if (test)
		check_line("mount=none why=%s: %s", call, strerror(err));
	if (!next[0])
		exit(0);
	xexecvp(next[0], next);
}

/* PROGRAM (the next step) lives outside the view: when given by an absolute
 * path that the view lacks, or holds without exec, the one file is bound in
 * read-only, so it runs from inside and its /proc/self/exe stays inside. */
static void bind_program(const char *prog)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_IN_ROOT };
	struct statvfs sv;
	struct stat st;
	int fd, m, mp;

	fd = (int)syscall(SYS_openat2, AT_FDCWD, prog, &how, sizeof how);
	if (fd >= 0 && fstatvfs(fd, &sv) == 0 && !(sv.f_flag & ST_NOEXEC)) {
		close(fd);
		return;
	}
	if (fd >= 0)
		close(fd);
	/* Where it cannot be bound, the exec says what is wrong. */
	if (stat(prog, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (mp = at_root(prog, 1, 0)) < 0)
		return;
	close(mp);
	if ((fd = open(prog, O_PATH | O_CLOEXEC)) < 0)
		return;
	m = sys_open_tree(fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
	if (m < 0)
		die(EXIT_CONFINE, "unable to clone %s", prog);
	close(fd);
	set_attr(m, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, prog);
	attach(m, prog, 0);
	close(m);
}

int main(int argc, char **argv)
{
	static const char *const root_opts[] = { "mode", "0755", "size", "1m", NULL };
	static const char *const special[] = { "/proc", "/sys", "/dev" };
	size_t nprot = 0, i, j;
	char cwd[PATH_MAX], *eq;
	struct stat st;
	int opt, err, cfd, root;

	opterr = 0;
	for (;;) {
		if (optind < argc && !strcmp(argv[optind], "--help"))
			opt = 'h';
		else if ((opt = getopt(argc, argv, "+:hbr:x:w:p:s:t")) == -1)
			break;
		switch (opt) {
		case 'h':
			puts("usage: " USAGE);
			return 0;
		case 'b': best = 1; break;
		case 't': test = 1; break;
		case 'r': add(norm("r", optarg), R); break;
		case 'x': add(norm("x", optarg), X); break;
		case 'w': add(norm("w", optarg), W); break;
		case 'p': add(norm("p", optarg), PROT); nprot++; break;
		case 's':
			eq = strchr(optarg, '=');
			if (!eq || !eq[1])
				usage_fail(USAGE, "unable to parse -s %s: not LINK=TARGET", optarg);
			*eq = '\0';
			add_link(norm("s", optarg), strdup(eq + 1));
			break;
		case ':':
			usage_fail(USAGE, "unable to parse options: -%c needs an argument", optopt);
		default:
			usage_fail(USAGE, "unable to parse options: unknown option %s",
			           argv[optind - 1]);
		}
	}
	if (optind >= argc && !test)
		usage_fail(USAGE, "unable to parse options: no program to run");
	for (i = 0; i < nents; i++)
		if ((ents[i].rights & PROT) && !(effective(ents[i].path) & (R | X)))
			usage_fail(USAGE, "unable to protect %s: it lies beneath no "
			           "-w path", ents[i].path);

	refuse_dir_fds();
	if (unshare(CLONE_NEWNS) < 0) {
		err = errno;
		if (err != EPERM && err != EINVAL && err != ENOSPC && err != ENOSYS)
			die(EXIT_CONFINE, "unable to unshare the mount namespace");
		no_view("unshare", err, nprot, argv + optind);
	}
	/* An outer Landlock domain (a nested run) refuses every mount. */
	if (syscall(SYS_mount, NULL, "/", NULL, MS_SLAVE | MS_REC, NULL) < 0) {
		if (errno != EPERM)
			die(EXIT_CONFINE, "unable to keep the mounts from propagating");
		no_view("mount", errno, nprot, argv + optind);
	}
	/* A deleted working directory has no path: the target starts at the
	 * root of the view instead, which is no more than it had. */
	if (!getcwd(cwd, sizeof cwd)) {
		if (errno != ENOENT)
			die(EXIT_CONFINE, "unable to find the working directory");
		strcpy(cwd, "/");
	}
	if (cwd[0] != '/')
		diex(EXIT_CONFINE, "unable to find the working directory: it lies "
		     "outside this process's root");

	/* A rule that is itself a symlink (merged /usr: /lib -> usr/lib) is
	 * recreated as that symlink, its target bound with the same rights. */
	for (i = 0, j = nents; i < j; i++) {
		char link[PATH_MAX], *real;
		ssize_t n;
		if (lstat(ents[i].path, &st) < 0 || !S_ISLNK(st.st_mode))
			continue;
		n = readlink(ents[i].path, link, sizeof link - 1);
		if (n < 0)
			die(EXIT_CONFINE, "unable to read the symlink %s", ents[i].path);
		link[n] = '\0';
		add_link(strdup(ents[i].path), strdup(link));
		ents[i].link = 1;
		if ((real = realpath(ents[i].path, NULL)))
			add(real, ents[i].rights);
	}
	for (i = 0; i < nents; i++)
		if (ents[i].link)
			ents[i].rights = 0;
	/* What /, /proc, /sys or /dev grant whole is made here, not bound. */
	for (i = 0; i < sizeof special / sizeof *special; i++)
		if (!find(special[i]) && (effective(special[i]) & (R | X | W)))
			add(strdup(special[i]), 0);
	qsort(ents, nents, sizeof *ents, by_path);
	for (i = 0; i < nents; i++) {
		ents[i].eff = effective(ents[i].path);
		ents[i].attr = attr_of(&ents[i]);
	}

	if (nents && !strcmp(ents[0].path, "/") && ents[0].eff) {
		int dir;
		root = clone_host("/", &dir);
		set_attr(root, ents[0].attr, "/");
		ents[0].mounted = 1;
	} else {
		root = new_fs("tmpfs", root_opts, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
		if (root < 0 || fstat(root, &st) < 0)
			die(EXIT_CONFINE, "unable to mount a tmpfs for the new root");
		our_dev[0] = st.st_dev;
	}
	/* On top of the old root, so the binds below land in this namespace;
	 * built from inside, as the working directory (one descriptor less). */
	if (sys_move_mount(root, "", AT_FDCWD, "/", MOVE_MOUNT_F_EMPTY_PATH) < 0)
		die(EXIT_CONFINE, "unable to mount the new root");
	if (fchdir(root) < 0)
		die(EXIT_CONFINE, "unable to change to the new root");
	close(root);

	for (i = 0; i < nents; i++) {
		struct ent *e = &ents[i], *up = NULL;
		const char *src;
		int m, dir;
		if (!strcmp(e->path, "/") || e->link || !(e->eff & (R | X | W)))
			continue;
		if (!strcmp(e->path, "/proc")) {
			e->mounted = mount_proc(e);
			continue;
		}
		if (!strcmp(e->path, "/dev")) {
			mount_dev(e);
			e->mounted = 2;
			continue;
		}
		/* A path its nearest bound ancestor already shows the same way
		 * costs nothing (a bound /dev is built, not cloned). */
		for (j = i; j-- > 0;)
			if (ents[j].mounted && beneath(e->path, ents[j].path)) {
				up = &ents[j];
				break;
			}
		if (up && up->mounted == 1 && up->attr == e->attr)
			continue;
		/* Beneath a fresh /proc, from it; else from the host. */
		src = up && !strcmp(up->path, "/proc") ? e->path + 1 : e->path;
		if (fstatat(AT_FDCWD, src, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;	/* missing: the landlock step says so */
		mount_point(e->path, S_ISDIR(st.st_mode));
		if ((m = clone_at(AT_FDCWD, src, &dir)) < 0)
			continue;
		/* A device is written through a read-only mount all the same;
		 * read-write would only let a root target chmod the host's. */
		if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
			e->attr |= MOUNT_ATTR_RDONLY;
		set_attr(m, e->attr, e->path);
		attach(m, e->path, dir);
		close(m);
		e->mounted = 1;
	}
	for (i = 0; i < nlinks; i++)
		make_link(links[i].link, links[i].target);
	host_links();

	/* The cwd keeps its path: the same directory where the view has it,
	 * else an empty read-only one. */
	if ((cfd = at_root(cwd, 1, 1)) < 0)
		die(EXIT_CONFINE, "unable to make the working directory %s in the "
		    "new root", cwd);
	close(cfd);
	if (argv[optind] && argv[optind][0] == '/')
		bind_program(argv[optind]);
	if (our_dev[0] && sys_setattr(AT_FDCWD, ".", 0, MOUNT_ATTR_RDONLY) < 0)
		die(EXIT_CONFINE, "unable to make the new root read-only");
	if ((cfd = at_root("/dev", 0, 1)) >= 0) {
		if (our_dev[1] && !(find("/dev")->eff & W) &&
		    sys_setattr(cfd, "", AT_EMPTY_PATH, MOUNT_ATTR_RDONLY) < 0)
			die(EXIT_CONFINE, "unable to make /dev read-only");
		close(cfd);
	}

	if (syscall(SYS_pivot_root, ".", ".") < 0)
		die(EXIT_CONFINE, "unable to change to the new root");
	if (syscall(SYS_umount2, ".", MNT_DETACH) < 0)
		die(EXIT_CONFINE, "unable to detach the old root");
	if (chdir("/") < 0 || chdir(cwd) < 0)
		die(EXIT_CONFINE, "unable to change to %s in the new root", cwd);

	/* Only this step needs it: the ambient set (raised by the netns step
	 * in a user namespace) would carry it on. */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, CAP_SYS_ADMIN, 0, 0) < 0 &&
	    errno != EINVAL)
		die(EXIT_CONFINE, "unable to drop CAP_SYS_ADMIN from the ambient set");
	if (test)
		check_line("mount=namespace root=%s proc=%s", our_dev[0] ? "tmpfs" : "host",
		           find("/proc") && find("/proc")->mounted ? "fresh" : "none");
	if (optind >= argc)
		return 0;
	xexecvp(argv[optind], argv + optind);
}
