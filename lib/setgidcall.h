/* The decision the two setgid servers share (issue 42): the landlock
 * step's (landlock/setgid.c, which says why it holds) and, in the object
 * form of "network", the listen guard's (listen/listenguard.c). A notified
 * chmod, fchmod, fchmodat or fchmodat2 is read from the caller (its path,
 * its root, the /proc entry its lookup starts from: setgid_begin), then,
 * once the notification is known to be still pending, resolved and acted
 * on with the credentials of the process that calls setgid_finish. */
#ifndef SHARNESS_SETGIDCALL_H
#define SHARNESS_SETGIDCALL_H

#include <limits.h>
#include <sys/types.h>
#include <linux/seccomp.h>

/* One notified call, as the caller made it. */
struct setgidcall {
	int dirfd, flags;	/* dirfd: -1 for fchmod, whose fd is FD */
	int fd;
	unsigned long long addr;
	unsigned mode;
	int base;		/* where the lookup starts: /proc/TID/cwd or fd/N */
	pid_t tid;		/* the caller, and its call as made: for setgid_tell */
	unsigned long long nr, args[4];
	char path[PATH_MAX];
};

/* Decode REQ into C and read of the caller, through PROCFD (a procfs of
 * the run's pid namespace), all that the call needs: its path, and its
 * root, which must be this process's. 0 (C->base open) or the errno to
 * answer; EPERM for S_ISUID or a mode without S_ISGID. GETFD, where not
 * NULL, takes the caller's descriptor itself (pidfd_getfd) instead of
 * opening /proc/TID/fd/N, which only the caller's uid may search. The caller then
 * checks the notification is still pending (SECCOMP_IOCTL_NOTIF_ID_VALID). */
int setgid_begin(int procfd, const struct seccomp_notif *req, struct setgidcall *c,
                 int (*getfd)(pid_t tid, int fd));
/* Resolve C's file from C->base (closed here) as this process may, open
 * it O_PATH, and set C's mode on it where it is a directory whose owner is
 * this process's effective uid (EPERM otherwise). 0 or the errno. */
int setgid_finish(int procfd, struct setgidcall *c);

/* run --explain (DESIGN.md 4.7): the observer traces the servers too (they
 * are forked in its tree), and hears of each refusal of a file's bit
 * through one harmless call: getppid(2) with the caller's tid, the call's
 * number and its first four arguments in its registers, which the
 * server's one-rule filter stops with SECCOMP_RET_TRACE and
 * SECCOMP_TRACE_SETGID (seccomp.h) as data. The observer only reads it; where nobody
 * traces the server the kernel fails it with ENOSYS. setgid_tell_install:
 * in the server, once, after no_new_privs (0, or -1: no tells).
 * setgid_finish tells of a file itself. */
int setgid_tell_install(void);
void setgid_tell(const struct setgidcall *c);

#endif
