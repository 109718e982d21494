/* The pbp 1 checker's own: one table of rules, one per key (policy.c),
 * and what it keeps while it walks a policy. Only the checker's files
 * (policy.c, policynear.c) include this. */
#ifndef SHARNESS_POLICYRULES_H
#define SHARNESS_POLICYRULES_H

#include <stddef.h>
#include "json.h"
#include "policy.h"

#define NAME_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_0123456789"

struct rule;

/* What the checker keeps while it walks one policy. */
struct ck {
	const struct json_doc *d;
	struct policy *p;
	void (*report)(void *ctx, const char *line);
	void *ctx;
	size_t n;                        /* problems so far */
	int private;                     /* env.private is given */
	const struct rule *rules;
	size_t nrules;
};

/* One key of the format: its parent's key path and its name, and the
 * function that checks its value at key path KP and stores it in OUT (a
 * port list's length in N). LO-HI: the range of an integer or a port, or
 * of a boolean (0-1 true or false, 1-1 must be true); ITEM: one entry of
 * a list of strings. */
struct rule {
	const char *parent, *name;
	int required;
	void (*check)(struct ck *c, const struct rule *r, const char *kp, unsigned v);
	void *out;
	size_t *n;
	long long lo, hi;
	char *(*item)(struct ck *c, const char *kp, unsigned v);
};

/* The one key that the unknown key K of the object at key path KP is
 * near (an edit or two away, letters swapped included, and nearer than
 * any other key of that object), for a "did you mean"; or NULL. */
const char *policy_near_key(const struct ck *c, const char *kp, unsigned k);
/* The same for KEY (LEN bytes, no NUL needed after them) among NAMES,
 * NULL-terminated, or else the one name that begins with KEY and "_"
 * (timeout for timeout_seconds): the manifest's keys (manifest.c). */
const char *near_word(const char *key, size_t len, const char *const *names);

#endif
