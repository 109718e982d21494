/* sharness-exec-view: what the walk of the write paths holds (view.h),
 * and where a set-id bit could take effect at all.
 * - The caller's mount table, read once before the view's own namespace
 *   is made: a file system whose every mount there is nosuid runs no
 *   set-id file and no file capability through any of them, so the walk
 *   looks at no file's mode there.
 * - A file or directory bound read-only onto itself (set-id files, VCS
 *   metadata, directories the walk cannot list).
 * - Socket files covered: an empty read-only regular file of a small
 *   tmpfs of our own bound over each, so connect(2) finds no socket
 *   (ECONNREFUSED) and unlink(2) and rename(2) a mount point (EBUSY).
 * - The gitdirs that .git files and links name, held once every write
 *   path is walked. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/mount.h>

#include "common.h"
#include "helper.h"
#include "view.h"

#ifndef MNT_DETACH
#define MNT_DETACH 2
#endif

int view_vcs, view_verbose, view_sockets_held;

/* -s PATH: the host sockets the policy names (files.sockets). */
static char **keep;
static size_t nkeep;

void keep_add(char *path)
{
	if (!(keep = reallocarray(keep, nkeep + 1, sizeof *keep)))
		die(EXIT_REFUSED, "out of memory");
	keep[nkeep++] = path;
}

int keep_named(const char *path)
{
	for (size_t i = 0; i < nkeep; i++)
		if (!strcmp(keep[i], path))
			return 1;
	return 0;
}

/* The caller's mounts: device, whether set-id takes effect through it,
 * and its mount point (unescaped). */
static struct mnt { dev_t dev; int suid; char *at; } *mnts;
static size_t nmnts;
static int mnts_read;

/* mountinfo's octal escapes (\040 a space, \011, \012, \134) undone. */
static char *unescape(const char *s, size_t n)
{
	char *out = malloc(n + 1), *o = out;

	if (!out)
		die(EXIT_CONFINE, "out of memory");
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 3 < n && s[i + 1] >= '0' && s[i + 1] <= '3') {
			*o++ = (char)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
			i += 3;
		} else {
			*o++ = s[i];
		}
	}
	*o = '\0';
	return out;
}

