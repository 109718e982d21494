/* The setgid calls in the object form of "network" (issue 42): the
 * landlock step's own setgid server (landlock/setgid.c) cannot be had
 * there, as the listen guard holds the chain's one seccomp listener, so
 * the guard's filter hands the same calls to the guard's server, which
 * decides them as the landlock step's does (lib/setgidcall.c).
 * setgidguard.c says why that holds though the server's credentials are
 * not the target's. */
#ifndef SHARNESS_SETGIDGUARD_H
#define SHARNESS_SETGIDGUARD_H

#include <linux/seccomp.h>

#include "seccomp.h"

/* The view's procfs (procfd=FD in the walls record), duplicated
 * close-on-exec (the landlock step takes the original); -1: none. */
int view_procfd(void);
/* Append to P, with the syscall's number in A (left there for what
 * follows): chmod, fchmod, fchmodat and fchmodat2 with S_ISGID and
 * without S_ISUID return SECCOMP_RET_USER_NOTIF, the others of them
 * ALLOW (the landlock step's filter refuses S_ISUID itself). */
void setgid_rules(struct seccomp_prog *p);
/* In the server: the notified setgid call REQ, through PROCFD; 0 or the
 * errno to answer. */
int setgid_call(int procfd, int nfd, struct seccomp_notif *req);

#endif
