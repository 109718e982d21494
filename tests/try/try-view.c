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
 *   try-view mmap-write FILE          write "evil" at FILE's start through a shared
 *                                     writable mapping (its set-id bits stay)
 *   try-view memfd-exec FILE          copy FILE (this program) into a memfd made
 *                                     without MFD_NOEXEC_SEAL and fexecve it
 *                                     with "stat /" (the copy prints "ok")
 *   try-view mknod PATH b|c MAJ MIN   mknod(2) a block or character device
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
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
	if (!strcmp(op, "mmap-write")) {
		char *p;
		fd = open(a, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			return result(-1);
		p = mmap(NULL, 4, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED)
			return result(-1);
		memcpy(p, "evil", 4);
		return result(msync(p, 4, MS_SYNC));
	}
	if (!strcmp(op, "memfd-exec")) {
		char buf[65536], *args[] = { (char *)"try-view", (char *)"stat", (char *)"/", NULL };
		int in = open(a, O_RDONLY | O_CLOEXEC);
		ssize_t n;
		if (in < 0)
			return result(-1);
		fd = memfd_create("try-view", MFD_CLOEXEC);
		if (fd < 0)
			return result(-1);
		while ((n = read(in, buf, sizeof buf)) > 0)
			if (write(fd, buf, (size_t)n) != n)
				return result(-1);
		fexecve(fd, args, environ);
		return result(-1);
	}
	if (!strcmp(op, "mknod") && argc > 5)
		return result(mknod(a, (argv[3][0] == 'b' ? S_IFBLK : S_IFCHR) | 0666,
		                    makedev(strtoul(argv[4], NULL, 10), strtoul(argv[5], NULL, 10))));
	fprintf(stderr, "usage: try-view chmod|utime|setxattr|unix-connect|inotify|"
	        "stat|mmap-exec|mmap-write|memfd-exec|mknod PATH [ARGS]\n");
	return 2;
}
