/* Each role started through the chain, as `run` runs a command (launch.h):
 * the session's init forks, and the child execs the front end that
 * started the launch (the descriptor -F) as
 *
 *   sharness-exec run --user UID:GID --launch-env --in-session \
 *       --state-dir SESSION_DIR/ROLE --passwd-fd P --group-fd G --hosts-fd H \
 *       [--user-groups --share DIR | --share-read DIR ...] \
 *       [--explain-as ROLE] --policy=/proc/LAUNCHER/fd/N --expect-hash HASH \
 *       -- COMMAND...
 *
 * N being the sealed memfd of the role's inline policy (run closes every
 * inherited descriptor first, so it opens the launcher's), HASH the
 * policy's own, pinned. --state-dir gives the role its state directory,
 * read-write, whether its policy lists it or not; --share and --share-read
 * each share that names it (SHARE_DIR/NAME), with --user-groups and G's
 * line of the share's group naming it; main --share-read LOGS_DIR, and
 * SHARNESS_AI_LOGS naming it, when it has read_logs (its group's, 0750);
 * --explain-as, under launch --explain, the explain step's lines naming
 * the role (not a health check's run, which health.c execs here too).
 * --launch-env lets through the variables that
 * launch sets, and only those (manifest_launch_sets); --in-session keeps
 * the session's network namespace, for "none" too; P and G are sealed
 * memfds of root's passwd and group lines and the role's own (its name
 * its role where that is a user name, else "session-UID"; its home its
 * state directory), which the view shows at /etc/passwd and /etc/group;
 * H one of localhost's lines and each role's name as 127.0.0.1, the
 * view's /etc/hosts, so that a role reaches another by its name. Main
 * under --user has no P and G: it is a user of the host's. A
 * component's stdin is /dev/null, its stdout and stderr pipes the init
 * reads (line.c, logs.c), and it has a process group of its own; main has
 * the launch's stdin, stdout and stderr, a process group of its own as
 * well, which the init makes the terminal's foreground one when there is
 * a terminal. The fork's pid is the run's supervisor. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#include "common.h"
#include "launch.h"

extern char **environ;

static int traced;	/* in start_role's child: launch --explain */

