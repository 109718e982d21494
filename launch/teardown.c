/* The session's watcher (launch.h): forked by the launcher once the
 * session's init exists, in a session (setsid) and process group of its
 * own, so that neither the terminal's signals nor the launcher's end reach
 * it (only SIGKILL does; then the uids' locks go with it and the init, and
 * the cgroups stay). It waits on a pidfd of the init. The init is pid 1
 * of the session's pid namespace and dies with the launcher
 * (PR_SET_PDEATHSIG), and the kernel reports it gone only once every
 * process of that namespace, and of the namespaces beneath it (each
 * run's), is gone. Then the watcher removes the session's cgroups,
 * unmounts the session's tmpfs (its state directories), and, last, lets
 * go of the uids' locks by ending. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "common.h"
#include "launch.h"

static NORETURN void watch(struct launch *s, int init)
{
	struct pollfd p = { .fd = init, .events = POLLIN };
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (setsid() < 0 || null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0)
		die(EXIT_CONFINE, "unable to start the session's watcher");
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP && sig != SIGCHLD)
			signal(sig, SIG_IGN);
	while (poll(&p, 1, -1) < 0)
		if (errno != EINTR)
			die(EXIT_CONFINE, "unable to wait for the session's init");
	cgroups_remove(s->session);
	if (s->keep_r >= 0) {	/* --keep: unless main's status was 0 */
		int end = -1;

		if (read(s->keep_r, &end, sizeof end) != sizeof end || end != 0)
			keep_move(s);
	} else if (umount2(SESSION_DIR, MNT_DETACH) < 0)
		warnx_("unable to unmount the session's tmpfs %s: %s", SESSION_DIR,
		       strerror(errno));
	for (size_t i = 0; i < s->n; i++)
		if (s->r[i].lock >= 0)
			close(s->r[i].lock);
	for (size_t i = 0; i < s->man.nshare; i++)
		close(s->share_lock[i]);
	_exit(0);
}

pid_t watcher_start(struct launch *s, int init, int keep_w)
{
	pid_t pid;

	fflush(NULL);
	if ((pid = fork()) < 0)
		die(EXIT_CONFINE, "unable to fork the session's watcher");
	if (!pid) {
		if (keep_w >= 0)
			close(keep_w);
		watch(s, init);
	}
	return pid;
}
