/* try-view: attempt one thing the view step must hold (Landlock before ABI 9
 * does not), from inside the chain, and report how it went. Prints "ok" or
 * "refused: <errno text>" and exits 0 when it was done, 1 when it was
 * refused, 2 on usage errors.
 *
 *   try-view chmod FILE MODE          chmod(2), MODE in octal
 *   try-view utime FILE               utimensat(2): times set to the epoch
 *   try-view setxattr FILE            setxattr(2) user.sharness = "x"
 *   try-view unix-connect PATH        connect(2) to a pathname UNIX socket
 *   try-view inotify PATH             inotify_add_watch(2), IN_ALL_EVENTS
 *   try-view stat PATH                stat(2)
 *   try-view mmap-exec FILE           map FILE's first page PROT_EXEC, as ld.so does
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "try.h"

int main(int argc, char **argv)
{
	const char *op = argc > 2 ? argv[1] : "", *a = argc > 2 ? argv[2] : "";
	struct stat st;
	int fd;

	if (!strcmp(op, "chmod") && argc > 3)
		return result(chmod(a, (mode_t)strtoul(argv[3], NULL, 8)));
	if (!strcmp(op, "utime")) {
		struct timespec t[2] = { { 0, 0 }, { 0, 0 } };
		return result(utimensat(AT_FDCWD, a, t, 0));
	}
	if (!strcmp(op, "setxattr"))
		return result(setxattr(a, "user.sharness", "x", 1, 0));
	if (!strcmp(op, "unix-connect")) {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		if (strlen(a) >= sizeof sa.sun_path)
			return 2;
		strcpy(sa.sun_path, a);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return result(-1);
		return result(connect(fd, (struct sockaddr *)&sa, sizeof sa));
	}
	if (!strcmp(op, "inotify")) {
		fd = inotify_init1(IN_CLOEXEC);
		if (fd < 0)
			return result(-1);
		return result(inotify_add_watch(fd, a, IN_ALL_EVENTS));
	}
	if (!strcmp(op, "stat"))
		return result(stat(a, &st));
	if (!strcmp(op, "mmap-exec")) {
		fd = open(a, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return result(-1);
		return result(mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) ==
		              MAP_FAILED ? -1 : 0);
	}
	fprintf(stderr, "usage: try-view chmod|utime|setxattr|unix-connect|inotify|"
	        "stat|mmap-exec PATH [MODE]\n");
	return 2;
}
