/* Option handling of run (run.c) that does not fit beside it. */
#include <errno.h>
#include <stdlib.h>

#include "common.h"
#include "exitcodes.h"
#include "frontend.h"
#include "text.h"

int run_explain, run_launch_env;

/* --timeout and --kill-after: a whole number of seconds, or of minutes
 * or hours with m or h (s for seconds), from 1 s to 2^31-1 s. */
unsigned long duration(const char *opt, const char *s)
{
	unsigned long v, unit = 1;
	char *end;

	errno = 0;
	v = *s >= '0' && *s <= '9' ? strtoul(s, &end, 10) : 0;
	if (v && *end && !end[1])
		unit = *end == 's' ? 1 : *end == 'm' ? 60 : *end == 'h' ? 3600 : 0;
	if (!v || errno || (*end && end[1]) || !unit || v > 2147483647UL / unit)
		diex(EXIT_REFUSED, "%s must be a whole number of seconds, or of minutes or hours "
		     "with m or h, from 1 s to 2147483647 s, not %s", opt, q(s));
	return v * unit;
}

