/* sharness-exec-explain: what each traced call that failed means (explain.h):
 * given the access it was (explaincall.c), whether its path exists outside
 * the run, and the policy change that would allow it; the list of denials
 * and its printer.
 * Existence is decided as the caller (the step runs before the view, in
 * the host's mount namespace), walking the host component by component with fstatat
 * (AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT), opening nothing and following no
 * symlink that lies beneath a write path (the target could have planted
 * it). Advisory: under races the path shown may differ from the one the
 * kernel refused; nothing here changes what the target may do. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "common.h"
#include "exitcodes.h"
#include "explain.h"
#include "helper.h"
#include "text.h"

#ifndef AT_NO_AUTOMOUNT
# define AT_NO_AUTOMOUNT 0x800
#endif

struct denials denials;

/* --- the policy, as the observer was told it --- */

static struct { char *path; int rights; } *rules;
static size_t nrules;
int host_net;
unsigned proxy_port;
/* -s: the host sockets the policy names (files.sockets). */
static char **sockets;
static size_t nsockets;

static int socket_named(const char *path)
{
	for (size_t i = 0; i < nsockets; i++)
		if (!strcmp(sockets[i], path))
			return 1;
	return 0;
}

int explain_option(int c, const char *arg, const char *usage)
{
	int r = c == 'r' ? R_READ : c == 'x' ? R_READ | R_EXEC : R_READ | R_EXEC | R_WRITE;

	unsigned long v;

	switch (c) {
	case 'N': host_net = 1; return 1;
	case 'P':
		if (!parse_ulong(arg, 1, 65535, &v))
			usage_fail(usage, "unable to parse --proxy %s: not a port 1 to 65535", qn(arg));
		proxy_port = (unsigned)v;
		return 1;
	case 'r': case 'x': case 'w': case 's': break;
	default: return 0;
	}
	if (arg[0] != '/')
		usage_fail(usage, "-%c needs an absolute path, not %s", c, q(arg));
	if (c == 's') {
		if (!(sockets = reallocarray(sockets, nsockets + 1, sizeof *sockets)) ||
		    !(sockets[nsockets++] = strdup(arg)))
			diex(EXIT_CONFINE, "out of memory");
		return 1;
	}
	if (!(rules = reallocarray(rules, nrules + 1, sizeof *rules)) ||
	    !(rules[nrules].path = strdup(arg)))
		diex(EXIT_CONFINE, "out of memory");
	rules[nrules++].rights = r;
	return 1;
}

int explain_scope(void)
{
	char scope[8] = "";
	int fd;
	ssize_t n;

	fd = open("/proc/sys/kernel/yama/ptrace_scope", O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, scope, sizeof scope - 1) : -1;
	if (fd >= 0)
		close(fd);
	return n > 0 ? atoi(scope) : 0;
}

void explain_check(void)
{
	/* Yama's ptrace_scope 3 forbids every attach, to our own child too. */
	if (explain_scope() >= 3)
		die_hint(EXIT_CONFINE, 0, "run without --explain, or lower kernel.yama.ptrace_scope "
		         "(it cannot be lowered from 3 without a reboot)",
		         "refused: --explain traces the command, and Yama's "
		         "kernel.yama.ptrace_scope is 3, which forbids every ptrace attach");
}

/* The rights the policy grants at PATH: those of every rule path it lies
 * beneath. */
static int granted(const char *path)
{
	int r = 0;

	for (size_t i = 0; path && i < nrules; i++)
		if (path_beneath(path, rules[i].path))
			r |= rules[i].rights;
	return r;
}

static int beneath_write(const char *path)
{
	return (granted(path) & R_WRITE) != 0;
}

/* --- paths --- */

/* OUT (PATH_MAX): BASE/PATH (PATH alone when absolute), with ".", ".."
 * and repeated slashes taken out by name; -1 if too long. */
