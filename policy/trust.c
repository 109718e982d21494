/* The front end's walks of paths before anything is confined (trust.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>

#include "common.h"
#include "trust.h"

/* As the kernel's MAXSYMLINKS. */
#define MAX_LINKS 40

/* run --user's user (trust_as_user), or none. */
static struct { int on; uid_t uid; gid_t gid; const char *groups; } as_user;

void trust_as_user(uid_t uid, gid_t gid, const char *groups)
{
	as_user.on = 1;
	as_user.uid = uid;
	as_user.gid = gid;
	as_user.groups = groups;
}

static int trusted_uid(uid_t uid)
{
	return uid == 0 || (!as_user.on && uid == getuid());
}

/* Why others could change ST, or what is in it, or NULL. A sticky
 * directory lets nobody rename or remove an entry they do not own, and the
 * walks only ever accept trusted entries. */
static const char *unsafe(const struct stat *st)
{
	if (!trusted_uid(st->st_uid))
		return "is owned by another user";
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) &&
	    !(S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX)))
		return "is writable by group or others";
	return NULL;
}

/* DIR/NAME into OUT (DIR alone when NAME is empty); -1 (errno) when too
 * long. By hand, not snprintf: a walk joins at each step, and printf's
 * machinery was a fifth of the front end's instructions. */
