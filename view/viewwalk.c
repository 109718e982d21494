/* sharness-exec-view: the walk of the write paths (view.h), one look at
 * each entry beneath them, done once every path is bound and before the
 * target starts. What it finds (viewhold.c holds it):
 * - set-id and file-capability files: write(2) clears the set-id bits,
 *   but a shared writable mapping keeps them, and no target can make a
 *   new one, so a walk at the start finds them all; each is bound
 *   read-only. Only where a set-id bit could take effect: a file system
 *   whose every mount in the caller's mount table is nosuid needs no
 *   look at a file's mode (getdents's d_type says the rest), and file
 *   capabilities are looked for only on files with an execute bit;
 * - in a protected tree, a file with a second name;
 * - socket files, covered below Landlock ABI 9 (-s leaves one open);
 * - VCS metadata (.git, .hg, .svn, .jj), read-only unless -V, and the
 *   gitdir a .git file or link names;
 * - a directory it cannot list that the target can search: unknown
 *   ground, bound read-only whole. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <linux/magic.h>

#include "common.h"
#include "helper.h"
#include "statuspipe.h"
#include "text.h"
#include "view.h"

#ifndef SYS_getxattrat
#define SYS_getxattrat 464	/* Linux 6.13, one number on every architecture */
#endif
#ifndef SYS_faccessat2
#define SYS_faccessat2 439
#endif

/* The walk: the path being looked at (absolute; in the view, relative to
 * the new root, the working directory meanwhile), and what this write
 * path's walk met, for -v. */
struct walk {
	const struct ent *ents;
	size_t nents;
	int view;		/* in the view: bind, and the protected paths */
	int prot;		/* a protected path in ents: is_prot looks */
	size_t depth;		/* of the directory being read, its buffer */
	struct walk_found *found;
	size_t entries, held[WALK_KINDS], sockets;
	char path[PATH_MAX];
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

/* What the walk met of KIND at w->path: counted, the first named. */
static void met(struct walk *w, int kind)
{
	if (!w->found[kind].n++)
		strcpy(w->found[kind].first, w->path);
	w->held[kind] += w->view != 0;
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
	 * runs before the target. So too for a write path that is itself a
	 * file, open O_PATH, which getxattrat refuses (EBADF): counted as
	 * capabilities, it was held read-only. */
	if (r < 0 && (errno == ENOSYS || (errno == EBADF && !*name)))
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

static int is_vcs(const char *name)
{
	return name[0] == '.' && !view_vcs &&
		(!strcmp(name, ".git") || !strcmp(name, ".hg") ||
		 !strcmp(name, ".svn") || !strcmp(name, ".jj"));
}

/* A regular file: in a protected tree, a second name for it might lie
 * in a write path, writable there; elsewhere, set-id or capabilities
 * (which need an execute bit to take effect). */
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
	    (!(st->st_mode & (S_IXUSR | S_IXGRP | S_IXOTH)) || !has_caps(w, dfd, name)))
		return;
	met(w, WALK_SETID);
	if (w->view)
		hold_ro(dfd, name, w->path, 0);
}

/* A .git, .hg, .svn or .jj that is not a directory: a file (a worktree's
 * or a submodule's .git names its gitdir) or a link, held, and what it
 * names held once every write path is walked. A mount point cannot be
 * renamed or removed (EBUSY), nor a link replaced. */
static void vcs_other(struct walk *w, int dfd, const char *name, int link)
{
	met(w, WALK_VCS);
	if (!w->view)
		return;
	hold_ro(dfd, name, w->path, 0);
	if (link || !strcmp(name, ".git"))
		hold_gitdir_of(dfd, name, w->path, link);
}

static void walk_dir(struct walk *w, int fd, int prot, dev_t up, int suid);

/* A directory the walk cannot open: where the target could search it
 * (the same uid, without capabilities), a name it knows reaches what
 * the walk did not see, so it is held read-only whole. */
