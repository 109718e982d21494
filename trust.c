/* The front end's walks of paths before anything is confined: the policy
 * file (as doas checks its configuration), env.private and the rule paths
 * (DESIGN.md 2, 2.2, 4.1). Trusts nothing but root and the caller's real
 * uid; reads owners before any namespace exists (inside a user namespace
 * root's files would show as the overflow uid). Refusals: one line, 125. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "trust.h"

/* As the kernel's MAXSYMLINKS. */
#define MAX_LINKS 40

static int trusted_uid(uid_t uid)
{
	return uid == 0 || uid == getuid();
}

/* Why others could change what is in directory ST, or NULL. A sticky
 * directory lets nobody rename or remove an entry they do not own, and the
 * walks only ever accept trusted entries. */
static const char *dir_unsafe(const struct stat *st)
{
	if (!trusted_uid(st->st_uid))
		return "is owned by another user";
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX))
		return "is writable by group or others";
	return NULL;
}

/* A walk from "/": FD is an O_PATH descriptor of the directory reached,
 * PATH its symlink-free name, TODO[POS...] what is left to walk. */
struct walker {
	int fd;
	char path[PATH_MAX];
	char *todo;
	size_t pos;
	int links;
};

static void walk_start(struct walker *w, const char *path)
{
	w->fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (w->fd < 0)
		die(EXIT_REFUSED, "unable to open /");
	strcpy(w->path, "/");
	if (!(w->todo = strdup(path)))
		diex(EXIT_REFUSED, "out of memory");
	w->pos = 0;
	w->links = 0;
}

static void walk_end(struct walker *w)
{
	close(w->fd);
	free(w->todo);
}

/* The next component into NAME: 1, or 0 at the end, or -1 (errno) when
 * it is too long. */
