/* run --explain's observer (explain.h; DESIGN.md 4.7), in the explain
 * step: outside the target's domain, in the host's mount namespace (the
 * step runs before the view and the landlock step), it traces its child's
 * whole tree, the rest of the chain and the target. The landlock step's SECCOMP_RET_TRACE rules stop
 * each path-taking and socket call, all calls the filter allows;
 * PTRACE_SYSCALL takes it to its exit stop, where PTRACE_GET_SYSCALL_INFO
 * gives the result, and explaincall.c says what a failure meant. The
 * filter's own refusals are SECCOMP_RET_TRAP rules under --explain
 * (seccomp.h): the kernel never runs them, and the observer records each
 * at its SIGSYS, sets the rule's errno and drops the signal. Memory is
 * read with process_vm_readv (tracee.c), by pids of the step's own pid
 * namespace, the run's (its /proc is the host's). The observer only ever looks,
 * or makes a call fail: it never lets one through that would not pass
 * without it, and no call the filter refuses depends on it. ptrace and
 * CLONE_UNTRACED are refused under --explain, so it is every process's
 * only tracer. PTRACE_O_EXITKILL: if the step dies, so does the tree;
 * and with no tracer, the kernel fails a TRACE rule's call with ENOSYS. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/audit.h>

#include "common.h"
#include "exitcodes.h"
#include "explain.h"
#include "seccomp.h"

/* The kernel's struct ptrace_syscall_info, whatever the C library has. */
struct sysinfo_ {
	uint8_t op;
	uint8_t pad[3];
	uint32_t arch;
	uint64_t ip, sp;
	union {
		struct { uint64_t nr, args[6]; } entry;
		struct { int64_t rval; uint8_t is_error; } exit;
		struct { uint64_t nr, args[6]; uint32_t ret_data; } seccomp;
	} u;
};

#ifndef SYS_io_uring_setup
# define SYS_io_uring_setup 425
# define SYS_io_uring_enter 426
# define SYS_io_uring_register 427
#endif
#ifndef SYS_openat2
# define SYS_openat2 437
#endif
#ifndef PTRACE_GET_SYSCALL_INFO
# define PTRACE_GET_SYSCALL_INFO 0x420e
#endif
#ifndef SYS_SECCOMP
# define SYS_SECCOMP 1
#endif
#ifndef CLONE_UNTRACED
# define CLONE_UNTRACED 0x00800000
#endif
#define INFO_EXIT 2
#define INFO_SECCOMP 3

/* --- the traced tasks, by tid --- */

struct task {
	pid_t pid;
	int in_call;      /* between its seccomp stop and its exit stop */
	struct call call;
	char *cwd;        /* NULL: not known */
	struct task *next;
};

#define BUCKETS 1024
static struct task *tasks[BUCKETS];
static char *start_cwd;
static int go[2] = { -1, -1 };

static struct task *task_find(pid_t pid, int make)
{
	struct task **b = &tasks[(unsigned)pid % BUCKETS], *t;

	for (t = *b; t; t = t->next)
		if (t->pid == pid)
			return t;
	if (!make || !(t = calloc(1, sizeof *t)))
		return NULL;
	t->pid = pid;
	t->cwd = start_cwd ? strdup(start_cwd) : NULL;
	t->next = *b;
	*b = t;
	return t;
}

void observe_exited(pid_t pid)
{
	struct task **b = &tasks[(unsigned)pid % BUCKETS], *t;

	for (; (t = *b); b = &t->next)
		if (t->pid == pid) {
			*b = t->next;
			free(t->cwd);
			free(t);
			return;
		}
}

static void set_cwd(struct task *t, const char *cwd)
{
	char *c = cwd ? strdup(cwd) : NULL;

	free(t->cwd);
	t->cwd = c;
}

/* Does the netns step's seccomp fallback refuse sockets here? Its rule
 * holds this step too (EAFNOSUPPORT), and the landlock step repeats it as a
 * trap for the target: a probe of what the kernel does, not of what argv
 * says. */
static int fallback_sockets;

static void probe_fallback(void)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	fallback_sockets = fd < 0 && errno == EAFNOSUPPORT;
	if (fd >= 0)
		close(fd);
}

/* --- starting --- */

void observe_prepare(void)
{
	if (pipe2(go, O_CLOEXEC) < 0)
		die(EXIT_CONFINE, "unable to make the observer's pipe");
}

/* In the step's child: go on only once the step traces us, so that the
 * landlock step's TRACE rules find their tracer. */
void observe_child(void)
{
	char c;

	close(go[1]);
	if (read(go[0], &c, 1) != 1)
		_exit(EXIT_CONFINE);
	close(go[0]);
}

