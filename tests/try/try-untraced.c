/* try-untraced PROGRAM [ARG...]: issue 37's escape from --explain's
 * observer. A child made with clone(CLONE_UNTRACED), which the observer's
 * PTRACE_O_TRACE* options do not attach, asks to be traced by us
 * (PTRACE_TRACEME) and executes PROGRAM; we set PTRACE_O_TRACESECCOMP and
 * continue every stop unchanged, so that a SECCOMP_RET_TRACE rule's call
 * would run, and drop every SIGSYS, so that a SECCOMP_RET_TRAP rule's
 * would not kill it (the call then returns what the register held: its
 * number). Also the tracer of a step run under it from outside. Prints what PROGRAM prints, and exits with its status (or
 * 128 + the signal that killed it); if the child cannot be made or
 * traced, prints "refused: ERRNO TEXT" (the step that failed on stderr)
 * and exits 1, as try-syscall does. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "try.h"

#ifndef CLONE_UNTRACED
# define CLONE_UNTRACED 0x00800000
#endif

static int refused(const char *what)
{
	int err = errno;

	fprintf(stderr, "try-untraced: %s: %s\n", what, strerror(err));
	errno = err;
	return result(-1);
}

int main(int argc, char **argv)
{
	int tell[2], st, err = 0;
	long pid;

	if (argc < 2) {
		fprintf(stderr, "usage: try-untraced PROGRAM [ARG...]\n");
		return 2;
	}
	if (pipe(tell) < 0)
		return refused("pipe");
	fflush(stdout);
	pid = syscall(SYS_clone, CLONE_UNTRACED | SIGCHLD, 0, 0, 0, 0);
	if (pid < 0)
		return refused("clone(CLONE_UNTRACED)");
	if (pid == 0) {
		close(tell[0]);
		if (ptrace(PTRACE_TRACEME, 0, 0, 0) < 0) {
			err = errno;
			if (write(tell[1], &err, sizeof err) < 0)
				_exit(1);
			_exit(1);
		}
		close(tell[1]);
		raise(SIGSTOP);
		execv(argv[1], argv + 1);
		_exit(127);
	}
	close(tell[1]);
	if (read(tell[0], &err, sizeof err) == sizeof err) {
		waitpid((pid_t)pid, NULL, 0);
		errno = err;
		return refused("PTRACE_TRACEME");
	}
	if (waitpid((pid_t)pid, &st, 0) < 0 || !WIFSTOPPED(st))
		return refused("the child's first stop");
	if (ptrace(PTRACE_SETOPTIONS, pid, 0, PTRACE_O_TRACESECCOMP | PTRACE_O_TRACEEXEC |
	           PTRACE_O_EXITKILL) < 0)
		return refused("PTRACE_SETOPTIONS");
	ptrace(PTRACE_CONT, pid, 0, 0);
	for (;;) {
		int sig;

		if (waitpid((pid_t)pid, &st, __WALL) < 0)
			return refused("waitpid");
		if (WIFEXITED(st))
			return WEXITSTATUS(st);
		if (WIFSIGNALED(st))
			return 128 + WTERMSIG(st);
		sig = WSTOPSIG(st);
		/* A seccomp or exec event: on, the call run as the kernel
		 * runs it when the tracer does nothing. A trap: dropped. */
		ptrace(PTRACE_CONT, pid, 0, (st >> 16) || sig == SIGTRAP || sig == SIGSYS ? 0 : sig);
	}
}
