/* sharness-exec-launch, `sharness-exec launch` (DESIGN.md 4.8): what its
 * files share. The front end execs this program with launch's words as
 * they are; it reads, pins, verifies and checks the manifest, once
 * (command.c), and, as root, makes the session and runs it:
 *
 *   launcher (L)  the front end's process: the manifest, the session id,
 *                 uids and their locks, network and mount namespaces,
 *                 state directories, CA and certificates (command.c,
 *                 launcher.c, uids.c, session.c, identity.c); then it
 *                 forks the session init and the watcher, passes signals
 *                 on to the init, and waits
 *   init (S)      pid 1 of the session's pid namespace: starts each
 *                 component through `sharness-exec run`, waits until it
 *                 is ready, runs main, and ends the session (start.c,
 *                 ready.c, loop.c, freeze.c); when it dies, the kernel kills every
 *                 process of the session
 *   watcher (W)   its own session, outliving the launcher: waits for the
 *                 init's end, then removes the session's cgroups and
 *                 releases the uids, last (teardown.c, cgroups.c)
 */
#ifndef SHARNESS_LAUNCH_H
#define SHARNESS_LAUNCH_H

#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "common.h"
#include "load.h"
#include "manifest.h"

/* The session's tmpfs, in the session's mount namespace only: a state
 * directory for each role, SESSION_DIR/ROLE, that role's uid's alone. */
#define RUN_DIR      "/run/sharness-exec"
#define SESSION_DIR  RUN_DIR "/session"
#define UIDS_DIR     RUN_DIR "/uids"
#define SHARE_DIR    MANIFEST_SHARE_DIR   /* SHARE_DIR/NAME, each share's */
#define LOGS_DIR     MANIFEST_LOGS_DIR    /* LOGS_DIR/ROLE.log, main's read_logs */
#define KEPT_DIR     RUN_DIR "/kept"     /* --keep's, root's alone (0700) */
#define STATUS_FILE  MANIFEST_STATUS_FILE  /* in SESSION_DIR */
#define READY_LINE_MAX 4096
#define STOP_GRACE_MS  5000     /* SIGTERM, then SIGKILL this long after */
#define LOG_LINE_MAX   4096     /* bytes of a component's line; longer ones are cut */
#define LOG_TAIL       5        /* lines kept for "ended before it was ready" */
#define LOG_TAIL_MAX   240      /* bytes kept of each, escaped */

struct role {
	const struct component *c;  /* the manifest's; main is comp[ncomp] */
	int main;
	uid_t uid;
	gid_t gid;
	char ids[32];               /* "UID:GID", or main's --user as given */
	int lock;                   /* its uid's lock, or -1 (main's --user) */
	char state[sizeof SESSION_DIR + 80];
	int policy;                 /* sealed memfd of its inline policy */
	pid_t pid;                  /* its run's supervisor, in the session */
	int pidfd;
	int out, err;               /* its stdout's and stderr's read ends, or -1 */
	int ready, bad;             /* its line has been read; it broke a rule */
	char line[READY_LINE_MAX + 1];
	size_t len;
	char part[2][LOG_LINE_MAX]; /* a line of its stdout, of its stderr, so far */
	size_t plen[2];
	int log;                    /* DIR/ROLE.log of --logs, or -1 */
	int live;                   /* LOGS_DIR/ROLE.log, main's to read, or -1 */
	char tail[LOG_TAIL][LOG_TAIL_MAX];  /* its last lines, escaped, a ring */
	size_t ntail;               /* lines it wrote, all told */
	int status;                 /* its wait status once it ended */
	int ended;
	int started, up;            /* started; ready (and frozen) */
	pid_t probe;                /* its readiness probe, or -1 */
	int probefd;
	struct timespec deadline;   /* of its readiness */
	int cg;                     /* its cgroup2 cgroup (freeze_when_ready), or -1 */
	int frozen;                 /* it was frozen, and is not thawed yet */
	pid_t check;                /* its health check's process, or -1 (health.c) */
	int checkfd;                /* ... its pidfd */
	int phase;                  /* ... HEALTH_TCP, HEALTH_HTTP or HEALTH_COMMAND */
	struct timespec due;        /* its next check, or the running one's limit */
	unsigned long fails;        /* its checks failed in a row */
	char unwell[160];           /* why the last one failed */
	int checked, unhealthy;     /* a check of it passed; it failed its last */
};