static int path_join(char out[PATH_MAX], const char *dir, const char *name)
{
	size_t d = strlen(dir), n = strlen(name), sep = *name && strcmp(dir, "/");

	if (d + sep + n >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memmove(out, dir, d);
	if (sep)
		out[d] = '/';
	memmove(out + d + sep, name, n + 1);
	return 0;
}

/* A walk from "/", one component at a time: FD is an O_PATH descriptor of
 * the directory reached, PATH its symlink-free name, REST what is left to
 * walk (in TODO), with no leading slash. */
struct walker {
	int fd;
	char path[PATH_MAX];
	char todo[PATH_MAX];
	const char *rest;
	int links;
	int loud;		/* a link was followed that is not root's in "/" */
	char why[3 * QUOTED_MAX + 128];	/* why a link is refused */
};

/* Go to "/" (again, after an absolute symlink). */
static int walk_root(struct walker *w)
{
	/* openat, not open: musl's open adds an F_SETFD for O_CLOEXEC. */
	int root = openat(AT_FDCWD, "/", O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (root < 0)
		return -1;
	if (w->fd >= 0)
		close(w->fd);
	w->fd = root;
	strcpy(w->path, "/");
	return 0;
}

static int walk_start(struct walker *w, const char *path)
{
	w->fd = -1;
	w->links = w->loud = 0;
	if (path_join(w->todo, path, "") < 0)
		return -1;
	w->rest = w->todo + strspn(w->todo, "/");
	return walk_root(w);
}

/* The next component into NAME: its length, 0 at the end, or -1 (errno)
 * when it is too long. */
static int walk_next(struct walker *w, char name[NAME_MAX + 1])
{
	size_t len = strcspn(w->rest, "/");

	if (len > NAME_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(name, w->rest, len);
	name[len] = '\0';
	w->rest += len;
	w->rest += strspn(w->rest, "/");
	return (int)len;
}

/* Step into NFD, the entry NAME of the directory reached. */
static int walk_down(struct walker *w, int nfd, const char *name)
{
	char p[PATH_MAX];

	if (path_join(p, w->path, name) < 0) {
		close(nfd);
		return -1;
	}
	strcpy(w->path, p);
	close(w->fd);
	w->fd = nfd;
	return 0;
}

static int walk_up(struct walker *w)
{
	int nfd = openat(w->fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
	char *slash;

	if (nfd < 0)
		return -1;
	close(w->fd);
	w->fd = nfd;
	slash = strrchr(w->path, '/');
	if (slash == w->path)
		slash[1] = '\0';
	else
		*slash = '\0';
	return 0;
}

/* Put the target of the symlink LFD, just met, in front of what is left. */
static int walk_follow(struct walker *w, int lfd)
{
	char target[PATH_MAX], todo[PATH_MAX];
	ssize_t n = readlinkat(lfd, "", target, sizeof target);

	if (n < 0)
		return -1;
	if (++w->links > MAX_LINKS) {
		errno = ELOOP;
		return -1;
	}
	if ((size_t)n >= sizeof target) {
		errno = ENAMETOOLONG;
		return -1;
	}
	target[n] = '\0';
	if (path_join(todo, target, w->rest) < 0)
		return -1;
	strcpy(w->todo, todo);
	w->rest = w->todo + strspn(w->todo, "/");
	return target[0] == '/' ? walk_root(w) : 0;
}

/* --- the symlink rule of rule paths (DESIGN.md 2) ---
 *
 * A confined target runs as its uid without capabilities, so whatever it
 * can write, an earlier run of it could have planted a link in. A link on
 * a rule path is followed only when its owner is trusted (root or the
 * caller; under --user root alone) and its directory is one the target's
 * uid cannot write by DAC:
 * - the directory is not the target's uid's: its owner may chmod it back
 *   to writable, so its mode bits do not count (an earlier run could have
 *   planted the link and then taken u+w away);
 * - it is not writable by others, nor by its group where the target is in
 *   that group or an ACL may name the target (the group bits are then the
 *   ACL's mask); a group the target is not in can plant only links of its
 *   members' own, which the owner rule refuses;
 * - a sticky directory that is not the target's keeps a link that is not
 *   the target's: the target cannot have made it, nor put another in its
 *   place.
 * For a root target every directory root owns is its to write, and so is
 * refused, but for the host's "/" itself: a confined run writes the host's
 * / only through a policy that writes "/", which hands it every file of
 * the host already, so the merged-/usr links there redirect nothing more.
 * Whoever else could write a directory, a link there that is not theirs
 * they could only remove or rename, never point elsewhere. */

/* The target's uid and groups: the caller's, or --user's user's. */
static uid_t target_uid(void)
{
	return as_user.on ? as_user.uid : getuid();
}

static int target_in_group(gid_t gid)
{
	gid_t list[256];
	int n;

	if (as_user.on) {
		const char *p = as_user.groups;
		char *end;
		if (gid == as_user.gid)
			return 1;
		for (; p && *p; p = *end ? end + 1 : end) {
			unsigned long g = strtoul(p, &end, 10);
			if (end == p)
				break;
			if (g == gid)
				return 1;
		}
		return 0;
	}
	if (gid == getgid() || gid == getegid())
		return 1;
	/* More groups than fit: count the directory's among them. */
	if ((n = getgroups(sizeof list / sizeof *list, list)) < 0)
		return 1;
	for (int i = 0; i < n; i++)
		if (list[i] == gid)
			return 1;
	return 0;
}

/* Why the target could have planted the link LINK (its status ST, its
 * name NAME) in W's directory, into W->why; 0 when it could not. */
static int planted(struct walker *w, int lfd, const char *name, const struct stat *st)
{
	char link[PATH_MAX], to[PATH_MAX], how[96] = "";
	struct stat d;
	uid_t uid = target_uid();
	ssize_t n;

	if (path_join(link, w->path, name) < 0 || fstat(w->fd, &d) < 0) {
		snprintf(w->why, sizeof w->why, "unable to resolve it: %s", strerror(errno));
		return 1;
	}
	if (!trusted_uid(st->st_uid)) {
		snprintf(w->why, sizeof w->why, "symlink %s is owned by uid %lu, not by root%s",
		         q(link), (unsigned long)st->st_uid, as_user.on ? " (--user)" :
		         " or the caller");
		return 1;
	}
	if (d.st_mode & S_ISVTX && d.st_uid != uid && st->st_uid != uid)
		;
	else if (d.st_uid == uid && !(uid == 0 && !strcmp(w->path, "/") &&
	                              !(d.st_mode & (S_IWGRP | S_IWOTH))))
		snprintf(how, sizeof how, "uid %lu owns", (unsigned long)uid);
	else if (d.st_mode & S_IWOTH)
		snprintf(how, sizeof how, "everyone may write");
	else if (d.st_mode & S_IWGRP && target_in_group(d.st_gid))
		snprintf(how, sizeof how, "its group (gid %lu), which uid %lu is in, may "
		         "write", (unsigned long)d.st_gid, (unsigned long)uid);
	else if (d.st_mode & S_IWGRP &&
	         (lgetxattr(w->path, "system.posix_acl_access", NULL, 0) >= 0 || errno == ERANGE))
		snprintf(how, sizeof how, "its ACL may let uid %lu write", (unsigned long)uid);
	if (!*how) {
		w->loud |= st->st_uid != 0 || strcmp(w->path, "/");
		return 0;
	}
	/* Its target, for the words alone: walk_follow reads it to follow. */
	n = readlinkat(lfd, "", to, sizeof to - 1);
	to[n < 0 ? 0 : n] = '\0';
	snprintf(w->why, sizeof w->why, "symlink %s (to %s) lies in %s, which %s: an "
	         "earlier run as uid %lu could have planted it", q(link), q(to), q(w->path),
	         how, (unsigned long)uid);
	return 1;
}

/* How walk() ended. */
enum { WALK_END, WALK_STOP, WALK_LINK, WALK_DIR };

/* Walk W to the last component of its path, NAME, with its status in ST
 * and W at the directory it is in (NAME is empty when the path ends in a
 * directory already reached: "/", ".."). "." stays, ".." goes up, a
 * symlink is followed only when trusted (DIRS 1) or, for a rule path (DIRS
 * 0, or 2 with the directories checked too), when the target cannot have
 * planted it (planted()). Or stop early: WALK_STOP at a
 * component that is missing or cannot be searched, or at a non-directory
 * with more to walk (errno ENOENT, EACCES or ENOTDIR); WALK_LINK at the
 * symlink NAME not followed (its status in ST; for a rule path, why in
 * W->why); with DIRS, WALK_DIR before
 * looking in a directory others can change (its status in ST). -1 (errno)
 * when the walk fails otherwise. */
static int walk(struct walker *w, char name[NAME_MAX + 1], struct stat *st, int dirs)
{
	int r, nfd;

	while ((r = walk_next(w, name)) > 0) {
		if (!strcmp(name, "."))
			continue;
		if (!strcmp(name, "..")) {
			if (walk_up(w) < 0)
				return -1;
			continue;
		}
		if (dirs && fstat(w->fd, st) < 0)
			return -1;
		if (dirs && unsafe(st))
			return WALK_DIR;
		nfd = openat(w->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0)
			return errno == ENOENT || errno == EACCES ? WALK_STOP : -1;
		if (fstat(nfd, st) < 0) {
			close(nfd);
			return -1;
		}
		if (S_ISLNK(st->st_mode)) {
			if (dirs == 1)
				r = trusted_uid(st->st_uid) ? walk_follow(w, nfd) : WALK_LINK;
			else
				r = planted(w, nfd, name, st) ? WALK_LINK : walk_follow(w, nfd);
			close(nfd);
			if (r)
				return r;
			continue;
		}
		if (!*w->rest) {
			close(nfd);
			return WALK_END;
		}
		if (!S_ISDIR(st->st_mode)) {
			close(nfd);
			errno = ENOTDIR;
			return WALK_STOP;
		}
		if (walk_down(w, nfd, name) < 0)
			return -1;
	}
	return r < 0 ? -1 : WALK_END;
}

/* --- the policy file, and the keys --- */

static NORETURN void untrusted(const char *what, const char *path, const char *obj,
                               const char *why)
{
	die_hint(EXIT_REFUSED, 0, as_user.on ? "under --user only root may be able to "
	         "change it: an earlier run as that user could have planted it" :
	         strcmp(what, "policy file") ?
	         "only root and the caller may be able to change it (chmod go-w; chown)" :
	         "only root and the caller may be able to change it "
	         "(chmod go-w; chown), or pin its hash with --expect-hash",
	         "refused: %s %s: %s %s", what, qn(path), obj, why);
}

static void check_file(int fd, const char *what, const char *path)
{
	struct stat st;
	const char *why;

	if (fstat(fd, &st) < 0)
		die(EXIT_REFUSED, "unable to read %s", qn(path));
	if ((why = unsafe(&st)))
		untrusted(what, path, "it", why);
}

int open_trusted(const char *path, const char *what)
{
	char cwd[PATH_MAX] = "/", abs[PATH_MAX], name[NAME_MAX + 1], obj[PATH_MAX + 16];
	struct walker w;
	struct stat st;
	int r, fd = -1;

	if (!strcmp(path, "-")) {
		check_file(0, what, "standard input");
		return 0;
	}
	/* The directories above the working one count too. */
	if (path[0] != '/' && !getcwd(cwd, sizeof cwd))
		die(EXIT_REFUSED, "unable to read %s", qn(path));
	r = path_join(abs, cwd, path) < 0 || walk_start(&w, abs) < 0 ? -1 :
	    walk(&w, name, &st, 1);
	if (r == WALK_DIR) {
		snprintf(obj, sizeof obj, "directory %s", qn(w.path));
		untrusted(what, path, obj, unsafe(&st));
	}
	if (r == WALK_LINK) {
		path_join(abs, w.path, name);
		snprintf(obj, sizeof obj, "symlink %s", qn(abs));
		untrusted(what, path, obj, "is owned by another user");
	}
	if (r == WALK_END && (!*name || S_ISDIR(st.st_mode))) {
		errno = EISDIR;
		r = -1;
	}
	if (r == WALK_END) {
		/* Look before opening (a device can block or act when
		 * opened), then open it for good. */
		if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
			diex(EXIT_REFUSED, "unable to read %s: not a regular file or a pipe",
			     qn(path));
		fd = openat(w.fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	}
	if (fd < 0)
		die(EXIT_REFUSED, "unable to read %s", qn(path));
	close(w.fd);
	check_file(fd, what, path);
	return fd;
}

/* --- env.private --- */

static NORETURN void private_refused(const char *dir, const char *why)
{
	die_hint(EXIT_REFUSED, 0, as_user.on ? "under --user env.private must be a "
	         "directory of that user's, reached through directories only root can change" :
	         "env.private must be a directory of the caller's "
	         "that no other user can change, reached through such directories",
	         "refused: env.private: %s %s", qn(dir), why);
}

/* Why a directory of env.private's own is not safe, or NULL: it must be
 * the caller's, or under --user that user's. */
static const char *private_unsafe(const struct stat *st)
{
	if (st->st_uid != (as_user.on ? as_user.uid : getuid()))
		return "is owned by another user";
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return "is writable by group or others";
	return NULL;
}

/* Make the directory NAME of FD, and under --user give it to the user
 * when OWN, or leave it searchable when not. 0, or -1 (errno). */
static int private_mkdir(int fd, const char *name, int own)
{
	if (mkdirat(fd, name, own || !as_user.on ? 0700 : 0711) < 0)
		return -1;
	if (own && as_user.on)
		return fchownat(fd, name, as_user.uid, as_user.gid, AT_SYMLINK_NOFOLLOW);
	return 0;
}

/* Step into (creating it if CREATE and missing) the directory NAME of
 * W's directory; 0, or 1 when it is missing and not created. OWN: 1 for
 * the private directory, 2 for one of its subdirectories, which must be
 * the owner's (the caller's, or --user's user); 0 for an ancestor, which
 * must be trusted. */
static int private_step(struct walker *w, const char *name, int create, int own)
{
	char p[PATH_MAX];
	struct stat st;
	const char *why;
	int nfd;

	if (path_join(p, w->path, name) < 0 || fstat(w->fd, &st) < 0)
		die(EXIT_REFUSED, "unable to walk env.private %s", qn(w->path));
	if ((why = own == 2 ? private_unsafe(&st) : unsafe(&st)))
		private_refused(w->path, why);
	if (create && private_mkdir(w->fd, name, own) < 0 && errno != EEXIST)
		die(EXIT_REFUSED, "unable to create private directory %s", qn(p));
	nfd = openat(w->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (nfd < 0 && errno == ENOENT && !create)
		return 1;
	if (nfd < 0 || fstat(nfd, &st) < 0)
		die(EXIT_REFUSED, "unable to open private directory %s", qn(p));
	if (S_ISLNK(st.st_mode))
		private_refused(p, "is a symlink");
	if (!S_ISDIR(st.st_mode))
		private_refused(p, "is not a directory");
	if (own && (why = private_unsafe(&st)))
		private_refused(p, why);
	if (walk_down(w, nfd, name) < 0)
		die(EXIT_REFUSED, "unable to walk env.private %s", qn(p));
	return 0;
}

void make_private(const char *path, const char *const *subs, size_t nsubs, int create)
{
	char name[NAME_MAX + 1];
	struct walker w;
	mode_t mask = umask(as_user.on ? 066 : 077);
	int r;

	if (walk_start(&w, path) < 0)
		die(EXIT_REFUSED, "unable to walk env.private %s", qn(path));
	while ((r = walk_next(&w, name)) > 0)
		if (private_step(&w, name, create, !*w.rest))
			goto out;
	if (r < 0)
		die(EXIT_REFUSED, "unable to walk env.private %s", qn(path));
	for (size_t i = 0; i < nsubs; i++) {
		if (private_step(&w, subs[i], create, 2))
			continue;
		/* Back up to the private directory, which only the caller
		 * can change, for the next one. */
		if (walk_up(&w) < 0)
			die(EXIT_REFUSED, "unable to walk env.private %s", qn(path));
	}
out:
	close(w.fd);
	umask(mask);
}

/* --- rule paths --- */

/* 1 when PATH, absolute and in its plain form (no ".", "..", "//" or
 * trailing "/"), opens with no symlink anywhere on its way: then it is
 * its own resolved path, in one system call rather than three a
 * component (at 10,000 rules, 140,000 calls). */
static int plain_and_symlink_free(const char *path)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_NO_SYMLINKS };
	const char *p;
	long fd;

	if (path[0] != '/' || strlen(path) >= PATH_MAX || (path[1] && path[strlen(path) - 1] == '/'))
		return 0;
	for (p = path; (p = strchr(p, '/')); p++)
		if (p[1] == '/' || (p[1] == '.' && (!p[2] || p[2] == '/' ||
		                                     (p[2] == '.' && (!p[3] || p[3] == '/')))))
			return 0;
	if ((fd = syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how)) < 0)
		return 0;
	close((int)fd);
	return 1;
}

int resolve_rule(const char *path, char *out, char *why, size_t whylen)
{
	char name[NAME_MAX + 1], link[PATH_MAX];
	struct walker w;
	struct stat st;
	int r;

	if (plain_and_symlink_free(path)) {
		strcpy(out, path);
		return 0;
	}
	r = walk_start(&w, path) < 0 ? -1 : walk(&w, name, &st, 0);

	if (r != -1 && path_join(link, w.path, name) < 0)
		r = -1;
	/* What cannot be looked at (missing, or a directory the caller may
	 * not search) goes to the helpers as it is: they skip a missing path,
	 * refuse one they cannot open, and follow no symlink either way.
	 * Anything else (no descriptor left, no memory) must not hand on a
	 * path that was never looked at: a merged-/usr link would reach the
	 * helpers as a symlink. */
	if (r == WALK_END || r == WALK_STOP)
		r = path_join(out, link, w.rest);
	if (r == WALK_LINK)
		snprintf(why, whylen, "%s", w.why);
	else if (r < 0)
		snprintf(why, whylen, "unable to resolve it: %s", strerror(errno));
	if (w.fd >= 0)
		close(w.fd);
	return r == 0 ? w.loud : -1;
}

/* --- a directory written into (trust.h) --- */

int open_trusted_dir(const char *path, int rule_links, char *out, char *why,
                     size_t whylen)
{
	char name[NAME_MAX + 1];
	struct walker w;
	struct stat st;
	const char *bad = NULL;
	int r = walk_start(&w, path) < 0 ? -1 : walk(&w, name, &st, rule_links ? 2 : 1), fd = -1;

	if (r == WALK_END && path_join(out, w.path, name) == 0 &&
	    (fd = *name ? openat(w.fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) :
	     dup(w.fd)) >= 0 && fstat(fd, &st) == 0 && !(bad = unsafe(&st))) {
		close(w.fd);
		return fd;
	}
	if (r == WALK_END && fd >= 0)
		snprintf(why, whylen, "directory %s %s", q(out), bad);
	else if (r == WALK_DIR)
		snprintf(why, whylen, "directory %s %s", q(w.path), unsafe(&st));
	else if (r == WALK_LINK && rule_links)
		snprintf(why, whylen, "%s", w.why);
	else if (r == WALK_LINK)
		snprintf(why, whylen, "symlink %s in %s is owned by another user", q(name),
		         q(w.path));
	else
		snprintf(why, whylen, "unable to open the directory %s: %s", q(path),
		         strerror(errno));
	if (fd >= 0)
		close(fd);
	if (w.fd >= 0)
		close(w.fd);
	return -1;
}
