/* sharness-exec-egress: the egress step. It stays in the caller's network
 * namespace and serves, on one TCP listener made inside the run's own
 * (-f, or -d: received over a UNIX socket), HTTP CONNECT and SOCKS5
 * CONNECT with a name, to the hosts and ports of its allow list (-a) and
 * nothing else: a name not listed is refused before anything resolves it;
 * a listed one is resolved here, once, every address checked
 * (addr_internal, the host's own), and the connection goes to an address
 * that was checked. On a TLS connection the ClientHello's server name must
 * be the name asked for. One line a connection goes to -o. It confines
 * itself before it accepts: no_new_privs, no capabilities, Landlock (no
 * file but the resolver's, no exec, TCP connect only to the listed ports,
 * bind to none) and the landlock step's seccomp filter with the object
 * form's socket allowlist. Each connection is a child of its own, its
 * request, resolution, connect and first bytes bounded in time (-i).
 * Exit: 125 usage, 126 could not confine. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#include <netinet/tcp.h>

#include "common.h"
#include "egress.h"
#include "helper.h"
#include "landlock-abi.h"
#include "rights.h"
#include "seccomp.h"
#include "statuspipe.h"

const char *progname = "sharness-exec-egress";

#define USAGE "sharness-exec-egress [-bt] [-E FD] -a HOST:PORT... (-f FD | -d FD | [-l PORT] [-W FD] " \
	"[-X] [--to-report FD] [--] PROGRAM [ARG...]) [-o FD] [--max MAX] [-i SECONDS]"

/* -i: for a connection's request, resolution, connect and first flight */
static unsigned long handshake_s = 10;

static struct allow *allow;
static size_t nallow;
static struct own { int family; unsigned char addr[16]; } *own;
static size_t nown;
static int out = -1;		/* -o: a line a connection */
static int out_step = -1;	/* in the chain: the same line, to the step */
static int out_report = -1;	/* --to-report: and to the supervisor's report */

/* One line to -o in one write(2) (the file may be shared, O_APPEND). */
static void say(const char *fmt, ...) PRINTF(1, 2);
static void say(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	if (out < 0 && out_step < 0 && out_report < 0)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof line - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof line - 2)
		n = sizeof line - 2;
	line[n++] = '\n';
	if (out >= 0)
		(void)!write(out, line, (size_t)n);
	if (out_step >= 0)
		(void)!write(out_step, line, (size_t)n);
	if (out_report >= 0)
		(void)!write(out_report, line, (size_t)n);
}

/* A mark of the server's (egresstally.h), for the step and the report:
 * "open\n" or "idle\n", not a connection's line (-o has none). */
static void mark(const char *m)
{
	if (out_step >= 0)
		(void)!write(out_step, m, 5);
	if (out_report >= 0)
		(void)!write(out_report, m, 5);
}

static void on_alarm(int sig)
{
	(void)sig;
	static const char line[] = "refused - -: no request, resolution, connect and "
		"first bytes in time\n";

	if (out >= 0)
		(void)!write(out, line, sizeof line - 1);
	if (out_step >= 0)
		(void)!write(out_step, line, sizeof line - 1);
	if (out_report >= 0)
		(void)!write(out_report, line, sizeof line - 1);
	_exit(0);
}

/* The listener FD: a listening TCP socket without SO_REUSEPORT (a target
 * of the same uid could join its group and take connections). */
static void check_listener(int fd)
{
	int v = 0, dom = 0, type = 0;
	socklen_t len = sizeof v;

	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &v, &len) < 0 || !v ||
	    getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &len) < 0 ||
	    (dom != AF_INET && dom != AF_INET6) ||
	    getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) < 0 || type != SOCK_STREAM)
		diex(EXIT_CONFINE, "descriptor %d is not a listening TCP socket", fd);
	if (getsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &v, &len) < 0 || v)
		diex(EXIT_CONFINE, "the listener has SO_REUSEPORT: a process of the same uid "
		     "could join it and take its connections");
}

