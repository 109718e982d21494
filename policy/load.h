/* The one way a policy or a launch manifest is read (DESIGN.md 2.1, 4.1,
 * 4.8): a regular file or a pipe of at most 1 MiB, parsed strictly,
 * hashed, compared with a pinned hash, checked. Every refusal is one line
 * on stderr. */
#ifndef SHARNESS_LOAD_H
#define SHARNESS_LOAD_H

#include <stddef.h>
#include "hash.h"
#include "json.h"
#include "launch/manifest.h"
#include "policy.h"

/* A policy or manifest file read once, parsed, hashed and checked. */
struct loaded {
	char *text;
	size_t len;
	struct json_doc doc;
	unsigned char digest[HASH_LEN];
	char hash[HASH_TEXT_LEN + 1];
	struct policy pol;
	struct manifest man;       /* when MANIFEST; POL is then empty */
	int manifest;              /* the top level has "launch" (manifest_is) */
	const char *id, *kind;     /* POL's or MAN's id; "policy" or "manifest" */
};

/* Key and signature files: PATH, a regular file of at most MAX bytes,
 * into BUF, from FD, or when FD is -1 looked at before it is opened; FD is
 * closed. Refuses anything else ("refused: unable to read PATH: why") with
 * exit 125. Returns the length. */
size_t file_read(int fd, const char *path, unsigned char *buf, size_t max);
/* Policies: a whole file ("-" is stdin) of at most JSON_MAX_BYTES, a
 * regular file or a pipe, into a heap buffer, NUL added. Returns NULL with
 * a one-line reason in ERR when it is anything else, is larger than the
 * limit, or on I/O error. */
char *read_policy_file(const char *path, size_t *len, char *err, size_t errlen);
/* The same from FD when it is not -1 (left open), else from PATH, then
 * json_parse; on failure one fatal line on stderr and NULL. */
char *read_json(int fd, const char *path, size_t *len, struct json_doc *doc);
/* read_json, hash, refuse unless the hash equals WANT (when not NULL),
 * policy_check (each problem on a line of its own: "PROG: PATH: line"):
 * 1 when the policy is valid (and pinned, if asked), else 0 with every
 * problem said on stderr. unload_policy frees it all and leaves L all
 * zeros. */
int load_policy(int fd, const char *path, struct loaded *l, const unsigned char *want);
/* The same for what KINDS allows (check, verify and sign take both): a
 * file of the other kind is refused in one line, unchecked. */
enum { LOAD_POLICY = 1, LOAD_MANIFEST = 2 };
int load_as(int fd, const char *path, struct loaded *l, const unsigned char *want, int kinds);
void unload_policy(struct loaded *l);

#endif
