/* try-syscall: attempt one thing from inside the chain and report how it
 * went, for the confinement tests. Prints "ok" or "refused: <errno text>"
 * and exits 0 when it was done, 1 when it was refused, 2 on usage errors.
 *
 *   try-syscall landlock-abi          print the Landlock ABI (exit 1 if none)
 *   try-syscall landlock-errata       print the errata bitmask (exit 1 if no query)
 *   try-syscall read FILE | write FILE | create FILE | unlink FILE
 *   try-syscall truncate FILE | mkdir DIR | rename A B | link A B
 *   try-syscall connect PORT [PROTO]  TCP (or mptcp, sctp) connect to 127.0.0.1:PORT
 *   try-syscall bind PORT             TCP bind to 127.0.0.1:PORT
 *   try-syscall serve PORT [PROTO]    bind and listen on 127.0.0.1:PORT, print "ok",
 *                                     then "accepted" once a client came (20 s at most)
 *   try-syscall tfo-sendto PORT | tfo-sendmsg PORT | tfo-sendmmsg PORT
 *                                     TCP Fast Open: data to 127.0.0.1:PORT, no connect
 *   try-syscall tfo-connect PORT      TCP_FASTOPEN_CONNECT, then connect and send
 *   try-syscall sock FAMILY TYPE [PROTO]  socket(2): inet|inet6|unix|netlink|packet|
 *                                     vsock|smc, stream|dgram|raw|seqpacket, a number
 *   try-syscall socketpair FAMILY TYPE  the same through socketpair(2)
 *   try-syscall io-uring-connect PORT io_uring: an MPTCP socket connected to 127.0.0.1:PORT
 *   try-syscall udp-send PORT         UDP datagram to 127.0.0.1:PORT
 *   try-syscall socket inet|inet6|unix|netlink|packet
 *   try-syscall abstract NAME         connect to the abstract UNIX socket @NAME
 *   try-syscall kill PID | kill9 PID | ptrace PID | vmread PID
 *   try-syscall tiocsti               push "X" into the terminal on fd 0
 *   try-syscall fd N                  is fd N open?
 *   try-syscall ioctl FILE            TCGETS on FILE opened read-only
 *   try-syscall alloc MIB             allocate and touch MIB MiB
 *   try-syscall fork N                fork N children that sleep, count successes
 *   try-syscall caps                  print CapEff and CapBnd from /proc/self/status
 *   try-syscall setuid                setuid(0)
 *   try-syscall euid                  print "uid=N euid=N"
 *   try-syscall io-uring              io_uring_setup(2) with one entry
 *   try-syscall chmod|fchmod|fchmodat|fchmodat2 MODE FILE   set MODE (octal)
 *   try-syscall mknod|mknodat|open|openat|creat MODE FILE   create a plain FILE
 *                                     with MODE (umask 0; open and openat with
 *                                     O_CREAT, each through its own syscall)
 *   try-syscall tmpfile MODE DIR      O_TMPFILE with MODE in DIR, linked as DIR/tmpfile
 *   try-syscall openat2 FILE          openat2(2) FILE read-only
 *   try-syscall clone3                clone3(2) a child that exits at once
 *   try-syscall clone3-cgroup DIR     clone3(2) CLONE_INTO_CGROUP DIR; prints
 *                                     "ok in DIR" when the child was in it
 *   try-syscall unshare-user | clone-user   a new user namespace, each way
 *   try-syscall key-add DESC | key-find DESC | key-drop DESC
 *                                     a "user" key in the user keyring (@u)
 *   try-syscall lease FILE            a read lease on FILE; prints "ok", holds it
 *                                     until stdin reaches EOF
 *   try-syscall open-nb FILE          open FILE O_WRONLY|O_NONBLOCK (fails
 *                                     EWOULDBLOCK while someone holds a lease)
 *   try-syscall kill-all              kill(-1, 0): may this signal anything?
 *   try-syscall prlimit PID [N]       read (no N) or set the soft RLIMIT_NOFILE of PID
 *   try-syscall priority which|pgrp|user N  setpriority(2) PRIO_PROCESS/PGRP/USER,
 *                                     who 0, to nice N
 *   try-syscall spawn                 fork, pthread_create and posix_spawn(/bin/true)
 *   try-syscall i386-chmod MODE FILE  chmod through the i386 ABI (int 0x80; x86_64 only)
 *   try-syscall x32-chmod MODE FILE   chmod through the x32 ABI (x86_64 only)
 *   try-syscall list DIR              open DIR O_DIRECTORY and read its entries
 *   try-syscall exec FILE             execve(2) FILE with no arguments
 *   try-syscall unix-connect PATH     connect to the pathname UNIX socket PATH
 *   try-syscall own-trace PROGRAM [ARG...]  execute PROGRAM under a filter of
 *                                     our own whose SECCOMP_RET_TRACE rules name
 *                                     openat2, keyctl, add_key and socket
 *   try-syscall trace-child           fork a child and PTRACE_ATTACH to it (as gdb
 *                                     and strace do)
 *   try-syscall swap A B              while a second thread swaps the path
 *                                     between A and B, read A 2000 times;
 *                                     "leak" if B's content was ever read
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <spawn.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/io_uring.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <linux/keyctl.h>
#include "landlock-abi.h"
#include <linux/openat2.h>

#include "try.h"

#ifndef SYS_fchmodat2
# define SYS_fchmodat2 452
#endif
#ifndef AF_VSOCK
# define AF_VSOCK 40
#endif
#ifndef AF_SMC
# define AF_SMC 43
#endif
#define CLONE_INTO_CGROUP_ 0x200000000ULL

extern char **environ;

/* struct clone_args of <linux/sched.h> (up to CLONE_ARGS_SIZE_VER2), which
 * does not mix with <sched.h>. */