static int walk_next(struct walker *w, char name[NAME_MAX + 1])
{
	const char *s = w->todo + w->pos;
	size_t len;

	while (*s == '/')
		s++;
	w->pos = (size_t)(s - w->todo);
	if (!*s)
		return 0;
	len = strcspn(s, "/");
	if (len > NAME_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(name, s, len);
	name[len] = '\0';
	w->pos += len;
	return 1;
}

/* What is left after the current component, without its leading slashes. */
static const char *walk_rest(const struct walker *w)
{
	const char *s = w->todo + w->pos;

	while (*s == '/')
		s++;
	return s;
}

static int path_join(char out[PATH_MAX], const char *dir, const char *name)
{
	int n = snprintf(out, PATH_MAX, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", name);

	if (n < 0 || n >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* Step into NFD, the entry NAME of the current directory. */
static int walk_down(struct walker *w, int nfd, const char *name)
{
	char p[PATH_MAX];

	if (path_join(p, w->path, name) < 0)
		return -1;
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

/* "." stays, ".." goes up: 1 when NAME was one of them, -1 (errno) when
 * going up failed, 0 for any other name. */
static int walk_dots(struct walker *w, const char *name)
{
	if (!strcmp(name, "."))
		return 1;
	if (!strcmp(name, ".."))
		return walk_up(w) < 0 ? -1 : 1;
	return 0;
}

/* Replace the symlink LFD (just met) by its target in what is left. */
static int walk_follow(struct walker *w, int lfd)
{
	char target[PATH_MAX], *todo;
	ssize_t n;

	if (++w->links > MAX_LINKS) {
		errno = ELOOP;
		return -1;
	}
	n = readlinkat(lfd, "", target, sizeof target);
	if (n < 0)
		return -1;
	if ((size_t)n >= sizeof target) {
		errno = ENAMETOOLONG;
		return -1;
	}
	target[n] = '\0';
	if (asprintf(&todo, "%s/%s", target, walk_rest(w)) < 0)
		diex(EXIT_REFUSED, "out of memory");
	free(w->todo);
	w->todo = todo;
	w->pos = 0;
	if (target[0] == '/') {
		int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (root < 0)
			return -1;
		close(w->fd);
		w->fd = root;
		strcpy(w->path, "/");
	}
	return 0;
}

/* --- the policy file --- */

static NORETURN void untrusted(const char *what, const char *path, const char *obj,
                               const char *why)
{
	die_hint(EXIT_REFUSED, 0, strcmp(what, "policy file") ?
	         "only root and the caller may be able to change it (chmod go-w; chown)" :
	         "only root and the caller may be able to change it "
	         "(chmod go-w; chown), or pin its hash with --expect-hash",
	         "refused: %s %s: %s %s", what, qn(path), obj, why);
}

static void check_file(int fd, const char *what, const char *path)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		die(EXIT_REFUSED, "unable to read %s", qn(path));
	if (!trusted_uid(st.st_uid))
		untrusted(what, path, "it", "is owned by another user");
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		untrusted(what, path, "it", "is writable by group or others");
}

int open_trusted(const char *path, const char *what)
{
	char name[NAME_MAX + 1], obj[PATH_MAX + 16];
	struct walker w;
	struct stat st;
	const char *why;
	int r, dots, fd = -1;

	if (!strcmp(path, "-")) {
		check_file(0, what, "standard input");
		return 0;
	}
	if (path[0] != '/') {
		char cwd[PATH_MAX], *abs;
		/* The directories above the working one count too. */
		if (!getcwd(cwd, sizeof cwd))
			die(EXIT_REFUSED, "unable to read %s", qn(path));
		if (asprintf(&abs, "%s/%s", cwd, path) < 0)
			diex(EXIT_REFUSED, "out of memory");
		walk_start(&w, abs);
		free(abs);
	} else {
		walk_start(&w, path);
	}
	while ((r = walk_next(&w, name)) > 0) {
		int nfd;

		if ((dots = walk_dots(&w, name)) < 0)
			break;
		if (dots)
			continue;
		if (fstat(w.fd, &st) < 0)
			break;
		if ((why = dir_unsafe(&st))) {
			snprintf(obj, sizeof obj, "directory %s", qn(w.path));
			untrusted(what, path, obj, why);
		}
		nfd = openat(w.fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0 || fstat(nfd, &st) < 0)
			break;
		if (S_ISLNK(st.st_mode)) {
			if (!trusted_uid(st.st_uid)) {
				char link[PATH_MAX];
				path_join(link, w.path, name);
				snprintf(obj, sizeof obj, "symlink %s", qn(link));
				untrusted(what, path, obj, "is owned by another user");
			}
			r = walk_follow(&w, nfd);
			close(nfd);
			if (r < 0)
				break;
			continue;
		}
		if (*walk_rest(&w)) {
			if (!S_ISDIR(st.st_mode)) {
				close(nfd);
				errno = ENOTDIR;
				break;
			}
			if (walk_down(&w, nfd, name) < 0)
				break;
			continue;
		}
		/* The last component: look before opening (a device can
		 * block or act when opened), then open it for good. */
		close(nfd);
		if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
			diex(EXIT_REFUSED, "unable to read %s: %s", qn(path), S_ISDIR(st.st_mode) ?
			     strerror(EISDIR) : "not a regular file or a pipe");
		fd = openat(w.fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		break;
	}
	if (fd < 0) {
		if (!r)
			errno = EISDIR;
		die(EXIT_REFUSED, "unable to read %s", qn(path));
	}
	walk_end(&w);
	check_file(fd, what, path);
	return fd;
}

void check_key_file(const char *path)
{
	/* "-" is a file of that name here, as key.c reads it. */
	close(open_trusted(strcmp(path, "-") ? path : "./-", "key file"));
}

/* --- env.private --- */

static NORETURN void private_refused(const char *dir, const char *why)
{
	die_hint(EXIT_REFUSED, 0, "env.private must be a directory of the caller's "
	         "that no other user can change, reached through such directories",
	         "refused: env.private: %s %s", qn(dir), why);
}

/* Step into (creating it if CREATE and missing) the directory NAME of
 * W's directory; 0, or 1 when it is missing and not created. LAST: it is
 * the private directory or one of its subdirectories, which must be the
 * caller's own; else an ancestor, which must be trusted. */
static int private_step(struct walker *w, const char *name, int create, int last)
{
	char p[PATH_MAX];
	struct stat st;
	const char *why;
	int nfd;

	if (path_join(p, w->path, name) < 0)
		die(EXIT_REFUSED, "unable to walk env.private %s", qn(w->path));
	if (fstat(w->fd, &st) < 0)
		die(EXIT_REFUSED, "unable to walk env.private %s", qn(w->path));
	if ((why = dir_unsafe(&st)))
		private_refused(w->path, why);
	if (create && mkdirat(w->fd, name, 0700) < 0 && errno != EEXIST)
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
	if (last && st.st_uid != getuid())
		private_refused(p, "is owned by another user");
	if (last && (st.st_mode & (S_IWGRP | S_IWOTH)))
		private_refused(p, "is writable by group or others");
	if (walk_down(w, nfd, name) < 0)
		die(EXIT_REFUSED, "unable to walk env.private %s", qn(p));
	return 0;
}

void make_private(const char *path, const char *const *subs, size_t nsubs, int create)
{
	char name[NAME_MAX + 1];
	struct walker w;
	mode_t mask = umask(077);
	int r;

	walk_start(&w, path);
	while ((r = walk_next(&w, name)) > 0)
		if (private_step(&w, name, create, !*walk_rest(&w)))
			goto out;
	if (r < 0)
		die(EXIT_REFUSED, "unable to walk env.private %s", qn(path));
	for (size_t i = 0; i < nsubs; i++) {
		if (private_step(&w, subs[i], create, 1))
			continue;
		/* Back up to the private directory, which only the caller
		 * can change, for the next one. */
		if (walk_up(&w) < 0)
			die(EXIT_REFUSED, "unable to walk env.private %s", qn(path));
	}
out:
	walk_end(&w);
	umask(mask);
}

/* --- rule paths --- */

int resolve_rule(const char *path, char *out, char *why, size_t whylen)
{
	char name[NAME_MAX + 1], link[PATH_MAX];
	struct walker w;
	struct stat st;
	int r, dots;

	walk_start(&w, path);
	while ((r = walk_next(&w, name)) > 0) {
		int nfd;

		if ((dots = walk_dots(&w, name)) < 0)
			goto fail;
		if (dots)
			continue;
		/* What cannot be looked at (missing, or a directory the
		 * caller may not search) goes to the helpers as it is: they
		 * skip a missing path, refuse one they cannot open, and
		 * follow no symlink either way. */
		nfd = openat(w.fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0 && (errno == ENOENT || errno == EACCES))
			goto as_is;
		/* Anything else (no descriptor left, no memory) must not
		 * hand on a path that was never looked at: a merged-/usr
		 * link would reach the helpers as a symlink. */
		if (nfd < 0)
			goto fail;
		if (fstat(nfd, &st) < 0) {
			close(nfd);
			goto fail;
		}
		if (S_ISLNK(st.st_mode)) {
			if (path_join(link, w.path, name) < 0)
				goto fail;
			if (!trusted_uid(st.st_uid)) {
				snprintf(why, whylen, "symlink %s is owned by uid %lu, "
				         "not by root or the caller", q(link),
				         (unsigned long)st.st_uid);
				close(nfd);
				walk_end(&w);
				return -1;
			}
			r = walk_follow(&w, nfd);
			close(nfd);
			if (r < 0)
				goto fail;
			continue;
		}
		if (!S_ISDIR(st.st_mode) && *walk_rest(&w)) {
			close(nfd);
			goto as_is;
		}
		if (walk_down(&w, nfd, name) < 0)
			goto fail;
	}
	if (r < 0)
		goto fail;
	strcpy(out, w.path);
	walk_end(&w);
	return 0;
as_is:
	if (path_join(link, w.path, name) < 0 ||
	    snprintf(out, PATH_MAX, "%s%s%s", link, *walk_rest(&w) ? "/" : "",
	             walk_rest(&w)) >= PATH_MAX) {
		errno = ENAMETOOLONG;
		goto fail;
	}
	walk_end(&w);
	return 0;
fail:
	snprintf(why, whylen, "unable to resolve it: %s", strerror(errno));
	walk_end(&w);
	return -1;
}
