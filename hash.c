/* The canonical form and hash of a policy (DESIGN.md 2.1), and the one way a
 * policy file is read. The canonical form is streamed through a small buffer:
 * strings without escapes are copied as they are (they are already in
 * canonical form: no quote, backslash or control byte can be in them raw),
 * others are decoded and re-escaped as Python's json.dumps(ensure_ascii=False)
 * does. Recursion follows the document, whose depth json_parse bounded. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bearssl.h>

#include "common.h"
#include "hash.h"

struct key {
	uint64_t head;       /* json_key_head: most comparisons stop here */
	const char *s;       /* decoded bytes */
	size_t len;
	unsigned val;        /* token of the member's value */
};

struct canon {
	const struct json_doc *doc;
	void (*out)(void *ctx, const void *buf, size_t len);
	void *ctx;
	struct key *keys;    /* a stack: each open object sorts its keys here */
	size_t nkeys;
	char *arena;         /* a stack too: decoded strings that had escapes */
	size_t arena_top;
	size_t n;
	unsigned char buf[16384];
};

static void flush(struct canon *c)
{
	if (c->n)
		c->out(c->ctx, c->buf, c->n);
	c->n = 0;
}

static void put(struct canon *c, const void *p, size_t n)
{
	if (n > sizeof c->buf - c->n) {
		flush(c);
		if (n >= sizeof c->buf) {
			c->out(c->ctx, p, n);
			return;
		}
	}
	memcpy(c->buf + c->n, p, n);
	c->n += n;
}

static void putc_(struct canon *c, char ch)
{
	if (c->n == sizeof c->buf)
		flush(c);
	c->buf[c->n++] = (unsigned char)ch;
}

/* Decoded bytes S[0..N) as a canonical JSON string: \" \\ \b \f \n \r \t,
 * other bytes below 0x20 as \u00xx (lowercase), all else raw UTF-8. */
static void put_escaped(struct canon *c, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, run = 0;

	putc_(c, '"');
	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		char e[6];
		size_t en = 2;

		if (ch >= 0x20 && ch != '"' && ch != '\\')
			continue;
		put(c, s + run, i - run);
		run = i + 1;
		e[0] = '\\';
		switch (ch) {
		case '"':  e[1] = '"'; break;
		case '\\': e[1] = '\\'; break;
		case '\b': e[1] = 'b'; break;
		case '\f': e[1] = 'f'; break;
		case '\n': e[1] = 'n'; break;
		case '\r': e[1] = 'r'; break;
		case '\t': e[1] = 't'; break;
		default:
			memcpy(e + 1, "u00", 3);
			e[4] = hex[ch >> 4];
			e[5] = hex[ch & 15];
			en = 6;
			break;
		}
		put(c, e, en);
	}
	put(c, s + run, n - run);
	putc_(c, '"');
}

/* String token I. Decoded bytes that had escapes go on the arena, at *S. */
static void decoded(struct canon *c, unsigned i, const char **s, size_t *n)
{
	const struct json_tok *t = &c->doc->tok[i];
	const char *raw = c->doc->text + t->start;
	size_t rawlen = t->end - t->start;

	if (!c->arena || !memchr(raw, '\\', rawlen)) {
		*s = raw;
		*n = rawlen;
		return;
	}
	*s = c->arena + c->arena_top;
	*n = json_unescape(c->doc, i, c->arena + c->arena_top);
}

static int keycmp(const void *a, const void *b)
{
	const struct key *x = a, *y = b;
	int r;

	if (x->head != y->head)
		return x->head < y->head ? -1 : 1;
	if ((r = memcmp(x->s, y->s, x->len < y->len ? x->len : y->len)))
		return r;
	return (x->len > y->len) - (x->len < y->len);
}

