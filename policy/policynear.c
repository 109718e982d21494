/* "Did you mean": the known key an unknown one is near (policyrules.h). A
 * typo is still refused (policy.h); this only names what was meant. */
#include <string.h>

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

/* NAME, one of the known keys: KEY's nearest so far? (*BEST its
 * distance, *TIE whether another is as near.) */
static void consider(const char *key, size_t len, const char *name, size_t *best,
                     const char **near, int *tie)
{
	size_t ln = strlen(name), n;

	if (ln > KEY_MAX || (len > ln ? len - ln : ln - len) > NEAR_MAX)
		return;
	n = distance(key, len, name, ln);
	if (n > (ln <= 4 ? 1 : NEAR_MAX) || n > *best)
		return;
	*tie = n == *best;
	*best = n;
	*near = name;
}

/* A typo is of letters: a long key, or one of other bytes (a NUL, an
 * escape sequence), is near none of the format's. */
static int typo_shaped(const char *key, size_t len)
{
	if (!key || len > KEY_MAX)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!key[i] || !strchr(NAME_CHARS "-", key[i]))
			return 0;
	return 1;
}

const char *policy_near_key(const struct ck *c, const char *kp, unsigned k)
{
	const char *near = NULL, *key;
	size_t len, best = NEAR_MAX + 1;
	int tie = 0;

	key = json_str(c->d, k, &len);	/* LEN bytes, no NUL after them */
	if (!typo_shaped(key, len))
		return NULL;
	for (size_t i = 0; i < c->nrules; i++)
		if (!strcmp(c->rules[i].parent, kp))
			consider(key, len, c->rules[i].name, &best, &near, &tie);
	return tie ? NULL : near;
}

const char *near_word(const char *key, size_t len, const char *const *names)
{
	const char *near = NULL;
	size_t best = NEAR_MAX + 1;
	int tie = 0;

	if (!typo_shaped(key, len))
		return NULL;
	for (size_t i = 0; names[i]; i++)
		consider(key, len, names[i], &best, &near, &tie);
	if (near || tie)
		return tie ? NULL : near;
	/* or the one name it is the first words of: timeout, timeout_seconds */
	for (size_t i = 0; len >= 3 && names[i]; i++)
		if (!strncmp(names[i], key, len) && names[i][len] == '_')
			near = near ? (tie = 1, near) : names[i];
	return tie ? NULL : near;
}
