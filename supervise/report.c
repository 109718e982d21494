/* sharness-exec-supervise's report (-O FD; report.h, sharness-exec-
 * report(5)): the supervisor alone sees how the run ended, so it writes
 * the report, from what it saw itself (init's wait status, the target's
 * rusage, the cgroup's counters that the watcher read, caphits.c), from
 * argv (the policy's id, hash and key, the CPU cap) and from the status
 * pipe (--status-in FD, statuspipe.h), where the later steps wrote their
 * warning and fatal lines, the landlock step its walls and "@exec", the view
 * step its walk of each write path ("@write"), and from the
 * explain step's memfd (-D FD), its denials under run --explain. Never from
 * stderr, which the target can forge. A fatal line of the supervisor's
 * own (no pid namespace and no signal scoping, the watcher gone) writes
 * the report as it dies. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "egresstally.h"
#include "ending.h"
#include "helper.h"
#include "report.h"
#include "supervise.h"

static struct {
	int fd, rfd;                 /* -O, --status-in; -1 none */
	const char *path;            /* --report-path: fd is its directory */
	char *dir, *base;            /* its parts */
	int dfd;                     /* -D: --explain's denials; -1 none */
	int efd;                     /* --egress-in: the egress server's lines; -1 none */
	struct tally egress;
	int inited, written, exec_seen;
	struct timespec start;
	void (*next_hook)(int code, const char *line);
	struct report r;
} rep = { .fd = -1, .rfd = -1, .dfd = -1, .efd = -1 };

static int descriptor(const char *arg, const char *usage, int c)
{
	unsigned long fd;

	if (!parse_ulong(arg, 3, 1 << 20, &fd) || fcntl((int)fd, F_GETFD) < 0)
		usage_fail(usage, "unable to use %s %s: not an open descriptor above 2",
		           c == 'O' ? "-O" : c == 'D' ? "-D" : c == 'e' ? "--egress-in" :
		           "--status-in", qn(arg));
	return (int)fd;
}

void report_option(int c, const char *arg, const char *usage)
{
	unsigned long v;

	if (!rep.inited)
		report_init(&rep.r);
	rep.inited = 1;
	switch (c) {
	case 'O': rep.fd = descriptor(arg, usage, c); break;
	case 'R': rep.rfd = descriptor(arg, usage, c); break;
	case 'D': rep.dfd = descriptor(arg, usage, c); break;
	case 'e': rep.efd = descriptor(arg, usage, c); break;
	case 'P':
		rep.path = arg;
		if (arg[0] != '/' || !(rep.dir = strdup(arg)))
			usage_fail(usage, "--report-path %s: not an absolute path", qn(arg));
		rep.base = strrchr(rep.dir, '/');
		*rep.base++ = '\0';
		if (!*rep.dir)
			rep.dir = (char *)"/";
		break;
	case 'I': rep.r.id = arg; break;
	case 'H': rep.r.hash = arg; break;
	case 'F': rep.r.key = arg; break;
	case 'u':
		if (!parse_ulong(arg, 1, 409600, &v))
			usage_fail(usage, "invalid CPU cap: %s (percent, 1-409600)", arg);
		rep.r.cpu_cap = (long long)v;
		break;
	}
}

/* The rights that no wall held, from "NAME:WALL,...": what best effort,
 * or a caller who is not root (DESIGN.md 4.5), ran without. */
static void unheld(const char *w, size_t len)
{
	for (const char *p = w, *end = w + len; p < end; ) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		size_t n = c ? (size_t)(c - p) : (size_t)(end - p);

		if (n > 5 && !memcmp(p + n - 5, ":none", 5))
			report_add(&rep.r.dropped, p, n - 5);
		p += n + 1;
	}
}

/* One line of a step's, or of ours: a fatal one, a warning (and what
 * best effort dropped), the walls, the exec. */
static void take_line(const char *line, size_t len)
{
	const char *w = memmem(line, len, ": warning: ", 11);
	const char *b = w ? memmem(w, len - (size_t)(w - line), "best effort: ", 13) : NULL;

	if (len == 5 && !memcmp(line, "@exec", 5)) {
		rep.exec_seen = 1;
	} else if (len == 7 && !memcmp(line, "@writes", 7)) {
		rep.r.writes_seen = 1;
	} else if (len > 7 && !memcmp(line, "@write ", 7)) {
		report_add(&rep.r.write_paths, line + 7, len - 7);
	} else if (len > 5 && !memcmp(line, "@env ", 5)) {
		report_add(&rep.r.env_dropped, line + 5, len - 5);
	} else if (len > 7 && !memcmp(line, "@walls ", 7) && !rep.r.walls) {
		rep.r.walls = strndup(line + 7, len - 7);
		unheld(line + 7, len - 7);
	} else if (line[0] != '@' && memmem(line, len, ": fatal: ", 9) && !rep.r.fatal) {
		rep.r.fatal = strndup(line, len);
	} else if (w) {
		report_add(&rep.r.warnings, line, len);
		if (b) {
			char d[PIPE_BUF + 64];
			int n = snprintf(d, sizeof d, "%.*s: %.*s", (int)(w - line), line,
			                 (int)(len - (size_t)(b + 13 - line)), b + 13);

			report_add(&rep.r.dropped, d, n < 0 ? 0 : (size_t)n < sizeof d ? (size_t)n :
			           sizeof d - 1);
		}
	}
}

