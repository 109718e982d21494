/* seccomp-cost: what the landlock step's seccomp filter costs per syscall.
 * Times a few syscalls in a loop, bare, then installs the filter of a full
 * object-form run (SECCOMP_TARGET, no user namespaces, the socket
 * allowlist) and times them again; prints nanoseconds per call and the
 * ratio. A benchmark, not a test (bench/seccomp.sh runs it).
 *
 *   seccomp-cost [ITERATIONS]        (default 200000) */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "seccomp.h"

static long iterations = 200000;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Each probe makes one syscall (openat makes two: open and close). */
static void p_getppid(void) { syscall(SYS_getppid); }
static void p_openat(void) { close((int)syscall(SYS_openat, AT_FDCWD, "/dev/null", O_RDONLY | O_CLOEXEC, 0)); }
static void p_fcntl(void) { syscall(SYS_fcntl, 0, F_GETFD); }
static void p_kill(void) { syscall(SYS_kill, 0, 0); }
static void p_prlimit(void) { struct rlimit r; syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &r); }
static void p_fchmod(void) { syscall(SYS_fchmod, -1, 0644); }

static const struct probe {
	const char *name;
	void (*fn)(void);
} probes[] = {
	{ "getppid (not named: cached)", p_getppid },
	{ "openat+close (first rule)", p_openat },
	{ "fcntl F_GETFD (second rule)", p_fcntl },
	{ "kill pid 0 sig 0 (middle)", p_kill },
	{ "prlimit64 read (middle)", p_prlimit },
	{ "fchmod bad fd (last rules)", p_fchmod },
};
#define NPROBES (sizeof probes / sizeof probes[0])

/* Best of five rounds, in ns per call. */
static double best(void (*fn)(void))
{
	double b = 1e30, t;
	long i;
	int r;

	for (r = 0; r < 5; r++) {
		t = now();
		for (i = 0; i < iterations; i++)
			fn();
		t = (now() - t) / (double)iterations;
		if (t < b)
			b = t;
	}
	return b;
}

int main(int argc, char **argv)
{
	double bare[NPROBES];
	unsigned i;

	if (argc > 1)
		iterations = atol(argv[1]);
	if (iterations < 1) {
		fprintf(stderr, "usage: seccomp-cost [ITERATIONS]\n");
		return 2;
	}
	for (i = 0; i < NPROBES; i++)
		bare[i] = best(probes[i].fn);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    seccomp_install(SECCOMP_TARGET | SECCOMP_DENY_USERNS | SECCOMP_NET_ALLOWLIST) < 0) {
		perror("seccomp-cost: unable to install the filter");
		return 1;
	}
	printf("%-30s %10s %10s %7s\n", "syscall", "bare ns", "filter ns", "ratio");
	for (i = 0; i < NPROBES; i++) {
		double f = best(probes[i].fn);
		printf("%-30s %10.1f %10.1f %7.2f\n", probes[i].name, bare[i], f, f / bare[i]);
	}
	return 0;
}
