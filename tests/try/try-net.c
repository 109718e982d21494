/* try-net: a server and a client in one process, on the loopback of
 * wherever it runs, for the tests of "network": "none". Binds the server
 * (port 0: the kernel picks a free one), listens, connects the client, and
 * sends a line each way. Prints "ok" and exits 0 when both lines arrived,
 * else "refused: STEP: <errno text>" and exits 1; 2 on usage errors.
 *
 *   try-net tcp4 | tcp6 | udp4 | udp6   on 127.0.0.1 or ::1
 *   try-net unix PATH                   a pathname UNIX stream socket
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int fail(const char *step)
{
	printf("refused: %s: %s\n", step, strerror(errno));
	return 1;
}

/* Read exactly LEN bytes of WANT from FD. */
static int expect(int fd, const char *want, size_t len)
{
	char buf[64];
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = read(fd, buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EPIPE;
			return -1;
		}
		got += (size_t)n;
	}
	if (memcmp(buf, want, len)) {
		errno = EBADMSG;
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const char ping[] = "ping over loopback\n", pong[] = "pong over loopback\n";
	struct sockaddr_storage ss;
	struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;
	struct sockaddr_un *un = (struct sockaddr_un *)&ss;
	socklen_t len = sizeof ss;
	int srv, cli, acc, family, type, stream;
	const char *kind = argc > 1 ? argv[1] : "";

	memset(&ss, 0, sizeof ss);
	if ((!strcmp(kind, "tcp4") || !strcmp(kind, "udp4")) && argc == 2) {
		family = AF_INET;
		v4->sin_family = AF_INET;
		v4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		len = sizeof *v4;
	} else if ((!strcmp(kind, "tcp6") || !strcmp(kind, "udp6")) && argc == 2) {
		family = AF_INET6;
		v6->sin6_family = AF_INET6;
		v6->sin6_addr = in6addr_loopback;
		len = sizeof *v6;
	} else if (!strcmp(kind, "unix") && argc == 3 && strlen(argv[2]) < sizeof un->sun_path) {
		family = AF_UNIX;
		un->sun_family = AF_UNIX;
		strcpy(un->sun_path, argv[2]);
		len = sizeof *un;
	} else {
		fprintf(stderr, "usage: try-net tcp4|tcp6|udp4|udp6 | try-net unix PATH\n");
		return 2;
	}
	stream = kind[0] != 'u' || family == AF_UNIX;
	type = (stream ? SOCK_STREAM : SOCK_DGRAM) | SOCK_CLOEXEC;

	if ((srv = socket(family, type, 0)) < 0)
		return fail("socket");
	if (bind(srv, (struct sockaddr *)&ss, len) < 0)
		return fail("bind");
	if (stream && listen(srv, 1) < 0)
		return fail("listen");
	len = sizeof ss;
	if (getsockname(srv, (struct sockaddr *)&ss, &len) < 0)
		return fail("getsockname");
	if ((cli = socket(family, type, 0)) < 0)
		return fail("socket");
	/* A datagram client connects too: it then only hears the server. */
	if (connect(cli, (struct sockaddr *)&ss, len) < 0)
		return fail("connect");
	if (write(cli, ping, sizeof ping - 1) < 0)
		return fail("send");
	if (stream) {
		if ((acc = accept(srv, NULL, NULL)) < 0)
			return fail("accept");
		if (expect(acc, ping, sizeof ping - 1) < 0)
			return fail("receive");
		if (write(acc, pong, sizeof pong - 1) < 0)
			return fail("reply");
	} else {
		char buf[64];
		struct sockaddr_storage from;
		socklen_t flen = sizeof from;
		ssize_t n = recvfrom(srv, buf, sizeof buf, 0, (struct sockaddr *)&from, &flen);

		if (n < 0)
			return fail("receive");
		if ((size_t)n != sizeof ping - 1 || memcmp(buf, ping, (size_t)n)) {
			errno = EBADMSG;
			return fail("receive");
		}
		if (sendto(srv, pong, sizeof pong - 1, 0, (struct sockaddr *)&from, flen) < 0)
			return fail("reply");
	}
	if (expect(cli, pong, sizeof pong - 1) < 0)
		return fail("receive the reply");
	if (family == AF_UNIX && unlink(un->sun_path) < 0)
		return fail("unlink");
	printf("ok\n");
	return 0;
}
