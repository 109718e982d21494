/* sharness-exec-supervise without a pid namespace: the run's processes
 * found through the chain of parents, init being their subreaper (see
 * supervise.h). kill_descendants ends them all at the end of a run;
 * signal_descendants sends one signal to each, for the timeout. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "supervise.h"

static pid_t parent_of(pid_t pid)
{
	char path[64], buf[512], *p;
	int fd, ppid = 0;
	ssize_t n;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	/* "pid (comm) state ppid ...", and comm may hold anything */
	if ((p = strrchr(buf, ')')) && sscanf(p + 1, " %*c %d", &ppid) != 1)
		ppid = 0;
	return (pid_t)ppid;
}

/* The next pid of a "children" file's text at *P ("12 34 "), moving *P
 * past it; 0 at its end. */
static pid_t next_pid(char **p)
{
	char *end;
	long pid = strtol(*p, &end, 10);

	if (end == *p || pid <= 0)
		return 0;
	*p = end;
	return (pid_t)pid;
}

/* Our children, from /proc/thread-self/children, opened once beforehand
 * (run.children) so that the target lowering our RLIMIT_NOFILE cannot keep
 * us from finding them; else by a scan of /proc. Up to N pids into PIDS;
 * the count, or -1. */
static int children(pid_t *pids, int n)
{
	char buf[4096], *p = buf;
	int count = 0;
	ssize_t len;
	pid_t pid;

	if (run.children >= 0 && (len = pread(run.children, buf, sizeof buf - 1, 0)) >= 0) {
		buf[len] = '\0';
		while (count < n && (pid = next_pid(&p)))
			pids[count++] = pid;
		return count;
	}
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t self = getpid();

	if (!d)
		return -1;
	while (count < n && (e = readdir(d))) {
		pid = atoi(e->d_name);
		if (pid > 0 && parent_of(pid) == self)
			pids[count++] = pid;
	}
	closedir(d);
	return count;
}

/* Without a pid namespace: kill every process whose parent we are (orphans
 * come to us, a subreaper), reap it, and repeat until we have no child: a
 * killed process's own children are then ours in turn. A pid read here
 * cannot be reused before kill(2): only our wait could free it. The usual
 * case, nothing left, costs one waitpid and no read of /proc. */
void kill_descendants(void)
{
	struct timespec ms = { 0, 1000000L };

	for (;;) {
		pid_t r = waitpid(-1, NULL, WNOHANG | __WALL), pids[512];
		int killed = 0, n;

		if (r > 0 || (r < 0 && errno == EINTR))
			continue;
		if (r < 0)
			return; /* ECHILD: none left */
		if ((n = children(pids, 512)) < 0) {
			warnx_("unable to list /proc: processes may be left behind");
			return;
		}
		if (n == 1 && run.watcher && pids[0] == run.watcher)
			return; /* the watcher, who is not the run's: end_watcher */
		for (int i = 0; i < n; i++) {
			if (run.watcher && pids[i] == run.watcher)
				continue;
			if (kill(pids[i], SIGKILL) == 0) {
				killed++;
			} else if (errno == EPERM) {
				warnx_("unable to kill process %d: %s", (int)pids[i], strerror(errno));
				return;
			}
		}
		if (killed)
			waitpid(-1, NULL, __WALL);
		else
			nanosleep(&ms, NULL);
	}
}

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

/* Has the process of pidfd FD exited (or is FD no pidfd: -1)? */
static int gone(int fd)
{
	struct pollfd p = { fd, POLLIN, 0 };

	return fd >= 0 && poll(&p, 1, 0) == 1;
}

/* The processes a signal goes to: each with its pidfd (-1 where there is
 * none), gathered whole before the first is signalled. */
struct victims {
	pid_t *pid;
	int *fd;
	size_t n, cap;
	int sig;
};

/* SIG to C, through its pidfd CFD where there is one: a process that has
 * gone since is told nothing, whatever now has its pid. */
static void signal_one(pid_t c, int cfd, int sig)
{
	if (cfd < 0 || (syscall(SYS_pidfd_send_signal, cfd, sig, NULL, 0) < 0 && errno == ENOSYS))
		kill(c, sig);
}

/* Keeps C (its pidfd CFD) in V; 0, or -1 when V cannot grow. */
static int keep(struct victims *v, pid_t c, int cfd)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 64;
		pid_t *pid = realloc(v->pid, cap * sizeof *pid);
		int *fd;

		if (pid)
			v->pid = pid;
		if (!pid || !(fd = realloc(v->fd, cap * sizeof *fd)))
			return -1;
		v->fd = fd;
		v->cap = cap;
	}
	v->pid[v->n] = c;
	v->fd[v->n++] = cfd;
	return 0;
}

/* Each child of PID (of its every thread), whose pidfd is FD (-1 where
 * there is none), into V, unless OURS (PID is us: our children cannot be
 * reaped but by us, nor their pids reused), then theirs, DEPTH levels
 * down at most. A grandchild's pid could be freed and reused between the
 * read of its parent's children and the signal: it is kept with a pidfd,
 * opened before its parent is checked to be alive and still its parent,
 * so what gets the signal is the process that was checked. Before Linux
 * 5.3 (no pidfd_open), or where no descriptor is left, its pid and that
 * small window. */
static void gather(struct victims *v, pid_t pid, int fd, int ours, int depth)
{
	char path[64], buf[4096], *p;
	struct dirent *e;
	pid_t c;
	DIR *d;

	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	if (depth <= 0 || !(d = opendir(path)))
		return;
	while ((e = readdir(d))) {
		int tfd;
		ssize_t len;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "/proc/%d/task/%.20s/children", (int)pid, e->d_name);
		if ((tfd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		len = read(tfd, buf, sizeof buf - 1);
		close(tfd);
		buf[len > 0 ? len : 0] = '\0';
		for (p = buf; (c = next_pid(&p)); ) {
			int cfd = (int)syscall(SYS_pidfd_open, c, 0);

			if (!ours && (parent_of(c) != pid || gone(fd) || gone(cfd))) {
				if (cfd >= 0)
					close(cfd);
				continue;
			}
			if (keep(v, c, cfd) < 0) { /* no memory: signalled as it is found */
				signal_one(c, cfd, v->sig);
				gather(v, c, cfd, 0, depth - 1);
				if (cfd >= 0)
					close(cfd);
				continue;
			}
			gather(v, c, cfd, 0, depth - 1);
		}
	}
	closedir(d);
}

/* SIG to each process of the run as it is now: the whole tree is read
 * first, so that a process the signal makes (a SIGTERM handler's own
 * child, its last words) is not signalled in turn, as it would be by a
 * walk that signals as it goes. */
void signal_descendants(int sig)
{
	struct victims v = { .sig = sig };

	gather(&v, getpid(), -1, 1, 256);
	for (size_t i = 0; i < v.n; i++) {
		signal_one(v.pid[i], v.fd[i], sig);
		if (v.fd[i] >= 0)
			close(v.fd[i]);
	}
	free(v.pid);
	free(v.fd);
}
