/* run --explain: the socket calls that failed, and the calls the seccomp
 * filter itself refused (explain.h), beside explain.c's paths. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "explain.h"

#ifndef SYS_openat2
# define SYS_openat2 437
#endif

/* --- sockets --- */

/* The type of PID's socket FD (SOCK_STREAM when it cannot be told). */
static int socket_type(pid_t pid, int fd)
{
	int copy = fd_copy(pid, fd), type = SOCK_STREAM;
	socklen_t len = sizeof type;

	if (copy < 0)
		return SOCK_STREAM;
	if (getsockopt(copy, SOL_SOCKET, SO_TYPE, &type, &len) < 0)
		type = SOCK_STREAM;
	close(copy);
	return type;
}

/* connect(2) or bind(2) (BIND) of PID failed with ERR. */
void explain_socket(pid_t pid, const struct call *c, int err, const char *cwd, int bind)
{
	struct sockaddr_storage ss;
	socklen_t len = (socklen_t)c->args[2];
	char what[INET6_ADDRSTRLEN + 16], addr[INET6_ADDRSTRLEN], allow[128];
	char name[sizeof ((struct sockaddr_un *)0)->sun_path + 1], abs[PATH_MAX];
	const char *kind, *list, *path;
	unsigned port;
	int udp;

	memset(&ss, 0, sizeof ss);
	if (len > sizeof ss)
		len = sizeof ss;
	if (len < sizeof(sa_family_t) || observe_bytes(pid, c->args[1], &ss, len) < 0)
		return;
	if (ss.ss_family == AF_UNIX) {
		struct sockaddr_un *su = (struct sockaddr_un *)&ss;
		size_t n = len - offsetof(struct sockaddr_un, sun_path);

		/* Abstract names are the network namespace's or Landlock's
		 * scope: no path, and no policy change. Its EPERM is said:
		 * a socket of another run's, a session's other component's
		 * under run --in-session, or the host's in the object form. */
		if (!bind && err == EPERM && n > 1 && su->sun_path[0] == '\0') {
			name[0] = '@';
			for (size_t i = 1; i < n; i++)
				name[i] = su->sun_path[i] ? su->sun_path[i] : '@';
			name[n] = '\0';
			record("connect to abstract UNIX socket", name, err, "refused by Landlock's "
			       "scope", NULL, "it was made outside the run's Landlock domain: by "
			       "the host, or by another run of the session (run --in-session)");
		}
		/* ECONNREFUSED: a socket the view covers (record_unix_connect). */
		if ((!failure_of_policy(err) && (bind || err != ECONNREFUSED)) || n == 0 ||
		    su->sun_path[0] == '\0')
			return;
		memcpy(name, su->sun_path, n);
		name[n] = '\0';
		path = absolute(pid, AT_FDCWD, name, cwd, abs);
		if (bind)
			record_path("create", path, name, err, R_WRITE, 1, 0);
		else if (!record_unix_connect(path, err) && err != ECONNREFUSED)
			record_path("connect to UNIX socket", path, name, err, R_READ, 0, 0);
		return;
	}
	if (ss.ss_family == AF_INET) {
		struct sockaddr_in *si = (struct sockaddr_in *)&ss;
		inet_ntop(AF_INET, &si->sin_addr, addr, sizeof addr);
		port = ntohs(si->sin_port);
		snprintf(what, sizeof what, "%s:%u", addr, port);
	} else if (ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *si = (struct sockaddr_in6 *)&ss;
		inet_ntop(AF_INET6, &si->sin6_addr, addr, sizeof addr);
		port = ntohs(si->sin6_port);
		snprintf(what, sizeof what, "[%s]:%u", addr, port);
	} else {
		return;
	}
	udp = (socket_type(pid, (int)c->args[0]) & 0xf) == SOCK_DGRAM;
	/* network.hosts (--proxy): the run's network holds a loopback and
	 * the egress step's listener; a tool that ignored the proxy
	 * variables tried the world, or a DNS server, itself. */
	if (proxy_port && !bind && (err == ENETUNREACH || err == EHOSTUNREACH ||
	                            err == EADDRNOTAVAIL)) {
		char why[320];
		snprintf(why, sizeof why, "the run has no route but the proxy at 127.0.0.1:%u: "
		         "this tool %s instead of asking the proxy, which resolves and reaches "
		         "the names network.hosts lists (it ignored HTTPS_PROXY; Node's fetch "
		         "does, unless NODE_USE_ENV_PROXY=1)", proxy_port, udp && port == 53 ?
		         "asked a DNS server itself" : "connected directly");
		record(udp ? "UDP connect" : "TCP connect", what, err, "hidden by the policy",
		       NULL, why);
		return;
	}
	/* The object form, or a session's network (-N): Landlock refuses a
	 * port no list grants (EACCES), and a refused connection means that
	 * nothing listens. "none": the run's network is its own, and nothing
	 * outside it can be reached (or listens on its loopback). */
	if (host_net ? err != EACCES :
	    bind || (err != ECONNREFUSED && err != ENETUNREACH && err != EHOSTUNREACH &&
	             err != EADDRNOTAVAIL))
		return;
	kind = udp ? (bind ? "UDP bind" : "UDP connect") : bind ? "TCP bind" : "TCP connect";
	list = udp ? (bind ? "bind_udp_ports" : "connect_udp_ports") :
	       bind ? "bind_tcp_ports" : "connect_tcp_ports";
	snprintf(allow, sizeof allow, "\"network\": {\"%s\": [%u]}", list, port);
	record(kind, what, err, host_net ? "refused by the policy" : "hidden by the policy",
	       allow, NULL);
}

