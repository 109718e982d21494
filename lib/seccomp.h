/* Hand-written seccomp filters (no libseccomp): the network fallback of
 * sharness-exec-netns, and the filter of sharness-exec-landlock that closes
 * what Landlock, the namespaces and the dropped capabilities leave open
 * (DESIGN.md 4.6). Every filter of the project, the listen step's and the
 * --explain TRACE rules too, is written through the one emitter and the one
 * architecture table below. A filter needs no_new_privs or CAP_SYS_ADMIN. */
#ifndef SHARNESS_SECCOMP_H
#define SHARNESS_SECCOMP_H

#include <stddef.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/types.h>

/* Syscalls newer than some C libraries' headers: numbers from 424 on are
 * the same on every architecture. */
#ifndef SYS_io_uring_setup
# define SYS_io_uring_setup 425
#endif
#ifndef SYS_io_uring_enter
# define SYS_io_uring_enter 426
#endif
#ifndef SYS_io_uring_register
# define SYS_io_uring_register 427
#endif
#ifndef SYS_clone3
# define SYS_clone3 435
#endif
#ifndef SYS_openat2
# define SYS_openat2 437
#endif
#ifndef SYS_faccessat2
# define SYS_faccessat2 439
#endif
#ifndef SYS_fchmodat2
# define SYS_fchmodat2 452
#endif

/* socket(2) and socketpair(2) for every family but AF_UNIX fail with
 * EAFNOSUPPORT; io_uring_setup(2), which could go around that, with ENOSYS.
 * (sharness-exec-netns, where no network namespace can be made.) */
#define SECCOMP_DENY_SOCKETS   0x001
/* ioctl(2) TIOCSTI and TIOCLINUX fail with EPERM: no keystrokes pushed into
 * a terminal the target shares with its caller. */
#define SECCOMP_DENY_TIOCSTI   0x002
/* The set-user-ID and set-group-ID bits in a mode fail with EPERM: chmod,
 * fchmod, fchmodat, fchmodat2, mknod, mknodat, creat, and open and openat
 * with O_CREAT or O_TMPFILE. No target, root or not, makes a set-id file. */
#define SECCOMP_DENY_SETID     0x004
/* openat2, clone3 and io_uring fail with ENOSYS, as on a kernel without
 * them: their arguments sit behind pointers a filter cannot read (openat2's
 * mode, clone3's flags and CLONE_INTO_CGROUP), or, for io_uring, in a ring
 * no filter sees at all. libc falls back to openat and clone. */
#define SECCOMP_DENY_BYPASS    0x008
/* keyctl, add_key and request_key fail with EPERM: the user keyrings (@u,
 * @us) are shared with every process of the uid, namespace or not. */
#define SECCOMP_DENY_KEYS      0x010
/* unshare(2) and clone(2) with CLONE_NEWUSER fail with EPERM. */
#define SECCOMP_DENY_USERNS    0x020
/* socket(2) and socketpair(2) of AF_VSOCK fail with EACCES: vsock is not
 * network-namespaced, and in a virtual machine it leads to the host. */
#define SECCOMP_DENY_VSOCK     0x040
/* fcntl(2) F_SETLEASE (and F_SETDELEG, where the kernel has it) fail with
 * EACCES: a lease on a file the target may only read blocks everyone
 * outside who opens it for writing. */
#define SECCOMP_DENY_LEASES    0x080
/* What reaches processes outside without a pid, fails with EPERM: kill(2)
 * and tgkill(2) with pid -1; prlimit64(2) setting limits of any pid but 0;
 * setpriority(2) and ioprio_set(2) on a process group or a whole user. */
#define SECCOMP_DENY_OUTSIDE   0x100
/* The object form of "network", where the target shares the host's
 * network: socket(2) and socketpair(2) allow only AF_UNIX, AF_NETLINK
 * with NETLINK_ROUTE (not sock_diag, which lists the host's sockets, nor
 * any other netlink protocol), and AF_INET/AF_INET6 TCP (SOCK_STREAM,
 * protocol 0 or IPPROTO_TCP); everything else fails with EACCES (MPTCP,
 * SCTP, SMC, raw, ICMP, packet, ...). MSG_FASTOPEN on sendto, sendmsg and
 * sendmmsg fails with EACCES: it connects without connect(2), and so
 * without Landlock. setsockopt(2) SOL_SOCKET SO_REUSEPORT fails with
 * EACCES: it would join an outside listener's group on an allowed port. */
