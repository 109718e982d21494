/* deny-landlock: exec PROGRAM under a seccomp filter that answers
 * landlock_create_ruleset(2) itself, the way container runtimes' default
 * profiles do for syscalls they do not know: with errno ERRNO (a number,
 * e.g. 1 for EPERM or 38 for ENOSYS), or by killing the caller (SIGSYS)
 * with "kill". Lets the tests see `probe` tell a filter from a kernel that
 * lacks Landlock. Native syscall ABI only; a test tool.
 *
 *   deny-landlock ERRNO|kill PROGRAM [ARG...]     exit 2 usage, 3 no filter
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

int main(int argc, char **argv)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_landlock_create_ruleset, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof f / sizeof f[0], f };
	char *end;
	long err;

	if (argc < 3) {
		fprintf(stderr, "usage: deny-landlock ERRNO|kill PROGRAM [ARG...]\n");
		return 2;
	}
	if (strcmp(argv[1], "kill")) {
		err = strtol(argv[1], &end, 10);
		if (*end || err < 1 || err > 4095) {
			fprintf(stderr, "deny-landlock: ERRNO must be 1 to 4095 or kill\n");
			return 2;
		}
		f[2] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
		                                    SECCOMP_RET_ERRNO | (unsigned)err);
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0) {
		perror("deny-landlock: unable to install the filter");
		return 3;
	}
	execvp(argv[2], argv + 2);
	perror("deny-landlock: unable to execute the program");
	return 127;
}
