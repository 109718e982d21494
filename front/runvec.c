/* The front end's vectors of words (runvec.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "runvec.h"

/* FMT into *OUT (NULL: out of memory) when it has no conversion but %s,
 * as nearly every word a run pushes (a path, NAME=VALUE, DIR/NAME): then
 * 1, without printf (musl's vasprintf is four passes of its printf);
 * else 0, AP untouched. */
static int only_strings(char **out, const char *fmt, va_list ap)
{
	const char *f;
	size_t len = 1;
	va_list aq;
	char *at;

	for (f = fmt; (f = strchr(f, '%')); f += 2)
		if (f[1] != 's')
			return 0;
	va_copy(aq, ap);
	for (f = fmt; *f; f++)
		len += *f == '%' ? (f++, strlen(va_arg(aq, const char *))) : 1;
	va_end(aq);
	if (!(*out = at = malloc(len)))
		return 1;
	for (f = fmt; *f; f++)
		if (*f == '%')
			at = stpcpy(at, (f++, va_arg(ap, const char *)));
		else
			*at++ = *f;
	*at = '\0';
	return 1;
}

static void vpush(struct vec *a, const char *fmt, va_list ap) PRINTF(2, 0);
static void vpush(struct vec *a, const char *fmt, va_list ap)
{
	if (a->n + 2 > a->cap) {
		a->cap = a->cap ? 2 * a->cap : 32;
		if (!(a->v = reallocarray(a->v, a->cap, sizeof *a->v)))
			diex(EXIT_REFUSED, "out of memory");
	}
	if (!only_strings(&a->v[a->n], fmt, ap) && vasprintf(&a->v[a->n], fmt, ap) < 0)
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
