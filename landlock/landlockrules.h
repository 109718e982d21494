/* sharness-exec-landlock: one rule of argv into the ruleset (landlock.c
 * holds the list, in argv's order): a port (-c -l -C -L) or a path (-r -x
 * -w -s), each with the rights its option grants, as far as the ruleset
 * handles them. A path is read by lib/rules.c (rule_path), as the view
 * step reads it, and -r -x -w grant what rule_grant says. */
#ifndef SHARNESS_LANDLOCKRULES_H
#define SHARNESS_LANDLOCKRULES_H

#include <linux/types.h>
#include "landlock-abi.h"
#include "rules.h"

#define FS_READ (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
#define FS_EXEC (FS_READ | LANDLOCK_ACCESS_FS_EXECUTE)
/* The only rights a rule on a plain file may carry (a socket file takes
 * RESOLVE_UNIX). */
#define FS_FILE (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
	LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE | \
	LANDLOCK_ACCESS_FS_IOCTL_DEV | LANDLOCK_ACCESS_FS_RESOLVE_UNIX)

/* One rule of argv: its option, its path (rule_path's) or port. */
struct rule {
	int opt;
	const char *arg;
	unsigned long port;
};

/* -c -l -C -L: rule R into the ruleset FD, for a right HANDLED holds. */
void add_port(int fd, const struct rule *r, __u64 handled);
/* -r -x -w -s: rule I of RULES into FD, with what of its option's rights
 * HANDLED holds; a missing path, or under -s one that is no socket, is
 * skipped with a warning. */
void add_path(int fd, const struct rule *rules, int i, __u64 handled);

#endif