static int normalize(char *out, const char *base, const char *path)
{
	char in[2 * PATH_MAX + 2];
	size_t o = 0;
	const char *s, *e;

	if (snprintf(in, sizeof in, "%s/%s", path[0] == '/' ? "" : base, path) >= (int)sizeof in)
		return -1;
	for (s = in; *s; s = e) {
		while (*s == '/')
			s++;
		e = s + strcspn(s, "/");
		if (e == s || (e - s == 1 && s[0] == '.'))
			continue;
		if (e - s == 2 && s[0] == '.' && s[1] == '.') {
			while (o > 0 && out[--o] != '/')
				;
			continue;
		}
		if (o + 1 + (size_t)(e - s) >= PATH_MAX)
			return -1;
		out[o++] = '/';
		memcpy(out + o, s, (size_t)(e - s));
		o += (size_t)(e - s);
	}
	if (!o)
		out[o++] = '/';
	out[o] = '\0';
	return 0;
}

/* PATH's directory, in OUT (PATH_MAX); "/" for "/" itself. */
static void parent_of(char *out, const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash && slash != path ? (size_t)(slash - path) : 1;

	memcpy(out, path, n);
	out[n] = '\0';
}

enum { ABSENT, EXISTS, UNKNOWN, PLANTED };

/* Does PATH (absolute, normalized) exist on the host? Walks it one
 * component at a time, following symlinks by readlink (at most 40) but
 * none beneath a write path (PLANTED: the target could have put it
 * there); RESOLVED gets where it led, MODE its type. */
static int host_walk(const char *path, char *resolved, mode_t *mode)
{
	char rest[PATH_MAX], cur[PATH_MAX], link[PATH_MAX], next[PATH_MAX];
	struct stat st;
	int hops = 0;
	size_t c;
	const char *s, *e;

	*mode = S_IFDIR;
	snprintf(rest, sizeof rest, "%s", path);
again:
	c = 0;
	cur[0] = '\0';
	for (s = rest; *s; s = e) {
		while (*s == '/')
			s++;
		if (!*s)
			break;
		e = s + strcspn(s, "/");
		if (c + 1 + (size_t)(e - s) >= sizeof cur)
			return UNKNOWN;
		cur[c++] = '/';
		memcpy(cur + c, s, (size_t)(e - s));
		cur[c += (size_t)(e - s)] = '\0';
		if (fstatat(AT_FDCWD, cur, &st, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT) < 0)
			return errno == ENOENT || errno == ENOTDIR ? ABSENT : UNKNOWN;
		if (S_ISLNK(st.st_mode)) {
			ssize_t n;

			if (beneath_write(cur))
				return PLANTED;
			if (++hops > 40 || (n = readlink(cur, link, sizeof link - 1)) < 0)
				return UNKNOWN;
			link[n] = '\0';
			cur[c - (size_t)(e - s) - 1] = '\0'; /* the link's directory */
			if (snprintf(next, sizeof next, "%s/%s", link, e) >= (int)sizeof next ||
			    normalize(rest, cur[0] ? cur : "/", next) < 0)
				return UNKNOWN;
			goto again;
		}
		*mode = st.st_mode & S_IFMT;
		if (*e && !S_ISDIR(*mode))
			return ABSENT;
	}
	snprintf(resolved, PATH_MAX, "%s", c ? cur : "/");
	return EXISTS;
}

/* --- the list --- */

void record(const char *kind, const char *what, int err, const char *status,
            const char *allow, const char *why)
{
	struct denial *d;

	for (size_t i = 0; i < denials.n; i++) {
		d = &denials.v[i];
		if (d->err == err && !strcmp(d->kind, kind) && !strcmp(d->what, what)) {
			d->count++;
			return;
		}
	}
	if (denials.n >= DENIALS_MAX) {
		denials.dropped++;
		return;
	}
	if (denials.n == denials.cap) {
		size_t cap = denials.cap ? 2 * denials.cap : 16;
		struct denial *v = reallocarray(denials.v, cap, sizeof *v);

		if (!v) {
			denials.dropped++;
			return;
		}
		denials.v = v;
		denials.cap = cap;
	}
	d = &denials.v[denials.n];
	*d = (struct denial){ kind, strdup(what), err, status, allow ? strdup(allow) : NULL, why, 1 };
	if (!d->what || (allow && !d->allow)) {
		free(d->what);
		free(d->allow);
		denials.dropped++;
		return;
	}
	denials.n++;
}

