/* The egress step in the chain (DESIGN.md 4.9): with a PROGRAM after its
 * options, sharness-exec-egress stands between the netns step, which kept
 * the caller's network (-H), and supervise. Three processes:
 *
 *   the step   forks the run and the server, passes the caller's signals
 *              (kill(1), not the terminal's, which reach the whole group)
 *              on to the run, reads the server's lines, and when the run
 *              ends kills the server, names in one line the hosts it
 *              refused, and exits as the run did. It reads nothing a
 *              target sends but those lines.
 *   the run    makes the network namespace the target keeps (lo up, no
 *              route out), the listener on 127.0.0.1:PORT inside it, sends
 *              the listener to the server, notes the wall, execs PROGRAM.
 *   the server receives the listener and returns to main, which confines
 *              it (no capabilities, Landlock, seccomp) and serves.
 *
 * The server is the only one of the three in the caller's network
 * namespace that parses what a target sends. Each dies with the step
 * (PR_SET_PDEATHSIG). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/capability.h>

#include "common.h"
#include "egress.h"
#include "egresstally.h"
#include "helper.h"
#include "rights.h"

/* The signals the step passes on: what kill(1) and a shell's job control
 * send a process. */
static const int passed[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2,
                              SIGALRM, SIGCONT, SIGTSTP, SIGTTIN, SIGTTOU, SIGWINCH };

/* What the server said: the hosts, refused and allowed (egresstally.h). */
static struct tally tally;
static int explain;	/* -X: run --explain's lines, not the one line */

static void die_with_step(pid_t step)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		die(EXIT_CONFINE, "unable to set the parent death signal");
	if (getppid() != step)
		_exit(EXIT_CONFINE);
}

/* The run: a network namespace of its own, the listener in it. */
static NORETURN void run(char **argv, unsigned port, int sock, pid_t step,
                         const sigset_t *mask)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((unsigned short)port),
	                         .sin_addr = { htonl(INADDR_LOOPBACK) } };
	int l;

	die_with_step(step);
	if (unshare(CLONE_NEWNET) < 0)
		die(EXIT_CONFINE, "unable to make the run's network namespace, which a "
		    "policy naming hosts needs");
	lo_up();
	/* The rest of the chain does without it (netns raised it for this). */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, CAP_NET_ADMIN, 0, 0) < 0 &&
	    errno != EINVAL)
		die(EXIT_CONFINE, "unable to lower the ambient capability CAP_NET_ADMIN");
	if ((l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
	    bind(l, (struct sockaddr *)&a, sizeof a) < 0 || listen(l, 128) < 0)
		die(EXIT_CONFINE, "unable to listen on 127.0.0.1:%u in the run's network "
		    "namespace", port);
	if (send_fd(sock, l) < 0)
		die(EXIT_CONFINE, "unable to hand the listener to the egress server");
	close(l);
	close(sock);
	walls_note("net", "namespace");
	if (sigprocmask(SIG_SETMASK, mask, NULL) < 0)
		die(EXIT_CONFINE, "unable to restore the signal mask");
	xexecvp(argv[0], argv);
}

/* The line at the end: what was refused, and the key that allows it. */
static void say_refused(void)
{
	char line[1024];
	size_t len = 0, n = 0, i;

	for (i = 0; i < tally.nrefused && len < sizeof line - 300; i++) {
		const struct tally_host *h = &tally.refused[i];
		char shown[TALLY_HOST + 8];

		if (strcmp(h->host, "-"))
			snprintf(shown, sizeof shown, "%s:%u", h->host, h->port);
		else	/* SOCKS4a, BIND, a head too long: no host read */
			snprintf(shown, sizeof shown, "a request naming no host");
		len += (size_t)snprintf(line + len, sizeof line - len, h->n > 1 ?
		                        "%s%s (%s; %lu times)" : "%s%s (%s)", n++ ? ", " : "",
		                        shown, h->why, h->n);
	}
	if (n)
		warnx_("refused: %s%s; network.hosts lists the hosts a run may reach", line,
		       tally.more_refused || i < tally.nrefused ? ", and more" : "");
}

/* Under run --explain, a line for each host refused, in explain's words
 * (sharness-exec-explain(1)): the reason, how often, and the entry of
 * network.hosts that allows it, or why none is suggested. */
