/* The one classic BPF emitter, bounds-checked, and the seccomp filters of
 * sharness-exec-netns and sharness-exec-landlock written with it (the
 * listen step's filter and the --explain TRACE rules are written with it
 * too: listen/listenguard.c, seccomptrace.c). Every syscall
 * with rules gets one block that ends in a return on every path, so the
 * blocks do not depend on each other and a syscall the filter never names
 * is allowed without its arguments ever being read (the kernel then caches
 * that answer and skips the filter for it: seccomp_cache_prepare). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <netinet/in.h>
#include <linux/net.h>
#include <linux/netlink.h>

#include "seccomp.h"

/* Linux 6.19's file delegations block outside openers as leases do. */
#ifndef F_SETDELEG
# define F_SETDELEG (F_SETLEASE + 16)
#endif
#ifndef IOPRIO_WHO_PROCESS
# define IOPRIO_WHO_PROCESS 1
#endif
#ifndef AF_VSOCK
# define AF_VSOCK 40
#endif
#ifndef CLONE_UNTRACED
# define CLONE_UNTRACED 0x00800000
#endif
/* O_TMPFILE is __O_TMPFILE | O_DIRECTORY; the kernel creates a file when
 * either O_CREAT or the __O_TMPFILE bit is set. */
#define CREATES (O_CREAT | (O_TMPFILE & ~O_DIRECTORY))
#define SETID (S_ISUID | S_ISGID)

#define ALLOW SECCOMP_RET_ALLOW
/* A refusal the --explain observer reports (seccomp.h): a trap, so that
 * the kernel never runs the call, whoever traces the caller. */
#define REFUSE(what, e) ((what) & SECCOMP_EXPLAIN ? \
	SECCOMP_RET_TRAP | SECCOMP_TRAP_REFUSED | (__u32)(e) : ERRNO(e))

/* --- the emitter (seccomp.h) ------------------------------------------------ */

unsigned seccomp_emit(struct seccomp_prog *p, __u16 code, __u32 k)
{
	if (p->n >= SECCOMP_PROG_MAX) {
		p->full = 1;
		return SECCOMP_PROG_MAX;
	}
	p->f[p->n] = (struct sock_filter)BPF_JUMP(code, k, 0, 0);
	return p->n++;
}

void seccomp_land(struct seccomp_prog *p, unsigned at, int branch_true)
{
	unsigned off;

	if (at >= p->n || p->n - at - 1 > 255) {
		p->full = 1;
		return;
	}
	off = p->n - at - 1;
	if (branch_true)
		p->f[at].jt = (__u8)off;
	else
		p->f[at].jf = (__u8)off;
}

void seccomp_load(struct seccomp_prog *p, __u32 offset)
{
	seccomp_emit(p, BPF_LD | BPF_W | BPF_ABS, offset);
}

void seccomp_ret(struct seccomp_prog *p, __u32 action)
{
	seccomp_emit(p, BPF_RET | BPF_K, action);
}

void seccomp_if_eq(struct seccomp_prog *p, __u32 k, __u32 action)
{
	unsigned j = seccomp_emit(p, BPF_JMP | BPF_JEQ | BPF_K, k);

	seccomp_ret(p, action);
	seccomp_land(p, j, 0);
}

/* The short names the rules below are written in, like an assembler
 * listing (tests/unit/test-seccomp.c, which includes this file, uses them
 * too). */
#ifdef SECCOMP_ARCH
# define NATIVE_ARCH SECCOMP_ARCH
#endif
#define PROG_MAX SECCOMP_PROG_MAX
#define prog seccomp_prog
#define ARG_LO SECCOMP_ARG_LO
#define ERRNO SECCOMP_ERRNO
#define emit seccomp_emit
#define land seccomp_land
#define load seccomp_load
#define ret seccomp_ret
#define if_eq seccomp_if_eq

/* If A has any bit of MASK, return ACTION; else go on. */
static void if_any(struct prog *p, __u32 mask, __u32 action)
{
	unsigned j = emit(p, BPF_JMP | BPF_JSET | BPF_K, mask);

	ret(p, action);
	land(p, j, 0);
}

