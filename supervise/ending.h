/* How sharness-exec-supervise ends a run and what it says then, beside
 * supervise.h: the timeout (--timeout, --kill-after), which init keeps (timeout.c), and
 * the caps that were hit (-m, -p), whose counters the watcher reads from
 * the run's cgroup before removing it (caphits.c). The supervisor says
 * it, one line each, after the target has ended. */
#ifndef SHARNESS_ENDING_H
#define SHARNESS_ENDING_H

#include "cgroup.h"

/* Or'ed into the raw wait status init sends the supervisor: a wait
 * status fits in 16 bits. */
#define ENDED_TIMEOUT 0x10000   /* the SIGTERM of --timeout was sent */
#define ENDED_KILLED 0x20000    /* and --kill-after later, init ended the run */

/* What the run's cgroup counted, as the watcher found it. */
struct caphits {
	long oom_kills;          /* -1: no counter */
	long refused_forks;
	/* For the report (report.c): memory.peak or memory.max_usage_in_bytes,
	 * cpu.stat's or cpuacct's user and system time, and the cgroup
	 * version they came from. */
	long long peak_bytes, user_us, system_us;
	int version;
};

extern struct ending {
	unsigned long long timeout, kill_after;  /* ms; timeout 0: none */
	int kill_after_set;
	unsigned long memory_mib, pids;    /* the caps, to name them; 0: none */
	int timed_out;                     /* in init: ENDED_TIMEOUT once sent */
	struct caphits hits;
} ending;

/* --timeout, --kill-after (C: -T, -K): C and its OPTARG, refused with
 * USAGE when bad (the caps are the limits step's, handover.c). */
void ending_option(int c, const char *optarg, const char *usage);
/* After the options: what they need of each other. */
void ending_check(const char *usage);

/* timeout.c, in init: start the timer once the program is started; on
 * its SIGALRM, the first time SIGTERM and SIGCONT to the whole run, the
 * second time (after --kill-after) the status to the supervisor and the end. */
void timeout_start(void);
void timeout_fired(void);
/* In the supervisor: the line, and exit 124, if STATUS says so. */
void timeout_exit(int status);
/* MS as seconds into BUF: "90", "1.5", "0.001". */
const char *seconds(unsigned long long ms, char *buf, size_t size);

/* caphits.c: read CG's counters into ending.hits (the watcher, before
 * removing it); say which cap was hit, given the target's STATUS (the
 * supervisor): from the counters only; where none was read (no cgroup)
 * nothing. */
void caps_read(const struct cgroup *cg);
void caps_say(int status);

#endif