static void explain_refused(void)
{
	for (size_t i = 0; i < tally.nrefused; i++) {
		const struct tally_host *h = &tally.refused[i];
		char shown[TALLY_HOST + 8], lit[EGRESS_NAME_MAX + 2];
		const char *bad;
		unsigned char a[16];
		int literal = 0, fam = 0, named = !strcmp(h->why, "not listed") ||
		          !strcmp(h->why, "the name is listed, not this port");

		snprintf(shown, sizeof shown, "%s:%u", h->host, h->port);
		snprintf(lit, sizeof lit, "%s", h->host);
		if (!strcmp(h->host, "-"))
			fprintf(stderr, "%s: explain: proxy request (none read): %s, refused by "
			        "the egress step, %lu time%s; no policy change allows it: the "
			        "connection named no host the step could read\n", progname, h->why,
			        h->n, h->n == 1 ? "" : "s");
		else if (named || (name_check(lit, &literal, &fam, a, &bad) < 0 && literal && fam &&
		                   !addr_internal(fam, a)))
			fprintf(stderr, "%s: explain: proxy connect %s: %s, refused by the policy, "
			        "%lu time%s; allow with \"network\": {\"hosts\": [\"%s\"]}\n",
			        progname, shown, h->why, h->n, h->n == 1 ? "" : "s", shown);
		else
			fprintf(stderr, "%s: explain: proxy connect %s: %s, refused by the egress "
			        "step, %lu time%s; no change to suggest: %s\n", progname, shown,
			        h->why, h->n, h->n == 1 ? "" : "s", !strncmp(h->why, "resolves to ", 12) ?
			        "a name may lead only to a public address; list the address itself "
			        "only if the run is meant to reach it" : literal ?
			        "only an address in its plain form can be listed" :
			        "the policy lists it; the destination or the client's bytes were refused");
	}
	if (tally.more_refused)
		fprintf(stderr, "%s: explain: %lu more refused connections not listed (after %d "
		        "distinct hosts)\n", progname, tally.more_refused, TALLY_MAX);
}

/* The step: until the run ends. */
static NORETURN void step(pid_t child, pid_t server, int lines, const sigset_t *set)
{
	struct pollfd p[2];
	int sfd = signalfd(-1, set, SFD_CLOEXEC), st;

	if (sfd < 0)
		die(EXIT_CONFINE, "unable to open a signalfd");
	p[0] = (struct pollfd){ sfd, POLLIN, 0 };
	p[1] = (struct pollfd){ lines, POLLIN, 0 };
	for (;;) {
		struct signalfd_siginfo si;
		pid_t pid;

		if (poll(p, p[1].fd >= 0 ? 2 : 1, -1) < 0)
			continue;
		if (p[1].fd >= 0 && p[1].revents && tally_read(&tally, lines) < 0)
			p[1].fd = -1;
		if (!p[0].revents || read(sfd, &si, sizeof si) != sizeof si)
			continue;
		if (si.ssi_signo != SIGCHLD) {
			/* kill(2) and sigqueue(3): the terminal's reached the run */
			if (si.ssi_code == SI_USER || si.ssi_code == SI_QUEUE)
				kill(child, (int)si.ssi_signo);
			else if (si.ssi_signo == SIGTSTP || si.ssi_signo == SIGTTIN ||
			         si.ssi_signo == SIGTTOU)
				kill(getpid(), SIGSTOP); /* the job stops: so do we */
			continue;
		}
		while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
			if (pid == server) {
				warnx_("the egress server ended: the run has no way out now");
				server = 0;
			}
			if (pid != child)
				continue;
			/* the connections the run left end as their sockets
			 * close: what they say, within TALLY_DRAIN_MS */
			if (server && p[1].fd >= 0)
				tally_drain(&tally, lines, TALLY_DRAIN_MS);
			if (server)
				kill(server, SIGKILL);
			while (p[1].fd >= 0 && tally_read(&tally, lines) >= 0)
				;	/* what the server said before it was killed */
			if (explain)
				explain_refused();
			else
				say_refused();
			exit_like(st);
		}
	}
}

int egress_chain(char **argv, unsigned port, int explain_, int *lines, int *report)
{
	sigset_t set, old;
	int sock[2], pipe_[2];
	pid_t self = getpid(), child, server;

	sigemptyset(&set);
	for (size_t i = 0; i < sizeof passed / sizeof *passed; i++)
		sigaddset(&set, passed[i]);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, &old) < 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sock) < 0 ||
	    pipe2(pipe_, O_CLOEXEC) < 0)
		die(EXIT_CONFINE, "unable to set up the egress step");
	if ((child = fork()) < 0)
		die(EXIT_CONFINE, "unable to fork the run");
	if (child == 0) {
		close(sock[0]);
		close(pipe_[0]);
		close(pipe_[1]);
		run(argv, port, sock[1], self, &old);
	}
	close(sock[1]);
	if ((server = fork()) < 0) {
		kill(child, SIGKILL);
		die(EXIT_CONFINE, "unable to fork the egress server");
	}
	if (server == 0) {
		die_with_step(self);
		close(pipe_[0]);
		if (sigprocmask(SIG_SETMASK, &old, NULL) < 0)
			die(EXIT_CONFINE, "unable to restore the signal mask");
		*lines = pipe_[1];	/* its lines, to the step */
		return sock[0];
	}
	close(sock[0]);
	close(pipe_[1]);
	if (*report >= 0)
		close(*report);	/* the server's to write */
	explain = explain_;
	step(child, server, pipe_[0], &set);
}