/* One line of mountinfo: "ID PARENT MAJ:MIN ROOT POINT OPTS ..." */
static void mount_line(char *line)
{
	char *f[6], *save = NULL, *tok;
	unsigned maj, min;
	size_t n = 0;
	struct mnt *m;

	for (tok = strtok_r(line, " ", &save); tok && n < 6; tok = strtok_r(NULL, " ", &save))
		f[n++] = tok;
	if (n < 6 || sscanf(f[2], "%u:%u", &maj, &min) != 2)
		return;
	if (!(mnts = reallocarray(mnts, nmnts + 1, sizeof *mnts)))
		die(EXIT_CONFINE, "out of memory");
	m = &mnts[nmnts++];
	m->dev = makedev(maj, min);
	m->at = unescape(f[4], strlen(f[4]));
	m->suid = 1;
	for (tok = strtok_r(f[5], ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (!strcmp(tok, "nosuid"))
			m->suid = 0;
}

void suid_mounts_read(void)
{
	size_t cap = 16384, len = 0;
	char *buf = malloc(cap), *line, *nl;
	int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	mnts_read = 1;
	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return;		/* unknown: set-id is possible everywhere */
	}
	while ((n = read(fd, buf + len, cap - len - 1)) > 0)
		if ((len += (size_t)n) == cap - 1 && !(buf = realloc(buf, cap *= 2)))
			die(EXIT_CONFINE, "out of memory");
	close(fd);
	buf[len] = '\0';
	if (n < 0) {
		nmnts = 0;
		free(buf);
		return;
	}
	for (line = buf; (nl = strchr(line, '\n')); line = nl + 1) {
		*nl = '\0';
		mount_line(line);
	}
	free(buf);
}

int suid_possible(dev_t dev)
{
	int seen = 0;

	for (size_t i = 0; i < nmnts; i++) {
		if (mnts[i].dev != dev)
			continue;
		if (mnts[i].suid)
			return 1;
		seen = 1;
	}
	return !seen;
}

int suid_mounts_beneath(const char *path)
{
	if (!mnts_read || !nmnts)
		return 1;
	for (size_t i = 0; i < nmnts; i++)
		if (path_beneath(mnts[i].at, path) && strcmp(mnts[i].at, path))
			return 1;
	return 0;
}

/* ENOENT: what the walk listed was removed since, by a process outside
 * the run (the target has not started): nothing left to hold. */
static int gone(int m)
{
	int e = errno;

	if (m >= 0)
		close(m);
	errno = e;
	return e == ENOENT;
}

/* NAME in DFD ("" for DFD itself), read-only, nosuid and nodev on top of
 * itself; TREE: a directory, with what is mounted beneath it. */
void hold_ro(int dfd, const char *name, const char *path, int tree)
{
	int m = sys_open_tree(dfd, name, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
	                      AT_SYMLINK_NOFOLLOW | (tree ? AT_RECURSIVE : 0) |
	                      (*name ? 0 : AT_EMPTY_PATH));

	if (m < 0 && gone(m))
		return;
	if (m < 0)
		die(EXIT_CONFINE, "unable to clone %s", qn(path));
	set_attr(m, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, qn(path));
	if (sys_move_mount(m, "", dfd, name, MOVE_MOUNT_F_EMPTY_PATH |
	                   (*name ? 0 : MOVE_MOUNT_T_EMPTY_PATH)) == 0)
		close(m);
	else if (!gone(m))
		die(EXIT_CONFINE, "unable to bind %s read-only onto itself", qn(path));
}

/* The cover: once attached over the first socket, the mount each later
 * one is cloned from (open_tree(2) clones nothing from a detached mount
 * but on the newest kernels); the first, detached still, where its socket
 * was removed before it was covered. */
static int cover = -1, spare = -1;

/* A detached clone of the empty file "s" of a tmpfs of our own,
 * read-only, nosuid, nodev, noexec. Mode 0666: connect(2) asks for write
 * permission before it looks at the type, so every uid gets ECONNREFUSED,
 * none EACCES; the read-only mount refuses every write (EROFS). The tmpfs is attached for a moment
 * on top of the new root (the working directory, whose descriptor does
 * not follow it), cloned from, and taken off again from inside it. */
static int cover_first(const char *path)
{
	static const char *const opts[] = { "mode", "0755", "size", "4k",
	                                    "nr_inodes", "4", NULL };
	int data = new_fs("tmpfs", opts, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
	                  MOUNT_ATTR_NOEXEC), root, fd, m;

	root = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (data < 0 || root < 0)
		die(EXIT_CONFINE, "unable to make the file that covers the socket %s", qn(path));
	fd = openat(data, "s", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0 || fchmod(fd, 0666) < 0 || close(fd) < 0 ||
	    sys_move_mount(data, "", root, "", MOVE_MOUNT_F_EMPTY_PATH |
	                   MOVE_MOUNT_T_EMPTY_PATH) < 0 ||
	    (m = sys_open_tree(data, "s", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
	                       AT_SYMLINK_NOFOLLOW)) < 0 ||
	    fchdir(data) < 0 || umount2(".", MNT_DETACH) < 0 || fchdir(root) < 0)
		die(EXIT_CONFINE, "unable to make the file that covers the socket %s", qn(path));
	close(data);
	close(root);
	set_attr(m, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
	         MOUNT_ATTR_NOEXEC, qn(path));
	return m;
}

void hold_socket(int dfd, const char *name, const char *path)
{
	int m = spare >= 0 ? spare : cover < 0 ? cover_first(path) :
		sys_open_tree(cover, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);

	spare = -1;
	if (m < 0)
		die(EXIT_CONFINE, "unable to clone the file that covers the socket %s", qn(path));
	if (sys_move_mount(m, "", dfd, name, MOVE_MOUNT_F_EMPTY_PATH |
	                   (*name ? 0 : MOVE_MOUNT_T_EMPTY_PATH)) < 0) {
		if (errno != ENOENT)
			die(EXIT_CONFINE, "unable to cover the socket %s", qn(path));
		if (cover < 0)
			spare = m;	/* gone since: kept for the next one */
		else
			close(m);
		return;
	}
	if (cover < 0)
		cover = m;	/* attached now: the later ones' source */
	else
		close(m);
}

/* The gitdirs named by .git files and links beneath the write paths,
 * absolute paths in the view, held once every write path is walked. */
static char **gitdirs;
static size_t ngitdirs;

/* The .git file or link NAME in DFD, at PATH: the gitdir it names, made
 * absolute (from PATH's directory where it is relative). */
void hold_gitdir_of(int dfd, const char *name, const char *path, int link)
{
	char text[PATH_MAX], *p = text, *abs;
	ssize_t n;
	int fd;

	if (link) {
		n = readlinkat(dfd, name, text, sizeof text - 1);
	} else if ((fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	                        O_CLOEXEC)) >= 0) {
		n = read(fd, text, sizeof text - 1);
		close(fd);
	} else {
		n = -1;
	}
	if (n <= 0)
		return;		/* nothing named: nothing more to hold */
	text[n] = '\0';
	if (!link) {
		if (strncmp(text, "gitdir:", 7))
			return;
		for (p = text + 7; *p == ' ' || *p == '\t'; p++)
			;
		p[strcspn(p, "\r\n")] = '\0';
	}
	if (!*p)
		return;
	if (!(abs = malloc(strlen(path) + strlen(p) + 2)))
		die(EXIT_CONFINE, "out of memory");
	if (*p == '/')
		strcpy(abs, p);
	else
		sprintf(abs, "%.*s/%s", (int)(strrchr(path, '/') - path), path, p);
	if (!(gitdirs = reallocarray(gitdirs, ngitdirs + 1, sizeof *gitdirs)))
		die(EXIT_CONFINE, "out of memory");
	gitdirs[ngitdirs++] = abs;
}

