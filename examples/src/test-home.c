/* A canary for the confinement itself: the suite runs confined, and the
 * policy gives it no access to $HOME, so creating a file there must fail:
 * ENOENT, since $HOME is not in the view, or EACCES where Landlock alone
 * refuses it. Run unconfined, this test fails (and removes what it made). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	const char *home = getenv("HOME");
	char path[4096];
	int fd;

	if (!home) {
		fputs("FAIL: HOME is not set\n", stderr);
		return 1;
	}
	snprintf(path, sizeof path, "%s/.sharness-exec-canary", home);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0) {
		fprintf(stderr, "FAIL: created %s: this suite is not confined\n", path);
		unlink(path);
		return 1;
	}
	if (errno != ENOENT && errno != EACCES) {
		fprintf(stderr, "FAIL: %s: %s (expected ENOENT or EACCES)\n", path, strerror(errno));
		return 1;
	}
	printf("ok: cannot write to %s\n", home);
	return 0;
}
