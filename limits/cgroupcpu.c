/* cgroupcpu.c: the CPU cap of sharness-exec-limits (cgroup.h, cg_cpu), in
 * the cgroup that sharness-exec-supervise made with the cpu controller:
 * cgroup v2's cpu.max, or cgroup v1's CFS bandwidth files. Nothing here
 * prints: failures and clamps come back in WHY. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"
#include "common.h"

/* "20%", or "12.5%": a quota in microseconds per CG_CPU_PERIOD. */
static const char *pct(char *out, size_t n, unsigned long quota)
{
	if (quota % 1000)
		snprintf(out, n, "%.3g%%", (double)quota / 1000);
	else
		snprintf(out, n, "%lu%%", quota / 1000);
	return out;
}

/* The v1 quota that holds DIR from above: that of the nearest ancestor
 * with one (cgroup v1 checks a new quota against it alone), in
 * microseconds per CG_CPU_PERIOD, with the ancestor in AT. -1 when no
 * ancestor has one. */
static int ancestor_quota(const char *dir, unsigned long *quota, char *at)
{
	char q[32], p[32];
	long long quota_us, period_us;
	char *slash;

	snprintf(at, PATH_MAX, "%s", dir);
	while ((slash = strrchr(at, '/')) && slash != at) {
		*slash = '\0';
		if (cg_read(at, "cpu.cfs_quota_us", q, sizeof q) < 0 ||
		    cg_read(at, "cpu.cfs_period_us", p, sizeof p) < 0)
			return -1;
		quota_us = strtoll(q, NULL, 10);
		period_us = strtoll(p, NULL, 10);
		if (quota_us > 0 && period_us > 0) {
			*quota = (unsigned long)(quota_us * CG_CPU_PERIOD / period_us);
			return 0;
		}
	}
	return -1;
}

/* The failed write of VAL to DIR/FILE, with ERR, into WHY: -1. */
static int put_failed(char *why, size_t whysz, const char *dir, const char *file,
                      const char *val, int err)
{
	snprintf(why, whysz, "unable to write %s to %s/%s: %s", val, dir, file, strerror(err));
	return -1;
}

int cg_cpu(int at, const char *dir, unsigned long percent, int clamp, unsigned long *quota,
           char *why, size_t whysz)
{
	char val[48], anc[PATH_MAX], a[32], b[32];
	unsigned long top;
	int r, err;

	*quota = percent * 1000;
	/* v2: the quota and the period, in one file */
	snprintf(val, sizeof val, "%lu %d", *quota, CG_CPU_PERIOD);
	if ((r = cg_putat(at, "cpu.max", val, 1)) != 0)
		return r > 0 ? 1 : put_failed(why, whysz, dir, "cpu.max", val, errno);
	/* v1: the period first (it is 100000 by default), then the quota */
	snprintf(val, sizeof val, "%d", CG_CPU_PERIOD);
	if ((r = cg_putat(at, "cpu.cfs_period_us", val, 1)) <= 0)
		return r == 0 ? 0 : put_failed(why, whysz, dir, "cpu.cfs_period_us", val, errno);
	snprintf(val, sizeof val, "%lu", *quota);
	if (cg_putat(at, "cpu.cfs_quota_us", val, 0) > 0)
		return 1;
	err = errno;
	if (err != EINVAL || ancestor_quota(dir, &top, anc) < 0 || top >= *quota)
		return put_failed(why, whysz, dir, "cpu.cfs_quota_us", val, err);
	if (!clamp) {
		snprintf(why, whysz, "unable to cap CPU at %s (process.max_cpu_percent): the "
		         "caller's cgroup %s allows %s, and cgroup v1 refuses a quota above "
		         "it", pct(a, sizeof a, *quota), anc, pct(b, sizeof b, top));
		return -1;
	}
	snprintf(val, sizeof val, "%lu", top);
	if (cg_putat(at, "cpu.cfs_quota_us", val, 0) < 0)
		return put_failed(why, whysz, dir, "cpu.cfs_quota_us", val, errno);
	snprintf(why, whysz, "CPU capped at %s, which the caller's cgroup %s allows, not at "
	         "the %s of process.max_cpu_percent", pct(b, sizeof b, top), anc,
	         pct(a, sizeof a, *quota));
	*quota = top;
	return 2;
}
