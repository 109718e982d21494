/* The target's environment (runenv.c, DESIGN.md 2.2). */
#ifndef SHARNESS_RUNENV_H
#define SHARNESS_RUNENV_H

#include "runvec.h"

struct loaded;

/* Put NAME=VALUE into ENV, replacing an earlier NAME; nothing when VALUE
 * is NULL (an unset variable). */
void env_put(struct vec *env, const char *name, const char *value);
/* NAME's value in ENV, or NULL. */
const char *env_get(const struct vec *env, const char *name);
/* The target's environment for the policy L verified by KEY (its
 * fingerprint, or NULL); under DRY_RUN env.private's directories are not
 * made. */
void build_env(struct vec *env, const struct loaded *l, const char *key, int dry_run);

#endif