/* The rules of one syscall: what is emitted between begin and end runs for
 * NR only and returns on every path; every other syscall jumps over it
 * with A still holding its number. */
static unsigned begin(struct prog *p, long nr)
{
	return emit(p, BPF_JMP | BPF_JEQ | BPF_K, (__u32)nr);
}

static void end(struct prog *p, unsigned at)
{
	land(p, at, 0);
}

/* NR fails with ACTION whatever its arguments. */
static void deny(struct prog *p, long nr, __u32 action)
{
	unsigned s = begin(p, nr);

	ret(p, action);
	end(p, s);
}

/* NR fails with ACTION when its argument ARG has a bit of K (BITS), or
 * (!BITS) equals K or, if not 0, K2. */
static void deny_arg(struct prog *p, long nr, int arg, int bits, __u32 action, __u32 k, __u32 k2)
{
	unsigned s = begin(p, nr);

	load(p, ARG_LO(arg));
	if (bits)
		if_any(p, k, action);
	else
		if_eq(p, k, action);
	if (k2)
		if_eq(p, k2, action);
	ret(p, ALLOW);
	end(p, s);
}
#define deny_bits(p, nr, arg, mask, action) deny_arg(p, nr, arg, 1, action, mask, 0)
#define deny_value(p, nr, arg, k, action) deny_arg(p, nr, arg, 0, action, k, 0)

/* A syscall and the index of the argument a rule reads; NR -1: this
 * architecture has no such call, and no rule is emitted. */
