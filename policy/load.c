/* Reading a policy, a key or a signature (load.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "load.h"

/* Why the file ST describes is none to read, or NULL: a regular file, or
 * with PIPES a pipe or a FIFO too. Its size is read_upto's to bound: a
 * pipe shows none, a file may grow. */
static const char *unfit(const struct stat *st, int pipes)
{
	if (S_ISREG(st->st_mode) || (pipes && S_ISFIFO(st->st_mode)))
		return NULL;
	if (pipes)
		return S_ISDIR(st->st_mode) ? strerror(EISDIR) : "not a regular file or a pipe";
	return S_ISDIR(st->st_mode) ? "it is a directory" : S_ISFIFO(st->st_mode) ?
	       "it is a FIFO, not a regular file" : "it is not a regular file";
}

/* FD into BUF, at most MAX bytes: the length, or -1 and why not. */
static ssize_t read_fd(int fd, void *buf, size_t max, int pipes, const char **why)
{
	static char over[48];
	struct stat st;
	ssize_t n;

	if (fstat(fd, &st) < 0) {
		*why = strerror(errno);
		return -1;
	}
	if ((*why = unfit(&st, pipes)))
		return -1;
	if ((n = read_upto(fd, buf, max)) < 0) {
		*why = strerror(errno);
		return -1;
	}
	if ((size_t)n <= max)
		return n;
	if (max % JSON_MAX_BYTES)
		snprintf(over, sizeof over, "larger than %zu bytes", max);
	else
		snprintf(over, sizeof over, "larger than %zu MiB", max / JSON_MAX_BYTES);
	*why = over;
	return -1;
}

/* The one file reader: FD (not -1: read, left open), or else PATH, looked
 * at before it is opened (with PIPES, "-" is standard input), into BUF, at
 * most MAX bytes: a regular file, or with PIPES a pipe or a FIFO too.
 * Returns the length, or -1 with "unable to read PATH: why" in ERR. */
static ssize_t read_file(int fd, const char *path, void *buf, size_t max, int pipes, char *err,
                         size_t errlen)
{
	const char *name = pipes && !strcmp(path, "-") ? "standard input" : path, *why;
	struct stat st;
	ssize_t n;

	if (fd < 0 && !strcmp(name, path)) {
		/* Look before opening: opening a device can block or act (a
		 * tape rewinds, a tty waits for carrier), and /dev/zero is
		 * endless. O_NONBLOCK keeps open() from waiting for a FIFO's
		 * writer; the reads wait with poll() instead. */
		why = stat(path, &st) < 0 ? strerror(errno) : unfit(&st, pipes);
		if (!why && (fd = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC | O_NOCTTY |
		                         O_NONBLOCK)) < 0)
			why = strerror(errno);
		n = why ? -1 : read_fd(fd, buf, max, pipes, &why);
		if (fd >= 0)
			close(fd);
	} else {
		n = read_fd(fd < 0 ? 0 : fd, buf, max, pipes, &why);
	}
	if (n < 0)
		snprintf(err, errlen, "unable to read %s: %s", qn(name), why);
	return n;
}

size_t file_read(int fd, const char *path, unsigned char *buf, size_t max)
{
	char err[QUOTED_MAX + 256];
	ssize_t n = read_file(fd, path, buf, max, 0, err, sizeof err);

	if (fd >= 0)
		close(fd);
	if (n < 0)
		diex(EXIT_REFUSED, "refused: %s", err);
	return (size_t)n;
}

/* FD (or PATH, when FD is -1) whole, in a heap buffer of its size with a
 * NUL added. Read first into a static buffer of the largest size, whose
 * pages the kernel gives only as they are touched: a heap buffer of that
 * size is an mmap of its own (musl, glibc), faulted in at both ends and
 * torn down again at the front end's exec, for a policy of a few hundred
 * bytes. */
static char *read_text(int fd, const char *path, size_t *len, char *err, size_t errlen)
{
	static char whole[JSON_MAX_BYTES + 1];
	ssize_t n;
	char *buf;

	if ((n = read_file(fd, path, whole, JSON_MAX_BYTES, 1, err, errlen)) < 0)
		return NULL;
	if (!(buf = malloc((size_t)n + 1)))
		diex(EXIT_REFUSED, "out of memory");
	memcpy(buf, whole, (size_t)n);
	buf[n] = '\0';
	*len = (size_t)n;
	return buf;
}

char *read_policy_file(const char *path, size_t *len, char *err, size_t errlen)
{
	return read_text(-1, path, len, err, errlen);
}

char *read_json(int fd, const char *path, size_t *len, struct json_doc *doc)
{
	char err[QUOTED_MAX + 256], *text;

	if (!(text = read_text(fd, path, len, err, sizeof err))) {
		fatal_say(EXIT_REFUSED, 0, "%s", err);
		return NULL;
	}
	if (!json_parse(doc, text, *len, err, sizeof err)) {
		fatal_say(EXIT_REFUSED, 0, "%s: %s", qn(path), err);
		free(text);
		return NULL;
	}
	return text;
}

/* policy_check's problems, each on a line of its own: "PROG: PATH: line". */
void load_report(void *path, const char *line)
{
	fprintf(stderr, "%s: %s: %s\n", progname, qn(path), line);
}

void unload_policy(struct loaded *l)
{
	policy_free(&l->pol);
	json_free(&l->doc);
	free(l->text);
	memset(l, 0, sizeof *l);
}

int manifest_is(const struct json_doc *doc)
{
	return json_get(doc, 0, "launch") != 0;
}

int load_read(int fd, const char *path, struct loaded *l, const unsigned char *want, int kinds)
{
	memset(l, 0, sizeof *l);
	if (!(l->text = read_json(fd, path, &l->len, &l->doc)))
		return 0;
	l->manifest = manifest_is(&l->doc);
	l->kind = l->manifest ? "manifest" : "policy";
	if (!(kinds & (l->manifest ? LOAD_MANIFEST : LOAD_POLICY))) {
		fatal_say(EXIT_REFUSED, 0, "%s: %s. Nothing ran.", qn(path), l->manifest ?
		          "a launch manifest, not a policy: see sharness-exec launch" :
		          "a policy, not a launch manifest (it has no \"launch\" key)");
		unload_policy(l);
		return 0;
	}
	if (!hash_doc(&l->doc, l->digest))
		diex(EXIT_REFUSED, "out of memory");
	hash_format(l->digest, l->hash);
	if (want && !hash_equal(l->digest, want)) {
		char want_text[HASH_TEXT_LEN + 1];
		hash_format(want, want_text);
		fatal_say(EXIT_REFUSED, 0, "refused: %s hash is %s, expected %s. Nothing ran.",
		          l->kind, l->hash, want_text);
		unload_policy(l);
		return 0;
	}
	return 1;
}

int load_check(struct loaded *l, const char *path)
{
	if (policy_check(&l->pol, &l->doc, load_report, (void *)path)) {
		unload_policy(l);
		return 0;
	}
	l->id = l->pol.id;
	return 1;
}

int load_policy(int fd, const char *path, struct loaded *l, const unsigned char *want)
{
	return load_read(fd, path, l, want, LOAD_POLICY) && load_check(l, path);
}