#define SECCOMP_NET_ALLOWLIST  0x200
/* With SECCOMP_NET_ALLOWLIST: AF_INET/AF_INET6 UDP (SOCK_DGRAM, protocol 0
 * or IPPROTO_UDP) is allowed too, for a policy that lists UDP ports. */
#define SECCOMP_ALLOW_UDP      0x400

/* With SECCOMP_DENY_OUTSIDE: kill(2) with pid 0, or minus the process
 * group given to seccomp_group, fails with EPERM too: the caller's group,
 * which the target shares, where no Landlock scope holds signals. */
#define SECCOMP_DENY_GROUP     0x800

/* run --explain (DESIGN.md 4.7), x86_64, where the observer can set a
 * call's result: the refusals it reports (openat2 and io_uring ENOSYS, the
 * key calls and the set-id bits EPERM, and with SECCOMP_DENY_SOCKETS every
 * socket family but AF_UNIX EAFNOSUPPORT) return SECCOMP_RET_TRAP with SECCOMP_TRAP_REFUSED
 * and the errno as data instead. The kernel never runs a trapped call: it
 * raises SIGSYS, whose signal-delivery stop the observer takes; there it
 * sets the errno and drops the signal. A process nobody traces dies of the
 * SIGSYS (or its own handler takes it): whoever traces it, the call does
 * not run. ptrace(2), and clone(2) with CLONE_UNTRACED, fail with EPERM the
 * same way, so that no process of the target traces another or escapes
 * the observer. Elsewhere 0: the refusals stay ERRNO rules, unreported. */
#if defined(__x86_64__)
# define SECCOMP_EXPLAIN       0x1000
#else
# define SECCOMP_EXPLAIN       0
#endif
#define SECCOMP_TRAP_REFUSED   0x8000

/* With SECCOMP_DENY_SETID: chmod, fchmod, fchmodat and fchmodat2 with
 * S_ISGID and without S_ISUID go to a user notification instead (the
 * landlock step's setgid server, landlock/setgid.c, which sets the bit on
 * a directory the caller owns and refuses it on anything else), and
 * seccomp_install returns the filter's listener. Everything else of
 * SECCOMP_DENY_SETID is unchanged: S_ISUID anywhere, and either bit
 * through creat, mknod and open with O_CREAT, fail as before. */
#define SECCOMP_NOTIFY_SETGID  0x2000
/* With SECCOMP_DENY_SETID: the same calls are let through this filter, as
 * the listen guard's filter, installed before it, hands them to its
 * server (the object form: listen/setgidguard.c). */
#define SECCOMP_SETGID_ABOVE   0x4000

/* The data of the setgid servers' one SECCOMP_RET_TRACE rule, on their
 * own getppid(2) (lib/setgidcall.h: setgid_tell), by which the --explain
 * observer hears of a file's refused bit. The observer's own rules give
 * data 0. */
#define SECCOMP_TRACE_SETGID 0x5347

/* Everything the landlock step always refuses; it adds SECCOMP_DENY_USERNS
 * unless -U, and SECCOMP_NET_ALLOWLIST in the object form. */
#define SECCOMP_TARGET (SECCOMP_DENY_TIOCSTI | SECCOMP_DENY_SETID | \
	SECCOMP_DENY_BYPASS | SECCOMP_DENY_KEYS | SECCOMP_DENY_VSOCK | \
	SECCOMP_DENY_LEASES | SECCOMP_DENY_OUTSIDE)

/* --- the emitter ----------------------------------------------------------- */

/* The one architecture table: the ABI a filter lets through. Undefined on
 * an architecture this file does not know, where no filter is installed
 * (ENOSYS). On x86_64, x32 is the same audit arch with bit 30 in nr. */
