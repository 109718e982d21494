/* The setgid server (setgid.h). A directory's setgid bit grants nothing
 * (new entries inherit its group); a file's hands its group to whoever
 * runs it. A filter sees neither a file's type nor its name, so the
 * filter hands the calls that set S_ISGID alone to this server. Why it
 * holds:
 *
 * - It acts on an inode, never on a name twice: it resolves the call's
 *   path once, as the caller would (from the caller's working directory
 *   or directory descriptor, /proc/TID/cwd and /proc/TID/fd/N of a procfs
 *   of the run's pid namespace), into a descriptor opened O_PATH |
 *   O_DIRECTORY, and sets the mode on that descriptor (through
 *   /proc/self/fd/N). The caller's path follows no magic link of /proc
 *   (there "self" would be this process). A thread that swaps the directory for a file at the
 *   path makes the open fail (refused) or comes too late (the directory
 *   gets the bit, wherever it now is). It never answers CONTINUE, which
 *   would let the kernel look the name up again.
 * - It can do nothing the caller could not: it is forked by the landlock
 *   step after the user switch, so it has the target's uid, gids and
 *   groups, and keeps no capability but CAP_SYS_PTRACE where Yama asks for
 *   it (to read the memory and /proc entries of processes that are not its
 *   descendants), which no chmod check reads; it lives in
 *   the same mount namespace (the view), whose read-only binds fail its
 *   chmod with EROFS as they fail the target's; and Landlock governs no
 *   chmod, so the target's domain takes nothing away from it there. It
 *   checks besides that the inode is a directory the caller owns, and that
 *   the caller's root is its own (a target in a user namespace of its own
 *   may have chrooted).
 * - It reads the caller's memory (the path) and opens its /proc entries,
 *   then checks the notification is still pending
 *   (SECCOMP_IOCTL_NOTIF_ID_VALID): the caller was blocked in the call all
 *   along, so its tid named it, not a process that reused the number.
 * - The target cannot reach it: it lies outside the Landlock domain
 *   (forked before restrict_self), is not dumpable (no ptrace, no
 *   process_vm_writev, no pidfd_getfd of its descriptors: the target holds
 *   no capability), in a session of its own, nobody's child but the
 *   reaper's. Killed (below Landlock ABI 6, which scopes signals), it
 *   takes the listener with it and the kernel fails the calls with ENOSYS:
 *   closed, never open.
 * - Only the calls with S_ISGID and without S_ISUID stop; the others run
 *   the filter as before. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/seccomp.h>

#include "common.h"
#include "helper.h"
#include "seccomp.h"
#include "notify.h"
#include "setgid.h"

#ifndef AT_EMPTY_PATH
# define AT_EMPTY_PATH 0x1000
#endif

static int to_server = -1, proc_fd = -1, keep_ptrace;

/* One notified call, as the caller made it. */
struct chmodcall {
	int dirfd, flags;	/* dirfd: -1 for fchmod, whose fd is FD */
	int fd;
	unsigned long long path;
	unsigned mode;
};

static int decode(const struct seccomp_data *d, struct chmodcall *c)
{
	memset(c, 0, sizeof *c);
	c->dirfd = AT_FDCWD;
#ifdef SECCOMP_ARCH
	if (d->arch != SECCOMP_ARCH)
		return -1;
#endif
#ifdef SYS_chmod
	if (d->nr == SYS_chmod) {
		c->path = d->args[0];
		c->mode = (unsigned)d->args[1];
		return 0;
	}
#endif
	if (d->nr == SYS_fchmod) {
		c->dirfd = -1;
		c->fd = (int)d->args[0];
		c->mode = (unsigned)d->args[1];
		return 0;
	}
	if (d->nr != SYS_fchmodat && d->nr != SYS_fchmodat2)
		return -1;
	c->dirfd = (int)d->args[0];
	c->path = d->args[1];
	c->mode = (unsigned)d->args[2];
	c->flags = d->nr == SYS_fchmodat2 ? (int)d->args[3] : 0;
	return 0;
}

/* The NUL-terminated string at ADDR in TID's memory, a page at a time. */
static int read_path(pid_t tid, unsigned long long addr, char *buf, size_t size)
{
	size_t got = 0;

	while (got + 1 < size) {
		size_t chunk = 4096 - (size_t)((addr + got) & 4095);
		struct iovec l, r;
		ssize_t n;

		if (chunk > size - 1 - got)
			chunk = size - 1 - got;
		l = (struct iovec){ buf + got, chunk };
		r = (struct iovec){ (void *)(uintptr_t)(addr + got), chunk };
		if ((n = process_vm_readv(tid, &l, 1, &r, 1, 0)) <= 0)
			return errno == EFAULT ? EFAULT : EPERM;
		if (memchr(buf + got, '\0', (size_t)n))
			return 0;
		got += (size_t)n;
	}
	return ENAMETOOLONG;
}

