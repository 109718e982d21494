/* sharness-exec-landlock: one rule of argv into the ruleset
 * (landlockrules.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common.h"
#include "helper.h"
#include "landlockrules.h"

/* -c -l -C -L: one port rule, for a right the ruleset handles. */
void add_port(int fd, const struct rule *r, __u64 handled)
{
	struct landlock_net_port_attr np = {
		.allowed_access = r->opt == 'c' ? LANDLOCK_ACCESS_NET_CONNECT_TCP :
			r->opt == 'l' ? LANDLOCK_ACCESS_NET_BIND_TCP :
			r->opt == 'C' ? LANDLOCK_ACCESS_NET_CONNECT_SEND_UDP :
			LANDLOCK_ACCESS_NET_BIND_UDP,
		.port = r->port,
	};

	if (!(np.allowed_access & handled))
		return;
	if (syscall(SYS_landlock_add_rule, fd, LANDLOCK_RULE_NET_PORT, &np, 0) < 0)
		die(EXIT_CONFINE, "unable to add a Landlock rule for %s port %lu",
		    strchr("cl", r->opt) ? "TCP" : "UDP", r->port);
}

/* -r -x -w -s: rule I of RULES; a missing path, or under -s one that is
 * no socket, is skipped with a warning, given once for a path in two
 * lists or more. The view step leaves a missing path out and says
 * nothing: this step runs on every run. */
void add_path(int fd, const struct rule *rules, int i, __u64 handled)
{
	const struct rule *r = &rules[i];
	struct landlock_path_beneath_attr pb;
	struct stat st;
	int dir, j = 0;
	unsigned grant;

	/* O_DIRECTORY tells a directory from a file without an fstat(2) a
	 * path: syscalls are most of the cost of a rule. No symlink is
	 * followed: the front end resolved them (DESIGN.md 2), so one met
	 * here was put there since. */
	pb.parent_fd = open_nofollow(r->arg, O_PATH | O_DIRECTORY);
	dir = pb.parent_fd >= 0;
	if (!dir && errno == ENOTDIR)
		pb.parent_fd = open_nofollow(r->arg, O_PATH);
	if (pb.parent_fd >= 0 && r->opt == 's' && (fstat(pb.parent_fd, &st) < 0 ||
	                                           !S_ISSOCK(st.st_mode))) {
		warnx_("skipping %s (files.sockets, -s): not a socket", qn(r->arg));
		close(pb.parent_fd);
		return;
	}
	if (pb.parent_fd < 0 && (errno == ENOENT || errno == ENOTDIR)) {
		while (j < i && (strchr("clCL", rules[j].opt) || strcmp(rules[j].arg, r->arg)))
			j++;
		if (j == i)
			warnx_("skipping missing path %s", qn(r->arg));
		return;
	}
	if (pb.parent_fd < 0 && errno == ELOOP)
		die_hint(EXIT_CONFINE, errno, "rule paths are opened without following "
		         "symlinks; give the path the symlink points to",
		         "unable to open %s", qn(r->arg));
	if (pb.parent_fd < 0)
		die(EXIT_CONFINE, "unable to open %s", qn(r->arg));
	/* Read and exec paths do not grant RESOLVE_UNIX: talking to a daemon
	 * through its socket (a container engine's, a bus) is acting, not
	 * reading. Nor do write paths (ABI 9): a host service's socket
	 * beneath one (tmux's, ssh-agent's, X's in /tmp) would run commands
	 * as the caller; the run's own sockets, made in its domain, need no
	 * rule. Only -s (files.sockets) grants it, on that socket alone. */
	grant = rule_grant(r->opt);
	pb.allowed_access = r->opt == 's' ? LANDLOCK_ACCESS_FS_RESOLVE_UNIX :
		grant == RULE_READ ? FS_READ : grant == RULE_EXEC ? FS_EXEC :
		handled & ~(__u64)LANDLOCK_ACCESS_FS_RESOLVE_UNIX;	/* -w, -T */
	if (!dir)
		pb.allowed_access &= FS_FILE;
	pb.allowed_access &= handled;
	if (pb.allowed_access && syscall(SYS_landlock_add_rule, fd,
	                                 LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0)
		die(EXIT_CONFINE, "unable to add a Landlock rule for %s", qn(r->arg));
	close(pb.parent_fd);
}