struct launch {
	struct loaded l;            /* the manifest's bytes, read once */
	struct manifest man;        /* ... checked */
	int dry;                    /* --dry-run: the checks alone, after the plan */
	const char *range;          /* --uid-range, or NULL */
	struct role *r;             /* the components in order, then main */
	size_t n;                   /* components and main */
	unsigned char id[16];       /* the session's id */
	char session[33];           /* the same, lower-case hex */
	char ca_hash[80];           /* SHARNESS_AI_SESSION_CA */
	int frontend;               /* the front end, to exec: run */
	int logdir;                 /* --logs's directory, or -1 */
	pid_t self;                 /* the init's pid outside, for /proc/PID/fd */
	char **cmd;                 /* main's command */
	const char *user;           /* --user for main, or NULL */
	unsigned long first, last;  /* the uid range */
	int status_w;               /* the init's end, to the launcher */
	int sigfd;                  /* the init's signals */
	int fg;                     /* the launch began in the terminal's foreground */
	int tty;                    /* on a terminal: job control (loop.c) */
	int jobs;                   /* the launcher's word on it, "f" or "b" */
	int main_stopped;           /* main stopped, so the launch too */
	int keep;                   /* --keep */
	int explain;                /* --explain: each role's run --explain-as ROLE */
	int hostmnt;                /* --keep: the host's mount namespace, or -1 */
	int keep_r;                 /* --keep: the watcher's end of how main ended, or -1 */
	char kept[sizeof KEPT_DIR + 66];  /* KEPT_DIR/NAME of the manifest's id */
	gid_t share_gid[MANIFEST_SHARE_MAX];  /* each share's group (uids.c) */
	int share_lock[MANIFEST_SHARE_MAX];   /* ... its id's lock */
};

#define USAGE "sharness-exec-launch -F FD [launch] [--dry-run] --manifest FILE " \
	"[--expect-hash sha256:HEX] [--trust-key FILE]... [--signature FILE] " \
	"[--expect-id ID] [--uid-range FIRST-LAST] [--user USER] [--logs DIR] " \
	"[--keep] [--explain] -- COMMAND [ARG...]\n" \
	"       sharness-exec-launch [--manifest-fd FD] check FILE\n" \
	"       sharness-exec-launch [-F FD launch] status"

/* command.c: launch's words ARGV (ARGV[0] the word before its first
 * option); FRONT: given after the word launch, so it speaks as the front
 * end's launch. The manifest read once, pinned, verified and checked into
 * S, with S's options; then the front end's refusal of a caller who is
 * not root and --logs's directory opened, or under --dry-run the plan
 * printed (a refused chain's status is the exit status). */
void launch_command(struct launch *s, int argc, char **argv, int front);
/* `check FILE`, the front end's of a manifest, from FD (--manifest-fd: the bytes
 * it read) or when FD is -1 from FILE: the problems, or the plan. */
int launch_check(int fd, int argc, char **argv);
/* -F, --manifest-fd: an open descriptor above 2, made close-on-exec, or 125. */
int fd_arg(const char *opt, const char *arg);
int usage_help(void);
/* Refuse (125) a caller who is not root, unless S->dry. */
void launch_need_root(const struct launch *s);

/* launcher.c: the wait status S's end means; S writes it to L. */
#define END_CODE(c)   ((c) & 0xff)
#define END_SIGNAL(s) (0x100 | (s))

/* uids.c: check --uid-range against passwd, group, /etc/subuid,
 * /etc/subgid and systemd's ranges (125 when it overlaps one); then take
 * a free uid for each role without --user, each locked with flock(2) on
 * UIDS_DIR/UID, disjoint from every other launch's. */
void uids_parse(struct launch *s, const char *arg);
void uids_check(const struct launch *s);
void uids_take(struct launch *s);
/* RUN_DIR, made if need be (root's, 0755, not a link), open; NAME in AT,
 * made if need be with MODE, refused unless root's with MODE, open. */
int run_dir(void);
int own_dir(int at, const char *name, mode_t mode);

/* session.c: the session's network namespace (lo up) and mount namespace
 * with its tmpfs at SESSION_DIR, a state directory per role, and each
 * share's directory in SHARE_DIR (its first writer's, its group's, 2770 or
 * 2750 with readers); LOGS_DIR with the logs main reads (r->live); the
 * policies' memfds. */
void session_make(struct launch *s);
/* identity.c: the CA and a certificate for each role with identity, in
 * its state directory; the CA's key wiped before this returns. */
void identity_issue(struct launch *s);

/* start.c: fork and exec `sharness-exec run` for role R (S). */
void start_role(struct launch *s, struct role *r);
/* In a child of the init: exec `sharness-exec run` of CMD as R, under R's
 * policy, with what launch gives R. */
NORETURN void exec_run(const struct launch *s, const struct role *r, char **cmd);
/* ready.c: start each component once every one it names in "after" is
 * ready (and frozen, for freeze_when_ready), the others together, and
 * wait until each is ready, draining them all; 126 naming one that ends
 * or is not ready in time. */
