/* What the front end looks at on the filesystem before anything is
 * confined (DESIGN.md 2, 2.2, 4.1): the policy (or key) file, env.private,
 * the rule paths. Each walk starts at "/" and opens one component at a time
 * with O_NOFOLLOW, so no symlink is followed before it has been looked at,
 * and runs before any namespace exists, so the owners it reads are true
 * ones (inside a user namespace root's files show as the overflow uid).
 * "Trusted" below means owned by root or by the caller (real uid).
 * Refusals are one line and exit 125. */
#ifndef SHARNESS_TRUST_H
#define SHARNESS_TRUST_H

#include <stddef.h>
#include <sys/types.h>

/* Open PATH ("-": standard input, which is only checked) for reading, as
 * doas opens its configuration: refuse a file that someone other than root
 * or the caller could change. Symlinks on the way are followed only when
 * trusted; every directory looked in must be trusted and not writable by
 * group or others, unless it is sticky (the entry found there is trusted,
 * so nobody else may rename or remove it); the file, checked on the opened
 * descriptor, must be a regular file or a FIFO, trusted, and not writable
 * by group or others. WHAT names the file in messages ("policy file", "key
 * file"). Returns the descriptor (O_CLOEXEC, O_NONBLOCK; 0 for "-"). */
int open_trusted(const char *path, const char *what);

/* Make sure the env.private directory PATH and its subdirectories SUBS
 * (NSUBS names) exist, belong to the caller and are writable by nobody
 * else, reached through directories as open_trusted wants them and no
 * symlink at all; missing directories are created 0700. With CREATE 0 (a
 * dry run) nothing is created and the walk stops at the first missing
 * directory. */
void make_private(const char *path, const char *const *subs, size_t nsubs, int create);

/* Resolve the rule path PATH, following a symlink only when its owner is
 * trusted and the target's uid (the caller's, or --user's) cannot write
 * the directory it is in: an earlier confined run, being that uid, could
 * have planted it there (DESIGN.md 2; the rule in full is trust.c's).
 * Returns 0 or 1 with the resolved path in OUT (PATH_MAX bytes):
 * symlink-free where it exists; where a component is missing (or cannot
 * be searched), the part that exists is resolved and the rest appended as
 * it is (the helpers then skip it as missing). 1 says a link was followed
 * that is not one of root's in "/" (the merged-/usr links), which the
 * caller reports. Returns -1 with the reason in WHY (one line, strings
 * quoted) when a symlink on the way is refused, too many links, or the
 * walk fails otherwise. */
int resolve_rule(const char *path, char *out, char *why, size_t whylen);

/* The directory PATH (absolute), that a file is written in by name: every
 * directory on the way and PATH itself trusted and not writable by group
 * or others unless sticky (as open_trusted's), each symlink on the way
 * followed when trusted, or with RULE_LINKS only under resolve_rule's
 * rule (an earlier run could not have planted it). Returns an O_PATH
 * descriptor of it with its symlink-free name in OUT (PATH_MAX bytes), or
 * -1 with why not in WHY (one line, strings quoted). */
int open_trusted_dir(const char *path, int rule_links, char *out, char *why, size_t whylen);

/* run --user: the target runs as UID, so what UID owns may have been
 * planted by an earlier run: from here on only root is trusted, the
 * symlink rule weighs UID, GID and GROUPS ("GID,GID", or NULL: GID alone),
 * and the env.private directories, made by root, are given to UID:GID
 * (and must be UID's where they exist). */
void trust_as_user(uid_t uid, gid_t gid, const char *groups);

#endif