/* --- the seccomp filter's own refusals (seccomp.c's rule table) --- */

void explain_refused(pid_t pid, const struct call *c, int err)
{
	char name[PATH_MAX];
	unsigned long long flags = 0;

	if (c->nr == SYS_openat2) {
		if (observe_string(pid, c->args[1], name, sizeof name) <= 0)
			snprintf(name, sizeof name, "?");
		observe_bytes(pid, c->args[2], &flags, sizeof flags);
		record((flags & O_ACCMODE) != O_RDONLY || (flags & O_CREAT) ? "write" :
		       flags & O_DIRECTORY ? "list" : "read", name, err,
		       "refused by the seccomp filter", NULL, "the filter refuses openat2 always "
		       "(its flags and mode lie behind a pointer); libc falls back to openat");
	} else if (c->nr == SYS_keyctl || c->nr == SYS_add_key || c->nr == SYS_request_key) {
		record("keyring", c->nr == SYS_keyctl ? "keyctl" : c->nr == SYS_add_key ?
		       "add_key" : "request_key", err, "refused by the seccomp filter", NULL,
		       "the filter refuses the key calls: the user keyrings are shared with "
		       "every process of the uid");
#ifdef SYS_socket
	} else if (c->nr == SYS_socket || c->nr == SYS_socketpair) {
		int fam = (int)c->args[0], type = (int)c->args[1] & 0xf;

		record(type == SOCK_DGRAM ? "UDP connect or bind" : "TCP connect or bind",
		       fam == AF_INET ? "AF_INET" : fam == AF_INET6 ? "AF_INET6" : "a family but AF_UNIX",
		       err, "refused by the seccomp filter", NULL, "no network namespace could be "
		       "made here, and the seccomp fallback refuses every socket but AF_UNIX (the "
		       "object form of \"network\" keeps the host's network, with its ports)");
#endif
	} else if (c->nr == SYS_ptrace || c->nr == SYS_clone) {
		record("ptrace", c->nr == SYS_ptrace ? "ptrace" : "clone with CLONE_UNTRACED", err,
		       "refused by the seccomp filter", NULL, "under --explain only, the filter "
		       "refuses ptrace and CLONE_UNTRACED: the observer must be every process's "
		       "only tracer");
	} else {
		record("io_uring", "io_uring", err, "refused by the seccomp filter", NULL,
		       "the filter refuses io_uring always: no filter sees its ring");
	}
}