static void unlisted(struct walk *w, int dfd, const char *name)
{
	long r = syscall(SYS_faccessat2, dfd, name, X_OK, AT_EACCESS | AT_SYMLINK_NOFOLLOW);

	if (r < 0 && errno != ENOSYS && errno != EINVAL)
		return;		/* EACCES: the target cannot search it either */
	met(w, WALK_UNLISTED);
	if (w->view)
		hold_ro(dfd, name, w->path, 1);
}

/* NAME in DFD (on device DEV, SUID: set-id could take effect there), of
 * type TYPE (getdents's, or DT_UNKNOWN), following no symlink; w->path
 * already names it. Looked at with one stat at most: only a regular file
 * where set-id could matter, or where getdents gives no type. */
static void visit(struct walk *w, int dfd, const char *name, unsigned char type,
                  int prot, dev_t dev, int suid)
{
	int vcs = is_vcs(name), stated = 0, fd;
	struct stat st;

	prot = prot || is_prot(w);
	w->entries++;
	if (type == DT_UNKNOWN || (type == DT_REG && (suid || prot))) {
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return;		/* gone meanwhile */
		type = (unsigned char)IFTODT(st.st_mode);
		stated = 1;
	}
	if (type == DT_SOCK && w->view && !view_sockets_held && !keep_named(w->path)) {
		hold_socket(dfd, name, w->path);
		w->sockets++;
	}
	if (type == DT_REG && stated)
		regular(w, dfd, name, &st, prot);
	if ((type == DT_REG || type == DT_LNK) && vcs)
		vcs_other(w, dfd, name, type == DT_LNK);
	if (type != DT_DIR)
		return;
	/* By the system call: musl's openat adds an fcntl for O_CLOEXEC. */
	fd = (int)syscall(SYS_openat, dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	                  O_CLOEXEC);
	if (fd >= 0)
		walk_dir(w, fd, prot, dev, suid);
	else if (errno == EACCES)
		unlisted(w, dfd, name);
	/* ENOENT, ELOOP, ENOTDIR: gone or swapped since. */
	else if (errno != ENOENT && errno != ELOOP && errno != ENOTDIR)
		die(EXIT_CONFINE, "unable to walk %s", qn(w->path));
	/* After its walk: the binds beneath it come along. */
	if (fd >= 0 && vcs) {
		met(w, WALK_VCS);
		if (w->view)
			hold_ro(dfd, name, w->path, 1);
	}
}

/* The tree at FD (a directory opened for reading), across its mounts but
 * for procfs, sysfs and the tmpfs mounts the view made (nothing set-id
 * there), which are looked for only where the device changes from UP
 * (0: always), the directory above it, as is whether set-id could take
 * effect there (else SUID, the directory above's); FD is closed. */
static void walk_dir(struct walk *w, int fd, int prot, dev_t up, int suid)
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
	if (st.st_dev != up)
		suid = suid_possible(st.st_dev);
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
			visit(w, fd, de->name, de->type, prot, st.st_dev, suid);
			w->path[len] = '\0';
		}
	}
	/* ENOENT: the directory was removed while it was read, by a process
	 * outside the run (a shared /tmp): nothing is left beneath it. */
	if (n < 0 && errno != ENOENT)
		die(EXIT_CONFINE, "unable to walk %s", qn(w->path));
	w->depth--;
	close(fd);
}

/* Whether the write path E (on device DEV) needs a walk at all: not where
 * set-id cannot take effect on its file system nor on one mounted beneath
 * it, no protected path is given, sockets are Landlock's (ABI 9) or not
 * the view's to cover, and VCS metadata stays writable (-V). */
static int needs_walk(const struct walk *w, const struct ent *e, dev_t dev)
{
	return w->prot || suid_possible(dev) || suid_mounts_beneath(e->path) ||
		!view_vcs || (w->view && !view_sockets_held);
}

/* What the walk of PATH did, or why there was none: the one source of
 * -v's line and of the status pipe's "@write" note, which supervise puts
 * in the report's write_paths (sharness-exec-report(5)): "@write WALKED
 * SUID VIEW ENTRIES MS SETID VCS UNLISTED SOCKETS PATH", PATH last and as
 * qn() shows it where it holds a control character (one line a note). */
