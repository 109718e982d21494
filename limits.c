/* sharness-exec-limits: cap the memory and the number of processes of
 * PROGRAM and of everything it starts (DESIGN.md 4.3). The caps go on a new
 * cgroup beneath the caller's own (v2, else the v1 memory and pids
 * hierarchies), else on rlimits, with one warning line saying what those
 * miss. It forks once: the child joins the cgroup and execs PROGRAM; the
 * parent stays outside as a supervisor that forwards signals, kills what is
 * left when the child ends, removes the cgroup and exits as the child did.
 * Trusts nothing from earlier steps but argv. Exit: PROGRAM's own status or
 * signal; 125 usage; 126 could not confine or exec; 127 not found. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>

#include "cgroup.h"
#include "common.h"

#ifndef CGROUP_SUPER_MAGIC
#define CGROUP_SUPER_MAGIC 0x27e0eb
#endif
#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

const char *progname = "sharness-exec-limits";

#define USAGE "sharness-exec-limits [-m MIB] [-p N] [-r] [--] PROGRAM [ARG...]"

static int is_fs(const char *path, long magic)
{
	struct statfs st;

	return statfs(path, &st) == 0 && (long)st.f_type == magic;
}

/* Try cgroup v2, then v1. If neither will do, CG stays unused (version 0)
 * and WHY says why. */
static void find_cgroup(struct cgroup *cg, pid_t self, unsigned long mib,
                        unsigned long pids, char *why, size_t whysz)
{
	static char text[16384];
	const char *v2 = NULL;
	FILE *f = fopen("/proc/self/cgroup", "re");
	size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;

	if (f)
		fclose(f);
	text[n] = '\0';
	/* cgroup2 sits at /sys/fs/cgroup on a unified host, and at
	 * /sys/fs/cgroup/unified, usually without controllers, on a hybrid
	 * one. The v1 hierarchies are found by name, and only if mounted. */
	if (is_fs("/sys/fs/cgroup", CGROUP2_SUPER_MAGIC))
		v2 = "/sys/fs/cgroup";
	else if (is_fs("/sys/fs/cgroup/unified", CGROUP2_SUPER_MAGIC))
		v2 = "/sys/fs/cgroup/unified";
	if (v2 && cg2_setup(cg, v2, text, self, mib, pids, why, whysz) == 0)
		return;
	if ((!mib || is_fs("/sys/fs/cgroup/memory", CGROUP_SUPER_MAGIC)) &&
	    (!pids || is_fs("/sys/fs/cgroup/pids", CGROUP_SUPER_MAGIC)))
		cg1_setup(cg, "/sys/fs/cgroup", text, self, mib, pids, why, whysz);
}

/* Set soft and hard limit to V, never above a hard limit already set. */
static void cap(int resource, rlim_t v, const char *name)
{
	struct rlimit rl;

	if (getrlimit(resource, &rl) < 0)
		die(EXIT_CONFINE, "unable to read %s", name);
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < v)
		v = rl.rlim_max;
	rl.rlim_cur = rl.rlim_max = v;
	if (setrlimit(resource, &rl) < 0)
		die(EXIT_CONFINE, "unable to set %s", name);
}

static void child(const struct cgroup *cg, pid_t supervisor, unsigned long mib,
                  unsigned long pids, const sigset_t *mask,
                  const struct sigaction *chld, char **argv) NORETURN;
