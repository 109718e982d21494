/* The canonical form and hash of a policy (DESIGN.md 2.1). The canonical form is streamed through a small buffer:
 * strings without escapes are copied as they are (they are already in
 * canonical form: no quote, backslash or control byte can be in them raw),
 * others are decoded and re-escaped as Python's json.dumps(ensure_ascii=False)
 * does. Recursion follows the document, whose depth json_parse bounded. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <bearssl.h>

#include "hash.h"
#include "text.h"

struct canon {
	const struct json_doc *doc;
	void (*out)(void *ctx, const void *buf, size_t len);
	void *ctx;
	struct text_item *keys;  /* a stack: each open object sorts its keys here */
	size_t nkeys;
	char *arena;             /* strings with escapes, decoded at their own offset */
	size_t n;
	unsigned char buf[16384];
};

static void flush(struct canon *c)
{
	if (c->n)
		c->out(c->ctx, c->buf, c->n);
	c->n = 0;
}

static void out_bytes(struct canon *c, const void *p, size_t n)
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

static void out_char(struct canon *c, char ch)
{
	if (c->n == sizeof c->buf)
		flush(c);
	c->buf[c->n++] = (unsigned char)ch;
}

/* Decoded bytes S[0..N) as a canonical JSON string: \" \\ \b \f \n \r \t,
 * other bytes below 0x20 as \u00xx (lowercase), all else raw UTF-8. */
static void put_escaped(struct canon *c, const char *s, size_t n)
{
	size_t i, run = 0;

	out_char(c, '"');
	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		char e[6];
		size_t en = 2;

		if (ch >= 0x20 && ch != '"' && ch != '\\')
			continue;
		out_bytes(c, s + run, i - run);
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
			hex_encode(e + 4, &ch, 1);
			en = 6;
			break;
		}
		out_bytes(c, e, en);
	}
	out_bytes(c, s + run, n - run);
	out_char(c, '"');
}

/* String token I, decoded: as it stands in the text when it has no
 * escape, else on the arena at its own offset (decoding never lengthens). */
static void decoded(struct canon *c, unsigned i, const char **s, size_t *n)
{
	const jsmntok_t *t = &c->doc->tok[i];

	*s = c->doc->text + t->start;
	*n = (size_t)(t->end - t->start);
	if (c->arena && memchr(*s, '\\', *n)) {
		*s = c->arena + t->start;
		*n = json_unescape(c->doc, i, c->arena + t->start);
	}
}

static void emit(struct canon *c, unsigned i)
{
	const struct json_doc *d = c->doc;
	const jsmntok_t *t = &d->tok[i];
	size_t n, base = c->nkeys;
	const char *s;

	switch (json_type(d, i)) {
	case JSON_OBJECT:
		/* Sorted by their decoded UTF-8 bytes, which is code point
		 * order; json_parse refused duplicates, so it is total. */
		JSON_EACH_MEMBER(d, i, m, k) {
			struct text_item *key = &c->keys[c->nkeys++];
			decoded(c, k, &key->s, &key->len);
			key->at = k + 1;
			(void)m;
		}
		if (t->size)    /* NULL + 0 is undefined */
			text_sort(c->keys + base, (size_t)t->size);
		out_char(c, '{');
		for (size_t m = 0; m < (size_t)t->size; m++) {
			if (m)
				out_char(c, ',');
			put_escaped(c, c->keys[base + m].s, c->keys[base + m].len);
			out_char(c, ':');
			emit(c, (unsigned)c->keys[base + m].at);
		}
		out_char(c, '}');
		c->nkeys = base;
		break;
	case JSON_ARRAY:
		out_char(c, '[');
		JSON_EACH_ELEMENT(d, i, m, e) {
			if (m)
				out_char(c, ',');
			emit(c, e);
		}
		out_char(c, ']');
		break;
	case JSON_STRING:
		decoded(c, i, &s, &n);
		put_escaped(c, s, n);
		break;
	case JSON_NUMBER:
		/* json_parse let through only -?(0|[1-9][0-9]*): plain decimal
		 * already, except that -0 is 0. */
		n = (size_t)(t->end - t->start);
		if (n == 2 && !memcmp(d->text + t->start, "-0", 2))
			out_char(c, '0');
		else
			out_bytes(c, d->text + t->start, n);
		break;
	case JSON_TRUE:
		out_bytes(c, "true", 4);
		break;
	case JSON_FALSE:
		out_bytes(c, "false", 5);
		break;
	case JSON_NULL:
		out_bytes(c, "null", 4);
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
		if (doc->tok[i].type == JSMN_OBJECT)
			nkeys += (size_t)doc->tok[i].size;
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
