/* run --in-session, --passwd-fd, --group-fd and --hosts-fd (runsession.h).
 * The lines are held to passwd(5) and group(5) as useradd(8) would write
 * them, and uid and gid 0 to root's own standard line, so that no tool in
 * the view is told that another name is root; to hosts(5) as an address
 * and host names, no comment. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "frontend.h"
#include "runsession.h"
#include "runuser.h"

#define DB_MAX (1 << 20)	/* bytes of one file */
#define FD_MAX (1 << 20)

static int in_session;
static const char *state_dir;
static struct strlist shares[2];	/* --share's, --share-read's */

static struct db {
	const char *opt, *path;
	int fd;
	char *text;
	size_t len;
} dbs[] = {
	{ "--passwd-fd", "/etc/passwd", -1, NULL, 0 },
	{ "--group-fd", "/etc/group", -1, NULL, 0 },
	{ "--hosts-fd", "/etc/hosts", -1, NULL, 0 },
};
#define NDBS (sizeof dbs / sizeof *dbs)

/* L, or NULL, holds PATH already? */
static int holds(const struct strlist *l, const char *path)
{
	for (size_t i = 0; l && i < l->n; i++)
		if (path_beneath(path, l->v[i]))
			return 1;
	return 0;
}

/* PATH into L, a policy's list (NULL-ended) or shares'. */
static void list_add(struct strlist *l, const char *path)
{
	char **v;

	if (!(v = reallocarray(l->v, l->n + 2, sizeof *v)) || !(v[l->n] = strdup(path)))
		diex(EXIT_REFUSED, "out of memory");
	v[++l->n] = NULL;
	l->v = v;
}

void session_option(int c, const char *arg, const char *usage)
{
	struct db *d = &dbs[c == SESSION_OPT_GROUP ? 1 : c == SESSION_OPT_HOSTS ? 2 : 0];
	unsigned long n = 0;
	char *end = NULL;

	if (c == SESSION_OPT_IN) {
		in_session = 1;
		return;
	}
	if (c == SESSION_OPT_STATE || c == SESSION_OPT_SHARE || c == SESSION_OPT_SHARE_READ) {
		const char *opt = c == SESSION_OPT_STATE ? "--state-dir" :
		                  c == SESSION_OPT_SHARE ? "--share" : "--share-read";
		struct strlist *l = &shares[c == SESSION_OPT_SHARE_READ];

		if (arg[0] != '/' || strlen(arg) >= PATH_MAX || strstr(arg, "//") ||
		    strstr(arg, "/./") || strstr(arg, "/../") || !strcmp(arg, "/"))
			usage_fail(usage, "%s needs an absolute path without . or .., not %s", opt,
			           q(arg));
		if (c == SESSION_OPT_STATE)
			state_dir = arg;
		else
			list_add(l, arg);
		return;
	}
	errno = 0;
	if (arg[0] >= '1' && arg[0] <= '9')
		n = strtoul(arg, &end, 10);
	if (!end || *end || errno || n < 3 || n > FD_MAX)
		usage_fail(usage, "%s needs a descriptor above 2, not %s", d->opt, q(arg));
	d->fd = (int)n;
}

/* Each socket in DIR, as the run starts, into P's files.sockets: another
 * role's (ABI 9 lets none through but those named). */
static void share_sockets(struct policy *p, const char *dir)
{
	char path[PATH_MAX];
	struct dirent *e;
	struct stat st;
	DIR *d = opendir(dir);

	if (!d && errno == ENOENT)	/* not made yet: launch --dry-run's plan */
		return;
	if (!d)
		die(EXIT_REFUSED, "unable to read the shared directory %s", q(dir));
	while ((e = readdir(d)))
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISSOCK(st.st_mode) &&
		    (size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < sizeof path &&
		    !holds(&p->sockets, path))
			list_add(&p->sockets, path);
	closedir(d);
}

void session_state(struct policy *p)
{
	if (state_dir && !holds(&p->write, state_dir) && !holds(&p->tmpfs, state_dir))
		list_add(&p->write, state_dir);
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < shares[k].n; i++) {
			const char *dir = shares[k].v[i];

			if (!holds(&p->write, dir) && !holds(&p->tmpfs, dir) &&
			    !(k && holds(&p->read, dir)))
				list_add(k ? &p->read : &p->write, dir);
			share_sockets(p, dir);
		}
}

int session_in(void)
{
	return in_session;
}

static int kept(int fd, int keep)
{
	for (size_t i = 0; i < NDBS; i++)
		if (fd == dbs[i].fd)
			return 1;
	return fd == keep;
}

void close_inherited(int keep)
{
	int top = keep;

	for (size_t i = 0; i < NDBS; i++) {
		if (dbs[i].fd >= 0 && dbs[i].fd == keep)
			usage_fail(RUN_USAGE, "%s %d is also --report's descriptor", dbs[i].opt, keep);
		if (dbs[i].fd > top)
			top = dbs[i].fd;
	}
	for (size_t i = 0; i < NDBS; i++)
		for (size_t j = i + 1; j < NDBS; j++)
			if (dbs[i].fd >= 0 && dbs[i].fd == dbs[j].fd)
				usage_fail(RUN_USAGE, "%s and %s name the same descriptor %d",
				           dbs[i].opt, dbs[j].opt, dbs[i].fd);
	for (int fd = 3; fd < top; fd++)
		if (!kept(fd, keep))
			close(fd);
	closefrom(top < 3 ? 3 : top + 1);
}