struct clone3_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack,
		stack_size, tls, set_tid, set_tid_size, cgroup;
};

static int proto(const char *name)
{
	if (!name || !strcmp(name, "tcp"))
		return 0;
	if (!strcmp(name, "mptcp"))
		return IPPROTO_MPTCP;
	if (!strcmp(name, "sctp"))
		return IPPROTO_SCTP;
	return atoi(name);
}

static int family(const char *a)
{
	return !strcmp(a, "inet") ? AF_INET : !strcmp(a, "inet6") ? AF_INET6 :
		!strcmp(a, "unix") ? AF_UNIX : !strcmp(a, "netlink") ? AF_NETLINK :
		!strcmp(a, "packet") ? AF_PACKET : !strcmp(a, "vsock") ? AF_VSOCK :
		!strcmp(a, "smc") ? AF_SMC : -1;
}

static int socktype(const char *a)
{
	return !strcmp(a, "stream") ? SOCK_STREAM : !strcmp(a, "dgram") ? SOCK_DGRAM :
		!strcmp(a, "raw") ? SOCK_RAW : !strcmp(a, "seqpacket") ? SOCK_SEQPACKET : -1;
}

static void *thread(void *arg)
{
	return arg;
}

/* fork, a thread and posix_spawn: what clone3 returning ENOSYS must not
 * break in the C library. */
static int spawn(void)
{
	char arg0[] = "true", *args[] = { arg0, NULL };
	pthread_t t;
	pid_t pid;
	int st;

	pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || st != 0)
		return result(-1);
	if ((errno = pthread_create(&t, NULL, thread, NULL)) != 0 ||
	    (errno = pthread_join(t, NULL)) != 0)
		return result(-1);
	if ((errno = posix_spawn(&pid, "/bin/true", NULL, NULL, args, environ)) != 0 ||
	    waitpid(pid, &st, 0) != pid || st != 0)
		return result(-1);
	return result(0);
}

/* One SQE through a fresh io_uring: socket(2) and connect(2) done in the
 * kernel, where no seccomp filter sees them. */
