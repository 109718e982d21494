/* Each component's health check while main runs (launch.h, the
 * manifest's health). A check is a child of the init: with health.tcp,
 * one that drops to the component's uid and connects to the port on the
 * session's loopback, which counts only while every socket listening on
 * it is that uid's (as ready.tcp's probe); then, with health.command, one
 * that runs the command as the component's run is run, under its policy
 * and uid (exec_run), its stdio /dev/null, exit 0 its health. A check
 * that has not ended within timeout_ms is killed and fails; the next
 * starts interval_ms after the last ended. fails checks failed in a row
 * end the session: 126, one line naming the component and why. No check
 * runs before main, nor while main runs frozen ones (check refuses
 * health with freeze_when_ready). */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "launch.h"

#define TCP_REFUSED 1
#define TCP_SQUAT   3

static void at_ms(struct timespec *t, unsigned long ms)
{
	clock_gettime(CLOCK_MONOTONIC, t);
	t->tv_sec += (time_t)(ms / 1000);
	t->tv_nsec += (long)(ms % 1000) * 1000000;
	if (t->tv_nsec >= 1000000000) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000;
	}
}

static long ms_to(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (t->tv_sec - now.tv_sec) * 1000 + (t->tv_nsec - now.tv_nsec) / 1000000;
}

static NORETURN void tcp_once(const struct role *r)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(r->c->health_port),
	                         .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd, mine = 0, other = 0;

	if (setgroups(0, NULL) < 0 || setresgid(r->gid, r->gid, r->gid) < 0 ||
	    setresuid(r->uid, r->uid, r->uid) < 0 ||
	    (fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		_exit(EXIT_CONFINE);
	if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0)
		_exit(TCP_REFUSED);
	tcp_listeners("/proc/self/net/tcp", r->c->health_port, r->uid, &mine, &other);
	tcp_listeners("/proc/self/net/tcp6", r->c->health_port, r->uid, &mine, &other);
	_exit(other ? TCP_SQUAT : mine ? 0 : TCP_REFUSED);
}

/* R's check of PHASE, started. */
static void check_start(struct launch *s, struct role *r, int phase)
{
	sigset_t none;
	int null;
	pid_t pid;

	fflush(NULL);
	if ((pid = fork()) < 0)
		die(EXIT_CONFINE, "unable to fork the health check of %s", q(r->c->role));
	if (!pid) {
		sigemptyset(&none);
		for (int sig = 1; sig < NSIG; sig++)
			signal(sig, SIG_DFL);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || setpgid(0, 0) < 0 ||
		    (null = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0 || dup2(null, 0) < 0 ||
		    dup2(null, 1) < 0 || dup2(null, 2) < 0 || chdir(r->state) < 0)
			_exit(EXIT_CONFINE);
		if (phase == HEALTH_TCP)
			tcp_once(r);
		exec_run(s, r, r->c->health_command.v);
	}
	setpgid(pid, pid);
	if ((r->checkfd = pidfd_open_(pid)) < 0)
		die(EXIT_CONFINE, "unable to open a pidfd for the health check of %s", q(r->c->role));
	r->check = pid;
	r->phase = phase;
	if (phase == HEALTH_TCP || !r->c->health_port)
		at_ms(&r->due, r->c->health_timeout_ms);
}

/* R's check is over: STATUS its end, or -1 when it did not end in time. */
static void check_over(struct launch *s, struct role *r, int status)
{
	const struct component *c = r->c;

	close(r->checkfd);
	r->checkfd = -1;
	r->check = -1;
	if (status == 0 && r->phase == HEALTH_TCP && c->health_command.n) {
		check_start(s, r, HEALTH_COMMAND);
		return;
	}
	at_ms(&r->due, c->health_interval_ms);
	if (status == 0) {
		if (r->fails || !r->checked) {
			r->fails = 0;
			r->checked = 1;
			status_write(s);
		}
		return;
	}
	if (status < 0)
		snprintf(r->unwell, sizeof r->unwell, "its %s did not end within %lu ms",
		         r->phase == HEALTH_TCP ? "TCP check" : "health command", c->health_timeout_ms);
	else if (r->phase == HEALTH_TCP && status == TCP_SQUAT << 8)
		snprintf(r->unwell, sizeof r->unwell, "another uid listens on TCP port %u",
		         c->health_port);
	else if (r->phase == HEALTH_TCP && status == TCP_REFUSED << 8)
		snprintf(r->unwell, sizeof r->unwell, "TCP port %u accepts no connection",
		         c->health_port);
	else if (r->phase == HEALTH_TCP)
		snprintf(r->unwell, sizeof r->unwell, "its TCP check could not run (wait status "
		         "%d)", status);
	else if (WIFSIGNALED(status))
		snprintf(r->unwell, sizeof r->unwell, "its health command was killed by signal %d",
		         WTERMSIG(status));
	else
		snprintf(r->unwell, sizeof r->unwell, "its health command exited %d",
		         WEXITSTATUS(status));
	r->unhealthy = ++r->fails >= c->health_fails;
	status_write(s);
	if (!r->unhealthy)
		return;
	drain_all(s);
	fatal_say(EXIT_CONFINE, 0, "component %s is unhealthy: %s, %lu check%s in a row",
	          q(c->role), r->unwell, r->fails, r->fails == 1 ? "" : "s");
	pidfd_signal(s->r[s->n - 1].pidfd, SIGTERM);
	session_end(s, END_CODE(EXIT_CONFINE));
}

void health_start(struct launch *s)
{
	for (size_t i = 0; i + 1 < s->n; i++) {
		struct role *r = &s->r[i];

		r->check = r->checkfd = -1;
		if (r->c->health)
			at_ms(&r->due, r->c->health_interval_ms);
	}
}

long health_ms(const struct launch *s)
{
	long ms = -1, left;

	for (size_t i = 0; i + 1 < s->n; i++)
		if (s->r[i].c->health && ((left = ms_to(&s->r[i].due)) < ms || ms < 0))
			ms = left < 0 ? 0 : left;
	return ms;
}

void health_events(struct launch *s)
{
	int status;

	for (size_t i = 0; i + 1 < s->n; i++) {
		struct role *r = &s->r[i];

		if (!r->c->health || r->ended)
			continue;
		if (r->check > 0 && waitpid(r->check, &status, WNOHANG) == r->check) {
			check_over(s, r, status);
		} else if (r->check > 0 && ms_to(&r->due) <= 0) {
			kill(-r->check, SIGKILL);
			kill(r->check, SIGKILL);
			while (waitpid(r->check, NULL, 0) < 0 && errno == EINTR)
				;
			check_over(s, r, -1);
		} else if (r->check < 0 && ms_to(&r->due) <= 0) {
			check_start(s, r, r->c->health_port ? HEALTH_TCP : HEALTH_COMMAND);
		}
	}
}