/* S as a JSON string into OUT (SIZE bytes). */
static void json_string(char *out, size_t size, const char *s)
{
	size_t o = 0;

	out[o++] = '"';
	for (; *s && o + 8 < size; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			o += (size_t)snprintf(out + o, size - o, "\\%c", ch);
		else if (ch < 0x20 || ch == 0x7f)
			o += (size_t)snprintf(out + o, size - o, "\\u%04x", ch);
		else
			out[o++] = (char)ch;
	}
	out[o++] = '"';
	out[o] = '\0';
}

static const char *right_name(int need)
{
	return need == R_WRITE ? "write" : need == R_EXEC ? "exec" : "read";
}

/* The path a suggestion names for TARGET (NEED at it): a file's directory
 * with SUGGEST_DIR (its neighbours come with it), but not for a directory
 * itself, nor for a device or a socket; and /dev whole for the host's
 * ptys, which check refuses by name (policy/policyfiles.c: the view makes
 * /dev named whole a private devpts). */
static void suggestion(char *sug, const char *target, mode_t mode, int exists, int suggest_dir)
{
	if (suggest_dir && exists && S_ISREG(mode) && strcmp(target, "/"))
		parent_of(sug, target);
	else
		snprintf(sug, PATH_MAX, "%s", target);
	if (!strcmp(sug, "/dev/ptmx") || path_beneath(sug, "/dev/pts"))
		snprintf(sug, PATH_MAX, "/dev");
}

/* Beyond FOLD distinct paths of one directory with the same kind, errno
 * and status (a pty scan, a search through many names), the rest are
 * counted in one line, the directory's path and "/" "*". 1 when PATH
 * was folded in. */
#define FOLD 8

static int folded(const char *kind, const char *path, int err, const char *status,
                  const char *allow)
{
	char dir[PATH_MAX], other[PATH_MAX], star[PATH_MAX + 2];
	unsigned same = 0;

	parent_of(dir, path);
	for (size_t i = 0; i < denials.n && same < FOLD; i++) {
		const struct denial *d = &denials.v[i];

		if (d->err != err || strcmp(d->kind, kind) || strcmp(d->status, status) ||
		    !strcmp(d->what, path))
			continue;
		parent_of(other, d->what);
		same += !strcmp(other, dir);
	}
	if (same < FOLD)
		return 0;
	snprintf(star, sizeof star, "%s/*", strcmp(dir, "/") ? dir : "");
	record(kind, star, err, status, allow, NULL);
	return 1;
}

/* KIND of PATH (absolute, or NULL where the observer could not tell;
 * SHOWN is then what the target named) failed with ERR. The right NEED is
 * needed at PATH, or with PARENT at its directory (a create, a remove);
 * with SUGGEST_DIR the change names the directory of a file (a read, an
 * exec), else the path itself. Through a symlink the right is needed
 * where it leads, and the link's own path must be in the view: the change
 * names both. Recorded only if the policy is why. */