/* --- the lines --- */

/* Printable UTF-8, no control byte (the fields' separators are gone). */
static int good_text(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return 0;
	return utf8_check((const unsigned char *)s, n) == n;
}

/* A user or group name as useradd(8) takes one: [A-Za-z0-9_.][A-Za-z0-9_.-]*,
 * a '$' last allowed (Samba's machine accounts), 1 to 32 bytes. */
static int good_name(const char *s, size_t n)
{
	static const char ok[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.";

	if (!n || n > 32)
		return 0;
	if (s[n - 1] == '$')
		n--;
	if (!n || !strchr(ok, s[0]))
		return 0;
	for (size_t i = 1; i < n; i++)
		if (!strchr(ok, s[i]) && s[i] != '-')
			return 0;
	return 1;
}

/* A uid or gid: decimal, no leading zero, below (uid_t)-1. */
static int good_id(const char *s, size_t n, unsigned long *id)
{
	*id = 0;
	if (!n || n > 10 || (n > 1 && s[0] == '0'))
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		*id = *id * 10 + (unsigned long)(s[i] - '0');
	}
	return *id < 4294967295UL;
}

/* Split LINE (N bytes) at ':' into at most MAX fields; their count, or
 * MAX + 1 when there are more. */
static size_t split(const char *line, size_t n, const char **f, size_t *len, size_t max)
{
	size_t k = 0;
	const char *p = line, *end = line + n, *c;

	for (;;) {
		if (k == max)
			return max + 1;
		c = memchr(p, ':', (size_t)(end - p));
		f[k] = p;
		len[k++] = c ? (size_t)(c - p) : (size_t)(end - p);
		if (!c)
			return k;
		p = c + 1;
	}
}

static const char *field_is(const char *f, size_t n, const char *want)
{
	return n == strlen(want) && !memcmp(f, want, n) ? f : NULL;
}

/* What is wrong with the passwd(5) line S (N bytes), or NULL. */
static const char *passwd_line(const char *s, size_t n)
{
	const char *f[7];
	size_t l[7];
	unsigned long uid, gid;

	if (split(s, n, f, l, 7) != 7)
		return "not the 7 fields NAME:PASSWORD:UID:GID:GECOS:HOME:SHELL";
	if (!good_name(f[0], l[0]))
		return "the name is not [A-Za-z0-9_.][A-Za-z0-9_.-]*, 1 to 32 bytes";
	if (!good_text(f[1], l[1]) || !good_text(f[4], l[4]))
		return "the password or GECOS field holds a control byte or is not UTF-8";
	if (!good_id(f[2], l[2], &uid) || !good_id(f[3], l[3], &gid))
		return "the uid or gid is not a number from 0 to 4294967294";
	if (!l[5] || f[5][0] != '/' || !good_text(f[5], l[5]) ||
	    (l[6] && (f[6][0] != '/' || !good_text(f[6], l[6]))))
		return "the home is not an absolute path, or the shell neither one nor empty";
	if ((uid == 0 || field_is(f[0], l[0], "root")) &&
	    (uid || gid || !field_is(f[0], l[0], "root") || !field_is(f[5], l[5], "/root")))
		return "uid 0 and the name root are root's own standard line alone, "
		       "root:x:0:0:GECOS:/root:SHELL";
	return NULL;
}

/* What is wrong with the group(5) line S (N bytes), or NULL. */
static const char *group_line(const char *s, size_t n)
{
	const char *f[4], *m, *end, *c;
	size_t l[4];
	unsigned long gid;

	if (split(s, n, f, l, 4) != 4)
		return "not the 4 fields NAME:PASSWORD:GID:MEMBERS";
	if (!good_name(f[0], l[0]))
		return "the name is not [A-Za-z0-9_.][A-Za-z0-9_.-]*, 1 to 32 bytes";
	if (!good_text(f[1], l[1]))
		return "the password field holds a control byte or is not UTF-8";
	if (!good_id(f[2], l[2], &gid))
		return "the gid is not a number from 0 to 4294967294";
	for (m = f[3], end = f[3] + l[3]; l[3] && m <= end; m = c + 1) {
		if (!(c = memchr(m, ',', (size_t)(end - m))))
			c = end;
		if (!good_name(m, (size_t)(c - m)))
			return "a member is not a user name, or the list not NAME,NAME...";
	}
	if ((gid == 0 || field_is(f[0], l[0], "root")) &&
	    (gid || !field_is(f[0], l[0], "root") || l[3]))
		return "gid 0 and the name root are root's own standard line alone, root:x:0:";
	return NULL;
}

