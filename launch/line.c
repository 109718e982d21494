/* A component's stdout and stderr (launch.h). A stdout_line component's
 * first stdout line is its ready line, at most READY_LINE_MAX bytes, none
 * a control character (bytes from 0x80 are taken, for UTF-8), before its
 * "\n"; it goes to main (SHARNESS_AI_READY_ROLE), not to the logs. All
 * else either writes, its stderr and the rest of its stdout, goes to the
 * logs (logs.c). Both are read as they come, so the component never
 * blocks on a full pipe. Below readiness (ready.c), the init's loop
 * (loop.c) and the session's end (end.c), which all drain. */
#include <errno.h>
#include <unistd.h>

#include "launch.h"

/* Of B's N bytes, those of R's ready line, taken; how many. */
static size_t ready_line(struct role *r, const unsigned char *b, size_t n)
{
	size_t i = 0;

	if (r->c->ready != READY_STDOUT_LINE)
		return 0;
	for (; i < n && !r->ready && !r->bad; i++) {
		if (b[i] == '\n')
			r->ready = 1;
		else if (r->len == READY_LINE_MAX || (b[i] < 0x20 && b[i] != '\t') || b[i] == 0x7f)
			r->bad = 1;
		else
			r->line[r->len++] = (char)b[i];
	}
	return i;
}

/* R's stdout (ERR 0) or stderr, on *FD; 0 at its end (then closed). */
static int drain_fd(struct role *r, int *fd, int err)
{
	unsigned char buf[4096];
	ssize_t n;
	size_t k;

	while ((n = read(*fd, buf, sizeof buf)) != 0) {
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return 1;
			break;
		}
		k = err ? 0 : ready_line(r, buf, (size_t)n);
		if (r->bad)
			return 1;
		log_bytes(r, err, buf + k, (size_t)n - k);
	}
	close(*fd);
	*fd = -1;
	log_flush(r, err);
	return 0;
}

int drain(struct role *r)
{
	int out = r->out >= 0 && drain_fd(r, &r->out, 0);
	int err = r->err >= 0 && drain_fd(r, &r->err, 1);

	return out || err;
}

void drain_all(struct launch *s)
{
	for (size_t i = 0; i < s->n; i++)
		drain(&s->r[i]);
}
