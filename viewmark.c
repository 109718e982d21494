/* The view's mark (viewmark.h). The name is the inode number of a pidfd of
 * the process on pidfs (Linux 6.9 and later), which is unique to the
 * process for as long as the machine runs, and the same across its execs.
 * Why it cannot be forged: the view step writes it, then makes the root
 * read-only, and the landlock step reads it before the target exists; a
 * view step that could not make a mount namespace wrote none, and a tmpfs
 * that another process marked (the root of an outer run's view, when a
 * confined target runs sharness-exec again and its view cannot stand)
 * names that other process, not this one.
 *
 * The name of a process to come can be guessed (pidfs numbers its inodes
 * in order), so the mark must also sit where only the view step could
 * have put it: on the root of a tmpfs mount (not a directory in one, such
 * as a host's /tmp, where another user could mark one of theirs) that this
 * process's uid owns. What is left is the caller's own doing: a confined
 * target of the same uid that marks a tmpfs it may write and then runs
 * sharness-exec again where the inner view cannot stand gives the inner
 * run no more than that tmpfs, which it already holds. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <linux/magic.h>
#include <linux/stat.h>

#include "helper.h"
#include "viewmark.h"

#ifndef PID_FS_MAGIC
#define PID_FS_MAGIC 0x50494446
#endif

/* This process's name, "pidfs:INODE", in BUF (32 bytes); -1 with errno
 * where pidfds are anonymous inodes, all alike. */
static int token(char buf[32])
{
	int fd = (int)syscall(SYS_pidfd_open, getpid(), 0), e;
	struct statfs sf;
	struct statx st;

	if (fd < 0)
		return -1;
	if (fstatfs(fd, &sf) < 0 ||
	    syscall(SYS_statx, fd, "", AT_EMPTY_PATH, STATX_INO, &st) < 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	close(fd);
	if (sf.f_type != PID_FS_MAGIC) {
		errno = EOPNOTSUPP;
		return -1;
	}
	snprintf(buf, 32, "pidfs:%llu", (unsigned long long)st.stx_ino);
	return 0;
}

int view_mark(int dfd)
{
	char t[32];

	if (token(t) < 0)
		return -1;
	return fsetxattr(dfd, VIEW_MARK_XATTR, t, strlen(t), 0);
}

/* FD is the root of a mount, and this process's uid owns it. */
static int mount_root(int fd)
{
	struct statx sx;

	return syscall(SYS_statx, fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &sx) == 0 &&
		(sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
		(sx.stx_attributes & STATX_ATTR_MOUNT_ROOT) && sx.stx_uid == geteuid();
}

int view_marked(const char *path)
{
	char t[32], got[33];
	struct statfs sf;
	ssize_t n;
	int fd = open_nofollow(path, O_RDONLY | O_DIRECTORY), ok;

	if (fd < 0)
		return 0;
	ok = fstatfs(fd, &sf) == 0 && sf.f_type == TMPFS_MAGIC && mount_root(fd) &&
		token(t) == 0 &&
		(n = fgetxattr(fd, VIEW_MARK_XATTR, got, sizeof got - 1)) >= 0 &&
		(size_t)n == strlen(t) && !memcmp(got, t, (size_t)n);
	close(fd);
	return ok;
}
