#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

static void vmsg(const char *kind, int err, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: %s: ", progname, kind);
	vfprintf(stderr, fmt, ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
}

void die(int code, const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vmsg("fatal", err, fmt, ap);
	va_end(ap);
	exit(code);
}

void diex(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("fatal", 0, fmt, ap);
	va_end(ap);
	exit(code);
}

void die_hint(int code, int err, const char *hintmsg, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("fatal", err, fmt, ap);
	va_end(ap);
	if (hintmsg)
		fprintf(stderr, "hint: %s\n", hintmsg);
	exit(code);
}

void warnx_(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning", 0, fmt, ap);
	va_end(ap);
}

void hint(const char *fmt, ...)
{
	va_list ap;

	fputs("hint: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void usage_die(const char *usage)
{
	fprintf(stderr, "usage: %s\n", usage);
	exit(EXIT_REFUSED);
}

void usage_fail(const char *usage, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("fatal", 0, fmt, ap);
	va_end(ap);
	usage_die(usage);
}

int parse_ulong(const char *s, unsigned long min, unsigned long max,
                unsigned long *out)
{
	unsigned long v = 0;
	const char *p;

	if (!s || !*s)
		return 0;
	for (p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return 0;
		if (v > (ULONG_MAX - (unsigned long)(*p - '0')) / 10)
			return 0;
		v = v * 10 + (unsigned long)(*p - '0');
	}
	if (p - s > 1 && s[0] == '0')
		return 0;
	if (v < min || v > max)
		return 0;
	*out = v;
	return 1;
}

/*
 * execve(2) PATH; a file the kernel cannot execute (ENOEXEC) is run by
 * /bin/sh instead, as POSIX asks of execvp(3). Returns with errno set.
 */
static void exec_or_sh(const char *path, char *const argv[])
{
	char **sh;
	size_t n;

	execve(path, argv, environ);
	if (errno != ENOEXEC)
		return;
	for (n = 0; argv[n]; n++)
		;
	sh = calloc(n + 2, sizeof *sh);
	if (!sh) {
		errno = ENOEXEC;
		return;
	}
	sh[0] = (char *)"/bin/sh";
	sh[1] = (char *)path;
	if (n > 1)
		memcpy(sh + 2, argv + 1, (n - 1) * sizeof *sh);
	execve("/bin/sh", sh, environ);
	free(sh);
}

/*
 * Our own execvp(3), so that the helpers look the target up the same way
 * whichever C library they are linked with (musl's execvp has no /bin/sh
 * fallback, and another default search path): glibc's rules. PATH unset
 * means /bin:/usr/bin; an empty element is the working directory; a
 * directory where the name is missing (or is no directory) is passed over,
 * one where it may not be executed is remembered (EACCES at the end), and
 * any other failure ends the search.
 */
void xexecvp(const char *file, char *const argv[])
{
	const char *path, *p, *end;
	char buf[PATH_MAX];
	size_t flen = strlen(file), dlen;
	int eacces = 0;

	if (!flen) {
		errno = ENOENT;
	} else if (strchr(file, '/')) {
		exec_or_sh(file, argv);
	} else {
		path = getenv("PATH");
		if (!path)
			path = "/bin:/usr/bin";
		for (p = path;; p = end + 1) {
			end = strchrnul(p, ':');
			dlen = (size_t)(end - p);
			if (dlen + 1 + flen >= sizeof buf) {
				errno = ENAMETOOLONG;
				break;
			}
			if (dlen) {
				memcpy(buf, p, dlen);
				buf[dlen++] = '/';
			}
			memcpy(buf + dlen, file, flen + 1);
			exec_or_sh(buf, argv);
			if (errno == EACCES)
				eacces = 1;
			else if (errno != ENOENT && errno != ENOTDIR && errno != ESTALE &&
			         errno != ENODEV && errno != ETIMEDOUT)
				break;
			if (!*end) {
				if (eacces)
					errno = EACCES;
				break;
			}
		}
	}
	die(errno == ENOENT ? EXIT_NOTFOUND : EXIT_CONFINE,
	    "unable to execute %s", file);
}

int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}
