/* sharness-exec-view: the symlinks of the view (view.h): those of --symlink, and
 * the host's own in the directories above the bound paths where they lead
 * into the view. A link grants nothing: it only leads to what the view
 * holds. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common.h"
#include "helper.h"
#include "text.h"
#include "view.h"

/* The view's paths, planned and bound, in tree order (host_links). */
static const struct ent *ents;
static size_t nents;

/* Recreate LINK -> TARGET (--symlink) in the new root, on a tmpfs of ours. Where
 * a bound tree holds LINK's place (the host's own entry, or a symlink on
 * the way to it) that tree shows what the host has, and nothing is made.
 * In the root, ours when it is our tmpfs (nothing is mounted on it), one
 * symlinkat: EEXIST, or ENOTDIR on the way, is a place already held. */
void make_link(const char *link, const char *target)
{
	const char *slash = strrchr(link, '/');
	char *parent = NULL;
	int fd = AT_FDCWD, own = our_dev[0] != 0;

	if (slash != link) {
		if (!(parent = strndup(link, (size_t)(slash - link))))
			die(EXIT_REFUSED, "out of memory");
		fd = at_root(parent, 1, 1);
		own = fd >= 0 && ours(fd);
	}
	if (own && symlinkat(target, fd, slash + 1) < 0 && errno != EEXIST &&
	    errno != ENOTDIR)
		die(EXIT_CONFINE, "unable to make the symlink %s in the new root", link);
	if (fd >= 0)
		close(fd);
	free(parent);
}

/* 1 when DIR, above ents[I], lies in a tree bound from the host (or a
 * fresh /proc): the nearest mounted path at or above it, among ents[I]'s
 * ancestors (all of them, in tree order), is one. Nothing of ours is
 * mounted in such a tree but a built /dev, itself one of them. */
static int in_bound_tree(size_t i, const char *dir)
{
	for (size_t j = ents[i].up; j != SIZE_MAX; j = ents[j].up)
		if (ents[j].mounted && path_beneath(dir, ents[j].path))
			return ents[j].mounted == 1;
	return 0;
}

/* 1 when the host's PATH is known to be no symlink, nor has one on its
 * way: it is at or above a path bound from the host, which was opened
 * with none (clone_host: the host's /proc is not /proc's source). */
static int known_real(const char *path)
{
	for (size_t i = 0; i < nents; i++)
		if (ents[i].mounted == 1 && !path_beneath(ents[i].path, "/proc") &&
		    path_beneath(ents[i].path, path))
			return 1;
	return 0;
}

/* What realpath(3) makes of the host's DIR/NAME, a symlink to TARGET,
 * into OUT (PATH_MAX bytes): each component is read with readlink(2),
 * as musl's realpath does, but for those known_real, and but for the
 * link itself, read already. 1 done, 0 where realpath would fail, -1
 * where this is not sure to be what realpath makes of it (a "." or ".."
 * component, a trailing slash): then realpath is asked. */
