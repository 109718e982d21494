/* sharness-exec-supervise's timeout (-T SECONDS, -K SECONDS; ending.h):
 * kept by init with alarm(2), whose SIGALRM comes with si_code SI_KERNEL,
 * which no process can forge for another. At -T, SIGTERM then SIGCONT go
 * to every process of the run: kill(-1) from the pid namespace's init,
 * which reaches nothing outside it, or, without one, to each descendant of
 * init, their subreaper, as the tree stands at -T (descendants.c reads it
 * whole first: what a SIGTERM handler starts is not signalled in turn). Never to the process group: the caller's shell
 * is in it. At -K after that, init ends the run as when the target exits.
 * The supervisor then exits 124, whichever of the two ended it. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "ending.h"
#include "helper.h"
#include "supervise.h"

void ending_option(int c, const char *optarg, const char *usage)
{
	unsigned long v;

	switch (c) {
	case 'T':
	case 'K':
		if (!parse_ulong(optarg, 1, 2147483647UL, &v))
			usage_fail(usage, "invalid %s: %s (seconds, 1-2147483647)",
			           c == 'T' ? "timeout" : "kill delay", optarg);
		if (c == 'T') {
			ending.timeout = (unsigned int)v;
		} else {
			ending.kill_after = (unsigned int)v;
			ending.kill_after_set = 1;
		}
		break;
	case 'm':
		if (!parse_ulong(optarg, 1, 1048576, &ending.memory_mib))
			usage_fail(usage, "invalid memory cap: %s (MiB, 1-1048576)", optarg);
		break;
	case 'p':
		if (!parse_ulong(optarg, 1, 4194304, &ending.pids))
			usage_fail(usage, "invalid process cap: %s (1-4194304)", optarg);
		break;
	}
}

void ending_check(const char *usage)
{
	if (ending.kill_after_set && !ending.timeout)
		usage_fail(usage, "-K needs -T");
}

void timeout_start(void)
{
	if (ending.timeout)
		alarm(ending.timeout);
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
		alarm(ending.kill_after);
		return;
	}
	write_all(run.status[1], &st, sizeof st);
	setrlimit(RLIMIT_NOFILE, &run.nofile);
	init_kill_all();
	_exit(0);
}

void timeout_exit(int status)
{
	if (!(status & ENDED_TIMEOUT))
		return;
	if (status & ENDED_KILLED)
		fprintf(stderr, "%s: the command timed out after %u s (--timeout %u), and was "
		        "killed %u s later (--kill-after %u)\n", progname, ending.timeout,
		        ending.timeout, ending.kill_after, ending.kill_after);
	else
		fprintf(stderr, "%s: the command timed out after %u s (--timeout %u)\n",
		        progname, ending.timeout, ending.timeout);
	exit(EXIT_TIMEOUT);
}
