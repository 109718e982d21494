/* The few things every program of sharness-exec shares: one message shape,
 * die-don't-unwind helpers, number parsing, and (text.h) quoting. */
#ifndef SHARNESS_COMMON_H
#define SHARNESS_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <sys/types.h>
#include "exitcodes.h"
#include "text.h"

#define NORETURN __attribute__((noreturn))
#define PRINTF(a, b) __attribute__((format(printf, a, b)))

/* Set once at the top of main(), hard-coded per program (never argv[0]). */
extern const char *progname;

/* "PROG: fatal: MSG: strerror(errno)" then exit(code). */
void die(int code, const char *fmt, ...) NORETURN PRINTF(2, 3);
/* "PROG: fatal: MSG" then exit(code). */
void diex(int code, const char *fmt, ...) NORETURN PRINTF(2, 3);
/* "PROG: warning: MSG" */
void warnx_(const char *fmt, ...) PRINTF(1, 2);
/* "hint: MSG" on the line after a fatal message. */
void hint(const char *fmt, ...) PRINTF(1, 2);
/* "PROG: fatal: MSG: strerror(err)", a "hint: HINT" line if HINT is not
 * NULL, then exit(code). */
void die_hint(int code, int err, const char *hintmsg, const char *fmt, ...)
	NORETURN PRINTF(4, 5);

/* Usage line on stderr and exit 125. */
void usage_die(const char *usage) NORETURN;
/* "PROG: fatal: MSG", then the usage line, and exit 125. */
void usage_fail(const char *usage, const char *fmt, ...) NORETURN PRINTF(2, 3);

/* For a getopt(3) loop's error case C (':' a missing value, else an
 * unknown option, optopt or WORD): "PROG: fatal: ..." then the usage line,
 * and exit 125. */
void usage_option(const char *usage, int c, const char *word) NORETURN;

/* Check mode (-t) of a helper: "PROG: FMT" on one line of standard
 * output, flushed before the next exec or fork. */
void check_line(const char *fmt, ...) PRINTF(1, 2);

/* Parse a decimal number in [min, max]; 1 on success, 0 otherwise.
 * Refuses signs, spaces, empty strings and trailing garbage. */
int parse_ulong(const char *s, unsigned long min, unsigned long max,
                unsigned long *out);

/* Read FD to its end into BUF, at most CAP bytes, retrying on EINTR and
 * waiting with poll(2) where FD is O_NONBLOCK (a FIFO before its writer).
 * Returns the length, CAP + 1 when there is more, or -1 with errno set. */
ssize_t read_upto(int fd, void *buf, size_t cap);
/* Write all of BUF to FD, retrying on EINTR; 0 on success, -1 on error. */
int write_all(int fd, const void *buf, size_t len);

#endif
