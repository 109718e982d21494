/* try-syscall: attempt one thing from inside the chain and report how it
 * went, for the confinement tests. Prints "ok" or "refused: <errno text>"
 * and exits 0 when it was done, 1 when it was refused, 2 on usage errors.
 *
 *   try-syscall landlock-abi          print the Landlock ABI (exit 1 if none)
 *   try-syscall read FILE | write FILE | create FILE | unlink FILE
 *   try-syscall truncate FILE | mkdir DIR | rename A B | link A B
 *   try-syscall connect PORT          TCP connect to 127.0.0.1:PORT
 *   try-syscall bind PORT             TCP bind to 127.0.0.1:PORT
 *   try-syscall udp-send PORT         UDP datagram to 127.0.0.1:PORT
 *   try-syscall socket inet|inet6|unix|netlink|packet
 *   try-syscall abstract NAME         connect to the abstract UNIX socket @NAME
 *   try-syscall kill PID | ptrace PID
 *   try-syscall tiocsti               push "X" into the terminal on fd 0
 *   try-syscall fd N                  is fd N open?
 *   try-syscall ioctl FILE            TCGETS on FILE opened read-only
 *   try-syscall alloc MIB             allocate and touch MIB MiB
 *   try-syscall fork N                fork N children that sleep, count successes
 *   try-syscall caps                  print CapEff and CapBnd from /proc/self/status
 *   try-syscall io-uring              io_uring_setup(2) with one entry
 */
#include <errno.h>
#include <fcntl.h>
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
#include <unistd.h>
#include <linux/landlock.h>

static int result(int rc)
{
	if (rc < 0) {
		printf("refused: %s\n", strerror(errno));
		return 1;
	}
	printf("ok\n");
	return 0;
}

static struct sockaddr_in lo(const char *port)
{
	struct sockaddr_in sa;

	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_port = htons((unsigned short)atoi(port));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return sa;
}

int main(int argc, char **argv)
{
	const char *op = argc > 1 ? argv[1] : "";
	const char *a = argc > 2 ? argv[2] : NULL;
	const char *b = argc > 3 ? argv[3] : NULL;
	int fd;

	if (!strcmp(op, "landlock-abi")) {
		long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
		                   LANDLOCK_CREATE_RULESET_VERSION);
		if (abi < 1)
			return result(-1);
		printf("%ld\n", abi);
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
	if (!strcmp(op, "io-uring")) {
		long params[16] = { 0 }; /* >= sizeof(struct io_uring_params) */
		return result((int)syscall(SYS_io_uring_setup, 1, params));
	}
	if (!a)
		goto usage;
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
		struct sockaddr_in sa = lo(a);
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0)
			return result(-1);
		if (op[0] == 'c')
			return result(connect(fd, (struct sockaddr *)&sa, sizeof sa));
		return result(bind(fd, (struct sockaddr *)&sa, sizeof sa));
	}
	if (!strcmp(op, "udp-send")) {
		struct sockaddr_in sa = lo(a);
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
	if (!strcmp(op, "ptrace"))
		return result((int)ptrace(PTRACE_ATTACH, atoi(a), NULL, NULL));
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
usage:
	if (!strcmp(op, "tiocsti")) {
		char c = 'X';
		return result(ioctl(0, TIOCSTI, &c));
	}
	fprintf(stderr, "try-syscall: unknown operation %s\n", op);
	return 2;
}