static int resolve(const char *dir, const char *target, char *out)
{
	char rest[PATH_MAX], link[PATH_MAX];
	size_t o = 0;
	int hops = 1;

	if (target[0] != '/' && strcmp(dir, "/")) {
		if (!known_real(dir))
			return -1;	/* DIR is read from the host as it is */
		o = (size_t)snprintf(out, PATH_MAX, "%s", dir);
	}
	if (snprintf(rest, sizeof rest, "%s", target) >= (int)sizeof rest)
		return -1;
	out[o] = '\0';
	for (char *s = rest; *s; ) {
		char *end = strchrnul(s, '/');
		size_t n = (size_t)(end - s), keep = o;
		ssize_t len;
		int more;
		if (!n) {
			s++;
			continue;
		}
		if ((n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.') ||
		    (*end && !end[strspn(end, "/")]) || o + 1 + n >= PATH_MAX)
			return -1;
		out[o++] = '/';
		memcpy(out + o, s, n);
		o += n;
		out[o] = '\0';
		s = *end ? end + 1 : end;
		if (known_real(out))
			continue;
		if ((len = readlink(out, link, sizeof link - 1)) < 0) {
			if (errno == EINVAL)
				continue;	/* there, and no symlink */
			return 0;
		}
		/* musl's SYMLOOP_MAX: the 40th link is ELOOP */
		if (++hops >= 40)
			return 0;
		if ((size_t)len + 1 + strlen(s) >= sizeof rest)
			return -1;
		/* The link's text, then what was left, in its place. */
		link[len] = '\0';
		more = *s != '\0';
		memmove(rest + len + 1, s, strlen(s) + 1);
		memcpy(rest, link, (size_t)len);
		rest[len] = more ? '/' : '\0';
		s = rest;
		o = link[0] == '/' ? 0 : keep;
		out[o] = '\0';
	}
	if (!o)
		strcpy(out, "/");
	return 1;
}

/* 1 when the host's DIR is sticky and anyone may write it (/tmp): anyone
 * may have put a link there, which the host's fs.protected_symlinks keeps
 * the caller from following, and which the view's copy, in a directory of
 * ours, would not. None is made there; and what may be thousands of
 * entries is not read. */
static int sticky_open(const char *dir)
{
	struct stat st;

	return stat(dir, &st) == 0 &&
		(st.st_mode & (S_ISVTX | S_IWOTH)) == (S_ISVTX | S_IWOTH);
}

/* The host's symlinks in the directory DIR (open on FD in the new root,
 * ours), where their target lies in the view and the view has no entry
 * of that name. */
static void links_of(const char *dir, int fd)
{
	char host[PATH_MAX], target[PATH_MAX], real[PATH_MAX], *r;
	const char *name;
	unsigned char type;
	ssize_t len;
	int d = (int)syscall(SYS_openat, AT_FDCWD, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), how;

	if (d < 0)
		return;
	while ((name = next_dirent(d, &type))) {
		if ((type != DT_LNK && type != DT_UNKNOWN) ||
		    faccessat(fd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0 ||
		    (len = readlinkat(d, name, target, sizeof target - 1)) < 0 ||
		    snprintf(host, sizeof host, "%s/%s", strcmp(dir, "/") ? dir : "",
		             name) >= (int)sizeof host)
			continue;
		target[len] = '\0';
		if (!(how = resolve(dir, target, real)))
			continue;
		r = how < 0 ? realpath(host, NULL) : real;
		if (r && (plan_effective(ents, nents, r) & (R | X | W)) &&
		    symlinkat(target, fd, name) < 0)
			die(EXIT_CONFINE, "unable to make the symlink %s", host);
		if (r != real)
			free(r);
	}
	close(d);
}

/* The host's symlinks in the directories above the bound paths, where
 * their target lies in the view (merged /usr: /bin, /lib, /lib64, /sbin),
 * as Landlock alone lets them be followed: a policy of "/usr" still runs
 * /bin/sh. Only on our tmpfs; a bound tree has its own; not in a sticky
 * directory anyone may write. */
void host_links(const struct ent *all, size_t n_all)
{
	char dir[PATH_MAX];
	int fd;

	ents = all;
	nents = n_all;
	for (size_t i = 0, prev = SIZE_MAX; i < nents; i++) {
		if (!(ents[i].eff & (R | X | W)) || !strcmp(ents[i].path, "/"))
			continue;
		for (const char *s = ents[i].path; (s = strchr(s, '/')); s++) {
			size_t n = s == ents[i].path ? 1 : (size_t)(s - ents[i].path);
			const char *p = prev == SIZE_MAX ? NULL : ents[prev].path;
			memcpy(dir, ents[i].path, n);
			dir[n] = '\0';
			/* Each directory once: an earlier entry with it as an
			 * ancestor, which in tree order (viewplan.c) is the one
			 * just before, if any is. */
			if ((p && !strncmp(p, dir, n) && (n == 1 || p[n] == '/')) ||
			    in_bound_tree(i, dir) || sticky_open(dir))
				continue;
			/* The root is ours when it is our tmpfs. */
			if (n == 1) {
				if (our_dev[0])
					links_of(dir, AT_FDCWD);
			} else if ((fd = at_root(dir, 0, 1)) >= 0) {
				if (ours(fd))
					links_of(dir, fd);
				close(fd);
			}
		}
		prev = i;
	}
}