void components_start(struct launch *s);
/* unixready.c: the probe of R's UNIX socket, in R's view, as R. */
NORETURN void unix_probe(const struct role *r);
/* unixready.c: a probe's pause before its next try: 10 ms (*MS) through its
 * first second from T0, then 10 ms longer each time, up to 100 ms. */
void probe_pause(const struct timespec *t0, long *ms);
/* line.c: read what component R wrote on its stdout and stderr: its
 * first stdout line, for stdout_line, as its ready line, the rest to
 * log_bytes; 0 once both are at their end. */
int drain(struct role *r);
/* Each role's, as it is now: before a fatal line, so that it comes after
 * what they wrote before it. */
void drain_all(struct launch *s);
/* logs.c: a component's output, a line at a time, "ROLE| LINE" on the
 * launch's stderr (and LINE in DIR/ROLE.log with --logs), each line's
 * control bytes, backslashes and bytes that are not UTF-8 escaped, so
 * that no component's line can pass for another's. L opens the logs in
 * DIR (-L, the front end's checked descriptor) before anything runs. */
void logs_open(struct launch *s, int dir);
void log_bytes(struct role *r, int err, const unsigned char *b, size_t n);
/* The line R was writing on its stdout (ERR 0) or stderr, unended. */
void log_flush(struct role *r, int err);
/* Into WHY: how R ended ("exit status 1", "killed by signal 9"), and then
 * its last lines (at most LOG_TAIL) on stderr, after the fatal line. */
void log_ended(const struct role *r, char *why, size_t n);
void log_tail(const struct role *r);
/* ready.c: of the sockets listening on PORT in FILE (/proc/net/tcp's
 * format), *MINE UID's and *OTHER another uid's; in a probe's child. */
void tcp_listeners(const char *file, unsigned port, uid_t uid, int *mine, int *other);
/* health.c: each component's health check (the manifest's health) while
 * main runs, every interval_ms after the last one ended: a TCP connect to
 * its port as its uid, then an HTTP GET so (2xx or 3xx), then its command
 * run under its policy (exit 0); fails checks in a row, each a refusal,
 * another uid's listener, a status or no answer within timeout_ms, end
 * the session (126, naming it). The
 * loop polls each role's checkfd until health_ms, then health_events. */
enum { HEALTH_TCP = 1, HEALTH_HTTP, HEALTH_COMMAND };
void health_start(struct launch *s);
long health_ms(const struct launch *s);
void health_events(struct launch *s);
/* status.c: SESSION_DIR/STATUS_FILE written anew: each role's state. */
void status_write(const struct launch *s);
/* `launch status`: the status of each session running and each kept. */
int launch_status(void);
/* loop.c: S's life after the fork: start, ready, main, end. GO is the
 * launcher's pipe: a byte to start, then on each SIGCONT the launcher
 * gets, "f" if the shell gave the launch the terminal, else "b". */
NORETURN void session_init(struct launch *s, int go);
/* end.c: S ends the session: SIGTERM to every role still running,
 * SIGKILL after STOP_GRACE_MS, reaped; then the launcher hears END. */
NORETURN void session_end(struct launch *s, int end);
/* cgroups.c: a session cgroup beneath this process's own in each
 * hierarchy, which INIT joins (the runs' cgroups go beneath it); found
 * again and removed, bottom up, once the session is gone. */
void cgroups_make(const char *session, pid_t init);
void cgroups_remove(const char *session);
/* freeze.c: freeze_when_ready, on cgroup v2 only. L refuses (126) a
 * component with it where no cgroup2 cgroup of its own is writable; S,
 * before anything starts, makes a cgroup beneath the session's for each
 * such component, which its fork joins before the exec; freezes it once
 * it is ready, until cgroup.events says so; and thaws every frozen one
 * first thing at the session's end. */
void freeze_check(const struct component *c);
void freeze_join(const struct role *r);
void freeze_thaw(struct launch *s);
/* Each 0, or how the session is to end (END_CODE, END_SIGNAL): its
 * caller ends it (end.c calls freeze_thaw, so nothing here ends it). */
int freeze_prepare(struct launch *s);
int freeze_role(struct launch *s, struct role *r);
/* keep.c: --keep. The launcher, before the session's namespaces: S->kept
 * set, what an earlier launch of the same id kept removed, and with
 * --keep the host's mount namespace opened. The watcher, once the session
 * is gone: its tmpfs mounted at S->kept in the host's mount namespace,
 * which it joins, and where said; 0, or -1 said. */
void keep_clear(struct launch *s);
int keep_move(const struct launch *s);
/* teardown.c: the watcher, forked by L: it waits on INIT (a pidfd) and
 * then removes what the session left, and releases the uids last. */
pid_t watcher_start(struct launch *s, int init, int keep_w);

int pidfd_open_(pid_t pid);
int pidfd_signal(int pidfd, int sig);

#endif
