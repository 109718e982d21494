/* Strict JSON reader (json.h). jsmn, in strict mode, finds the tokens and
 * the tree: which value belongs to which key, array or object, each bracket
 * matched to its kind, the letters of every escape. What it lets through,
 * this file checks once, token by token:
 *  - separators: jsmn skips ',' and ':' wherever they stand;
 *  - primitives: it takes any run of printable bytes that starts like a
 *    number or a literal ("truex", "1.2.3", "-", "1e");
 *  - strings: raw control bytes, lone surrogate escapes;
 *  - places: a key without a value, a value after a value ("a":"b":1);
 *  - duplicate keys, anything after the top-level object.
 * And before jsmn runs: the size, UTF-8, a BOM, NUL bytes (where jsmn stops
 * reading), the top level, the depth (at each closing bracket jsmn climbs
 * from its last token to the open container: quadratic in the depth, so
 * text nested deeper than the limit never reaches it). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSMN_STRICT
#define JSMN_PARENT_LINKS
#define JSMN_STATIC
#include <jsmn.h>

#include "common.h"
#include "json.h"
#include "text.h"

PRINTF(3, 4)
static int refuse(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return 0;
}

static int is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* "unexpected 'c' at byte P", or "byte 0xNN" when C is not printable. */
static int unexpected(char *err, size_t errlen, unsigned char c, size_t p, const char *where)
{
	char b[16];

	snprintf(b, sizeof b, c > 0x20 && c < 0x7f ? "'%c'" : "byte 0x%02x", c);
	return refuse(err, errlen, "unexpected %s at byte %zu%s", b, p, where);
}

/* The offset of the first value nested deeper than JSON_MAX_DEPTH (the
 * top-level object is level 1), or LEN. Inside 64 containers only white
 * space and a closing bracket may stand. */
static size_t too_deep(const char *s, size_t len)
{
	unsigned depth = 0;

	for (size_t i = 0; i < len; i++) {
		if (depth == JSON_MAX_DEPTH && !is_ws(s[i]) && s[i] != '}' && s[i] != ']')
			return i;
		if (s[i] == '"')
			for (i++; i < len && s[i] != '"'; i++)
				i += s[i] == '\\';
		else if (s[i] == '{' || s[i] == '[')
			depth++;
		else if ((s[i] == '}' || s[i] == ']') && depth)
			depth--;
	}
	return len;
}

/* The end of the run of digits that starts at S[P]. */
static size_t digits(const char *s, size_t p, size_t n)
{
	while (p < n && is_digit(s[p]))
		p++;
	return p;
}

/* Number S (N bytes): JSON's grammar, then integers only, within
 * ±(2^53-1). Never converts, so a thousand digits overflow nothing. 1, or
 * 0 refused; -1 refused as a JSON number that pbp does not allow. */
static int check_number(char *err, size_t errlen, const char *s, size_t n, size_t at)
{
	static const char max[] = "9007199254740991";
	size_t i = s[0] == '-';                                    /* first digit */
	size_t e = i < n && s[i] == '0' ? i + 1 : digits(s, i, n); /* its end */
	size_t p = e;
	int ok = e > i;

	if (p < n && s[p] == '.') {
		size_t f = p + 1;
		ok &= (p = digits(s, f, n)) > f;
	}
	if (p < n && (s[p] == 'e' || s[p] == 'E')) {
		size_t x = p + 1 + (p + 1 < n && (s[p + 1] == '+' || s[p + 1] == '-'));
		ok &= (p = digits(s, x, n)) > x;
	}
	if (!ok || p != n)
		return refuse(err, errlen, "invalid number at byte %zu", at);
	if (e != n)
		return refuse(err, errlen, "not an integer at byte %zu", at) - 1;
	if (n - i > sizeof max - 1 || (n - i == sizeof max - 1 && memcmp(s + i, max, n - i) > 0))
		return refuse(err, errlen, "integer out of range at byte %zu", at) - 1;
	return 1;
}

