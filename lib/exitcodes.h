/* Exit statuses shared by every program of sharness-exec (DESIGN.md 3).
 * Success means the chain exec'd away: the caller then sees the target's
 * own status, with no wrapper code in between. */
#ifndef SHARNESS_EXITCODES_H
#define SHARNESS_EXITCODES_H

#define EXIT_TIMEOUT   124 /* --timeout expired: the run was ended (as timeout(1)) */
#define EXIT_REFUSED   125 /* usage, policy, hash mismatch, missing helper, ENOMEM */
#define EXIT_CONFINE   126 /* could not confine, or exec failed (EACCES, ENOEXEC) */
#define EXIT_NOTFOUND  127 /* the target was not found (ENOENT at the final exec) */

#endif