static void emit(struct canon *c, unsigned i)
{
	const struct json_doc *d = c->doc;
	const struct json_tok *t = &d->tok[i];
	const char *s;
	size_t n, m, base, amark;
	unsigned j;

	switch (t->type) {
	case JSON_OBJECT:
		/* Sort the keys by their decoded UTF-8 bytes, which is code
		 * point order; json_parse refused duplicates, so it is total. */
		base = c->nkeys;
		amark = c->arena_top;
		for (m = 0, j = i + 1; m < t->size; m++, j = d->tok[j + 1].next) {
			struct key *k = &c->keys[c->nkeys++];

			decoded(c, j, &k->s, &k->len);
			if (k->s != d->text + d->tok[j].start)
				c->arena_top += k->len;
			k->head = json_key_head(k->s, k->len);
			k->val = j + 1;
		}
		if (t->size > 1)
			qsort(c->keys + base, t->size, sizeof *c->keys, keycmp);
		putc_(c, '{');
		for (m = 0; m < t->size; m++) {
			const struct key *k = &c->keys[base + m];

			if (m)
				putc_(c, ',');
			put_escaped(c, k->s, k->len);
			putc_(c, ':');
			emit(c, k->val);
		}
		putc_(c, '}');
		c->nkeys = base;
		c->arena_top = amark;
		break;
	case JSON_ARRAY:
		putc_(c, '[');
		for (m = 0, j = i + 1; m < t->size; m++, j = d->tok[j].next) {
			if (m)
				putc_(c, ',');
			emit(c, j);
		}
		putc_(c, ']');
		break;
	case JSON_STRING:
		decoded(c, i, &s, &n);
		if (s == d->text + t->start) {
			putc_(c, '"');
			put(c, s, n);   /* already canonical */
			putc_(c, '"');
		} else {
			put_escaped(c, s, n);
		}
		break;
	case JSON_NUMBER:
		/* json_parse let through only -?(0|[1-9][0-9]*): plain decimal
		 * already, except that -0 is 0. */
		if (t->end - t->start == 2 && !memcmp(d->text + t->start, "-0", 2))
			putc_(c, '0');
		else
			put(c, d->text + t->start, t->end - t->start);
		break;
	case JSON_TRUE:
		put(c, "true", 4);
		break;
	case JSON_FALSE:
		put(c, "false", 5);
		break;
	case JSON_NULL:
		put(c, "null", 4);
		break;
	}
}

int canon_write(const struct json_doc *doc,
                void (*out)(void *ctx, const void *buf, size_t len), void *ctx)
{
	struct canon *c;
	size_t nkeys = 0;
	unsigned i;

	if (!(c = malloc(sizeof *c)))
		return 0;
	memset(c, 0, offsetof(struct canon, buf));
	c->doc = doc;
	c->out = out;
	c->ctx = ctx;
	for (i = 0; i < doc->ntok; i++)
		if (doc->tok[i].type == JSON_OBJECT)
			nkeys += doc->tok[i].size;
	if ((nkeys && !(c->keys = malloc(nkeys * sizeof *c->keys))) ||
	    (memchr(doc->text, '\\', doc->len) && !(c->arena = malloc(doc->len)))) {
		free(c->keys);
		free(c);
		return 0;
	}
	emit(c, 0);
	flush(c);
	free(c->arena);
	free(c->keys);
	free(c);
	return 1;
}

static void sha_out(void *ctx, const void *buf, size_t len)
{
	br_sha256_update(ctx, buf, len);
}

int hash_doc(const struct json_doc *doc, unsigned char digest[HASH_LEN])
{
	br_sha256_context sc;

	br_sha256_init(&sc);
	if (!canon_write(doc, sha_out, &sc))
		return 0;
	br_sha256_out(&sc, digest);
	return 1;
}

void hash_format(const unsigned char digest[HASH_LEN], char *out)
{
	memcpy(out, "sha256:", 7);
	hex_encode(out + 7, digest, HASH_LEN);
	out[HASH_TEXT_LEN] = '\0';
}

