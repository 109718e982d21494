/* check's warnings (warn.c): what a valid policy allows that a person
 * should look at twice. */
#ifndef SHARNESS_WARN_H
#define SHARNESS_WARN_H

#include "policy.h"

/* A line on stderr for each, "PROG: FILE: warning: WHEREKEY: ...": a
 * loader variable in env (LD_*, GLIBC_TUNABLES), a home directory or a
 * broad path (/, /home, /usr, /etc, /var, /tmp, /var/tmp) in files.write.
 * WHERE is "" for a policy, `components[0] "db": policy.` for an inline
 * one. */
void policy_warnings(const char *file, const char *where, const struct policy *p);

#endif
