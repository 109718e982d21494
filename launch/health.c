/* Each component's health check while main runs (launch.h, the
 * manifest's health). A check is a child of the init: with health.tcp,
 * one that drops to the component's uid and connects to the port on the
 * session's loopback, which counts only while every socket listening on
 * it is that uid's (as ready.tcp's probe); then, with health.http, one
 * that connects so, sends an HTTP/1.0 GET of the path and reads the
 * status line: 2xx and 3xx pass, and any other status reaches the init in
 * a page it shares with its checks; then, with health.command, one
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
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "launch.h"

#define TCP_REFUSED 1
#define TCP_SQUAT   3
#define HTTP_NO_STATUS 4    /* no status line came */
#define HTTP_STATUS 5       /* another status than 2xx or 3xx, in answer[] */

/* Each component's last HTTP status that failed, by its index: a page
 * shared with the checks, which write it before they exit. */
static unsigned *answer;

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

/* A TCP connection to PORT as R's uid that some socket of R's uid, and
 * none of another uid, listens on: its descriptor, or an exit. */
static int tcp_connect(const struct role *r, unsigned port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
	                         .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd, mine = 0, other = 0;

	if (setgroups(0, NULL) < 0 || setresgid(r->gid, r->gid, r->gid) < 0 ||
	    setresuid(r->uid, r->uid, r->uid) < 0 ||
	    (fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		_exit(EXIT_CONFINE);
	if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0)
		_exit(TCP_REFUSED);
	tcp_listeners("/proc/self/net/tcp", port, r->uid, &mine, &other);
	tcp_listeners("/proc/self/net/tcp6", port, r->uid, &mine, &other);
	if (other || !mine)
		_exit(other ? TCP_SQUAT : TCP_REFUSED);
	return fd;
}

/* health.http's GET, and its status line ("HTTP/V NNN ..."). */
static NORETURN void http_once(const struct launch *s, const struct role *r)
{
	char line[128], *sp;
	int fd = tcp_connect(r, r->c->http_port);
	int len = snprintf(line, sizeof line, "GET %s HTTP/1.0\r\nHost: localhost\r\n\r\n",
	                   r->c->http_path);
	size_t n = 0;
	ssize_t k;

	if (send(fd, line, (size_t)len, MSG_NOSIGNAL) != len)
		_exit(HTTP_NO_STATUS);
	while (n < sizeof line - 1 && !memchr(line, '\n', n) &&
	       (k = read(fd, line + n, sizeof line - 1 - n)) > 0)
		n += (size_t)k;
	line[n] = '\0';
	line[strcspn(line, "\r\n")] = '\0';
	sp = strchr(line, ' ');
	if (strncmp(line, "HTTP/", 5) || !sp || strspn(sp + 1, "0123456789") < 3 ||
	    (sp[4] && sp[4] != ' ') || sp[1] == '0')
		_exit(HTTP_NO_STATUS);
	if (sp[1] == '2' || sp[1] == '3')
		_exit(0);
	answer[r - s->r] = (unsigned)(sp[1] - '0') * 100 + (unsigned)(sp[2] - '0') * 10 +
	                   (unsigned)(sp[3] - '0');
	_exit(HTTP_STATUS);
}

/* The first of R's checks after PHASE (0: its first), or 0. */
static int next_phase(const struct role *r, int phase)
{
	if (phase < HEALTH_TCP && r->c->health_port)
		return HEALTH_TCP;
	if (phase < HEALTH_HTTP && r->c->http_port)
		return HEALTH_HTTP;
	if (phase < HEALTH_COMMAND && r->c->health_command.n)
		return HEALTH_COMMAND;
	return 0;
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
			_exit(tcp_connect(r, r->c->health_port) < 0);
		if (phase == HEALTH_HTTP)
			http_once(s, r);
		exec_run(s, r, r->c->health_command.v);
	}
	setpgid(pid, pid);
	if ((r->checkfd = pidfd_open_(pid)) < 0)
		die(EXIT_CONFINE, "unable to open a pidfd for the health check of %s", q(r->c->role));
	r->check = pid;
	r->phase = phase;
	if (phase == next_phase(r, 0))
		at_ms(&r->due, r->c->health_timeout_ms);
}

/* Why R's check failed, STATUS its end or -1, into r->unwell. */
static void unwell(const struct launch *s, struct role *r, int status)
{
	const struct component *c = r->c;
	char *w = r->unwell, http[MANIFEST_HTTP_PATH_MAX + 32];
	size_t n = sizeof r->unwell;
	const char *what = r->phase == HEALTH_TCP ? "its TCP check" : http;

	if (r->phase == HEALTH_HTTP)
		snprintf(http, sizeof http, "HTTP GET %s on port %u", c->http_path, c->http_port);
	if (status < 0 && r->phase == HEALTH_COMMAND)
		snprintf(w, n, "its health command did not end within %lu ms", c->health_timeout_ms);
	else if (status < 0)
		snprintf(w, n, "%s did not end within %lu ms", what, c->health_timeout_ms);
	else if (r->phase == HEALTH_COMMAND && WIFSIGNALED(status))
		snprintf(w, n, "its health command was killed by signal %d", WTERMSIG(status));
	else if (r->phase == HEALTH_COMMAND)
		snprintf(w, n, "its health command exited %d", WEXITSTATUS(status));
	else if (status == HTTP_STATUS << 8)
		snprintf(w, n, "%s answered %u", http, answer[r - s->r]);
	else if (status == HTTP_NO_STATUS << 8)
		snprintf(w, n, "%s answered no status line", http);
	else if (status == TCP_SQUAT << 8 && r->phase == HEALTH_HTTP)
		snprintf(w, n, "%s: another uid listens on the port", http);
	else if (status == TCP_REFUSED << 8 && r->phase == HEALTH_HTTP)
		snprintf(w, n, "%s: the port accepts no connection", http);
	else if (status == TCP_SQUAT << 8)
		snprintf(w, n, "another uid listens on TCP port %u", c->health_port);
	else if (status == TCP_REFUSED << 8)
		snprintf(w, n, "TCP port %u accepts no connection", c->health_port);
	else
		snprintf(w, n, "%s could not run (wait status %d)", what, status);
}

/* R's check is over: STATUS its end, or -1 when it did not end in time. */
static void check_over(struct launch *s, struct role *r, int status)
{
	const struct component *c = r->c;
	int next = next_phase(r, r->phase);

	close(r->checkfd);
	r->checkfd = -1;
	r->check = -1;
	if (status == 0 && next) {
		check_start(s, r, next);
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
	unwell(s, r, status);
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
	answer = mmap(NULL, s->n * sizeof *answer, PROT_READ | PROT_WRITE,
	              MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (answer == MAP_FAILED)
		die(EXIT_CONFINE, "unable to map the health checks' answers");
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
			check_start(s, r, next_phase(r, 0));
		}
	}
}