int hash_parse(const char *s, unsigned char digest[HASH_LEN])
{
	unsigned char d[HASH_LEN];
	size_t i;
	int hi, lo;

	if (strncmp(s, "sha256:", 7))
		return 0;
	s += 7;
	for (i = 0; i < HASH_LEN; i++) {
		if ((hi = hex_value(s[2 * i])) < 0 || (lo = hex_value(s[2 * i + 1])) < 0)
			return 0;
		d[i] = (unsigned char)(hi << 4 | lo);
	}
	if (s[2 * HASH_LEN] != '\0')
		return 0;
	memcpy(digest, d, HASH_LEN);
	return 1;
}

int hash_equal(const unsigned char a[HASH_LEN], const unsigned char b[HASH_LEN])
{
	unsigned diff = 0;
	size_t i;

	for (i = 0; i < HASH_LEN; i++)
		diff |= (unsigned)(a[i] ^ b[i]);
	return (int)(1 & ((diff - 1) >> 8));   /* no branch on the secret */
}

static char *refuse(char *err, size_t errlen, const char *name, const char *why)
{
	snprintf(err, errlen, "unable to read %s: %s", qn(name), why);
	return NULL;
}

/* Wait until a pipe has data or its writer is gone. poll() on a FIFO opened
 * with O_NONBLOCK reports nothing before a first writer came, so this also
 * waits for one, as a blocking open would. */
static int wait_readable(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	for (;;) {
		if (poll(&pfd, 1, -1) >= 0)
			return 0;
		if (errno != EINTR)
			return -1;
	}
}

char *read_policy_fd(int fd, const char *name, size_t *len, char *err, size_t errlen)
{
	struct stat st;
	size_t total = 0;
	char *buf;

	if (fstat(fd, &st) < 0)
		return refuse(err, errlen, name, strerror(errno));
	if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
		return refuse(err, errlen, name, S_ISDIR(st.st_mode) ?
		              strerror(EISDIR) : "not a regular file or a pipe");
	if (S_ISREG(st.st_mode) && st.st_size > (off_t)JSON_MAX_BYTES)
		return refuse(err, errlen, name, "larger than 1 MiB");
	/* Read at most one byte past the limit: enough to know, never more. */
	if (!(buf = malloc(JSON_MAX_BYTES + 1)))
		return refuse(err, errlen, name, strerror(ENOMEM));
	while (total <= JSON_MAX_BYTES) {
		ssize_t n;

		if (S_ISFIFO(st.st_mode) && wait_readable(fd) < 0)
			n = -1;
		else
			n = read(fd, buf + total, JSON_MAX_BYTES + 1 - total);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0) {
			int e = errno;
			free(buf);
			return refuse(err, errlen, name, strerror(e));
		}
		if (n == 0)
			break;
		total += (size_t)n;
	}
	if (total > JSON_MAX_BYTES) {
		free(buf);
		return refuse(err, errlen, name, "larger than 1 MiB");
	}
	buf[total] = '\0';
	*len = total;
	return buf;
}

char *read_policy_file(const char *path, size_t *len, char *err, size_t errlen)
{
	const int stdin_ = !strcmp(path, "-");
	const char *name = stdin_ ? "standard input" : path;
	struct stat st;
	char *buf;
	int fd;

	/* Look before opening: opening a device can block or act (a tape
	 * rewinds, a tty waits for carrier), and /dev/zero is endless. */
	if (!stdin_ && stat(path, &st) < 0)
		return refuse(err, errlen, name, strerror(errno));
	if (!stdin_ && !S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
		return refuse(err, errlen, name, S_ISDIR(st.st_mode) ?
		              strerror(EISDIR) : "not a regular file or a pipe");
	/* O_NONBLOCK keeps open() from waiting for a FIFO's writer; the reads
	 * wait with poll() instead. */
	fd = stdin_ ? 0 : open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return refuse(err, errlen, name, strerror(errno));
	buf = read_policy_fd(fd, name, len, err, errlen);
	if (!stdin_)
		close(fd);
	return buf;
}
