/* The seccomp filters of seccomp.c, run through a classic-BPF interpreter
 * of this test's own on made-up seccomp_data: every rule, and what the
 * machine running the tests cannot show live (i386 and x32 calls, 64-bit
 * argument registers with high bits set, the emitter's bounds). */
#include "seccomp.c"

#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
#include "tap.h"

#ifdef NATIVE_ARCH
#define ALLOWED SECCOMP_RET_ALLOW
#define FULL (SECCOMP_TARGET | SECCOMP_DENY_USERNS | SECCOMP_NET_ALLOWLIST)

static struct prog prog;

/* Run PROG on one syscall; 0xdeadbeef for a program the kernel would not
 * accept (an unknown instruction, a load or a jump out of bounds). */
static __u32 run(__u32 arch, long nr, __u64 a0, __u64 a1, __u64 a2, __u64 a3)
{
	struct seccomp_data d;
	__u32 A = 0, pc = 0;

	memset(&d, 0, sizeof d);
	d.nr = (int)nr;
	d.arch = arch;
	d.args[0] = a0;
	d.args[1] = a1;
	d.args[2] = a2;
	d.args[3] = a3;
	while (pc < prog.n) {
		const struct sock_filter *f = &prog.f[pc++];
		switch (f->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (f->k % 4 || f->k + 4 > sizeof d)
				return 0xdeadbeef;
			memcpy(&A, (const char *)&d + f->k, 4);
			break;
		case BPF_ALU | BPF_AND | BPF_K: A &= f->k; break;
		case BPF_JMP | BPF_JEQ | BPF_K: pc += A == f->k ? f->jt : f->jf; break;
		case BPF_JMP | BPF_JGE | BPF_K: pc += A >= f->k ? f->jt : f->jf; break;
		case BPF_JMP | BPF_JSET | BPF_K: pc += A & f->k ? f->jt : f->jf; break;
		case BPF_RET | BPF_K: return f->k;
		default: return 0xdeadbeef;
		}
	}
	return 0xdeadbeef;
}