static int uring_connect(const char *port)
{
	struct io_uring_params pr;
	struct sockaddr_in sa = { 0 };
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	unsigned *tail, *head, *array, mask;
	char *sq, *cq;
	int ring, sock = -1, step;

	memset(&pr, 0, sizeof pr);
	ring = (int)syscall(SYS_io_uring_setup, 4, &pr);
	if (ring < 0)
		return result(-1);
	sq = mmap(NULL, pr.sq_off.array + pr.sq_entries * sizeof(unsigned),
	          PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQ_RING);
	cq = mmap(NULL, pr.cq_off.cqes + pr.cq_entries * sizeof(struct io_uring_cqe),
	          PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_CQ_RING);
	sqe = mmap(NULL, pr.sq_entries * sizeof *sqe, PROT_READ | PROT_WRITE,
	           MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqe == MAP_FAILED)
		return result(-1);
	sa.sin_family = AF_INET;
	sa.sin_port = htons((unsigned short)atoi(port));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (step = 0; step < 2; step++) {
		memset(sqe, 0, sizeof *sqe);
		if (step == 0) {
			sqe->opcode = IORING_OP_SOCKET;
			sqe->fd = AF_INET;
			sqe->off = SOCK_STREAM;
			sqe->len = IPPROTO_MPTCP;
		} else {
			sqe->opcode = IORING_OP_CONNECT;
			sqe->fd = sock;
			sqe->addr = (uint64_t)(uintptr_t)&sa;
			sqe->off = sizeof sa;
		}
		tail = (unsigned *)(sq + pr.sq_off.tail);
		mask = *(unsigned *)(sq + pr.sq_off.ring_mask);
		array = (unsigned *)(sq + pr.sq_off.array);
		array[*tail & mask] = 0;
		__atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
		if (syscall(SYS_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
			return result(-1);
		head = (unsigned *)(cq + pr.cq_off.head);
		cqe = (struct io_uring_cqe *)(cq + pr.cq_off.cqes) +
			(*head & *(unsigned *)(cq + pr.cq_off.ring_mask));
		if (cqe->res < 0) {
			errno = -cqe->res;
			return result(-1);
		}
		sock = cqe->res;
		__atomic_store_n(head, *head + 1, __ATOMIC_RELEASE);
	}
	return result(0);
}

/* TCP Fast Open to 127.0.0.1:PORT: the SYN carries the data, and the
 * kernel connects from inside the send call. */
static int fastopen(const char *how, const char *port)
{
	struct sockaddr_in sa = loopback(port);
	char data[] = "fastopen\n";
	struct iovec iov = { data, sizeof data - 1 };
	struct msghdr msg = { &sa, sizeof sa, &iov, 1, NULL, 0, 0 };
	struct mmsghdr mm = { msg, 0 };
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	if (fd < 0)
		return result(-1);
	if (!strcmp(how, "tfo-sendto"))
		return result((int)sendto(fd, data, sizeof data - 1, MSG_FASTOPEN,
		                          (struct sockaddr *)&sa, sizeof sa));
	if (!strcmp(how, "tfo-sendmsg"))
		return result((int)sendmsg(fd, &msg, MSG_FASTOPEN));
	if (!strcmp(how, "tfo-sendmmsg"))
		return result(sendmmsg(fd, &mm, 1, MSG_FASTOPEN));
	if (setsockopt(fd, IPPROTO_TCP, TCP_FASTOPEN_CONNECT, &one, sizeof one) < 0 ||
	    connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0)
		return result(-1);
	return result((int)write(fd, data, sizeof data - 1));
}

static long key_find(const char *desc)
{
	return syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_USER_KEYRING, "user", desc, 0);
}

/* Modes and creation through each syscall that carries a mode. */
static int mode_op(const char *op, const char *m, const char *path)
{
	mode_t mode = (mode_t)strtoul(m, NULL, 8);
	int fd;

	umask(0);
	if (!strcmp(op, "chmod"))
#ifdef SYS_chmod
		return result((int)syscall(SYS_chmod, path, mode));
#else
		return result((int)syscall(SYS_fchmodat, AT_FDCWD, path, mode));
#endif
	if (!strcmp(op, "fchmod")) {
		fd = open(path, O_RDONLY);
		return result(fd < 0 ? -1 : (int)syscall(SYS_fchmod, fd, mode));
	}
	if (!strcmp(op, "fchmodat"))
		return result((int)syscall(SYS_fchmodat, AT_FDCWD, path, mode));
	if (!strcmp(op, "fchmodat2"))
		return result((int)syscall(SYS_fchmodat2, AT_FDCWD, path, mode, 0));
	if (!strcmp(op, "mknod"))
#ifdef SYS_mknod
		return result((int)syscall(SYS_mknod, path, S_IFREG | mode, 0));
#else
		return result((int)syscall(SYS_mknodat, AT_FDCWD, path, S_IFREG | mode, 0));
#endif
	if (!strcmp(op, "mknodat"))
		return result((int)syscall(SYS_mknodat, AT_FDCWD, path, S_IFREG | mode, 0));
	if (!strcmp(op, "open"))
#ifdef SYS_open
		return result((int)syscall(SYS_open, path, O_WRONLY | O_CREAT | O_EXCL, mode));
#else
		return result((int)syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT | O_EXCL, mode));
#endif
	if (!strcmp(op, "openat"))
		return result((int)syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT | O_EXCL, mode));
	if (!strcmp(op, "creat"))
