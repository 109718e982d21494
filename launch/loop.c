/* The session's init (launch.h): pid 1 of the session's pid namespace,
 * root, in the session's network and mount namespaces. It starts the
 * components, together but those whose "after" names others, which start
 * once those are ready (and, with freeze_when_ready, frozen: freeze.c),
 * and waits until each is ready (ready.c), then starts main;
 * passes on to main the signals the launcher passes on to it; and ends
 * the session when main ends (its status is the launch's), when a
 * component ends or turns unhealthy while main runs (main gets SIGTERM;
 * 126, naming it: health.c), or on a signal before main runs. Its end is the session's: the kernel
 * kills whatever is left in its pid namespace. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "launch.h"

extern char **environ;

static int ended_as(int status)
{
	return WIFSIGNALED(status) ? END_SIGNAL(WTERMSIG(status)) : END_CODE(WEXITSTATUS(status));
}

/* A component ended while main ran: main gets SIGTERM, the launch 126;
 * its last lines (logs.c) after the fatal one. */
static NORETURN void component_ended(struct launch *s, struct role *r)
{
	struct role *m = &s->r[s->n - 1];
	const char *tail = "";

	waitpid(r->pid, &r->status, 0);
	r->ended = 1;
	status_write(s);
	drain_all(s);
	log_flush(r, 0);
	log_flush(r, 1);
	if (r->ntail)
		tail = "; its last lines:";
	if (WIFSIGNALED(r->status))
		fatal_say(EXIT_CONFINE, 0, "component %s was killed by signal %d while main ran%s",
		          q(r->c->role), WTERMSIG(r->status), tail);
	else
		fatal_say(EXIT_CONFINE, 0, "component %s ended (exit %d) while main ran%s",
		          q(r->c->role), WEXITSTATUS(r->status), tail);
	log_tail(r);
	pidfd_signal(m->pidfd, SIGTERM);
	session_end(s, END_CODE(EXIT_CONFINE));
}

/* Job control, on a terminal (start.c): main's process group is the
 * terminal's foreground one, so a ^Z stops main alone, and the shell,
 * which waits for the launcher, would never hear of it, its terminal held
 * by a stopped group. So when main stops, the init stops its own process
 * group, the launcher's, the job the shell knows (the init, pid 1 of its
 * namespace, is not stopped by it), and the shell takes the terminal back
 * as for any job that stops. The shell's SIGCONT (fg, bg) continues the
 * launcher, which tells the init whether the shell gave it the terminal
 * (s->jobs, "f") or not ("b"): main then gets the terminal (fg, also of a
 * launch begun in the background) and goes on. The components go on
 * meanwhile. Main's stops come on a signalfd of SIGCHLD of their own,
 * made before the first look at main, so that none is missed. */
static int job_fd(const struct launch *s)
{
	sigset_t set;
	int fd;

	if (!s->tty)
		return -1;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0 ||
	    (fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK)) < 0)
		die(EXIT_CONFINE, "unable to make the session's signalfd for job control");
	return fd;
}

static void main_stops(struct launch *s, const struct role *m, int jobfd)
{
	struct signalfd_siginfo si;
	siginfo_t w;

	while (read(jobfd, &si, sizeof si) == sizeof si)
		;
	memset(&w, 0, sizeof w);
	if (waitid(P_PID, (id_t)m->pid, &w, WSTOPPED | WNOHANG) == 0 && w.si_pid == m->pid &&
	    w.si_code == CLD_STOPPED) {
		s->main_stopped = 1;
		kill(0, SIGTSTP);
	}
}

static void launch_continued(struct launch *s, const struct role *m)
{
	char c[16];
	ssize_t n = read(s->jobs, c, sizeof c);

	if (n <= 0) { /* the launcher is gone, and so, by PDEATHSIG, the init */
		if (n == 0 || errno != EAGAIN) {
			close(s->jobs);
			s->jobs = -1;
		}
		return;
	}
	if (c[n - 1] == 'f')
		tcsetpgrp(0, m->pid);
	if (s->main_stopped) {
		s->main_stopped = 0;
		kill(-m->pid, SIGCONT);
	}
}