static const char *outcome_of(int code)
{
	return code == EXIT_REFUSED ? "refused" : code == EXIT_NOTFOUND ? "not_found" :
	       "could_not_confine";
}

/* The report, to -O's descriptor, or by name (--report-path): then only once every
 * process of the run is gone, so that what the name leads to is ours. A
 * report that cannot be written there is a fatal line, and the run's
 * status 126: the caller must not take what is at the name for it. */
static int write_report(void)
{
	struct timespec now;
	size_t len;
	char *text;
	int rc;

	if (rep.written || rep.fd < 0)
		return 0;
	rep.written = 1;
	clock_gettime(CLOCK_MONOTONIC, &now);
	rep.r.wall_s = (double)(now.tv_sec - rep.start.tv_sec) +
	               (double)(now.tv_nsec - rep.start.tv_nsec) / 1e9;
	if (!(text = report_text(&rep.r, &len)))
		rc = -1;
	else if (rep.path)
		rc = replace_at(rep.fd, rep.dir, rep.base, 0, text, len);
	else
		rc = write_all(rep.fd, text, len);
	free(text);
	if (rc == 0)
		return 0;
	if (!rep.path) {
		fprintf(stderr, "%s: warning: unable to write the report (fd %d): %s\n",
		        progname, rep.fd, strerror(errno));
		return 0;
	}
	rc = errno;
	fatal_say(EXIT_CONFINE, 0, "unable to write the report %s: %s", q(rep.path),
	          rc == ESTALE ? "its directory was moved during the run" : strerror(rc));
	return -1;
}

/* Before a report by name as the supervisor dies: init, if it is still
 * ours to wait for, and the run with it. */
static void end_run(void)
{
	if (!rep.path || run.init <= 0 || waitpid(run.init, NULL, WNOHANG) != 0)
		return;
	kill(run.init, SIGKILL);
	while (waitpid(run.init, NULL, 0) < 0 && errno == EINTR)
		;
	if (!run.pidns)
		kill_descendants();
}

/* The supervisor's own lines are its report's; init's and the watcher's
 * go where they went (the status pipe, for init before its child). */
static void hook(int code, const char *line)
{
	if (getpid() != run.supervisor) {
		if (rep.next_hook)
			rep.next_hook(code, line);
		return;
	}
	take_line(line, strlen(line));
	if (!code)
		return;
	rep.r.outcome = outcome_of(code);
	rep.r.wrapper_exit = code;
	end_run();
	write_report();
}

void report_setup(void)
{
	if (!rep.inited)
		report_init(&rep.r);
	/* The egress server's lines are read as they come (SIGIO, taken by
	 * the supervisor's sigwaitinfo: report_signal), so that no number of
	 * connections fills the pipe; only this process is told, and
	 * the chain never holds it, with -O or without. */
	if (rep.efd >= 0 && (fcntl(rep.efd, F_SETFD, FD_CLOEXEC) < 0 ||
	                     fcntl(rep.efd, F_SETOWN, getpid()) < 0 ||
	                     fcntl(rep.efd, F_SETFL, O_NONBLOCK | O_ASYNC) < 0))
		die(EXIT_CONFINE, "unable to set up the egress step's descriptor");
	if (rep.fd < 0)
		return;
	clock_gettime(CLOCK_MONOTONIC, &rep.start);
	/* Only the supervisor holds them: init and its child close them on
	 * their way (keep_only, exec). */
	if (fcntl(rep.fd, F_SETFD, FD_CLOEXEC) < 0 ||
	    (rep.rfd >= 0 && (fcntl(rep.rfd, F_SETFD, FD_CLOEXEC) < 0 ||
	                      fcntl(rep.rfd, F_SETFL, O_NONBLOCK) < 0)))
		die(EXIT_CONFINE, "unable to set up the report's descriptors");
	/* -D's memfd is the explain step's, which writes --explain's list
	 * there as its child ends: init's child keeps it for that exec. */
	rep.next_hook = msg_hook;
	msg_hook = hook;
	if (ending.memory_mib)
		rep.r.cap_bytes = (long long)ending.memory_mib << 20;
	if (ending.pids)
		rep.r.pids_cap = (long long)ending.pids;
	if (ending.timeout) {
		rep.r.timeout_ms = (long long)ending.timeout;
		rep.r.kill_after_ms = (long long)ending.kill_after;
	}
}