#ifdef SYS_creat
		return result((int)syscall(SYS_creat, path, mode));
#else
		return result((int)syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC, mode));
#endif
#ifdef __x86_64__
	if (!strcmp(op, "i386-chmod")) {
		/* int 0x80 takes 32-bit pointers: the path goes below 4 GiB. */
		char *low = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
		long rc = 15; /* __NR_chmod on i386 */
		if (low == MAP_FAILED)
			return result(-1);
		snprintf(low, 4096, "%s", path);
		__asm__ volatile ("int $0x80" : "+a"(rc) : "b"(low), "c"(mode) : "r8", "r9", "r10", "r11", "memory");
		if (rc < 0 && rc > -4096) {
			errno = (int)-rc;
			return result(-1);
		}
		return result(0);
	}
	if (!strcmp(op, "x32-chmod"))
		return result((int)syscall(SYS_chmod | 0x40000000, path, mode));
#endif
	if (!strcmp(op, "tmpfile")) {
		char proc[64], name[4096];
		fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_TMPFILE | O_WRONLY, mode);
		if (fd < 0)
			return result(-1);
		snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
		snprintf(name, sizeof name, "%s/tmpfile", path);
		return result(linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW));
	}
	return 2;
}

/* swap: the path a second thread keeps rewriting under the opener. */
static char swap_path[PATH_MAX];
static const char *swap_a, *swap_b;
static volatile int swap_done, swap_running;

static void *swapper(void *unused)
{
	(void)unused;
	swap_running = 1;
	while (!swap_done) {
		strcpy(swap_path, swap_b);
		strcpy(swap_path, swap_a);
	}
	return NULL;
}

static int swap_race(const char *a, const char *b)
{
	char want[64] = "", got[64];
	pthread_t t;
	int fd, leak = 0;
	ssize_t n;

	if (strlen(a) >= sizeof swap_path || strlen(b) >= sizeof swap_path)
		return 2;
	if ((fd = open(a, O_RDONLY)) < 0)
		return result(-1);
	n = read(fd, want, sizeof want - 1);
	close(fd);
	want[n > 0 ? n : 0] = '\0';
	swap_a = a;
	swap_b = b;
	strcpy(swap_path, a);
	if ((errno = pthread_create(&t, NULL, swapper, NULL)) != 0)
		return result(-1);
	/* Only once the swapper runs: a thread whose start a loaded machine
	 * (or a slow tracer) delays would otherwise race nothing. */
	while (!swap_running)
		syscall(SYS_sched_yield);
	for (int i = 0; i < 2000; i++) {
		if ((fd = open(swap_path, O_RDONLY)) < 0)
			continue;
		n = read(fd, got, sizeof got - 1);
		close(fd);
		got[n > 0 ? n : 0] = '\0';
		if (strcmp(got, want))
			leak = 1;
	}
	swap_done = 1;
	pthread_join(t, NULL);
	printf("%s\n", leak ? "leak" : "ok");
	return leak;
}