struct sysarg {
	long nr;
	int arg;
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* deny_bits for each syscall of LIST with the same MASK and ACTION. */
static void deny_bits_each(struct prog *p, const struct sysarg *list, size_t n,
			   __u32 mask, __u32 action)
{
	for (size_t i = 0; i < n; i++)
		if (list[i].nr >= 0)
			deny_bits(p, list[i].nr, list[i].arg, mask, action);
}

/* deny for each syscall of LIST with the same ACTION. */
static void deny_each(struct prog *p, const long *list, size_t n, __u32 action)
{
	for (size_t i = 0; i < n; i++)
		deny(p, list[i], action);
}

/* --- the rules ------------------------------------------------------------- */

/* Calls only older architectures have (aarch64 and riscv64 know the *at
 * forms alone). */
#ifndef SYS_creat
# define SYS_creat (-1)
#endif
#ifndef SYS_chmod
# define SYS_chmod (-1)
#endif
#ifndef SYS_mknod
# define SYS_mknod (-1)
#endif
/* i386 headers from before Linux 4.3 lack the direct socket calls
 * (socketcall_rules covers them there). */
#ifndef SYS_sendto
# define SYS_sendto (-1)
#endif
#ifndef SYS_sendmsg
# define SYS_sendmsg (-1)
#endif
#ifndef SYS_sendmmsg
# define SYS_sendmmsg (-1)
#endif

/* Where TCP Fast Open rides on a send: each call's flags argument. */
static const struct sysarg fastopen_sends[] = {
	{ SYS_sendto, 3 }, { SYS_sendmsg, 2 }, { SYS_sendmmsg, 3 },
};

/* Every call that takes a mode, but open and openat (setid_open: their
 * mode counts only when they create): the mode argument. The chmod
 * family (the first four) changes a file that exists, and may be handed
 * to the setgid server (SECCOMP_NOTIFY_SETGID); the others create one. */
#define CHMODS 4
static const struct sysarg mode_setters[] = {
	{ SYS_chmod, 1 }, { SYS_fchmod, 1 }, { SYS_fchmodat, 2 }, { SYS_fchmodat2, 2 },
	{ SYS_creat, 1 }, { SYS_mknod, 1 }, { SYS_mknodat, 2 },
};

/* A chmod: S_ISUID refused, S_ISGID alone to the setgid server, which
 * alone can tell a directory (SECCOMP_NOTIFY_SETGID), or through to the
 * listen guard's filter, which hands it to its (SECCOMP_SETGID_ABOVE). */
static void setgid_notify(struct prog *p, const struct sysarg *c, unsigned what)
{
	unsigned s = begin(p, c->nr);

	load(p, ARG_LO(c->arg));
	if_any(p, S_ISUID, REFUSE(what, EPERM));
	if_any(p, S_ISGID, what & SECCOMP_NOTIFY_SETGID ? SECCOMP_RET_USER_NOTIF : ALLOW);
	ret(p, ALLOW);
	end(p, s);
}

/* Calls that fail whatever their arguments (seccomp.h says why). An
 * inherited io_uring could be driven with enter/register alone. */
static const long io_uring_calls[] = {
	SYS_io_uring_setup, SYS_io_uring_enter, SYS_io_uring_register,
};
static const long key_calls[] = { SYS_keyctl, SYS_add_key, SYS_request_key };

/* NR is allowed when its argument ARG equals K, and fails with ACTION
 * otherwise. */
static void allow_only(struct prog *p, long nr, int arg, __u32 k, __u32 action)
{
	unsigned s = begin(p, nr);

	load(p, ARG_LO(arg));
	if_eq(p, k, ALLOW);
	ret(p, action);
	end(p, s);
}

/* open/openat: a set-id bit in MODE counts only when FLAGS create a file
 * (libc passes whatever is in the register otherwise). */
static void setid_open(struct prog *p, long nr, int flags, int mode, unsigned what)
{
	unsigned s = begin(p, nr), j;

	load(p, ARG_LO(flags));
	j = emit(p, BPF_JMP | BPF_JSET | BPF_K, CREATES);
	load(p, ARG_LO(mode));
	if_any(p, SETID, REFUSE(what, EPERM));
	land(p, j, 0);
	ret(p, ALLOW);
	end(p, s);
}

/* socket(2) and socketpair(2): family, type and protocol are plain
 * registers (args 0-2), so the filter sees exactly what the kernel gets. */
static void socket_rules(struct prog *p, long nr, unsigned what)
{
	unsigned s, nl, inet, inet6, tcp, udp;

	if (what & SECCOMP_DENY_SOCKETS) {
		allow_only(p, nr, 0, AF_UNIX, REFUSE(what, EAFNOSUPPORT));
		return;
	}
	if (!(what & SECCOMP_NET_ALLOWLIST)) {
		deny_value(p, nr, 0, AF_VSOCK, ERRNO(EACCES));
		return;
	}
	/* An allowlist: a blocklist would miss the next protocol. */
	s = begin(p, nr);
	load(p, ARG_LO(0));
	if_eq(p, AF_UNIX, ALLOW);
	nl = emit(p, BPF_JMP | BPF_JEQ | BPF_K, AF_NETLINK);
	inet = emit(p, BPF_JMP | BPF_JEQ | BPF_K, AF_INET);
	inet6 = emit(p, BPF_JMP | BPF_JEQ | BPF_K, AF_INET6);
	ret(p, ERRNO(EACCES));
	/* Netlink in the host's network: NETLINK_ROUTE (ip addr, getifaddrs)
	 * only; sock_diag would list the host's sockets, pathnames the view
	 * hides too, and the other protocols reach further still. */
	land(p, nl, 1);
	load(p, ARG_LO(2));
	if_eq(p, NETLINK_ROUTE, ALLOW);
	ret(p, ERRNO(EACCES));
	land(p, inet, 1);
	land(p, inet6, 1);
	load(p, ARG_LO(1));
	emit(p, BPF_ALU | BPF_AND | BPF_K, ~(__u32)(SOCK_NONBLOCK | SOCK_CLOEXEC));
	/* Landlock's TCP hooks see SOCK_STREAM with protocol 0 or TCP
	 * only: MPTCP (262), SCTP (132) and SMC (256) are other protocols. */
	tcp = emit(p, BPF_JMP | BPF_JEQ | BPF_K, SOCK_STREAM);
	load(p, ARG_LO(2));
	if_eq(p, 0, ALLOW);
	if_eq(p, IPPROTO_TCP, ALLOW);
	ret(p, ERRNO(EACCES));
	land(p, tcp, 0);
	if (what & SECCOMP_ALLOW_UDP) {
		/* Not ICMP (IPPROTO_ICMP, ping sockets) nor UDP-Lite. */
		udp = emit(p, BPF_JMP | BPF_JEQ | BPF_K, SOCK_DGRAM);
		load(p, ARG_LO(2));
		if_eq(p, 0, ALLOW);
		if_eq(p, IPPROTO_UDP, ALLOW);
		land(p, udp, 0);
	}
	ret(p, ERRNO(EACCES));
	end(p, s);
}

/* setsockopt(2) SO_REUSEPORT in the host's network: a socket of the
 * target's would join an outside group (same uid) on an allowed bind
 * port, and take a share of its connections. Level and optname are plain
 * registers (args 1-2). */
static void reuseport_rule(struct prog *p)
{
#ifdef SYS_setsockopt
	unsigned s = begin(p, SYS_setsockopt), j;

	load(p, ARG_LO(1));
	j = emit(p, BPF_JMP | BPF_JEQ | BPF_K, SOL_SOCKET);
	load(p, ARG_LO(2));
	if_eq(p, SO_REUSEPORT, ERRNO(EACCES));
	land(p, j, 0);
	ret(p, ALLOW);
	end(p, s);
#else
	(void)p;
#endif
}

#ifdef SYS_socketcall
/* i386: socketcall(2) passes the real arguments behind a pointer a filter
 * cannot read, so the calls that carry a family, send flags or a socket
 * option fail closed,
 * AF_UNIX too (C libraries built for kernels before 4.3 use nothing else). */
static void socketcall_rules(struct prog *p, unsigned what)
{
	__u32 no = ERRNO(what & SECCOMP_DENY_SOCKETS ? EAFNOSUPPORT : EACCES);
	unsigned s = begin(p, SYS_socketcall);

	load(p, ARG_LO(0));
	if_eq(p, SYS_SOCKET, no);
	if_eq(p, SYS_SOCKETPAIR, no);
	if (what & SECCOMP_NET_ALLOWLIST) {
		if_eq(p, SYS_SEND, no);
		if_eq(p, SYS_SENDTO, no);
		if_eq(p, SYS_SENDMSG, no);
		if_eq(p, SYS_SENDMMSG, no);
		if_eq(p, SYS_SETSOCKOPT, no);
	}
	ret(p, ALLOW);
	end(p, s);
}
#endif

/* SECCOMP_DENY_OUTSIDE: what reaches processes outside the run without
 * naming one of them. */
static pid_t group_pgid;

void seccomp_group(pid_t pgid)
{
	group_pgid = pgid;
}

static void outside_rules(struct prog *p, int group)
{
	unsigned s, j, k;

	/* kill(-1) signals every process the caller may signal, outside the
	 * run too where no pid namespace or Landlock scope stands. tkill and
	 * tgkill refuse pid <= 0 themselves (EINVAL); tgkill is named anyway,
	 * as DESIGN.md 4.6 says. */
	if (group) {
		/* Below Landlock ABI 6 nothing scopes signals: kill(0) and
		 * kill(-PGID) reach the caller's process group, which the
		 * target shares (its shell, a sibling). killpg(3) is
		 * kill(-PGID); where a pid namespace hides the group, its
		 * number there is 0 and only kill(0) names it. */
		s = begin(p, SYS_kill);
		load(p, ARG_LO(0));
		if_eq(p, (__u32)-1, ERRNO(EPERM));
		if_eq(p, 0, ERRNO(EPERM));
		if (group_pgid > 0)
			if_eq(p, (__u32)-group_pgid, ERRNO(EPERM));
		ret(p, ALLOW);
		end(p, s);
	} else {
		deny_value(p, SYS_kill, 0, (__u32)-1, ERRNO(EPERM));
	}
	deny_value(p, SYS_tgkill, 0, (__u32)-1, ERRNO(EPERM));
	/* prlimit64 setting another process's limits: Landlock does not scope
	 * it, and a limit set on the supervisor or on any process of the same
	 * uid outside (RLIMIT_FSIZE, NOFILE) breaks it. Reading them (new ==
	 * NULL, a pointer compared whole) stays allowed. */
	s = begin(p, SYS_prlimit64);
	load(p, ARG_LO(0));
	j = emit(p, BPF_JMP | BPF_JEQ | BPF_K, 0);
	load(p, ARG_LO(2));
	k = emit(p, BPF_JMP | BPF_JEQ | BPF_K, 0);
	load(p, SECCOMP_ARG_HI(2));
	if_eq(p, 0, ALLOW);
	land(p, k, 0);
	ret(p, ERRNO(EPERM));
	land(p, j, 1);
	ret(p, ALLOW);
	end(p, s);
	/* setpriority and ioprio_set on a process group or a whole uid reach
	 * every process of it, outside the run too where there is no pid
	 * namespace; one process (or thread, as pthread_setschedparam needs)
	 * stays allowed. */
	allow_only(p, SYS_setpriority, 0, PRIO_PROCESS, ERRNO(EPERM));
	allow_only(p, SYS_ioprio_set, 0, IOPRIO_WHO_PROCESS, ERRNO(EPERM));
}

/* clone(2): a nested user namespace (SECCOMP_DENY_USERNS) is kernel
 * attack surface, and capabilities over whatever it then makes; under
 * --explain (SECCOMP_EXPLAIN) CLONE_UNTRACED would make a child the
 * observer does not follow. One block: a second one for the same call
 * would never be reached. */
static void clone_rules(struct prog *p, unsigned what)
{
#ifdef SYS_clone
	unsigned s = begin(p, SYS_clone);

	load(p, ARG_LO(0));
	if (what & SECCOMP_DENY_USERNS)
		if_any(p, CLONE_NEWUSER, ERRNO(EPERM));
	if (what & SECCOMP_EXPLAIN)
		if_any(p, CLONE_UNTRACED, REFUSE(what, EPERM));
	ret(p, ALLOW);
	end(p, s);
#else
	(void)p;
	(void)what;
#endif
}

#ifdef NATIVE_ARCH
void seccomp_arch_check(struct prog *p)
{
	unsigned j;

	load(p, offsetof(struct seccomp_data, arch));
	j = emit(p, BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH);
	ret(p, ERRNO(ENOSYS));
	land(p, j, 1);
	load(p, offsetof(struct seccomp_data, nr));
#ifdef SECCOMP_X32_BIT
	j = emit(p, BPF_JMP | BPF_JGE | BPF_K, SECCOMP_X32_BIT);
	ret(p, ERRNO(ENOSYS));
	land(p, j, 0);
#endif
}

/* The whole filter for WHAT into P; 0, or -1 (E2BIG) if it did not fit. */
static int build(struct prog *p, unsigned what)
{
	p->n = 0;
	p->full = 0;
	seccomp_arch_check(p);
	/* The hottest syscalls with rules come first: a syscall with rules
	 * runs the filter from the top down to its own block. */
	if (what & SECCOMP_DENY_SETID) {
#ifdef SYS_openat
		setid_open(p, SYS_openat, 2, 3, what);
#endif
#ifdef SYS_open
		setid_open(p, SYS_open, 1, 2, what);
#endif
	}
	if (what & SECCOMP_DENY_LEASES) {
		/* A lease (or delegation) on a read-only file: outside openers
		 * for writing block until the holder lets go. */
		deny_arg(p, SYS_fcntl, 1, 0, ERRNO(EACCES), F_SETLEASE, F_SETDELEG);
#ifdef SYS_fcntl64
		deny_arg(p, SYS_fcntl64, 1, 0, ERRNO(EACCES), F_SETLEASE, F_SETDELEG);
#endif
	}
	if (what & SECCOMP_DENY_TIOCSTI) {
		/* Keystrokes pushed into a terminal shared with the caller
		 * (TIOCSTI), or TIOCLINUX's paste on a virtual console. The
		 * kernel reads the request as an unsigned int. */
		deny_arg(p, SYS_ioctl, 1, 0, ERRNO(EPERM), TIOCSTI, TIOCLINUX);
	}
	if (what & SECCOMP_NET_ALLOWLIST) {
		/* TCP Fast Open connects from inside sendto/sendmsg, where
		 * Landlock's connect hook never runs. (TCP_FASTOPEN_CONNECT
		 * is left alone: it still goes through connect(2).) */
		deny_bits_each(p, fastopen_sends, NELEM(fastopen_sends),
			       MSG_FASTOPEN, ERRNO(EACCES));
	}
	if (what & (SECCOMP_DENY_SOCKETS | SECCOMP_DENY_VSOCK | SECCOMP_NET_ALLOWLIST)) {
#ifdef SYS_socket
		socket_rules(p, SYS_socket, what);
#endif
#ifdef SYS_socketpair
		socket_rules(p, SYS_socketpair, what);
#endif
#ifdef SYS_socketcall
		socketcall_rules(p, what);
#endif
	}
	if (what & SECCOMP_NET_ALLOWLIST)
		reuseport_rule(p);
	if (what & (SECCOMP_DENY_USERNS | SECCOMP_EXPLAIN))
		clone_rules(p, what);
	if (what & SECCOMP_DENY_USERNS)
		deny_bits(p, SYS_unshare, 0, CLONE_NEWUSER, ERRNO(EPERM));
	if (what & SECCOMP_EXPLAIN)
		deny(p, SYS_ptrace, REFUSE(what, EPERM));
	if (what & SECCOMP_DENY_OUTSIDE)
		outside_rules(p, !!(what & SECCOMP_DENY_GROUP));
	if (what & SECCOMP_DENY_SETID) {
		/* The other ways to put S_ISUID or S_ISGID into a mode: a
		 * target owning a file (root: every file it creates) could
		 * otherwise leave a set-id program for others to run. */
		size_t from = 0;

		if (what & (SECCOMP_NOTIFY_SETGID | SECCOMP_SETGID_ABOVE))
			for (; from < CHMODS; from++)
				if (mode_setters[from].nr >= 0)
					setgid_notify(p, &mode_setters[from], what);
		deny_bits_each(p, mode_setters + from, NELEM(mode_setters) - from,
			       SETID, REFUSE(what, EPERM));
	}
	if (what & (SECCOMP_DENY_SOCKETS | SECCOMP_DENY_BYPASS | SECCOMP_NET_ALLOWLIST))
		deny_each(p, io_uring_calls, NELEM(io_uring_calls), REFUSE(what, ENOSYS));
	if (what & SECCOMP_DENY_BYPASS) {
		deny(p, SYS_openat2, REFUSE(what, ENOSYS));
		deny(p, SYS_clone3, ERRNO(ENOSYS)); /* every pthread_create: unreported */
	}
	if (what & SECCOMP_DENY_KEYS)
		deny_each(p, key_calls, NELEM(key_calls), REFUSE(what, EPERM));
	ret(p, ALLOW);
	if (p->full) {
		errno = E2BIG;
		return -1;
	}
	return 0;
}
#endif

int seccomp_install(unsigned what)
{
#ifndef NATIVE_ARCH
	(void)what;
	errno = ENOSYS;
	return -1;
#else
	static struct prog p;

	if (build(&p, what) < 0)
		return -1;
	return seccomp_filter(&p, what & SECCOMP_NOTIFY_SETGID ?
	                      SECCOMP_FILTER_FLAG_NEW_LISTENER : 0);
#endif
}

int seccomp_filter(const struct prog *p, unsigned long flags)
{
	struct sock_fprog fprog = { (unsigned short)p->n, (struct sock_filter *)p->f };

	if (p->full) {
		errno = E2BIG;
		return -1;
	}
	/* What prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER) does, with flags. */
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &fprog);
}
