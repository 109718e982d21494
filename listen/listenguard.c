/* The listen guard (listenguard.h). Why it holds:
 *
 * - The target's listen(2) never runs in the target: a seccomp filter turns
 *   it into a user notification, and the server calls listen(2) itself on
 *   the same socket object, fetched with pidfd_getfd(2), then replies with
 *   that result. It never answers CONTINUE, which would let another thread
 *   dup2 a different socket onto the descriptor between check and call
 *   (seccomp_unotify(2), "Design goals; use of SECCOMP_USER_NOTIF_FLAG_
 *   CONTINUE").
 * - The check is the kernel's own, under the socket lock: before listen(2)
 *   the server sets the socket's IP_LOCAL_PORT_RANGE (Linux 6.3) to one
 *   port that a socket of its own holds (bound without SO_REUSEADDR or
 *   SO_REUSEPORT, so nothing else can share it). An unbound socket's
 *   auto-bind then finds no free port and listen(2) fails; a socket that
 *   bind(2) gave a port (a Landlock bind rule allowed it) listens on it. A
 *   port that connect(2) took automatically is no way around this: such a
 *   socket cannot listen while connected, and the kernel releases that port
 *   when it disconnects (tcp_set_state(TCP_CLOSE) without
 *   SOCK_BINDPORT_LOCK). The target cannot undo the range: the filter
 *   refuses setsockopt(2) IP_LOCAL_PORT_RANGE, and io_uring, whose
 *   IORING_OP_LISTEN and setsockopt commands no filter sees.
 * - The server is forked twice by the listen step, before the landlock
 *   step drops the capabilities and calls landlock_restrict_self, so it
 *   is no child of the target (a wait(-1) there never waits for it) and
 *   it lies outside the target's Landlock domain: Landlock forbids a
 *   domain to ptrace anything outside it, and from ABI 6 to signal it. It
 *   is not dumpable either, sits in a session of its own (no terminal
 *   signal reaches it) and keeps no capability but CAP_SYS_PTRACE, which
 *   pidfd_getfd needs for a target that is not dumpable (or in a user
 *   namespace of its own). It outlives every process under the filter: it
 *   exits when the kernel reports that no process uses the filter any
 *   more (POLLHUP, Linux 5.8).
 * - If the server is gone (killed below ABI 6), the kernel fails listen(2)
 *   with ENOSYS: the guard fails closed. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <grp.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/seccomp.h>

#include "common.h"
#include "helper.h"
#include "listenguard.h"
#include "notify.h"
#include "rights.h"
#include "seccomp.h"
#include "setgidcall.h"
#include "setgidguard.h"
#include "statuspipe.h"

#ifndef IP_LOCAL_PORT_RANGE
#define IP_LOCAL_PORT_RANGE 51
#endif
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif
#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif

/* The architectures of seccomp.h's table, but i386: there socketcall(2)
 * would reach listen(2) with its arguments behind a pointer. */
#if defined(SECCOMP_ARCH) && !defined(SYS_socketcall)
# define GUARD_ARCH SECCOMP_ARCH
#endif

/* The ports the server's blocking sockets hold, per family; 0: none. */
static unsigned short block4, block6;
/* The view's procfs, for the setgid calls (setgidguard.c); -1: none,
 * and the filter hands them no server. */
static int proc_fd = -1, setgid_served;

/* The guard's own filter, below the landlock step's (the most
 * restrictive answer of all filters wins, whatever their order: listen.c).
 * With NOTIFY 0, listen(2) gets EACCES instead of going to a server.
 * Returns the listener fd, 0, or -1. */
