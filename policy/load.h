/* The one way a policy or a launch manifest is read (DESIGN.md 2.1, 4.1,
 * 4.8): a regular file or a pipe of at most 1 MiB, parsed strictly,
 * hashed, compared with a pinned hash, checked. Every refusal is one line
 * on stderr. */
#ifndef SHARNESS_LOAD_H
#define SHARNESS_LOAD_H

#include <stddef.h>
#include "hash.h"
#include "json.h"
#include "policy.h"

/* A policy or manifest file read once, parsed, hashed and checked. */
struct loaded {
	char *text;
	size_t len;
	struct json_doc doc;
	unsigned char digest[HASH_LEN];
	char hash[HASH_TEXT_LEN + 1];
	struct policy pol;         /* a policy's, once load_check took it */
	int manifest;              /* the top level has "launch" (manifest_is) */
	const char *id, *kind;     /* POL's id or the manifest's; "policy" or "manifest" */
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
/* What every reader of a policy or a manifest does: read_json, refuse a
 * file of a kind KINDS does not allow in one line, unchecked, hash, and
 * refuse unless the hash equals WANT (when not NULL): 1, or 0 with one
 * line on stderr. The check is the caller's: load_check for a policy,
 * manifest_load (launch/manifest.c) for a manifest, which only the
 * launcher and the signer link. unload_policy frees it all and leaves L
 * all zeros. */
enum { LOAD_POLICY = 1, LOAD_MANIFEST = 2 };
int load_read(int fd, const char *path, struct loaded *l, const unsigned char *want, int kinds);
/* policy_check of L's policy, each problem on a line of its own ("PROG:
 * PATH: line", load_report): 1 when it is valid, else 0, L unloaded. */
int load_check(struct loaded *l, const char *path);
void load_report(void *path, const char *line);
/* load_read of a policy, then load_check. */
int load_policy(int fd, const char *path, struct loaded *l, const unsigned char *want);
/* 1 when DOC's top level has a "launch" key: it is read as a manifest. */
int manifest_is(const struct json_doc *doc);
void unload_policy(struct loaded *l);

#endif