void record_path(const char *kind, const char *path, const char *shown, int err,
                 int need, int parent, int suggest_dir)
{
	char target[PATH_MAX], resolved[PATH_MAX] = "", sug[PATH_MAX], link[PATH_MAX];
	char js[6 * PATH_MAX + 3], jl[6 * PATH_MAX + 3], allow[12 * PATH_MAX + 64];
	const char *status;
	int host, g, linked;
	mode_t mode;

	if (!path) {
		record(kind, shown, err, "unknown", NULL,
		       "a path relative to a directory the observer could not name");
		return;
	}
	if (parent)
		parent_of(target, path);
	else
		snprintf(target, sizeof target, "%s", path);
	g = granted(target);
	host = host_walk(target, resolved, &mode);
	linked = host == EXISTS && strcmp(resolved, target);
	/* Through a link, the right counts where it leads (the view
	 * recreates a policy path's own links, as merged /usr's). */
	if (linked)
		g = granted(resolved);
	/* An exec's search of PATH tries every directory: only a program
	 * that is there, hidden, is worth a line. */
	if (need == R_EXEC && err == ENOENT && host != EXISTS)
		return;
	/* The policy grants it: the refusal is not the policy's (a mode, an
	 * owner, a file that is not there), or it lies beyond a link. */
	if ((g & need) == need) {
		if (host == PLANTED)
			record(kind, path, err, "unknown", NULL, "the path goes through a symlink "
			       "beneath a write path, which the observer does not follow");
		return;
	}
	if (host == ABSENT) {
		/* Beneath a policy path, an absent file is just absent. */
		if (g)
			return;
		record(kind, path, err, "absent", NULL, "it exists nowhere, outside the run either");
		return;
	}
	suggestion(sug, linked ? resolved : target, mode, host == EXISTS, suggest_dir);
	json_string(js, sizeof js, sug);
	if (linked && !granted(target))
		suggestion(link, target, S_IFREG, 1, suggest_dir);
	/* One path beneath the other names both (/proc/mounts leads to
	 * /proc/PID/mounts). */
	if (linked && !granted(target) && path_beneath(sug, link))
		json_string(js, sizeof js, link);
	if (linked && !granted(target) && !path_beneath(sug, link) && !path_beneath(link, sug)) {
		json_string(jl, sizeof jl, link);
		snprintf(allow, sizeof allow, "\"files\": {\"%s\": [%s, %s]}", right_name(need),
		         jl, js);
	} else {
		snprintf(allow, sizeof allow, "\"files\": {\"%s\": [%s]}", right_name(need), js);
	}
	status = host != EXISTS ? "unknown" : g ? "refused by the policy" : "hidden by the policy";
	if (!folded(kind, path, err, status, allow))
		record(kind, path, err, status, allow, NULL);
}

/* A connect(2) to the UNIX socket PATH (absolute, or NULL) failed with
 * ERR. A socket of the host that files.sockets does not name is reached
 * only when it does, whatever path holds it (sharness-exec-policy(5)):
 * hidden (ENOENT), refused by Landlock ABI 9 (EACCES), or, beneath a
 * write path, covered by the view (ECONNREFUSED: an empty read-only file
 * over it, below ABI 9; or nothing listens there). Returns 1 when that
 * was it, recorded with files.sockets as the change that allows it (or
 * nothing, for a socket the policy names); 0 to weigh it as a path. */
int record_unix_connect(const char *path, int err)
{
	char resolved[PATH_MAX], js[6 * PATH_MAX + 3], allow[6 * PATH_MAX + 64];
	const char *status;
	mode_t mode;

	if (!path || host_walk(path, resolved, &mode) != EXISTS || !S_ISSOCK(mode))
		return 0;
	if (socket_named(path) || socket_named(resolved))
		return 1;
	if (err == ECONNREFUSED && beneath_write(path))
		status = "covered by the view (or nothing listens there)";
	else if (err == ENOENT || err == EACCES)
		status = granted(path) ? "refused by the policy" : "hidden by the policy";
	else
		return 0;
	json_string(js, sizeof js, path);
	snprintf(allow, sizeof allow, "\"files\": {\"sockets\": [%s]}", js);
	record("connect to UNIX socket", path, err, status, allow, NULL);
	return 1;
}

/* The absolute path a call names: NAME against DIRFD (AT_FDCWD: CWD);
 * NULL when the base is not known. */