static int install(int notify)
{
#ifndef GUARD_ARCH
	(void)notify;
	errno = ENOSYS;
	return -1;
#else
	struct seccomp_prog p = { .n = 0 };
	unsigned call, level, name;

	seccomp_arch_check(&p);	/* x32: no way around */
	seccomp_if_eq(&p, SYS_listen, notify ? SECCOMP_RET_USER_NOTIF : SECCOMP_ERRNO(EACCES));
	seccomp_if_eq(&p, SYS_io_uring_setup, SECCOMP_ERRNO(ENOSYS));
	if (notify && setgid_served)
		setgid_rules(&p);
	/* setsockopt(fd, SOL_IP, IP_LOCAL_PORT_RANGE, ...): the kernel reads
	 * level and optname as ints, so the low words decide. */
	call = seccomp_emit(&p, BPF_JMP | BPF_JEQ | BPF_K, SYS_setsockopt);
	seccomp_load(&p, SECCOMP_ARG_LO(1));
	level = seccomp_emit(&p, BPF_JMP | BPF_JEQ | BPF_K, SOL_IP);
	seccomp_load(&p, SECCOMP_ARG_LO(2));
	name = seccomp_emit(&p, BPF_JMP | BPF_JEQ | BPF_K, IP_LOCAL_PORT_RANGE);
	seccomp_land(&p, call, 0);
	seccomp_land(&p, level, 0);
	seccomp_ret(&p, SECCOMP_RET_ALLOW);
	seccomp_land(&p, name, 1);
	seccomp_ret(&p, SECCOMP_ERRNO(EPERM));
	return seccomp_filter(&p, notify ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0);
#endif
}

int listenguard_possible(const char **why)
{
	struct seccomp_notif_sizes sz;
	int pidfd, fd, s, range = 0, ok = 1;

	*why = NULL;
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) < 0) {
		*why = "the kernel lacks seccomp user notification (Linux 5.0)";
		return 0;
	}
	pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	fd = pidfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pidfd, 2, 0);
	if (fd < 0 && (errno == ENOSYS || pidfd < 0)) {
		*why = "the kernel lacks pidfd_getfd (Linux 5.6)";
		ok = 0;
	}
	if (fd >= 0)
		close(fd);
	if (pidfd >= 0)
		close(pidfd);
	if (!ok)
		return 0;
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s >= 0 && setsockopt(s, SOL_IP, IP_LOCAL_PORT_RANGE, &range, sizeof range) < 0 &&
	    errno == ENOPROTOOPT) {
		*why = "the kernel lacks IP_LOCAL_PORT_RANGE (Linux 6.3)";
		ok = 0;
	}
	if (s >= 0)
		close(s);
	return ok;
}

/* --- the server --- */

/* A TCP socket of the server's own on an ephemeral port of FAMILY, kept
 * open for good; its port, or 0 where the family is not available. */
static unsigned short blocker(int family)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;
	int one = 1, s = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		return 0;
	memset(&ss, 0, sizeof ss);
	ss.ss_family = (sa_family_t)family;
	if (family == AF_INET6)
		setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
	if (bind(s, (struct sockaddr *)&ss, family == AF_INET ?
	         sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6)) < 0 ||
	    getsockname(s, (struct sockaddr *)&ss, &len) < 0) {
		close(s);
		return 0;
	}
	return ntohs(family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port :
	             ((struct sockaddr_in6 *)&ss)->sin6_port);
}

static unsigned short port_of(int s)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;

	if (getsockname(s, (struct sockaddr *)&ss, &len) < 0)
		return 0;
	return ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port :
	             ((struct sockaddr_in6 *)&ss)->sin6_port);
}

static int sockopt(int s, int name)
{
	int v = -1;
	socklen_t len = sizeof v;

	return getsockopt(s, SOL_SOCKET, name, &v, &len) < 0 ? -1 : v;
}

/* listen(2) on S for the target; 0 or the errno to answer. */
static int guarded_listen(int s, int backlog)
{
	int family = sockopt(s, SO_DOMAIN);
	__u32 range;
	unsigned short block;

	if (family < 0)
		return errno;
	if (family == AF_UNIX)
		return listen(s, backlog) < 0 ? errno : 0;
	if (family != AF_INET && family != AF_INET6)
		return EACCES;
	if (sockopt(s, SO_TYPE) != SOCK_STREAM)
		return EOPNOTSUPP;
	if (sockopt(s, SO_PROTOCOL) != IPPROTO_TCP)
		return EACCES;
	block = family == AF_INET ? block4 : block6;
	/* IP_LOCAL_PORT_RANGE: the low port in the low 16 bits, the high port
	 * in the high 16; unsigned, as a port above 32767 shifted in an int
	 * would overflow. */
	range = (__u32)block | (__u32)block << 16;
	if (!block || setsockopt(s, SOL_IP, IP_LOCAL_PORT_RANGE, &range, sizeof range) < 0)
		return EACCES;
	/* Never bound: refuse without even trying. getsockname(2) cannot
	 * tell more: a socket whose connect(2) failed still shows the port
	 * the kernel has already released. Then the range decides, and an
	 * auto-bind fails with EADDRINUSE, answered as EACCES (as is a real
	 * conflict between two SO_REUSEADDR sockets, which cannot be told
	 * apart from it). */
	if (!port_of(s))
		return EACCES;
	if (listen(s, backlog) == 0)
		return 0;
	return errno == EADDRINUSE ? EACCES : errno;
}

