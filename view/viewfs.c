/* sharness-exec-view: the mount primitives (view.h). Host paths are opened
 * without following any symlink (the front end passes resolved paths, and
 * one swapped in since is refused, 126) and bound from that descriptor;
 * mount points are made only on a tmpfs of ours, never on a bound tree. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/mount.h>
#include <linux/openat2.h>

#include "common.h"
#include "helper.h"
#include "view.h"

int view_best;
dev_t our_dev[2];

int sys_open_tree(int dfd, const char *path, unsigned flags)
{
	return (int)syscall(SYS_open_tree, dfd, path, flags);
}

int sys_move_mount(int from, const char *fpath, int to, const char *tpath, unsigned flags)
{
	return (int)syscall(SYS_move_mount, from, fpath, to, tpath, flags);
}

int sys_setattr(int dfd, const char *path, unsigned flags, __u64 set)
{
	struct mount_attr a = { .attr_set = set };

	return (int)syscall(SYS_mount_setattr, dfd, path, flags, &a, sizeof a);
}

/* A detached mount of a new FS; -1 with errno when refused. */
int new_fs(const char *fs, const char *const *opts, __u64 attr)
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

/* The -T tmpfs mounts (viewtmp.c), ours as well. */
static dev_t *tmp_devs;
static size_t ntmp_devs;

void ours_add(dev_t dev)
{
	if (!(tmp_devs = reallocarray(tmp_devs, ntmp_devs + 1, sizeof *tmp_devs)))
		die(EXIT_REFUSED, "out of memory");
	tmp_devs[ntmp_devs++] = dev;
}

int ours(int fd)
{
	struct stat st;
	size_t i = 0;

	if (fstatat(fd, "", &st, AT_EMPTY_PATH) < 0)
		return 0;
	while (i < ntmp_devs && tmp_devs[i] != st.st_dev)
		i++;
	return st.st_dev == our_dev[0] || st.st_dev == our_dev[1] || i < ntmp_devs;
}

/* REL (one component, or a path) beneath DFD, no symlink on the way and
 * the last not followed, mounts followed, opened with FLAGS. */
static int open_beneath_as(int dfd, const char *rel, int flags)
{
	struct open_how how = { .flags = (unsigned)flags | O_NOFOLLOW | O_CLOEXEC,
	                        .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH };

	return (int)syscall(SYS_openat2, dfd, *rel ? rel : ".", &how, sizeof how);
}

/* The same, an O_PATH descriptor. */
static int open_beneath(int dfd, const char *rel)
{
	return open_beneath_as(dfd, rel, O_PATH);
}

int read_in_root(const char *path)
{
	return open_beneath_as(AT_FDCWD, path + 1, O_RDONLY | O_DIRECTORY);
}

static int open_in_root(const char *rel)
{
	return open_beneath(AT_FDCWD, rel);
}

/* An O_PATH descriptor of PATH in the new root (the working directory
 * while it is built), mounts followed, no symlink. Where it is missing and
 * CREATE, it is made (a directory, or an empty file when !DIR) on a tmpfs
 * of ours, never on a bound tree. One descriptor at a time: a step under
 * a low RLIMIT_NOFILE holds a detached mount meanwhile. -1 with errno. */
/* The directory of the last mount point made below the root, known to
 * be on a tmpfs of ours (have_last), and an O_PATH descriptor of it
 * (last_fd): the next rule is most often its sibling, and its parent
 * needs no second look, nor a second walk from the root (mkdirat,
 * openat2 and move_mount beneath last_fd: one component, not the path's
 * every one). The root itself is always such a directory when it is our
 * tmpfs: nothing is ever mounted on it. Only a directory made there now
 * (mkdirat succeeds) is taken: it is empty, ours, no symlink and no
 * mount; an entry there already is looked up from the root instead. In
 * tree order nothing is mounted on last_dir while its children are
 * made, and nothing else runs in this namespace. */
static char last_dir[PATH_MAX];
static int last_fd = -1, have_last;

/* REL's last component when REL (relative to the new root) is a
 * directory just made in the root or in last_dir, *DFD the descriptor it
 * is beneath; else NULL. */
static const char *beside_last(const char *rel, int *dfd)
{
	const char *slash = strrchr(rel, '/');
	size_t len = slash ? (size_t)(slash - rel) : 0;

	if (!slash && our_dev[0] && *rel)
		*dfd = AT_FDCWD;
	else if (slash && have_last && len == strlen(last_dir) && !strncmp(rel, last_dir, len))
		*dfd = last_fd;
	else
		return NULL;
	return mkdirat(*dfd, slash ? slash + 1 : rel, 0755) == 0 ? (slash ? slash + 1 : rel) : NULL;
}

