#include <errno.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/net.h>
#include <linux/seccomp.h>

#include "seccomp.h"

#if defined(__x86_64__)
# define NATIVE_ARCH AUDIT_ARCH_X86_64
# define X32_BIT 0x40000000
#elif defined(__aarch64__)
# define NATIVE_ARCH AUDIT_ARCH_AARCH64
#elif defined(__i386__)
# define NATIVE_ARCH AUDIT_ARCH_I386
#elif defined(__riscv) && __riscv_xlen == 64
# define NATIVE_ARCH AUDIT_ARCH_RISCV64
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
# define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#else
# define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i) + 4)
#endif

#define STMT(code, k) ((struct sock_filter)BPF_STMT(code, k))
#define JUMP(code, k, t, f) ((struct sock_filter)BPF_JUMP(code, k, t, f))
#define RET_ERRNO(e) STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))

int seccomp_install(unsigned what)
{
#ifndef NATIVE_ARCH
	(void)what;
	errno = ENOSYS;
	return -1;
#else
	struct sock_filter f[40];
	struct sock_fprog prog;
	unsigned n = 0;

	f[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
	f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0);
	f[n++] = RET_ERRNO(ENOSYS);
	f[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
#ifdef X32_BIT
	f[n++] = JUMP(BPF_JMP | BPF_JGE | BPF_K, X32_BIT, 0, 1);
	f[n++] = RET_ERRNO(ENOSYS);
#endif
	if (what & SECCOMP_DENY_SOCKETS) {
#ifdef SYS_socketcall
		/* i386: socketcall(2) passes socket(2)'s family behind a
		 * pointer a filter cannot read, so its SOCKET and SOCKETPAIR
		 * calls are refused outright, AF_UNIX too (fail closed). */
		f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socketcall, 0, 5);
		f[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(0));
		f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_SOCKET, 1, 0);
		f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_SOCKETPAIR, 0, 1);
		f[n++] = RET_ERRNO(EAFNOSUPPORT);
		f[n++] = STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
#endif
		/* socket / socketpair: allow AF_UNIX only. Both ways out of
		 * the family test return, so A holding the family instead of
		 * nr never reaches the tests below. */
		f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 1, 0);
		f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socketpair, 0, 4);
		f[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(0));
		f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 1, 0);
		f[n++] = RET_ERRNO(EAFNOSUPPORT);
		f[n++] = STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
#ifdef SYS_io_uring_setup
		f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_io_uring_setup, 0, 1);
		f[n++] = RET_ERRNO(ENOSYS);
#endif
	}
	if (what & SECCOMP_DENY_TIOCSTI) {
		/* The kernel reads the ioctl request as an unsigned int, so
		 * only the low 32 bits of the argument matter. */
		f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ioctl, 0, 4);
		f[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(1));
		f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, TIOCSTI, 1, 0);
		f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, TIOCLINUX, 0, 1);
		f[n++] = RET_ERRNO(EPERM);
	}
	f[n++] = STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);

	prog.len = (unsigned short)n;
	prog.filter = f;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
#endif
}