const char *absolute(pid_t pid, int dirfd, const char *name, const char *cwd, char *out)
{
	char base[PATH_MAX];

	if (name[0] != '/') {
		if (dirfd != AT_FDCWD) {
			if (fd_path(pid, dirfd, base) < 0)
				return NULL;
			cwd = base;
		}
		if (!cwd)
			return NULL;
	}
	return normalize(out, cwd ? cwd : "/", name) < 0 ? NULL : out;
}

/* A stat or access of a hidden path fails as its open would, and a command
 * that only probes (a test that skips, make looking for a target) is told
 * nothing else; most probes are of files that exist nowhere, so only a
 * path that is there, hidden, is worth a line, as its open's. */
void record_probe(const char *path, const char *name, int err)
{
	char there[PATH_MAX];
	mode_t mode;

	if (path && host_walk(path, there, &mode) == EXISTS)
		record_path(S_ISDIR(mode) ? "list" : "read", path, name, err, R_READ, 0, 1);
}

/* Which access an open was: with O_CREAT of a file that is not there, a
 * create in its directory; for writing, a write; else a read or a list. */
void record_open(const char *path, const char *shown, int flags, int err)
{
	char resolved[PATH_MAX];
	mode_t mode = 0;
	int host = path ? host_walk(path, resolved, &mode) : UNKNOWN;

	if ((flags & O_CREAT) && host == ABSENT)
		record_path("create", path, shown, err, R_WRITE, 1, 0);
	else if ((flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC))
		record_path("write", path, shown, err, R_WRITE, 0, 0);
	else if ((flags & O_DIRECTORY) || (host == EXISTS && S_ISDIR(mode)))
		record_path("list", path, shown, err, R_READ, 0, 0);
	else
		record_path("read", path, shown, err, R_READ, 0, 1);
}

int failure_of_policy(int err)
{
	return err == ENOENT || err == EACCES || err == EPERM || err == EROFS;
}

/* --- the printer --- */

static const struct { int err; const char *name; } errnames[] = {
	{ ENOENT, "ENOENT" }, { EACCES, "EACCES" }, { EPERM, "EPERM" },
	{ EROFS, "EROFS" }, { ENOSYS, "ENOSYS" }, { ECONNREFUSED, "ECONNREFUSED" },
	{ ENETUNREACH, "ENETUNREACH" }, { EHOSTUNREACH, "EHOSTUNREACH" },
	{ EADDRNOTAVAIL, "EADDRNOTAVAIL" }, { EAFNOSUPPORT, "EAFNOSUPPORT" },
};

const char *errname(int err)
{
	for (size_t i = 0; i < sizeof errnames / sizeof *errnames; i++)
		if (errnames[i].err == err)
			return errnames[i].name;
	return "errno";
}

void denials_print(const struct denials *d, const char *as, FILE *f)
{
	char who[128];	/* --as ROLE, quoted if need be */

	snprintf(who, sizeof who, "%s%s", as ? qn(as) : "", as ? ": " : "");
	if (!d->n)
		fprintf(f, "%s: explain: %snothing was refused or hidden\n", progname, who);
	for (size_t i = 0; i < d->n; i++) {
		const struct denial *x = &d->v[i];

		fprintf(f, "%s: explain: %s%s %s: %s (%s), %s, %lu time%s; ", progname, who,
		        x->kind, qn(x->what), errname(x->err), strerror(x->err), x->status,
		        x->count, x->count == 1 ? "" : "s");
		if (x->allow)
			fprintf(f, "allow with %s\n", x->allow);
		else if (!strcmp(x->status, "unknown"))
			fprintf(f, "no change to suggest: %s\n", x->why);
		else
			fprintf(f, "no policy change allows it: %s\n", x->why);
	}
	if (d->dropped)
		fprintf(f, "%s: explain: %s%lu more refusals not listed (after %d distinct "
		        "ones)\n", progname, who, d->dropped, DENIALS_MAX);
	fflush(f);
}