int pidfd_open_(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

int pidfd_signal(int pidfd, int sig)
{
	return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
}

static void env_file(const struct role *r, const char *name, const char *file)
{
	char path[sizeof r->state + 16];

	snprintf(path, sizeof path, "%s/%s", r->state, file);
	if (setenv(name, path, 1) < 0)
		die(EXIT_CONFINE, "unable to set %s", name);
}

/* In the child: what launch gives R's run, for --launch-env. */
static void set_env(const struct launch *s, const struct role *r)
{
	char name[MANIFEST_READY_NAME_MAX];

	if (r->c->identity) {
		env_file(r, "SHARNESS_AI_CERT", "cert.pem");
		env_file(r, "SHARNESS_AI_KEY", "key.pem");
		env_file(r, "SHARNESS_AI_CA", "ca.pem");
		if (setenv("SHARNESS_AI_SESSION_CA", s->ca_hash, 1) < 0)
			die(EXIT_CONFINE, "unable to set SHARNESS_AI_SESSION_CA");
	}
	if (r->main && s->man.nread_logs && setenv("SHARNESS_AI_LOGS", LOGS_DIR, 1) < 0)
		die(EXIT_CONFINE, "unable to set SHARNESS_AI_LOGS");
	for (size_t i = 0; r->main && i + 1 < s->n; i++) {
		if (s->r[i].c->ready != READY_STDOUT_LINE)
			continue;
		manifest_ready_name(name, s->r[i].c->role);
		if (setenv(name, s->r[i].line, 1) < 0)
			die(EXIT_CONFINE, "unable to set %s", name);
	}
}

/* A sealed memfd holding TEXT, left open across exec; its number. */
static int sealed(const char *name, const char *text)
{
	int fd = sealed_memfd(name, 0, text, strlen(text));

	if (fd < 0)
		die(EXIT_CONFINE, "unable to make the %s memfd", name);
	return fd;
}

/* R's user name: its role when that is a user name other than root's. */
static void user_name(const struct role *r, char *out, size_t n)
{
	const char *role = r->c->role;

	if (strlen(role) <= 32 && *role != '-' && strcmp(role, "root"))
		snprintf(out, n, "%s", role);
	else
		snprintf(out, n, "session-%lu", (unsigned long)r->uid);
}

/* In the child: --passwd-fd P --group-fd G into V at K, for R; with
 * --user-groups when R shares a directory, its group's line naming R. */
static size_t push_ids(const struct launch *s, const struct role *r, const char **v, size_t k,
                       char fds[2][16])
{
	char name[40], line[sizeof name * 2 + sizeof r->state + 96];
	char group[sizeof name + 16 + MANIFEST_SHARE_MAX * (MANIFEST_SHARE_NAME_MAX + 64)];
	size_t n, i = (size_t)(r - s->r), shared = 0;

	user_name(r, name, sizeof name);
	snprintf(line, sizeof line, "root:x:0:0:root:/root:/bin/sh\n"
	         "%s:x:%lu:%lu:sharness-exec launch %s:%s:/bin/sh\n", name,
	         (unsigned long)r->uid, (unsigned long)r->gid, name, r->state);
	snprintf(fds[0], 16, "%d", sealed("sharness-exec-passwd", line));
	n = (size_t)snprintf(group, sizeof group, "root:x:0:\n%s:x:%lu:\n", name,
	                     (unsigned long)r->gid);
	for (size_t j = 0; j < s->man.nshare && n < sizeof group; j++)
		if (manifest_shares(&s->man.share[j], i) && ++shared)
			n += (size_t)snprintf(group + n, sizeof group - n, "share.%s:x:%lu:%s\n",
			                      s->man.share[j].name, (unsigned long)s->share_gid[j],
			                      name);
	snprintf(fds[1], 16, "%d", sealed("sharness-exec-group", group));
	v[k++] = "--passwd-fd";
	v[k++] = fds[0];
	v[k++] = "--group-fd";
	v[k++] = fds[1];
	if (shared)
		v[k++] = "--user-groups";
	return k;
}

/* In the child: --share DIR or --share-read DIR into V at K for each
 * share of R's, and main's LOGS_DIR. */
static size_t push_shares(const struct launch *s, const struct role *r, const char **v,
                          size_t k)
{
	static char dirs[MANIFEST_SHARE_MAX][sizeof SHARE_DIR + MANIFEST_SHARE_NAME_MAX + 2];
	size_t i = (size_t)(r - s->r);
	int how;

	for (size_t j = 0; j < s->man.nshare; j++) {
		if (!(how = manifest_shares(&s->man.share[j], i)))
			continue;
		snprintf(dirs[j], sizeof dirs[j], "%s/%s", SHARE_DIR, s->man.share[j].name);
		v[k++] = how == 'w' ? "--share" : "--share-read";
		v[k++] = dirs[j];
	}
	if (r->main && s->man.nread_logs) {
		v[k++] = "--share-read";
		v[k++] = LOGS_DIR;
	}
	return k;
}

/* In the child: --hosts-fd H into V at K: localhost, and every role's
 * name, the session's loopback (every role is in its network namespace). */
static size_t push_hosts(const struct launch *s, const char **v, size_t k, char fd[16])
{
	size_t cap = 64 + s->n * (MANIFEST_ROLE_MAX + 12), n;
	char *text = malloc(cap);

	if (!text)
		diex(EXIT_CONFINE, "out of memory");
	n = (size_t)snprintf(text, cap, "127.0.0.1 localhost\n::1 localhost\n");
	for (size_t i = 0; i < s->n && n < cap; i++)
		n += (size_t)snprintf(text + n, cap - n, "127.0.0.1 %s\n", s->r[i].c->role);
	snprintf(fd, 16, "%d", sealed("sharness-exec-hosts", text));
	free(text);
	v[k++] = "--hosts-fd";
	v[k++] = fd;
	return k;
}

/* In the child: the words of R's run of CMD. */
static const char **run_argv(const struct launch *s, const struct role *r, char **cmd)
{
	static char policy[64], fds[3][16];
	size_t words = 0, k = 0;
	const char **v;

	for (; cmd[words]; words++)
		;
	if (!(v = calloc(words + 23 + 2 * MANIFEST_SHARE_MAX, sizeof *v)))
		diex(EXIT_CONFINE, "out of memory");
	v[k++] = "sharness-exec";
	v[k++] = "run";
	v[k++] = "--user";
	v[k++] = r->main && s->user ? s->user : r->ids;
	if (!r->main || !s->user)
		k = push_ids(s, r, v, k, fds);
	k = push_hosts(s, v, k, fds[2]);
	v[k++] = "--launch-env";
	v[k++] = "--in-session";
	v[k++] = "--state-dir";
	v[k++] = r->state;
	k = push_shares(s, r, v, k);
	if (traced) {
		v[k++] = "--explain-as";
		v[k++] = r->c->role;
	}
	v[k++] = "--expect-hash";
	v[k++] = r->c->hash;
	snprintf(policy, sizeof policy, "--policy=/proc/%ld/fd/%d", (long)s->self, r->policy);
	v[k++] = policy;
	v[k++] = "--";
	memcpy(v + k, cmd, words * sizeof *v);
	return v;
}

/* In the child: the signals as a fresh process has them, its stdio. */
static void child_io(const struct role *r, const int out[2], const int err[2])
{
	sigset_t none;
	int null;

	sigemptyset(&none);
	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (setpgid(0, 0) < 0)
		die(EXIT_CONFINE, "unable to give %s a process group", q(r->c->role));
	if (r->main)
		return;
	if (chdir(r->state) < 0)
		die(EXIT_CONFINE, "unable to enter %s", r->state);
	if ((null = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0 || dup2(null, 0) < 0 ||
	    dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0)
		die(EXIT_CONFINE, "unable to set the stdio of %s", q(r->c->role));
}

/* The init's end of a component's pipe P, non-blocking; the other closed. */
static int read_end(const struct role *r, const int p[2])
{
	if (p[1] >= 0)
		close(p[1]);
	if (p[0] >= 0 && fcntl(p[0], F_SETFL, O_NONBLOCK) < 0)
		die(EXIT_CONFINE, "unable to read the output of %s", q(r->c->role));
	return p[0];
}

void exec_run(const struct launch *s, const struct role *r, char **cmd)
{
	set_env(s, r);
	syscall(SYS_execveat, s->frontend, "", run_argv(s, r, cmd), environ, AT_EMPTY_PATH);
	die(EXIT_CONFINE, "unable to execute the front end for %s", q(r->c->role));
}

void start_role(struct launch *s, struct role *r)
{
	int out[2] = { -1, -1 }, err[2] = { -1, -1 };
	pid_t pid;

	if (!r->main && (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0))
		die(EXIT_CONFINE, "unable to make the pipes of the output of %s", q(r->c->role));
	fflush(NULL);
	if ((pid = fork()) < 0)
		die(EXIT_CONFINE, "unable to fork for %s", q(r->c->role));
	if (!pid) {
		child_io(r, out, err);
		freeze_join(r);
		traced = s->explain;
		exec_run(s, r, r->main ? s->cmd : r->c->command.v);
	}
	setpgid(pid, pid);
	/* The init cannot tell: in its pid namespace neither its own process
	 * group nor the shell's has a number (getpgrp and tcgetpgrp say 0).
	 * The launcher could, before the fork (s->fg). */
	if (r->main && (s->tty = isatty(0))) {
		signal(SIGTTOU, SIG_IGN);
		if (s->fg)
			tcsetpgrp(0, pid);
	}
	r->out = read_end(r, out);
	r->err = read_end(r, err);
	r->pid = pid;
	if ((r->pidfd = pidfd_open_(pid)) < 0)
		die(EXIT_CONFINE, "unable to open a pidfd for %s", q(r->c->role));
}
