/* "Did you mean" (policynear.c): the one name of N that WORD (LEN bytes)
 * is near, an edit or two away (one for a name of 4 letters or fewer),
 * letters swapped included, and nearer than any other; or NULL. NAME(I,
 * CTX) is the I-th name, or NULL for one not to weigh. check's keys
 * (policy_near_key) and the front end's options use it. */
#ifndef SHARNESS_NEAR_H
#define SHARNESS_NEAR_H

#include <stddef.h>

const char *near_word(const char *word, size_t len,
                      const char *(*name)(size_t i, const void *ctx), const void *ctx,
                      size_t n);

/* near_word over NAMES, a NULL-ended list; or else the one name WORD is
 * the first words of (timeout: timeout_seconds). launch's manifest keys. */
const char *near_name(const char *word, size_t len, const char *const *names);

/* The unknown option WORD (argv's), refused with USAGE (125), with the
 * one of LONGOPTS it is near as a "did you mean" (run, wrap, launch). */
struct option;
void unknown_option(const char *usage, const char *word, const struct option *longopts)
	__attribute__((noreturn));

#endif
