/* The files.* rules that are more than the form of a path (policy.h):
 * the host's ptys in no list, and files.tmpfs, a fresh tmpfs at each path,
 * which may lie beneath the other lists' paths (it hides that part of
 * them: read "/" and a private /tmp) but never holds one, nor equals one,
 * nor holds env.private: the tmpfs would hide it. */
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "policy.h"
#include "text.h"

const char *policy_path_refused(const char *path, int tmpfs)
{
	/* /dev/ptmx bound alone gives ENOENT (it leads into the host's
	 * devpts), /dev/pts alone is the host's devpts, every user's ptys:
	 * /dev named whole has the run's own, which the landlock step makes
	 * usable. */
	if (!strcmp(path, "/dev/ptmx") || path_beneath(path, "/dev/pts"))
		return "the host's ptys: name /dev whole for a pty (the view "
		       "makes it a private devpts)";
	if (!tmpfs)
		return NULL;
	/* / holds every path; /proc (a fresh procfs) and /sys (read-only)
	 * are made by the view itself. */
	if (!strcmp(path, "/"))
		return "cannot be a tmpfs, it holds every path";
	if (path_beneath(path, "/proc"))
		return "beneath /proc, which the view makes itself";
	if (path_beneath(path, "/sys"))
		return "beneath /sys, which the view makes itself";
	return NULL;
}

/* Report at files.tmpfs[I] when OTHER (at key path KP) equals or lies
 * beneath it; 1 when reported. */
static int overlap(const struct policy *p, size_t i, const char *kp, const char *other,
                    void (*report)(void *ctx, const char *kp, const char *msg), void *ctx)
{
	char at[64], msg[128 + 2 * QUOTED_MAX], q[QUOTED_MAX];
	const char *t = p->tmpfs.v[i];

	if (!other || !path_beneath(other, t))
		return 0;
	snprintf(at, sizeof at, "files.tmpfs[%zu]", i);
	snprintf(msg, sizeof msg, "%s %s: %s", strcmp(other, t) ? "would hide" : "also in",
	         kp, quote(q, other, strlen(other), QUOTE_ALWAYS));
	report(ctx, at, msg);
	return 1;
}

/* L's entry I equals an earlier one. */
static int earlier(const struct strlist *l, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (l->v[j] && !strcmp(l->v[j], l->v[i]))
			return 1;
	return 0;
}

void policy_tmpfs_overlaps(const struct policy *p,
                           void (*report)(void *ctx, const char *kp, const char *msg),
                           void *ctx)
{
	const struct { const char *key; const struct strlist *l; } lists[] = {
		{ "files.read", &p->read }, { "files.exec", &p->exec },
		{ "files.write", &p->write }, { "files.protected", &p->protected },
		{ "files.tmpfs", &p->tmpfs },
	};
	char kp[64];
	int said;

	/* Each value gets at most one message: the first path it would hide. */
	for (size_t i = 0; i < p->tmpfs.n; i++) {
		/* one refused or a duplicate is reported as such already */
		if (!p->tmpfs.v[i] || policy_path_refused(p->tmpfs.v[i], 1) ||
		    earlier(&p->tmpfs, i))
			continue;
		said = 0;
		for (size_t k = 0; k < sizeof lists / sizeof *lists && !said; k++)
			for (size_t j = 0; j < lists[k].l->n && !said; j++) {
				if (lists[k].l == &p->tmpfs && p->tmpfs.v[j] &&
				    !strcmp(p->tmpfs.v[j], p->tmpfs.v[i]))
					continue;
				snprintf(kp, sizeof kp, "%s[%zu]", lists[k].key, j);
				said = overlap(p, i, kp, lists[k].l->v[j], report, ctx);
			}
		if (!said)
			overlap(p, i, "env.private", p->env_private, report, ctx);
	}
}
