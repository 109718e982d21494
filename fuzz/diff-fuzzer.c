/* diff-fuzzer: json.c and hash.c against a second, independent reading of
 * the same bytes. The reference below is written from DESIGN.md 2.1 and
 * ../shared/policy-hash/canon.py alone and shares no code with json.c or
 * hash.c: a plain recursive-descent parser over bytes that builds a tree,
 * and a serialiser of that tree in canon.py's form. For every input:
 *
 *  1. json_parse and the reference agree on whether to accept it;
 *  2. when both accept, canon_write's bytes equal the reference's;
 *  3. json.c's token tree agrees with the reference tree, member by member
 *     in file order: types, sizes, json_string, json_streq, json_get and
 *     json_integer (the accessors policy.c relies on);
 *  4. the canonical form is itself accepted, and canonicalises to exactly
 *     the same bytes (idempotence); hash_doc is SHA-256 of those bytes.
 *
 * A disagreement aborts with what differed; the input is the finding. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bearssl.h>

#include "hash.h"
#include "json.h"

/* hash.c quotes file names with common.c's quote(), whose messages name us. */
const char *progname = "diff-fuzzer";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond, what) do { if (!(cond)) { \
	fprintf(stderr, "diff-fuzzer: disagreement: %s (%s)\n", what, #cond); \
	abort(); } } while (0)

/* --- the reference --- */

#define REF_MAX_BYTES (1u << 20)
#define REF_MAX_LEVEL 64                 /* canon.py: the top object is level 1 */
#define REF_MAX_SAFE  9007199254740991LL

enum rtype { R_OBJECT, R_ARRAY, R_STRING, R_INT, R_TRUE, R_FALSE, R_NULL };

struct rval {
	enum rtype type;
	long long i;                     /* R_INT */
	char *s;                         /* R_STRING: decoded bytes */
	size_t slen;
	size_t n;                        /* R_OBJECT members, R_ARRAY elements */
	struct rval *v;                  /* values, in file order */
	char **k;                        /* R_OBJECT: decoded keys, file order */
	size_t *klen;
};

struct rp {
	const unsigned char *s;
	size_t len, p;
	size_t nodes;                    /* values and keys: json.c's token count */
};

static void rfree(struct rval *r)
{
	for (size_t i = 0; i < r->n; i++) {
		rfree(&r->v[i]);
		if (r->k)
			free(r->k[i]);
	}
	free(r->v);
	free(r->k);
	free(r->klen);
	free(r->s);
	memset(r, 0, sizeof *r);
}

/* Strict UTF-8 by decoding each sequence and refusing what is not the
 * shortest form of a scalar value. */
static int ref_utf8(const unsigned char *s, size_t len)
{
	static const uint32_t least[4] = { 0, 0x80, 0x800, 0x10000 };
	size_t i = 0;

	while (i < len) {
		uint32_t cp;
		size_t n, k;

		if (s[i] < 0x80) {
			i++;
			continue;
		}
		if ((s[i] & 0xe0) == 0xc0)
			n = 1, cp = s[i] & 0x1f;
		else if ((s[i] & 0xf0) == 0xe0)
			n = 2, cp = s[i] & 0x0f;
		else if ((s[i] & 0xf8) == 0xf0)
			n = 3, cp = s[i] & 0x07;
		else
			return 0;
		if (len - i - 1 < n)
			return 0;
		for (k = 1; k <= n; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if (cp < least[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += n + 1;
	}
	return 1;
}

static void ws(struct rp *r)
{
	while (r->p < r->len && (r->s[r->p] == ' ' || r->s[r->p] == '\t' ||
	                         r->s[r->p] == '\n' || r->s[r->p] == '\r'))
		r->p++;
}

static int hex4_at(const struct rp *r, size_t p, uint32_t *out)
{
	uint32_t v = 0;

	if (p > r->len || r->len - p < 4)
		return 0;
	for (size_t k = 0; k < 4; k++) {
		unsigned char c = r->s[p + k];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (uint32_t)(c - 'A' + 10);
		else
			return 0;
	}
	*out = v;
	return 1;
}

static size_t put_utf8(char *o, uint32_t cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	o[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* A string at the opening quote; decoded into a fresh buffer. canon.py
 * decodes a lone surrogate and then cannot encode it: refused either way. */
static int rstring(struct rp *r, char **out, size_t *outlen)
{
	char *b = malloc(r->len - r->p + 1);   /* decoding never lengthens */
	size_t o = 0;
	uint32_t u, lo;

	if (!b)
		abort();
	r->p++;
	for (;;) {
		unsigned char c;

		if (r->p >= r->len)
			goto bad;
		c = r->s[r->p];
		if (c == '"')
			break;
		if (c < 0x20)
			goto bad;
		if (c != '\\') {
			b[o++] = (char)c;
			r->p++;
			continue;
		}
		if (r->p + 1 >= r->len)
			goto bad;
		c = r->s[r->p + 1];
		r->p += 2;
		switch (c) {
		case '"': b[o++] = '"'; break;
		case '\\': b[o++] = '\\'; break;
		case '/': b[o++] = '/'; break;
		case 'b': b[o++] = '\b'; break;
		case 'f': b[o++] = '\f'; break;
		case 'n': b[o++] = '\n'; break;
		case 'r': b[o++] = '\r'; break;
		case 't': b[o++] = '\t'; break;
		case 'u':
			if (!hex4_at(r, r->p, &u))
				goto bad;
			r->p += 4;
			if (u >= 0xdc00 && u <= 0xdfff)
				goto bad;
			if (u >= 0xd800 && u <= 0xdbff) {
				if (r->p + 2 > r->len || r->s[r->p] != '\\' || r->s[r->p + 1] != 'u' ||
				    !hex4_at(r, r->p + 2, &lo) || lo < 0xdc00 || lo > 0xdfff)
					goto bad;
				r->p += 6;
				u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
			}
			o += put_utf8(b + o, u);
			break;
		default:
			goto bad;
		}
	}
	r->p++;
	b[o] = '\0';           /* room: the text held at least the two quotes */
	*out = b;
	*outlen = o;
	return 1;
bad:
	free(b);
	return 0;
}

static int keyorder(const char *a, size_t an, const char *b, size_t bn)
{
	int c = memcmp(a, b, an < bn ? an : bn);

	return c ? c : (an > bn) - (an < bn);
}

static int rvalue(struct rp *r, struct rval *v, int level);

static int rmembers(struct rp *r, struct rval *v, int level, int object)
{
	size_t cap = 0;

	r->p++;
	ws(r);
	if (r->p < r->len && r->s[r->p] == (object ? '}' : ']')) {
		r->p++;
		return 1;
	}
	for (;;) {
		if (v->n == cap) {
			cap = cap ? 2 * cap : 4;
			if (!(v->v = realloc(v->v, cap * sizeof *v->v)) ||
			    (object && (!(v->k = realloc(v->k, cap * sizeof *v->k)) ||
			                !(v->klen = realloc(v->klen, cap * sizeof *v->klen)))))
				abort();
		}
		memset(&v->v[v->n], 0, sizeof v->v[v->n]);
		if (object) {
			if (r->p >= r->len || r->s[r->p] != '"')
				return 0;
			if (!rstring(r, &v->k[v->n], &v->klen[v->n]))
				return 0;
			r->nodes++;
			ws(r);
			if (r->p >= r->len || r->s[r->p] != ':') {
				free(v->k[v->n]);
				return 0;
			}
			r->p++;
			ws(r);
		}
		v->n++;             /* from here on rfree owns the member */
		if (!rvalue(r, &v->v[v->n - 1], level + 1))
			return 0;
		ws(r);
		if (r->p < r->len && r->s[r->p] == ',') {
			r->p++;
			ws(r);
			continue;
		}
		if (r->p < r->len && r->s[r->p] == (object ? '}' : ']')) {
			r->p++;
			break;
		}
		return 0;
	}
	if (object)             /* duplicates, after decoding: O(n^2) is fine here */
		for (size_t i = 0; i < v->n; i++)
			for (size_t j = 0; j < i; j++)
				if (!keyorder(v->k[i], v->klen[i], v->k[j], v->klen[j]))
					return 0;
	return 1;
}

static int rnumber(struct rp *r, struct rval *v)
{
	int neg = 0;
	size_t digits = 0;
	long long n = 0;

	if (r->s[r->p] == '-') {
		neg = 1;
		r->p++;
	}
	if (r->p >= r->len || r->s[r->p] < '0' || r->s[r->p] > '9')
		return 0;
	if (r->s[r->p] == '0') {
		r->p++;
		digits = 1;
	} else {
		while (r->p < r->len && r->s[r->p] >= '0' && r->s[r->p] <= '9') {
			if (++digits > 16)
				return 0;       /* 2^53 - 1 has 16 digits */
			n = n * 10 + (r->s[r->p++] - '0');
		}
	}
	/* A fraction or an exponent makes a float: refused, well formed or not. */
	if (r->p < r->len && (r->s[r->p] == '.' || r->s[r->p] == 'e' || r->s[r->p] == 'E'))
		return 0;
	if (n > REF_MAX_SAFE)
		return 0;
	v->type = R_INT;
	v->i = neg ? -n : n;
	return 1;
}

static int rvalue(struct rp *r, struct rval *v, int level)
{
	static const struct { const char *w; enum rtype t; } lit[] = {
		{ "true", R_TRUE }, { "false", R_FALSE }, { "null", R_NULL },
	};

	if (level > REF_MAX_LEVEL || r->p >= r->len)
		return 0;
	r->nodes++;
	switch (r->s[r->p]) {
	case '{':
		v->type = R_OBJECT;
		return rmembers(r, v, level, 1);
	case '[':
		v->type = R_ARRAY;
		return rmembers(r, v, level, 0);
	case '"':
		v->type = R_STRING;
		return rstring(r, &v->s, &v->slen);
	case 't': case 'f': case 'n':
		for (size_t i = 0; i < 3; i++) {
			size_t wl = strlen(lit[i].w);

			if (r->len - r->p >= wl && !memcmp(r->s + r->p, lit[i].w, wl)) {
				v->type = lit[i].t;
				r->p += wl;
				return 1;
			}
		}
		return 0;
	default:
		if (r->s[r->p] == '-' || (r->s[r->p] >= '0' && r->s[r->p] <= '9'))
			return rnumber(r, v);
		return 0;
	}
}

/* 1 and the tree in *V when canon.py would hash S. */
static int ref_parse(const unsigned char *s, size_t len, struct rval *v, size_t *nodes)
{
	struct rp r = { s, len, 0, 0 };

	memset(v, 0, sizeof *v);
	if (len > REF_MAX_BYTES || !ref_utf8(s, len))
		return 0;
	if (len >= 3 && s[0] == 0xef && s[1] == 0xbb && s[2] == 0xbf)
		return 0;               /* U+FEFF first */
	ws(&r);
	if (r.p >= len || s[r.p] != '{')
		return 0;
	if (!rvalue(&r, v, 1))
		return 0;
	ws(&r);
	*nodes = r.nodes;
	return r.p == len;
}

/* --- the reference's canonical form: json.dumps(sort_keys=True,
 * separators=(",", ":"), ensure_ascii=False) --- */

struct buf {
	char *p;
	size_t n, cap;
};

static void bput(struct buf *b, const void *s, size_t n)
{
	if (b->n + n > b->cap) {
		while (b->n + n > b->cap)
			b->cap = b->cap ? 2 * b->cap : 256;
		if (!(b->p = realloc(b->p, b->cap)))
			abort();
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
}

static void bstr(struct buf *b, const char *s, size_t n)
{
	bput(b, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char e[8];

		switch (c) {
		case '"': bput(b, "\\\"", 2); break;
		case '\\': bput(b, "\\\\", 2); break;
		case '\n': bput(b, "\\n", 2); break;
		case '\r': bput(b, "\\r", 2); break;
		case '\t': bput(b, "\\t", 2); break;
		case '\b': bput(b, "\\b", 2); break;
		case '\f': bput(b, "\\f", 2); break;
		default:
			if (c < 0x20) {
				snprintf(e, sizeof e, "\\u%04x", c);
				bput(b, e, 6);
			} else {
				bput(b, &s[i], 1);
			}
		}
	}
	bput(b, "\"", 1);
}

static const struct rval *sort_base;

static int by_key(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return keyorder(sort_base->k[x], sort_base->klen[x], sort_base->k[y], sort_base->klen[y]);
}

static void ref_canon(struct buf *b, const struct rval *v)
{
	char num[32];
	size_t *ix;

	switch (v->type) {
	case R_OBJECT:
		if (!(ix = malloc((v->n ? v->n : 1) * sizeof *ix)))
			abort();
		for (size_t i = 0; i < v->n; i++)
			ix[i] = i;
		sort_base = v;
		qsort(ix, v->n, sizeof *ix, by_key);
		bput(b, "{", 1);
		for (size_t i = 0; i < v->n; i++) {
			if (i)
				bput(b, ",", 1);
			bstr(b, v->k[ix[i]], v->klen[ix[i]]);
			bput(b, ":", 1);
			ref_canon(b, &v->v[ix[i]]);
		}
		bput(b, "}", 1);
		free(ix);
		break;
	case R_ARRAY:
		bput(b, "[", 1);
		for (size_t i = 0; i < v->n; i++) {
			if (i)
				bput(b, ",", 1);
			ref_canon(b, &v->v[i]);
		}
		bput(b, "]", 1);
		break;
	case R_STRING:
		bstr(b, v->s, v->slen);
		break;
	case R_INT:
		bput(b, num, (size_t)snprintf(num, sizeof num, "%lld", v->i));
		break;
	case R_TRUE:
		bput(b, "true", 4);
		break;
	case R_FALSE:
		bput(b, "false", 5);
		break;
	case R_NULL:
		bput(b, "null", 4);
		break;
	}
}

/* --- json.c's token tree against the reference tree --- */

static void same_string(const struct json_doc *d, unsigned t, const char *s, size_t n)
{
	size_t len;
	char *got;

	CHECK(json_type(d, t) == JSON_STRING, "string token type");
	if (!(got = json_string(d, t, &len)))
		abort();
	CHECK(len == n && !memcmp(got, s, n), "json_string decodes differently");
	CHECK(got[len] == '\0', "json_string not NUL-terminated");
	free(got);
	if (!memchr(s, '\0', n)) {
		char *z = malloc(n + 2);

		if (!z)
			abort();
		memcpy(z, s, n);
		z[n] = '\0';
		CHECK(json_streq(d, t, z), "json_streq misses the decoded string");
		z[n] = 'x';
		z[n + 1] = '\0';
		CHECK(!json_streq(d, t, z), "json_streq matches a longer string");
		if (n) {
			z[n - 1] = '\0';
			CHECK(!json_streq(d, t, z), "json_streq matches a shorter string");
		}
		free(z);
	}
}

static void same_tree(const struct json_doc *d, unsigned t, const struct rval *v)
{
	static const enum json_type map[] = {
		[R_OBJECT] = JSON_OBJECT, [R_ARRAY] = JSON_ARRAY, [R_STRING] = JSON_STRING,
		[R_INT] = JSON_NUMBER, [R_TRUE] = JSON_TRUE, [R_FALSE] = JSON_FALSE,
		[R_NULL] = JSON_NULL,
	};
	const jsmntok_t *k;
	unsigned j;

	CHECK(t < d->ntok, "token index past the end");
	k = &d->tok[t];
	CHECK(json_type(d, t) == map[v->type], "token type");
	CHECK(k->start <= k->end && (size_t)k->end <= d->len, "token extent");
	switch (v->type) {
	case R_OBJECT:
		CHECK((size_t)k->size == v->n, "object size");
		for (size_t m = 0, j0 = t + 1; m < v->n; m++) {
			j = (unsigned)j0;
			same_string(d, j, v->k[m], v->klen[m]);
			if (!memchr(v->k[m], '\0', v->klen[m]))
				CHECK(json_get(d, t, v->k[m]) == j + 1, "json_get finds another member");
			same_tree(d, j + 1, &v->v[m]);
			CHECK(d->tok[j].size == 1, "a key has one value");
			j0 = json_next(d, j + 1);
			if (m + 1 == v->n)
				CHECK(j0 == json_next(d, t), "object next");
		}
		if (!v->n)
			CHECK(json_next(d, t) == t + 1, "empty object next");
		for (size_t m = 0; m <= v->n; m++)
			if (m == v->n)
				CHECK(json_get(d, t, "\x01 none \x02") == 0, "json_get invents a member");
			else if (!keyorder(v->k[m], v->klen[m], "\x01 none \x02", 8))
				break;
		break;
	case R_ARRAY:
		CHECK((size_t)k->size == v->n, "array size");
		j = t + 1;
		for (size_t m = 0; m < v->n; m++) {
			same_tree(d, j, &v->v[m]);
			j = json_next(d, j);
		}
		CHECK(j == json_next(d, t), "array next");
		break;
	case R_STRING:
		same_string(d, t, v->s, v->slen);
		break;
	case R_INT:
		CHECK(json_integer(d, t) == v->i, "json_integer");
		/* fall through */
	case R_TRUE:
	case R_FALSE:
	case R_NULL:
		CHECK(json_next(d, t) == t + 1, "scalar next");
		break;
	}
}

/* --- the harness --- */

static void collect(void *ctx, const void *p, size_t n)
{
	bput(ctx, p, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf ours = { 0 }, again = { 0 }, ref = { 0 };
	unsigned char d1[HASH_LEN], d2[HASH_LEN];
	struct json_doc doc, doc2;
	br_sha256_context sc;
	struct rval tree, tree2;
	size_t nodes = 0, nodes2 = 0;
	char err[256];
	char *copy;
	int ok, rok;

	if (!(copy = malloc(size ? size : 1)))
		return 0;
	memcpy(copy, data, size);
	ok = json_parse(&doc, copy, size, err, sizeof err);
	rok = ref_parse(data, size, &tree, &nodes);
	if (ok != rok)
		fprintf(stderr, "diff-fuzzer: json.c %s, the reference %s%s%s\n",
		        ok ? "accepts" : "refuses", rok ? "accepts" : "refuses",
		        ok ? "" : ": ", ok ? "" : err);
	CHECK(ok == rok, "verdict");
	if (!ok) {
		rfree(&tree);
		free(copy);
		return 0;
	}

	CHECK(doc.ntok == nodes, "token count");
	same_tree(&doc, 0, &tree);
	CHECK(canon_write(&doc, collect, &ours), "canon_write failed");
	ref_canon(&ref, &tree);
	if (ours.n != ref.n || memcmp(ours.p, ref.p, ours.n))
		fprintf(stderr, "diff-fuzzer: canon_write: %.*s\ndiff-fuzzer: reference:   %.*s\n",
		        (int)(ours.n > 400 ? 400 : ours.n), ours.p,
		        (int)(ref.n > 400 ? 400 : ref.n), ref.p);
	CHECK(ours.n == ref.n && !memcmp(ours.p, ref.p, ours.n), "canonical bytes");

	CHECK(hash_doc(&doc, d1), "hash_doc failed");
	br_sha256_init(&sc);
	br_sha256_update(&sc, ours.p, ours.n);
	br_sha256_out(&sc, d2);
	CHECK(!memcmp(d1, d2, HASH_LEN), "hash_doc is not SHA-256 of the canonical form");

	CHECK(json_parse(&doc2, ours.p, ours.n, err, sizeof err), "canonical form refused");
	CHECK(canon_write(&doc2, collect, &again), "canon_write failed");
	CHECK(again.n == ours.n && !memcmp(again.p, ours.p, ours.n), "not idempotent");
	CHECK(ref_parse((const unsigned char *)ours.p, ours.n, &tree2, &nodes2),
	      "the reference refuses the canonical form");
	CHECK(doc2.ntok == nodes2, "token count of the canonical form");
	same_tree(&doc2, 0, &tree2);
	rfree(&tree2);

	json_free(&doc2);
	json_free(&doc);
	rfree(&tree);
	free(ours.p);
	free(again.p);
	free(ref.p);
	free(copy);
	return 0;
}