#if defined(__x86_64__)
# define SECCOMP_ARCH AUDIT_ARCH_X86_64
# define SECCOMP_X32_BIT 0x40000000
#elif defined(__aarch64__)
# define SECCOMP_ARCH AUDIT_ARCH_AARCH64
#elif defined(__i386__)
# define SECCOMP_ARCH AUDIT_ARCH_I386
#elif defined(__riscv) && __riscv_xlen == 64
# define SECCOMP_ARCH AUDIT_ARCH_RISCV64
#endif

/* Where argument I sits in struct seccomp_data. Every argument a rule
 * checks is compared on its low 32 bits: the kernel reads each one that is
 * checked (int, unsigned int, umode_t, pid_t, flags) as at most 32 bits
 * and ignores the rest of the register. Pointers are the exception and are
 * compared whole (SECCOMP_ARG_HI too). */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
# define SECCOMP_ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))
# define SECCOMP_ARG_HI(i) (offsetof(struct seccomp_data, args) + 8 * (i) + 4)
#else
# define SECCOMP_ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i) + 4)
# define SECCOMP_ARG_HI(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#endif
#define SECCOMP_ERRNO(e) (SECCOMP_RET_ERRNO | ((__u32)(e) & SECCOMP_RET_DATA))

/* Far below BPF_MAXINSNS (4096); the landlock step's filter with every
 * rule (object form) is under 224 instructions, and a named syscall runs
 * at most about 40 of them. */
#define SECCOMP_PROG_MAX 256

/* A program being written; start from all zeroes. */
struct seccomp_prog {
	struct sock_filter f[SECCOMP_PROG_MAX];
	unsigned n;
	int full;	/* an instruction or a jump did not fit: refuse */
};

/* Append one instruction, both jump offsets 0; its index, or
 * SECCOMP_PROG_MAX (and P is full). */
unsigned seccomp_emit(struct seccomp_prog *p, __u16 code, __u32 k);
/* Point the true (or false) branch of the jump AT at the next instruction
 * to be emitted. Jumps only go forward, at most 255 instructions. */
void seccomp_land(struct seccomp_prog *p, unsigned at, int branch_true);
/* A = the word at OFFSET of struct seccomp_data. */
void seccomp_load(struct seccomp_prog *p, __u32 offset);
/* Return ACTION. */
void seccomp_ret(struct seccomp_prog *p, __u32 action);
/* If A == K, return ACTION; else go on with A unchanged. */
void seccomp_if_eq(struct seccomp_prog *p, __u32 k, __u32 action);
/* The prologue of a filter: a syscall of another ABI (on x86_64: i386
 * through int 0x80, and x32) fails with ENOSYS, as its numbers mean other
 * calls. Leaves nr in A. Only where SECCOMP_ARCH is defined. */
void seccomp_arch_check(struct seccomp_prog *p);
/* seccomp(2) SECCOMP_SET_MODE_FILTER with FLAGS: the call's result (the
 * listener's descriptor with SECCOMP_FILTER_FLAG_NEW_LISTENER), or -1 with
 * errno set, E2BIG if P did not fit (a bug). */
int seccomp_filter(const struct seccomp_prog *p, unsigned long flags);

/* --- the filters ------------------------------------------------------------ */

/* Install one filter for WHAT (a mask of the above). Syscalls of a foreign
 * ABI (i386 or x32 on x86_64) fail with ENOSYS so the filter cannot be
 * bypassed through them. Returns 0 (with SECCOMP_NOTIFY_SETGID the
 * filter's listener, a descriptor), or -1 with errno set (EBUSY: a filter
 * above already has the chain's one listener) (ENOSYS on an
 * architecture this file does not know, E2BIG if the program would not
 * fit, which is a bug). */
int seccomp_install(unsigned what);
/* seccomptrace.c, sharness-exec-landlock -X: a second filter whose
 * SECCOMP_RET_TRACE rules stop every path-taking and socket call for the
 * observer (data 0). Without a tracer those calls fail with ENOSYS. */
int seccomp_trace_install(void);
/* Is NR one of the calls that filter stops? */
int seccomp_traced(long nr);
/* The process group SECCOMP_DENY_GROUP names besides 0 (0: none). */
void seccomp_group(pid_t pgid);

#endif