/* The one descriptor sent over the UNIX socket FD (SCM_RIGHTS). */
static int receive_listener(int fd)
{
	char byte, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &byte, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
	                    .msg_controllen = sizeof cbuf };
	struct cmsghdr *c;
	int l;

	if (recvmsg(fd, &m, MSG_CMSG_CLOEXEC) != 1 || (m.msg_flags & MSG_CTRUNC) ||
	    !(c = CMSG_FIRSTHDR(&m)) || c->cmsg_level != SOL_SOCKET ||
	    c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof(int)))
		diex(EXIT_CONFINE, "no listener came over descriptor %d", fd);
	memcpy(&l, CMSG_DATA(c), sizeof l);
	close(fd);
	return l;
}

/* The host's own addresses, which no name may lead to unless listed. */
static void own_addresses(void)
{
	struct ifaddrs *ifa, *i;

	if (getifaddrs(&ifa) < 0)
		die(EXIT_CONFINE, "unable to list this host's addresses");
	for (i = ifa; i; i = i->ifa_next) {
		int f = i->ifa_addr ? i->ifa_addr->sa_family : 0;
		if (f != AF_INET && f != AF_INET6)
			continue;
		if (!(own = reallocarray(own, nown + 1, sizeof *own)))
			diex(EXIT_CONFINE, "out of memory");
		own[nown].family = f;
		memcpy(own[nown++].addr, f == AF_INET ?
		       (void *)&((struct sockaddr_in *)i->ifa_addr)->sin_addr :
		       (void *)&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr,
		       f == AF_INET ? 4 : 16);
	}
	freeifaddrs(ifa);
}

/* --- one connection --- */

static int is_own(int family, const unsigned char *addr)
{
	for (size_t i = 0; i < nown; i++)
		if (own[i].family == family && !memcmp(own[i].addr, addr, family == AF_INET ? 4 : 16))
			return 1;
	return 0;
}

/* Read into BUF (holding *LEN bytes, at most CAP) once. */
static int more(int fd, unsigned char *buf, size_t *len, size_t cap)
{
	ssize_t n;

	if (*len >= cap)
		return -1;
	while ((n = read(fd, buf + *len, cap - *len)) < 0 && errno == EINTR)
		;
	if (n <= 0)
		return -1;
	*len += (size_t)n;
	return 0;
}

/* The answer sent, C's bytes still coming are read and dropped until the
 * client closes (within the handshake's alarm): closed with bytes unread,
 * C would be reset, and the client might lose the answer. */
static NORETURN void linger_close(int c)
{
	static char sink[4096];

	ssize_t n;

	shutdown(c, SHUT_WR);
	while ((n = read(c, sink, sizeof sink)) > 0 || (n < 0 && errno == EINTR))
		;
	_exit(0);
}

static void http_reply(int c, int status, const char *text)
{
	char head[128];
	int n = snprintf(head, sizeof head, "HTTP/1.1 %d %s\r\nContent-Length: 0\r\n"
	                 "Connection: close\r\n\r\n", status, text);

	(void)!write_all(c, head, (size_t)n);
}

static void socks_reply(int c, int code)
{
	unsigned char r[10] = { 5, (unsigned char)code, 0, 1, 0, 0, 0, 0, 0, 0 };

	(void)!write_all(c, r, sizeof r);
}

/* Refuse R's request on C: the protocol's answer, and the line. */
static NORETURN void refuse(int c, const struct request *r, int http, int socks,
                            const char *why)
{
	if (r->socks)
		socks_reply(c, socks);
	else
		http_reply(c, http, http == 403 ? "Forbidden" : http == 502 ? "Bad Gateway" :
		           http == 405 ? "Method Not Allowed" :
		           http == 431 ? "Request Header Fields Too Large" : "Bad Request");
	say("refused %s:%u: %s", *r->host ? q(r->host) : "-", r->port, why);
	linger_close(c);
}

