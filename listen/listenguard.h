/* The listen guard of sharness-exec-listen (object form of "network"):
 * listen(2) on an AF_INET or AF_INET6 socket that no bind(2) gave a port
 * would auto-bind it to an ephemeral port on every address, a port no
 * Landlock rule granted. The guard lets listen(2) through only on AF_UNIX
 * sockets and on TCP sockets already bound (through Landlock's bind rules). */
#ifndef SHARNESS_LISTENGUARD_H
#define SHARNESS_LISTENGUARD_H

/* Fork the guard's server (detached: not a child of the caller, in a
 * session of its own, outside any Landlock domain, not dumpable, holding
 * at most CAP_SYS_PTRACE), then set no_new_privs and install in the caller
 * a seccomp filter that hands every listen(2) to that server, refuses
 * setsockopt(2) IP_LOCAL_PORT_RANGE (EPERM) and io_uring_setup(2) (ENOSYS),
 * hands the chmod family with S_ISGID alone to the server too where the
 * view left a procfs (setgidguard.h; noted setgid=listen),
 * and every foreign-ABI syscall (ENOSYS); the filter's listener goes to
 * the server and is closed here. Call it while the capabilities are held
 * and before landlock_restrict_self: the listen step, before it execs the
 * landlock step. 1: the guard stands.
 *
 * Where the kernel cannot have the guard (no seccomp user notification,
 * pidfd_getfd or IP_LOCAL_PORT_RANGE), or a filter above holds the one
 * listener a chain may have: dies with 126, or with BEST set says so in
 * one line, refuses listen(2) on every socket (EACCES) and returns 0. */
int listenguard_start(int best);

/* 1 when the running kernel has all the guard needs, else 0 and *WHY names
 * what is missing. */
int listenguard_possible(const char **why);

#endif
