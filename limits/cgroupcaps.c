/* cgroupcaps.c: the memory and process caps of sharness-exec-limits
 * (cgroup.h, cg_caps), in a cgroup that sharness-exec-supervise made:
 * cgroup v2's memory.max and pids.max, or cgroup v1's memory and pids
 * files. Nothing here prints: failures come back in WHY. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "common.h"

int cg_putat(int at, const char *file, const char *val, int optional)
{
	int fd = openat(at, file, O_WRONLY | O_TRUNC | O_CLOEXEC), r;

	if (fd < 0)
		return optional && errno == ENOENT ? 0 : -1;
	r = write_all(fd, val, strlen(val));
	if (close(fd) < 0 && r == 0)
		r = -1;
	return r < 0 ? -1 : 1;
}

int cg_readat(int at, const char *file, char *buf, size_t n)
{
	int fd = openat(at, file, O_RDONLY | O_CLOEXEC), err;
	ssize_t r;
	size_t len = 0;

	if (fd < 0)
		return -1;
	while (len + 1 < n && (r = read(fd, buf + len, n - 1 - len)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = errno;
			close(fd);
			errno = err;
			return -1;
		}
		len += (size_t)r;
	}
	buf[len] = '\0';
	close(fd);
	return 0;
}

int cg_enter_fd(int joinfd)
{
	return write_all(joinfd, "0", 1);
}

/* DIR/FILE = VAL (DIR open at AT), optional: 1 written, 0 missing, -1 with
 * WHY filled. */
static int put(int at, const char *dir, const char *file, const char *val, char *why,
               size_t whysz)
{
	int r = cg_putat(at, file, val, 1);

	if (r < 0)
		snprintf(why, whysz, "unable to write %s to %s/%s: %s", val, dir, file,
		         strerror(errno));
	return r;
}

/* The memory cap VAL into DIR: v2 first, unless an earlier cgroup of the
 * run was v1 (CG_V1 in DONE). */
static int memory(int at, const char *dir, const char *val, int *done, char *why,
                  size_t whysz)
{
	int r = 0;

	/* v2: memory.max, then no swap at all where swap exists */
	if (!(*done & CG_V1)) {
		if ((r = put(at, dir, "memory.max", val, why, whysz)) < 0)
			return -1;
		if (r == 1) {
			if (put(at, dir, "memory.swap.max", "0", why, whysz) < 0)
				return -1;
			*done |= CG_MEMORY;
			return 0;
		}
	}
	/* v1: memsw caps memory plus swap, so swap cannot get around the
	 * limit; it must not be below limit_in_bytes, which is why it comes
	 * second. */
	if ((r = put(at, dir, "memory.limit_in_bytes", val, why, whysz)) < 0 ||
	    (r == 1 && put(at, dir, "memory.memsw.limit_in_bytes", val, why, whysz) < 0))
		return -1;
	if (r == 1)
		*done |= CG_MEMORY | CG_V1;
	return 0;
}

int cg_caps(int at, const char *dir, unsigned long mib, unsigned long pids, int *done,
            char *why, size_t whysz)
{
	char val[32];
	int r;

	if (mib) {
		snprintf(val, sizeof val, "%llu", (unsigned long long)mib << 20);
		if (memory(at, dir, val, done, why, whysz) < 0)
			return -1;
	}
	if (pids) {
		snprintf(val, sizeof val, "%lu", pids);
		if ((r = put(at, dir, "pids.max", val, why, whysz)) < 0)
			return -1;
		if (r == 1)
			*done |= CG_PIDS;
	}
	return 0;
}
