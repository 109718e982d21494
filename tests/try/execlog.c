/* execlog: run PROGRAM and write to LOG the argv of every execve(2) that
 * it or anything it starts makes, one call a line, as a JSON array of
 * strings, without ptrace: a seccomp filter sends each execve to this
 * process (SECCOMP_RET_USER_NOTIF), which reads the argv out of the
 * caller's memory (/proc/PID/mem) and lets the call go on
 * (SECCOMP_USER_NOTIF_FLAG_CONTINUE). For what strace -f cannot watch:
 * a run whose own steps trace (run --explain; a process has one tracer).
 * A call is logged before the kernel runs it: one that then fails is
 * logged all the same. A filter chain takes one listener at most, so a
 * run that makes one of its own (the object form's listen guard) cannot
 * be watched so. Native syscall ABI only; a test tool.
 *
 *   execlog LOG PROGRAM [ARG...]   exit: PROGRAM's; 2 usage, 3 no filter
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#ifndef SECCOMP_USER_NOTIF_FLAG_CONTINUE
#define SECCOMP_USER_NOTIF_FLAG_CONTINUE (1UL << 0)
#endif

#define MAXARGS 4096

static int install(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_execve, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_execveat, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
	};
	struct sock_fprog prog = { sizeof f / sizeof *f, f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	                    SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
}

static void send_fd(int sock, int fd)
{
	char c = 0, buf[CMSG_SPACE(sizeof(int))];
	struct iovec io = { &c, 1 };
	struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = buf,
	                    .msg_controllen = sizeof buf };
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);

	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(h), &fd, sizeof fd);
	sendmsg(sock, &m, 0);
}

static int recv_fd(int sock)
{
	char c, buf[CMSG_SPACE(sizeof(int))];
	struct iovec io = { &c, 1 };
	struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = buf,
	                    .msg_controllen = sizeof buf };
	struct cmsghdr *h;
	int fd = -1;

	if (recvmsg(sock, &m, 0) == 1 && (h = CMSG_FIRSTHDR(&m)) && h->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(h), sizeof fd);
	return fd;
}

/* The string at ADDR in MEM, as a JSON string, to OUT. */
static void put_string(FILE *out, int mem, uint64_t addr)
{
	char buf[256];

	fputc('"', out);
	for (;;) {
		ssize_t n = pread(mem, buf, sizeof buf, (off_t)addr);

		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n; i++) {
			unsigned char c = (unsigned char)buf[i];

			if (!c) {
				fputc('"', out);
				return;
			}
			if (c == '"' || c == '\\')
				fprintf(out, "\\%c", c);
			else if (c < 0x20)
				fprintf(out, "\\u%04x", c);
			else
				fputc(c, out);
		}
		addr += (uint64_t)n;
	}
	fputc('"', out);
}

static void log_call(FILE *out, const struct seccomp_notif *n)
{
	uint64_t argv = n->data.nr == SYS_execveat ? n->data.args[2] : n->data.args[1], p;
	char path[64];
	int mem;

	snprintf(path, sizeof path, "/proc/%u/mem", n->pid);
	if ((mem = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		fprintf(out, "null\n");
		return;
	}
	fputc('[', out);
	for (int i = 0; i < MAXARGS; i++) {
		if (pread(mem, &p, sizeof p, (off_t)(argv + 8 * (uint64_t)i)) != sizeof p || !p)
			break;
		if (i)
			fputs(", ", out);
		put_string(out, mem, p);
	}
	fputs("]\n", out);
	fflush(out);
	close(mem);
}

int main(int argc, char **argv)
{
	struct seccomp_notif n;
	struct seccomp_notif_resp r;
	int sv[2], listener, st;
	pid_t child;
	FILE *out;

	if (argc < 3 || !(out = fopen(argv[1], "we")))
		return 2;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 || (child = fork()) < 0)
		return 3;
	if (child == 0) {
		int fd = install();

		if (fd < 0)
			_exit(3);
		send_fd(sv[1], fd);
		close(fd);
		close(sv[1]);
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	close(sv[1]);
	if ((listener = recv_fd(sv[0])) < 0) {
		waitpid(child, &st, 0);
		return 3;
	}
	for (;;) {
		struct pollfd p = { listener, POLLIN, 0 };

		/* POLLHUP: every process under the filter is gone */
		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			break;
		if (!(p.revents & POLLIN) && (p.revents & (POLLHUP | POLLERR)))
			break;
		if (!(p.revents & POLLIN))
			continue;
		memset(&n, 0, sizeof n);
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &n) < 0)
			continue; /* the caller died meanwhile */
		log_call(out, &n);
		memset(&r, 0, sizeof r);
		r.id = n.id;
		r.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &r);
	}
	while (waitpid(child, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}