int main(int argc, char **argv)
{
	const char *op = argc > 1 ? argv[1] : "";
	const char *a = argc > 2 ? argv[2] : NULL;
	const char *b = argc > 3 ? argv[3] : NULL;
	int fd;

	/* The kernel's answer to a query: its ABI, or its errata bitmask. */
	if (!strcmp(op, "landlock-abi") || !strcmp(op, "landlock-errata")) {
		long v = syscall(SYS_landlock_create_ruleset, NULL, 0,
		                 strcmp(op, "landlock-abi") ? LANDLOCK_CREATE_RULESET_ERRATA
		                                            : LANDLOCK_CREATE_RULESET_VERSION);
		if (v < 0)
			return result(-1);
		printf("%ld\n", v);
		return 0;
	}
	if (!strcmp(op, "caps")) {
		char line[256];
		FILE *f = fopen("/proc/self/status", "r");
		if (!f)
			return result(-1);
		while (fgets(line, sizeof line, f))
			if (!strncmp(line, "Cap", 3) || !strncmp(line, "NoNewPrivs", 10) ||
			    !strncmp(line, "Seccomp:", 8))
				fputs(line, stdout);
		return 0;
	}
	if (!strcmp(op, "setuid"))
		return result(setuid(0));
	if (!strcmp(op, "euid")) {
		printf("uid=%lu euid=%lu\n", (unsigned long)getuid(), (unsigned long)geteuid());
		return 0;
	}
	if (!strcmp(op, "io-uring")) {
		long params[16] = { 0 }; /* >= sizeof(struct io_uring_params) */
		return result((int)syscall(SYS_io_uring_setup, 1, params));
	}
	if (!strcmp(op, "clone3")) {
		struct clone3_args ca = { 0 };
		long pid;
		ca.exit_signal = SIGCHLD;
		pid = syscall(SYS_clone3, &ca, sizeof ca);
		if (pid == 0)
			_exit(0);
		if (pid > 0)
			waitpid((pid_t)pid, NULL, 0);
		return result(pid < 0 ? -1 : 0);
	}
	if (!strcmp(op, "unshare-user"))
		return result(unshare(CLONE_NEWUSER));
	if (!strcmp(op, "clone-user")) {
		long pid = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, NULL, NULL, NULL, NULL);
		if (pid == 0)
			_exit(0);
		if (pid > 0)
			waitpid((pid_t)pid, NULL, 0);
		return result(pid < 0 ? -1 : 0);
	}
	if (!strcmp(op, "kill-all"))
		return result(kill(-1, 0));
	if (!strcmp(op, "own-trace") && a) {
		long nrs[] = { SYS_openat2, SYS_keyctl, SYS_add_key, SYS_socket };
		struct sock_filter f[] = {
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (__u32)nrs[0], 4, 0),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (__u32)nrs[1], 3, 0),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (__u32)nrs[2], 2, 0),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (__u32)nrs[3], 1, 0),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE),
		};
		struct sock_fprog prog = { sizeof f / sizeof *f, f };
		if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0)
			return result(-1);
		execv(a, argv + 2);
		return result(-1);
	}
	if (!strcmp(op, "trace-child")) {
		pid_t kid = fork();
		int r;
		if (kid == 0) {
			pause();
			_exit(0);
		}
		r = kid < 0 ? -1 : (int)ptrace(PTRACE_ATTACH, kid, NULL, NULL);
		if (kid > 0)
			kill(kid, SIGKILL);
		return result(r);
	}
	if (!strcmp(op, "spawn"))
		return spawn();
	if (!a)
		goto usage;
	if (!strcmp(op, "chmod") || !strcmp(op, "fchmod") || !strcmp(op, "fchmodat") ||
	    !strcmp(op, "fchmodat2") || !strcmp(op, "mknod") || !strcmp(op, "mknodat") ||
	    !strcmp(op, "open") || !strcmp(op, "openat") || !strcmp(op, "creat") ||
	    !strcmp(op, "tmpfile") || !strcmp(op, "i386-chmod") || !strcmp(op, "x32-chmod")) {
		if (!b)
			goto usage;
		return mode_op(op, a, b);
	}
	if (!strcmp(op, "openat2")) {
		struct open_how how = { O_RDONLY, 0, 0 };
		return result((int)syscall(SYS_openat2, AT_FDCWD, a, &how, sizeof how));
	}
	if (!strcmp(op, "clone3-cgroup")) {
		struct clone3_args ca = { 0 };
		char procs[4096], buf[256], want[32];
		int p[2], in = 0;
		long pid;
		FILE *f;
		ca.flags = CLONE_INTO_CGROUP_;
		ca.exit_signal = SIGCHLD;
		ca.cgroup = (uint64_t)open(a, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if ((int)ca.cgroup < 0 || pipe(p) < 0)
			return result(-1);
		pid = syscall(SYS_clone3, &ca, sizeof ca);
		if (pid == 0) {
			char c;
			close(p[1]);
			(void)read(p[0], &c, 1);
			_exit(0);
		}
		if (pid < 0)
			return result(-1);
		snprintf(procs, sizeof procs, "%s/cgroup.procs", a);
		snprintf(want, sizeof want, "%ld\n", pid);
		if ((f = fopen(procs, "r"))) {
			while (fgets(buf, sizeof buf, f))
				in |= !strcmp(buf, want);
			fclose(f);
		}
		close(p[1]);
		waitpid((pid_t)pid, NULL, 0);
		printf("ok%s\n", in ? " in DIR" : "");
		return 0;
	}
	if (!strcmp(op, "key-add")) {
		long id = syscall(SYS_add_key, "user", a, "secret", (size_t)6, KEY_SPEC_USER_KEYRING);
		return result(id < 0 ? -1 : 0);
	}
	if (!strcmp(op, "key-find"))
		return result(key_find(a) < 0 ? -1 : 0);
	if (!strcmp(op, "key-drop")) {
		long id = key_find(a);
		return result(id < 0 ? -1 : (int)syscall(SYS_keyctl, KEYCTL_INVALIDATE, id));
	}
	if (!strcmp(op, "lease")) {
		char c;
		fd = open(a, O_RDONLY);
		if (fd < 0 || fcntl(fd, F_SETLEASE, F_RDLCK) < 0)
			return result(-1);
		result(0);
		fflush(stdout);
		while (read(0, &c, 1) > 0)
			;
		return 0;
	}
	if (!strcmp(op, "open-nb"))
		return result(open(a, O_WRONLY | O_NONBLOCK));
	if (!strcmp(op, "prlimit")) {
		struct rlimit r;
		if (prlimit(atoi(a), RLIMIT_NOFILE, NULL, &r) < 0)
			return result(-1);
		if (!b) {
			printf("%lu\n", (unsigned long)r.rlim_cur);
			return 0;
		}
		r.rlim_cur = strtoul(b, NULL, 10);
		return result(prlimit(atoi(a), RLIMIT_NOFILE, &r, NULL));
	}
	if (!strcmp(op, "priority") && b) {
		int which = !strcmp(a, "pgrp") ? PRIO_PGRP : !strcmp(a, "user") ? PRIO_USER :
		            PRIO_PROCESS;
		return result(setpriority(which, 0, atoi(b)));
	}
	if (!strcmp(op, "tfo-sendto") || !strcmp(op, "tfo-sendmsg") ||
	    !strcmp(op, "tfo-sendmmsg") || !strcmp(op, "tfo-connect"))
		return fastopen(op, a);
	if (!strcmp(op, "io-uring-connect"))
		return uring_connect(a);
	if (!strcmp(op, "sock") || !strcmp(op, "socketpair")) {
		int sv[2], fam = family(a), type = b ? socktype(b) : -1;
		if (fam < 0 || type < 0)
			goto usage;
		if (!strcmp(op, "socketpair"))
			return result(socketpair(fam, type, 0, sv));
		return result(socket(fam, type | SOCK_CLOEXEC, proto(argc > 4 ? argv[4] : NULL)));
	}
	if (!strcmp(op, "serve")) {
		struct sockaddr_in sa = loopback(a);
		fd = socket(AF_INET, SOCK_STREAM, proto(b));
		if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, 4) < 0)
			return result(-1);
		result(0);
		fflush(stdout);
		alarm(20);
		if (accept(fd, NULL, NULL) < 0)
			return result(-1);
		printf("accepted\n");
		return 0;
	}
	if (!strcmp(op, "read")) {
		char buf[64];
		fd = open(a, O_RDONLY);
		return result(fd < 0 ? -1 : (int)read(fd, buf, sizeof buf));
	}
	if (!strcmp(op, "write")) {
		fd = open(a, O_WRONLY | O_APPEND);
		return result(fd < 0 ? -1 : (int)write(fd, "x", 1));
	}
	if (!strcmp(op, "create"))
		return result(open(a, O_WRONLY | O_CREAT | O_EXCL, 0644));
	if (!strcmp(op, "unlink"))
		return result(unlink(a));
	if (!strcmp(op, "truncate"))
		return result(truncate(a, 0));
	if (!strcmp(op, "mkdir"))
		return result(mkdir(a, 0755));
	if (!strcmp(op, "rename") && b)
		return result(rename(a, b));
	if (!strcmp(op, "link") && b)
		return result(link(a, b));
	if (!strcmp(op, "connect") || !strcmp(op, "bind")) {
		struct sockaddr_in sa = loopback(a);
		fd = socket(AF_INET, SOCK_STREAM, proto(b));
		if (fd < 0)
			return result(-1);
		if (op[0] == 'c')
			return result(connect(fd, (struct sockaddr *)&sa, sizeof sa));
		return result(bind(fd, (struct sockaddr *)&sa, sizeof sa));
	}
	if (!strcmp(op, "udp-send")) {
		struct sockaddr_in sa = loopback(a);
		fd = socket(AF_INET, SOCK_DGRAM, 0);
		if (fd < 0)
			return result(-1);
		return result((int)sendto(fd, "ping\n", 5, 0, (struct sockaddr *)&sa, sizeof sa));
	}
	if (!strcmp(op, "socket")) {
		int fam = !strcmp(a, "inet") ? AF_INET : !strcmp(a, "inet6") ? AF_INET6 :
		          !strcmp(a, "unix") ? AF_UNIX : !strcmp(a, "netlink") ? AF_NETLINK :
		          !strcmp(a, "packet") ? AF_PACKET : -1;
		int type = fam == AF_NETLINK || fam == AF_PACKET ? SOCK_RAW : SOCK_STREAM;
		return result(socket(fam, type, 0));
	}
	if (!strcmp(op, "abstract")) {
		struct sockaddr_un su;
		socklen_t len;
		memset(&su, 0, sizeof su);
		su.sun_family = AF_UNIX;
		strncpy(su.sun_path + 1, a, sizeof su.sun_path - 2);
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(a));
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (fd < 0)
			return result(-1);
		return result(connect(fd, (struct sockaddr *)&su, len));
	}
	if (!strcmp(op, "kill"))
		return result(kill(atoi(a), SIGTERM));
	if (!strcmp(op, "kill9"))
		return result(kill(atoi(a), SIGKILL));
	if (!strcmp(op, "ptrace"))
		return result((int)ptrace(PTRACE_ATTACH, atoi(a), NULL, NULL));
	if (!strcmp(op, "vmread")) {
		/* EPERM before the address is looked at; EFAULT: allowed. */
		char c;
		struct iovec l = { &c, 1 }, r = { (void *)0x10000, 1 };
		return result((int)process_vm_readv(atoi(a), &l, 1, &r, 1, 0));
	}
	if (!strcmp(op, "ioctl")) {
		/* Landlock's IOCTL_DEV answers EACCES before the driver can
		 * say ENOTTY; room enough for any struct termios. */
		char t[128];
		fd = open(a, O_RDONLY);
		return result(fd < 0 ? -1 : ioctl(fd, TCGETS, t));
	}
	if (!strcmp(op, "fd"))
		return result(fcntl(atoi(a), F_GETFD));
	if (!strcmp(op, "alloc")) {
		size_t n = (size_t)atol(a) << 20;
		char *p = malloc(n);
		if (!p)
			return result(-1);
		for (size_t i = 0; i < n; i += 4096)
			p[i] = 1;
		return result(0);
	}
	if (!strcmp(op, "fork")) {
		int n = atoi(a), made = 0;
		pid_t *kids = calloc((size_t)n + 1, sizeof *kids);
		for (int i = 0; kids && i < n; i++) {
			pid_t pid = fork();
			if (pid == 0) {
				pause();
				_exit(0);
			}
			if (pid > 0)
				kids[made++] = pid;
		}
		printf("forked %d of %d\n", made, n);
		for (int i = 0; i < made; i++)
			kill(kids[i], SIGKILL);
		while (wait(NULL) > 0)
			;
		return 0;
	}
	if (!strcmp(op, "list")) {
		char buf[4096];
		fd = open(a, O_RDONLY | O_DIRECTORY);
		return result(fd < 0 ? -1 : (int)syscall(SYS_getdents64, fd, buf, sizeof buf));
	}
	if (!strcmp(op, "exec")) {
		char *args[] = { (char *)a, NULL };
		return result(execv(a, args));
	}
	if (!strcmp(op, "unix-connect")) {
		struct sockaddr_un su = { .sun_family = AF_UNIX };
		strncpy(su.sun_path, a, sizeof su.sun_path - 1);
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		return result(fd < 0 ? -1 : connect(fd, (struct sockaddr *)&su, sizeof su));
	}
	if (!strcmp(op, "swap") && b)
		return swap_race(a, b);
usage:
	if (!strcmp(op, "tiocsti")) {
		char c = 'X';
		return result(ioctl(0, TIOCSTI, &c));
	}
	fprintf(stderr, "try-syscall: unknown operation %s\n", op);
	return 2;
}
