/* Readiness (launch.h): a component is ready when its TCP port accepts on
 * the session's loopback, or when its first stdout line has come, each
 * within its timeout (the manifest's timeout_seconds, else
 * MANIFEST_READY_TIMEOUT). The TCP probe is a child of the session's init
 * that drops to the component's uid before it connects, in the session's
 * network namespace; it retries a refused connection every 10 to 100 ms.
 * The port counts only while every socket listening on it in the session
 * belongs to the component's uid (/proc/self/net/tcp and tcp6, written by
 * the kernel): another role that squats it first is not the component,
 * and the probe ends at once (PROBE_SQUAT) instead of passing its accept
 * off as the component's.
 * The UNIX socket's probe is unixready.c's.
 * The first line is line.c's. A component that ends, or is not ready in
 * time, ends the session (end.c): 126, naming it; one that ended with its
 * exit status or signal and its last lines (logs.c). */
#include <errno.h>
#include <grp.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "launch.h"

#define PROBE_SQUAT 3	/* the probe's exit: another uid listens on the port */

/* Of the sockets listening on PORT in FILE (/proc/net/tcp's format):
 * *MINE of them UID's, *OTHER of another uid. */
static void listeners(const char *file, unsigned port, uid_t uid, int *mine, int *other)
{
	FILE *f = fopen(file, "re");
	char line[512];
	unsigned lport, st;
	unsigned long u;

	if (!f) {
		if (errno == ENOENT)
			return;		/* no IPv6 in this kernel */
		_exit(EXIT_CONFINE);
	}
	while (fgets(line, sizeof line, f))
		/* sl local rem st tx:rx tr:when retrnsmt uid */
		if (sscanf(line, " %*u: %*[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:%*x %x %*x:%*x %*x:%*x %*x %lu",
		           &lport, &st, &u) == 3 && st == 0x0a && lport == port)
			*((uid_t)u == uid ? mine : other) += 1;
	fclose(f);
}

static NORETURN void tcp_probe(const struct role *r)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(r->c->ready_port),
	                         .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct timespec pause = { 0, 10 * 1000 * 1000 };
	int fd;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || setgroups(0, NULL) < 0 ||
	    setresgid(r->gid, r->gid, r->gid) < 0 || setresuid(r->uid, r->uid, r->uid) < 0)
		_exit(EXIT_CONFINE);
	for (;;) {
		if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
			_exit(EXIT_CONFINE);
		if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
			int mine = 0, other = 0;
			listeners("/proc/self/net/tcp", r->c->ready_port, r->uid, &mine, &other);
			listeners("/proc/self/net/tcp6", r->c->ready_port, r->uid, &mine, &other);
			if (other)
				_exit(PROBE_SQUAT);
			if (mine)
				_exit(0);
		}
		close(fd);
		nanosleep(&pause, NULL);
		if (pause.tv_nsec < 100 * 1000 * 1000)
			pause.tv_nsec += 10 * 1000 * 1000;
	}
}

/* The probe of R, or -1 when R's readiness is its line. */
static pid_t probe_start(const struct role *r, int *pidfd)
{
	sigset_t none;
	pid_t pid;

	*pidfd = -1;
	if (r->c->ready != READY_TCP && r->c->ready != READY_UNIX)
		return -1;
	if ((pid = fork()) < 0)
		die(EXIT_CONFINE, "unable to fork the probe of %s", q(r->c->role));
	if (!pid) {
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (r->c->ready == READY_UNIX)
			unix_probe(r);
		tcp_probe(r);
	}
	if ((*pidfd = pidfd_open_(pid)) < 0)
		die(EXIT_CONFINE, "unable to open a pidfd for the probe of %s", q(r->c->role));
	return pid;
}

static long ms_left(const struct timespec *end)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (end->tv_sec - now.tv_sec) * 1000 + (end->tv_nsec - now.tv_nsec) / 1000000;
}

static NORETURN void not_ready(struct launch *s, const struct role *r, pid_t probe,
                               const char *why)
{
	if (probe > 0) {
		kill(probe, SIGKILL);
		waitpid(probe, NULL, 0);
	}
	fatal_say(EXIT_CONFINE, 0, "component %s %s", q(r->c->role), why);
	if (r->ended)
		log_tail(r);
	session_end(s, END_CODE(EXIT_CONFINE));
}

