/* Hand-written seccomp filters (no libseccomp): the network fallback of
 * sharness-exec-netns and the terminal-injection block of
 * sharness-exec-landlock. A filter needs no_new_privs or CAP_SYS_ADMIN. */
#ifndef SHARNESS_SECCOMP_H
#define SHARNESS_SECCOMP_H

/* socket(2) and socketpair(2) for every family but AF_UNIX fail with
 * EAFNOSUPPORT; io_uring_setup(2), which could go around that, with ENOSYS. */
#define SECCOMP_DENY_SOCKETS 0x1
/* ioctl(2) TIOCSTI and TIOCLINUX fail with EPERM: no keystrokes pushed into
 * a terminal the target shares with its caller. */
#define SECCOMP_DENY_TIOCSTI 0x2

/* Install one filter for WHAT (a mask of the above). Syscalls of a foreign
 * ABI (i386 or x32 on x86_64) fail with ENOSYS so the filter cannot be
 * bypassed through them. Returns 0, or -1 with errno set. */
int seccomp_install(unsigned what);

#endif
