/* The watcher of sharness-exec-supervise (supervise.h): a child of the
 * supervisor's, forked before the pid namespace is made, outside the run's
 * pid namespace and its cgroup, in a process group of its own (a kill of
 * the caller's process group leaves it), every signal blocked, holding only
 * stderr, its socket to the supervisor (UP and DOWN, one descriptor: a
 * pipe each way would hold two more at once) and a pipe to init. It makes
 * the run's cgroup, so that whatever it made is known to it, and sends it
 * UP (and to init, which may be forked
 * meanwhile on v1: see make_cgroup). Then it waits on DOWN: 'E' when the
 * supervisor has seen init exit (it then cleans up, answers 'R' so that
 * the supervisor leaves the leaf, and removes the leaf once the supervisor
 * closes DOWN), or EOF when the supervisor died (SIGKILL): it cleans up
 * all the same. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>

#include "common.h"
#include "ending.h"
#include "statuspipe.h"
#include "supervise.h"

static int is_fs(const char *path, long magic)
{
	struct statfs st;

	return statfs(path, &st) == 0 && (long)st.f_type == magic;
}

/* The run's cgroup with the controllers of WANT, on cgroup v2 at V2 if
 * given, else on v1; with none, without a pid namespace, a plain one that
 * only finds the run's processes again. 0, or -1 with WHY. */
static int try_cgroup(const char *text, const char *v2, int want, char *why)
{
	char hier[64];

	if (v2 && cg2_setup(&run.cg, v2, text, run.supervisor, getpid(), want, why, WHY_MAX) == 0)
		return 0;
	if (!want) {
		/* tracking only: any one v1 hierarchy of ours will do */
		want = is_fs("/sys/fs/cgroup/pids", CGROUP_SUPER_MAGIC) ? CG_PIDS :
		       is_fs("/sys/fs/cgroup/memory", CGROUP_SUPER_MAGIC) ? CG_MEMORY : 0;
		if (!want)
			return -1;
	}
	/* The v1 hierarchies are found by name, and only if mounted. */
	for (int i = 0; i < CG_NCTL; i++) {
		snprintf(hier, sizeof hier, "/sys/fs/cgroup/%s", cg_ctl[i]);
		if ((want & 1 << i) && !is_fs(hier, CGROUP_SUPER_MAGIC))
			return -1;
	}
	return cg1_setup(&run.cg, "/sys/fs/cgroup", text, run.supervisor, want, why, WHY_MAX);
}

/* Is every controller of WANT listed on a v1 line of the text of
 * /proc/self/cgroup? */
static int on_v1(const char *text, int want)
{
	char path[PATH_MAX];

	for (int i = 0; i < CG_NCTL; i++)
		if ((want & 1 << i) && cg_self_path(text, cg_ctl[i], path, sizeof path) < 0)
			return 0;
	return 1;
}

/* The run's cgroup: with the controllers asked for (for the limits step),
 * cgroup v2 first, then v1. WHY says why there is none. Where it goes to
 * v1 at once, it first sends 'G' UP: the supervisor may fork init while
 * the groups are made (v1 has no rule against a process in a cgroup with
 * children, v2 does: there init waits for the message, in a cgroup the
 * watcher may yet move the supervisor out of), and init takes the
 * message from TOINIT. */
static void make_cgroup(char *why, int up)
{
	static char text[16384];
	const char *v2 = NULL;
	FILE *f = fopen("/proc/self/cgroup", "re");
	size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;

	if (f)
		fclose(f);
	text[n] = '\0';
	snprintf(why, WHY_MAX, "no cgroup hierarchy is mounted");
	/* cgroup2 sits at /sys/fs/cgroup on a unified host, and at
	 * /sys/fs/cgroup/unified, usually without controllers, on a hybrid
	 * one; where every controller asked for is on a v1 hierarchy of
	 * ours, none of them can be on v2 (a controller is on one hierarchy
	 * at a time), which is then not looked at. */
	if (run.want && on_v1(text, run.want))
		run.early = write_all(up, "G", 1) == 0;
	else
		v2 = cg2_root();
	/* Where the cpu controller is not to be had (a v2 tree that does
	 * not delegate it), memory and pids still get their cgroup: the
	 * limits step then refuses, or under -b says that CPU is uncapped. */
	if (try_cgroup(text, v2, run.want, why) < 0 && (run.want & CG_CPU) && run.want != CG_CPU)
		try_cgroup(text, v2, run.want & ~CG_CPU, why);
}

