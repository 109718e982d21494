/* The setgid server of sharness-exec-landlock (issue 42): the filter
 * (SECCOMP_NOTIFY_SETGID) hands it each chmod, fchmod, fchmodat and
 * fchmodat2 with S_ISGID and without S_ISUID; it sets the mode itself on
 * a directory the caller owns, and refuses (EPERM) anything else, as the
 * filter did before. setgid.c says why that holds. */
#ifndef SHARNESS_SETGID_H
#define SHARNESS_SETGID_H

/* Fork the server (twice: nobody's child but the reaper's), with this
 * process's ids and groups as they are now, which must be the target's,
 * and no capability but CAP_SYS_PTRACE where Yama's ptrace_scope is 1 or
 * more: call it after the user switch and before the filter is installed
 * and landlock_restrict_self. PROCFD: a procfs of the run's pid
 * namespace (the view's, or in a chain with no namespace at all this
 * step's own /proc, whose self is this step), which the server takes (it
 * is closed here). 0, or -1 where the server cannot be had (no user
 * notification in this kernel, no procfs, no fork under the process
 * cap): WHY then says why. */
int setgid_start(int procfd, const char **why);
/* Hand the server the filter's listener NFD (closed here) and wait until
 * it holds it; 126 if it does not answer. */
void setgid_hand(int nfd);
/* No listener after all (EBUSY: a filter above holds the chain's one):
 * the server exits. */
void setgid_cancel(void);

#endif
