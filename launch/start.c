/* Each role started through the chain, as `run` runs a command (launch.h):
 * the session's init forks, and the child execs the front end that
 * started the launch (the descriptor -F) as
 *
 *   sharness-exec run --user UID:GID --launch-env \
 *       --policy /proc/LAUNCHER/fd/N --expect-hash HASH -- COMMAND...
 *
 * N being the sealed memfd of the role's inline policy (run closes every
 * inherited descriptor first, so it opens the launcher's), HASH the
 * policy's own, pinned. --launch-env lets through the variables that
 * launch sets, and only those (manifest_launch_sets). A component's stdin
 * is /dev/null, its stdout the launch's stderr (or, for a stdout_line
 * component, a pipe the init reads), and it has a process group of its
 * own; main has the launch's stdin, stdout and stderr, a process group of
 * its own as well, which the init makes the terminal's foreground one
 * when there is a terminal. The fork's pid is the run's supervisor. */
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
	for (size_t i = 0; r->main && i + 1 < s->n; i++) {
		if (s->r[i].c->ready != READY_STDOUT_LINE)
			continue;
		manifest_ready_name(name, s->r[i].c->role);
		if (setenv(name, s->r[i].line, 1) < 0)
			die(EXIT_CONFINE, "unable to set %s", name);
	}
}

static const char **run_argv(const struct launch *s, const struct role *r, char **policy)
{
	char **cmd = r->main ? s->cmd : r->c->command.v;
	const char *head[] = {
		"sharness-exec", "run", "--user", r->main && s->user ? s->user : r->ids,
		"--launch-env", "--expect-hash", r->c->hash, NULL, "--",
	};
	const size_t nh = sizeof head / sizeof *head;
	size_t words = 0;
	const char **v;

	for (; cmd[words]; words++)
		;
	if (asprintf(policy, "--policy=/proc/%ld/fd/%d", (long)s->self, r->policy) < 0 ||
	    !(v = calloc(nh + words + 1, sizeof *v)))
		diex(EXIT_CONFINE, "out of memory");
	head[nh - 2] = *policy;
	memcpy(v, head, sizeof head);
	memcpy(v + nh, cmd, words * sizeof *v);
	return v;
}

/* In the child: the signals as a fresh process has them, its stdio. */
static void child_io(const struct role *r, int out)
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
	    dup2(out >= 0 ? out : 2, 1) < 0)
		die(EXIT_CONFINE, "unable to set the stdio of %s", q(r->c->role));
}

void start_role(struct launch *s, struct role *r)
{
	int out[2] = { -1, -1 };
	char *policy;
	const char **argv = run_argv(s, r, &policy);
	pid_t pid;

	if (r->c->ready == READY_STDOUT_LINE && pipe2(out, O_CLOEXEC) < 0)
		die(EXIT_CONFINE, "unable to make a pipe for the stdout of %s", q(r->c->role));
	fflush(NULL);
	if ((pid = fork()) < 0)
		die(EXIT_CONFINE, "unable to fork for %s", q(r->c->role));
	if (!pid) {
		child_io(r, out[1]);
		set_env(s, r);
		syscall(SYS_execveat, s->frontend, "", argv, environ, AT_EMPTY_PATH);
		die(EXIT_CONFINE, "unable to execute the front end for %s", q(r->c->role));
	}
	setpgid(pid, pid);
	if (r->main && isatty(0) && tcgetpgrp(0) == getpgrp()) {
		signal(SIGTTOU, SIG_IGN);
		tcsetpgrp(0, pid);
	}
	free(policy);
	free(argv);
	if (out[1] >= 0)
		close(out[1]);
	r->out = out[0];
	if (r->out >= 0 && fcntl(r->out, F_SETFL, O_NONBLOCK) < 0)
		die(EXIT_CONFINE, "unable to read the stdout of %s", q(r->c->role));
	r->pid = pid;
	if ((r->pidfd = pidfd_open_(pid)) < 0)
		die(EXIT_CONFINE, "unable to open a pidfd for %s", q(r->c->role));
}
