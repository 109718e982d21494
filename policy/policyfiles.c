/* The files.* rules that are more than the form of a path (policy.h):
 * the host's ptys in no list, and files.tmpfs, a fresh tmpfs at each path,
 * which may lie beneath the other lists' paths (it hides that part of
 * them: read "/" and a private /tmp) and may hold read, exec, write and
 * socket paths, which the view binds on top of it (a project under /tmp
 * with a private /tmp); it never equals one, nor holds another tmpfs, nor
 * a protected path or env.private but through a write path beneath it:
 * the tmpfs would hide them. */
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "policy.h"
#include "text.h"

const char *policy_never_written(const char *path)
{
	/* Always read-only in the view (a capability-less uid 0 still passes
	 * their permission bits), so never a files.write path. */
	static const char *const ro[] = {
		"/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/sys",
	};

	for (size_t k = 0; k < sizeof ro / sizeof *ro; k++)
		if (path_beneath(path, ro[k]))
			return ro[k];
	return NULL;
}

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

/* Report at files.tmpfs[I] when OTHER (at key path KP) equals it, or when
 * HIDDEN and OTHER lies beneath it; 1 when reported. */
static int overlap(const struct policy *p, size_t i, const char *kp, const char *other,
                   int hidden, void (*report)(void *ctx, const char *kp, const char *msg),
                   void *ctx)
{
	char at[64], msg[128 + 2 * QUOTED_MAX], q[QUOTED_MAX];
	const char *t = p->tmpfs.v[i];
	int same = other && !strcmp(other, t);

	if (!other || !(same || (hidden && path_beneath(other, t))))
		return 0;
	snprintf(at, sizeof at, "files.tmpfs[%zu]", i);
	snprintf(msg, sizeof msg, "%s %s: %s", same ? "also in" : "would hide", kp,
	         quote(q, other, strlen(other), QUOTE_ALWAYS));
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

/* PATH, beneath the tmpfs T, would be hidden by it: it is no rule the
 * view binds on top (files.protected, env.private), and no files.write
 * path beneath T holds it. */
static int hidden_beneath(const struct policy *p, const char *t, const char *path)
{
	for (size_t w = 0; w < p->write.n; w++)
		if (p->write.v[w] && strcmp(p->write.v[w], t) &&
		    path_beneath(p->write.v[w], t) && path_beneath(path, p->write.v[w]))
			return 0;
	return 1;
}

void policy_tmpfs_overlaps(const struct policy *p,
                           void (*report)(void *ctx, const char *kp, const char *msg),
                           void *ctx)
{
	/* The view mounts each tmpfs first and binds the read, exec, write
	 * and socket paths beneath it on top (as bwrap does by order): those
	 * only clash when equal. A nested tmpfs would hide the other. */
	const struct { const char *key; const struct strlist *l; int bound; } lists[] = {
		{ "files.read", &p->read, 1 }, { "files.exec", &p->exec, 1 },
		{ "files.write", &p->write, 1 }, { "files.protected", &p->protected, 0 },
		{ "files.sockets", &p->sockets, 1 }, { "files.tmpfs", &p->tmpfs, 0 },
	};
	const char *t;
	char kp[64];
	int said;

	/* Each value gets at most one message: the first path it would hide. */
	for (size_t i = 0; i < p->tmpfs.n; i++) {
		/* one refused or a duplicate is reported as such already */
		if (!(t = p->tmpfs.v[i]) || policy_path_refused(t, 1) || earlier(&p->tmpfs, i))
			continue;
		said = 0;
		for (size_t k = 0; k < sizeof lists / sizeof *lists && !said; k++)
			for (size_t j = 0; j < lists[k].l->n && !said; j++) {
				const char *o = lists[k].l->v[j];
				if (lists[k].l == &p->tmpfs && o && !strcmp(o, t))
					continue;
				snprintf(kp, sizeof kp, "%s[%zu]", lists[k].key, j);
				said = overlap(p, i, kp, o, !lists[k].bound &&
				               (lists[k].l == &p->tmpfs || (o && hidden_beneath(p, t, o))),
				               report, ctx);
			}
		if (!said)
			overlap(p, i, "env.private", p->env_private, p->env_private &&
			        hidden_beneath(p, t, p->env_private), report, ctx);
	}
}
