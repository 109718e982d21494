/* sharness-exec-launch: `sharness-exec launch` (DESIGN.md 4.8, launch.h).
 * The front end execs this program with launch's words as they are and a
 * descriptor of itself (-F), which runs each role; `check` of a manifest
 * comes here too. command.c reads, pins, verifies and checks the manifest,
 * once, and under --dry-run prints the plan. Then, as root only, in this
 * order: the uid range checked and a uid locked for each role; the logs
 * made; the session's id, network and mount namespaces and state
 * directories; the CA and the certificates; then the session's init (pid
 * 1 of a new pid namespace, waiting for a go), its watcher, and the
 * session's cgroup, which the init joins. The launcher passes its signals
 * on to the init, waits for the init's end and the watcher's teardown,
 * and exits as main did (or re-raises main's signal). Under --dry-run
 * (any caller) it makes the checks that come before anything runs
 * (freeze_when_ready's cgroup2, write paths, --user, the uid range), and
 * exits as the launch would, 0 when it would go on. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "launch.h"
#include "sign/privkey.h"

const char *progname = "sharness-exec-launch";

/* What the launcher passes on to the init, and the init to main. */
static const int passed[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGWINCH,
};

/* Main's --user: its uid and gid, for its state directory. */
static void main_user(struct launch *s, struct role *r)
{
	unsigned long uid, gid;
	struct passwd *pw;
	char *end;

	snprintf(r->ids, sizeof r->ids, "%s", s->user);
	if (sscanf(s->user, "%lu:%lu", &uid, &gid) == 2 && strspn(s->user, "0123456789:") ==
	    strlen(s->user)) {
		r->uid = (uid_t)uid;
		r->gid = (gid_t)gid;
		return;
	}
	errno = 0;
	uid = strtoul(s->user, &end, 10);
	pw = *s->user && !*end && !errno ? getpwuid((uid_t)uid) : getpwnam(s->user);
	if (!pw || !pw->pw_uid)
		diex(EXIT_REFUSED, "--user %s: no such user, or root. Nothing ran.", qn(s->user));
	r->uid = pw->pw_uid;
	r->gid = pw->pw_gid;
}

/* What a uid of the session's writes outside the session's tmpfs would
 * outlive it, owned by a uid that a later session gets: a role with one
 * may have a files.write directory only beneath SESSION_DIR (a file, a
 * FIFO or a device it may write, but create nothing beside). */
static void write_paths(const struct role *r)
{
	const struct strlist *w = &r->c->pol.write;
	struct stat st;

	for (size_t i = 0; i < w->n; i++)
		if (!path_beneath(w->v[i], SESSION_DIR) && stat(w->v[i], &st) == 0 &&
		    S_ISDIR(st.st_mode))
			die_hint(EXIT_REFUSED, 0, "write beneath " SESSION_DIR "/ROLE, the role's state "
			         "directory, or use files.tmpfs", "%s %s: files.write[%zu] %s is a "
			         "directory outside the session's tmpfs: what a uid of the session's "
			         "leaves there would outlive it. Nothing ran.", r->main ? "main" :
			         "component", q(r->c->role), i, q(w->v[i]));
}

static void roles(struct launch *s)
{
	const struct manifest *m = &s->man;

	s->n = m->ncomp + 1;
	if (!(s->r = calloc(s->n, sizeof *s->r)))
		diex(EXIT_REFUSED, "out of memory");
	for (size_t i = 0; i < s->n; i++) {
		s->r[i].c = &m->comp[i];
		s->r[i].main = i == m->ncomp;
		freeze_check(&m->comp[i]);
	}
	for (size_t i = 0; i < s->n; i++)
		if (!s->r[i].main || !s->user)
			write_paths(&s->r[i]);
	if (s->user)
		main_user(s, &s->r[s->n - 1]);
	/* a host user's groups are the host's: no session group to add */
	for (size_t i = 0; s->user && i < m->nshare; i++)
		if (manifest_shares(&m->share[i], m->ncomp))
			diex(EXIT_REFUSED, "refused: main under --user %s cannot share %s/%s: the "
			     "session's groups are its own uids'. Nothing ran.", qn(s->user),
			     SHARE_DIR, m->share[i].name);
}

/* The signals passed on, in SET. */
static void passed_set(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < sizeof passed / sizeof *passed; i++)
		sigaddset(set, passed[i]);
}

/* The launcher's signals, blocked here and in the init (its signalfd). */
static int block_signals(void)
{
	sigset_t set;

	passed_set(&set);
	signal(SIGPIPE, SIG_IGN);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		die(EXIT_CONFINE, "unable to block signals");
	return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

/* SIGCONT, which still continues the launcher, to SIGFD as well: the
 * init hears of each on JOBS (loop.c), with whether the shell gave the
 * launch the terminal, which only the launcher can tell. */
static void watch_continue(int sigfd, int jobs)
{
	sigset_t set;

	passed_set(&set);
	sigaddset(&set, SIGCONT);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0 || signalfd(sigfd, &set, 0) < 0 ||
	    fcntl(jobs, F_SETFL, O_NONBLOCK) < 0)
		die(EXIT_CONFINE, "unable to watch for SIGCONT");
}

static int in_foreground(void)
{
	return isatty(0) && tcgetpgrp(0) == getpgrp();
}