/* The request on C, read whole, into R; what follows it in BUF. */
static void read_request(int c, struct request *r, unsigned char *buf, size_t *len)
{
	struct request g;
	int st;

	*len = 0;
	if (more(c, buf, len, EGRESS_HEAD_MAX) < 0)
		_exit(0);
	if (buf[0] == 4 || buf[0] == 5) {
		while ((st = socks_greeting(buf, *len, &g)) == REQ_MORE)
			if (more(c, buf, len, EGRESS_HEAD_MAX) < 0)
				_exit(0);
		if (st == REQ_BAD) {
			if (buf[0] == 4) {
				unsigned char no[8] = { 0, 0x5b };
				(void)!write_all(c, no, sizeof no);
			} else
				(void)!write_all(c, "\5\377", 2);
			say("refused - -: %s", g.why);
			linger_close(c);
		}
		(void)!write_all(c, "\5\0", 2);
		memmove(buf, buf + g.used, *len -= g.used);
		while ((st = socks_request(buf, *len, r)) == REQ_MORE)
			if (more(c, buf, len, EGRESS_HEAD_MAX) < 0)
				_exit(0);
		if (st == REQ_BAD)
			refuse(c, r, 400, r->status, r->why);
	} else {
		while ((st = http_request((char *)buf, *len, r)) == REQ_MORE)
			if (more(c, buf, len, EGRESS_HEAD_MAX) < 0)
				_exit(0);
		if (st == REQ_BAD)
			refuse(c, r, r->status, 1, r->why);
	}
	memmove(buf, buf + r->used, *len -= r->used);
}

/* A connected socket to one of the checked addresses of R, or refused. */
static int destination(int c, struct request *r)
{
	char name[EGRESS_NAME_MAX + 2], why[256], text[INET6_ADDRSTRLEN];
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL, *a;
	unsigned char lit[16];
	int literal, family, u = -1;
	const char *bad;

	snprintf(name, sizeof name, "%s", r->host);
	if (name_check(name, &literal, &family, lit, &bad) < 0) {
		if (!literal || !family || !allow_addr(allow, nallow, family, lit, r->port))
			refuse(c, r, 403, 2, literal ? "an IP address: only an address the "
			       "policy lists, in its plain form" : bad);
		hints.ai_flags = AI_NUMERICHOST;
		inet_ntop(family, lit, name, sizeof name);	/* no brackets */
	} else if (!allow_name(allow, nallow, name, r->port)) {
		int named = 0;
		for (size_t i = 0; i < nallow; i++)
			named |= allow_name(&allow[i], 1, name, allow[i].port) != NULL;
		refuse(c, r, 403, 2, named ? "the name is listed, not this port" :
		       "not listed");
	}
	if (getaddrinfo(name, NULL, &hints, &res) != 0 || !res)
		refuse(c, r, 502, 4, "the name does not resolve");
	/* Every address first: one bad one refuses the name. */
	for (a = res; a; a = a->ai_next) {
		int f = a->ai_family;
		const unsigned char *p = f == AF_INET ?
			(void *)&((struct sockaddr_in *)a->ai_addr)->sin_addr :
			(void *)&((struct sockaddr_in6 *)a->ai_addr)->sin6_addr;
		if (f != AF_INET && f != AF_INET6)
			continue;
		bad = addr_internal(f, p);
		if (!bad && is_own(f, p))
			bad = "an address of this host";
		if (bad && !allow_addr(allow, nallow, f, p, r->port)) {
			inet_ntop(f, p, text, sizeof text);
			snprintf(why, sizeof why, "resolves to %s, %s", text, bad);
			refuse(c, r, 403, 2, why);
		}
	}
	for (a = res; a && u < 0; a = a->ai_next) {
		if (a->ai_family != AF_INET && a->ai_family != AF_INET6)
			continue;
		((struct sockaddr_in *)a->ai_addr)->sin_port = htons((unsigned short)r->port);
		if ((u = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0)) >= 0 &&
		    connect(u, a->ai_addr, a->ai_addrlen) < 0) {
			close(u);
			u = -1;
		}
	}
	freeaddrinfo(res);
	if (u < 0)
		refuse(c, r, 502, 5, "no address of it accepts the connection");
	return u;
}

/* The client's first flight in BUF (LEN so far): a TLS hello must name
 * the host asked for. */
static void check_first(int c, const struct request *r, unsigned char *buf, size_t *len)
{
	char sni[EGRESS_NAME_MAX + 1], host[EGRESS_NAME_MAX + 2], why[512];
	const char *bad;
	int st, lit, fam;
	unsigned char a[16];

	snprintf(host, sizeof host, "%s", r->host);
	(void)name_check(host, &lit, &fam, a, &bad);	/* lower case, no dot */
	while ((st = sni_parse(buf, *len, sni, &bad)) == SNI_MORE)
		if (more(c, buf, len, EGRESS_HELLO_MAX + 5) < 0)
			_exit(0);
	if (st == SNI_BAD) {
		say("refused %s:%u: %s", q(r->host), r->port, bad);
		_exit(0);
	}
	if (st == SNI_NAME && strcmp(sni, host)) {
		snprintf(why, sizeof why, "its TLS hello names %s", q(sni));
		say("refused %s:%u: %s", q(r->host), r->port, why);
		_exit(0);
	}
}

