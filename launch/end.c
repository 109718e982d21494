/* The end of a session (launch.h), as its init makes it: every frozen
 * component is thawed (freeze.c), every run still going gets SIGTERM,
 * then SIGKILL after STOP_GRACE_MS, and the launcher is told how the
 * session ended; then the init exits, and the kernel kills whatever is
 * left in its pid namespace. Below readiness (ready.c) and the init's
 * loop (loop.c), which both end the session; above freezing (freeze.c),
 * which tells the loop how to end it and thaws first. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "launch.h"

/* Waits until every pidfd of ROLES still running is readable, or MS,
 * reading what they write meanwhile. */
static int wait_all(struct launch *s, long ms)
{
	struct pollfd p[3 * (MANIFEST_MAX_COMPONENTS + 1)];
	struct timespec t0, t;
	nfds_t n, running;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		n = 0;
		for (size_t i = 0; i < s->n; i++)
			if (s->r[i].pidfd >= 0 && !s->r[i].ended)
				p[n++] = (struct pollfd){ .fd = s->r[i].pidfd, .events = POLLIN };
		running = n;
		for (size_t i = 0; i < s->n; i++) {
			if (s->r[i].out >= 0 || s->r[i].err >= 0)
				drain(&s->r[i]);
			p[n++] = (struct pollfd){ .fd = s->r[i].out, .events = POLLIN };
			p[n++] = (struct pollfd){ .fd = s->r[i].err, .events = POLLIN };
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (!running)
			return 0;
		ms -= (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
		t0 = t;
		if (ms <= 0 || (poll(p, n, (int)ms) < 0 && errno != EINTR))
			return -1;
		for (size_t i = 0; i < s->n; i++) {
			struct role *r = &s->r[i];
			if (r->pidfd >= 0 && !r->ended && waitpid(r->pid, &r->status, WNOHANG) == r->pid)
				r->ended = 1;
		}
	}
}

void session_end(struct launch *s, int end)
{
	freeze_thaw(s);
	for (size_t i = 0; i < s->n; i++)
		if (s->r[i].pidfd >= 0 && !s->r[i].ended)
			pidfd_signal(s->r[i].pidfd, SIGTERM);
	if (wait_all(s, STOP_GRACE_MS) < 0)
		for (size_t i = 0; i < s->n; i++)
			if (s->r[i].pidfd >= 0 && !s->r[i].ended)
				pidfd_signal(s->r[i].pidfd, SIGKILL);
	for (size_t i = 0; i < s->n; i++) {     /* what they wrote last */
		drain(&s->r[i]);
		log_flush(&s->r[i], 0);
		log_flush(&s->r[i], 1);
	}
	status_write(s);
	write_all(s->status_w, &end, sizeof end);
	_exit(0);
}
