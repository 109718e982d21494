/* sharness-exec-launch: the runtime of `sharness-exec launch` (DESIGN.md
 * 4.8, launch.h). The front end verifies the manifest and execs this
 * program, with the manifest's bytes in a sealed memfd (--manifest), its hash
 * (--hash, checked again here), a descriptor of the front end itself (-F),
 * which runs each role, and one of --logs's directory. As root
 * only, in this order: the uid range checked and a uid locked for each
 * role; the logs made; the session's id, network and
 * mount namespaces and state directories; the CA and the certificates;
 * then the session's init (pid 1 of a new pid namespace, waiting for a
 * go), its watcher, and the session's cgroup, which the init joins. The launcher passes its signals on to the
 * init, waits for the init's end and the watcher's teardown, and exits
 * as main did (or re-raises main's signal). With -n (launch --dry-run,
 * any caller, no -F) it makes the checks that come before anything runs
 * (freeze_when_ready's cgroup2, write paths, --user, the uid range), and
 * exits as the launch would, 0 when it would go on. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
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

#define USAGE "sharness-exec-launch [-n] -F FD --manifest FD --hash sha256:HEX " \
	"[--uids FIRST-LAST] [--user USER] [--logs FD] -- COMMAND [ARG...]"

/* What the launcher passes on to the init, and the init to main. */
static const int passed[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGWINCH,
};

static int fd_arg(const char *opt, const char *arg)
{
	char *end;
	long fd;

	errno = 0;
	fd = strtol(arg, &end, 10);
	if (errno || *end || fd < 3 || fd > 1 << 20 || fcntl((int)fd, F_SETFD, FD_CLOEXEC) < 0)
		usage_fail(USAGE, "%s %s: not an open descriptor above 2", opt, qn(arg));
	return (int)fd;
}

static int usage_help(void)
{
	printf("usage: %s\n", USAGE);
	return fflush(stdout) ? EXIT_REFUSED : 0;
}

/* -n: launch --dry-run's word on whether this machine would refuse. */
static int dry;

static int parse(struct launch *s, int argc, char **argv, unsigned char want[HASH_LEN])
{
	/* no letter: the table of letters (DESIGN.md 1) gives -M, -H, -r, -u
	 * and -L other meanings; the value is the letter they had */
	static const struct option longopts[] = {
		{ "manifest", required_argument, NULL, 'M' }, { "hash", required_argument, NULL, 'H' },
		{ "uids", required_argument, NULL, 'r' }, { "user", required_argument, NULL, 'u' },
		{ "logs", required_argument, NULL, 'L' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 } };
	const char *range = NULL, *hash = NULL;
	int c, manifest = -1;

	s->frontend = s->logdir = -1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:F:nh", longopts, NULL)) != -1) {
		switch (c) {
		case 'F': s->frontend = fd_arg("-F", optarg); break;
		case 'M': manifest = fd_arg("--manifest", optarg); break;
		case 'H': hash = optarg; break;
		case 'r': range = optarg; break;
		case 'u': s->user = optarg; break;
		case 'L': s->logdir = fd_arg("--logs", optarg); break;
		case 'n': dry = 1; break;
		case 'h': exit(usage_help());
		default: usage_option(USAGE, c, argv[optind - 1]);
		}
	}
	if ((s->frontend < 0 && !dry) || manifest < 0 || !hash || optind >= argc)
		usage_fail(USAGE, "needs -F (but with -n), --manifest, --hash and main's COMMAND");
	if (!hash_parse(hash, want))
		usage_fail(USAGE, "--hash %s: not sha256: and 64 hex digits", qn(hash));
	uids_parse(s, range);
	s->cmd = argv + optind;
	return manifest;
}

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
	const struct manifest *m = &s->l.man;

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

int main(int argc, char **argv)
{
	struct launch s = { 0 };
	unsigned char want[HASH_LEN];
	int mfd = parse(&s, argc, argv, want), go[2], st[2], sigfd, initfd, hostpid, end;
	pid_t init, watcher;

	if (!dry && (geteuid() != 0 || getuid() != 0))
		die_hint(EXIT_REFUSED, 0, "run it as root (sudo)",
		         "launch needs root: it makes a uid for each component. Nothing ran.");
	if (!load_as(mfd, "the manifest", &s.l, want, LOAD_MANIFEST))
		return EXIT_REFUSED;
	roles(&s);
	uids_check(&s);
	if (dry) {	/* what would be refused before anything runs, and no more */
		free(s.r);
		unload_policy(&s.l);
		return 0;
	}
	uids_take(&s);
	logs_open(&s, s.logdir);
	if (random_fill(s.id, sizeof s.id) < 0)
		die(EXIT_CONFINE, "unable to read random bytes for the session's id");
	hex_encode(s.session, s.id, sizeof s.id);
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
	watcher = watcher_start(&s, initfd);
	cgroups_make(s.session, init);
	if (write_all(go[1], "g", 1) < 0)
		die(EXIT_CONFINE, "unable to start the session");
	end = wait_init(init, sigfd, st[0], go[1]);
	while (waitpid(init, NULL, 0) < 0 && errno == EINTR)
		;
	while (waitpid(watcher, NULL, 0) < 0 && errno == EINTR)
		;
	finish(end);
}
