/* Reading a policy (load.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "load.h"

static char *refuse(char *err, size_t errlen, const char *name, const char *why)
{
	snprintf(err, errlen, "unable to read %s: %s", qn(name), why);
	return NULL;
}

/* Why the file ST describes is no policy to read, or NULL. Its size is
 * read_upto's to bound: a pipe shows none, a file may grow. */
static const char *unfit(const struct stat *st)
{
	if (S_ISDIR(st->st_mode))
		return strerror(EISDIR);
	if (!S_ISREG(st->st_mode) && !S_ISFIFO(st->st_mode))
		return "not a regular file or a pipe";
	return NULL;
}

static char *read_fd(int fd, const char *name, size_t *len, char *err, size_t errlen)
{
	struct stat st;
	const char *why;
	ssize_t n;
	char *buf;

	if (fstat(fd, &st) < 0)
		return refuse(err, errlen, name, strerror(errno));
	if ((why = unfit(&st)))
		return refuse(err, errlen, name, why);
	if (!(buf = malloc(JSON_MAX_BYTES + 1)))
		return refuse(err, errlen, name, strerror(ENOMEM));
	if ((n = read_upto(fd, buf, JSON_MAX_BYTES)) < 0 || n > (ssize_t)JSON_MAX_BYTES) {
		int e = errno;
		free(buf);
		return refuse(err, errlen, name, n < 0 ? strerror(e) : "larger than 1 MiB");
	}
	buf[n] = '\0';
	*len = (size_t)n;
	return buf;
}

char *read_policy_file(const char *path, size_t *len, char *err, size_t errlen)
{
	struct stat st;
	const char *why;
	char *buf;
	int fd;

	if (!strcmp(path, "-"))
		return read_fd(0, "standard input", len, err, errlen);
	/* Look before opening: opening a device can block or act (a tape
	 * rewinds, a tty waits for carrier), and /dev/zero is endless. */
	if (stat(path, &st) < 0)
		return refuse(err, errlen, path, strerror(errno));
	if ((why = unfit(&st)))
		return refuse(err, errlen, path, why);
	/* O_NONBLOCK keeps open() from waiting for a FIFO's writer; the reads
	 * wait with poll() instead. */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) < 0)
		return refuse(err, errlen, path, strerror(errno));
	buf = read_fd(fd, path, len, err, errlen);
	close(fd);
	return buf;
}

char *read_json(int fd, const char *path, size_t *len, struct json_doc *doc)
{
	char err[QUOTED_MAX + 256], *text;

	if (fd >= 0)
		text = read_fd(fd, strcmp(path, "-") ? path : "standard input", len, err, sizeof err);
	else
		text = read_policy_file(path, len, err, sizeof err);
	if (!text) {
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
static void report_line(void *path, const char *line)
{
	fprintf(stderr, "%s: %s: %s\n", progname, qn(path), line);
}

void unload_policy(struct loaded *l)
{
	policy_free(&l->pol);
	manifest_free(&l->man);
	json_free(&l->doc);
	free(l->text);
	memset(l, 0, sizeof *l);
}

int load_policy(int fd, const char *path, struct loaded *l, const unsigned char *want)
{
	return load_as(fd, path, l, want, LOAD_POLICY);
}

int load_as(int fd, const char *path, struct loaded *l, const unsigned char *want, int kinds)
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
	if (l->manifest ? manifest_check(&l->man, &l->doc, report_line, (void *)path) :
	                  policy_check(&l->pol, &l->doc, report_line, (void *)path)) {
		unload_policy(l);
		return 0;
	}
	l->id = l->manifest ? l->man.id : l->pol.id;
	return 1;
}
