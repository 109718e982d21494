/* The front end's vectors of words (runvec.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "runvec.h"

/* A word with no '%' (an option) or "%s" (a rule path) is copied, not
 * formatted: vasprintf formats each word twice, and a run of 10,000 rules
 * pushes 40,000 words. */
static void vpush(struct vec *a, const char *fmt, va_list ap) PRINTF(2, 0);
static void vpush(struct vec *a, const char *fmt, va_list ap)
{
	const char *plain = !strcmp(fmt, "%s") ? va_arg(ap, const char *) :
		strchr(fmt, '%') ? NULL : fmt;

	if (a->n + 2 > a->cap) {
		a->cap = a->cap ? 2 * a->cap : 32;
		if (!(a->v = reallocarray(a->v, a->cap, sizeof *a->v)))
			diex(EXIT_REFUSED, "out of memory");
	}
	if (plain ? !(a->v[a->n] = strdup(plain)) : vasprintf(&a->v[a->n], fmt, ap) < 0)
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
