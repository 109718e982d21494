/* What the manifest checker's files share (manifest.c, the keys of each
 * component, above manifestspan.c, its ways of saying a problem and what
 * spans components and what check warns of): the checker's state. */
#ifndef SHARNESS_MANIFESTCK_H
#define SHARNESS_MANIFESTCK_H

#include "common.h"
#include "manifest.h"

#define KEY_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
#define LABEL_MAX (48 + MANIFEST_ROLE_MAX)     /* place, quotes and role */
#define LINE_MAX_ (LABEL_MAX + 6 * QUOTED_MAX)
#define SUN_PATH_MAX 107        /* sockaddr_un's sun_path, less its NUL */

struct mck {
	const struct json_doc *d;
	void (*report)(void *ctx, const char *line);
	void *ctx;
	size_t n;                   /* problems so far */
	char label[LABEL_MAX];      /* `components[1] "kms": `, or "" */
};

#define TYPE(c, i) json_type((c)->d, i)
#define SIZE(c, i) ((size_t)(c)->d->tok[i].size)

/* LINE, a problem: to c->report, counted. */
void mck_say(struct mck *c, const char *line);
/* A problem at KEY, after c->label: to c->report, counted. */
void mck_problem(struct mck *c, const char *key, const char *fmt, ...) PRINTF(3, 4);
/* 1 when V is of type T, else 0 and "KEY: must be ..." said. */
int mck_is(struct mck *c, const char *key, unsigned v, enum json_type t);
/* KEY's value V, when it is a string, in a fresh heap buffer, NUL added;
 * else NULL, "must be a string" said. */
char *mck_string(struct mck *c, const char *key, unsigned v, size_t *len);
/* manifestspan.c: what spans components, once each is checked: no two
 * roles alike, every "after" another component's, no cycle. */
void manifest_spans(struct mck *c, struct manifest *m);

#endif
