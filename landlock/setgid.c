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
 *   the filter as before.
 * - Under --explain too: the notification outranks every TRACE, so the
 *   observer sees no such call before it is decided here; this server,
 *   which the observer traces, tells it of each file it refuses through
 *   a getppid its own filter stops (lib/setgidcall.h: setgid_tell), which
 *   changes nothing of the answer. */
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
#include <linux/capability.h>
#include <linux/seccomp.h>

#include "common.h"
#include "helper.h"
#include "seccomp.h"
#include "notify.h"
#include "setgid.h"
#include "setgidcall.h"

static int to_server = -1, proc_fd = -1, keep_ptrace;

/* The call the notification REQ stands for, made here on the inode
 * (lib/setgidcall.c): 0 or the errno to answer. */
static int handle(int nfd, struct seccomp_notif *req)
{
	static struct setgidcall c;
	int err = setgid_begin(proc_fd, req, &c, NULL);

	if (err)
		return err;
	/* Everything of the caller's is read: it was the caller all along. */
	if (ioctl(nfd, SECCOMP_IOCTL_NOTIF_ID_VALID, &req->id) < 0) {
		close(c.base);
		return ENOENT;
	}
	return setgid_finish(proc_fd, &c);
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
	notify_detach(keep_ptrace ? 1U << CAP_SYS_PTRACE : 0, 0, "setgid-server", sock, proc_fd);
	setgid_tell_install();	/* --explain hears of a file's refusal */
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
		       "(a pid namespace without a mount namespace)";
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
