/* sharness-exec-supervise: the run's init (and its watcher, the other
 * fork of this step), and the guarantee that nothing of a run outlives it
 * (DESIGN.md 4.3, 6). This process stays outside
 * as the supervisor; its child is a tiny init, pid 1 of a new pid namespace
 * where one can be made (else a subreaper), which starts PROGRAM as its own
 * child, reaps orphans, passes signals on, and reports PROGRAM's wait status
 * over a pipe. The run's cgroup is the watcher's, a third process, in a
 * file of its own (watcher.c; supervise.h says why). Trusts nothing but
 * argv. Exit: PROGRAM's own status or signal; 124 --timeout expired (timeout.c);
 * 125 usage; 126 could not confine or exec; 127 not found. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "ending.h"
#include "helper.h"
#include "rights.h"
#include "landlock-abi.h"
#include "statuspipe.h"
#include "supervise.h"

const char *progname = "sharness-exec-supervise";

#define USAGE "sharness-exec-supervise [-bt] [-A ABI] [-D FD] [-E FD] [--policy-key KEY] " \
	"[--policy-hash HASH] [--policy-id ID] [--kill-after SECONDS] [-O FD] " \
	"[--report-path PATH] [--status-in FD] [--egress-in FD] [--timeout SECONDS] [-W FD] " \
	"[--] PROGRAM [ARG...]"

/* The pdeath signal init asks for; init tells it from the same signal sent
 * by the supervisor by looking whether the supervisor is still there. */
#define PDEATH_SIG SIGHUP

/* --- init --- */

/* Is the supervisor gone? Then nobody reads the status pipe any more. */
static int supervisor_gone(void)
{
	struct pollfd p = { run.status[1], 0, 0 };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLERR);
}

/* Linux 6.6 made vm.memfd_noexec per pid namespace, hierarchical, and 2 a
 * sane value (MFD_NOEXEC_SEAL by default, MFD_EXEC refused); the kernel
 * applies a write to the writer's own pid namespace, so /proc/sys as it is
 * mounted will do. Root only: the file is root's in the initial one. */
static void memfd_noexec(void)
{
	struct utsname u;
	int major = 0, minor = 0, fd;

	if (geteuid() != 0 || uname(&u) < 0 || sscanf(u.release, "%d.%d", &major, &minor) != 2 ||
	    major < 6 || (major == 6 && minor < 6))
		return;
	if ((fd = open("/proc/sys/vm/memfd_noexec", O_WRONLY | O_CLOEXEC)) < 0 ||
	    write_all(fd, "2", 1) < 0 || close(fd) < 0) {
		if (!run.best_effort)
			die_hint(EXIT_CONFINE, errno, "-b (--best-effort) runs with executable memfds",
			         "unable to set vm.memfd_noexec=2 in the run's pid namespace");
		warnx_("best effort: executable memfds stay allowed (vm.memfd_noexec: %s)",
		       strerror(errno));
	}
}

static void chain(char **argv) NORETURN;
static void chain(char **argv)
{
	/* Die with init; if it is gone already, run nothing. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		die(EXIT_CONFINE, "unable to set the parent death signal");
	if (getppid() != (run.pidns ? 1 : run.init))
		_exit(EXIT_CONFINE);
	/* A tracking cgroup is joined here; one made for caps is joined by
	 * the limits step, which writes the caps first. But the v1 cpu
	 * hierarchy's, joined at once: the CPU cap then counts the work of
	 * every step before limits too, the explain step's tracing of the
	 * target above all (a cap on time, not an OOM kill or a count). */
	for (int i = 0; i < run.cg.n; i++)
		if ((!run.want || (run.cg.version == 1 && run.cg.ctl[i] == CG_CPU)) &&
		    cg_enter(run.cg.dir[i]) < 0)
			die(EXIT_CONFINE, "unable to join cgroup %s", run.cg.dir[i]);
	handover_place();
	if (sigaction(SIGCHLD, &run.caller_chld, NULL) < 0 ||
	    sigprocmask(SIG_SETMASK, &run.caller_mask, NULL) < 0)
		die(EXIT_CONFINE, "unable to restore the signal mask");
	xexecvp(argv[0], argv);
}

/* init's part of the hand-over (handover.c): forked early (run.early),
 * init first takes the cgroup from the watcher; then it opens the cgroup
 * for the limits step, or notes why there is none. */
static void init_cgroup(char *why)
{
	if (run.early && receive_cgroup(run.toinit, &run.cg, why) < 0)
		_exit(EXIT_CONFINE);
	close(run.toinit);
	handover_open(why);
}

