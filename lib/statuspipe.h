/* The status pipe of run --report (sharness-exec-report(5)): a pipe the
 * front end makes, whose write end every step gets as -E FD and whose
 * read end only the supervisor holds. A step writes there, as well as on
 * stderr, each of its warning and fatal lines; the landlock step also its
 * walls ("@walls NAME:WALL,...") and, just before it execs the target,
 * "@exec", and sets the pipe close-on-exec: the target never holds it, so
 * nothing on the pipe is the target's, and a helper's own 126 or 127 is
 * told from the target's. The pipe is non-blocking: a line that finds it
 * full is lost, and no step ever waits on it. Without -E, nothing. */
#ifndef SHARNESS_STATUSPIPE_H
#define SHARNESS_STATUSPIPE_H

#include "common.h"

/* -E FD (ARG, refused with USAGE when bad): from now on the warning and
 * fatal lines go there too. */
void status_fd(const char *arg, const char *usage);
/* One line "@WORDS". */
void status_note(const char *fmt, ...) PRINTF(1, 2);
/* Just before the target's exec: "@exec", and close-on-exec. */
void status_exec(void);
/* Close it (a process that outlives the setup, as the listen guard). */
void status_close(void);

#endif