/* PATH (absolute) with its "." and ".." components taken out, in place. */
static void lexical(char *path)
{
	char *out = path, *p = path;

	while (*p) {
		size_t n;
		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if ((n == 1 && p[0] == '.') || !n) {
			p += n;
			continue;
		}
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (out > path && *--out != '/')
				;
			p += n;
			continue;
		}
		*out++ = '/';
		memmove(out, p, n);
		out += n;
		p += n;
	}
	if (out == path)
		*out++ = '/';
	*out = '\0';
}

/* 1 when GITDIR may be held: strictly beneath a write path of ENTS, and no
 * write path at or beneath it (its clone would take that one too). */
static int holdable(const char *gitdir, const struct ent *ents, size_t nents)
{
	int beneath = 0;

	for (size_t i = 0; i < nents; i++) {
		if (!(ents[i].eff & W))
			continue;
		if (path_beneath(ents[i].path, gitdir))
			return 0;
		beneath |= path_beneath(gitdir, ents[i].path);
	}
	return beneath;
}

/* Each gitdir named, made plain (no "." or ".."), opened in the view with
 * no symlink on the way (a gitdir reached through one is left: the .git
 * file or link that names it is held all the same): where it lies
 * strictly beneath a write path, holding none, and on a writable mount,
 * it is bound read-only onto itself with what is beneath it. Missing or
 * outside the view: nothing to hold. */
size_t hold_gitdirs(const struct ent *ents, size_t nents)
{
	struct statvfs sv;
	size_t held = 0;
	int fd;

	for (size_t i = 0; i < ngitdirs; i++) {
		lexical(gitdirs[i]);
		fd = holdable(gitdirs[i], ents, nents) ? read_in_root(gitdirs[i]) : -1;
		if (fd >= 0 && fstatvfs(fd, &sv) == 0 && !(sv.f_flag & ST_RDONLY)) {
			hold_ro(fd, "", gitdirs[i], 1);
			held++;
		}
		if (fd >= 0)
			close(fd);
		free(gitdirs[i]);
	}
	free(gitdirs);
	gitdirs = NULL;
	ngitdirs = 0;
	if (cover >= 0)
		close(cover);
	if (spare >= 0)
		close(spare);
	cover = spare = -1;
	return held;
}
