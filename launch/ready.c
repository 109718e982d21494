/* Starting the components, and their readiness (launch.h): each starts as
 * soon as every component its "after" names is ready (at once, without
 * one), and all are waited for together, each probe a child of its own,
 * each deadline its own, every output drained meanwhile.
 * A component is ready when its TCP port accepts on
 * the session's loopback, or when its first stdout line has come, each
 * within its timeout (the manifest's timeout_seconds, else
 * MANIFEST_READY_TIMEOUT). The TCP probe is a child of the session's init
 * that drops to the component's uid before it connects, in the session's
 * network namespace; it retries a refused connection every 10 ms through
 * its first second, when most services come up, then every 10 ms longer
 * up to 100 ms (probe_pause).
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
 * *MINE of them UID's, *OTHER of another uid (launch.h). */
void tcp_listeners(const char *file, unsigned port, uid_t uid, int *mine, int *other)
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
	struct timespec t0;
	long ms = 10;
	int fd;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || setgroups(0, NULL) < 0 ||
	    setresgid(r->gid, r->gid, r->gid) < 0 || setresuid(r->uid, r->uid, r->uid) < 0)
		_exit(EXIT_CONFINE);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
			_exit(EXIT_CONFINE);
		if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
			int mine = 0, other = 0;
			tcp_listeners("/proc/self/net/tcp", r->c->ready_port, r->uid, &mine, &other);
			tcp_listeners("/proc/self/net/tcp6", r->c->ready_port, r->uid, &mine, &other);
			if (other)
				_exit(PROBE_SQUAT);
			if (mine)
				_exit(0);
		}
		close(fd);
		probe_pause(&t0, &ms);
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

static NORETURN void not_ready(struct launch *s, struct role *r, const char *why)
{
	if (r->probe > 0) {
		kill(r->probe, SIGKILL);
		waitpid(r->probe, NULL, 0);
	}
	drain_all(s);
	fatal_say(EXIT_CONFINE, 0, "component %s %s", q(r->c->role), why);
	if (r->ended)
		log_tail(r);
	session_end(s, END_CODE(EXIT_CONFINE));
}

/* R ended before the session started: how, and what it said last. */
static NORETURN void ended(struct launch *s, struct role *r, const char *what)
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
	not_ready(s, r, why);
}

static NORETURN void timed_out(struct launch *s, struct role *r)
{
	char why[128];

	if (r->c->ready == READY_STDOUT_LINE)
		snprintf(why, sizeof why, "is not ready within %lu s: no line on its stdout",
		         r->c->ready_timeout);
	else if (r->c->ready == READY_UNIX)
		snprintf(why, sizeof why, "is not ready within %lu s: %s accepts no connection",
		         r->c->ready_timeout, q(r->c->ready_path));
	else
		snprintf(why, sizeof why, "is not ready within %lu s: TCP port %u accepts no "
		         "connection", r->c->ready_timeout, r->c->ready_port);
	not_ready(s, r, why);
}

/* R is ready (and, with freeze_when_ready, frozen). */
static void up(struct launch *s, struct role *r)
{
	int end;

	r->up = 1;
	if ((end = freeze_role(s, r)))
		session_end(s, end);
	status_write(s);
}

/* R's probe has ended: ready, or the session's end. */
static void probed(struct launch *s, struct role *r)
{
	char why[96];
	int status;

	if (waitpid(r->probe, &status, 0) < 0)
		not_ready(s, r, "could not be probed");
	r->probe = -1;
	close(r->probefd);
	r->probefd = -1;
	if (WIFEXITED(status) && WEXITSTATUS(status) == PROBE_SQUAT) {
		snprintf(why, sizeof why, "is not ready: another uid listens on its TCP port %u",
		         r->c->ready_port);
		not_ready(s, r, why);
	}
	if (status != 0)
		not_ready(s, r, "could not be probed");
	up(s, r);
}

/* One poll of every started component's end, stdout, stderr and probe,
 * and the signals, until the soonest deadline of those not ready yet. */
static void ready_poll(struct launch *s)
{
	struct pollfd p[4 * MANIFEST_MAX_COMPONENTS + 1];
	struct signalfd_siginfo si;
	size_t nc = s->n - 1;
	long ms = -1, left;

	p[0] = (struct pollfd){ .fd = s->sigfd, .events = POLLIN };
	for (size_t i = 0; i < nc; i++) {
		struct role *r = &s->r[i];

		p[1 + 4 * i] = (struct pollfd){ .fd = r->pidfd, .events = POLLIN };
		p[2 + 4 * i] = (struct pollfd){ .fd = r->out, .events = POLLIN };
		p[3 + 4 * i] = (struct pollfd){ .fd = r->err, .events = POLLIN };
		p[4 + 4 * i] = (struct pollfd){ .fd = r->probefd, .events = POLLIN };
		if (r->started && !r->up && ((left = ms_left(&r->deadline)) < ms || ms < 0))
			ms = left < 0 ? 0 : left;
	}
	if (poll(p, (nfds_t)(1 + 4 * nc), (int)ms) < 0 && errno != EINTR)
		die(EXIT_CONFINE, "unable to wait for the components");
	if (p[0].revents && read(s->sigfd, &si, sizeof si) == sizeof si)
		session_end(s, END_SIGNAL((int)si.ssi_signo));
	for (size_t i = 0; i < nc; i++) {
		struct role *r = &s->r[i];

		if (p[2 + 4 * i].revents || p[3 + 4 * i].revents)
			drain(r);
		if (p[1 + 4 * i].revents)
			ended(s, r, r->up ? "ended while the session started" :
			      "ended before it was ready");
		if (!r->started || r->up)
			continue;
		if (r->bad)
			not_ready(s, r, "wrote a first line longer than 4096 bytes or with a "
			          "control character");
		if (r->c->ready == READY_STDOUT_LINE ? r->ready : p[4 + 4 * i].revents != 0) {
			if (r->probe > 0)
				probed(s, r);
			else
				up(s, r);
		} else if (ms_left(&r->deadline) <= 0) {
			timed_out(s, r);
		}
	}
}

/* R may start: every component it names in "after" is ready. */
static int startable(const struct launch *s, const struct role *r)
{
	if (r->started)
		return 0;
	for (size_t d = 0; d < r->c->nafter; d++)
		if (!s->r[r->c->after[d]].up)
			return 0;
	return 1;
}

void components_start(struct launch *s)
{
	size_t waiting;
	int again;

	for (size_t i = 0; i + 1 < s->n; i++)
		s->r[i].probefd = s->r[i].probe = -1;
	for (;;) {
		do {
			again = 0;
			for (size_t i = 0; i + 1 < s->n; i++) {
				struct role *r = &s->r[i];

				if (!startable(s, r))
					continue;
				start_role(s, r);
				r->started = again = 1;
				status_write(s);
				r->probe = probe_start(r, &r->probefd);
				clock_gettime(CLOCK_MONOTONIC, &r->deadline);
				r->deadline.tv_sec += (time_t)r->c->ready_timeout;
				if (!r->c->ready)
					up(s, r);
			}
		} while (again);
		waiting = 0;
		for (size_t i = 0; i + 1 < s->n; i++)
			waiting += s->r[i].started && !s->r[i].up;
		if (!waiting)
			return;     /* check refuses a cycle: every one has started */
		ready_poll(s);
	}
}
