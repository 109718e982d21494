/* sharness-exec-view: what holds a write path's weak spots (view.h). The
 * directories between a protected path and the write path above it are
 * bound onto themselves, since a mount point cannot be renamed (EBUSY):
 * the protected tree cannot be moved aside and a new one made in its
 * place. Set-id and file-capability files beneath the write paths at the
 * start are bound read-only: write(2) clears the set-id bits, but a shared
 * writable mapping keeps them, and no target can make a new one, so a walk
 * at the start finds them all. The kernel-wide files of /proc that
 * container runtimes mask are masked. A working directory that the view
 * shows empty draws one line. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <linux/magic.h>
#include <linux/mount.h>

#include "common.h"
#include "helper.h"
#include "text.h"
#include "view.h"

#ifndef SYS_getxattrat
#define SYS_getxattrat 464	/* Linux 6.13, one number on every architecture */
#endif

/* The walk of the write paths: the path being looked at (absolute; in
 * the view, relative to the new root, the working directory meanwhile). */
struct walk {
	const struct ent *ents;
	size_t nents, found;
	int view;		/* in the view: bind, and the protected paths */
	int prot;		/* a protected path in ents: is_prot looks */
	size_t depth;		/* of the directory being read, its buffer */
	char path[PATH_MAX], first[PATH_MAX];
};

/* One getdents64 buffer a depth, kept for the walk's life: readdir's
 * DIR costs an fstat, an fcntl and an allocation a directory, and reads
 * 2 KiB a call. A path of PATH_MAX bytes is at most PATH_MAX / 2 deep. */
#define DENTS_SIZE 32768
static char dents0[DENTS_SIZE];	/* depth 0's: no mmap for most walks */
static char *dents[PATH_MAX / 2 + 1] = { dents0 };