/* A signal but SIGCHLD, in init. */
static void init_signal(int sig, const siginfo_t *si, pid_t child)
{
	if (supervisor_gone()) {
		/* the watcher removes the cgroup */
		setrlimit(RLIMIT_NOFILE, &run.nofile);
		init_kill_all();
		_exit(0);
	}
	if (sig == SIGALRM && si->si_code == SI_KERNEL)
		timeout_fired(); /* our interval timer, --timeout */
	/* From the supervisor, or a kill(1) at us; the terminal's own
	 * signals reached the target already. */
	if (si->si_code == SI_USER || si->si_code == SI_QUEUE)
		kill(child, sig);
}

static void init(char **argv, char *why) NORETURN;
static void init(char **argv, char *why)
{
	pid_t child, pid;
	int st;

	run.init = getpid();
	close(run.status[0]);
	if (run.watcher) {
		/* the watcher must see EOF when the supervisor dies */
		close(run.up); /* and DOWN, the same socket */
	}
	if (prctl(PR_SET_PDEATHSIG, PDEATH_SIG) < 0)
		die(EXIT_CONFINE, "unable to set the parent death signal");
	if (supervisor_gone())
		_exit(EXIT_CONFINE);
	if (run.pidns) {
		memfd_noexec();
	} else {
		if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
			die(EXIT_CONFINE, "unable to become a child subreaper");
		close(run.children);
		run.children = open("/proc/thread-self/children", O_RDONLY | O_CLOEXEC);
	}
	init_cgroup(why);
	/* The child only sets itself up and execs: vfork lends it init's
	 * memory meanwhile, no page table copied, init waiting. */
	if ((child = vfork()) < 0)
		die(EXIT_CONFINE, "unable to fork");
	if (child == 0)
		chain(argv);
	{
		int keep[] = { 2, run.status[1], run.pidns ? -1 : run.children };

		keep_only(keep, 3);
		status_close();
	}
	timeout_start();

	for (;;) {
		siginfo_t si;
		int sig = sigwaitinfo(&run.all, &si);

		if (sig < 0)
			continue;
		if (sig != SIGCHLD) {
			init_signal(sig, &si, child);
			continue;
		}
		while ((pid = waitpid(-1, &st, WNOHANG | __WALL)) > 0) {
			if (WIFSTOPPED(st)) {
				/* A ptrace stop: a process that made us its
				 * tracer (PTRACE_TRACEME). Not an exit: let it
				 * go, with its signal, but for the SIGTRAP of
				 * a traced execve(2). */
				ptrace(PTRACE_DETACH, pid, 0,
				       WSTOPSIG(st) == SIGTRAP ? 0 : WSTOPSIG(st));
				continue;
			}
			if (pid != child)
				continue;
			st |= ending.timed_out;
			if (write_all(run.status[1], &st, sizeof st) < 0)
				init_kill_all();
			/* With a pid namespace, the kernel kills the rest as
			 * we exit; without, we do. */
			if (!run.pidns) {
				setrlimit(RLIMIT_NOFILE, &run.nofile);
				init_kill_all();
			}
			_exit(0);
		}
	}
}

/* --- the supervisor --- */

