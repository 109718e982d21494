/* try-ports: the attacker's side of tests/front/ports.bats, run inside the chain.
 *
 *   try-ports listen-unbound READY   TCP listen(2) with no bind(2); on success
 *                                    write the port it got to READY and serve
 *                                    one client ("served")
 *   try-ports listen-bound PORT READY  bind 127.0.0.1:PORT, listen, write
 *                                    PORT to READY, serve one client
 *   try-ports listen-unix PATH       AF_UNIX listen on PATH, connect to it
 *   try-ports connect PORT           TCP connect to 127.0.0.1:PORT
 *   try-ports udp-send PORT MSG      one datagram to 127.0.0.1:PORT
 *   try-ports udp-bind PORT          UDP bind to 127.0.0.1:PORT
 *   try-ports set-range LO HI        setsockopt(2) IP_LOCAL_PORT_RANGE on a
 *                                    TCP socket
 *   try-ports no-children            waitpid(-1, WNOHANG): "no child" when
 *                                    this process has none at all
 *
 * Prints "ok", "served" or "refused: STRERROR" (exit 0 or 1); a listen(2)
 * that worked where it must not prints "LISTENING on PORT" first. 2 on a
 * usage error or a failure of the harness itself. */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "try.h"

static unsigned port_of(int s)
{
	struct sockaddr_in a;
	socklen_t len = sizeof a;

	if (getsockname(s, (struct sockaddr *)&a, &len) < 0)
		return 0;
	return ntohs(a.sin_port);
}

/* Publish the port, then serve one client within 20 s. */
static int serve(int s, const char *ready)
{
	char tmp[4096];
	struct pollfd p = { s, POLLIN, 0 };
	FILE *f;
	int c;

	printf("LISTENING on %u\n", port_of(s));
	fflush(stdout);
	snprintf(tmp, sizeof tmp, "%s.tmp", ready);
	if (!(f = fopen(tmp, "w")) || fprintf(f, "%u\n", port_of(s)) < 0 ||
	    fclose(f) || rename(tmp, ready) < 0) {
		perror("try-ports: unable to publish the port");
		return 2;
	}
	if (poll(&p, 1, 20000) != 1 || (c = accept(s, NULL, NULL)) < 0) {
		printf("nobody came\n");
		return 1;
	}
	if (write(c, "served\n", 7) != 7)
		return 2;
	printf("served\n");
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a;
	struct sockaddr_un u;
	int s, c;

	if (argc == 2 && !strcmp(argv[1], "no-children")) {
		if (waitpid(-1, &c, WNOHANG) < 0 && errno == ECHILD) {
			printf("no child\n");
			return 0;
		}
		printf("a child\n");
		return 1;
	}
	if (argc == 4 && !strcmp(argv[1], "set-range")) {
		unsigned range = (unsigned)atoi(argv[2]) | (unsigned)atoi(argv[3]) << 16;
		s = socket(AF_INET, SOCK_STREAM, 0);
		if (s < 0 || setsockopt(s, SOL_IP, 51 /* IP_LOCAL_PORT_RANGE */, &range,
		                        sizeof range) < 0)
			return result(-1);
		return result(0);
	}
	if (argc < 3)
		goto usage;
	if (!strcmp(argv[1], "listen-unbound")) {
		s = socket(AF_INET, SOCK_STREAM, 0);
		if (s < 0 || listen(s, 4) < 0)
			return result(-1);
		return serve(s, argv[2]);
	}
	if (!strcmp(argv[1], "listen-bound") && argc == 4) {
		a = loopback(argv[2]);
		s = socket(AF_INET, SOCK_STREAM, 0);
		if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) < 0 || listen(s, 4) < 0)
			return result(-1);
		return serve(s, argv[3]);
	}
	if (!strcmp(argv[1], "listen-unix")) {
		memset(&u, 0, sizeof u);
		u.sun_family = AF_UNIX;
		snprintf(u.sun_path, sizeof u.sun_path, "%s", argv[2]);
		s = socket(AF_UNIX, SOCK_STREAM, 0);
		if (s < 0 || bind(s, (struct sockaddr *)&u, sizeof u) < 0 || listen(s, 4) < 0)
			return result(-1);
		c = socket(AF_UNIX, SOCK_STREAM, 0);
		if (c < 0 || connect(c, (struct sockaddr *)&u, sizeof u) < 0 ||
		    accept(s, NULL, NULL) < 0)
			return result(-1);
		return result(0);
	}
	if (!strcmp(argv[1], "connect")) {
		a = loopback(argv[2]);
		s = socket(AF_INET, SOCK_STREAM, 0);
		if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof a) < 0)
			return result(-1);
		return result(0);
	}
	if (!strcmp(argv[1], "udp-send") && argc == 4) {
		a = loopback(argv[2]);
		s = socket(AF_INET, SOCK_DGRAM, 0);
		if (s < 0 || sendto(s, argv[3], strlen(argv[3]), 0, (struct sockaddr *)&a,
		                    sizeof a) < 0)
			return result(-1);
		return result(0);
	}
	if (!strcmp(argv[1], "udp-bind")) {
		a = loopback(argv[2]);
		s = socket(AF_INET, SOCK_DGRAM, 0);
		if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) < 0)
			return result(-1);
		return result(0);
	}
usage:
	fprintf(stderr, "usage: try-ports listen-unbound READY | listen-bound PORT READY | "
	        "listen-unix PATH | connect PORT | udp-send PORT MSG | udp-bind PORT | "
	        "set-range LO HI | no-children\n");
	return 2;
}
