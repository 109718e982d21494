/* walkfloor: the floor of the view step's walk of a write path, for
 * bench/writepath.sh: the tree at DIR listed (one getdents64 pass of each
 * directory, following no symlink), and with -s one statx(2) of each
 * entry besides; then it execs PROGRAM. A benchmark, not a test.
 *
 *   walkfloor [-s] DIR PROGRAM [ARG...] */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* getdents64's record (linux_dirent64) */
struct dent64 { unsigned long long ino; long long off; unsigned short reclen;
                unsigned char type; char name[]; };

static int stat_each;

static void walk(int fd)
{
	static char bufs[64][32768];
	static int depth;
	char *buf = bufs[depth++];
	struct statx sx;
	long n;

	while ((n = syscall(SYS_getdents64, fd, buf, sizeof bufs[0])) > 0)
		for (long off = 0; off < n; off += ((struct dent64 *)(buf + off))->reclen) {
			struct dent64 *de = (struct dent64 *)(buf + off);
			int d;
			if (de->name[0] == '.' && (!de->name[1] || (de->name[1] == '.' && !de->name[2])))
				continue;
			if (stat_each)
				syscall(SYS_statx, fd, de->name, AT_SYMLINK_NOFOLLOW, STATX_MODE, &sx);
			if (de->type == 4 && depth < 64 &&	/* DT_DIR */
			    (d = openat(fd, de->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) >= 0)
				walk(d);
		}
	depth--;
	close(fd);
}

int main(int argc, char **argv)
{
	int i = 1, fd;

	if (argc > 1 && !strcmp(argv[1], "-s"))
		stat_each = 1, i++;
	if (argc - i < 2) {
		fputs("usage: walkfloor [-s] DIR PROGRAM [ARG...]\n", stderr);
		return 2;
	}
	if ((fd = open(argv[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		perror(argv[i]);
		return 1;
	}
	walk(fd);
	execv(argv[i + 1], argv + i + 1);
	perror(argv[i + 1]);
	return 127;
}
