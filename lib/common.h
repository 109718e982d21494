/* The few things every program of sharness-exec shares: one message shape,
 * die-don't-unwind helpers, whole reads and writes, and (text.h) quoting. */
#ifndef SHARNESS_COMMON_H
#define SHARNESS_COMMON_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/types.h>
#include "exitcodes.h"
#include "text.h"

#define NORETURN __attribute__((noreturn))
#define PRINTF(a, b) __attribute__((format(printf, a, b)))

/* Set once at the top of main(), hard-coded per program (never argv[0]). */
extern const char *progname;

/* "PROG: fatal: MSG: strerror(ERR)" (no ": ..." when ERR is 0), then a
 * "hint: HINTMSG" line unless HINTMSG is NULL, and exit(CODE). die() tells
 * errno, diex() no error. */
void die_hint(int code, int err, const char *hintmsg, const char *fmt, ...)
	NORETURN PRINTF(4, 5);
#define die(code, ...) die_hint(code, errno, NULL, __VA_ARGS__)
#define diex(code, ...) die_hint(code, 0, NULL, __VA_ARGS__)
/* Called, where set, with each fatal and warning line as it goes to
 * stderr (no newline) and the status a fatal one exits with (0 for a
 * warning): the status pipe's (statuspipe.c), the report's. */
extern void (*msg_hook)(int code, const char *line);
/* The same fatal line (and to msg_hook, with CODE), and no exit: for a caller that says more first or
 * unwinds (load.c reads a policy for check, which reports every problem). */
void fatal_say(int code, int err, const char *fmt, ...) PRINTF(3, 4);
/* "PROG: warning: MSG" */
void warnx_(const char *fmt, ...) PRINTF(1, 2);
/* "hint: MSG", after a message of one's own. */
void hint(const char *fmt, ...) PRINTF(1, 2);

/* "PROG: fatal: MSG", then "usage: USAGE", and exit 125. */
void usage_fail(const char *usage, const char *fmt, ...) NORETURN PRINTF(2, 3);
/* usage_fail() for a getopt(3) loop's error case C: ':' a missing value,
 * else an unknown option (optopt, or WORD when getopt gives none). */
void usage_option(const char *usage, int c, const char *word) NORETURN;
/* A --help's option lines on stdout: S holds "OPTION\tdescription\n"
 * lines, printed in two columns. */
void help_opts(const char *s);

/* Read FD to its end into BUF, at most CAP bytes, retrying on EINTR and
 * waiting with poll(2) where FD is O_NONBLOCK (a FIFO before its writer).
 * Returns the length, CAP + 1 when there is more, or -1 with errno set. */
ssize_t read_upto(int fd, void *buf, size_t cap);
/* Write all of BUF to FD, retrying on EINTR; 0 on success, -1 on error. */
int write_all(int fd, const void *buf, size_t len);
/* Put LEN bytes at BUF in the directory DFD (an O_PATH descriptor will
 * do) under NAME, whole or not at all: a new file beside it, then renamed
 * over it, replacing whatever is at NAME (a symlink there is replaced,
 * never followed). MODE 0: 0666 less the umask; else exactly MODE. With
 * DIR (the directory's absolute, symlink-free name; NULL: unchecked),
 * only when DIR still leads to DFD: else ESTALE, and nothing is there.
 * 0, or -1 with errno (the new file removed). */
int replace_at(int dfd, const char *dir, const char *name, unsigned mode, const void *buf,
               size_t len);
/* The whole content of FD, a memfd sealed against writing, growing,
 * shrinking and more seals (so what is read now is what it holds for
 * good), at most CAP bytes: a NUL-terminated buffer of the heap, its
 * length in *LEN. NULL with errno: EPERM where FD is not such a memfd,
 * EFBIG over CAP, EBADF, or the read's. */
char *sealed_read(int fd, size_t cap, size_t *len);
/* sealed_read's other end: a memfd named NAME (FLAGS for memfd_create,
 * MFD_ALLOW_SEALING added) holding the LEN bytes at DATA, at offset 0,
 * sealed against every change; its descriptor, or -1 with errno. */
int sealed_memfd(const char *name, unsigned int flags, const void *data, size_t len);
/* The next entry of the directory FD (open for reading), its d_type in
 * *TYPE, "." and ".." left out; NULL at the end or on an error. 32 KiB a
 * getdents64(2), one directory at a time (a static buffer). */
const char *next_dirent(int fd, unsigned char *type);

#endif