/* The caller's root is this process's own (the same inode). */
static int same_root(int procfd, pid_t tid)
{
	struct stat a, b;
	char name[32];

	snprintf(name, sizeof name, "%d/root", (int)tid);
	if (fstatat(procfd, name, &a, 0) < 0 || stat("/", &b) < 0)
		return 0;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

#ifndef RESOLVE_NO_MAGICLINKS
# define RESOLVE_NO_MAGICLINKS 0x02
#endif

/* PATH beneath BASE, as the caller's lookup would go, but for the
 * magic links of /proc (ELOOP): there "self" would be this process, and
 * /proc/self/cwd this one's working directory. openat2 (Linux 5.6; the
 * filter refuses it to the target, never to this process). */
static int lookup(int base, const char *path, int flags)
{
	struct { __u64 flags, mode, resolve; } how = { (__u64)flags, 0, RESOLVE_NO_MAGICLINKS };

	return (int)syscall(SYS_openat2, base, path, &how, sizeof how);
}

/* C's file, opened O_PATH where it is a directory, into *OUT; 0 or the
 * errno to answer (EPERM for anything but a directory). */
static int open_target(int procfd, pid_t tid, const struct chmodcall *c,
                       const char *path, int *out)
{
	char name[64];
	int base, fd, nofollow = c->flags & AT_SYMLINK_NOFOLLOW ? O_NOFOLLOW : 0, e;

	if (c->dirfd == AT_FDCWD)
		snprintf(name, sizeof name, "%d/cwd", (int)tid);
	else
		snprintf(name, sizeof name, "%d/fd/%d", (int)tid, c->dirfd == -1 ? c->fd : c->dirfd);
	/* An empty path names the directory descriptor itself only with
	 * AT_EMPTY_PATH (fchmodat2). */
	if (c->dirfd != -1 && !(c->flags & AT_EMPTY_PATH) && !*path)
		return ENOENT;
	base = openat(procfd, name, O_PATH | O_CLOEXEC);
	if (base < 0)
		return errno == ENOENT ? EBADF : EPERM;
	if (c->dirfd == -1 || !*path) {
		*out = base;
		return 0;
	}
	fd = lookup(base, path, O_PATH | O_DIRECTORY | O_CLOEXEC | nofollow);
	e = errno;
	if (fd < 0 && e == ENOTDIR) {
		/* The file itself is no directory (refused), or a
		 * component on the way is not (the call's own error). */
		fd = lookup(base, path, O_PATH | O_CLOEXEC | nofollow);
		e = fd < 0 ? errno : EPERM;
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	close(base);
	*out = fd;
	return fd < 0 ? e : 0;
}

/* The call the notification REQ stands for, made here on the inode: 0 or
 * the errno to answer. */
static int handle(int nfd, struct seccomp_notif *req)
{
	static char path[PATH_MAX];
	struct chmodcall c;
	struct stat st;
	pid_t tid = (pid_t)req->pid;
	char self[64];
	int fd = -1, err;

	if (decode(&req->data, &c) < 0 || c.mode & S_ISUID || !(c.mode & S_ISGID))
		return EPERM;
	if (c.flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return EINVAL;
	path[0] = '\0';
	if (c.dirfd != -1 && (err = read_path(tid, c.path, path, sizeof path)))
		return err;
	/* A target in a user namespace of its own may have chrooted: its
	 * names would mean other files here. */
	if (!same_root(proc_fd, tid))
		return EPERM;
	if ((err = open_target(proc_fd, tid, &c, path, &fd)))
		return err;
	/* Everything of the caller's is read: it was the caller all along. */
	if (ioctl(nfd, SECCOMP_IOCTL_NOTIF_ID_VALID, &req->id) < 0)
		err = ENOENT;
	else if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
		err = EPERM;
	else {
		snprintf(self, sizeof self, "self/fd/%d", fd);
		err = fchmodat(proc_fd, self, c.mode & 07777, 0) < 0 ? errno : 0;
	}
	close(fd);
	return err;
}

/* Yama's ptrace_scope from the run's procfs: 0 where Yama is not there. */
static int yama_scope(int procfd)
{
	char c = '0';
	int fd = openat(procfd, "sys/kernel/yama/ptrace_scope", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (read(fd, &c, 1) != 1)
			c = '1';
		close(fd);
	}
	return c - '0';
}

/* No capability but CAP_SYS_PTRACE where Yama needs it (process_vm_readv
 * and /proc/TID/cwd of a process that is not this one's descendant),
 * which no chmod check reads (those are CAP_FOWNER and CAP_FSETID). */
static void serve(int sock) NORETURN;
static void serve(int sock)
{
	notify_detach(keep_ptrace, "setgid-server", sock, proc_fd);
	notify_serve(sock, handle);
}

int setgid_start(int fd, const char **why)
{
	struct seccomp_notif_sizes sz;

	*why = NULL;
	proc_fd = fd;
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) < 0)
		*why = "the kernel lacks seccomp user notification (Linux 5.0)";
	else if (proc_fd < 0)
		*why = "no procfs of the run's pid namespace reached this step "
		       "(no view, or the step run by hand)";
	else if (keep_ptrace = yama_scope(proc_fd) > 0, (to_server = notify_fork(serve)) < 0)
		*why = "unable to fork the setgid server (a process cap of 1?)";
	if (proc_fd >= 0)
		close(proc_fd);
	return *why ? -1 : 0;
}

void setgid_hand(int nfd)
{
	/* Not waiting for it: a chmod with S_ISGID waits for it, or fails
	 * with ENOSYS if it is gone. */
	if (notify_hand(to_server, nfd, 0) < 0)
		die(EXIT_CONFINE, "unable to hand the setgid server its descriptor");
	to_server = -1;
}

void setgid_cancel(void)
{
	if (to_server >= 0)
		close(to_server);
	to_server = -1;
}
