/* run --explain: reading the tracee (explain.h), below every other file
 * of the explainer: its memory, by process_vm_readv (never /proc), and its
 * descriptors, by pidfd_getfd, a tracer's right. */
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "explain.h"

#ifndef SYS_pidfd_open
# define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
# define SYS_pidfd_getfd 438
#endif

/* --- memory --- */

int observe_bytes(pid_t pid, unsigned long long addr, void *buf, size_t len)
{
	struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };

	return process_vm_readv(pid, &l, 1, &r, 1, 0) == (ssize_t)len ? 0 : -1;
}

ssize_t observe_string(pid_t pid, unsigned long long addr, char *buf, size_t size)
{
	size_t got = 0;

	/* A page at a time: a read that crosses into an unmapped page
	 * fails whole. */
	while (got + 1 < size) {
		size_t chunk = 4096 - (size_t)((addr + got) & 4095);
		struct iovec l, r;
		ssize_t n;
		char *z;

		if (chunk > size - 1 - got)
			chunk = size - 1 - got;
		l = (struct iovec){ buf + got, chunk };
		r = (struct iovec){ (void *)(uintptr_t)(addr + got), chunk };
		if ((n = process_vm_readv(pid, &l, 1, &r, 1, 0)) <= 0)
			return -1;
		if ((z = memchr(buf + got, '\0', (size_t)n)))
			return z - buf;
		got += (size_t)n;
	}
	return -1; /* longer than a path may be */
}

/* --- descriptors --- */

/* A copy of PID's descriptor FD (pidfd_getfd, a tracer's right), which
 * the caller closes at once; or -1. */
int fd_copy(pid_t pid, int fd)
{
	int pfd, copy;

	pfd = (int)syscall(SYS_pidfd_open, pid, O_EXCL); /* PIDFD_THREAD, 6.9 */
	if (pfd < 0)
		pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pfd < 0)
		return -1;
	copy = (int)syscall(SYS_pidfd_getfd, pfd, fd, 0);
	close(pfd);
	return copy;
}

/* The path of PID's descriptor FD, in OUT (PATH_MAX): 0, or -1. */
int fd_path(pid_t pid, int fd, char *out)
{
	char link[64];
	int copy = fd_copy(pid, fd);
	ssize_t n = -1;

	if (copy < 0)
		return -1;
	snprintf(link, sizeof link, "/proc/self/fd/%d", copy);
	n = readlink(link, out, PATH_MAX - 1);
	if (n > 0 && out[0] == '/')
		out[n] = '\0';
	else
		n = -1;
	close(copy);
	return n > 0 ? 0 : -1;
}
