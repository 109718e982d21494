/* The few things every program of sharness-exec shares: one message shape,
 * die-don't-unwind helpers, number parsing and the one exec wrapper that
 * maps ENOENT to 127 and every other failure to 126. */
#ifndef SHARNESS_COMMON_H
#define SHARNESS_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include "exitcodes.h"

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

/* Exec FILE (looked up in PATH when it has no slash) with ARGV and the
 * current environment. Never returns: 127 when FILE, or what it needs to
 * start (its "#!" interpreter, its ELF loader, /bin/sh for a script with
 * no "#!"), was not found, and the one line names what is missing; else
 * 126. */
void xexecvp(const char *file, char *const argv[]) NORETURN;
/* The paths the target will see (the landlock step's rules), so that
 * xexecvp can say when what is missing lies outside them. */
void xexec_view(const char *const *paths, size_t n);

/* Untrusted strings in messages (policy file names, rule paths, ids, keys,
 * commands) all go through quote(), so that no byte of theirs can end a
 * line or drive a terminal. QUOTE_ALWAYS gives a C string literal: \" \\
 * \n \r \t, every other control byte (C0, DEL, both bytes of a C1) and
 * every byte that is not part of valid UTF-8 in octal. QUOTE_IF_NEEDED
 * leaves a non-empty string with none of those bytes bare. At most
 * QUOTE_MAX bytes of S are shown, cut on a code point boundary and followed
 * by "..." when S is longer. Returns OUT. */
#define QUOTE_MAX  128
#define QUOTED_MAX (4 * QUOTE_MAX + 6)    /* '"' + 4 per byte + '"' + "..." + NUL */
enum { QUOTE_ALWAYS, QUOTE_IF_NEEDED };
const char *quote(char out[QUOTED_MAX], const char *s, size_t len, int mode);
/* quote() of the C string S into one of eight rotating static buffers, so
 * one message may quote several strings, showing up to PATH_MAX bytes:
 * q() QUOTE_ALWAYS, qn() QUOTE_IF_NEEDED. */
const char *q(const char *s);
const char *qn(const char *s);

/* Replace the environment by the one in FD, a memfd sealed against every
 * change (F_SEAL_SEAL, SHRINK, GROW, WRITE) holding NAME=VALUE strings,
 * each ended by a NUL, as the front end writes it; FD is closed. Dies with
 * 126 on anything else. */
void env_from_fd(int fd);

/* Open PATH (absolute) with FLAGS | O_CLOEXEC and no symlink anywhere on
 * its way: openat2 RESOLVE_NO_SYMLINKS, or where the kernel lacks openat2
 * (ENOSYS) one O_NOFOLLOW component at a time. ELOOP when a symlink is met. */
int open_nofollow(const char *path, int flags);

/* Write all of BUF to FD, retrying on EINTR; 0 on success, -1 on error. */
int write_all(int fd, const void *buf, size_t len);

#endif