static NORETURN void main_wait(struct launch *s)
{
	/* the signals, each role's end, stdout and stderr, health checks,
	 * job control */
	struct pollfd p[4 * (MANIFEST_MAX_COMPONENTS + 1) + 3];
	struct role *m = &s->r[s->n - 1];
	struct signalfd_siginfo si;
	int jobfd = job_fd(s);
	nfds_t n;

	if (jobfd >= 0)
		main_stops(s, m, jobfd);
	else {
		close(s->jobs);
		s->jobs = -1;
	}
	for (;;) {
		n = 0;
		p[n++] = (struct pollfd){ .fd = s->sigfd, .events = POLLIN };
		for (size_t i = 0; i < s->n; i++) {
			p[n++] = (struct pollfd){ .fd = s->r[i].pidfd, .events = POLLIN };
			p[n++] = (struct pollfd){ .fd = s->r[i].out, .events = POLLIN };
			p[n++] = (struct pollfd){ .fd = s->r[i].err, .events = POLLIN };
		}
		for (size_t i = 0; i + 1 < s->n; i++)
			p[n++] = (struct pollfd){ .fd = s->r[i].checkfd, .events = POLLIN };
		p[n++] = (struct pollfd){ .fd = jobfd, .events = POLLIN };
		p[n++] = (struct pollfd){ .fd = s->jobs, .events = POLLIN };
		if (poll(p, n, (int)health_ms(s)) < 0 && errno != EINTR)
			die(EXIT_CONFINE, "unable to wait for main");
		if (p[0].revents && read(s->sigfd, &si, sizeof si) == sizeof si)
			pidfd_signal(m->pidfd, (int)si.ssi_signo);
		if (p[n - 2].revents)
			main_stops(s, m, jobfd);
		if (p[n - 1].revents)
			launch_continued(s, m);
		if (p[3 * s->n - 2].revents) {
			waitpid(m->pid, &m->status, 0);
			m->ended = 1;
			session_end(s, ended_as(m->status));
		}
		for (size_t i = 0; i + 1 < s->n; i++) {
			if (p[2 + 3 * i].revents || p[3 + 3 * i].revents)
				drain(&s->r[i]);
			if (p[1 + 3 * i].revents)
				component_ended(s, &s->r[i]);
		}
		health_events(s);
	}
}

/* What the caller's environment says of the variables launch sets goes:
 * a role gets only what this session sets. */
static void clear_launch_env(void)
{
	char name[256];

	for (size_t i = 0; environ[i]; ) {
		size_t len = strcspn(environ[i], "=");

		if (len < sizeof name && (memcpy(name, environ[i], len), name[len] = '\0',
		                          manifest_launch_sets(name))) {
			unsetenv(name);
			continue;
		}
		i++;
	}
}

void session_init(struct launch *s, int go)
{
	sigset_t set;
	char c;
	int end;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || read(go, &c, 1) != 1)
		_exit(EXIT_CONFINE);            /* the launcher is gone */
	s->jobs = go;
	if (fcntl(go, F_SETFL, O_NONBLOCK) < 0)
		die(EXIT_CONFINE, "unable to read the launcher's pipe");
	sigprocmask(SIG_SETMASK, NULL, &set);
	if ((s->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK)) < 0)
		die(EXIT_CONFINE, "unable to make the session's signalfd");
	clear_launch_env();
	for (size_t i = 0; i < s->n; i++)
		s->r[i].pidfd = s->r[i].out = s->r[i].err = -1;
	if ((end = freeze_prepare(s)))
		session_end(s, end);
	status_write(s);
	components_start(s);
	start_role(s, &s->r[s->n - 1]);
	status_write(s);
	health_start(s);
	main_wait(s);
}