int empty_cgroup(const struct cgroup *cg)
{
	struct timespec ms = { 0, 1000000L };

	for (int i = 0; cg->version && cg_kill(cg) > 0; i++) {
		if (i == 5000) {
			warnx_("unable to empty cgroup %s", cg->dir[0]);
			return -1;
		}
		while (waitpid(-1, NULL, WNOHANG | __WALL) > 0)
			;
		nanosleep(&ms, NULL);
	}
	return 0;
}

/* The cgroup and why there is none, as the watcher sends them UP, in
 * one write and most often one read: a length, the numbers, then the
 * paths in use, each with its NUL; some hundred bytes where the struct
 * and WHY are 25 KiB. */
static char msg[1 + sizeof(uint32_t) + 7 * sizeof(int) + sizeof(struct cgroup) + WHY_MAX];

static size_t put_str(size_t at, const char *s)
{
	size_t n = strlen(s) + 1;

	memcpy(msg + at, s, n);
	return at + n;
}

static size_t pack(const struct cgroup *cg, const char *why)
{
	int num[7] = { cg->version, cg->n, cg->enabled, cg->moved, cg->ctl[0], cg->ctl[1],
	               cg->ctl[2] };
	size_t at = 1 + sizeof(uint32_t) + sizeof num;
	uint32_t len;

	msg[0] = 'M';
	memcpy(msg + 1 + sizeof len, num, sizeof num);
	for (int i = 0; i < cg->n; i++)
		at = put_str(at, cg->dir[i]);
	at = put_str(put_str(put_str(at, cg->home), cg->sv), why);
	len = (uint32_t)(at - 1 - sizeof len);
	memcpy(msg + 1, &len, sizeof len);
	return at;
}

/* The next string of the message at *P (before END) into OUT, of MAX
 * bytes: 0, or -1 when it does not end there or does not fit. */
static int take_str(const char **p, const char *end, char *out, size_t max)
{
	const char *nul = memchr(*p, '\0', (size_t)(end - *p));

	if (!nul || (size_t)(nul - *p) >= max)
		return -1;
	memcpy(out, *p, (size_t)(nul - *p) + 1);
	*p = nul + 1;
	return 0;
}

