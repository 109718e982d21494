/* The --explain filter of sharness-exec-landlock (seccomp.h; DESIGN.md
 * 4.7): a second, separate filter that stops each path-taking and socket
 * call for the observer (SECCOMP_RET_TRACE, data 0) and allows the rest.
 * Seccomp applies the strongest action of all filters: this one never
 * lets through what the main filter refuses, and a call it names is one
 * the main filter allows or refuses on its own. Installed only under -E;
 * without it nothing is traced and nothing costs more. The observer
 * (observer.c) links this file too, for the list. */
#include <errno.h>

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

#define JEQ (BPF_JMP | BPF_JEQ | BPF_K)
#define JSET (BPF_JMP | BPF_JSET | BPF_K)

int seccomp_trace_install(void)
{
	struct seccomp_prog p = { .n = 0 };
	unsigned fstat, fstat_fd, statx, statx_fd, hit[NTRACED];

	/* A foreign ABI's numbers mean other calls, and the main filter
	 * fails them all (ENOSYS), which outranks a TRACE. */
	seccomp_load(&p, offsetof(struct seccomp_data, nr));
	/* glibc's fstat is newfstatat(fd, "", AT_EMPTY_PATH): a descriptor,
	 * no path, and far too frequent to stop for; so is statx's. */
	fstat = seccomp_emit(&p, JEQ, SYS_newfstatat);
	seccomp_load(&p, SECCOMP_ARG_LO(3));
	fstat_fd = seccomp_emit(&p, JSET, AT_EMPTY_PATH);
	seccomp_land(&p, fstat, 0);
	statx = seccomp_emit(&p, JEQ, SYS_statx);
	seccomp_load(&p, SECCOMP_ARG_LO(2));
	statx_fd = seccomp_emit(&p, JSET, AT_EMPTY_PATH);
	seccomp_land(&p, statx, 0);
	for (unsigned i = 0; i < NTRACED; i++)
		hit[i] = seccomp_emit(&p, JEQ, (__u32)traced[i]);
	seccomp_land(&p, fstat_fd, 1);
	seccomp_land(&p, statx_fd, 1);
	seccomp_ret(&p, SECCOMP_RET_ALLOW);
	seccomp_land(&p, fstat_fd, 0);
	seccomp_land(&p, statx_fd, 0);
	for (unsigned i = 0; i < NTRACED; i++)
		seccomp_land(&p, hit[i], 1);
	seccomp_ret(&p, SECCOMP_RET_TRACE);
	return seccomp_filter(&p, 0);
}