static void child(const struct cgroup *cg, pid_t supervisor, unsigned long mib,
                  unsigned long pids, const sigset_t *mask,
                  const struct sigaction *chld, char **argv)
{
	const char *bad;

	/* Die with the supervisor; if it is gone already, run nothing. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		die(EXIT_CONFINE, "unable to set the parent death signal");
	if (getppid() != supervisor)
		_exit(EXIT_CONFINE);
	if (cg->version) {
		if ((bad = cg_join(cg, getpid())))
			die(EXIT_CONFINE, "unable to join cgroup %s", bad);
	} else {
		if (mib)
			cap(RLIMIT_AS, (rlim_t)mib << 20, "RLIMIT_AS");
		if (pids)
			cap(RLIMIT_NPROC, (rlim_t)pids, "RLIMIT_NPROC");
	}
	if (sigaction(SIGCHLD, chld, NULL) < 0 || sigprocmask(SIG_SETMASK, mask, NULL) < 0)
		die(EXIT_CONFINE, "unable to restore the signal mask");
	xexecvp(argv[0], argv);
}

/* Wait for the child, forwarding SIGS to it and reaping the orphans that
 * come to us as its subreaper; return its wait status. */
static int supervise(pid_t child_pid, const sigset_t *sigs)
{
	for (;;) {
		siginfo_t si;
		int sig = sigwaitinfo(sigs, &si), status;
		pid_t pid;

		if (sig == SIGCHLD) {
			while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
				if (pid == child_pid)
					return status;
			continue;
		}
		if (sig < 0)
			continue;
		/* A key on the terminal signals its whole foreground process
		 * group, the child included: do not deliver it twice. */
		if (si.si_code == SI_KERNEL && (sig == SIGINT || sig == SIGQUIT) &&
		    getpgid(child_pid) == getpgrp())
			continue;
		kill(child_pid, sig);
	}
}

static pid_t parent_of(pid_t pid)
{
	char path[64], buf[512], *p;
	int fd, ppid = 0;
	ssize_t n;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	/* "pid (comm) state ppid ...", and comm may hold anything */
	if ((p = strrchr(buf, ')')) && sscanf(p + 1, " %*c %d", &ppid) != 1)
		ppid = 0;
	return (pid_t)ppid;
}

/* Kill every process left whose parent we are (the child's orphans come to
 * us, its subreaper), reap it, and repeat until we have no child at all:
 * a killed process's own children are then ours in turn. A pid read here
 * cannot be reused before kill(2): only our wait could free it. The usual
 * case, nothing left, costs one waitpid and no scan of /proc. */
static void kill_descendants(pid_t self)
{
	struct timespec ms = { 0, 1000000L };

	for (;;) {
		pid_t r = waitpid(-1, NULL, WNOHANG);
		int killed = 0;
		struct dirent *e;
		DIR *d;

		if (r > 0 || (r < 0 && errno == EINTR))
			continue;
		if (r < 0)
			return; /* ECHILD: none left */
		if (!(d = opendir("/proc"))) {
			warnx_("unable to list /proc: processes may be left behind");
			return;
		}
		while ((e = readdir(d))) {
			pid_t pid = atoi(e->d_name);

			if (pid <= 0 || parent_of(pid) != self)
				continue;
			if (kill(pid, SIGKILL) == 0) {
				killed++;
			} else if (errno == EPERM) {
				/* a set-user-ID descendant of an unprivileged
				 * caller: waiting for it could last forever */
				warnx_("unable to kill process %d: %s", (int)pid, strerror(errno));
				closedir(d);
				return;
			}
		}
		closedir(d);
		/* one of those we killed will end: wait for it */
		if (killed)
			waitpid(-1, NULL, 0);
		else
			nanosleep(&ms, NULL);
	}
}

/* Kill what is left in the cgroup(s), reaping as we go, until they are
 * empty, or give up after some seconds (a process we may not kill). */
static void empty_cgroup(const struct cgroup *cg)
{
	struct timespec ms = { 0, 1000000L };

	for (int i = 0; cg_kill(cg) > 0; i++) {
		if (i == 5000) {
			warnx_("unable to empty cgroup %s", cg->dir[0]);
			return;
		}
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		nanosleep(&ms, NULL);
	}
}

/* Setup failed after the cgroup was made: remove it, then die. */
static void setup_die(struct cgroup *cg, pid_t self, const char *what) NORETURN;
static void setup_die(struct cgroup *cg, pid_t self, const char *what)
{
	int err = errno;

	if (cg->version)
		cg_remove(cg, self);
	die_hint(EXIT_CONFINE, err, NULL, "unable to %s", what);
}

/* Exit as the child did. Killed by a signal: die of the same one, so the
 * caller sees what it would have seen without us, minus a core dump of our
 * own. */
static void exit_like(int status) NORETURN;
static void exit_like(int status)
{
	struct rlimit zero = { 0, 0 };
	sigset_t one;
	int sig;

	if (WIFEXITED(status))
		exit(WEXITSTATUS(status));
	sig = WTERMSIG(status);
	setrlimit(RLIMIT_CORE, &zero);
	prctl(PR_SET_DUMPABLE, 0);
	signal(sig, SIG_DFL);
	sigemptyset(&one);
	sigaddset(&one, sig);
	raise(sig);
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	exit(128 + sig); /* a signal whose default action is not to terminate */
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 }
	};
	static const int forwarded[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };
	unsigned long mib = 0, pids = 0;
	int rlimits_only = 0, c, status;
	struct sigaction dfl, chld;
	struct cgroup cg;
	char why[PATH_MAX + 256] = "no cgroup hierarchy is mounted";
	sigset_t sigs, mask;
	pid_t self = getpid(), pid;
	const char *bad;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+hm:p:r", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			printf("usage: %s\n"
			       "  -m MIB  cap memory at MIB MiB (1-1048576)\n"
			       "  -p N    cap processes and threads at N (1-4194304)\n"
			       "  -r      use rlimits only, no cgroup\n", USAGE);
			return 0;
		case 'm':
			if (!parse_ulong(optarg, 1, 1048576, &mib))
				usage_fail(USAGE, "invalid memory cap: %s (MiB, 1-1048576)", optarg);
			break;
		case 'p':
			if (!parse_ulong(optarg, 1, 4194304, &pids))
				usage_fail(USAGE, "invalid process cap: %s (1-4194304)", optarg);
			break;
		case 'r':
			rlimits_only = 1;
			break;
		default:
			if (optopt == 'm' || optopt == 'p')
				usage_fail(USAGE, "option -%c needs a value", optopt);
			if (optopt)
				usage_fail(USAGE, "unknown option -%c", optopt);
			usage_fail(USAGE, "unknown option %s", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		usage_fail(USAGE, "no program given");
	if (!mib && !pids)
		usage_fail(USAGE, "nothing to cap: give -m, -p or both");

	/* Block the signals we forward, and SIGCHLD, before anything else:
	 * one that arrives during setup or around fork waits for us and is
	 * then forwarded. An inherited SIG_IGN on SIGCHLD would let the kernel
	 * reap the child and lose its status: use the default, and give the
	 * child the caller's disposition and mask back before it execs. */
	sigemptyset(&sigs);
	for (size_t i = 0; i < sizeof forwarded / sizeof *forwarded; i++)
		sigaddset(&sigs, forwarded[i]);
	sigaddset(&sigs, SIGCHLD);
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	if (sigprocmask(SIG_BLOCK, &sigs, &mask) < 0 || sigaction(SIGCHLD, &dfl, &chld) < 0)
		die(EXIT_CONFINE, "unable to block signals");

	memset(&cg, 0, sizeof cg);
	if (rlimits_only)
		snprintf(why, sizeof why, "-r given");
	else
		find_cgroup(&cg, self, mib, pids, why, sizeof why);
	if (!cg.version)
		warnx_("no cgroup (%s); rlimits cover less:%s%s%s", why,
		       mib ? " RLIMIT_AS caps each process's address space, not the memory all of them use" : "",
		       mib && pids ? ";" : "",
		       pids ? " RLIMIT_NPROC counts every process of the user, not only"
		              " this command's, and does not apply to root" : "");

	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		setup_die(&cg, self, "become a child subreaper");
	if ((pid = fork()) < 0)
		setup_die(&cg, self, "fork");
	if (pid == 0)
		child(&cg, self, mib, pids, &mask, &chld, argv + optind);

	status = supervise(pid, &sigs);
	if (cg.version)
		empty_cgroup(&cg);
	kill_descendants(self);
	if (cg.version && (bad = cg_remove(&cg, self)))
		warnx_("unable to remove cgroup %s: %s", bad, strerror(errno));
	exit_like(status);
}
