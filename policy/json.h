/* Strict JSON reader (DESIGN.md 2.1) on jsmn (JSMN_STRICT, JSMN_PARENT_LINKS):
 * strict UTF-8, no BOM, top level an object, integers only (|n| <= 2^53-1,
 * no floats or exponents), no duplicate keys (compared after unescaping), no
 * lone surrogate escapes, nesting at most 64, at most 1 MiB, nothing after
 * the object. Only the front end links this. */
#ifndef SHARNESS_JSON_H
#define SHARNESS_JSON_H

#include <stddef.h>
#define JSMN_PARENT_LINKS
#define JSMN_HEADER
#include <jsmn.h>

#define JSON_MAX_BYTES (1u << 20)
#define JSON_MAX_DEPTH 64
#define JSON_MAX_SAFE  9007199254740991LL /* 2^53 - 1 */

/* A primitive token is split into the last four. */
enum json_type { JSON_OBJECT = JSMN_OBJECT, JSON_ARRAY = JSMN_ARRAY,
                 JSON_STRING = JSMN_STRING, JSON_NUMBER, JSON_TRUE, JSON_FALSE,
                 JSON_NULL };

/* jsmn's tokens in document order: tok[0] is the top-level object; an
 * object's members are a key (a string token, size 1) followed by its
 * value; .size counts an object's keys or an array's elements; .start and
 * .end are byte offsets (for strings, inside the quotes). */
struct json_doc {
	const char *text;
	size_t len;
	jsmntok_t *tok;
	unsigned ntok;
	char *decoded;   /* json_str decodes a string with escapes here, at its offset */
};

/* Parse TEXT (LEN bytes, need not be NUL-terminated) strictly. On success
 * returns 1 and DOC holds heap memory (free with json_free; TEXT must
 * outlive DOC). On refusal returns 0, leaves DOC empty (json_free is then a
 * no-op) and writes a one-line reason, e.g. "duplicate key \"a\" at line
 * 2, column 3", into ERR (both from 1, the column counted in characters). */
int json_parse(struct json_doc *doc, const char *text, size_t len,
               char *err, size_t errlen);
void json_free(struct json_doc *doc);

/* The type of token I, and the index of the first token after I's
 * subtree (I MUST NOT be a key). */
enum json_type json_type(const struct json_doc *doc, unsigned i);
unsigned json_next(const struct json_doc *doc, unsigned i);

/* String token I decoded (escapes resolved, UTF-8), *LEN bytes long, which
 * may include NULs from \u0000; not NUL-terminated. The bytes stay valid
 * until json_free. */
const char *json_str(const struct json_doc *doc, unsigned i, size_t *len);
/* The same in a fresh heap buffer with a NUL added; NULL only on ENOMEM. */
char *json_string(const struct json_doc *doc, unsigned i, size_t *len);
/* 1 if token I is a string that decodes to exactly the C string S. */
int json_streq(const struct json_doc *doc, unsigned i, const char *s);

/* Value of number token I. */
long long json_integer(const struct json_doc *doc, unsigned i);

/* Object member lookup: index of the value whose key equals KEY, or 0 when
 * absent (0 is never a member value). OBJ MUST be a JSON_OBJECT token. */
unsigned json_get(const struct json_doc *doc, unsigned obj, const char *key);

/* Members of object O: key token K (its value is K + 1), M counting. */
#define JSON_EACH_MEMBER(d, o, m, k) \
	for (unsigned m = 0, k = (o) + 1; m < (unsigned)(d)->tok[o].size; \
	     m++, k = json_next(d, k + 1))
/* Elements of array A: token E, M counting. */
#define JSON_EACH_ELEMENT(d, a, m, e) \
	for (unsigned m = 0, e = (a) + 1; m < (unsigned)(d)->tok[a].size; \
	     m++, e = json_next(d, e))

#endif
