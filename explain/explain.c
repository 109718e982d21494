/* sharness-exec-explain: the step of run --explain (explain.h; DESIGN.md
 * 4.7), after supervise and before the limits, view and landlock steps.
 * It forks: the child waits until this process traces it, then execs
 * PROGRAM (the rest of the chain), and this process, outside the
 * target's domain and in the host's mount namespace, traces the child's
 * whole tree (observer.c). When the child ends it prints what the policy
 * refused or hid, writes the same list as JSON for the report (-D), and
 * exits as the child did: its status, or its signal re-raised. Signals
 * sent to it (kill, sigqueue) it passes on to the child, as init does.
 * Trusts nothing but argv. Exit: PROGRAM's own status or signal; 125
 * usage; 126 could not trace (Yama's ptrace_scope 3, or 2 without
 * CAP_SYS_PTRACE) or exec; 127 not found. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "explain.h"
#include "helper.h"
#include "statuspipe.h"

const char *progname = "sharness-exec-explain";

#define USAGE "sharness-exec-explain [-Nt] [-D FD] [-E FD] [--as ROLE] [--proxy PORT] " \
	"[-r PATH]... [-x PATH]... [-w PATH]... [-s PATH]... [--] PROGRAM [ARG...]"

static int dfd = -1, test;
static const char *as;	/* --as ROLE: each line names it (launch --explain) */
static sigset_t all, caller_mask;
static struct sigaction caller_chld;

/* A traced tree can keep the wait loop busy for as long as it likes (each
 * traced call is two stops): every OBSERVE_BATCH stops the loop takes the
 * signals that wait, to pass them on, so that no load delays one by more
 * than that many stops. */
#define OBSERVE_BATCH 64

static void help(void)
{
	printf("usage: %s\n"
	       "  --as ROLE      name ROLE in each line (launch --explain's roles)\n"
	       "  -D FD          write the denials, the report's JSON array\n"
	       "                 (sharness-exec-report(5)), to FD when PROGRAM ends\n"
	       "  -E FD          the status pipe: also write warning and fatal lines\n"
	       "                 to FD, and hand it on to PROGRAM\n"
	       "  -N             the caller's network (the host's, or a session's):\n"
	       "                 a refused port is the policy's, not the namespace's\n"
	       "  --proxy PORT   network.hosts: the run's network has no route but the\n"
	       "                 egress step's proxy on 127.0.0.1:PORT\n"
	       "  -r PATH        a read path of the policy\n"
	       "  -s PATH        a host socket the policy names (files.sockets)\n"
	       "  -t             check mode: also print one line of what this\n"
	       "                 step uses; without PROGRAM, exit 0 after it\n"
	       "  -w PATH        a write path of the policy\n"
	       "  -x PATH        an exec path of the policy\n"
	       "PROGRAM's tree is traced, and when PROGRAM ends each access the\n"
	       "policy refused or hid is listed on stderr, with the change that\n"
	       "would allow it; then this step exits as PROGRAM did.\n", USAGE);
	exit(0);
}

static void parse(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' }, { "proxy", required_argument, NULL, 'P' },
		{ "as", required_argument, NULL, 'A' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:D:E:hNr:s:tw:x:", longopts, NULL)) != -1) {
		switch (c) {
		case 'D':
			/* Only this process writes the denials: the rest of
			 * the chain, and the target, never hold it. */
			dfd = parse_fd(optarg, 'D', 1 << 20, USAGE);
			if (fcntl(dfd, F_SETFD, FD_CLOEXEC) < 0)
				usage_fail(USAGE, "unable to use -D %d: not an open descriptor", dfd);
			break;
		case 'E': status_fd(optarg, USAGE); break;
		case 'A': as = optarg; break;
		case 'h': help(); break;
		case 't': test = 1; break;
		default:
			if (!explain_option(c, optarg, USAGE))
				usage_option(USAGE, c, argv[optind - 1]);
		}
	}
	if (optind >= argc && !test)
		usage_fail(USAGE, "no program given");
}

/* Every signal waits for sigwaitinfo from now on; an inherited SIG_IGN
 * on SIGCHLD would let the kernel reap the child and lose its status:
 * the default. The child gets the caller's back. */
static void block_signals(void)
{
	struct sigaction dfl;

	sigfillset(&all);
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	if (sigprocmask(SIG_SETMASK, &all, &caller_mask) < 0 ||
	    sigaction(SIGCHLD, &dfl, &caller_chld) < 0)
		die(EXIT_CONFINE, "unable to block signals");
}

static void child(char **argv, pid_t step) NORETURN;
static void child(char **argv, pid_t step)
{
	/* Die with this step; if it is gone already, run nothing. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		die(EXIT_CONFINE, "unable to set the parent death signal");
	if (getppid() != step)
		_exit(EXIT_CONFINE);
	observe_child();
	if (sigaction(SIGCHLD, &caller_chld, NULL) < 0 ||
	    sigprocmask(SIG_SETMASK, &caller_mask, NULL) < 0)
		die(EXIT_CONFINE, "unable to restore the signal mask");
	xexecvp(argv[0], argv);
}

/* A signal but SIGCHLD: from kill(2) or sigqueue(3) (init's, passing on
 * the supervisor's), passed on to the child; the terminal's own reached
 * it already. */
static void pass_on(int sig, const siginfo_t *si, pid_t pid)
{
	if (si->si_code == SI_USER || si->si_code == SI_QUEUE)
		kill(pid, sig);
}

static void poll_signals(pid_t pid)
{
	static const struct timespec now = { 0, 0 };
	sigset_t set = all;
	siginfo_t si;
	int sig;

	sigdelset(&set, SIGCHLD);
	while ((sig = sigtimedwait(&set, &si, &now)) > 0)
		pass_on(sig, &si, pid);
}

/* Trace PID's tree until PID ends: its wait status. */
static int observe(pid_t pid)
{
	for (;;) {
		siginfo_t si;
		int sig = sigwaitinfo(&all, &si), st;
		pid_t p;

		if (sig < 0)
			continue;
		if (sig != SIGCHLD) {
			pass_on(sig, &si, pid);
			continue;
		}
		for (unsigned n = 1; (p = waitpid(-1, &st, WNOHANG | __WALL)) > 0; n++) {
			if (n % OBSERVE_BATCH == 0)
				poll_signals(pid);
			if (observe_status(p, st))
				continue;
			observe_exited(p);
			if (p == pid)
				return st;
		}
	}
}

int main(int argc, char **argv)
{
	pid_t pid, self;
	int st;

	parse(argc, argv);
	explain_check();
	if (test) {
		check_line("tracer=ptrace yama_ptrace_scope=%d network=%s denials=%s",
		           explain_scope(), host_net ? "caller" : "own", dfd >= 0 ? "fd" : "none");
		if (optind >= argc)
			exit(0);
	}
	block_signals();
	observe_prepare();
	self = getpid();
	if ((pid = fork()) < 0)
		die(EXIT_CONFINE, "unable to fork");
	if (pid == 0)
		child(argv + optind, self);
	observe_start(pid);
	st = observe(pid);
	denials_print(&denials, as, stderr);
	denials_json(&denials, dfd);
	exit_like(st);
}
