/* What the front end takes from glibc and libbsd, for a front end built
 * static with musl (configure.ac: a static glibc program asks the CPU for
 * its features and caches with CPUID at every start, each CPUID a trap to
 * the hypervisor in a virtual machine: here 0.7 ms of CPU a run, most of
 * the front end's own cost). closefrom(3) is libbsd's; BearSSL, compiled
 * for glibc with _FORTIFY_SOURCE, calls glibc's checked copies. Empty with
 * glibc. */
#include <stddef.h>
#ifndef __GLIBC__
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "frontend.h"

void *__memcpy_chk(void *d, const void *s, size_t n, size_t dn);
void *__memmove_chk(void *d, const void *s, size_t n, size_t dn);
void *__memset_chk(void *d, int c, size_t n, size_t dn);

void closefrom(int lo)
{
	struct rlimit rl;

	if (syscall(SYS_close_range, (unsigned)lo, ~0U, 0) == 0)
		return;
	/* Before Linux 5.9: each descriptor up to the limit. */
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		rl.rlim_cur = 65536;
	for (rlim_t fd = (rlim_t)lo; fd < rl.rlim_cur; fd++)
		close((int)fd);
}

void *__memcpy_chk(void *d, const void *s, size_t n, size_t dn)
{
	if (n > dn)
		abort();
	return memcpy(d, s, n);
}

void *__memmove_chk(void *d, const void *s, size_t n, size_t dn)
{
	if (n > dn)
		abort();
	return memmove(d, s, n);
}

void *__memset_chk(void *d, int c, size_t n, size_t dn)
{
	if (n > dn)
		abort();
	return memset(d, c, n);
}
#else
typedef int muslfront_empty_with_glibc;
#endif