static int is_stop(int sig)
{
	return sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* Reap each child that has exited and is neither init nor the watcher:
 * one this process had before its exec (the front end's socket scan,
 * which runs beside the chain, sockscan.h; a caller's `cmd & exec
 * sharness-exec ...`), or without a pid namespace an orphan of the run. No
 * zombie of ours stays for the whole run. Looked at first (WNOWAIT): the
 * status of init and of the watcher is for their own waits. */
static void reap_strays(void)
{
	siginfo_t si;

	for (;;) {
		si.si_pid = 0;
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || !si.si_pid ||
		    si.si_pid == run.init || si.si_pid == run.watcher)
			return;
		waitpid(si.si_pid, NULL, WNOHANG);
	}
}

/* Pass the signals sent to us on, through init, until init exits; return
 * its wait status. */
static int supervise(void)
{
	reap_strays(); /* one gone before the signals were blocked */
	for (;;) {
		siginfo_t si;
		int sig = sigwaitinfo(&run.all, &si), st;

		if (sig < 0 || report_signal(sig, &si))
			continue;
		if (sig == SIGCHLD) {
			reap_strays();
			if (wait4(run.init, &st, WNOHANG, &run.ru) == run.init &&
			    (WIFEXITED(st) || WIFSIGNALED(st)))
				return st;
			continue;
		}
		/* kill(2) and sigqueue(3) only: a key on the terminal signals
		 * the whole foreground process group, the target included,
		 * and must not arrive twice. */
		if (si.si_code == SI_USER || si.si_code == SI_QUEUE)
			kill(run.init, sig);
		else if (!is_stop(sig) || si.si_code != SI_KERNEL)
			continue;
		/* The job stops: so do we, for the shell to see it. */
		if (is_stop(sig))
			kill(run.supervisor, SIGSTOP);
	}
}

/* Check mode (-t): what this step uses, in one line; without a program
 * the step ends here. */
static void check(const char *why, int last)
{
	char dirs[CG_NCTL * (PATH_MAX + 8)] = "";

	for (int i = 0; i < run.cg.n; i++)
		snprintf(dirs + strlen(dirs), sizeof dirs - strlen(dirs), " dir=%s", run.cg.dir[i]);
	check_line("pid=%s cgroup=%s%s%s%s", run.pidns ? "namespace" : "subreaper",
	           run.cg.version == 2 ? "v2" : run.cg.version == 1 ? "v1" : "none", dirs,
	           !run.cg.version && *why ? " why=" : "", !run.cg.version ? why : "");
	if (last) {
		end_watcher();
		exit(0);
	}
}

/* The options, into run; -A into *ABI_CAP. A long option's value is the
 * letter it had before the table of letters (DESIGN.md 1) gave the letter
 * to another meaning; the letter itself is no longer taken. */
static void parse(int argc, char **argv, unsigned long *abi_cap)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "kill-after", required_argument, NULL, 'K' }, { "timeout", required_argument, NULL, 'T' },
		{ "policy-hash", required_argument, NULL, 'H' }, { "policy-id", required_argument, NULL, 'I' },
		{ "policy-key", required_argument, NULL, 'F' }, { "status-in", required_argument, NULL, 'R' },
		{ "report-path", required_argument, NULL, 'P' },
		{ "egress-in", required_argument, NULL, 'e' }, { NULL, 0, NULL, 0 }
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:A:bD:E:hO:tW:", longopts,
	                        NULL)) != -1) {
		switch (c) {
		case 'A':
			if (!parse_ulong(optarg, 0, 1000, abi_cap))
				usage_fail(USAGE, "invalid Landlock ABI: %s", optarg);
			break;
		case 'b':
			run.best_effort = 1;
			break;
		case 'K':
		case 'T':
			ending_option(c, optarg, USAGE);
			break;
		case 'E': status_fd(optarg, USAGE); break;
		case 'D': case 'F': case 'H': case 'I': case 'O': case 'P': case 'R': case 'e':
			report_option(c, optarg, USAGE);
			break;
		case 'h':
			printf("usage: %s\n"
			       "  -A ABI         take the Landlock ABI to be at most ABI\n"
			       "  -b             best effort: run without a pid namespace even\n"
			       "                 where Landlock cannot scope signals\n"
			       "  -D FD          the report's denials (with -O): the JSON array\n"
			       "                 that sharness-exec-explain, PROGRAM, writes to FD\n"
			       "  -E FD          the status pipe: also write warning and fatal lines\n"
			       "                 to FD, and hand it on to PROGRAM\n"
			       "  --kill-after SECONDS\n"
			       "                 after --timeout, end the run SECONDS later (default 5)\n"
			       "  -O FD          write the report (sharness-exec-report(5)) to FD\n"
			       "  --policy-id ID, --policy-hash HASH, --policy-key KEY\n"
			       "                 the report's policy id, hash and key (with -O)\n"
			       "  --report-path PATH\n"
			       "                 with -O: FD is PATH's directory; the report goes\n"
			       "                 there by name, renamed over PATH, once the run ended\n"
			       "  --status-in FD read the status pipe's lines from FD, for the report\n"
			       "  --egress-in FD read the egress server's lines from FD as they come,\n"
			       "                 for the report's hosts (with -O)\n"
			       "  --timeout SECONDS\n"
			       "                 after SECONDS, SIGTERM to the whole run; exit 124\n"
			       "                 (to 3 digits after a point, 1.5, as --kill-after)\n"
			       "  -t             check mode: also print one line of what this\n"
			       "                 step uses; without PROGRAM, exit 0 after it\n"
			       "  -W FD          note the pid namespace in the walls record FD\n"
			       "The run's cgroup, where PROGRAM's chain holds the limits step\n"
			       "(sharness-exec-limits) with -g DIR:JOIN: made with the controllers\n"
			       "of its -m, -p and -u (whose caps are named if the cgroup hit them,\n"
			       "and reported), and put at the descriptors DIR and JOIN of each -g,\n"
			       "in order (none: the walls record says why)\n", USAGE);
			exit(0);
		case 't':
			run.test = 1;
			break;
		case 'W': walls_fd(optarg, USAGE); break;
		default:
			usage_option(USAGE, c, argv[optind - 1]);
		}
	}
	if (optind >= argc && !run.test)
		usage_fail(USAGE, "no program given");
	handover_find(argc - optind, argv + optind, USAGE);
	ending_check(USAGE);
	report_setup();
}

/* Every signal waits for sigwaitinfo, in the supervisor and in init, from
 * now on; one that comes during setup is passed on then. An inherited
 * SIG_IGN on SIGCHLD would let the kernel reap init and lose its status:
 * use the default. The chain gets the caller's back. */
static void block_signals(void)
{
	struct sigaction dfl;

	sigfillset(&run.all);
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	if (sigprocmask(SIG_SETMASK, &run.all, &run.caller_mask) < 0 ||
	    sigaction(SIGCHLD, &dfl, &run.caller_chld) < 0)
		die(EXIT_CONFINE, "unable to block signals");
}

/* A pid namespace, or where the kernel refuses one, a subreaper. The pid
 * namespace also hides every process outside the run from the target;
 * without it, only Landlock's signal scoping (ABI 6) keeps kill(-1,
 * SIGKILL) in: refused below that unless -b. */
static void pid_namespace(unsigned long abi_cap)
{
	int err;
	long abi;

	if (unshare(CLONE_NEWPID) == 0) {
		run.pidns = 1;
		walls_note("pid", "namespace");
		return;
	}
	err = errno;
	if (err != EPERM && err != EINVAL && err != ENOSPC && err != EUSERS && err != ENOSYS)
		die(EXIT_CONFINE, "unable to unshare the pid namespace");
	abi = landlock_abi_at_most(abi_cap);
	/* Without Landlock at all, the landlock step refuses, best effort or
	 * not, and says why: leave the word to it. */
	if (abi < 1)
		abi = 6;
	if (abi < 6 && !run.best_effort) {
		end_watcher();
		die_hint(EXIT_CONFINE, 0, "-b (--best-effort) runs with signals unscoped",
		         "unable to confine signals: no pid namespace (%s) and Landlock ABI %ld, "
		         "which cannot scope them (ABI 6 can)", strerror(err), abi);
	}
	if (abi < 6)
		warnx_("best effort: no pid namespace (%s) and Landlock ABI %ld: signals are "
		       "unscoped, the command may signal every process of its user",
		       strerror(err), abi);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		die(EXIT_CONFINE, "unable to become a child subreaper");
	run.children = open("/proc/thread-self/children", O_RDONLY | O_CLOEXEC);
}

/* Fork init, which runs ARGV, the cgroup handed over or WHY noted; from
 * then on the supervisor holds only what it uses. Forked early, while the watcher makes the cgroup (run.early):
 * then each of the two takes the watcher's message. */
static void start_init(char **argv, char *why)
{
	int err;

	if (pipe2(run.status, O_CLOEXEC) < 0 || (run.init = fork()) < 0) {
		err = errno;
		end_watcher();
		errno = err;
		die(EXIT_CONFINE, "unable to start init");
	}
	if (run.init == 0)
		init(argv, why);
	close(run.status[1]);
	if (run.early)
		watcher_wait(why);
	int keep[] = { 2, run.status[0], run.up, run.down, run.children, -1, -1, -1, -1 };

	report_keep(&keep[5], &keep[6], &keep[7], &keep[8]);
	keep_only(keep, 9);
	status_close();
}

int main(int argc, char **argv)
{
	static char why[WHY_MAX];
	unsigned long abi_cap = ~0UL;
	int st, status;

	parse(argc, argv, &abi_cap);
	run.supervisor = getpid();
	if (getrlimit(RLIMIT_NOFILE, &run.nofile) < 0)
		die(EXIT_CONFINE, "unable to read RLIMIT_NOFILE");
	block_signals();

	/* With caps the run needs its cgroup whatever happens: the watcher
	 * makes it, forked before the pid namespace is made. Without a pid
	 * namespace, a cgroup that only tracks the run. */
	if (run.want)
		start_watcher(why);
	pid_namespace(abi_cap);
	if (!run.want && !run.pidns)
		start_watcher(why);
	if (run.test) {
		if (run.early)
			watcher_wait(why);
		check(why, optind >= argc);
	}
	start_init(argv + optind, why);

	st = supervise();
	/* init has written the target's status, or died trying */
	fcntl(run.status[0], F_SETFL, O_NONBLOCK);
	if (read(run.status[0], &status, sizeof status) != (ssize_t)sizeof status)
		status = st;
	setrlimit(RLIMIT_NOFILE, &run.nofile);
	if (!run.pidns)
		kill_descendants(); /* init's orphans, had it died first */
	end_watcher();
	caps_say(status);
	if (report_end(status) < 0)
		exit(EXIT_CONFINE);
	timeout_exit(status);
	exit_like(status);
}
