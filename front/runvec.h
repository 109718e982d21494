/* The front end's growable NULL-terminated vectors of heap strings: the
 * chain's argv (run.c, runreport.c) and the target's environment. */
#ifndef SHARNESS_RUNVEC_H
#define SHARNESS_RUNVEC_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include "common.h"

struct vec {
	char **v;
	size_t n, cap;
};

/* Add one word, printf-style; out of memory: 125. */
void push(struct vec *a, const char *fmt, ...) PRINTF(2, 3);
/* OPT and its argument. */
void push_opt(struct vec *a, const char *opt, const char *fmt, ...) PRINTF(3, 4);
void vfree(struct vec *a);

/* runforks.c, for --verbose: a line on F for each process the run whose
 * argv is CHAIN (its NTARGET last words the target's) forks. */
void print_forks(const struct vec *chain, size_t ntarget, FILE *f);

#endif