static void say(const struct walk *w, const char *path, int walked, int suid,
                const struct timespec *t0)
{
	struct timespec t1;
	long ms;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = !walked ? 0 : (t1.tv_sec - t0->tv_sec) * 1000 +
	     (t1.tv_nsec - t0->tv_nsec) / 1000000;
	status_note("write %d %d %d %zu %ld %zu %zu %zu %zu %s", walked, suid, w->view,
	            w->entries, ms, w->held[WALK_SETID], w->held[WALK_VCS],
	            w->held[WALK_UNLISTED], w->sockets,
	            strpbrk(path, "\n\r") ? qn(path) : path);
	if (!view_verbose)
		return;
	if (!walked) {
		fprintf(stderr, "%s: write path %s: not walked: nosuid wherever its "
		        "file system is mounted, %s, VCS metadata writable (-V)\n",
		        progname, qn(path), w->view ? "sockets held by Landlock (ABI 9)" :
		        "no mount namespace");
		return;
	}
	fprintf(stderr, "%s: write path %s: %zu entries walked in %ld ms, set-id %s; "
	        "held read-only: %zu set-id, %zu VCS, %zu unlisted; %zu sockets "
	        "covered\n", progname, qn(path), w->entries, ms,
	        suid ? "looked for" : "not looked for (nosuid wherever its file "
	        "system is mounted)", w->held[WALK_SETID], w->held[WALK_VCS],
	        w->held[WALK_UNLISTED], w->sockets);
}

/* One write path not beneath another, E: a directory opened for reading
 * at once in the view (most are), anything else as before. */
static void walk_top(struct walk *w, const struct ent *e)
{
	struct timespec t0;
	struct stat st;
	int fd, d, suid;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	w->entries = w->sockets = 0;
	memset(w->held, 0, sizeof w->held);
	d = w->view ? read_in_root(e->path) : -1;
	fd = d >= 0 ? d : w->view ? at_root(e->path, 0, 1) : open_nofollow(e->path, O_PATH);
	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
		return;		/* left out, as the binds leave it */
	if (fd < 0 || fstat(fd, &st) < 0)
		die(EXIT_CONFINE, "unable to open the write path %s", e->path);
	strcpy(w->path, e->path);
	suid = suid_possible(st.st_dev);
	if (!needs_walk(w, e, st.st_dev)) {
		close(fd);
		say(w, e->path, 0, suid, &t0);
		return;
	}
	if (S_ISREG(st.st_mode))
		regular(w, fd, "", &st, is_prot(w));
	if (S_ISSOCK(st.st_mode) && w->view && !view_sockets_held && !keep_named(e->path)) {
		hold_socket(fd, "", e->path);
		w->sockets++;
	}
	if (d < 0 && S_ISDIR(st.st_mode))
		d = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d != fd)
		close(fd);
	if (d >= 0)
		walk_dir(w, d, is_prot(w), 0, suid);
	say(w, e->path, 1, suid, &t0);
}

void walk_writes(const struct ent *ents, size_t nents, int view,
                 struct walk_found found[WALK_KINDS])
{
	static struct walk w;

	w.ents = ents;
	w.nents = nents;
	w.view = view;
	w.found = found;
	w.prot = 0;
	status_note("writes"); /* the report's write_paths: [] until a "@write" */
	for (size_t i = 0; i < nents; i++)
		w.prot |= (ents[i].rights & PROT) != 0;
	for (size_t i = 0; i < nents; i++) {
		const struct ent *e = &ents[i];
		unsigned r = view ? e->eff : e->rights;
		int top = (r & W) != 0;
		for (size_t j = 0; j < nents && top; j++)
			top = j == i || !((view ? ents[j].eff : ents[j].rights) & W) ||
				!path_beneath(e->path, ents[j].path) ||
				!strcmp(e->path, ents[j].path);
		if (top)
			walk_top(&w, e);
	}
}
