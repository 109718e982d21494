/* Text (text.h): message quoting, hex, UTF-8, key order and duplicates. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

/* The length of the valid UTF-8 sequence at S[I] (1 for ASCII), or 0. */
static size_t utf8_seq(const unsigned char *s, size_t len, size_t i)
{
	unsigned char b = s[i];
	size_t n = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
	unsigned long cp;

	if (b < 0x80)
		return 1;
	if (b < 0xc2 || b > 0xf4 || n > len - i)
		return 0;
	cp = b & (0x7f >> n);
	for (size_t j = 1; j < n; j++) {
		if ((s[i + j] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i + j] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

size_t utf8_check(const unsigned char *s, size_t len)
{
	size_t i = 0, n;

	/* A policy is mostly ASCII: step over it without the call (hashing a
	 * 1 MiB policy, bench/hash.sh, spends most of its time here). */
	while (i < len)
		if (s[i] < 0x80)
			i++;
		else if ((n = utf8_seq(s, len, i)))
			i += n;
		else
			break;
	return i;
}

size_t utf8_put(unsigned char out[4], unsigned long cp)
{
	size_t n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;

	if (n == 1) {
		out[0] = (unsigned char)cp;
		return 1;
	}
	for (size_t i = n - 1; i > 0; i--, cp >>= 6)
		out[i] = (unsigned char)(0x80 | (cp & 0x3f));
	out[0] = (unsigned char)((0xf00 >> n) | cp);   /* 110xxxxx, 1110xxxx, 11110xxx */
	return n;
}

void json_quote(void (*out)(void *ctx, const char *s, size_t n), void *ctx,
                const char *s, size_t n)
{
	static const char from[] = "\"\\\b\f\n\r\t", to[] = "\"\\bfnrt";
	size_t run = 0;

	out(ctx, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		const char *m;
		char e[6] = "\\u00";

		if (ch >= 0x20 && ch != '"' && ch != '\\')
			continue;
		if (i > run)
			out(ctx, s + run, i - run);
		run = i + 1;
		if ((m = memchr(from, ch, sizeof from - 1))) {
			e[1] = to[m - from];
			out(ctx, e, 2);
		} else {
			hex_encode(e + 4, &ch, 1);
			out(ctx, e, 6);
		}
	}
	if (n > run)
		out(ctx, s + run, n - run);
	out(ctx, "\"", 1);
}

int hex_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

void hex_encode(char *out, const unsigned char *in, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = hex[in[i] >> 4];
		out[2 * i + 1] = hex[in[i] & 15];
	}
}

int path_beneath(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}

/* Byte order, then length: the order of JSON keys (code point order). */
static int bytes_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	return c ? c : (alen > blen) - (alen < blen);
}

static int by_bytes(const void *a, const void *b)
{
	const struct text_item *x = a, *y = b;
	int c = bytes_cmp(x->s, x->len, y->s, y->len);

	return c ? c : (x->at > y->at) - (x->at < y->at);
}

static int by_position(const void *a, const void *b)
{
	const struct text_item *x = a, *y = b;

	return (x->at > y->at) - (x->at < y->at);
}

/* A stable merge sort of the N pointers at V by CMP, TMP room for N more. */
static void sort_ptrs(const void **v, const void **tmp, size_t n,
                      int (*cmp)(const void *, const void *))
{
	size_t h = n / 2, i = 0, j = h, k = 0;

	if (n < 2)
		return;
	sort_ptrs(v, tmp, h, cmp);
	sort_ptrs(v + h, tmp, n - h, cmp);
	while (i < h && j < n)
		tmp[k++] = cmp(v[j], v[i]) < 0 ? v[j++] : v[i++];
	while (i < h)
		tmp[k++] = v[i++];
	/* What is left of the second half is in its place already. */
	while (k--)
		v[k] = tmp[k];
}

int sort_stable(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	/* A short list sorts on the stack: musl maps a heap group for two
	 * small blocks and unmaps it again at their free. */
	const void *vs[64], **v = vs;
	char outs[1536], *out = outs;

	if (n < 2)
		return 0;
	if ((2 * n > 64 && !(v = malloc(2 * n * sizeof *v))) ||
	    (n * size > sizeof outs && !(out = malloc(n * size)))) {
		if (v != vs)
			free(v);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		v[i] = (char *)base + i * size;
	sort_ptrs(v, v + n, n, cmp);
	for (size_t i = 0; i < n; i++)
		memcpy(out + i * size, v[i], size);
	memcpy(base, out, n * size);
	if (v != vs)
		free(v);
	if (out != outs)
		free(out);
	return 0;
}

void text_sort(struct text_item *it, size_t n)
{
	/* Out of memory, qsort: by_bytes leaves no two items equal. */
	if (sort_stable(it, n, sizeof *it, by_bytes) < 0)
		qsort(it, n, sizeof *it, by_bytes);
}

size_t text_duplicates(struct text_item *it, size_t n)
{
	size_t i, ndup = 0;

	if (n < 2)
		return 0;
	text_sort(it, n);
	for (i = 0; i < n; i++)
		it[i].of = i && !bytes_cmp(it[i].s, it[i].len, it[i - 1].s, it[i - 1].len) ?
		           it[i - 1].of : it[i].at;
	for (i = 0; i < n; i++)
		if (it[i].of != it[i].at) {
			struct text_item t = it[ndup];
			it[ndup++] = it[i];
			it[i] = t;
		}
	qsort(it, ndup, sizeof *it, by_position);
	return ndup;
}

/* quote() up to MAX bytes of STR. */
static const char *quote_max(char *out, const char *str, size_t len, int mode,
                             size_t max)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = len, o = 0, i = 0, k;
	int bare = len > 0;

	if (n > max)
		for (n = max; n > 0 && (s[n] & 0xc0) == 0x80; n--)
			;
	out[o++] = '"';
	while (i < n) {
		unsigned char b = s[i];
		const char *e = b == '"' ? "\\\"" : b == '\\' ? "\\\\" : b == '\n' ? "\\n" :
		                b == '\r' ? "\\r" : b == '\t' ? "\\t" : NULL;

		k = b >= 0x80 ? utf8_seq(s, n, i) : 0;
		if (!e && b >= 0x20 && b < 0x7f) {
			out[o++] = (char)b;
			i++;
			continue;
		}
		/* U+0080 to U+009F, C1 controls, may drive a terminal. */
		if (k && !(k == 2 && b == 0xc2 && s[i + 1] < 0xa0)) {
			memcpy(out + o, s + i, k);
			o += k;
			i += k;
			continue;
		}
		bare = 0;
		if (e) {
			out[o++] = e[0];
			out[o++] = e[1];
			i++;
			continue;
		}
		/* Octal: a control byte, both bytes of a C1, or a byte that is
		 * not part of valid UTF-8. */
		for (k = k ? k : 1; k > 0; k--, i++) {
			out[o++] = '\\';
			out[o++] = (char)('0' + (s[i] >> 6));
			out[o++] = (char)('0' + ((s[i] >> 3) & 7));
			out[o++] = (char)('0' + (s[i] & 7));
		}
	}
	if (mode == QUOTE_IF_NEEDED && bare && n == len) {
		memmove(out, out + 1, len);
		out[len] = '\0';
		return out;
	}
	out[o++] = '"';
	if (n < len) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
	return out;
}

const char *quote(char out[QUOTED_MAX], const char *s, size_t len, int mode)
{
	return quote_max(out, s, len, mode, QUOTE_MAX);
}

/* Whole paths and ids, up to PATH_MAX bytes. */
static const char *qslot(const char *s, int mode)
{
	static char buf[8][4 * PATH_MAX + 6];
	static unsigned next;

	return quote_max(buf[next++ % 8], s, strlen(s), mode, PATH_MAX);
}

const char *q(const char *s)
{
	return qslot(s, QUOTE_ALWAYS);
}

const char *qn(const char *s)
{
	return qslot(s, QUOTE_IF_NEEDED);
}
