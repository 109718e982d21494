/* The status pipe's writing end, for every step (statuspipe.h). */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "helper.h"
#include "statuspipe.h"

static int status = -1;

/* One write a line, at most PIPE_BUF bytes: atomic, never interleaved
 * with another step's. */
static void put_line(const char *line)
{
	char b[PIPE_BUF];
	size_t n = strlen(line);

	if (status < 0)
		return;
	if (n > sizeof b - 1)
		n = sizeof b - 1;
	memcpy(b, line, n);
	b[n++] = '\n';
	if (write(status, b, n) < 0)
		return; /* full (EAGAIN) or gone: the line is lost */
}

static void to_pipe(int code, const char *line)
{
	(void)code;
	put_line(line);
}

void status_fd(const char *arg, const char *usage)
{
	status = parse_fd(arg, 'E', 1 << 20, usage);
	msg_hook = to_pipe;
}

void status_note(const char *fmt, ...)
{
	char b[PIPE_BUF];
	va_list ap;

	b[0] = '@';
	va_start(ap, fmt);
	vsnprintf(b + 1, sizeof b - 1, fmt, ap);
	va_end(ap);
	put_line(b);
}

void status_exec(void)
{
	status_note("exec");
	if (status >= 0 && fcntl(status, F_SETFD, FD_CLOEXEC) < 0)
		die(EXIT_CONFINE, "unable to set the status pipe close-on-exec");
}

void status_close(void)
{
	if (status >= 0)
		close(status);
	status = -1;
}