int receive_cgroup(int fd, struct cgroup *cg, char *why)
{
	size_t got = 0;
	uint32_t len = 0;
	int num[7];
	const char *p, *end;

	while (got < sizeof len || got < sizeof len + len) {
		ssize_t r = read(fd, msg + got, sizeof msg - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
		if (got >= sizeof len && (memcpy(&len, msg, sizeof len),
		                          len < sizeof num || len > sizeof msg - sizeof len))
			return -1;
	}
	memcpy(num, msg + sizeof len, sizeof num);
	memset(cg, 0, sizeof *cg);
	cg->version = num[0];
	cg->n = num[1];
	cg->enabled = num[2];
	cg->moved = num[3];
	if (cg->n < 0 || cg->n > CG_NCTL)
		return -1;
	memcpy(cg->ctl, num + 4, sizeof cg->ctl);
	p = msg + sizeof len + sizeof num;
	end = msg + sizeof len + len;
	for (int i = 0; i < cg->n; i++)
		if (take_str(&p, end, cg->dir[i], sizeof cg->dir[i]) < 0)
			return -1;
	return take_str(&p, end, cg->home, sizeof cg->home) < 0 ||
	       take_str(&p, end, cg->sv, sizeof cg->sv) < 0 ||
	       take_str(&p, end, why, WHY_MAX) < 0 ? -1 : 0;
}

/* Read exactly N bytes: 0, or -1 on EOF or error. */
static int read_full(int fd, void *buf, size_t n)
{
	for (size_t got = 0; got < n; ) {
		ssize_t r = read(fd, (char *)buf + got, n - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

/* Kill and remove the run's cgroups, give back the controllers that were
 * enabled for them, and move the calling process (the watcher; the
 * supervisor when the watcher is gone) out of the supervisor's leaf.
 * The leaf itself is clean_leaf's. Each cgroup's counters are read, then
 * it is removed: an rmdir that succeeds proves it was empty (the kernel
 * refuses EBUSY while a process or a child cgroup is in it), and so that
 * the counters were final, without a read of cgroup.procs (on v1 about
 * 25 us each, here). Only where it is refused is it emptied and read
 * again. */
static void clean_cgroups(void)
{
	struct cgroup cg = run.cg;
	const char *bad;

	if (!cg.version)
		return;
	for (int i = 0; i < run.cg.n; i++) {
		struct cgroup one = { .version = cg.version, .n = 1, .ctl = { cg.ctl[i] } };
		struct caphits before = ending.hits;

		memcpy(one.dir[0], cg.dir[i], sizeof one.dir[0]);
		caps_read(&one);
		if (rmdir(one.dir[0]) == 0 || errno == ENOENT)
			continue;
		ending.hits = before;
		empty_cgroup(&one);
		caps_read(&one);
		if ((bad = cg_remove(&one, 0)))
			warnx_("unable to remove cgroup %s: %s", bad, strerror(errno));
	}
	/* the rest of cg_remove's: v2's controllers and the move back */
	cg.n = 0;
	cg.sv[0] = '\0';
	if ((bad = cg_remove(&cg, 0)))
		warnx_("unable to remove cgroup %s: %s", bad, strerror(errno));
}

/* Remove the leaf the supervisor and the watcher moved into (v2, alone in
 * the caller's cgroup), after killing what is left in it when KILL: the
 * watcher does so once the supervisor is dead, when what is left there is
 * the run's (init, or init's child before it joined the run's cgroup), the
 * watcher having moved out. A live supervisor has reaped init and moved
 * out, or failed to and is still there: never killed. */
static void clean_leaf(int kill)
{
	struct cgroup leaf = { .version = 2, .n = 1 };
	const char *bad;

	if (!run.cg.sv[0])
		return;
	memcpy(leaf.dir[0], run.cg.sv, sizeof leaf.dir[0]);
	if (kill && empty_cgroup(&leaf) < 0)
		return;
	if ((bad = cg_remove(&leaf, 0)))
		warnx_("unable to remove cgroup %s: %s", bad, strerror(errno));
}

static void watcher(int up, int down, int toinit) NORETURN;
static void watcher(int up, int down, int toinit)
{
	static char why[WHY_MAX];
	int keep[] = { 2, up, down, toinit }; /* UP and DOWN: one socket */
	char c = 0;
	ssize_t r;
	size_t len;

	/* A process group, not a session: setsid(2) also makes a new
	 * scheduler autogroup (sched_autogroup_enabled, on by default), which
	 * on a busy machine kept the watcher waiting for a CPU for 2 ms a
	 * run. Every signal is blocked: the terminal's reach no further. */
	setpgid(0, 0);
	keep_only(keep, 4);
	status_close();
	make_cgroup(why, up);
	len = pack(&run.cg, why);
	/* init first, which waits for it; a dead one's EPIPE is no matter */
	if (run.early)
		write_all(toinit, msg + 1, len - 1);
	close(toinit);
	if (write_all(up, msg, len) < 0)
		c = 0; /* the supervisor is gone: clean up all the same */
	if (!run.cg.version)
		_exit(0);
	while ((r = read(down, &c, 1)) < 0 && errno == EINTR)
		;
	clean_cgroups();
	/* Without a leaf (v1, or v2 where the supervisor did not move)
	 * nothing is left to do after the answer: exit at once, and the
	 * supervisor's waitpid needs no second round trip. */
	msg[0] = 'R';
	memcpy(msg + 1, &ending.hits, sizeof ending.hits);
	if (r == 1 && c == 'E' && write_all(up, msg, 1 + sizeof ending.hits) == 0 && run.cg.sv[0])
		while ((r = read(down, &c, 1)) > 0 || (r < 0 && errno == EINTR))
			;
	/* reparented: the supervisor is dead */
	clean_leaf(getppid() != run.supervisor);
	_exit(0);
}

/* The watcher's message: into run.cg and WHY. */
void watcher_wait(char *why)
{
	char tag = 0;

	if (run.early)
		read_full(run.up, &tag, 1);
	if (run.early && tag != 'M')
		diex(EXIT_CONFINE, "the watcher died before the cgroup was made");
	run.early = 0;
	if (receive_cgroup(run.up, &run.cg, why) < 0)
		diex(EXIT_CONFINE, "the watcher died before the cgroup was made");
	if (!run.cg.version) {
		/* nothing to watch: it has exited */
		while (waitpid(run.watcher, NULL, 0) < 0 && errno == EINTR)
			;
		close(run.up); /* and DOWN, the same */
		run.watcher = 0;
		run.up = run.down = -1;
	}
}

void start_watcher(char *why)
{
	int sv[2], toinit[2];
	char tag = 0;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 ||
	    pipe2(toinit, O_CLOEXEC) < 0 || (run.watcher = fork()) < 0)
		die(EXIT_CONFINE, "unable to start the watcher");
	if (run.watcher == 0) {
		close(sv[0]);
		close(toinit[0]);
		watcher(sv[1], sv[1], toinit[1]);
	}
	close(sv[1]);
	close(toinit[1]);
	run.up = run.down = sv[0];
	run.toinit = toinit[0];
	read_full(run.up, &tag, 1);
	if (tag == 'G') {
		run.early = 1;
		return;
	}
	if (tag != 'M')
		diex(EXIT_CONFINE, "the watcher died before the cgroup was made");
	close(run.toinit);
	run.toinit = -1;
	watcher_wait(why); /* the rest, after 'M' */
}

/* Leave the leaf when the watcher says so. If the watcher is gone (killed
 * from outside), clean up ourselves. Without a leaf the watcher exits
 * once it has answered: it is waited for first, and its answer, left in
 * the pipe, read after, one wake-up instead of two. */
void end_watcher(void)
{
	static char why[WHY_MAX];
	char answer[1 + sizeof ending.hits] = "";
	int reaped = 0;

	if (run.early)
		watcher_wait(why);
	if (!run.watcher)
		return;
	if (write_all(run.down, "E", 1) == 0 && !run.cg.sv[0]) {
		shutdown(run.down, SHUT_WR);
		while (waitpid(run.watcher, NULL, 0) < 0 && errno == EINTR)
			;
		reaped = 1;
	}
	if (read_full(run.up, answer, sizeof answer) < 0)
		answer[0] = '\0';
	if (answer[0] == 'R') {
		memcpy(&ending.hits, answer + 1, sizeof ending.hits);
	} else {
		clean_cgroups();
		clean_leaf(0);
	}
	if (answer[0] == 'R' && run.cg.moved && cg_enter(run.cg.home) < 0)
		warnx_("unable to move back into cgroup %s: %s", run.cg.home, strerror(errno));
	/* DOWN closed: the watcher removes the leaf */
	close(run.down);
	if (!reaped)
		while (waitpid(run.watcher, NULL, 0) < 0 && errno == EINTR)
			;
	run.watcher = 0;
	run.cg.version = 0;
}
