/* try-super: what a target may try against its supervisor and the run, for
 * tests/step/supervise.bats and tests/step/limits.bats. A test tool.
 *
 *   try-super traceme STATUS     PTRACE_TRACEME, then a ptrace stop (a
 *                                caught SIGUSR1), then exit STATUS
 *   try-super prlimit PID        lower PID's RLIMIT_NOFILE to 0 and its
 *                                RLIMIT_FSIZE to 0: "ok" or "refused: ERR"
 *   try-super signals FILE       append the number of each signal caught
 *                                to FILE (one a line); FILE.ready once set
 *                                up; exit 3 after SIGTERM
 *   try-super memfd MIB          fill a memfd with MIB MiB: "ok" or
 *                                "refused: ERR"
 *   try-super memfd-exec         memfd_create(MFD_EXEC): "ok" or "refused: ERR"
 *   try-super ready FILE [WORD]  every signal to its default action, create
 *                                FILE, then wait for signals for good
 *
 * Exit: 0 done (whatever the answer), 1 refused, 2 usage. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif

static int out_fd = -1;
static volatile sig_atomic_t got_term, got_usr1;

static void record(int sig)
{
	char buf[8];
	int n = 0;

	if (sig >= 10)
		buf[n++] = (char)('0' + sig / 10);
	buf[n++] = (char)('0' + sig % 10);
	buf[n++] = '\n';
	if (write(out_fd, buf, (size_t)n) < 0)
		_exit(4);
	if (sig == SIGTERM)
		got_term = 1;
}

static void on_usr1(int sig)
{
	(void)sig;
	got_usr1 = 1;
}

static int refused(void)
{
	printf("refused: %s\n", strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "traceme")) {
		struct sigaction sa;

		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_usr1;
		sigaction(SIGUSR1, &sa, NULL);
		if (ptrace(PTRACE_TRACEME, 0, 0, 0) < 0)
			return refused();
		raise(SIGUSR1); /* a signal-delivery stop for our tracer */
		return got_usr1 ? atoi(argv[2]) : 5;
	}
	if (argc == 3 && !strcmp(argv[1], "prlimit")) {
		struct rlimit zero = { 0, 0 };
		pid_t pid = (pid_t)atoi(argv[2]);

		if (prlimit(pid, RLIMIT_NOFILE, &zero, NULL) < 0 ||
		    prlimit(pid, RLIMIT_FSIZE, &zero, NULL) < 0)
			return refused();
		puts("ok");
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "signals")) {
		struct sigaction sa;
		char ready[4096];
		sigset_t none;
		int fd;

		out_fd = open(argv[2], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (out_fd < 0)
			return refused();
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = record;
		sigfillset(&sa.sa_mask);
		sa.sa_flags = SA_RESTART;
		for (int sig = 1; sig < 32; sig++)
			if (sig != SIGKILL && sig != SIGSTOP && sig != SIGCHLD)
				sigaction(sig, &sa, NULL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		snprintf(ready, sizeof ready, "%s.ready", argv[2]);
		if ((fd = open(ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) < 0)
			return refused();
		close(fd);
		while (!got_term)
			sigsuspend(&none);
		return 3;
	}
	if (argc == 3 && !strcmp(argv[1], "memfd")) {
		static char chunk[1 << 20];
		long mib = atol(argv[2]);
		int fd = (int)syscall(SYS_memfd_create, "try-super", 0U);

		if (fd < 0)
			return refused();
		memset(chunk, 'x', sizeof chunk);
		for (long i = 0; i < mib; i++)
			if (write(fd, chunk, sizeof chunk) != (ssize_t)sizeof chunk)
				return refused();
		puts("ok");
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "memfd-exec")) {
		if (syscall(SYS_memfd_create, "try-super", MFD_EXEC) < 0)
			return refused();
		puts("ok");
		return 0;
	}
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "ready")) {
		sigset_t none;
		int fd;

		for (int sig = 1; sig < 32; sig++)
			if (sig != SIGKILL && sig != SIGSTOP)
				signal(sig, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if ((fd = open(argv[2], O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) < 0)
			return refused();
		close(fd);
		for (;;)
			pause();
	}
	fprintf(stderr, "usage: try-super traceme STATUS | prlimit PID | signals FILE | "
	        "memfd MIB | memfd-exec | ready FILE [WORD]\n");
	return 2;
}
