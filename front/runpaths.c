/* The front end's rule paths (runpaths.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "runpaths.h"
#include "trust.h"

/* The helpers open the resolved paths without following symlinks
 * (DESIGN.md 2). */
static void resolve_list(const char *key, const struct strlist *in,
                         struct strlist *out, int show)
{
	char r[PATH_MAX], why[3 * QUOTED_MAX + 256];
	int loud;

	out->v = calloc(in->n ? in->n : 1, sizeof *out->v);
	if (!out->v)
		diex(EXIT_REFUSED, "out of memory");
	for (size_t i = 0; i < in->n; i++) {
		if ((loud = resolve_rule(in->v[i], r, why, sizeof why)) < 0)
			die_hint(EXIT_REFUSED, 0, "a rule path may pass through a symlink only "
			         "when root or the caller owns it and the target's uid cannot "
			         "write the directory it is in; name the path it points to",
			         "refused: %s[%zu] %s: %s", key, i, q(in->v[i]), why);
		if (!(out->v[i] = strdup(r)))
			diex(EXIT_REFUSED, "out of memory");
		out->n++;
		/* Always said, but for root's links in "/" (merged /usr). */
		if ((show || loud) && strcmp(r, in->v[i]))
			fprintf(stderr, "%s: %s[%zu]: %s resolves to %s\n", progname, key, i,
			        q(in->v[i]), q(r));
	}
}

void resolve_rules(struct policy *p, int show)
{
	resolve_list("files.read", &p->read, &p->read_resolved, show);
	resolve_list("files.exec", &p->exec, &p->exec_resolved, show);
	resolve_list("files.write", &p->write, &p->write_resolved, show);
	resolve_list("files.protected", &p->protected, &p->protected_resolved, show);
	resolve_list("files.sockets", &p->sockets, &p->sockets_resolved, show);
	/* check has seen each beneath a write path; a link may lead out. */
	for (size_t i = 0; i < p->protected.n; i++) {
		size_t w = 0;
		while (w < p->write.n && !path_beneath(p->protected_resolved.v[i],
		                                         p->write_resolved.v[w]))
			w++;
		if (w == p->write.n)
			diex(EXIT_REFUSED, "refused: files.protected[%zu] %s resolves to %s, "
			     "which lies beneath no files.write path", i,
			     q(p->protected.v[i]), q(p->protected_resolved.v[i]));
	}
}

/* -s ORIG=RESOLVED for each rule path that went through a symlink. The
 * view splits at the first '=': a name holding one cannot be said, and
 * only the link is left out (its target is bound all the same). */
void push_links(struct vec *chain, const char *key, const struct strlist *orig,
                       const struct strlist *res)
{
	for (size_t i = 0; i < orig->n; i++) {
		if (!strcmp(orig->v[i], res->v[i]))
			continue;
		if (strchr(orig->v[i], '='))
			warnx_("%s[%zu] %s: a name with '=' is not recreated as a "
			       "symlink in the view; %s is", key, i, q(orig->v[i]),
			       q(res->v[i]));
		else
			push_opt(chain, "--symlink", "%s=%s", orig->v[i], res->v[i]);
	}
}

/* -s PATH for each files.sockets path: the one host socket the view
 * leaves uncovered, and the landlock step (ABI 9) lets the target
 * connect(2) to. In the VIEW, one beneath no read, exec or write path is
 * bound read-only first (-r PATH: connect(2) passes a read-only mount). */
void push_sockets(struct vec *chain, const struct policy *p, int view)
{
	const struct strlist *lists[] = { &p->read_resolved, &p->exec_resolved,
	                                  &p->write_resolved };
	const char *s;
	int held;

	for (size_t i = 0; i < p->sockets_resolved.n; i++) {
		s = p->sockets_resolved.v[i];
		held = !view;
		for (size_t k = 0; k < 3 && !held; k++)
			for (size_t j = 0; j < lists[k]->n && !held; j++)
				held = path_beneath(s, lists[k]->v[j]);
		if (!held)
			push_opt(chain, "-r", "%s", s);
		push_opt(chain, "-s", "%s", s);
	}
}