void report_keep(int *fd, int *rfd, int *dfd, int *efd)
{
	*fd = rep.fd;
	*rfd = rep.rfd;
	*dfd = rep.dfd;
	*efd = rep.efd;
}

int report_signal(int sig, const siginfo_t *si)
{
	if (sig != SIGIO || rep.efd < 0 || si->si_code == SI_USER || si->si_code == SI_QUEUE)
		return 0;
	while (tally_read(&rep.egress, rep.efd) > 0)
		;
	return 1;
}

/* What the explain step wrote into -D's memfd: the "denials" array, or
 * NULL. */
static void read_denials(void)
{
	off_t size = rep.dfd >= 0 ? lseek(rep.dfd, 0, SEEK_END) : 0;
	char *buf;

	if (size <= 0 || !(buf = malloc((size_t)size + 1)))
		return;
	if (pread(rep.dfd, buf, (size_t)size, 0) != size) {
		free(buf);
		return;
	}
	buf[size] = '\0';
	rep.r.denials = buf;
}

/* Everything the steps wrote; the pipe is non-blocking and its writers
 * are gone or never write again (the target never held it). */
static void read_pipe(void)
{
	static char buf[1 << 16];
	size_t len = 0;
	ssize_t n;

	if (rep.rfd < 0)
		return;
	for (;;) {
		char *nl;

		n = read(rep.rfd, buf + len, sizeof buf - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		while ((nl = memchr(buf, '\n', len))) {
			take_line(buf, (size_t)(nl - buf));
			len -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, len);
		}
		if (len == sizeof buf)
			len = 0; /* a line longer than the buffer: not a step's */
	}
}

/* The counters: the cgroup's, read by the watcher, else init's rusage
 * (which covers every process of the run that was waited for). */
static void usage_facts(void)
{
	const struct caphits *h = &ending.hits;
	struct report *r = &rep.r;

	r->oom_kills = h->oom_kills;
	r->memory_source = h->peak_bytes >= 0 ? (h->version == 2 ? "memory.peak" :
	                   "memory.max_usage_in_bytes") : "rusage";
	r->peak_bytes = h->peak_bytes >= 0 ? h->peak_bytes : (long long)run.ru.ru_maxrss * 1024;
	if (h->refused_forks >= 0) {
		r->pids = 1;
		r->refused_forks = h->refused_forks;
	}
	if (h->user_us >= 0 && h->system_us >= 0) {
		r->cpu_source = h->version == 2 ? "cpu.stat" : "cpuacct";
		r->user_s = (double)h->user_us / 1e6;
		r->system_s = (double)h->system_us / 1e6;
	} else {
		r->cpu_source = "rusage";
		r->user_s = (double)run.ru.ru_utime.tv_sec + (double)run.ru.ru_utime.tv_usec / 1e6;
		r->system_s = (double)run.ru.ru_stime.tv_sec + (double)run.ru.ru_stime.tv_usec / 1e6;
	}
}

int report_end(int status)
{
	struct report *r = &rep.r;
	int raw = status & 0xffff;
	/* Without the pipe (supervise run by hand with -O alone), the
	 * status is taken to be the target's. */
	int ran;

	if (rep.fd < 0 || rep.written)
		return 0;
	read_pipe();
	read_denials();
	if (rep.efd >= 0) {
		/* the connections the run left end as their sockets close */
		r->egress_complete = tally_drain(&rep.egress, rep.efd, TALLY_DRAIN_MS);
		r->egress = &rep.egress;
	}
	ran = rep.rfd < 0 || (rep.exec_seen && !r->fatal);
	usage_facts();
	if (ran && WIFEXITED(raw))
		r->target_exit = WEXITSTATUS(raw);
	else if (ran)
		r->target_signal = WTERMSIG(raw);
	if (WIFEXITED(raw))
		r->wrapper_exit = WEXITSTATUS(raw);
	else
		r->wrapper_signal = WTERMSIG(raw);
	if (status & ENDED_TIMEOUT) {
		r->outcome = "timed_out";
		r->wrapper_exit = EXIT_TIMEOUT;
		r->wrapper_signal = -1;
	} else if (ran) {
		r->outcome = WIFEXITED(raw) ? "exited" : "signaled";
	} else if (WIFEXITED(raw)) {
		r->outcome = WEXITSTATUS(raw) ? outcome_of(WEXITSTATUS(raw)) : "exited";
	} else {
		r->outcome = "signaled";
	}
	return write_report();
}