/* Both ways until both ends are done; the bytes each way into UP, DOWN. */
static void relay(int c, int u, unsigned long long *up, unsigned long long *down)
{
	static char buf[65536];
	struct pollfd p[2] = { { c, POLLIN, 0 }, { u, POLLIN, 0 } };
	int open_ends = 2;

	while (open_ends) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		for (int i = 0; i < 2; i++) {
			ssize_t n;
			if (!p[i].revents)
				continue;
			n = read(p[i].fd, buf, sizeof buf);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				shutdown(p[!i].fd, SHUT_WR);
				p[i].fd = -1;
				open_ends--;
				continue;
			}
			if (write_all(p[!i].fd, buf, (size_t)n) < 0)
				return;
			*(i ? down : up) += (unsigned long long)n;
		}
	}
}

static NORETURN void serve(int c)
{
	static unsigned char buf[EGRESS_HELLO_MAX + 5 + EGRESS_HEAD_MAX];
	struct request r;
	unsigned long long up = 0, down = 0;
	size_t len;
	int u;

	signal(SIGALRM, on_alarm);
	alarm((unsigned)handshake_s);
	read_request(c, &r, buf, &len);
	u = destination(c, &r);
	if (r.socks)
		socks_reply(c, 0);
	else
		(void)!write_all(c, "HTTP/1.1 200 Connection established\r\n\r\n", 39);
	/* The first flight: what came with the request, or the next read. */
	if (!len && more(c, buf, &len, sizeof buf) < 0)
		_exit(0);
	check_first(c, &r, buf, &len);
	alarm(0);
	if (write_all(u, buf, len) < 0)
		_exit(0);
	up = len;
	relay(c, u, &up, &down);
	say("allowed %s:%u up=%llu down=%llu", q(r.host), r.port, up, down);
	_exit(0);
}

static void on_child(int sig)
{
	(void)sig;	/* ppoll returns: a connection's process ended */
}

/* Accept on L until killed, at most MAX connections at once, each served
 * by a process of its own. The marks: "open" as one is accepted; "idle"
 * once every one has ended (and been reaped: its line came before) and
 * none waits on L. SIGCHLD is taken only inside ppoll, so no end is
 * missed between the reaping and the wait. */
static NORETURN void accept_loop(int l, unsigned long max)
{
	struct sigaction sa = { .sa_handler = on_child };
	sigset_t chld, open_mask;
	unsigned long live = 0;
	pid_t server = getpid(), pid;
	int busy = 0, st, c;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &chld, &open_mask) < 0 || sigaction(SIGCHLD, &sa, NULL) < 0 ||
	    fcntl(l, F_SETFL, fcntl(l, F_GETFL) | O_NONBLOCK) < 0)
		die(EXIT_CONFINE, "unable to set up the egress server's loop");
	sigdelset(&open_mask, SIGCHLD);
	for (;;) {
		struct pollfd p = { l, POLLIN, 0 };

		while (live && (pid = waitpid(-1, &st, live >= max ? 0 : WNOHANG)) > 0)
			live--;
		if (busy && !live && poll(&p, 1, 0) == 0) {
			mark("idle\n");
			busy = 0;
		}
		if (ppoll(&p, 1, NULL, &open_mask) < 0 || !(p.revents & POLLIN))
			continue;
		if ((c = accept4(l, NULL, NULL, SOCK_CLOEXEC)) < 0) {
			if (errno == EINTR || errno == EAGAIN || errno == ECONNABORTED ||
			    errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
				continue;
			die(EXIT_CONFINE, "unable to accept on the listener");
		}
		mark("open\n");
		busy = 1;
		if ((pid = fork()) == 0) {
			/* A connection ends with the server: in the chain the
			 * step kills the server when the run ends. */
			if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != server)
				_exit(0);
			close(l);
			serve(c);
		}
		if (pid > 0)
			live++;
		close(c);
	}
}