static int check_primitive(char *err, size_t errlen, const char *s, size_t n, size_t at)
{
	if (s[0] == '-' || is_digit(s[0]))
		return check_number(err, errlen, s, n, at);
	if ((n == 4 && !memcmp(s, "true", 4)) || (n == 5 && !memcmp(s, "false", 5)) ||
	    (n == 4 && !memcmp(s, "null", 4)))
		return 1;
	return refuse(err, errlen, "invalid literal at byte %zu", at);
}

/* The code unit of the \u escape at P (jsmn checked its four hex digits). */
static unsigned long code_unit(const char *p)
{
	unsigned long v = 0;

	for (int i = 2; i < 6; i++)
		v = v << 4 | (unsigned long)hex_value(p[i]);
	return v;
}

static int check_string(char *err, size_t errlen, const char *s, size_t start, size_t end)
{
	for (size_t p = start; p < end; p++) {
		unsigned long cu, lo;

		if ((unsigned char)s[p] < 0x20)
			return refuse(err, errlen, "control character 0x%02x in a string at byte %zu",
			              (unsigned)s[p], p);
		if (s[p] != '\\')
			continue;
		if (s[p + 1] != 'u') {
			p++;
			continue;
		}
		cu = code_unit(s + p);
		if (cu >= 0xd800 && cu <= 0xdbff && end - p >= 12 && s[p + 6] == '\\' &&
		    s[p + 7] == 'u' && (lo = code_unit(s + p + 6)) >= 0xdc00 && lo <= 0xdfff)
			p += 6;
		else if (cu >= 0xd800 && cu <= 0xdfff)
			return refuse(err, errlen, "lone surrogate \\u%04lx at byte %zu", cu, p);
		p += 5;
	}
	return 1;
}

/* Where token T's text begins, and where what may follow it does: for a
 * container, just inside its opening bracket. */
static size_t lex_start(const jsmntok_t *t)
{
	return (size_t)t->start - (t->type == JSMN_STRING);
}

static size_t lex_end(const jsmntok_t *t)
{
	if (t->type == JSMN_OBJECT || t->type == JSMN_ARRAY)
		return (size_t)t->start + 1;
	return (size_t)t->end + (t->type == JSMN_STRING);
}

/* The bytes S[FROM..TO) between two tokens: white space, closing brackets
 * where CLOSE allows them, then SEP once when it is not 0. */
static int check_gap(char *err, size_t errlen, const char *s, size_t from, size_t to,
                     char sep, int close)
{
	int seen = 0;

	for (size_t p = from; p < to; p++) {
		if (is_ws(s[p]) || ((s[p] == ']' || s[p] == '}') && close && !seen))
			continue;
		if (s[p] != sep || seen)
			return unexpected(err, errlen, (unsigned char)s[p], p, "");
		seen = 1;
	}
	if (sep && !seen)
		return refuse(err, errlen, "expected '%c' at byte %zu", sep, to);
	return 1;
}

/* Token I in its place: a value only as the one child of a key, keys only
 * in objects and each with a value, and the separator before it: ':'
 * after a key, ',' after a sibling (and the brackets that closed it). */
static int check_place(const struct json_doc *d, unsigned i, char *err, size_t errlen)
{
	const jsmntok_t *t = &d->tok[i], *p = &d->tok[t->parent];
	size_t from = lex_end(&d->tok[i - 1]), to = lex_start(t);
	int first = i == (unsigned)t->parent + 1;
	char sep = p->type == JSMN_STRING ? ':' : first ? 0 : ',';

	if (p->type == JSMN_PRIMITIVE || (p->type == JSMN_STRING && (!first ||
	    p->parent < 0 || d->tok[p->parent].type != JSMN_OBJECT)))
		return check_gap(err, errlen, d->text, from, to, 0, 0) &&
		       unexpected(err, errlen, (unsigned char)d->text[to], to, "");
	if (!check_gap(err, errlen, d->text, from, to, sep, sep == ','))
		return 0;
	if (p->type == JSMN_OBJECT && t->size == 0)   /* jsmn: only strings here */
		return refuse(err, errlen, "expected ':' at byte %zu", lex_end(t));
	return 1;
}

