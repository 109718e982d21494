/* run --verbose: every process a run forks (DESIGN.md 6), a line each
 * after the chain, "PROG: fork: CHILD, by PARENT: what it does", read from
 * the chain's own words as each step's page says it forks: supervise, the
 * watcher (with caps, its -c; without, only where no pid namespace can be
 * made, which it finds out at run time), init and init's child; under
 * --explain the explain step, its traced child; the listen
 * step (the object form's), the listen guard and the guard's child; the
 * landlock step's setgid server and its child (not in the object form);
 * the front end's socket scan beside the chain
 * (landlock's -S). No other step forks. A fork decided at run time is named with its condition. */
#include <stdio.h>
#include <string.h>

#include "runvec.h"

/* The setgid server's procfs: the view's, or without namespaces the
 * step's own (landlock.c). */
#define NOPIDONLY "not with a pid namespace but no mount namespace"

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* 1 when the step whose words start at V, up to its "--", has OPT (no
 * option argument of the chain looks like one: paths are absolute). */
static int has(char *const *v, const char *opt)
{
	for (v++; strcmp(*v, "--"); v++)
		if (!strcmp(*v, opt))
			return 1;
	return 0;
}

static void say(FILE *f, const char *cond, const char *child, const char *parent,
                const char *what)
{
	fprintf(f, "%s: fork%s%s%s: %s, by %s: %s\n", progname, cond ? " (" : "",
	        cond ? cond : "", cond ? ")" : "", child, parent, what);
}

void print_forks(const struct vec *chain, size_t ntarget, FILE *f)
{
	char *const *v = chain->v;
	char what[128];
	size_t i = 0, next;

	int caps = 0; /* a limits step, whose cgroup the watcher makes */

	for (size_t j = 0; j < chain->n - ntarget; j++)
		caps |= !strcmp(base(v[j]), "sharness-exec-limits");
	for (; i < chain->n - ntarget; i = next) {
		const char *step = base(v[i]), *guard = has(v + i, "-b") ?
		                   "where it can be started" : NULL;

		for (next = i; strcmp(v[next], "--"); next++)
			;
		next++;
		if (!strcmp(step, "sharness-exec-landlock") && has(v + i, "--scan"))
			say(f, NULL, "the socket scan", progname, "reads the rule directories and "
			    "/proc/net/unix beside the chain, for the landlock step's --scan");
		if (!strcmp(step, "sharness-exec-landlock") && !has(v + i, "-H")) {
			say(f, NOPIDONLY, "the setgid server", step,
			    "forks the server's child and exits at once");
			say(f, NOPIDONLY, "the setgid server's child",
			    "the setgid server", "sets the setgid bit on a directory the "
			    "command owns, outside the domain");
		}
		if (!strcmp(step, "sharness-exec-egress")) {
			snprintf(what, sizeof what, "makes the run's network namespace and the "
			         "listener in it, then execs %s, the rest of the chain", base(v[next]));
			say(f, NULL, "the run", step, what);
			say(f, NULL, "the egress server", step, "serves the listener, confined, "
			    "in the caller's network namespace");
		}
		if (!strcmp(step, "sharness-exec-supervise")) {
			say(f, caps ? NULL : "only without a pid namespace", "the watcher", step,
			    caps ? "makes the run's cgroup for the caps, reads its counters and "
			    "removes it" : "makes a cgroup that only tracks the run, and removes it");
			say(f, NULL, "init", step, "pid 1 of the run's pid namespace (without "
			    "one, a subreaper), which reaps what the run leaves");
			snprintf(what, sizeof what, "execs %s, the rest of the chain", base(v[next]));
			say(f, NULL, "init's child", "init", what);
		} else if (!strcmp(step, "sharness-exec-explain")) {
			snprintf(what, sizeof what, "execs %s, the rest of the chain, which the "
			         "step traces", base(v[next]));
			say(f, NULL, "the traced child", step, what);
		} else if (!strcmp(step, "sharness-exec-listen")) {
			say(f, guard, "the listen guard", step, "forks the guard's child and "
			    "exits at once");
			say(f, guard, "the listen guard's child", "the listen guard", "answers "
			    "the seccomp filter's listen(2) calls, outside the domain");
		}
	}
}