static int listen_call(int nfd, struct seccomp_notif *req)
{
	int fd = (int)req->data.args[0], backlog = (int)req->data.args[1];
	int pidfd, s, err;

#ifdef GUARD_ARCH
	if (req->data.arch != GUARD_ARCH || req->data.nr != SYS_listen)
		return ENOSYS;
#endif
	/* The caller may be any thread; PIDFD_THREAD (Linux 6.9) names it,
	 * an older kernel only a thread group leader. */
	pidfd = (int)syscall(SYS_pidfd_open, req->pid, PIDFD_THREAD);
	if (pidfd < 0 && errno == EINVAL)
		pidfd = (int)syscall(SYS_pidfd_open, req->pid, 0);
	if (pidfd < 0)
		return EACCES;
	/* The pid still names the caller, not a process that reused it. */
	if (ioctl(nfd, SECCOMP_IOCTL_NOTIF_ID_VALID, &req->id) < 0) {
		close(pidfd);
		return EACCES;
	}
	s = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	err = errno;
	close(pidfd);
	if (s < 0)
		return err == EBADF ? EBADF : EACCES;
	err = guarded_listen(s, backlog);
	close(s);
	return err;
}

static int handle(int nfd, struct seccomp_notif *req)
{
	if (req->data.nr == SYS_listen)
		return listen_call(nfd, req);
	return setgid_call(proc_fd, nfd, req);
}

static void serve(int sock) NORETURN;
static void serve(int sock)
{
	/* CAP_SYS_PTRACE, if held, for pidfd_getfd; CAP_SETUID and
	 * CAP_SETGID only permitted, for the setgid calls' children. */
	notify_detach(1U << CAP_SYS_PTRACE, !setgid_served ? 0 :
	              1U << CAP_SETUID | 1U << CAP_SETGID, "listen-guard", sock, proc_fd);
	if (setgid_served)
		setgid_tell_install();	/* its children's, for --explain */
	block4 = blocker(AF_INET);
	block6 = blocker(AF_INET6);
	notify_serve(sock, handle);
}

int listenguard_start(int best)
{
	const char *why;
	int sock, nfd;

	if (!listenguard_possible(&why)) {
		if (!best)
			die_hint(EXIT_CONFINE, 0, "-b (--best-effort) runs with listen(2) "
			         "refused on every socket instead",
			         "unable to start the listen guard: %s", why);
		warnx_("no listen guard (%s): best effort: listen() is refused on "
		       "every socket", why);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || install(0) < 0)
			die(EXIT_CONFINE, "unable to install the listen seccomp filter");
		return 0;
	}
	proc_fd = view_procfd();
	setgid_served = proc_fd >= 0;
	sock = notify_fork(serve);
	if (proc_fd >= 0)
		close(proc_fd);
	if (sock < 0)
		die(EXIT_CONFINE, "unable to start the listen guard");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die(EXIT_CONFINE, "unable to set no_new_privs");
	nfd = install(1);
	/* EBUSY: a filter above already has a listener (this run inside
	 * another run's object form, or under a supervisor): one chain of
	 * filters may have only one, and whose it is cannot be told. */
	if (nfd < 0 && errno == EBUSY && best) {
		warnx_("no listen guard (a seccomp listener is already in place): "
		       "best effort: listen() is refused on every socket");
		if (install(0) < 0)
			die(EXIT_CONFINE, "unable to install the listen seccomp filter");
		close(sock);
		return 0;
	}
	if (nfd < 0)
		die_hint(EXIT_CONFINE, errno, errno == EBUSY ? "a filter above already "
		         "has a seccomp listener (a run inside another run's object form?); "
		         "-b (--best-effort) refuses listen(2) on every socket instead" : NULL,
		         "unable to install the listen guard's seccomp filter");
	if (notify_hand(sock, nfd, 1) < 0)
		diex(EXIT_CONFINE, "unable to start the listen guard: its server did not take "
		     "its descriptor");
	/* The landlock step lets such calls through its own filter then. */
	if (setgid_served)
		walls_note("setgid", "listen");
	return 1;
}
