/* The servers of seccomp user notifications (notify.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>

#include "helper.h"
#include "notify.h"
#include "statuspipe.h"

#ifndef SYS_close_range
# define SYS_close_range 436
#endif

/* Close every descriptor but A and B (-1: none): close_range(2) (Linux
 * 5.9) on the gaps, else one by one up to 1024. */
static void close_but(int a, int b)
{
	int lo = a < b ? a : b, hi = a < b ? b : a, keep[2] = { lo < 0 ? hi : lo, hi }, from = 0;

	for (int i = 0; i < 2; i++) {
		if (keep[i] < from)
			continue;
		if (keep[i] > from && syscall(SYS_close_range, (unsigned)from,
		                              (unsigned)keep[i] - 1, 0U) < 0 && errno == ENOSYS)
			goto slow;
		from = keep[i] + 1;
	}
	if (syscall(SYS_close_range, (unsigned)from, ~0U, 0U) == 0 || errno != ENOSYS)
		return;
slow:
	for (int fd = 0; fd < 1024; fd++)
		if (fd != a && fd != b)
			close(fd);
}

void notify_detach(__u32 keep_caps, __u32 permit_caps, const char *name, int sock, int keep)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	__u32 caps = 0, permitted = 0;

	setsid();
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (syscall(SYS_capget, &h, d) == 0) {
		caps = d[0].effective & keep_caps;
		permitted = d[0].effective & (keep_caps | permit_caps);
	}
	memset(d, 0, sizeof d);
	d[0].effective = caps;
	d[0].permitted = permitted;
	if (syscall(SYS_capset, &h, d) < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		_exit(EXIT_CONFINE);
	prctl(PR_SET_NAME, name, 0, 0, 0);
	/* Hold nothing of the chain: not its terminal or pipes (a caller
	 * reading the target's output to EOF must not wait for us), not its
	 * descriptors. */
	close_but(sock, keep);
	for (int null = open("/dev/null", O_RDWR); null >= 0 && null < 2; )
		null = dup(null);
}

void notify_serve(int sock, int (*handle)(int nfd, struct seccomp_notif *req))
{
	struct seccomp_notif_sizes sz;
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;
	int nfd;

	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) < 0 ||
	    !(req = calloc(1, sz.seccomp_notif)) || !(resp = calloc(1, sz.seccomp_notif_resp)))
		_exit(EXIT_CONFINE);
	nfd = recv_fd(sock);
	if (nfd < 0)
		_exit(0);
	/* The step may not wait for this (notify_hand): no SIGPIPE. */
	send(sock, "k", 1, MSG_NOSIGNAL);
	close(sock);
	for (;;) {
		struct pollfd p = { nfd, POLLIN, 0 };

		if (poll(&p, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			_exit(EXIT_CONFINE);
		}
		/* POLLHUP alone: no process uses the filter any more. */
		if (!(p.revents & POLLIN))
			_exit(0);
		memset(req, 0, sz.seccomp_notif);
		if (ioctl(nfd, SECCOMP_IOCTL_NOTIF_RECV, req) < 0) {
			if (errno == EINTR || errno == ENOENT)
				continue;
			_exit(EXIT_CONFINE);
		}
		memset(resp, 0, sz.seccomp_notif_resp);
		resp->id = req->id;
		resp->error = -handle(nfd, req);
		/* ENOENT: the caller was interrupted or is gone. */
		ioctl(nfd, SECCOMP_IOCTL_NOTIF_SEND, resp);
	}
}

int notify_fork(void (*serve)(int sock))
{
	int sv[2], status, e;
	pid_t c;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	c = fork();
	if (c == 0) {
		/* The middle child exits at once: the server is nobody's
		 * child but the reaper's (pid 1 of the run, or a subreaper). */
		close(sv[0]);
		status_close();
		c = fork();
		if (c == 0)
			serve(sv[1]);
		_exit(c < 0);
	}
	e = errno;
	close(sv[1]);
	if (c < 0 || waitpid(c, &status, 0) < 0 || status != 0) {
		close(sv[0]);
		errno = c < 0 ? e : EAGAIN;
		return -1;
	}
	return sv[0];
}

int notify_hand(int sock, int nfd, int wait)
{
	char ack;
	int r = send_fd(sock, nfd) == 0 && (!wait || read(sock, &ack, 1) == 1) ? 0 : -1;

	close(nfd);
	close(sock);
	return r;
}
