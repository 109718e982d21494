/* sharness-exec-supervise, one step in two files, one per process that
 * outlives the setup: supervise.c (the options, the supervisor outside
 * and init, pid 1 inside: signals, exit status, the pid namespace or the
 * subreaper) and watcher.c (the watcher, which makes the run's cgroup and
 * removes it, after a SIGKILLed supervisor too). The watcher is a process
 * of its own with a protocol of its own over two pipes; cgroup.c, shared
 * with the limits step, stays the mechanism and knows nothing of it.
 * Beside them: descendants.c, the subreaper's walk of /proc, and the
 * end of a run (ending.h): the timeout, timeout.c, and the caps that
 * were hit, caphits.c. Below them all, runstate.c: the state they share
 * (run, ending) and keep_only, so that every call goes down: supervise.c
 * calls the others, none calls it. */
#ifndef SHARNESS_SUPERVISE_H
#define SHARNESS_SUPERVISE_H

#include <limits.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "cgroup.h"

/* Room for why the run has no cgroup: a reason naming a path. */
#define WHY_MAX (PATH_MAX + 256)

extern struct run {
	int pidns;               /* init is pid 1 of a new pid namespace */
	int best_effort;
	int test;                /* check mode (-t) */
	int want;                /* the controllers of the limits step, CG_* */
	struct cgroup cg;        /* version 0: none */
	int status[2];           /* init -> supervisor: the raw wait status */
	pid_t supervisor, init;  /* as the supervisor sees them */
	int children;            /* /proc/thread-self/children, or -1 */
	/* The target may lower our RLIMIT_NOFILE (prlimit(2)): a root
	 * caller puts it back, to clean up. */
	struct rlimit nofile;
	/* The watcher, when the run has a cgroup. Our end of its socket: UP
	 * from it, DOWN to it, one descriptor under two names. */
	pid_t watcher;
	int up, down;
	/* Early: the watcher said 'G' (v1 at once), its message is yet to
	 * come UP, and init, forked meanwhile, reads its own from TOINIT. */
	int early, toinit;
	sigset_t all, caller_mask;
	struct sigaction caller_chld;
	struct rusage ru;        /* init's, with what it waited for */
} run;

/* runstate.c, which defines run and ending: close every descriptor but
 * the N in KEEP (-1 entries are skipped), which it sorts. */
void keep_only(int *keep, int n);
/* timeout.c, in init: kill everything of the run that is left (the
 * timeout's --kill-after, and the end of every run). */
void init_kill_all(void);

/* report.c (-O, -D, -u, --report-path, --status-in, --egress-in,
 * --policy-id, --policy-hash, --policy-key; report.h): the options, C and
 * its ARG; after them, set up (the report's descriptors close-on-exec, the
 * supervisor's own lines taken); the descriptors the supervisor keeps (-1:
 * none); a signal the supervisor waited for: 1 when it was the SIGIO of
 * --egress-in, whose lines it then read; the report, once the run has
 * ended with STATUS. */
void report_option(int c, const char *arg, const char *usage);
void report_setup(void);
void report_keep(int *fd, int *rfd, int *dfd, int *efd);
int report_signal(int sig, const siginfo_t *si);
/* 0, or -1 when the report could not be written by name (--report-path). */
int report_end(int status);

/* descendants.c, without a pid namespace: kill and reap every descendant
 * (but the watcher), until none is left; send SIG to each, reaping none. */
void kill_descendants(void);
void signal_descendants(int sig);

/* watcher.c */
/* Start the watcher and take the run's cgroup from it (run.cg), or why
 * there is none (WHY, WHY_MAX bytes); or, with run.early set, only its
 * word that the cgroup will be v1's, the rest to take with watcher_wait
 * (end_watcher does when it must). Before the pid namespace is made,
 * whose init the watcher would otherwise be. */
void start_watcher(char *why);
void watcher_wait(char *why);
/* The watcher's message (after its tag) from FD: into CG and WHY. 0, or
 * -1 on EOF, an error, or a message that does not parse. */
int receive_cgroup(int fd, struct cgroup *cg, char *why);
/* handover.c: the cgroup for the limits step. Find that step among the
 * ARGC words of ARGV (PROGRAM's) and take from its words the controllers
 * into run.want, the caps into ending (and the report), and the
 * descriptors of its -g, refusing with USAGE one that is in use; in init,
 * open the run's cgroup, or note why there is none, in the walls record;
 * in init's child, put it at those descriptors. */
void handover_find(int argc, char **argv, const char *usage);
void handover_open(const char *why);
void handover_place(void);
/* The run is over: have the watcher clean up, and wait for it. */
void end_watcher(void);
/* Kill what is left in CG, reaping our own children as we go, until it is
 * empty: 0; or -1, with a warning, after some seconds (a process we may
 * not kill). */
int empty_cgroup(const struct cgroup *cg);

#endif