int main(int argc, char **argv)
{
	unsigned long fd_l = 0, fd_d = 0, fd_o = 0, fd_r = 0, max = 128, port = EGRESS_PORT;
	int opt, test = 0, best = 0, l, explain = 0;
	const char *why;
	/* -n is the dry run in the launcher (DESIGN.md 1's table of letters) */
	static const struct option longopts[] = {
		{ "max", required_argument, NULL, 'n' }, { "help", no_argument, NULL, 'h' },
		{ "to-report", required_argument, NULL, 'R' }, { NULL, 0, NULL, 0 } };

	while ((opt = getopt_long(argc, argv, "+:hbta:f:d:o:i:l:E:W:X", longopts, NULL)) != -1)
		switch (opt) {
		case 'h':
			printf("usage: %s\n", USAGE);
			return 0;
		case 'b': best = 1; break;
		case 't': test = 1; break;
		case 'a':
			if (!(allow = reallocarray(allow, nallow + 1, sizeof *allow)))
				diex(EXIT_REFUSED, "out of memory");
			if (allow_parse(optarg, &allow[nallow++], &why) < 0)
				usage_fail(USAGE, "unable to parse -a %s: %s", qn(optarg), why);
			break;
		case 'f': fd_l = (unsigned long)parse_fd(optarg, 'f', 1 << 20, USAGE); break;
		case 'd': fd_d = (unsigned long)parse_fd(optarg, 'd', 1 << 20, USAGE); break;
		case 'o': fd_o = (unsigned long)parse_fd(optarg, 'o', 1 << 20, USAGE); break;
		case 'i':
			if (!parse_ulong(optarg, 1, 600, &handshake_s))
				usage_fail(USAGE, "unable to parse -i %s: not 1 to 600 seconds", qn(optarg));
			break;
		case 'l':
			if (!parse_ulong(optarg, 1, 65535, &port))
				usage_fail(USAGE, "unable to parse -l %s: not a port 1 to 65535", qn(optarg));
			break;
		case 'W': walls_fd(optarg, USAGE); break;
		case 'E': status_fd(optarg, USAGE); break;
		case 'X': explain = 1; break;
		case 'R':
			/* the server's alone: the run never holds it */
			if (!parse_ulong(optarg, 3, 1 << 20, &fd_r) ||
			    fcntl((int)fd_r, F_SETFD, FD_CLOEXEC) < 0)
				usage_fail(USAGE, "unable to use --to-report %s: not an open "
				           "descriptor above 2", qn(optarg));
			out_report = (int)fd_r;
			break;
		case 'n':
			if (!parse_ulong(optarg, 1, 4096, &max))
				usage_fail(USAGE, "unable to parse --max %s: not 1 to 4096", qn(optarg));
			break;
		default: usage_option(USAGE, opt, argv[optind - 1]);
		}
	if (!nallow)
		usage_fail(USAGE, "no -a HOST:PORT: nothing to serve");
	if (optind < argc && (fd_l || fd_d))
		usage_fail(USAGE, "-%c FD serves a listener it is given; with a PROGRAM the "
		           "step makes its own", fd_l ? 'f' : 'd');
	if (optind == argc && !fd_l == !fd_d)
		usage_fail(USAGE, "one of -f FD, -d FD and a PROGRAM");
	if (optind == argc && (explain || out_report >= 0))
		usage_fail(USAGE, "%s is the chain's: it needs a PROGRAM", explain ? "-X" :
		           "--to-report");
	out = fd_o ? (int)fd_o : -1;
	if (optind < argc) {
		/* In the chain: the run goes on, the server returns here. */
		if (test)
			check_line("would serve %zu allowed host%s on 127.0.0.1:%lu in the "
			           "run's network namespace, confined", nallow,
			           nallow == 1 ? "" : "s", port);
		l = receive_listener(egress_chain(argv + optind, (unsigned)port, explain,
		                                  &out_step, &out_report));
	} else {
		l = fd_l ? (int)fd_l : receive_listener((int)fd_d);
	}
	check_listener(l);
	if (test && optind == argc) {
		check_line("would serve %zu allowed host%s on descriptor %d, confined",
		           nallow, nallow == 1 ? "" : "s", l);
		return 0;
	}
	if (optind < argc) {
		int keep[] = { l, out, out_step, out_report };
		status_close();
		keep_only(keep, sizeof keep / sizeof *keep);
	}
	own_addresses();
	signal(SIGPIPE, SIG_IGN);
	confine_self(best, allow, nallow);
	accept_loop(l, max);
}
