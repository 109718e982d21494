/* deny-unshare: exec PROGRAM under a seccomp filter that makes unshare(2)
 * fail with EPERM, as a container runtime that forbids namespaces does, so
 * that the tests reach the fallback of sharness-exec-netns for real. With
 * -s, seccomp(2) and prctl(PR_SET_SECCOMP) fail with EINVAL as well, as on a
 * kernel without seccomp filters. Native syscall ABI only; a test tool.
 *
 *   deny-unshare [-s] PROGRAM [ARG...]     exit 2 usage, 3 no filter
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#define RET(v) BPF_STMT(BPF_RET | BPF_K, (v))
#define IF_NOT(k, skip) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), 0, (skip))
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
# define ARG0_LO offsetof(struct seccomp_data, args)
#else
# define ARG0_LO (offsetof(struct seccomp_data, args) + 4)
#endif

int main(int argc, char **argv)
{
	int also_seccomp = argc > 1 && !strcmp(argv[1], "-s");
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		IF_NOT(SYS_unshare, 1),
		RET(SECCOMP_RET_ERRNO | EPERM),
		IF_NOT(SYS_seccomp, 1),         /* with -s only: see below */
		RET(SECCOMP_RET_ERRNO | EINVAL),
		IF_NOT(SYS_prctl, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_LO),
		IF_NOT(PR_SET_SECCOMP, 1),
		RET(SECCOMP_RET_ERRNO | EINVAL),
		RET(SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof f / sizeof f[0], f };

	if (argc < 2 + also_seccomp) {
		fprintf(stderr, "usage: deny-unshare [-s] PROGRAM [ARG...]\n");
		return 2;
	}
	if (!also_seccomp) {
		f[3] = (struct sock_filter)RET(SECCOMP_RET_ALLOW);
		prog.len = 4;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0) {
		perror("deny-unshare: unable to install the filter");
		return 3;
	}
	execvp(argv[1 + also_seccomp], argv + 1 + also_seccomp);
	perror("deny-unshare: unable to execute the program");
	return 127;
}