#define N(nr) NATIVE_ARCH, (nr)
#define IS(what, expect, call, ...) \
	tap_ok(build(&prog, what) == 0 && run(call, __VA_ARGS__) == (expect), \
	       "%s %s: %s", #call, #__VA_ARGS__, #expect)

static void target(void)
{
	unsigned w = FULL;

	IS(w, ALLOWED, N(SYS_getpid), 0, 0, 0, 0);
	/* Another ABI: every call, whatever its number means there. */
#ifdef __x86_64__
	IS(w, ERRNO(ENOSYS), AUDIT_ARCH_I386, 15 /* chmod */, 0, 04755, 0, 0);
	IS(w, ERRNO(ENOSYS), AUDIT_ARCH_I386, 20 /* getpid */, 0, 0, 0, 0);
	IS(w, ERRNO(ENOSYS), N(0x40000000 | SYS_chmod), 0, 04755, 0, 0);
	IS(w, ERRNO(ENOSYS), N(0x40000000 | SYS_getpid), 0, 0, 0, 0);
#endif
	/* Set-id bits, by each syscall; the kernel reads umode_t, so the
	 * high half of the register does not matter. */
#ifdef SYS_chmod
	IS(w, ERRNO(EPERM), N(SYS_chmod), 0, 04755, 0, 0);
	IS(w, ERRNO(EPERM), N(SYS_chmod), 0, 0xffffffff00000400ULL /* S_ISGID */, 0, 0);
	IS(w, ALLOWED, N(SYS_chmod), 0, 01777, 0, 0);
#endif
	IS(w, ERRNO(EPERM), N(SYS_fchmod), 3, 02700, 0, 0);
	IS(w, ERRNO(EPERM), N(SYS_fchmodat), 0, 0, 06755, 0);
	IS(w, ERRNO(EPERM), N(SYS_fchmodat2), 0, 0, 04000, 0);
	IS(w, ALLOWED, N(SYS_fchmodat2), 0, 0, 0755, 0);
	IS(w, ERRNO(EPERM), N(SYS_mknodat), 0, 0, S_IFREG | 04755, 0);
	IS(w, ERRNO(EPERM), N(SYS_openat), 0, 0, O_CREAT | O_WRONLY, 04755);
	IS(w, ERRNO(EPERM), N(SYS_openat), 0, 0, O_TMPFILE | O_RDWR, 02755);
	IS(w, ALLOWED, N(SYS_openat), 0, 0, O_RDONLY, 04755);
	IS(w, ALLOWED, N(SYS_openat), 0, 0, O_CREAT | O_WRONLY, 0644);
#ifdef SYS_open
	IS(w, ERRNO(EPERM), N(SYS_open), 0, O_CREAT, 04700, 0);
	IS(w, ALLOWED, N(SYS_open), 0, O_RDONLY, 04700, 0);
#endif
#ifdef SYS_creat
	IS(w, ERRNO(EPERM), N(SYS_creat), 0, 02755, 0, 0);
#endif
	/* SECCOMP_NOTIFY_SETGID: the chmod family with S_ISGID alone goes
	 * to the setgid server; S_ISUID, and either bit where a call makes
	 * a file, are refused as before; no set-id bit, allowed. */
	{
		unsigned g = w | SECCOMP_NOTIFY_SETGID;

#ifdef SYS_chmod
		IS(g, SECCOMP_RET_USER_NOTIF, N(SYS_chmod), 0, 02775, 0, 0);
		IS(g, SECCOMP_RET_USER_NOTIF, N(SYS_chmod), 0, 0xffffffff00000400ULL, 0, 0);
		IS(g, ERRNO(EPERM), N(SYS_chmod), 0, 04755, 0, 0);
		IS(g, ALLOWED, N(SYS_chmod), 0, 01777, 0, 0);
#endif
		IS(g, SECCOMP_RET_USER_NOTIF, N(SYS_fchmod), 3, 02700, 0, 0);
		IS(g, SECCOMP_RET_USER_NOTIF, N(SYS_fchmodat), 0, 0, 02775, 0);
		IS(g, SECCOMP_RET_USER_NOTIF, N(SYS_fchmodat2), 0, 0, 02000, 0);
		IS(g, ERRNO(EPERM), N(SYS_fchmodat), 0, 0, 06755, 0);
		IS(g, ERRNO(EPERM), N(SYS_fchmodat2), 0, 0, 04000, 0);
		IS(g, ALLOWED, N(SYS_fchmodat), 0, 0, 0775, 0);
		IS(g, ERRNO(EPERM), N(SYS_mknodat), 0, 0, S_IFREG | 02755, 0);
		IS(g, ERRNO(EPERM), N(SYS_openat), 0, 0, O_CREAT | O_WRONLY, 02755);
#ifdef SYS_creat
		IS(g, ERRNO(EPERM), N(SYS_creat), 0, 02755, 0, 0);
#endif
	}
	/* ENOSYS, as on an older kernel. */
	IS(w, ERRNO(ENOSYS), N(SYS_openat2), 0, 0, 0, 0);
	IS(w, ERRNO(ENOSYS), N(SYS_clone3), 0, 0, 0, 0);
	IS(w, ERRNO(ENOSYS), N(SYS_io_uring_setup), 1, 0, 0, 0);
	IS(w, ERRNO(ENOSYS), N(SYS_io_uring_enter), 3, 1, 1, 0);
	IS(w, ERRNO(EPERM), N(SYS_keyctl), 0, 0, 0, 0);
	IS(w, ERRNO(EPERM), N(SYS_add_key), 0, 0, 0, 0);
	IS(w, ERRNO(EPERM), N(SYS_request_key), 0, 0, 0, 0);
	/* User namespaces: refused unless -U. */
	IS(w, ERRNO(EPERM), N(SYS_unshare), CLONE_NEWUSER | CLONE_NEWNS, 0, 0, 0);
	IS(w, ALLOWED, N(SYS_unshare), CLONE_NEWNS, 0, 0, 0);
#ifdef SYS_clone
	IS(w, ERRNO(EPERM), N(SYS_clone), CLONE_NEWUSER | SIGCHLD, 0, 0, 0);
	IS(w, ALLOWED, N(SYS_clone), SIGCHLD, 0, 0, 0);
	IS(w & ~SECCOMP_DENY_USERNS, ALLOWED, N(SYS_clone), CLONE_NEWUSER | SIGCHLD, 0, 0, 0);
#endif
	IS(w & ~SECCOMP_DENY_USERNS, ALLOWED, N(SYS_unshare), CLONE_NEWUSER, 0, 0, 0);
	IS(w, ALLOWED, N(SYS_ptrace), PTRACE_TRACEME, 0, 0, 0);
	/* --explain: the refusals it reports are traps, which the kernel
	 * never runs, whoever traces the caller; ptrace and CLONE_UNTRACED
	 * are refused too, so the observer is the only tracer. */
#ifdef __x86_64__
	{
		unsigned x = w | SECCOMP_EXPLAIN;
		__u32 trap = SECCOMP_RET_TRAP | SECCOMP_TRAP_REFUSED;

		IS(x, trap | ENOSYS, N(SYS_openat2), 0, 0, 0, 0);
		IS(x, trap | ENOSYS, N(SYS_io_uring_setup), 1, 0, 0, 0);
		IS(x, trap | EPERM, N(SYS_keyctl), 0, 0, 0, 0);
		IS(x, trap | EPERM, N(SYS_add_key), 0, 0, 0, 0);
		IS(x, trap | EPERM, N(SYS_ptrace), PTRACE_TRACEME, 0, 0, 0);
		IS(x, trap | EPERM, N(SYS_clone), CLONE_UNTRACED | SIGCHLD, 0, 0, 0);
		IS(x, ERRNO(EPERM), N(SYS_clone), CLONE_NEWUSER | SIGCHLD, 0, 0, 0);
		IS(x, ALLOWED, N(SYS_clone), CLONE_VM | CLONE_VFORK | SIGCHLD, 0, 0, 0);
		IS(x & ~SECCOMP_DENY_USERNS, trap | EPERM, N(SYS_clone), CLONE_UNTRACED, 0, 0, 0);
		IS(x & ~SECCOMP_DENY_USERNS, ALLOWED, N(SYS_clone), CLONE_NEWUSER, 0, 0, 0);
		IS(x | SECCOMP_DENY_SOCKETS, trap | EAFNOSUPPORT, N(SYS_socket), AF_INET, SOCK_STREAM, 0, 0);
		IS(x | SECCOMP_DENY_SOCKETS, ALLOWED, N(SYS_socket), AF_UNIX, SOCK_STREAM, 0, 0);
		IS(x, ERRNO(ENOSYS), N(SYS_clone3), 0, 0, 0, 0);
		IS(x, trap | EPERM, N(SYS_fchmodat), 0, 0, 02775, 0);
		IS(x, trap | EPERM, N(SYS_fchmod), 3, 04755, 0, 0);
		IS(x, trap | EPERM, N(SYS_openat), 0, 0, O_CREAT | O_WRONLY, 04755);
		IS(x, ALLOWED, N(SYS_openat), 0, 0, O_RDONLY, 04755);
		IS(x, ALLOWED, N(SYS_fchmodat), 0, 0, 0775, 0);
		/* mkdir's mode is not checked: the kernel drops S_ISGID
		 * there (a new directory takes it from a setgid parent). */
		IS(x, ALLOWED, N(SYS_mkdirat), 0, 0, 02775, 0);
	}
#endif
	/* Terminal, leases, processes outside. */
	IS(w, ERRNO(EPERM), N(SYS_ioctl), 0, TIOCSTI, 0, 0);
	IS(w, ERRNO(EPERM), N(SYS_ioctl), 0, 0x100000000ULL | TIOCSTI, 0, 0);
	IS(w, ERRNO(EPERM), N(SYS_ioctl), 0, TIOCLINUX, 0, 0);
	IS(w, ALLOWED, N(SYS_ioctl), 0, TIOCGWINSZ, 0, 0);
	IS(w, ERRNO(EACCES), N(SYS_fcntl), 0, F_SETLEASE, F_RDLCK, 0);
	IS(w, ERRNO(EACCES), N(SYS_fcntl), 0, F_SETDELEG, 0, 0);
	IS(w, ALLOWED, N(SYS_fcntl), 0, F_GETFD, 0, 0);
	IS(w, ERRNO(EPERM), N(SYS_kill), (__u32)-1, SIGKILL, 0, 0);
	IS(w, ERRNO(EPERM), N(SYS_kill), (__u64)-1, SIGKILL, 0, 0);
	IS(w, ALLOWED, N(SYS_kill), 0, SIGTERM, 0, 0);
	IS(w, ALLOWED, N(SYS_kill), (__u32)-42, SIGTERM, 0, 0);
	IS(w, ERRNO(EPERM), N(SYS_tgkill), (__u32)-1, 1, SIGKILL, 0);
	IS(w, ALLOWED, N(SYS_prlimit64), 0, RLIMIT_NOFILE, 0x7ffc0000, 0);
	IS(w, ALLOWED, N(SYS_prlimit64), 42, RLIMIT_NOFILE, 0, 0x7ffc0000);
	IS(w, ERRNO(EPERM), N(SYS_prlimit64), 42, RLIMIT_NOFILE, 0x7ffc0000, 0);
	IS(w, ERRNO(EPERM), N(SYS_prlimit64), 42, RLIMIT_NOFILE, 0x7ffc00000000ULL, 0);
	IS(w, ERRNO(EPERM), N(SYS_setpriority), PRIO_USER, 0, 10, 0);
	IS(w, ERRNO(EPERM), N(SYS_setpriority), PRIO_PGRP, 0, 10, 0);
	IS(w, ALLOWED, N(SYS_setpriority), PRIO_PROCESS, 1234, 10, 0);
	IS(w, ERRNO(EPERM), N(SYS_ioprio_set), 3, 0, 0, 0);
	IS(w, ALLOWED, N(SYS_ioprio_set), IOPRIO_WHO_PROCESS, 0, 0, 0);
}

static void network(void)
{
	unsigned w = FULL, none = SECCOMP_TARGET;

	IS(w, ALLOWED, N(SYS_socket), AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, 0);
	IS(w, ALLOWED, N(SYS_socket), AF_INET6, SOCK_STREAM, IPPROTO_TCP, 0);
	IS(w, ALLOWED, N(SYS_socket), AF_UNIX, SOCK_DGRAM, 0, 0);
	IS(w, ALLOWED, N(SYS_socket), AF_NETLINK, SOCK_RAW, 0, 0);
	IS(w, ALLOWED, N(SYS_socket), AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_ROUTE, 0);
	IS(w, ERRNO(EACCES), N(SYS_socket), AF_NETLINK, SOCK_RAW, NETLINK_SOCK_DIAG, 0);
	IS(w, ERRNO(EACCES), N(SYS_socket), AF_NETLINK, SOCK_RAW, NETLINK_GENERIC, 0);
	IS(w, ERRNO(EACCES), N(SYS_socket), AF_NETLINK, SOCK_RAW, NETLINK_ROUTE | 0x100, 0);
	IS(w, ERRNO(EACCES), N(SYS_setsockopt), 3, SOL_SOCKET, SO_REUSEPORT, 0);
	IS(w, ALLOWED, N(SYS_setsockopt), 3, SOL_SOCKET, SO_REUSEADDR, 0);
	IS(w, ALLOWED, N(SYS_setsockopt), 3, IPPROTO_TCP, SO_REUSEPORT, 0);
	IS(w, ERRNO(EACCES), N(SYS_socket), AF_INET, SOCK_STREAM, 262 /* MPTCP */, 0);
	IS(w, ERRNO(EACCES), N(SYS_socket), AF_INET, SOCK_STREAM, 132 /* SCTP */, 0);
	IS(w, ERRNO(EACCES), N(SYS_socket), AF_INET, SOCK_STREAM, 256 /* SMC */, 0);
	IS(w, ERRNO(EACCES), N(SYS_socket), 43 /* AF_SMC */, SOCK_STREAM, 0, 0);
	IS(w, ERRNO(EACCES), N(SYS_socket), AF_INET, SOCK_RAW, IPPROTO_ICMP, 0);
	IS(w, ERRNO(EACCES), N(SYS_socket), AF_INET, SOCK_DGRAM, 0, 0);
	IS(w, ERRNO(EACCES), N(SYS_socket), AF_PACKET, SOCK_RAW, 0, 0);
	IS(w, ERRNO(EACCES), N(SYS_socket), AF_VSOCK, SOCK_STREAM, 0, 0);
	IS(w, ERRNO(EACCES), N(SYS_socketpair), AF_VSOCK, SOCK_STREAM, 0, 0);
	/* Datagrams only with UDP ports, and UDP only. */
	IS(w | SECCOMP_ALLOW_UDP, ALLOWED, N(SYS_socket), AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0, 0);
	IS(w | SECCOMP_ALLOW_UDP, ALLOWED, N(SYS_socket), AF_INET6, SOCK_DGRAM, IPPROTO_UDP, 0);
	IS(w | SECCOMP_ALLOW_UDP, ERRNO(EACCES), N(SYS_socket), AF_INET, SOCK_DGRAM, IPPROTO_ICMP, 0);
	IS(w | SECCOMP_ALLOW_UDP, ERRNO(EACCES), N(SYS_socket), AF_INET, SOCK_DGRAM, 136 /* UDP-Lite */, 0);
	IS(w | SECCOMP_ALLOW_UDP, ERRNO(EACCES), N(SYS_socket), AF_INET, SOCK_STREAM, 262, 0);
	IS(w, ERRNO(EACCES), N(SYS_sendto), 3, 0, 5, MSG_FASTOPEN);
	IS(w, ALLOWED, N(SYS_sendto), 3, 0, 5, MSG_NOSIGNAL);
	IS(w, ERRNO(EACCES), N(SYS_sendmsg), 3, 0, MSG_FASTOPEN | MSG_DONTWAIT, 0);
	IS(w, ERRNO(EACCES), N(SYS_sendmmsg), 3, 0, 1, MSG_FASTOPEN);
	/* "none": a network namespace holds them; vsock is refused still. */
	IS(none, ALLOWED, N(SYS_socket), AF_INET, SOCK_DGRAM, 0, 0);
	IS(none, ALLOWED, N(SYS_socket), AF_INET, SOCK_STREAM, 262, 0);
	IS(none, ALLOWED, N(SYS_sendto), 3, 0, 5, MSG_FASTOPEN);
	IS(none, ALLOWED, N(SYS_socket), AF_NETLINK, SOCK_RAW, NETLINK_SOCK_DIAG, 0);
	IS(none, ALLOWED, N(SYS_setsockopt), 3, SOL_SOCKET, SO_REUSEPORT, 0);
	IS(none, ERRNO(EACCES), N(SYS_socket), AF_VSOCK, SOCK_STREAM, 0, 0);
	/* The netns fallback: AF_UNIX and nothing else. */
	IS(SECCOMP_DENY_SOCKETS, ALLOWED, N(SYS_socket), AF_UNIX, SOCK_STREAM, 0, 0);
	IS(SECCOMP_DENY_SOCKETS, ERRNO(EAFNOSUPPORT), N(SYS_socket), AF_INET, SOCK_STREAM, 0, 0);
	IS(SECCOMP_DENY_SOCKETS, ERRNO(EAFNOSUPPORT), N(SYS_socketpair), AF_INET, SOCK_STREAM, 0, 0);
	IS(SECCOMP_DENY_SOCKETS, ERRNO(ENOSYS), N(SYS_io_uring_setup), 1, 0, 0, 0);
	IS(SECCOMP_DENY_SOCKETS, ALLOWED, N(SYS_openat2), 0, 0, 0, 0);
}

/* The emitter never writes past its array, nor a jump past 255. */
static void bounds(void)
{
	unsigned i, j;
	int rc = build(&prog, FULL | SECCOMP_ALLOW_UDP | SECCOMP_EXPLAIN);

	tap_ok(rc == 0 && prog.n < 224, "the fullest filter fits (%u instructions)", prog.n);
	prog.n = PROG_MAX - 1;
	prog.full = 0;
	ret(&prog, ALLOW);
	tap_ok(prog.n == PROG_MAX && !prog.full, "the last slot can be used");
	i = emit(&prog, BPF_RET | BPF_K, ALLOW);
	tap_ok(i == PROG_MAX && prog.n == PROG_MAX && prog.full, "one more is refused, not written");
	prog.n = 0;
	prog.full = 0;
	j = emit(&prog, BPF_JMP | BPF_JEQ | BPF_K, 1);
	for (i = 0; i < 256; i++)
		ret(&prog, ALLOW);
	land(&prog, j, 0);
	tap_ok(prog.full, "a jump over 256 instructions is refused");
}
#endif

int main(void)
{
#ifdef NATIVE_ARCH
	target();
	network();
	bounds();
#else
	tap_ok(seccomp_install(0) < 0 && errno == ENOSYS, "no filter on an unknown architecture");
#endif
	return tap_done();
}
