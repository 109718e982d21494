/* sharness-exec-view: each path's effective rights in one pass (view.h);
 * each option's path is made plain by lib/rules.c.
 * The paths sorted with '/' below every other byte keep each tree in one
 * run, parents first ("/a", "/a/b", "/a-b": plain strcmp would put "/a-b"
 * between "/a" and "/a/b"), so that a stack of the current path's
 * ancestors gives its rights, and its nearest listed ancestor, with no
 * scan of the list: at 10,000 rules a scan a path was most of the step. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "exitcodes.h"
#include "text.h"
#include "view.h"

static int tree_cmp(const void *a, const void *b)
{
	const unsigned char *p = (const unsigned char *)((const struct ent *)a)->path;
	const unsigned char *q = (const unsigned char *)((const struct ent *)b)->path;

	for (; *p && *p == *q; p++, q++)
		;
	return (*p == '/' ? 1 : *p) - (*q == '/' ? 1 : *q);
}

/* ENTS in tree order, each path once (the rights of its repeats joined):
 * the new count. */
size_t plan_sort(struct ent *ents, size_t nents)
{
	size_t n = 0;

	if (sort_stable(ents, nents, sizeof *ents, tree_cmp) < 0)
		die(EXIT_REFUSED, "out of memory");
	for (size_t i = 0; i < nents; i++) {
		if (n && !strcmp(ents[n - 1].path, ents[i].path)) {
			ents[n - 1].rights |= ents[i].rights;
			free(ents[i].path);
			continue;
		}
		ents[n++] = ents[i];
	}
	return n;
}

/* Each entry's eff (the union of its own rights and its ancestors', write
 * implying read and exec, less write at or beneath a protected path) and
 * up (its nearest ancestor in ENTS, SIZE_MAX for none), ENTS in tree
 * order. */
void plan_rights(struct ent *ents, size_t nents)
{
	size_t *stack = calloc(nents + 1, sizeof *stack), depth = 0;
	unsigned *acc = calloc(nents + 1, sizeof *acc);

	if (!stack || !acc)
		die(EXIT_REFUSED, "out of memory");
	for (size_t i = 0; i < nents; i++) {
		struct ent *e = &ents[i];
		unsigned u;
		while (depth && !path_beneath(e->path, ents[stack[depth - 1]].path))
			depth--;
		e->up = depth ? stack[depth - 1] : SIZE_MAX;
		acc[depth + 1] = acc[depth] | (e->rights & (R | X | W | PROT));
		stack[depth++] = i;
		u = acc[depth] & (R | X | W);
		if (u & W)
			u |= R | X;
		if (acc[depth] & PROT)
			u &= ~(unsigned)W;
		e->eff = u;
	}
	free(stack);
	free(acc);
}

/* Each path's rights: the union of its own and its ancestors' (write
 * implies read and exec), less write at or beneath a protected path. */
unsigned plan_effective(const struct ent *ents, size_t nents, const char *path)
{
	unsigned u = 0, prot = 0;

	for (size_t i = 0; i < nents; i++) {
		if (!path_beneath(path, ents[i].path))
			continue;
		u |= ents[i].rights & (R | X | W);
		prot |= ents[i].rights & PROT;
	}
	if (u & W)
		u |= R | X;
	if (prot)
		u &= ~(unsigned)W;
	return u;
}
