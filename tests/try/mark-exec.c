/* mark-exec DIR PROGRAM [ARG...]: mark DIR (an open directory) as the view
 * step does (viewmark.h), naming this process, then become PROGRAM: the
 * best a forger can do, a mark that names the process that will check it.
 * For tests/realsuites.bats, which shows that the landlock step trusts
 * such a mark only on the root of a tmpfs mount that its uid owns. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "viewmark.h"

const char *progname = "mark-exec";

int main(int argc, char **argv)
{
	int fd;

	if (argc < 3) {
		fputs("usage: mark-exec DIR PROGRAM [ARG...]\n", stderr);
		return 125;
	}
	if ((fd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 || view_mark(fd) < 0) {
		perror("mark-exec: unable to mark the directory");
		return 126;
	}
	close(fd);
	execv(argv[2], argv + 2);
	perror("mark-exec: unable to execute");
	return 126;
}