void observe_start(pid_t child)
{
	char cwd[4096];
	long opts = PTRACE_O_TRACESECCOMP | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
	            PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_TRACESYSGOOD |
	            PTRACE_O_EXITKILL;

	close(go[0]);
	if (ptrace(PTRACE_SEIZE, child, 0, opts) < 0) {
		int err = errno;

		kill(child, SIGKILL);
		die_hint(EXIT_CONFINE, err, "kernel.yama.ptrace_scope 2 lets only CAP_SYS_PTRACE "
		         "trace; run without --explain", "unable to trace the command for --explain");
	}
	probe_fallback();
	/* The view step keeps the cwd's path, inside the view or not. */
	if (getcwd(cwd, sizeof cwd))
		start_cwd = strdup(cwd);
	task_find(child, 1);
	if (write(go[1], "", 1) != 1)
		die(EXIT_CONFINE, "unable to start the traced command");
	close(go[1]);
}

/* --- the stops --- */

/* The errno the seccomp filters refuse call C with under --explain
 * (seccomp.h: the traps of SECCOMP_EXPLAIN), from the call itself: a
 * filter of the target's own may trap the same call with other data, or
 * trap another call with ours, and the newest filter's data is what the
 * signal carries. 0: not a call our filters refuse. */
static int refused_by_rule(const struct call *c)
{
	if (setid_refused(c))
		return EPERM;
	switch (c->nr) {
	case SYS_openat2: case SYS_io_uring_setup: case SYS_io_uring_enter:
	case SYS_io_uring_register:
		return ENOSYS;
	case SYS_keyctl: case SYS_add_key: case SYS_request_key: case SYS_ptrace:
		return EPERM;
#ifdef SYS_clone
	case SYS_clone:
		return c->args[0] & CLONE_UNTRACED ? EPERM : 0;
#endif
#ifdef SYS_socket
	case SYS_socket: case SYS_socketpair:
		return fallback_sockets && (int)c->args[0] != AF_UNIX ? EAFNOSUPPORT : 0;
#endif
	}
	return 0;
}

/* Make the call PID stopped in fail with ERR; 0, or -1. At a seccomp
 * stop the call is skipped (nr -1); at a trap's SIGSYS it never ran, and
 * nr -1 keeps the kernel from restarting it. */
static int set_result(pid_t pid, int err)
{
#if defined(__x86_64__)
	if (ptrace(PTRACE_POKEUSER, pid, offsetof(struct user_regs_struct, orig_rax), -1L) == 0 &&
	    ptrace(PTRACE_POKEUSER, pid, offsetof(struct user_regs_struct, rax), (long)-err) == 0)
		return 0;
#else
	(void)pid;
	(void)err;
#endif
	return -1;
}

/* A call only a filter of the target's own stops (ours give data 0 and
 * name only what seccomptrace.c lists), or one the observer cannot tell:
 * skip it, failing with ENOSYS as the kernel does where nobody traces.
 * If that cannot be done the task dies: a traced call the observer leaves
 * alone would run. */
static void refuse(pid_t pid)
{
	if (set_result(pid, ENOSYS) < 0)
		kill(pid, SIGKILL);
}

/* A setgid server's getppid (lib/setgidcall.h: setgid_tell), let run as
 * it came: it refused a file's bit to a traced task, still waiting in
 * the call whose number and first four arguments the registers hold.
 * Anything may make that call (a filter of the target's own could give
 * the data too), and tell no more than the call it names would, made for
 * real; the tid must be a task this observer traces. */
static void told(const struct sysinfo_ *i)
{
	pid_t tid = (pid_t)i->u.seccomp.args[0];
	struct task *w = task_find(tid, 0);
	struct call c = { (long)i->u.seccomp.args[1], { i->u.seccomp.args[2],
	                  i->u.seccomp.args[3], i->u.seccomp.args[4], i->u.seccomp.args[5], 0, 0 } };

	if (w && tid > 0)
		explain_setid(tid, &c, EPERM, w->cwd, 1);
}

static void seccomp_stop(struct task *t)
{
	struct sysinfo_ i;

	memset(&i, 0, sizeof i);
	if (ptrace(PTRACE_GET_SYSCALL_INFO, t->pid, sizeof i, &i) <= 0 || i.op != INFO_SECCOMP) {
		refuse(t->pid);
		ptrace(PTRACE_CONT, t->pid, 0, 0);
		return;
	}
	t->call.nr = (long)i.u.seccomp.nr;
	memcpy(t->call.args, i.u.seccomp.args, sizeof t->call.args);
	if (i.u.seccomp.ret_data == SECCOMP_TRACE_SETGID && t->call.nr == SYS_getppid) {
		told(&i);
		ptrace(PTRACE_CONT, t->pid, 0, 0);
		return;
	}
	if (!seccomp_traced(t->call.nr) || i.u.seccomp.ret_data) {
		refuse(t->pid);
		ptrace(PTRACE_CONT, t->pid, 0, 0);
		return;
	}
	t->in_call = 1;
	ptrace(PTRACE_SYSCALL, t->pid, 0, 0);
}

