/* The canonical form and hash of a JSON object (DESIGN.md 2.1): keys sorted
 * by their UTF-8 bytes, no whitespace, strings re-escaped as Python's
 * json.dumps(ensure_ascii=False) does, integers in plain decimal (-0 is 0).
 * SHA-256 is BearSSL's, with caller-owned contexts on the stack. */
#ifndef SHARNESS_HASH_H
#define SHARNESS_HASH_H

#include <stddef.h>
#include "json.h"

#define HASH_LEN 32
#define HASH_TEXT_LEN (7 + 2 * HASH_LEN) /* "sha256:" + 64 hex, no NUL */

/* Stream the canonical form of DOC (which json_parse accepted) through
 * OUT(CTX, bytes, len), never with LEN 0. 1 on success, 0 on ENOMEM. */
int canon_write(const struct json_doc *doc,
                void (*out)(void *ctx, const void *buf, size_t len), void *ctx);
/* SHA-256 of the canonical form of DOC into DIGEST. 1 on success, 0 on ENOMEM. */
int hash_doc(const struct json_doc *doc, unsigned char digest[HASH_LEN]);

/* "sha256:<64 lowercase hex>" into OUT, which MUST hold HASH_TEXT_LEN + 1. */
void hash_format(const unsigned char digest[HASH_LEN], char *out);
/* Parse "sha256:<64 hex>" (either case) into DIGEST; 1 on success. */
int hash_parse(const char *s, unsigned char digest[HASH_LEN]);
/* Constant-time comparison of two digests; 1 when equal. */
int hash_equal(const unsigned char a[HASH_LEN], const unsigned char b[HASH_LEN]);

#endif
