/* sharness-exec-supervise: which cap of the run was hit, from the run's
 * cgroup's counters (ending.h). The watcher reads them once the cgroup
 * is empty and before it removes it; the supervisor says, one line a cap,
 * after the target has ended: v2 memory.events oom_kill and pids.events
 * max, v1 memory.oom_control oom_kill and pids.events max. A cap is named
 * only where those counters say it was hit: a SIGKILL from outside the run
 * (kill -9, the kernel's own OOM killer) is no cap's. Under rlimits (no
 * cgroup) nothing counts, and nothing is said: RLIMIT_AS makes an
 * allocation fail, it never sends SIGKILL. */
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "ending.h"

/* The number after the word KEY at the start of a line of DIR/FILE (with
 * KEY NULL: the number the file holds), or -1. */
static long long counter(const char *dir, const char *file, const char *key)
{
	char path[PATH_MAX + 32], buf[1024], *p;
	size_t klen = key ? strlen(key) : 0;
	ssize_t n;
	int fd;

	if (snprintf(path, sizeof path, "%s/%s", dir, file) >= (int)sizeof path ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	if (!key && n > 0 && buf[0] >= '0' && buf[0] <= '9')
		return strtoll(buf, NULL, 10);
	for (p = buf; key && p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, key, klen) && p[klen] == ' ')
			return strtoll(p + klen + 1, NULL, 10);
	return -1;
}

static void add(long *sum, long long v)
{
	if (v >= 0)
		*sum = *sum < 0 ? (long)v : *sum + (long)v;
}

static void add_ll(long long *sum, long long v)
{
	if (v >= 0)
		*sum = *sum < 0 ? v : *sum + v;
}

void caps_read(const struct cgroup *cg)
{
	for (int i = 0; i < cg->n; i++) {
		const char *d = cg->dir[i];
		/* v1: only the files of the directory's own controller (cpuacct
		 * goes with cpu, as "cpu,cpuacct"); v2: all in the one */
		int ctl = cg->version == 2 ? ~0 : cg->ctl[i];

		ending.hits.version = cg->version;
		if (ctl & CG_MEMORY) {
			add(&ending.hits.oom_kills, counter(d, cg->version == 2 ? "memory.events" :
			                                    "memory.oom_control", "oom_kill"));
			/* the report's (report.c) */
			add_ll(&ending.hits.peak_bytes, counter(d, cg->version == 2 ? "memory.peak" :
			                                        "memory.max_usage_in_bytes", NULL));
		}
		if (ctl & CG_PIDS)
			add(&ending.hits.refused_forks, counter(d, "pids.events", "max"));
		if ((ctl & CG_CPU) && cg->version == 2) {
			add_ll(&ending.hits.user_us, counter(d, "cpu.stat", "user_usec"));
			add_ll(&ending.hits.system_us, counter(d, "cpu.stat", "system_usec"));
		} else if (ctl & CG_CPU) {
			long long u = counter(d, "cpuacct.usage_user", NULL);
			long long s = counter(d, "cpuacct.usage_sys", NULL);

			add_ll(&ending.hits.user_us, u < 0 ? u : u / 1000);
			add_ll(&ending.hits.system_us, s < 0 ? s : s / 1000);
		}
	}
}

void caps_say(int status)
{
	/* a SIGKILL of the timeout's is not the cap's */
	int killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL &&
	             !(status & ENDED_KILLED);
	long oom = ending.hits.oom_kills, forks = ending.hits.refused_forks;

	if (ending.memory_mib && oom > 0 && killed)
		fprintf(stderr, "%s: the target was killed by the memory cap (max_memory_mb %lu)\n",
		        progname, ending.memory_mib);
	else if (ending.memory_mib && oom > 0)
		fprintf(stderr, "%s: the memory cap (max_memory_mb %lu) killed %ld process%s of "
		        "the run\n", progname, ending.memory_mib, oom, oom == 1 ? "" : "es");
	if (ending.pids && forks > 0)
		fprintf(stderr, "%s: the process cap (max_pids %lu) refused %ld fork%s\n",
		        progname, ending.pids, forks, forks == 1 ? "" : "s");
}
