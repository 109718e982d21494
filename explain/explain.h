/* sharness-exec-explain, the step of run --explain (DESIGN.md 4.7): it
 * forks the rest of the chain, and traces that child's tree from outside
 * the target's domain (observer.c: ptrace, the landlock step's
 * SECCOMP_RET_TRACE rules, each call taken to its exit stop); when the
 * child ends it lists every access the policy refused or hid (denials.c:
 * what each was, whether the path exists outside, the policy change that
 * would allow it), and exits as the child did. One list (struct denials)
 * and one printer, and beside it the JSON writer of the report's
 * "denials" (explainjson.c). The files, each calling only those below
 * it: explain.c (the step's main: options, fork, wait, exit), observer.c
 * (the tracer), explaincall.c (which access a call was), explainnet.c
 * (sockets, the filter's own refusals), denials.c (the policy, the
 * record, the printer), tracee.c (the tracee's memory and descriptors). */
#ifndef SHARNESS_EXPLAIN_H
#define SHARNESS_EXPLAIN_H

#include <stdio.h>
#include <sys/types.h>

/* One refused or hidden access, counted once however often it came. */
struct denial {
	const char *kind;    /* "read", "list", "write", "create", "remove",
	                      * "exec", "connect to UNIX socket", "TCP connect",
	                      * "TCP bind", "UDP connect", "UDP bind", ... */
	char *what;          /* the path, or ADDRESS:PORT, or what was asked */
	int err;             /* the errno the target saw */
	const char *status;  /* "hidden by the policy", "refused by the policy",
	                      * "absent", "unknown", "refused by the seccomp filter",
	                      * "refused by the setgid server" */
	char *allow;         /* the JSON to paste into the policy, or NULL */
	const char *why;     /* with no ALLOW: why no policy change allows it
	                      * (or, "unknown", why none can be suggested) */
	unsigned long count;
};

/* Every denial of the run, in the order each first came. At most
 * DENIALS_MAX distinct ones are kept (a hostile target could make
 * endless distinct paths); DROPPED counts the calls beyond. */
#define DENIALS_MAX 4096
struct denials {
	struct denial *v;
	size_t n, cap;
	unsigned long dropped;
};
extern struct denials denials;

/* The printer: one line each on F, or one line saying there was none;
 * each names AS after "explain: " when AS is not NULL (--as ROLE).
 * denials_json (explainjson.c): the report's "denials" array, written to
 * FD in one write (nothing when FD is -1). errname: "ENOENT" for ENOENT,
 * "errno" for a number it does not name. */
void denials_print(const struct denials *d, const char *as, FILE *f);
void denials_json(const struct denials *d, int fd);
const char *errname(int err);

/* denials.c: the observer's options, from explain.c's parse: -N (the
 * caller's network: the host's, the object form, or a session's), --proxy
 * PORT (network.hosts: no route but the egress step's 127.0.0.1:PORT), -r/-x/-w
 * PATH (the policy's read, exec and write paths, as the landlock step gets
 * them), -s PATH (its files.sockets). Returns 0 for an option that is not
 * one of these. */
int explain_option(int c, const char *arg, const char *usage);
/* Before the fork: tracing needs ptrace, which Yama's ptrace_scope 3
 * forbids (126). explain_scope: the scope, 0 where Yama is not there. */
int explain_scope(void);
void explain_check(void);

/* A traced call, from its seccomp stop to its exit stop. */
struct call {
	long nr;
	unsigned long long args[6];
};
/* explaincall.c: the call C of PID ended with -ERR (0: it did not
 * fail); CWD is the process's working directory as far as the observer
 * knows it (NULL: unknown). Records it in denials if the policy refused
 * or hid it. */
void explain_call(pid_t pid, const struct call *c, int err, const char *cwd);
/* explaincall.c: does the seccomp filter refuse call C for a set-id bit
 * in its mode (seccomp.h's SECCOMP_DENY_SETID)? explain_setid records it,
 * refused with ERR, by the filter or (SERVER) by a setgid server, which
 * told the observer of a file (observer.c). */
int setid_refused(const struct call *c);
void explain_setid(pid_t pid, const struct call *c, int err, const char *cwd, int server);
/* explainnet.c: the call C of PID was refused with ERR by a rule of the
 * seccomp filter (SECCOMP_EXPLAIN): record it from the filter's rule
 * table. */
void explain_refused(pid_t pid, const struct call *c, int err);

/* tracee.c: read the NUL-terminated string at ADDR in PID's memory, by
 * process_vm_readv (never /proc), into BUF of SIZE bytes: its length, or
 * -1. And LEN bytes at ADDR. fd_copy: a copy of PID's descriptor FD
 * (pidfd_getfd), which the caller closes at once; or -1. fd_path: its
 * path, in OUT (PATH_MAX): 0, or -1. */
ssize_t observe_string(pid_t pid, unsigned long long addr, char *buf, size_t size);
int observe_bytes(pid_t pid, unsigned long long addr, void *buf, size_t len);
int fd_copy(pid_t pid, int fd);
int fd_path(pid_t pid, int fd, char *out);

/* observer.c, in the step: before the fork, during it (in the child: wait
 * until traced), after it (seize the child, then let it go on), and at
 * each wait status: 1 when it was a stop of a traced process, which has
 * been dealt with. observe_exited: PID is gone. */
void observe_prepare(void);
void observe_child(void);
void observe_start(pid_t child);
int observe_status(pid_t pid, int status);
void observe_exited(pid_t pid);

/* denials.c, for explaincall.c and explainnet.c. Rights: */
#define R_READ 1
#define R_EXEC 2
#define R_WRITE 4
extern int host_net;   /* -N: the caller's network */
extern unsigned proxy_port; /* --proxy: network.hosts, the egress step's port */
void record(const char *kind, const char *what, int err, const char *status,
            const char *allow, const char *why);
void record_path(const char *kind, const char *path, const char *shown, int err,
                 int need, int parent, int suggest_dir);
const char *absolute(pid_t pid, int dirfd, const char *name, const char *cwd, char *out);
int failure_of_policy(int err);
/* A connect(2) to the UNIX socket PATH that failed with ERR: 1 when it
 * was a host socket the policy does not name (files.sockets), recorded. */
int record_unix_connect(const char *path, int err);
/* Which access an open with FLAGS of PATH (as the call named it: SHOWN)
 * was, recorded. */
void record_open(const char *path, const char *shown, int flags, int err);
/* A stat or access of PATH that failed: recorded as its read (or list)
 * only if PATH is there, hidden. */
void record_probe(const char *path, const char *shown, int err);
/* explainnet.c, for explaincall.c. */
void explain_socket(pid_t pid, const struct call *c, int err, const char *cwd, int bind);

#endif
