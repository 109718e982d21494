/* no-openat2: exec PROGRAM under a seccomp filter that makes openat2(2)
 * fail with ENOSYS, as on a kernel before 5.6, so that the tests reach
 * the O_NOFOLLOW walk of open_nofollow (helper.c) for real. Native
 * syscall ABI only; a test tool.
 *
 *   no-openat2 PROGRAM [ARG...]     exit 2 usage, 3 no filter
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#ifndef SYS_openat2
# define SYS_openat2 437
#endif

int main(int argc, char **argv)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof f / sizeof *f, f };

	if (argc < 2) {
		fputs("usage: no-openat2 PROGRAM [ARG...]\n", stderr);
		return 2;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0) {
		perror("no-openat2: seccomp");
		return 3;
	}
	execvp(argv[1], argv + 1);
	perror("no-openat2: exec");
	return 127;
}
