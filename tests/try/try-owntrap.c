/* try-owntrap NR DATA: install a seccomp filter of our own that returns
 * SECCOMP_RET_TRAP with DATA (16 bits) for syscall NR, with a SIGSYS
 * handler; then make that call (no arguments). Prints "handler" when our
 * handler took the SIGSYS, else "returned N" with what the call returned
 * (-errno on failure). A filter of the target's own that traps must reach
 * the target's handler under --explain as without it, whatever its data:
 * the observer takes only its own filter's traps. Exit 2 on usage errors,
 * 1 if the filter cannot be installed. */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

static volatile sig_atomic_t took;

static void on_sys(int sig)
{
	(void)sig;
	took = 1;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	long nr, r;
	unsigned data;

	if (argc != 3)
		return fprintf(stderr, "usage: try-owntrap NR DATA\n"), 2;
	nr = strtol(argv[1], NULL, 0);
	data = (unsigned)strtoul(argv[2], NULL, 0) & SECCOMP_RET_DATA;
	{
		struct sock_filter f[] = {
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (__u32)nr, 0, 1),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP | data),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};
		struct sock_fprog prog = { sizeof f / sizeof *f, f };

		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_sys;
		if (sigaction(SIGSYS, &sa, NULL) < 0 ||
		    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0) {
			perror("try-owntrap: filter");
			return 1;
		}
	}
	r = syscall(nr, 0, 0, 0, 0, 0, 0);
	if (took)
		printf("handler\n");
	else
		printf("returned %ld\n", r < 0 ? -(long)errno : r);
	return 0;
}