struct dent64 {
	unsigned long long ino;
	long long off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

static const char *rel(const struct walk *w)
{
	return !w->view ? w->path : w->path[1] ? w->path + 1 : ".";
}

/* 1 when NAME in DFD ("" for DFD itself) may hold file capabilities: any
 * answer but "no such attribute" counts, as in a user namespace the kernel
 * refuses to show a root id it cannot map. */
static int has_caps(const struct walk *w, int dfd, const char *name)
{
	struct { __u64 value; __u32 size, flags; } args = { 0, 0, 0 };
	long r = syscall(SYS_getxattrat, dfd, name, AT_SYMLINK_NOFOLLOW |
	                 (*name ? 0 : AT_EMPTY_PATH), "security.capability",
	                 &args, sizeof args);

	/* Before 6.13, by path: the tree does not change under a walk that
	 * runs before the target. */
	if (r < 0 && errno == ENOSYS)
		r = lgetxattr(rel(w), "security.capability", NULL, 0);
	return r >= 0 || (errno != ENODATA && errno != ENOTSUP);
}

static int is_prot(const struct walk *w)
{
	for (size_t i = 0; w->view && w->prot && i < w->nents; i++)
		if ((w->ents[i].rights & PROT) && !strcmp(w->ents[i].path, w->path))
			return 1;
	return 0;
}

/* NAME in DFD, read-only (and nosuid) on top of itself. */
static void bind_ro(int dfd, const char *name, const char *path)
{
	int m = sys_open_tree(dfd, name, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
	                      AT_SYMLINK_NOFOLLOW | (*name ? 0 : AT_EMPTY_PATH));

	if (m < 0)
		die(EXIT_CONFINE, "unable to clone the set-id file %s", qn(path));
	set_attr(m, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, qn(path));
	if (sys_move_mount(m, "", dfd, name, MOVE_MOUNT_F_EMPTY_PATH |
	                   (*name ? 0 : MOVE_MOUNT_T_EMPTY_PATH)) < 0)
		die(EXIT_CONFINE, "unable to bind the set-id file %s read-only", qn(path));
	close(m);
}

/* A regular file: in a protected tree, a second name for it might lie
 * in a write path, writable there; elsewhere, set-id or capabilities. */
static void regular(struct walk *w, int dfd, const char *name,
                    const struct stat *st, int prot)
{
	if (prot) {
		if (st->st_nlink <= 1)
			return;
		if (!view_best)
			diex(EXIT_CONFINE, "refused: the protected file %s has %lu links: "
			     "another of them may lie beneath a write path, writable "
			     "there; -b (--best-effort) runs anyway", qn(w->path),
			     (unsigned long)st->st_nlink);
		warnx_("best effort: the protected file %s has %lu links: another "
		       "of them may lie beneath a write path, writable there",
		       qn(w->path), (unsigned long)st->st_nlink);
		return;
	}
	if (!(st->st_mode & S_ISUID) &&
	    (st->st_mode & (S_ISGID | S_IXGRP)) != (S_ISGID | S_IXGRP) &&
	    !has_caps(w, dfd, name))
		return;
	if (!w->found++)
		strcpy(w->first, w->path);
	if (w->view)
		bind_ro(dfd, name, w->path);
}

static void walk_dir(struct walk *w, int fd, int prot, dev_t up);

/* NAME in DFD (on device DEV), of type TYPE (getdents's, or DT_UNKNOWN),
 * following no symlink; w->path already names it. */
static void visit(struct walk *w, int dfd, const char *name, unsigned char type,
                  int prot, dev_t dev)
{
	struct stat st;
	int fd;

	prot = prot || is_prot(w);
	if (type != DT_DIR && type != DT_REG && type != DT_UNKNOWN)
		return;
	if (type != DT_DIR) {
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return;		/* gone meanwhile */
		if (S_ISREG(st.st_mode))
			regular(w, dfd, name, &st, prot);
		if (!S_ISDIR(st.st_mode))
			return;
	}
	/* By the system call: musl's openat adds an fcntl for O_CLOEXEC. */
	fd = (int)syscall(SYS_openat, dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	                  O_CLOEXEC);
	if (fd >= 0)
		walk_dir(w, fd, prot, dev);
	/* EACCES: the target, the same uid without capabilities, cannot
	 * list it either; ENOENT, ELOOP, ENOTDIR: gone or swapped since. */
	else if (errno != EACCES && errno != ENOENT && errno != ELOOP && errno != ENOTDIR)
		die(EXIT_CONFINE, "unable to walk %s", qn(w->path));
}

/* The tree at FD (a directory opened for reading), across its mounts but
 * for procfs, sysfs and the tmpfs mounts the view made (nothing set-id
 * there), which are looked for only where the device changes from UP
 * (0: always), the directory above it; FD is closed. */
static void walk_dir(struct walk *w, int fd, int prot, dev_t up)
{
	size_t len = strlen(w->path), nlen;
	struct statfs sf;
	struct stat st;
	char *buf;
	long n;

	if (fstat(fd, &st) < 0)
		die(EXIT_CONFINE, "unable to walk %s", qn(w->path));
	if (st.st_dev != up &&
	    ((w->view && (st.st_dev == our_dev[0] || st.st_dev == our_dev[1])) ||
	     (fstatfs(fd, &sf) == 0 && (sf.f_type == PROC_SUPER_MAGIC ||
	                               sf.f_type == SYSFS_MAGIC)))) {
		close(fd);
		return;
	}
	if (!dents[w->depth] && !(dents[w->depth] = malloc(DENTS_SIZE)))
		diex(EXIT_CONFINE, "out of memory");
	buf = dents[w->depth++];
	while ((n = syscall(SYS_getdents64, fd, buf, DENTS_SIZE)) > 0) {
		for (long off = 0; off < n; off += ((struct dent64 *)(buf + off))->reclen) {
			struct dent64 *de = (struct dent64 *)(buf + off);
			if (de->name[0] == '.' && (!de->name[1] ||
			                          (de->name[1] == '.' && !de->name[2])))
				continue;
			nlen = strlen(de->name);
			if (len + (len > 1) + nlen >= sizeof w->path)
				diex(EXIT_CONFINE, "unable to walk %s: a path longer than %d "
				     "bytes beneath it", qn(w->path), PATH_MAX);
			if (len > 1)
				w->path[len] = '/';
			memcpy(w->path + len + (len > 1), de->name, nlen + 1);
			visit(w, fd, de->name, de->type, prot, st.st_dev);
			w->path[len] = '\0';
		}
	}
	if (n < 0)
		die(EXIT_CONFINE, "unable to walk %s", qn(w->path));
	w->depth--;
	close(fd);
}

/* Each write path not beneath another one (its rights RIGHTS: the
 * effective ones in the view, the given ones where none stands). */
static void walk_writes(struct walk *w, unsigned (*rights)(const struct ent *))
{
	struct stat st;
	int fd, d;

	for (size_t i = 0; i < w->nents; i++) {
		const struct ent *e = &w->ents[i];
		int top = (rights(e) & W) != 0;
		for (size_t j = 0; j < w->nents && top; j++)
			top = j == i || !(rights(&w->ents[j]) & W) ||
				!path_beneath(e->path, w->ents[j].path) ||
				!strcmp(e->path, w->ents[j].path);
		if (!top)
			continue;
		/* Most write paths are directories: in the view, opened for
		 * reading at once; anything else as before. */
		if (w->view && (d = read_in_root(e->path)) >= 0) {
			strcpy(w->path, e->path);
			walk_dir(w, d, is_prot(w), 0);
			continue;
		}
		fd = w->view ? at_root(e->path, 0, 1) : open_nofollow(e->path, O_PATH);
		if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
			continue;	/* left out, as the binds leave it */
		if (fd < 0 || fstat(fd, &st) < 0)
			die(EXIT_CONFINE, "unable to open the write path %s", e->path);
		strcpy(w->path, e->path);
		if (S_ISREG(st.st_mode))
			regular(w, fd, "", &st, is_prot(w));
		d = S_ISDIR(st.st_mode) ? openat(fd, ".", O_RDONLY | O_DIRECTORY |
		                                 O_CLOEXEC) : -1;
		close(fd);
		if (d >= 0)
			walk_dir(w, d, is_prot(w), 0);
	}
}

static unsigned eff_of(const struct ent *e) { return e->eff; }
static unsigned own_of(const struct ent *e) { return e->rights; }

/* A directory onto itself, with what is mounted beneath it. */
static void pin(const char *dir)
{
	int fd = at_root(dir, 0, 1), m;

	if (fd < 0 && errno == ENOENT)
		return;
	if (fd < 0)
		die(EXIT_CONFINE, "unable to open %s in the new root", dir);
	m = sys_open_tree(fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
	                  AT_RECURSIVE | AT_EMPTY_PATH);
	if (m < 0 || sys_move_mount(m, "", fd, "", MOVE_MOUNT_F_EMPTY_PATH |
	                            MOVE_MOUNT_T_EMPTY_PATH) < 0)
		die(EXIT_CONFINE, "unable to bind %s onto itself", dir);
	close(m);
	close(fd);
}

/* Each directory strictly between a protected path and the outermost
 * write path above it, once (ENTS sorted, parents first). */
static void pin_protected(const struct ent *ents, size_t nents)
{
	char dir[PATH_MAX];

	for (size_t i = 0; i < nents; i++) {
		const char *p = ents[i].path, *top = NULL;
		int under_prot = 0;
		if (!(ents[i].rights & PROT))
			continue;
		for (size_t j = 0; j < nents; j++) {
			if (j == i || !path_beneath(p, ents[j].path) || !strcmp(p, ents[j].path))
				continue;
			under_prot |= (ents[j].rights & PROT) != 0;
			if ((ents[j].rights & W) && (!top || strlen(ents[j].path) < strlen(top)))
				top = ents[j].path;
		}
		if (!top || under_prot)
			continue;	/* read-only above it already */
		for (size_t k = strlen(top) + 1; p[k]; k++) {
			int done = 0;
			if (p[k] != '/')
				continue;
			memcpy(dir, p, k);
			dir[k] = '\0';
			for (size_t j = 0; j < i && !done; j++)
				done = (ents[j].rights & PROT) && path_beneath(ents[j].path, dir) &&
					strcmp(ents[j].path, dir);
			if (!done)
				pin(dir);
		}
	}
}

/* In the view, once every path is bound. */
void guard_writes(const struct ent *ents, size_t nents)
{
	static struct walk w;

	w.ents = ents;
	w.nents = nents;
	w.view = 1;
	for (size_t i = 0; i < nents; i++)
		w.prot |= (ents[i].rights & PROT) != 0;
	walk_writes(&w, eff_of);
	pin_protected(ents, nents);
}

/* Where no view stands: nothing can hold a set-id file read-only. */
void guard_no_view(const struct ent *ents, size_t nents)
{
	static struct walk w;
	char more[40] = "";

	w.ents = ents;
	w.nents = nents;
	walk_writes(&w, own_of);
	if (!w.found)
		return;
	if (w.found > 1)
		snprintf(more, sizeof more, " (and %zu more)", w.found - 1);
	if (!view_best)
		die_hint(EXIT_CONFINE, 0, "-b (--best-effort) runs with them writable",
		         "refused: %s%s is set-id or has file capabilities, beneath a "
		         "write path, and without a mount namespace nothing holds it "
		         "read-only", qn(w.first), more);
	warnx_("best effort: %s%s is set-id or has file capabilities, beneath a "
	       "write path, and stays writable", qn(w.first), more);
}

/* /proc's kernel-wide files and directories that container runtimes mask,
 * where they exist: /dev/null over a file, an empty read-only tmpfs over
 * a directory. Two descriptors at a time, as the rest of the step: a
 * low RLIMIT_NOFILE leaves no more. */
void mask_proc(void)
{
	static const char *const masked[] = { "keys", "kcore", "timer_list",
		"timer_stats", "sched_debug", "latency_stats", "acpi", "asound", "scsi" };
	static const char *const empty[] = { "mode", "0555", "size", "4k",
		"nr_inodes", "1", NULL };
	char path[32];
	struct stat st;
	int fd, m, dir;

	for (size_t i = 0; i < sizeof masked / sizeof *masked; i++) {
		snprintf(path, sizeof path, "/proc/%s", masked[i]);
		if ((fd = at_root(path, 0, 0)) < 0 && errno == ENOENT)
			continue;
		if (fd < 0 || fstat(fd, &st) < 0)
			die(EXIT_CONFINE, "unable to open %s", path);
		close(fd);
		dir = S_ISDIR(st.st_mode);
		if (dir)
			m = new_fs("tmpfs", empty, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
			           MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
		else if ((m = clone_host("/dev/null", &dir)) >= 0)
			set_attr(m, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
			         MOUNT_ATTR_NOEXEC, "/dev/null");
		if (m < 0)
			die(EXIT_CONFINE, "unable to mask %s", path);
		attach(m, path, dir);
		close(m);
	}
}

/* The working directory CWD, outside every policy path: empty here
 * (not on the way to a policy path) draws one line; the root never does.
 * Read with next_dirent, to its end (which leaves it ready for the next
 * directory): opendir(3) would allocate a page of its own and free it. */
void warn_cwd(const char *cwd)
{
	unsigned char type;
	int d, empty;

	if (!strcmp(cwd, "/") || (d = openat(AT_FDCWD, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return;
	for (empty = 1; next_dirent(d, &type); empty = 0)
		;
	close(d);
	if (empty)
		warnx_("the working directory %s lies outside the policy: it is an "
		       "empty directory here; add it to files.read (or files.write) "
		       "to see it", qn(cwd));
}
