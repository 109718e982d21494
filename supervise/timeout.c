/* sharness-exec-supervise's timeout (--timeout SECONDS, --kill-after SECONDS, each with a
 * fraction of up to 3 digits or none; ending.h): kept by init with the
 * real-time interval timer (setitimer(2), alarm(2)'s own), whose SIGALRM
 * comes with si_code SI_KERNEL, which no process can forge for another. At --timeout, SIGTERM then SIGCONT go
 * to every process of the run: kill(-1) from the pid namespace's init,
 * which reaches nothing outside it, or, without one, to each descendant of
 * init, their subreaper, as the tree stands at --timeout (descendants.c reads it
 * whole first: what a SIGTERM handler starts is not signalled in turn). Never to the process group: the caller's shell
 * is in it. At --kill-after after that, init ends the run as when the target exits.
 * The supervisor then exits 124, whichever of the two ended it. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "ending.h"
#include "helper.h"
#include "supervise.h"

/* SECONDS[.FFF] of --timeout or --kill-after into milliseconds: 1 ms to 2^31-1 s; 0 bad. */
static unsigned long long parse_ms(const char *arg)
{
	unsigned long whole;
	unsigned long long frac = 0;
	const char *dot = strchr(arg, '.');
	char buf[16];
	size_t n = dot ? (size_t)(dot - arg) : strlen(arg), f;

	if (n >= sizeof buf)
		return 0;
	memcpy(buf, arg, n);
	buf[n] = '\0';
	if (!parse_ulong(buf, 0, 2147483647UL, &whole))
		return 0;
	if (dot) {
		f = strlen(dot + 1);
		if (f < 1 || f > 3 || strspn(dot + 1, "0123456789") != f)
			return 0;
		for (size_t i = 0; i < 3; i++)
			frac = frac * 10 + (i < f ? (unsigned)(dot[1 + i] - '0') : 0);
	}
	return (unsigned long long)whole * 1000 + frac;
}

void ending_option(int c, const char *optarg, const char *usage)
{
	unsigned long long ms;

	switch (c) {
	case 'T':
	case 'K':
		if (!(ms = parse_ms(optarg)))
			usage_fail(usage, "invalid %s: %s (seconds, 0.001-2147483647)",
			           c == 'T' ? "timeout" : "kill delay", optarg);
		if (c == 'T') {
			ending.timeout = ms;
		} else {
			ending.kill_after = ms;
			ending.kill_after_set = 1;
		}
		break;
	}
}

void ending_check(const char *usage)
{
	if (ending.kill_after_set && !ending.timeout)
		usage_fail(usage, "--kill-after needs --timeout");
}

/* SIGALRM in MS milliseconds, as alarm(2) would in seconds. */
static void alarm_ms(unsigned long long ms)
{
	struct itimerval it = { { 0, 0 }, { (time_t)(ms / 1000), (suseconds_t)(ms % 1000) * 1000 } };

	setitimer(ITIMER_REAL, &it, NULL);
}

void timeout_start(void)
{
	if (ending.timeout)
		alarm_ms(ending.timeout);
}

const char *seconds(unsigned long long ms, char *buf, size_t size)
{
	size_t n;

	if (ms % 1000 == 0) {
		snprintf(buf, size, "%llu", ms / 1000);
		return buf;
	}
	n = (size_t)snprintf(buf, size, "%llu.%03llu", ms / 1000, ms % 1000);
	while (n > 0 && n < size && buf[n - 1] == '0')
		buf[--n] = '\0';
	return buf;
}

static void signal_run(int sig)
{
	if (run.pidns)
		kill(-1, sig);
	else
		signal_descendants(sig);
}

/* Kill everything of the run that is left, and what holds it. */
void init_kill_all(void)
{
	if (run.pidns) {
		kill(-1, SIGKILL); /* from a namespace's init: all of it but us */
		while (waitpid(-1, NULL, __WALL) > 0 || errno == EINTR)
			;
	} else {
		empty_cgroup(&run.cg);
		kill_descendants();
	}
}

void timeout_fired(void)
{
	int st = ENDED_TIMEOUT | ENDED_KILLED | SIGKILL; /* as if SIGKILLed */

	if (!ending.timeout)
		return;
	if (!ending.timed_out) {
		ending.timed_out = ENDED_TIMEOUT;
		signal_run(SIGTERM);
		signal_run(SIGCONT);
		alarm_ms(ending.kill_after);
		return;
	}
	write_all(run.status[1], &st, sizeof st);
	setrlimit(RLIMIT_NOFILE, &run.nofile);
	init_kill_all();
	_exit(0);
}

void timeout_exit(int status)
{
	char t[32], k[32];

	if (!(status & ENDED_TIMEOUT))
		return;
	seconds(ending.timeout, t, sizeof t);
	seconds(ending.kill_after, k, sizeof k);
	if (status & ENDED_KILLED)
		fprintf(stderr, "%s: the command timed out after %s s (--timeout %ss), and was "
		        "killed %s s later (--kill-after %ss)\n", progname, t, t, k, k);
	else
		fprintf(stderr, "%s: the command timed out after %s s (--timeout %ss)\n",
		        progname, t, t);
	exit(EXIT_TIMEOUT);
}