/* R ended before the session started: how, and what it said last. */
static NORETURN void ended(struct launch *s, struct role *r, pid_t probe, const char *what)
{
	char how[64], why[160];

	waitpid(r->pid, &r->status, 0);
	r->ended = 1;
	drain(r);
	log_flush(r, 0);
	log_flush(r, 1);
	log_ended(r, how, sizeof how);
	snprintf(why, sizeof why, "%s: %s; %s", what, how,
	         r->ntail ? "its last lines:" : "it wrote no line");
	not_ready(s, r, probe, why);
}

/* One poll: each started component's end, stdout and stderr, the signals,
 * and the probe. Returns what R's readiness now is: 1 ready, 0 not yet. */
static int ready_poll(struct launch *s, struct role *r, pid_t probe, int probefd, long ms)
{
	struct pollfd p[3 * MANIFEST_MAX_COMPONENTS + 4];
	struct signalfd_siginfo si;
	int n = 0, status;

	p[n++] = (struct pollfd){ .fd = s->sigfd, .events = POLLIN };
	p[n++] = (struct pollfd){ .fd = probefd, .events = POLLIN };
	for (size_t i = 0; i <= (size_t)(r - s->r); i++) {
		p[n++] = (struct pollfd){ .fd = s->r[i].pidfd, .events = POLLIN };
		p[n++] = (struct pollfd){ .fd = s->r[i].out, .events = POLLIN };
		p[n++] = (struct pollfd){ .fd = s->r[i].err, .events = POLLIN };
	}
	if (poll(p, (nfds_t)n, (int)ms) < 0 && errno != EINTR)
		die(EXIT_CONFINE, "unable to wait for %s", q(r->c->role));
	if (p[0].revents && read(s->sigfd, &si, sizeof si) == sizeof si)
		session_end(s, END_SIGNAL((int)si.ssi_signo));
	for (size_t i = 0; i <= (size_t)(r - s->r); i++) {
		if (p[3 + 3 * i].revents || p[4 + 3 * i].revents)
			drain(&s->r[i]);
		if (p[2 + 3 * i].revents)
			ended(s, &s->r[i], probe, &s->r[i] == r ? "ended before it was ready" :
			      "ended while the session started");
	}
	if (r->bad)
		not_ready(s, r, probe, "wrote a first line longer than 4096 bytes or with a "
		          "control character");
	if (r->c->ready == READY_STDOUT_LINE)
		return r->ready;
	if (!p[1].revents)
		return 0;
	if (waitpid(probe, &status, 0) < 0)
		not_ready(s, r, -1, "could not be probed");
	if (WIFEXITED(status) && WEXITSTATUS(status) == PROBE_SQUAT) {
		char why[96];
		snprintf(why, sizeof why, "is not ready: another uid listens on its TCP port %u",
		         r->c->ready_port);
		not_ready(s, r, -1, why);
	}
	if (status != 0)
		not_ready(s, r, -1, "could not be probed");
	close(probefd);
	return 1;
}

void ready_wait(struct launch *s, struct role *r)
{
	struct timespec end;
	char why[128];
	int probefd;
	pid_t probe = probe_start(r, &probefd);
	long ms;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)r->c->ready_timeout;
	for (;;) {
		ms = ms_left(&end);
		if (ready_poll(s, r, probe, probefd, ms < 0 ? 0 : ms))
			return;
		if (ms <= 0)
			break;
	}
	if (r->c->ready == READY_STDOUT_LINE)
		snprintf(why, sizeof why, "is not ready within %lu s: no line on its stdout",
		         r->c->ready_timeout);
	else if (r->c->ready == READY_UNIX)
		snprintf(why, sizeof why, "is not ready within %lu s: %s accepts no connection",
		         r->c->ready_timeout, q(r->c->ready_path));
	else
		snprintf(why, sizeof why, "is not ready within %lu s: TCP port %u accepts no "
		         "connection", r->c->ready_timeout, r->c->ready_port);
	not_ready(s, r, probe, why);
}
