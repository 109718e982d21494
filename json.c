/* Strict JSON reader (DESIGN.md 2.1). jsmn cuts the text into tokens, but it
 * accepts much that is not JSON ([1 2], {"a" 1}, [1,], 01, tru, raw control
 * bytes) and stops at a NUL. So the walk below is a complete grammar of its
 * own: it checks every byte between the tokens, every literal, number and
 * string, the depth and the duplicate keys, and requires each value it meets
 * to be jsmn's next token with the same type and extent. Where the two
 * disagree the text is refused. The walk is iterative, with an explicit
 * stack that never grows past JSON_MAX_DEPTH, so deep input cannot recurse.
 *
 * Byte offsets in messages count from 0. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSMN_STRICT
#define JSMN_PARENT_LINKS
#define JSMN_STATIC
#include <jsmn.h>

#include "json.h"

/* jsmn's tokens become struct json_tok in the same array, slot by slot: slot
 * I is read (with memcpy, which may alias anything) before it is written, and
 * no slot beyond the one being read is ever written. Memory stays at one
 * token array of at most LEN/2 + JSON_MAX_DEPTH + 2 slots. */
_Static_assert(sizeof(jsmntok_t) == sizeof(struct json_tok),
               "struct json_tok must have the size of jsmntok_t");

struct key {                 /* a member key, decoded, for the duplicate check */
	uint64_t head;       /* its first 8 bytes, big-endian: most comparisons */
	const char *s;
	size_t len;
	size_t pos;          /* byte of its opening quote */
};

struct frame {               /* an open container */
	unsigned tok;        /* its token */
	unsigned count;      /* members or elements so far */
	size_t keymark;      /* its first key in walk.keys */
	size_t arenamark;    /* arena top when it opened */
	int jend, jsize;     /* jsmn's view of it, compared when it closes */
	char close;          /* '}' or ']' */
};

struct walk {
	const char *s;
	size_t len;
	void *slots;         /* jsmn's tokens, becoming struct json_tok */
	unsigned ntok;       /* tokens jsmn produced */
	unsigned next;       /* the next one to take */
	int notok;           /* jsmn disagreed: from here on, check only */
	size_t disagree;     /* where it first disagreed */
	struct key *keys;    /* keys of the open objects, a stack */
	size_t nkeys, capkeys;
	char *arena;         /* decoded keys that had escapes, a stack */
	size_t arena_top;
	char *err;
	size_t errlen;
};

static int fail(struct walk *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct walk *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->err, w->errlen, fmt, ap);
	va_end(ap);
	return 0;
}