/* Until the init says how main ended: signals passed on to it. */
static int wait_init(pid_t init, int sigfd, int status, int jobs)
{
	struct pollfd p[2] = { { .fd = sigfd, .events = POLLIN },
	                       { .fd = status, .events = POLLIN } };
	struct signalfd_siginfo si;
	int end = -1;

	for (;;) {
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			die(EXIT_CONFINE, "unable to wait for the session");
		if (p[0].revents && read(sigfd, &si, sizeof si) == sizeof si) {
			ssize_t w = 0;

			if (si.ssi_signo != SIGCONT)
				kill(init, (int)si.ssi_signo);
			else /* a full pipe (EAGAIN): the init has words unread */
				w = write(jobs, in_foreground() ? "f" : "b", 1);
			(void)w;
		}
		if (p[1].revents) {
			if (read(status, &end, sizeof end) != sizeof end)
				end = -1;
			return end;
		}
	}
}

static NORETURN void finish(int end)
{
	const struct rlimit zero = { 0, 0 };
	sigset_t set;
	int sig = end & 0xff;

	if (end < 0)
		diex(EXIT_CONFINE, "the session's init ended without saying how main did");
	if (!(end & 0x100))
		exit(sig);
	fflush(NULL);
	setrlimit(RLIMIT_CORE, &zero);
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	exit(128 + sig);
}

/* ARGV: -F FD launch WORDS (the front end's), [--manifest-fd FD] check FILE, or by
 * hand launch's words with -F among them. */
int main(int argc, char **argv)
{
	struct launch s = { .frontend = -1, .logdir = -1, .hostmnt = -1, .keep_r = -1 };
	int go[2], st[2], kp[2] = { -1, -1 }, sigfd, initfd, hostpid, end;
	pid_t init, watcher;

	if ((argc == 2 && !strcmp(argv[1], "status")) ||
	    (argc == 5 && !strcmp(argv[1], "-F") && !strcmp(argv[3], "launch") &&
	     !strcmp(argv[4], "status")))
		return launch_status();
	if (argc > 1 && !strcmp(argv[1], "check"))
		return launch_check(-1, argc - 1, argv + 1);
	if (argc > 3 && !strcmp(argv[1], "--manifest-fd") && !strcmp(argv[3], "check"))
		return launch_check(fd_arg("--manifest-fd", argv[2]), argc - 3, argv + 3);
	if (argc > 3 && !strcmp(argv[1], "-F") && !strcmp(argv[3], "launch")) {
		s.frontend = fd_arg("-F", argv[2]);
		launch_command(&s, argc - 3, argv + 3, 1);
	} else {
		launch_command(&s, argc, argv, 0);
	}
	progname = "sharness-exec-launch";	/* the runtime's words from here on */
	uids_parse(&s, s.range);
	launch_need_root(&s);
	roles(&s);
	uids_check(&s);
	if (s.dry) {	/* what would be refused before anything runs, and no more */
		free(s.r);
		manifest_free(&s.man);
		unload_policy(&s.l);
		return 0;
	}
	uids_take(&s);
	logs_open(&s, s.logdir);
	if (random_fill(s.id, sizeof s.id) < 0)
		die(EXIT_CONFINE, "unable to read random bytes for the session's id");
	hex_encode(s.session, s.id, sizeof s.id);
	keep_clear(&s);
	session_make(&s);
	identity_issue(&s);
	s.self = getpid();
	sigfd = block_signals();
	if (sigfd < 0 || pipe2(go, O_CLOEXEC) < 0 || pipe2(st, O_CLOEXEC) < 0 ||
	    (hostpid = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC)) < 0 ||
	    unshare(CLONE_NEWPID) < 0)
		die(EXIT_CONFINE, "unable to make the session's pid namespace");
	s.fg = in_foreground();
	fflush(NULL);
	if ((init = fork()) < 0)
		die(EXIT_CONFINE, "unable to fork the session's init");
	if (!init) {
		close(go[1]);
		close(st[0]);
		close(sigfd);
		s.status_w = st[1];
		session_init(&s, go[0]);
	}
	close(go[0]);
	close(st[1]);
	watch_continue(sigfd, go[1]);
	/* the watcher, forked next, is not the session's: it outlives it */
	if (setns(hostpid, CLONE_NEWPID) < 0)
		die(EXIT_CONFINE, "unable to fork outside the session's pid namespace");
	close(hostpid);
	if ((initfd = pidfd_open_(init)) < 0)
		die(EXIT_CONFINE, "unable to open a pidfd of the session's init");
	if (s.keep && pipe2(kp, O_CLOEXEC) < 0)
		die(EXIT_CONFINE, "unable to make the pipe of --keep");
	s.keep_r = kp[0];
	watcher = watcher_start(&s, initfd, kp[1]);
	if (kp[0] >= 0)
		close(kp[0]);
	cgroups_make(s.session, init);
	if (write_all(go[1], "g", 1) < 0)
		die(EXIT_CONFINE, "unable to start the session");
	end = wait_init(init, sigfd, st[0], go[1]);
	if (kp[1] >= 0)
		write_all(kp[1], &end, sizeof end);
	while (waitpid(init, NULL, 0) < 0 && errno == EINTR)
		;
	while (waitpid(watcher, NULL, 0) < 0 && errno == EINTR)
		;
	finish(end);
}
