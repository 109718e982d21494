/* sharness-exec-supervise's shared state, below every other file of the
 * step: the run (struct run, supervise.h) and how it ends (struct ending,
 * ending.h), which the supervisor, init and the watcher each keep their own
 * copy of once forked, and keep_only, the descriptor utility all three
 * use. It calls nothing of the step's files. */
#include <dirent.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ending.h"
#include "supervise.h"

struct run run = { .children = -1, .up = -1, .down = -1, .toinit = -1 };
struct ending ending = { .kill_after = 5, .hits = { -1, -1, -1, -1, -1, 0 } };

/* --- descriptors --- */

#ifndef SYS_close_range
#define SYS_close_range 436
#endif

/* Close the descriptors LO to HI. close_range(2) came in Linux 5.9:
 * before, one by one, and the open ones above LO from /proc/self/fd when
 * HI is unbounded. */
static void close_span(unsigned int lo, unsigned int hi)
{
	DIR *d;
	struct dirent *e;

	if (syscall(SYS_close_range, lo, hi, 0) == 0)
		return;
	if (hi != ~0U) {
		for (unsigned int fd = lo; fd <= hi; fd++)
			close((int)fd);
		return;
	}
	if (!(d = opendir("/proc/self/fd")))
		return;
	while ((e = readdir(d))) {
		long fd = strtol(e->d_name, NULL, 10);

		if (e->d_name[0] != '.' && fd >= (long)lo && fd != dirfd(d))
			close((int)fd);
	}
	closedir(d);
}

/* Close every descriptor but the N in KEEP (-1 entries are skipped): the
 * supervisor, init and the watcher hold only what they use, so that
 * nothing the caller handed on (the sealed environment, a pipe the
 * caller waits on) stays open in them for the whole run. */
void keep_only(int *keep, int n)
{
	unsigned int from = 0;

	for (int i = 1; i < n; i++) /* sort: n is tiny */
		for (int j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
			int t = keep[j];
			keep[j] = keep[j - 1];
			keep[j - 1] = t;
		}
	for (int i = 0; i < n; i++) {
		if (keep[i] < 0 || (unsigned int)keep[i] < from)
			continue;
		if ((unsigned int)keep[i] > from)
			close_span(from, (unsigned int)keep[i] - 1);
		from = (unsigned int)keep[i] + 1;
	}
	close_span(from, ~0U);
}