/* The directory of LEN bytes of REL, open on FD (on a tmpfs of ours), as
 * the new last_dir; FD is then the cache's (closed by at_root_forget). */
static void set_last(const char *rel, size_t len, int fd)
{
	at_root_forget();
	snprintf(last_dir, sizeof last_dir, "%.*s", (int)len, rel);
	last_fd = fd;
	have_last = 1;
}

int at_root(const char *path, int create, int dir)
{
	char buf[PATH_MAX], *slash;
	const char *name;
	size_t cut = 0;
	int fd, pfd, made_top = 0;

	if (strlen(path) >= sizeof buf) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(buf, path + 1);
	if (create && dir && (name = beside_last(buf, &pfd))) {
		if ((fd = open_beneath(pfd, name)) >= 0 || errno != EMFILE)
			return fd;
		at_root_forget();	/* a low RLIMIT_NOFILE: from the root */
	}
	fd = open_in_root(buf);
	if (fd >= 0 || errno != ENOENT || !create)
		return fd;
	/* A first component the root (ours) lacks is made at once, and
	 * nothing below it looked for: the binds above it and the running
	 * helper's own directory (bind_program) are most often new. */
	if ((slash = strchr(buf, '/')) && our_dev[0]) {
		*slash = '\0';
		made_top = mkdirat(AT_FDCWD, buf, 0755) == 0;
		pfd = made_top ? open_in_root(buf) : -1;
		*slash = '/';
		if (made_top && pfd < 0)
			return -1;
		cut = (size_t)(slash + 1 - buf);
	}
	/* Else the nearest ancestor there is, looked for from the path up
	 * (the root, the working directory, always is). */
	for (cut = made_top ? cut : strlen(buf); !made_top; cut--) {
		while (cut > 0 && buf[cut - 1] != '/')
			cut--;
		if (cut == 0) {
			pfd = AT_FDCWD;
			break;
		}
		buf[cut - 1] = '\0';
		pfd = open_in_root(buf);
		buf[cut - 1] = '/';
		if (pfd >= 0 || errno != ENOENT)
			break;
	}
	if (pfd < 0 && pfd != AT_FDCWD)
		return -1;
	/* On our tmpfs only: the root, the working directory, is ours when
	 * it is our tmpfs (nothing is ever mounted on it); below it the
	 * first directory there is, looked at; the rest are made here. */
	if (!made_top && (pfd == AT_FDCWD ? !our_dev[0] : !ours(pfd))) {
		if (pfd >= 0)
			close(pfd);
		errno = ENOENT;
		return -1;
	}
	at_root_forget();	/* replaced below: one descriptor fewer */
	/* Each missing component, one descriptor at a time but for the
	 * last's parent, kept (set_last) where the limit allows. */
	for (;;) {
		char *s = buf + cut, *end = strchrnul(s, '/');
		int last = !*end, made;
		*end = '\0';
		made = (last && !dir ? mknodat(pfd, s, S_IFREG | 0644, 0) :
		        mkdirat(pfd, s, 0755)) == 0 || errno == EEXIST;
		fd = made && last ? open_beneath(pfd, s) : -1;
		if (made && (!last || (fd < 0 && errno == EMFILE))) {
			if (pfd >= 0)
				close(pfd);
			pfd = -1;
			fd = open_in_root(buf);
		}
		if (!made)
			errno = ENOENT;
		if (!last)
			*end = '/';
		if (fd < 0 || last)
			break;
		pfd = fd;
		cut = (size_t)(end + 1 - buf);
	}
	if (fd >= 0 && dir && pfd >= 0)
		set_last(buf, cut - 1, pfd);
	else if (pfd >= 0)
		close(pfd);
	return fd;
}

/* No more mount points by the cache of at_root: the symlinks come next. */
void at_root_forget(void)
{
	*last_dir = '\0';
	if (last_fd >= 0)
		close(last_fd);
	last_fd = -1;
	have_last = 0;
}

static void no_mount_point(const char *path)
{
	die_hint(EXIT_CONFINE, errno, errno == ELOOP || errno == ENOTDIR ?
	         "a path beneath a symlink: pass the resolved path "
	         "(and --symlink LINK=TARGET for the link)" : NULL,
	         "unable to make the mount point %s in the new root", path);
}

