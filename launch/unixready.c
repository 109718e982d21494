/* Readiness on a pathname UNIX socket (launch.h, ready.c). The path is
 * the component's to choose, and to plant links on, so it is never
 * resolved by the root launcher, nor in the launcher's mounts: the probe,
 * a child of the session's init, waits until the component's confined
 * process stands (a descendant of its run's supervisor in another mount
 * namespace than the session's, with a seccomp filter, so past the view
 * step and the landlock step), joins that process's mount namespace,
 * drops to the component's uid and gid, and only then connects until the
 * socket accepts, each wait every 10 ms through the probe's first second,
 * then up to 100 ms (probe_pause). Pids are read from the host's
 * /proc, where the supervisor's pid is the one its pidfd's fdinfo gives. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "launch.h"

/* The pid that FD, a pidfd, names in the host's /proc. */
static long host_pid(int fd)
{
	char path[64], line[128];
	long pid = -1;
	FILE *f;

	snprintf(path, sizeof path, "/proc/self/fdinfo/%d", fd);
	if (!(f = fopen(path, "re")))
		return -1;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "Pid: %ld", &pid) == 1)
			break;
	fclose(f);
	return pid;
}

/* PID stands confined: its mount namespace is not MNT, it has a filter. */
static int confined(long pid, ino_t mnt)
{
	char path[64], line[128];
	struct stat st;
	int filters = 0;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%ld/ns/mnt", pid);
	if (stat(path, &st) < 0 || st.st_ino == mnt)
		return 0;
	snprintf(path, sizeof path, "/proc/%ld/status", pid);
	if (!(f = fopen(path, "re")))
		return 0;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "Seccomp: %d", &filters) == 1)
			break;
	fclose(f);
	return filters > 0;
}

/* The first confined descendant of PID, DEPTH generations at most; 0. */
static long find_confined(long pid, ino_t mnt, int depth)
{
	char path[64];
	long child, found = 0;
	FILE *f;

	if (confined(pid, mnt))
		return pid;
	snprintf(path, sizeof path, "/proc/%ld/task/%ld/children", pid, pid);
	if (!depth || !(f = fopen(path, "re")))
		return 0;
	while (!found && fscanf(f, "%ld", &child) == 1)
		found = find_confined(child, mnt, depth - 1);
	fclose(f);
	return found;
}

void probe_pause(const struct timespec *t0, long *ms)
{
	struct timespec t = { 0, *ms * 1000 * 1000 }, now;

	nanosleep(&t, NULL);
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec - t0->tv_sec > 1 || (now.tv_sec - t0->tv_sec == 1 && now.tv_nsec >= t0->tv_nsec))
		*ms = *ms < 100 ? *ms + 10 : 100;
}

NORETURN void unix_probe(const struct role *r)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	long supervisor = host_pid(r->pidfd), target, ms = 10;
	struct timespec t0;
	char path[64];
	struct stat self;
	int ns, fd;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || supervisor < 0 ||
	    stat("/proc/self/ns/mnt", &self) < 0)
		_exit(EXIT_CONFINE);
	while (!(target = find_confined(supervisor, self.st_ino, 8)))
		probe_pause(&t0, &ms);
	snprintf(path, sizeof path, "/proc/%ld/ns/mnt", target);
	if ((ns = open(path, O_RDONLY | O_CLOEXEC)) < 0 || setns(ns, CLONE_NEWNS) < 0 ||
	    chdir("/") < 0 || setgroups(0, NULL) < 0 || setresgid(r->gid, r->gid, r->gid) < 0 ||
	    setresuid(r->uid, r->uid, r->uid) < 0)
		_exit(EXIT_CONFINE);
	snprintf(a.sun_path, sizeof a.sun_path, "%s", r->c->ready_path);
	for (;; probe_pause(&t0, &ms)) {
		if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
			_exit(EXIT_CONFINE);
		if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0)
			_exit(0);
		close(fd);
	}
}