static int is_ws(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static size_t skip_ws(const struct walk *w, size_t p)
{
	while (p < w->len && is_ws((unsigned char)w->s[p]))
		p++;
	return p;
}

static int is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/* What may continue a number or a literal, so may not follow one. */
static int is_lexchar(unsigned char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       c == '.' || c == '+' || c == '-' || c == '_';
}

static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The code unit of four hex digits at S[P..P+4) (within LEN), or -1. */
static long hex4(const char *s, size_t len, size_t p)
{
	long v = 0;
	int i, d;

	if (len < 4 || p > len - 4)
		return -1;
	for (i = 0; i < 4; i++) {
		if ((d = hexval((unsigned char)s[p + (size_t)i])) < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

/* Strict UTF-8 (RFC 3629): no overlong form, no surrogate, nothing above
 * U+10FFFF, no truncated sequence. The offset of the first bad sequence, or
 * LEN when there is none. */
static size_t utf8_check(const unsigned char *s, size_t len)
{
	size_t i = 0, n, k;

	while (i < len) {
		unsigned char c = s[i], lo = 0x80, hi = 0xbf;

		if (c < 0x80) {
			uint64_t v;

			while (len - i >= 8) {  /* ASCII eight bytes at a time */
				memcpy(&v, s + i, 8);
				if (v & 0x8080808080808080ull)
					break;
				i += 8;
			}
			while (i < len && s[i] < 0x80)
				i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			n = 1;
		} else if (c >= 0xe0 && c <= 0xef) {
			n = 2;
			if (c == 0xe0)
				lo = 0xa0;      /* overlong: below U+0800 */
			else if (c == 0xed)
				hi = 0x9f;      /* U+D800..U+DFFF */
		} else if (c >= 0xf0 && c <= 0xf4) {
			n = 3;
			if (c == 0xf0)
				lo = 0x90;      /* overlong: below U+10000 */
			else if (c == 0xf4)
				hi = 0x8f;      /* above U+10FFFF */
		} else {
			return i;               /* 80..c1 (continuation, overlong), f5..ff */
		}
		if (len - i <= n || s[i + 1] < lo || s[i + 1] > hi)
			return i;
		for (k = 2; k <= n; k++)
			if (s[i + k] < 0x80 || s[i + k] > 0xbf)
				return i;
		i += n + 1;
	}
	return len;
}

/* Decode the escape at P (a backslash; the string was validated) into OUT as
 * UTF-8. Returns the number of text bytes it took; *N gets the bytes out. */
static size_t decode_escape(const char *p, unsigned char out[4], size_t *n)
{
	unsigned long cp;

	switch (p[1]) {
	case 'b': out[0] = '\b'; break;
	case 'f': out[0] = '\f'; break;
	case 'n': out[0] = '\n'; break;
	case 'r': out[0] = '\r'; break;
	case 't': out[0] = '\t'; break;
	case 'u':
		cp = (unsigned long)hex4(p, 6, 2);
		if (cp >= 0xd800 && cp <= 0xdbff) {
			cp = 0x10000 + ((cp - 0xd800) << 10) +
			     ((unsigned long)hex4(p + 6, 6, 2) - 0xdc00);
			out[0] = (unsigned char)(0xf0 | (cp >> 18));
			out[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
			out[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
			out[3] = (unsigned char)(0x80 | (cp & 0x3f));
			*n = 4;
			return 12;
		}
		if (cp < 0x80) {
			out[0] = (unsigned char)cp;
			*n = 1;
		} else if (cp < 0x800) {
			out[0] = (unsigned char)(0xc0 | (cp >> 6));
			out[1] = (unsigned char)(0x80 | (cp & 0x3f));
			*n = 2;
		} else {
			out[0] = (unsigned char)(0xe0 | (cp >> 12));
			out[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
			out[2] = (unsigned char)(0x80 | (cp & 0x3f));
			*n = 3;
		}
		return 6;
	default: /* '"', '\\', '/' stand for themselves */
		out[0] = (unsigned char)p[1];
		break;
	}
	*n = 1;
	return 2;
}

/* Decode the string between quotes at S[START..END) into OUT; its length. */
static size_t unescape(const char *s, size_t start, size_t end, char *out)
{
	const char *p = s + start, *e = s + end, *bs;
	char *o = out;
	unsigned char u[4];
	size_t n;

	while (p < e) {
		if (!(bs = memchr(p, '\\', (size_t)(e - p)))) {
			memcpy(o, p, (size_t)(e - p));
			o += e - p;
			break;
		}
		memcpy(o, p, (size_t)(bs - p));
		o += bs - p;
		p = bs + decode_escape(bs, u, &n);
		memcpy(o, u, n);
		o += n;
	}
	return (size_t)(o - out);
}

/* The key text as it was written, cut short for a one-line message. */
static int key_shown(const struct walk *w, size_t pos, size_t end)
{
	size_t n = end - pos - 1;

	if (n > 40) {
		n = 40;
		while (n > 0 && ((unsigned char)w->s[pos + 1 + n] & 0xc0) == 0x80)
			n--;            /* do not cut a UTF-8 sequence */
	}
	return (int)n;
}

/* The N source bytes of a key at P, as they may appear in a one-line
 * message: DEL and the C1 controls, which JSON lets stand raw in a string,
 * become \u escapes (a terminal may act on them). OUT holds 6 * N + 1. */
static void quote_key(const char *p, size_t n, char *out)
{
	const unsigned char *u = (const unsigned char *)p;

	for (size_t i = 0; i < n; i++) {
		if (u[i] == 0x7f) {
			out += sprintf(out, "\\u007f");
		} else if (u[i] == 0xc2 && i + 1 < n && u[i + 1] >= 0x80 && u[i + 1] <= 0x9f) {
			out += sprintf(out, "\\u%04x", u[i + 1]);
			i++;
		} else {
			*out++ = (char)u[i];
		}
	}
	*out = '\0';
}

/* 1 when none of the 8 bytes at P is a quote, a backslash or below 0x20
 * (the classic SWAR zero-byte tests; bytes >= 0x80 never match). */
static int plain8(const char *p)
{
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
	uint64_t v, q, b;

	memcpy(&v, p, 8);
	q = v ^ (ones * '"');
	b = v ^ (ones * '\\');
	return !((((q - ones) & ~q) | ((b - ones) & ~b) |
	          ((v - ones * 0x20) & ~v)) & high);
}

/* The offset of the first bracket that opens a container deeper than
 * JSON_MAX_DEPTH, or LEN. jsmn climbs from its last token to the open
 * container at every closing bracket, which is quadratic in the depth (100,000
 * brackets: twenty seconds); with the depth bounded the climb is bounded too,
 * so text nested too deeply never reaches jsmn. Strings are skipped. */
static size_t too_deep(const char *s, size_t len)
{
	unsigned depth = 0;
	size_t i = 0;

	while (i < len) {
		switch (s[i]) {
		case '"':
			for (i++; i < len; i++) {
				while (len - i >= 8 && plain8(s + i))
					i += 8;
				if (i >= len || s[i] == '"')
					break;
				if (s[i] == '\\')
					i++;
			}
			break;
		case '{':
		case '[':
			if (++depth > JSON_MAX_DEPTH)
				return i;
			break;
		case '}':
		case ']':
			if (depth)
				depth--;
			break;
		default:
			break;
		}
		i++;
	}
	return len;
}

/* A string whose opening quote is at POS: checks escapes and control bytes
 * (UTF-8 was checked for the whole text) and finds the closing quote. */
static int scan_string(struct walk *w, size_t pos, size_t *close)
{
	const char *s = w->s;
	size_t p = pos + 1;
	long cu;

	for (;;) {
		unsigned char c;

		while (w->len - p >= 8 && plain8(s + p))
			p += 8;
		if (p >= w->len)
			return fail(w, "unterminated string at byte %zu", pos);
		c = (unsigned char)s[p];
		if (c == '"')
			break;
		if (c < 0x20)
			return fail(w, "control character 0x%02x in a string at byte %zu",
			            c, p);
		if (c != '\\') {
			p++;
			continue;
		}
		if (p + 1 >= w->len)
			return fail(w, "unterminated string at byte %zu", pos);
		switch (s[p + 1]) {
		case '"': case '\\': case '/': case 'b': case 'f': case 'n':
		case 'r': case 't':
			p += 2;
			break;
		case 'u':
			if ((cu = hex4(s, w->len, p + 2)) < 0)
				return fail(w, "invalid \\u escape at byte %zu", p);
			if (cu >= 0xdc00 && cu <= 0xdfff)
				return fail(w, "lone surrogate \\u%04lx at byte %zu", cu, p);
			if (cu >= 0xd800 && cu <= 0xdbff) {
				long lo = -1;

				if (p + 7 < w->len && s[p + 6] == '\\' && s[p + 7] == 'u')
					lo = hex4(s, w->len, p + 8);
				if (lo < 0xdc00 || lo > 0xdfff)
					return fail(w, "lone surrogate \\u%04lx at byte %zu",
					            cu, p);
				p += 12;
			} else {
				p += 6;
			}
			break;
		default:
			return fail(w, "invalid escape at byte %zu", p);
		}
	}
	*close = p;
	return 1;
}

/* A number at POS: the JSON grammar, then integers only, within ±(2^53-1).
 * Never converts, so a thousand digits cannot overflow anything. */
static int scan_number(struct walk *w, size_t pos, size_t *end)
{
	static const char max[] = "9007199254740991";
	const unsigned char *s = (const unsigned char *)w->s;
	size_t p = pos, digits, ndig;
	int integer = 1;

	if (p < w->len && s[p] == '-')
		p++;
	digits = p;
	if (p < w->len && s[p] == '0')
		p++;
	else if (p < w->len && s[p] >= '1' && s[p] <= '9')
		while (p < w->len && is_digit(s[p]))
			p++;
	else
		return fail(w, "invalid number at byte %zu", pos);
	ndig = p - digits;
	if (p < w->len && s[p] == '.') {
		integer = 0;
		if (++p >= w->len || !is_digit(s[p]))
			return fail(w, "invalid number at byte %zu", pos);
		while (p < w->len && is_digit(s[p]))
			p++;
	}
	if (p < w->len && (s[p] == 'e' || s[p] == 'E')) {
		integer = 0;
		p++;
		if (p < w->len && (s[p] == '+' || s[p] == '-'))
			p++;
		if (p >= w->len || !is_digit(s[p]))
			return fail(w, "invalid number at byte %zu", pos);
		while (p < w->len && is_digit(s[p]))
			p++;
	}
	if (p < w->len && is_lexchar(s[p]))
		return fail(w, "invalid number at byte %zu", pos);  /* 01, 1x, 1.2.3 */
	if (!integer)
		return fail(w, "not an integer at byte %zu", pos);
	if (ndig > sizeof max - 1 ||
	    (ndig == sizeof max - 1 && memcmp(s + digits, max, ndig) > 0))
		return fail(w, "integer out of range at byte %zu", pos);
	*end = p;
	return 1;
}

static int scan_literal(struct walk *w, size_t pos, enum json_type *type,
                        size_t *end)
{
	static const struct { const char *word; enum json_type type; } lit[] = {
		{ "true", JSON_TRUE }, { "false", JSON_FALSE }, { "null", JSON_NULL },
	};
	size_t i, n;

	for (i = 0; i < sizeof lit / sizeof lit[0]; i++) {
		n = strlen(lit[i].word);
		if (w->len - pos >= n && !memcmp(w->s + pos, lit[i].word, n) &&
		    (w->len - pos == n || !is_lexchar((unsigned char)w->s[pos + n]))) {
			*type = lit[i].type;
			*end = pos + n;
			return 1;
		}
	}
	return fail(w, "invalid literal at byte %zu", pos);
}

/* Take jsmn's next token for the value or key of TYPE the walk found at
 * [POS, END) (for strings: the quotes included), convert its slot, and return
 * its index. From the first disagreement on, nothing is taken or written. */
static unsigned take(struct walk *w, enum json_type type, size_t pos, size_t end,
                     jsmntok_t *jt)
{
	struct json_tok *t;
	jsmntype_t want;
	int ok;

	if (w->notok)
		return 0;
	switch (type) {
	case JSON_OBJECT: want = JSMN_OBJECT; break;
	case JSON_ARRAY:  want = JSMN_ARRAY; break;
	case JSON_STRING: want = JSMN_STRING; break;
	case JSON_NUMBER: case JSON_TRUE: case JSON_FALSE: case JSON_NULL:
	default:          want = JSMN_PRIMITIVE; break;
	}
	ok = w->next < w->ntok;
	if (ok) {
		memcpy(jt, (char *)w->slots + (size_t)w->next * sizeof *jt, sizeof *jt);
		if (want == JSMN_STRING)
			ok = jt->type == want && jt->start >= 1 &&
			     (size_t)jt->start == pos + 1 && (size_t)jt->end == end - 1;
		else if (want == JSMN_PRIMITIVE)
			ok = jt->type == want && jt->start >= 0 &&
			     (size_t)jt->start == pos && (size_t)jt->end == end;
		else
			ok = jt->type == want && jt->start >= 0 &&
			     (size_t)jt->start == pos;
	}
	if (!ok) {
		w->notok = 1;
		w->disagree = pos;
		return 0;
	}
	t = (struct json_tok *)w->slots + w->next;
	t->type = type;
	t->start = (unsigned)(type == JSON_STRING ? pos + 1 : pos);
	t->end = (unsigned)(type == JSON_STRING ? end - 1 : end);
	t->size = 0;
	t->next = w->next + 1;
	return w->next++;
}

static int push_key(struct walk *w, size_t pos, size_t close)
{
	struct key *k;

	if (w->nkeys == w->capkeys) {
		size_t cap = w->capkeys ? 2 * w->capkeys : 64;
		struct key *nk = realloc(w->keys, cap * sizeof *nk);

		if (!nk)
			return fail(w, "out of memory");
		w->keys = nk;
		w->capkeys = cap;
	}
	k = &w->keys[w->nkeys++];
	k->pos = pos;
	if (!memchr(w->s + pos + 1, '\\', close - pos - 1)) {
		k->s = w->s + pos + 1;
		k->len = close - pos - 1;
		k->head = json_key_head(k->s, k->len);
		return 1;
	}
	if (!w->arena && !(w->arena = malloc(w->len)))
		return fail(w, "out of memory");
	k->s = w->arena + w->arena_top;
	k->len = unescape(w->s, pos + 1, close, w->arena + w->arena_top);
	w->arena_top += k->len;
	k->head = json_key_head(k->s, k->len);
	return 1;
}

static int keycmp(const void *a, const void *b)
{
	const struct key *x = a, *y = b;
	int c;

	if (x->head != y->head)
		return x->head < y->head ? -1 : 1;
	if ((c = memcmp(x->s, y->s, x->len < y->len ? x->len : y->len)))
		return c;
	return (x->len > y->len) - (x->len < y->len);
}

/* Keys K[0..N) of one object: refuse a duplicate, compared after decoding.
 * Sorting makes this O(n log n) for objects with many keys. */
static int check_duplicates(struct walk *w, struct key *k, size_t n)
{
	size_t i, at = (size_t)-1;

	if (n < 2)
		return 1;
	qsort(k, n, sizeof *k, keycmp);
	for (i = 1; i < n; i++)
		if (!keycmp(&k[i - 1], &k[i])) {
			size_t later = k[i].pos > k[i - 1].pos ? k[i].pos : k[i - 1].pos;

			if (later < at)
				at = later;
		}
	if (at == (size_t)-1)
		return 1;
	{
		size_t close;
		char shown[40 * 6 + 1];

		scan_string(w, at, &close);
		quote_key(w->s + at + 1, (size_t)key_shown(w, at, close), shown);
		return fail(w, "duplicate key \"%s%s\" at byte %zu", shown,
		            close - at - 1 > 40 ? "..." : "", at);
	}
}

static void show_byte(const struct walk *w, size_t p, char *buf, size_t n)
{
	unsigned char c = (unsigned char)w->s[p];

	if (c > 0x20 && c < 0x7f)
		snprintf(buf, n, "'%c'", c);
	else
		snprintf(buf, n, "byte 0x%02x", c);
}

static int unexpected(struct walk *w, size_t p, const char *what)
{
	char b[16];

	if (p >= w->len)
		return fail(w, "unexpected end of input at byte %zu (%s)", p, what);
	show_byte(w, p, b, sizeof b);
	return fail(w, "unexpected %s at byte %zu (%s)", b, p, what);
}

static int walk(struct walk *w)
{
	struct frame st[JSON_MAX_DEPTH];
	struct frame *f;
	unsigned depth = 0;
	size_t p, end = 0, close = 0;
	jsmntok_t jt;
	unsigned ti;
	enum json_type type = JSON_NULL;
	unsigned char c;

	p = skip_ws(w, 0);
	if (p >= w->len)
		return fail(w, "empty document");
	if (w->s[p] != '{')
		return fail(w, "top level is not an object at byte %zu", p);

value:  /* a value at P (whitespace skipped) at level depth + 1 */
	if (depth >= JSON_MAX_DEPTH)
		return fail(w, "nested deeper than %d at byte %zu", JSON_MAX_DEPTH, p);
	if (p >= w->len)
		return unexpected(w, p, "expected a value");
	c = (unsigned char)w->s[p];
	switch (c) {
	case '{':
	case '[':
		ti = take(w, c == '{' ? JSON_OBJECT : JSON_ARRAY, p, p + 1, &jt);
		f = &st[depth++];
		f->tok = ti;
		f->count = 0;
		f->keymark = w->nkeys;
		f->arenamark = w->arena_top;
		f->jend = w->notok ? -1 : jt.end;
		f->jsize = w->notok ? -1 : jt.size;
		f->close = c == '{' ? '}' : ']';
		p = skip_ws(w, p + 1);
		if (p < w->len && (unsigned char)w->s[p] == (unsigned char)f->close)
			goto close;
		if (c == '{')
			goto key;
		goto value;
	case '"':
		if (!scan_string(w, p, &close))
			return 0;
		take(w, JSON_STRING, p, close + 1, &jt);
		p = close + 1;
		break;
	case '-': case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		if (!scan_number(w, p, &end))
			return 0;
		take(w, JSON_NUMBER, p, end, &jt);
		p = end;
		break;
	case 't':
	case 'f':
	case 'n':
		if (!scan_literal(w, p, &type, &end))
			return 0;
		take(w, type, p, end, &jt);
		p = end;
		break;
	default:
		return unexpected(w, p, "expected a value");
	}

after:  /* a value ended just before P */
	if (depth == 0) {
		p = skip_ws(w, p);
		if (p < w->len)
			return unexpected(w, p, "after the top-level object");
		return 1;
	}
	f = &st[depth - 1];
	f->count++;
	p = skip_ws(w, p);
	if (p >= w->len)
		return unexpected(w, p, f->close == '}' ? "expected ',' or '}'"
		                                        : "expected ',' or ']'");
	if (w->s[p] == ',') {
		p = skip_ws(w, p + 1);
		if (f->close == '}')
			goto key;
		goto value;
	}
	if (w->s[p] != f->close)
		return unexpected(w, p, f->close == '}' ? "expected ',' or '}'"
		                                        : "expected ',' or ']'");

close:  /* the closing bracket of the innermost container is at P */
	f = &st[depth - 1];
	/* An object without keys has no array to point into (keys may be NULL:
	 * NULL + 0 is undefined behaviour). */
	if (f->close == '}' && w->nkeys > f->keymark &&
	    !check_duplicates(w, w->keys + f->keymark, w->nkeys - f->keymark))
		return 0;
	w->nkeys = f->keymark;
	w->arena_top = f->arenamark;
	if (!w->notok) {
		if (f->jend < 0 || (size_t)f->jend != p + 1 ||
		    f->jsize < 0 || (unsigned)f->jsize != f->count) {
			w->notok = 1;
			w->disagree = p;
		} else {
			struct json_tok *t = (struct json_tok *)w->slots + f->tok;

			t->end = (unsigned)(p + 1);
			t->size = f->count;
			t->next = w->next;
		}
	}
	depth--;
	p++;
	goto after;

key:    /* a member key at P (whitespace skipped) */
	if (p >= w->len || w->s[p] != '"')
		return unexpected(w, p, "expected a string key");
	if (!scan_string(w, p, &close))
		return 0;
	take(w, JSON_STRING, p, close + 1, &jt);
	if (!push_key(w, p, close))
		return 0;
	p = skip_ws(w, close + 1);
	if (p >= w->len || w->s[p] != ':')
		return unexpected(w, p, "expected ':'");
	p = skip_ws(w, p + 1);
	goto value;
}

int json_parse(struct json_doc *doc, const char *text, size_t len,
               char *err, size_t errlen)
{
	struct walk w;
	jsmn_parser jp;
	size_t bad, cap;
	int r, ok;

	memset(doc, 0, sizeof *doc);
	memset(&w, 0, sizeof w);
	w.err = err;
	w.errlen = errlen;
	if (len > JSON_MAX_BYTES)
		return fail(&w, "larger than 1 MiB (%zu bytes)", len);
	if ((bad = utf8_check((const unsigned char *)text, len)) != len)
		return fail(&w, "invalid UTF-8 at byte %zu", bad);
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		return fail(&w, "starts with a byte-order mark");

	/* A valid text of LEN bytes has at most (LEN + 1) / 2 tokens (each value
	 * takes two bytes with its separator); the margin keeps every valid
	 * prefix of deeply nested text covered, for precise messages. */
	cap = len / 2 + JSON_MAX_DEPTH + 2;
	if (!(w.slots = malloc(cap * sizeof(struct json_tok))))
		return fail(&w, "out of memory");
	w.s = text;
	w.len = len;
	jsmn_init(&jp);
	if ((bad = too_deep(text, len)) == len) {
		r = jsmn_parse(&jp, text, len, w.slots, (unsigned)cap);
		w.ntok = r >= 0 ? (unsigned)r : jp.toknext;
	} else {
		/* Refused for sure: the walk alone finds the first error. */
		r = JSMN_ERROR_INVAL;
		jp.pos = (unsigned)bad;
		w.notok = 1;
		w.disagree = bad;
	}

	ok = walk(&w);
	if (ok && (w.notok || r < 0 || w.next != w.ntok))
		ok = fail(&w, "invalid JSON at byte %zu (the tokenizer disagrees)",
		          w.notok ? w.disagree : (size_t)jp.pos);
	free(w.keys);
	free(w.arena);
	if (!ok) {
		free(w.slots);
		return 0;
	}
	doc->text = text;
	doc->len = len;
	doc->tok = w.slots;
	doc->ntok = w.ntok;
	return 1;
}

void json_free(struct json_doc *doc)
{
	free(doc->tok);
	doc->tok = NULL;
	doc->ntok = 0;
}

size_t json_unescape(const struct json_doc *doc, unsigned i, char *out)
{
	const struct json_tok *t = &doc->tok[i];

	return unescape(doc->text, t->start, t->end, out);
}

uint64_t json_key_head(const char *s, size_t len)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < 8; i++)
		v = v << 8 | (i < len ? (unsigned char)s[i] : 0);
	return v;
}

char *json_string(const struct json_doc *doc, unsigned i, size_t *outlen)
{
	const struct json_tok *t = &doc->tok[i];
	char *s = malloc(t->end - t->start + 1);
	size_t n;

	if (!s)
		return NULL;
	n = json_unescape(doc, i, s);
	s[n] = '\0';
	if (outlen)
		*outlen = n;
	return s;
}

int json_streq(const struct json_doc *doc, unsigned i, const char *s)
{
	const struct json_tok *t = &doc->tok[i];
	const char *p = doc->text + t->start, *e = doc->text + t->end;
	unsigned char u[4];
	size_t n, k;

	if (t->type != JSON_STRING)
		return 0;
	while (p < e) {
		if (*p != '\\') {
			if (*s++ != *p++)
				return 0;
			continue;
		}
		p += decode_escape(p, u, &n);
		for (k = 0; k < n; k++)
			if (u[k] == '\0' || (unsigned char)*s++ != u[k])
				return 0;
	}
	return *s == '\0';
}

long long json_integer(const struct json_doc *doc, unsigned i)
{
	const struct json_tok *t = &doc->tok[i];
	const char *p = doc->text + t->start, *e = doc->text + t->end;
	long long v = 0;
	int neg = 0;

	if (p < e && *p == '-') {
		neg = 1;
		p++;
	}
	while (p < e)
		v = v * 10 + (*p++ - '0');
	return neg ? -v : v;
}

unsigned json_get(const struct json_doc *doc, unsigned obj, const char *key)
{
	unsigned j = obj + 1, m;

	for (m = 0; m < doc->tok[obj].size; m++) {
		if (json_streq(doc, j, key))
			return j + 1;
		j = doc->tok[j + 1].next;
	}
	return 0;
}