/* Make the mount point PATH before the mount is attached. */
void mount_point(const char *path, int dir)
{
	int fd = at_root(path, 1, dir);

	if (fd < 0)
		no_mount_point(path);
	close(fd);
}

/* The host directory of the last rule clone_rule cloned (host_dir) and,
 * from its second rule there on, an O_PATH descriptor of it opened with
 * no symlink on its way (host_fd): rules come in tree order, so the next
 * is most often a sibling, cloned by its one name beneath host_fd, with
 * no open of its own and no walk from the root. host_fd is let go while
 * a mount point of a new directory is made (a low RLIMIT_NOFILE) and
 * both are forgotten before the symlinks are made: no descriptor of the
 * host's tree reaches the next step. */
static char host_dir[PATH_MAX];
static int host_fd = -1;

static void host_let_go(void)
{
	if (host_fd >= 0)
		close(host_fd);
	host_fd = -1;
}

void host_forget(void)
{
	host_let_go();
	*host_dir = '\0';
}

/* Attach MNT (a detached mount) at PATH in the new root. */
void attach(int mnt, const char *path, int dir)
{
	const char *name;
	int mp, dfd;

	/* Beside the last mount point, by its name in last_dir: nothing on
	 * the way but our own directories (at_root's last_dir). */
	if (dir && strlen(path) < PATH_MAX && (name = beside_last(path + 1, &dfd))) {
		if (sys_move_mount(mnt, "", dfd, name, MOVE_MOUNT_F_EMPTY_PATH) < 0)
			die(EXIT_CONFINE, "unable to mount %s in the new root", path);
		return;
	}
	host_let_go();	/* a directory to make: one descriptor fewer */
	mp = at_root(path, 1, dir);
	if (mp < 0)
		no_mount_point(path);
	if (sys_move_mount(mnt, "", mp, "", MOVE_MOUNT_F_EMPTY_PATH |
	                   MOVE_MOUNT_T_EMPTY_PATH) < 0)
		die(EXIT_CONFINE, "unable to mount %s in the new root", path);
	close(mp);
}

/* A recursive clone of the tree at FD (an O_PATH descriptor of PATH); *DIR
 * says whether it is a directory, clone_st what it is (of a directory,
 * opened with O_DIRECTORY when IS_DIR, only that: no fstat(2) for it). */
struct stat clone_st;

static int clone_fd(int fd, const char *path, int *dir, int is_dir)
{
	int m;

	if (is_dir)
		clone_st = (struct stat){ .st_mode = S_IFDIR };
	else if (fstat(fd, &clone_st) < 0)
		die(EXIT_CONFINE, "unable to stat %s", path);
	*dir = S_ISDIR(clone_st.st_mode);
	m = sys_open_tree(fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
	                  AT_RECURSIVE | AT_EMPTY_PATH);
	if (m < 0)
		die(EXIT_CONFINE, "unable to clone the mount tree at %s", path);
	close(fd);
	return m;
}

static int opened(int fd, const char *path)
{
	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
		return -1;
	if (fd < 0)
		die_hint(EXIT_CONFINE, errno, errno == ELOOP ? "a symlink on the way: "
		         "it changed since the front end resolved the path" : NULL,
		         "unable to open %s", path);
	return fd;
}

/* NAME beneath host_fd, cloned with its last component not followed: a
 * symlink put there since the front end resolved the path is refused as
 * openat2's RESOLVE_NO_SYMLINKS refuses it (ELOOP); missing, -1. */
static int clone_beneath(const char *name, const char *path, int *dir)
{
	int m = sys_open_tree(host_fd, name, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
	                      AT_RECURSIVE | AT_SYMLINK_NOFOLLOW);

	if (m >= 0 && fstat(m, &clone_st) < 0)
		die(EXIT_CONFINE, "unable to stat %s", path);
	if (m >= 0 && S_ISLNK(clone_st.st_mode)) {
		close(m);
		m = -1;
		errno = ELOOP;
	}
	if (m < 0 && (errno == EMFILE || opened(-1, path) < 0))
		return -1;
	*dir = S_ISDIR(clone_st.st_mode);
	return m;
}

/* A recursive clone of the host's PATH, opened without following any
 * symlink anywhere on its way (openat2 RESOLVE_NO_SYMLINKS, or one
 * O_NOFOLLOW component at a time), or -1 when it is missing. */
