/* The walls a run puts up, as the chain's own steps report them
 * (machine.h): the front end run again, through the descriptor it gave us,
 * `run --check`, and its steps' lines read back. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "machine.h"

extern char **environ;

/* --- the front end --- */

static int frontend = -1;

void frontend_set(int fd)
{
	frontend = fd;
}

static volatile sig_atomic_t alarmed;

static void on_alarm(int sig)
{
	(void)sig;
	alarmed = 1;
}

static int capture_fd(void)
{
	int fd = memfd_create("sharness-exec-probe", MFD_CLOEXEC);

	if (fd < 0)
		die(EXIT_REFUSED, "unable to create a memfd for a run's output");
	return fd;
}

char *fd_slurp(int fd, size_t *len)
{
	off_t size = lseek(fd, 0, SEEK_END);
	char *buf;
	ssize_t n;

	if (size < 0 || !(buf = malloc((size_t)size + 1)))
		diex(EXIT_REFUSED, "out of memory");
	*len = 0;
	while (*len < (size_t)size &&
	       (n = pread(fd, buf + *len, (size_t)size - *len, (off_t)*len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die(EXIT_REFUSED, "unable to read a run's output");
		*len += (size_t)n;
	}
	buf[*len] = '\0';
	close(fd);
	return buf;
}

static NORETURN void exec_frontend(const char *const *args)
{
	const char *argv[48] = { "sharness-exec" };
	size_t n = 1;

	for (; *args && n < 47; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	if (frontend >= 0)
		syscall(SYS_execveat, frontend, "", argv, environ, AT_EMPTY_PATH);
	else
		execv(BINDIR "/sharness-exec", (char *const *)argv);
	_exit(errno == ENOENT ? EXIT_NOTFOUND : EXIT_CONFINE);
}

void frontend_run(const char *const *args, int in, int out, struct capture *c)
{
	int ofd = out < 0 ? capture_fd() : out, efd = capture_fd();
	struct sigaction sa;
	pid_t pid;

	memset(c, 0, sizeof *c);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die(EXIT_REFUSED, "unable to fork");
	if (pid == 0) {
		if (dup2(in, 0) < 0 || dup2(ofd, 1) < 0 || dup2(efd, 2) < 0)
			_exit(EXIT_CONFINE);
		exec_frontend(args);
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm; /* no SA_RESTART: waitpid must see EINTR */
	sigaction(SIGALRM, &sa, NULL);
	alarmed = 0;
	alarm(FRONTEND_TIMEOUT);
	while (waitpid(pid, &c->status, 0) < 0) {
		if (errno != EINTR)
			die(EXIT_REFUSED, "unable to wait for a run");
		if (alarmed && !c->timed_out) {
			/* The chain's children die with it (PR_SET_PDEATHSIG). */
			kill(pid, SIGKILL);
			c->timed_out = 1;
		}
	}
	alarm(0);
	if (out < 0)
		c->out = fd_slurp(ofd, &c->outlen);
	c->err = fd_slurp(efd, &c->errlen);
}

void capture_free(struct capture *c)
{
	free(c->out);
	free(c->err);
	memset(c, 0, sizeof *c);
}

/* --- the walls --- */

/* The value of KEY= in LINE into DST: up to the next blank, or, for why,
 * to the end of the line. */
static void field(const char *line, const char *key, char *dst, size_t size)
{
	size_t klen = strlen(key), len;
	const char *p;

	*dst = '\0';
	for (p = line; (p = strstr(p, key)); p += klen)
		if ((p == line || p[-1] == ' ') && p[klen] == '=')
			break;
	if (!p)
		return;
	p += klen + 1;
	len = strcmp(key, "why") ? strcspn(p, " \n") : strcspn(p, "\n");
	snprintf(dst, size, "%.*s", (int)len, p);
}

static unsigned long long number(const char *line, const char *key)
{
	char buf[32];

	field(line, key, buf, sizeof buf);
	return strtoull(buf, NULL, 0);
}

#define STEP "sharness-exec-"

/* A run's cgroup is gone once the run is: name the cgroup it was made in
 * (the caller's own, or the leaf beside it on v2). */
static void run_parent(char *dir)
{
	char *slash = strrchr(dir, '/');

	if (*dir == '/' && slash && !strncmp(slash + 1, "sharness-exec.", 14))
		*(slash == dir ? slash + 1 : slash) = '\0';
}

static void parse_line(const char *line, struct walls *w)
{
	if (!strncmp(line, STEP "netns: ", 20)) {
		field(line, "network", w->network, sizeof w->network);
		field(line, "ipc", w->ipc, sizeof w->ipc);
		field(line, "user", w->user, sizeof w->user);
		field(line, "why", w->why_net, sizeof w->why_net);
	} else if (!strncmp(line, STEP "supervise: ", 24)) {
		field(line, "pid", w->pid, sizeof w->pid);
		field(line, "cgroup", w->cgroup, sizeof w->cgroup);
		field(line, "why", w->why_cgroup, sizeof w->why_cgroup);
	} else if (!strncmp(line, STEP "limits: ", 21)) {
		field(line, "memory", w->memory, sizeof w->memory);
		field(line, "pids", w->pids, sizeof w->pids);
		run_parent(w->memory);
		run_parent(w->pids);
		w->memory_mib = (unsigned long)number(line, "memory_mib");
	} else if (!strncmp(line, STEP "view: ", 19)) {
		field(line, "mount", w->mount, sizeof w->mount);
		field(line, "root", w->root, sizeof w->root);
		field(line, "proc", w->proc, sizeof w->proc);
		field(line, "why", w->why_mount, sizeof w->why_mount);
	} else if (!strncmp(line, STEP "landlock: ", 23)) {
		w->abi = (int)number(line, "abi");
		w->fs = number(line, "fs");
		w->seccomp = (int)number(line, "seccomp");
		w->no_new_privs = (int)number(line, "no_new_privs");
		field(line, "net", w->net, sizeof w->net);
		field(line, "scoped", w->scoped, sizeof w->scoped);
		field(line, "caps", w->caps, sizeof w->caps);
		field(line, "listen_guard", w->guard, sizeof w->guard);
		field(line, "rights", w->rights, sizeof w->rights);
		w->ran = 1;
	}
}

/* The first fatal line of a run that did not go through, or how it ended. */
static void why_not(const struct capture *c, struct walls *w)
{
	const char *p = strstr(c->err, ": fatal: ");

	if (p) {
		while (p > c->err && p[-1] != '\n')
			p--;
		snprintf(w->fatal, sizeof w->fatal, "%.*s", (int)strcspn(p, "\n"), p);
	} else if (c->timed_out) {
		snprintf(w->fatal, sizeof w->fatal, "timed out after %d s", FRONTEND_TIMEOUT);
	} else {
		snprintf(w->fatal, sizeof w->fatal, "exit %d", WIFEXITED(c->status) ?
		         WEXITSTATUS(c->status) : 128 + WTERMSIG(c->status));
	}
}

void walls_check(const char *policy, const char *text, const char *hash, int best,
                 struct walls *w)
{
	const char *args[12] = { "run", "--check", "--policy", policy };
	struct capture c;
	size_t n = 4;
	int p[2] = { -1, -1 }, in;

	memset(w, 0, sizeof *w);
	if (best)
		args[n++] = "--best-effort";
	if (hash) {
		args[n++] = "--expect-hash";
		args[n++] = hash;
	}
	args[n] = NULL;
	if (text) {
		/* The policy is small: the pipe holds it whole. */
		if (pipe2(p, O_CLOEXEC) < 0 || write_all(p[1], text, strlen(text)) < 0)
			die(EXIT_REFUSED, "unable to hand the policy on");
		close(p[1]);
		in = p[0];
	} else if ((in = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
		die(EXIT_REFUSED, "unable to open /dev/null");
	}
	frontend_run(args, in, -1, &c);
	close(in);
	for (char *line = c.out; line && *line; line += strcspn(line, "\n") + !!line[strcspn(line, "\n")])
		parse_line(line, w);
	if (c.timed_out || !WIFEXITED(c.status) || WEXITSTATUS(c.status))
		w->ran = 0;
	if (!w->ran)
		why_not(&c, w);
	capture_free(&c);
}
