/* A component's stdout (launch.h): its first line is its ready line, at
 * most READY_LINE_MAX bytes, none a control character (bytes from 0x80
 * are taken, for UTF-8), before its "\n"; what comes after it is read and
 * thrown away, so the component never blocks on a full pipe. Below
 * readiness (ready.c) and the session's end (end.c), which both drain. */
#include <errno.h>
#include <unistd.h>

#include "launch.h"

int drain(struct role *r)
{
	unsigned char buf[4096];
	ssize_t n;

	while ((n = read(r->out, buf, sizeof buf)) != 0) {
		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 1 : (close(r->out), r->out = -1, 0);
		for (ssize_t i = 0; i < n && !r->ready; i++) {
			if (buf[i] == '\n')
				r->ready = 1;
			else if (r->len == READY_LINE_MAX || (buf[i] < 0x20 && buf[i] != '\t') ||
			         buf[i] == 0x7f)
				r->bad = 1;
			else
				r->line[r->len++] = (char)buf[i];
		}
		if (r->bad)
			break;
	}
	if (n == 0) {
		close(r->out);
		r->out = -1;
	}
	return n != 0;
}
