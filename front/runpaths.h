/* The front end's rule paths: resolved before any namespace exists, so
 * that the owner of a symlink reads true (DESIGN.md 2), and the words the
 * chain gets for the links followed and for files.sockets. */
#ifndef SHARNESS_RUNPATHS_H
#define SHARNESS_RUNPATHS_H

#include "policy.h"
#include "runvec.h"

/* P's files.* paths, each resolved into its *_resolved list (125, one
 * line, when a symlink on the way is refused); SHOW: say each that
 * resolves elsewhere (else only those beyond root's links in /). */
void resolve_rules(struct policy *p, int show);
/* -s ORIG=RESOLVED for each path of KEY that went through a symlink. */
void push_links(struct vec *chain, const char *key, const struct strlist *orig,
                const struct strlist *res);
/* -s PATH for each files.sockets path; in the VIEW's words, -r PATH
 * before one beneath no read, exec or write path. */
void push_sockets(struct vec *chain, const struct policy *p, int view);

#endif