/* The signal-delivery stop of a SIGSYS: 1 when it was our filter's trap
 * (SECCOMP_EXPLAIN), now recorded, its errno set and the signal dropped.
 * The call never ran, whatever happens here. Any other SIGSYS (a filter
 * of the target's own, a kill) is delivered as it came: 0. */
static int trap_stop(struct task *t)
{
#if defined(__x86_64__)
	struct user_regs_struct r;
	siginfo_t si;
	int err;

	memset(&si, 0, sizeof si);
	if (ptrace(PTRACE_GETSIGINFO, t->pid, 0, &si) < 0 || si.si_code != SYS_SECCOMP ||
	    si.si_arch != AUDIT_ARCH_X86_64 || ptrace(PTRACE_GETREGS, t->pid, 0, &r) < 0 ||
	    (long)r.orig_rax != (long)si.si_syscall)
		return 0;
	t->call = (struct call){ (long)r.orig_rax, { r.rdi, r.rsi, r.rdx, r.r10, r.r8, r.r9 } };
	if (!(err = refused_by_rule(&t->call)) ||
	    (unsigned)si.si_errno != (SECCOMP_TRAP_REFUSED | (unsigned)err) ||
	    set_result(t->pid, err) < 0)
		return 0;
	if (setid_refused(&t->call))
		explain_setid(t->pid, &t->call, err, t->cwd, 0);
	else
		explain_refused(t->pid, &t->call, err);
	ptrace(PTRACE_CONT, t->pid, 0, 0);
	return 1;
#else
	(void)t;
	return 0;
#endif
}

static void exit_stop(struct task *t)
{
	struct sysinfo_ i;
	int err;

	memset(&i, 0, sizeof i);
	if (t->in_call && ptrace(PTRACE_GET_SYSCALL_INFO, t->pid, sizeof i, &i) > 0 &&
	    i.op == INFO_EXIT) {
		err = i.u.exit.is_error ? (int)-i.u.exit.rval : 0;
		explain_call(t->pid, &t->call, err, t->cwd);
		if (!err && t->call.nr == SYS_chdir) {
			char name[4096], abs[4096];

			set_cwd(t, observe_string(t->pid, t->call.args[0], name, sizeof name) > 0 ?
			        absolute(t->pid, AT_FDCWD, name, t->cwd, abs) : NULL);
		} else if (!err && t->call.nr == SYS_fchdir) {
			char abs[4096];

			set_cwd(t, fd_path(t->pid, (int)t->call.args[0], abs) == 0 ? abs : NULL);
		}
	}
	t->in_call = 0;
	ptrace(PTRACE_CONT, t->pid, 0, 0);
}

/* A new task (fork, vfork, clone) starts with its parent's cwd. */
static void new_task(struct task *parent)
{
	unsigned long msg = 0;
	struct task *t;

	if (ptrace(PTRACE_GETEVENTMSG, parent->pid, 0, &msg) == 0 &&
	    (t = task_find((pid_t)msg, 1)))
		set_cwd(t, parent->cwd);
}

int observe_status(pid_t pid, int status)
{
	struct task *t;
	int sig, event;

	if (!WIFSTOPPED(status))
		return 0;
	sig = WSTOPSIG(status);
	event = (unsigned)status >> 16;
	if (!(t = task_find(pid, 1))) {
		kill(pid, SIGKILL); /* out of memory: stop nothing half-way */
		return 1;
	}
	if (sig == (SIGTRAP | 0x80)) {
		exit_stop(t);
	} else if (sig == SIGTRAP && event == PTRACE_EVENT_SECCOMP) {
		seccomp_stop(t);
	} else if (sig == SIGTRAP && (event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK ||
	                              event == PTRACE_EVENT_CLONE)) {
		new_task(t);
		ptrace(PTRACE_CONT, pid, 0, 0);
	} else if (event == PTRACE_EVENT_STOP) {
		/* A group-stop stays one until SIGCONT (job control); any
		 * other such stop (a new task's first) goes on. */
		if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU)
			ptrace(PTRACE_LISTEN, pid, 0, 0);
		else
			ptrace(PTRACE_CONT, pid, 0, 0);
	} else if (event) {
		ptrace(PTRACE_CONT, pid, 0, 0); /* exec */
	} else if (sig != SIGSYS || !trap_stop(t)) {
		ptrace(PTRACE_CONT, pid, 0, sig); /* a signal, delivered as it came */
	}
	return 1;
}