/* No two keys of one object alike, once decoded. A key is followed by its
 * value, so no object has more than NTOK / 2 keys. A small document's
 * keys are kept on the stack: musl maps a heap group for them and unmaps
 * it again at the free. */
static int check_duplicates(const struct json_doc *d, char *err, size_t errlen)
{
	struct text_item small[64], *it = d->ntok / 2 + 1 <= 64 ? small :
	                                  calloc(d->ntok / 2 + 1, sizeof *it);
	char shown[QUOTED_MAX];
	int ok = 1;

	if (!it)
		return refuse(err, errlen, "out of memory");
	for (unsigned o = 0; ok && o < d->ntok; o++) {
		if (d->tok[o].type != JSMN_OBJECT)
			continue;
		JSON_EACH_MEMBER(d, o, m, k) {
			it[m].s = json_str(d, k, &it[m].len);
			it[m].at = lex_start(&d->tok[k]);
		}
		if (text_duplicates(it, (size_t)d->tok[o].size))
			ok = refuse(err, errlen, "duplicate key %s at byte %zu",
			            quote(shown, it[0].s, it[0].len, QUOTE_ALWAYS), it[0].at);
	}
	if (it != small)
		free(it);
	return ok;
}

/* Why jsmn refused (R) at P, as precisely as that allows; TOP is where the
 * top-level object ended, if it did. */
static int jsmn_refused(int r, size_t p, int top, const char *s, size_t len,
                        char *err, size_t errlen)
{
	if (p >= len || (r == JSMN_ERROR_PART && s[p] != '"'))
		return refuse(err, errlen, "unexpected end of input at byte %zu", len);
	if (s[p] != '"')
		return unexpected(err, errlen, (unsigned char)s[p], p, top > 0 && p >= (size_t)top ?
		                  " (after the top-level object)" : "");
	for (size_t e = p + 1; r == JSMN_ERROR_INVAL && e + 1 < len && s[e] != '"'; e++) {
		if (s[e] != '\\')
			continue;
		if (s[e + 1] == 'u')
			for (size_t k = e + 2; k < e + 6; k++)
				if (k >= len || hex_value(s[k]) < 0)
					return refuse(err, errlen, "invalid \\u escape at byte %zu", e);
		if (!strchr("\"\\/bfnrtu", s[e + 1]))
			return refuse(err, errlen, "invalid escape at byte %zu", e);
		e++;
	}
	return refuse(err, errlen, "unterminated string at byte %zu", p);
}

/* Where token I stands, appended to OUT (N bytes) as the policy checker
 * names places: ".process.max_pids", ".files.read[2]"; a key bare when it
 * is a plain word, else quoted. */
