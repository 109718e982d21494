/* cgroupcaps.c: the memory and process caps of sharness-exec-limits
 * (cgroup.h, cg_caps), in a cgroup that sharness-exec-supervise made:
 * cgroup v2's memory.max and pids.max, or cgroup v1's memory and pids
 * files. Nothing here prints: failures come back in WHY. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cgroup.h"
#include "common.h"

/* DIR/FILE = VAL, optional: 1 written, 0 missing, -1 with WHY filled. */
static int put(const char *dir, const char *file, const char *val, char *why, size_t whysz)
{
	int r = cg_put(dir, file, val, 1);

	if (r < 0)
		snprintf(why, whysz, "unable to write %s to %s/%s: %s", val, dir, file,
		         strerror(errno));
	return r;
}

/* The memory cap VAL into DIR: v2 first, unless an earlier cgroup of the
 * run was v1 (CG_V1 in DONE). */
static int memory(const char *dir, const char *val, int *done, char *why, size_t whysz)
{
	int r = 0;

	/* v2: memory.max, then no swap at all where swap exists */
	if (!(*done & CG_V1)) {
		if ((r = put(dir, "memory.max", val, why, whysz)) < 0)
			return -1;
		if (r == 1) {
			if (put(dir, "memory.swap.max", "0", why, whysz) < 0)
				return -1;
			*done |= CG_MEMORY;
			return 0;
		}
	}
	/* v1: memsw caps memory plus swap, so swap cannot get around the
	 * limit; it must not be below limit_in_bytes, which is why it comes
	 * second. */
	if ((r = put(dir, "memory.limit_in_bytes", val, why, whysz)) < 0 ||
	    (r == 1 && put(dir, "memory.memsw.limit_in_bytes", val, why, whysz) < 0))
		return -1;
	if (r == 1)
		*done |= CG_MEMORY | CG_V1;
	return 0;
}

int cg_caps(const char *dir, unsigned long mib, unsigned long pids, int *done,
            char *why, size_t whysz)
{
	char val[32];
	int r;

	if (mib) {
		snprintf(val, sizeof val, "%llu", (unsigned long long)mib << 20);
		if (memory(dir, val, done, why, whysz) < 0)
			return -1;
	}
	if (pids) {
		snprintf(val, sizeof val, "%lu", pids);
		if ((r = put(dir, "pids.max", val, why, whysz)) < 0)
			return -1;
		if (r == 1)
			*done |= CG_PIDS;
	}
	return 0;
}
