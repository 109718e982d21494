/* run --user USER (DESIGN.md 4.1): for a root caller, who makes the
 * namespaces and the run's cgroup; the landlock step then drops to USER
 * (--user UID:GID, and -G GIDS with --user-groups). USER is resolved here,
 * through NSS, before any namespace exists. */
#ifndef SHARNESS_RUNUSER_H
#define SHARNESS_RUNUSER_H

#include <sys/types.h>

struct run_user {
	uid_t uid;
	gid_t gid;
	char *name, *home;	/* USER's passwd entry's, NULL without one */
	char ids[32];		/* "UID:GID", for -u */
	char *groups;		/* "GID,GID", for -G; NULL without --user-groups */
};

/* Resolve SPEC (NULL: no --user, and nothing to do): a name, a bare uid (gid from passwd; refused without an
 * entry) or UID:GID, never root. KEEP_GROUPS: --user-groups, which keeps
 * USER's supplementary groups and warns naming the privileged ones. A
 * caller that is not root is refused with USAGE (125), and so is anything
 * unresolved. Then the trust rule of --user (trust_as_user). */
void run_user_resolve(const char *spec, int keep_groups, const char *usage);
/* run --passwd-fd, --group-fd (runsession.h): USER is resolved against
 * these texts (NULL: the host's /etc/passwd, /etc/group), the view's. */
void run_user_files(const char *passwd, const char *group);
/* The run's user, or NULL without --user. */
const struct run_user *run_user(void);

#endif
