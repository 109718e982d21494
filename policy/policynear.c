/* "Did you mean": the known key an unknown one is near (policyrules.h). A
 * typo is still refused (policy.h); this only names what was meant. */
#include <getopt.h>
#include <string.h>

#include "common.h"
#include "text.h"
#include "near.h"
#include "policyrules.h"

#define NEAR_MAX 2          /* edits; 1 for a key of 4 letters or fewer */
#define KEY_MAX 32          /* longer keys are near none of the format's */

/* The optimal string alignment distance of A and B (each at most KEY_MAX
 * bytes): insertions, deletions, substitutions and swaps of two
 * neighbours, each one edit. */
static size_t distance(const char *a, size_t la, const char *b, size_t lb)
{
	size_t d[KEY_MAX + 1][KEY_MAX + 1], cost, v;

	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			cost = a[i - 1] != b[j - 1];
			v = d[i - 1][j - 1] + cost;
			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb];
}

const char *near_word(const char *word, size_t len,
                      const char *(*name)(size_t i, const void *ctx), const void *ctx,
                      size_t n)
{
	const char *near = NULL, *cand;
	size_t best = NEAR_MAX + 1, d, ln;
	int tie = 0;

	/* A typo is of letters: a long word, or one of other bytes (a NUL,
	 * an escape sequence), is near none. */
	if (!word || len > KEY_MAX)
		return NULL;
	for (size_t i = 0; i < len; i++)
		if (!word[i] || !strchr(NAME_CHARS "-", word[i]))
			return NULL;
	for (size_t i = 0; i < n; i++) {
		if (!(cand = name(i, ctx)))
			continue;
		ln = strlen(cand);
		if (ln > KEY_MAX || (len > ln ? len - ln : ln - len) > NEAR_MAX)
			continue;
		d = distance(word, len, cand, ln);
		if (d > (ln <= 4 ? 1 : NEAR_MAX) || d > best)
			continue;
		tie = d == best;
		best = d;
		near = cand;
	}
	return tie ? NULL : near;
}

struct key_ctx {
	const struct ck *c;
	const char *kp;
};

/* The I-th rule's name, where it is a key of the object at KP. */
static const char *rule_name(size_t i, const void *ctx)
{
	const struct key_ctx *k = ctx;

	return strcmp(k->c->rules[i].parent, k->kp) ? NULL : k->c->rules[i].name;
}

const char *policy_near_key(const struct ck *c, const char *kp, unsigned k)
{
	struct key_ctx ctx = { c, kp };
	size_t len;
	const char *key = json_str(c->d, k, &len);	/* LEN bytes, no NUL after them */

	return near_word(key, len, rule_name, &ctx, c->nrules);
}

/* The I-th of a NULL-ended list of names. */
static const char *list_name(size_t i, const void *ctx)
{
	return ((const char *const *)ctx)[i];
}

const char *near_name(const char *word, size_t len, const char *const *names)
{
	const char *near = NULL;
	size_t n = 0;
	int tie = 0;

	while (names[n])
		n++;
	if ((near = near_word(word, len, list_name, names, n)) || !word)
		return near;
	/* or the one name it is the first words of: timeout, timeout_seconds
	 * (WORD's LEN bytes may hold a NUL: compared whole, within the name) */
	for (size_t i = 0; len >= 3 && i < n; i++)
		if (strlen(names[i]) > len && !memcmp(names[i], word, len) && names[i][len] == '_')
			near = near ? (tie = 1, near) : names[i];
	return tie ? NULL : near;
}

/* The I-th long option's name. */
static const char *option_name(size_t i, const void *ctx)
{
	return ((const struct option *)ctx)[i].name;
}

void unknown_option(const char *usage, const char *word, const struct option *longopts)
{
	const char *near = NULL;
	size_t n = 0;

	while (longopts[n].name)
		n++;
	if (word[0] == '-' && word[1] == '-')
		near = near_word(word + 2, strcspn(word + 2, "="), option_name, longopts, n);
	if (near)
		usage_fail(usage, "unknown option %s; did you mean --%s?", qn(word), near);
	usage_fail(usage, "unknown option %s", qn(word));
}
