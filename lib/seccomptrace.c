/* The --explain filter of sharness-exec-landlock (seccomp.h; DESIGN.md
 * 4.7): a second, separate filter that stops each path-taking and socket
 * call for the observer (SECCOMP_RET_TRACE, data 0) and allows the rest.
 * Seccomp applies the strongest action of all filters: this one never
 * lets through what the main filter refuses, and a call it names is one
 * the main filter allows or refuses on its own. Installed only under -E;
 * without it nothing is traced and nothing costs more. The observer
 * (observer.c) links this file too, for the list. */
#include <errno.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "seccomp.h"

#ifndef AT_EMPTY_PATH
# define AT_EMPTY_PATH 0x1000
#endif

/* The calls explain.c knows how to read, and chdir/fchdir, whose result
 * tells relative paths apart. */
static const long traced[] = {
#ifdef SYS_open
	SYS_open, SYS_creat, SYS_mkdir, SYS_mknod, SYS_unlink, SYS_rmdir, SYS_rename,
	SYS_link, SYS_symlink, SYS_chmod,
#endif
#ifdef SYS_renameat
	SYS_renameat,
#endif
	SYS_openat, SYS_execve, SYS_execveat, SYS_mkdirat, SYS_mknodat, SYS_unlinkat,
	SYS_renameat2, SYS_linkat, SYS_symlinkat, SYS_truncate, SYS_fchmodat, SYS_fchmodat2,
	SYS_chdir, SYS_fchdir,
	/* the probes (explain.c); newfstatat and statx only with a path:
	 * below. Not readlink: realpath calls it on every component (gcc's
	 * driver, 1,800 times a compile, nearly all EINVAL), and then opens
	 * or stats what it found. */
#ifdef SYS_stat
	SYS_stat, SYS_lstat, SYS_access,
#endif
	SYS_newfstatat, SYS_statx, SYS_faccessat, SYS_faccessat2,
#ifdef SYS_connect
	SYS_connect, SYS_bind,
#endif
};

#define NTRACED (sizeof traced / sizeof *traced)

int seccomp_traced(long nr)
{
	for (unsigned i = 0; i < NTRACED; i++)
		if (traced[i] == nr)
			return 1;
	return 0;
}

/* The low word of argument N (seccomp_data's args are 64 bits). */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
# define ARG_LO(n) (offsetof(struct seccomp_data, args) + 8 * (n))
#else
# define ARG_LO(n) (offsetof(struct seccomp_data, args) + 8 * (n) + 4)
#endif
#define NHEAD 7

int seccomp_trace_install(void)
{
	struct sock_filter f[NHEAD + NTRACED + 2];
	struct sock_fprog prog = { (unsigned short)(NHEAD + NTRACED + 2), f };
	unsigned n = 0;

	/* A foreign ABI's numbers mean other calls, and the main filter
	 * fails them all (ENOSYS), which outranks a TRACE. */
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	                                      offsetof(struct seccomp_data, nr));
	/* glibc's fstat is newfstatat(fd, "", AT_EMPTY_PATH): a descriptor,
	 * no path, and far too frequent to stop for; so is statx's. */
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_newfstatat, 0, 2);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(3));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, AT_EMPTY_PATH,
	                                      (__u8)(NTRACED + 3), (__u8)(NTRACED + 4));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_statx, 0, 2);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(2));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, AT_EMPTY_PATH,
	                                      (__u8)NTRACED, (__u8)(NTRACED + 1));
	for (unsigned i = 0; i < NTRACED; i++, n++)
		f[n] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (__u32)traced[i],
		                                    (__u8)(NTRACED - i), 0);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE);
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
}