/* A host name: dot-separated DNS labels, 1 to 253 bytes. */
static int good_host(const char *s, size_t n)
{
	size_t label = 0;

	if (!n || n > 253)
		return 0;
	for (size_t i = 0; i <= n; i++) {
		if (i == n || s[i] == '.') {
			if (!label || label > 63 || s[i - 1] == '-' || s[i - label] == '-')
				return 0;
			label = 0;
		} else if ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		           (s[i] >= '0' && s[i] <= '9') || s[i] == '-') {
			label++;
		} else {
			return 0;
		}
	}
	return 1;
}

/* What is wrong with the hosts(5) line S (N bytes), or NULL: an IPv4 or
 * IPv6 address, then host names, each after one space or tab. */
static const char *hosts_line(const char *s, size_t n)
{
	char addr[INET6_ADDRSTRLEN];
	unsigned char bin[16];
	size_t k = strcspn(s, " \t\n"), names = 0, len;

	if (k >= sizeof addr || k >= n)
		return "not an address and at least one host name";
	memcpy(addr, s, k);
	addr[k] = '\0';
	if (inet_pton(AF_INET, addr, bin) != 1 && inet_pton(AF_INET6, addr, bin) != 1)
		return "the address is neither IPv4 nor IPv6";
	for (; k < n; k += 1 + len, names++) {
		len = strcspn(s + k + 1, " \t\n");
		if (k + 1 + len > n || !good_host(s + k + 1, len))
			return "a host name is not dot-separated DNS labels, 1 to 253 bytes";
	}
	return names ? NULL : "not an address and at least one host name";
}

/* D's text, every line held to its syntax and (in passwd and group) each
 * name once; 125 with one line naming the first problem. */
static void check_lines(const struct db *d, int kind)
{
	struct text_item *names = calloc(d->len, sizeof *names);
	const char *s = d->text, *nl, *why;
	char name[QUOTED_MAX];
	size_t line = 0, n = 0;

	if (!names)
		diex(EXIT_REFUSED, "out of memory");
	for (; s < d->text + d->len; s = nl + 1) {
		nl = memchr(s, '\n', (size_t)(d->text + d->len - s));
		line++;
		why = nl == s ? "an empty line" : kind == 2 ? hosts_line(s, (size_t)(nl - s)) :
		      kind ? group_line(s, (size_t)(nl - s)) : passwd_line(s, (size_t)(nl - s));
		if (why)
			diex(EXIT_REFUSED, "refused: %s %d: line %zu: %s", d->opt, d->fd, line, why);
		names[n++] = (struct text_item){ s, strcspn(s, ":"), line, 0 };
	}
	if (kind != 2 && text_duplicates(names, n))
		diex(EXIT_REFUSED, "refused: %s %d: line %zu: the name %s is on line %zu too",
		     d->opt, d->fd, names[0].at,
		     quote(name, names[0].s, names[0].len, QUOTE_ALWAYS), names[0].of);
	free(names);
}

void session_check(void)
{
	for (size_t i = 0; i < NDBS; i++) {
		struct db *d = &dbs[i];
		if (d->fd < 0)
			continue;
		if (!(d->text = sealed_read(d->fd, DB_MAX, &d->len)) && errno == EPERM)
			diex(EXIT_REFUSED, "refused: %s %d: not a memfd sealed with F_SEAL_WRITE, "
			     "F_SEAL_GROW, F_SEAL_SHRINK and F_SEAL_SEAL", d->opt, d->fd);
		if (!d->text && errno == EFBIG)
			diex(EXIT_REFUSED, "refused: %s %d: over %d bytes", d->opt, d->fd, DB_MAX);
		if (!d->text)
			die(EXIT_REFUSED, "unable to read %s %d", d->opt, d->fd);
		if (!d->len || memchr(d->text, '\0', d->len) || d->text[d->len - 1] != '\n')
			diex(EXIT_REFUSED, "refused: %s %d: not lines of text, each ending in a "
			     "newline", d->opt, d->fd);
		check_lines(d, (int)i);
		if (fcntl(d->fd, F_SETFD, FD_CLOEXEC) < 0)
			die(EXIT_REFUSED, "unable to keep %s %d for the view step", d->opt, d->fd);
	}
	run_user_files(dbs[0].text, dbs[1].text);
}

/* --- the chain --- */

void session_push_view(struct vec *chain)
{
	for (size_t i = 0; i < NDBS; i++)
		if (dbs[i].fd >= 0)
			push_opt(chain, "--file", "%s=%d", dbs[i].path, dbs[i].fd);
}

void session_push_landlock(struct vec *chain)
{
	for (size_t i = 0; i < NDBS; i++)
		if (dbs[i].fd >= 0)
			push_opt(chain, "-r", "%s", dbs[i].path);
}

int session_top(void)
{
	int top = -1;

	for (size_t i = 0; i < NDBS; i++)
		top = dbs[i].fd > top ? dbs[i].fd : top;
	return top;
}

int session_pass(void)
{
	for (size_t i = 0; i < NDBS; i++)
		if (dbs[i].fd >= 0 && fcntl(dbs[i].fd, F_SETFD, 0) < 0)
			return -1;
	return 0;
}