int clone_host(const char *path, int *dir)
{
	/* Most rules are directories: O_DIRECTORY says so, where an fstat(2)
	 * a rule would. Anything else is opened again, and looked at. */
	int fd = open_nofollow(path, O_PATH | O_DIRECTORY), is_dir = fd >= 0;

	if (!is_dir && errno == ENOTDIR)
		fd = open_nofollow(path, O_PATH);
	fd = opened(fd, path);
	return fd < 0 ? -1 : clone_fd(fd, path, dir, is_dir);
}

int clone_rule(const char *path, int *dir)
{
	const char *slash = strrchr(path, '/');
	size_t len = slash ? (size_t)(slash - path) : 0;
	int m;

	if (!slash || !len || !slash[1] || len >= sizeof host_dir)
		return clone_host(path, dir);
	/* The first rule in a directory as any other; from its second on,
	 * by name beneath the directory, opened as the rule would have been. */
	if (strncmp(host_dir, path, len) || host_dir[len]) {
		host_forget();
		memcpy(host_dir, path, len);
		host_dir[len] = '\0';
		return clone_host(path, dir);
	}
	if (host_fd < 0 && (host_fd = open_nofollow(host_dir, O_PATH | O_DIRECTORY)) < 0)
		return clone_host(path, dir);	/* it says why */
	m = clone_beneath(slash + 1, path, dir);
	if (m < 0 && errno == EMFILE) {	/* a low RLIMIT_NOFILE */
		host_let_go();
		return clone_host(path, dir);
	}
	return m;
}

/* The same, PATH relative to DFD (our own fresh /proc). */
int clone_at(int dfd, const char *path, int *dir)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC,
	                        .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH };
	int fd = opened((int)syscall(SYS_openat2, dfd, path, &how, sizeof how), path);

	return fd < 0 ? -1 : clone_fd(fd, path, dir, 0);
}

void set_attr(int m, __u64 attr, const char *path)
{
	if (sys_setattr(m, "", AT_EMPTY_PATH | AT_RECURSIVE, attr) < 0)
		die(EXIT_CONFINE, "unable to set the mount flags of %s", path);
}

/* PROGRAM (the next step) lives outside the view: when given by an absolute
 * path that the view lacks, or holds without exec, the one file is bound in
 * read-only, so it runs from inside and its /proc/self/exe stays inside.
 * It is the chain's own helper, a path fixed at build time, not a grant. */
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
	/* Where it cannot be bound, the exec says what is wrong. Two
	 * descriptors at a time, as before: its mount point (at_root's, made
	 * then) and the clone of the host's file, taken by its path as
	 * open(2) would (from the host's root: this process's until
	 * pivot_root), with no descriptor of its own. */
	if (stat(prog, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (mp = at_root(prog, 1, 0)) < 0)
		return;
	m = sys_open_tree(AT_FDCWD, prog, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (m < 0 && (errno == ENOENT || errno == ENOTDIR || errno == EACCES ||
	              errno == ELOOP || errno == ENAMETOOLONG)) {
		close(mp);
		return;
	}
	if (m < 0)
		die(EXIT_CONFINE, "unable to clone %s", prog);
	set_attr(m, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, prog);
	if (sys_move_mount(m, "", mp, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		die(EXIT_CONFINE, "unable to mount %s in the new root", prog);
	close(mp);
	close(m);
}

/* PROG is a step of the chain: sharness-exec-NAME, in FIRST's directory
 * (its first DIR bytes, the slash included). */
static int is_step(const char *prog, const char *first, size_t dir)
{
	return dir && prog[0] == '/' && !strncmp(prog, first, dir) &&
	       !strchr(prog + dir, '/') && !strncmp(prog + dir, "sharness-exec-", 14);
}

/* NEXT's programs, the chain's rest: NEXT[0] bound as above, and after it,
 * while the program just bound is a step of the chain, the program after
 * that step's "--" where it is a step too: the listen step's landlock step
 * (DESIGN.md 1). No option argument of a step is "--" (paths are
 * absolute); the target, after the last step's "--", is not bound. */
void bind_steps(char *const *next)
{
	const char *first = next[0], *slash = strrchr(first, '/');
	size_t dir = slash ? (size_t)(slash - first) + 1 : 0;

	bind_program(first);
	while (is_step(*next, first, dir)) {
		while (*++next && strcmp(*next, "--"))
			;
		if (!*next || !next[1] || !is_step(next[1], first, dir))
			return;
		bind_program(*++next);
	}
}