static void path_of(const struct json_doc *d, unsigned i, char *out, size_t n)
{
	char q[QUOTED_MAX];
	int up = d->tok[i].parent, index = 0;
	size_t len;
	char *key;

	if (up <= 0)
		return;
	if (d->tok[up].type == JSMN_ARRAY) {
		path_of(d, (unsigned)up, out, n);
		for (unsigned k = (unsigned)up + 1; k < i; k++)
			index += d->tok[k].parent == up;
		snprintf(out + strlen(out), n - strlen(out), "[%d]", index);
	} else if ((key = json_string(d, (unsigned)up, &len))) {
		path_of(d, (unsigned)d->tok[up].parent, out, n);  /* the key's object */
		snprintf(out + strlen(out), n - strlen(out), ".%s", len && len <= QUOTE_MAX &&
		         strspn(key, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
		         == len ? key : quote(q, key, len, QUOTE_ALWAYS));
		free(key);
	}
}

/* ERR, about the number at token I that pbp refuses, led by where it
 * stands: "process.max_pids: not an integer at byte 77"; left as it is
 * when that does not fit. */
static void at_keypath(const struct json_doc *d, unsigned i, char *err, size_t errlen)
{
	char path[512] = "", was[256];

	path_of(d, i, path, sizeof path);
	snprintf(was, sizeof was, "%s", err);
	if (path[0] && strlen(path) + 1 + strlen(was) < errlen && strlen(path) + 1 < sizeof path)
		snprintf(err, errlen, "%s: %s", path + 1, was);
}

/* After jsmn: nothing after the object, every token in its place, strings,
 * numbers, literals, then the duplicates. */
static int check(const struct json_doc *d, char *err, size_t errlen)
{
	int r;

	for (size_t p = (size_t)d->tok[0].end; p < d->len; p++)
		if (!is_ws(d->text[p]))
			return unexpected(err, errlen, (unsigned char)d->text[p], p,
			                  " (after the top-level object)");
	for (unsigned i = 1; i < d->ntok; i++) {
		const jsmntok_t *t = &d->tok[i];

		if (!check_place(d, i, err, errlen))
			return 0;
		if (t->type == JSMN_STRING &&
		    !check_string(err, errlen, d->text, (size_t)t->start, (size_t)t->end))
			return 0;
		if (t->type == JSMN_PRIMITIVE && (r = check_primitive(err, errlen, d->text + t->start,
		    (size_t)(t->end - t->start), (size_t)t->start)) <= 0) {
			if (r < 0)
				at_keypath(d, i, err, errlen);
			return 0;
		}
	}
	return check_gap(err, errlen, d->text, lex_end(&d->tok[d->ntok - 1]),
	                 (size_t)d->tok[0].end, 0, 1) &&
	       check_duplicates(d, err, errlen);
}

/* Each check above writes where it stopped as "at byte P"; the reader of
 * ERR gets "at line L, column C" instead, both from 1, the column counted
 * in characters (TEXT before P is valid UTF-8: utf8_check stops at the
 * first byte that is not). */
static void locate(char *err, size_t errlen, const char *text, size_t len)
{
	char *at = strstr(err, " at byte "), *end, rest[128];
	size_t p, line = 1, col = 1;

	if (!at)
		return;
	p = strtoul(at + 9, &end, 10);
	for (size_t i = 0; i < p && i < len; i++) {
		if (text[i] == '\n')
			line++, col = 1;
		else
			col += ((unsigned char)text[i] & 0xc0) != 0x80;
	}
	snprintf(rest, sizeof rest, "%s", end);
	snprintf(at, errlen - (size_t)(at - err), " at line %zu, column %zu%s", line, col, rest);
}

static int parse(struct json_doc *doc, const char *text, size_t len,
                 char *err, size_t errlen)
{
	jsmn_parser jp;
	const char *nul;
	size_t p;
	int r;

	memset(doc, 0, sizeof *doc);
	if (len > JSON_MAX_BYTES)
		return refuse(err, errlen, "larger than 1 MiB (%zu bytes)", len);
	if ((p = utf8_check((const unsigned char *)text, len)) != len)
		return refuse(err, errlen, "invalid UTF-8 at byte %zu", p);
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		return refuse(err, errlen, "starts with a byte-order mark");
	if ((nul = memchr(text, '\0', len)))
		return refuse(err, errlen, "NUL byte at byte %zu", (size_t)(nul - text));
	for (p = 0; p < len && is_ws(text[p]); p++)
		;
	if (p == len)
		return refuse(err, errlen, "empty document");
	if (text[p] != '{')
		return refuse(err, errlen, "top level is not an object at byte %zu", p);
	if ((p = too_deep(text, len)) != len)
		return refuse(err, errlen, "nested deeper than %d at byte %zu", JSON_MAX_DEPTH, p);
	/* Each token takes two bytes or more, counting what ends it. */
	if (!(doc->tok = calloc(len / 2 + 2, sizeof *doc->tok)) ||
	    (memchr(text, '\\', len) && !(doc->decoded = malloc(len)))) {
		json_free(doc);
		return refuse(err, errlen, "out of memory");
	}
	doc->text = text;
	doc->len = len;
	jsmn_init(&jp);
	r = jsmn_parse(&jp, text, len, doc->tok, (unsigned)(len / 2 + 2));
	doc->ntok = r > 0 ? (unsigned)r : 0;
	if (r > 0 ? check(doc, err, errlen) : jsmn_refused(r, jp.pos, doc->tok[0].end, text, len, err, errlen))
		return 1;
	json_free(doc);
	return 0;
}

int json_parse(struct json_doc *doc, const char *text, size_t len,
               char *err, size_t errlen)
{
	if (parse(doc, text, len, err, errlen))
		return 1;
	locate(err, errlen, text, len);
	return 0;
}

void json_free(struct json_doc *doc)
{
	free(doc->tok);
	free(doc->decoded);
	memset(doc, 0, sizeof *doc);
}

enum json_type json_type(const struct json_doc *doc, unsigned i)
{
	const jsmntok_t *t = &doc->tok[i];

	if (t->type != JSMN_PRIMITIVE)
		return (enum json_type)t->type;
	switch (doc->text[t->start]) {
	case 't': return JSON_TRUE;
	case 'f': return JSON_FALSE;
	case 'n': return JSON_NULL;
	default:  return JSON_NUMBER;
	}
}

unsigned json_next(const struct json_doc *doc, unsigned i)
{
	unsigned lo = i + 1, hi = doc->ntok, mid;

	if (doc->tok[i].type != JSMN_OBJECT && doc->tok[i].type != JSMN_ARRAY)
		return i + 1;
	while (lo < hi) {       /* the first token that starts past I's end */
		mid = lo + (hi - lo) / 2;
		if (doc->tok[mid].start < doc->tok[i].end)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Bytes S[0..N) of a checked string, escapes resolved, into OUT (decoding
 * never lengthens); the decoded length. */
static size_t unescape(const char *s, size_t n, char *out)
{
	static const char from[] = "bfnrt", to[] = "\b\f\n\r\t";
	unsigned char *o = (unsigned char *)out;
	const char *e = s + n, *c;
	unsigned long cp;

	while (s < e) {
		if (*s != '\\') {
			*o++ = (unsigned char)*s++;
		} else if (s[1] != 'u') {
			c = strchr(from, s[1]);     /* else one of " \ / as it is */
			*o++ = (unsigned char)(c ? to[c - from] : s[1]);
			s += 2;
		} else {
			cp = code_unit(s);
			s += 6;
			if (cp >= 0xd800 && cp <= 0xdbff) {   /* its low half follows */
				cp = 0x10000 + ((cp - 0xd800) << 10) + (code_unit(s) - 0xdc00);
				s += 6;
			}
			o += utf8_put(o, cp);
		}
	}
	return (size_t)(o - (unsigned char *)out);
}

const char *json_str(const struct json_doc *doc, unsigned i, size_t *len)
{
	const jsmntok_t *t = &doc->tok[i];
	const char *raw = doc->text + t->start;

	*len = (size_t)(t->end - t->start);
	if (!doc->decoded || !memchr(raw, '\\', *len))
		return raw;
	*len = unescape(raw, *len, doc->decoded + t->start);
	return doc->decoded + t->start;
}

char *json_string(const struct json_doc *doc, unsigned i, size_t *len)
{
	size_t n;
	const char *s = json_str(doc, i, &n);
	char *copy = malloc(n + 1);

	if (!copy)
		return NULL;
	memcpy(copy, s, n);
	copy[n] = '\0';
	*len = n;
	return copy;
}

int json_streq(const struct json_doc *doc, unsigned i, const char *s)
{
	const char *d;
	size_t n;

	if (doc->tok[i].type != JSMN_STRING)
		return 0;
	d = json_str(doc, i, &n);
	return n == strlen(s) && !memcmp(d, s, n);
}

long long json_integer(const struct json_doc *doc, unsigned i)
{
	/* At most 16 digits (json_parse), and ended by the delimiter that
	 * jsmn's strict mode requires after a primitive. */
	return strtoll(doc->text + doc->tok[i].start, NULL, 10);
}

unsigned json_get(const struct json_doc *doc, unsigned obj, const char *key)
{
	JSON_EACH_MEMBER(doc, obj, m, k)
		if (json_streq(doc, k, key))
			return k + 1;
	return 0;
}
