/* What only the helpers share: the check line, number parsing, the one
 * exec wrapper that maps ENOENT to 127 and every other failure to 126, the
 * sealed environment the front end hands on, symlink-free opens. */
#ifndef SHARNESS_HELPER_H
#define SHARNESS_HELPER_H

#include <stddef.h>
#include <linux/types.h>
#include "common.h"

/* Exec FILE (looked up in PATH when it has no slash) with ARGV and the
 * current environment. Never returns: 127 when FILE, or what it needs to
 * start (its "#!" interpreter, its ELF loader, /bin/sh for a script with
 * no "#!"), was not found, and the one line names what is missing; else
 * 126. */
void xexecvp(const char *file, char *const argv[]) NORETURN;
/* Exit as a child that ended with the wait STATUS did: its exit code, or
 * killed by the same signal, re-raised (no core dump of our own); a
 * signal whose default is not to end a process, 128 + its number. The
 * supervisor's end, the explain step's and the egress step's. */
void exit_like(int status) NORETURN;
/* The paths the target will see (the landlock step's rules), so that
 * xexecvp can say when what is missing lies outside them. */
void xexec_view(const char *const *paths, size_t n);

/* Replace the environment by the one in FD, a memfd sealed against every
 * change (F_SEAL_SEAL, SHRINK, GROW, WRITE) holding NAME=VALUE strings,
 * each ended by a NUL, as the front end writes it; FD is closed. Dies with
 * 126 on anything else. */
void env_from_fd(int fd);

/* Open PATH (absolute) with FLAGS | O_CLOEXEC and no symlink anywhere on
 * its way: openat2 RESOLVE_NO_SYMLINKS, or where the kernel lacks openat2
 * (ENOSYS) one O_NOFOLLOW component at a time. ELOOP when a symlink is met. */
int open_nofollow(const char *path, int flags);

/* The running kernel's Landlock ABI (landlock_create_ruleset's VERSION
 * query), or -1 with errno set: ENOSYS, EOPNOTSUPP, or a seccomp filter's. */
long landlock_abi(void);
/* That, but no higher than CAP: a step's -A, the ABI the test knob
 * (SHARNESS_EXEC_TEST_ABI) makes it act on; -1 stays -1. */
long landlock_abi_at_most(unsigned long cap);
/* The prefix of struct sharness_ruleset_attr that ABI knows (its size),
 * and ATTR and restrict_self's FLAGS less what ABI lacks: the landlock
 * step's ruleset and the egress step's. */
struct sharness_ruleset_attr;
size_t landlock_attr_size(int abi);
void landlock_mask_abi(int abi, struct sharness_ruleset_attr *attr, __u32 *flags);

/* Check mode (-t) of a helper: "PROG: FMT" on one line of standard
 * output, flushed before the next exec or fork. */
void check_line(const char *fmt, ...) PRINTF(1, 2);

/* Parse a decimal number in [min, max]; 1 on success, 0 otherwise.
 * Refuses signs, spaces, leading zeros, empty strings and trailing garbage. */
int parse_ulong(const char *s, unsigned long min, unsigned long max,
                unsigned long *out);
/* -OPT ARG, a descriptor above 2 and at most MAX; else the one usage line
 * "unable to parse -OPT ARG: not a descriptor above 2" (125, USAGE). */
int parse_fd(const char *arg, int opt, unsigned long max, const char *usage);

/* A new network namespace starts with lo down: bring it up (126 when it
 * cannot), so that 127.0.0.1 and ::1 work. */
void lo_up(void);

/* FD sent over the UNIX socket SOCK, with one byte (SCM_RIGHTS): 0, or
 * -1 with errno. */
int send_fd(int sock, int fd);
/* The descriptor send_fd sent over SOCK (close-on-exec), or -1. */
int recv_fd(int sock);

#endif
