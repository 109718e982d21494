/* The egress server's lines (DESIGN.md 4.9), read and tallied: by the
 * egress step, for its line at the end and its explain lines, and by the
 * supervisor, for the report's "egress" (sharness-exec-report(5)). The
 * server writes one line a connection, in one write(2) each:
 *
 *   refused HOST:PORT: WHY          HOST "NAME" (q()'s quoting) or -, PORT or -
 *   allowed HOST:PORT up=N down=M   the bytes the target sent and received
 *
 * and, to the step and the report only, its marks: "open" as it accepts a
 * connection, "idle" when none is left open and none waits. A line is
 * written before its connection's process ends, and "idle" after the
 * server reaped the last one: once "idle" is the last line read, every
 * connection accepted so far is tallied. The server parses what a hostile
 * target sends, so its lines are read as untrusted: bounded, each field
 * checked, a line that does not parse dropped. */
#ifndef SHARNESS_EGRESSTALLY_H
#define SHARNESS_EGRESSTALLY_H

#include <stddef.h>

#define TALLY_MAX 64        /* distinct hosts kept, each list */
#define TALLY_HOST 300      /* a host as shown (a quoted name may be longer: cut) */
#define TALLY_WHY 200
/* How long a reader waits, once the run has ended, for the server to say
 * "idle": its connections end when the target's sockets close, within
 * this unless a destination holds one open. */
#define TALLY_DRAIN_MS 2000

struct tally_host {
	char host[TALLY_HOST];  /* NAME, the quoted form when it needs quotes, or "-" */
	unsigned port;          /* 0: none read */
	char why[TALLY_WHY];    /* refused: the first reason */
	unsigned long n;        /* connections */
	unsigned long long up, down;
};

struct tally {
	struct tally_host refused[TALLY_MAX], allowed[TALLY_MAX];
	size_t nrefused, nallowed;
	unsigned long more_refused, more_allowed;  /* connections beyond the lists */
	int busy;               /* an "open" since the last "idle" */
	char buf[2048];         /* a line read in part */
	size_t have;
};

/* One line (LEN bytes, no newline) into T: 0, or -1 for one that is none
 * of the server's. */
int tally_line(struct tally *t, const char *line, size_t len);
/* What FD holds now, whole lines into T: 1; 0 when nothing was there
 * (EAGAIN, EINTR); -1 at EOF or an error. */
int tally_read(struct tally *t, int fd);
/* Read FD until T is idle (1), or MS milliseconds passed or FD ended (0). */
int tally_drain(struct tally *t, int fd, int ms);

#endif
