/* The front end's vectors of words (runvec.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "runvec.h"

static void vpush(struct vec *a, const char *fmt, va_list ap) PRINTF(2, 0);
static void vpush(struct vec *a, const char *fmt, va_list ap)
{
	if (a->n + 2 > a->cap) {
		a->cap = a->cap ? 2 * a->cap : 32;
		if (!(a->v = reallocarray(a->v, a->cap, sizeof *a->v)))
			diex(EXIT_REFUSED, "out of memory");
	}
	/* Most words are a literal or one "%s": no printf for them (a run
	 * pushes some sixty, each vasprintf four passes of musl's printf). */
	if (!strchr(fmt, '%'))
		a->v[a->n] = strdup(fmt);
	else if (!strcmp(fmt, "%s"))
		a->v[a->n] = strdup(va_arg(ap, const char *));
	else if (vasprintf(&a->v[a->n], fmt, ap) < 0)
		a->v[a->n] = NULL;
	if (!a->v[a->n])
		diex(EXIT_REFUSED, "out of memory");
	a->v[++a->n] = NULL;
}

void push(struct vec *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vpush(a, fmt, ap);
	va_end(ap);
}

void push_opt(struct vec *a, const char *opt, const char *fmt, ...)
{
	va_list ap;

	push(a, "%s", opt);
	va_start(ap, fmt);
	vpush(a, fmt, ap);
	va_end(ap);
}

void vfree(struct vec *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
}
