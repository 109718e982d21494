/* The helpers' path rules (rules.h): one parser for the view and landlock
 * steps. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "rules.h"

unsigned rule_grant(int opt)
{
	return opt == 'r' ? RULE_READ : opt == 'x' ? RULE_EXEC : opt == 'w' ? RULE_WRITE : 0;
}

char *rule_path(int opt, const char *arg, const char *usage)
{
	char name[3] = { '-', (char)opt, '\0' };

	return rule_path_named(name, arg, usage);
}

char *rule_path_named(const char *name, const char *arg, const char *usage)
{
	char *out = malloc(strlen(arg) + 2), *o = out;
	const char *p = arg;

	if (!out)
		die(EXIT_REFUSED, "out of memory");
	if (*arg != '/' || strlen(arg) >= PATH_MAX)
		usage_fail(usage, "unable to parse %s %s: not an absolute path", name, arg);
	while (*p) {
		size_t n;
		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (!n)
			break;
		if ((n == 1 && p[0] == '.') || (n == 2 && !strncmp(p, "..", 2)))
			usage_fail(usage, "unable to parse %s %s: has a . or .. component",
			           name, arg);
		*o++ = '/';
		memcpy(o, p, n);
		o += n;
		p += n;
	}
	if (o == out)
		*o++ = '/';
	*o = '\0';
	return out;
}
