/* Option handling of run (run.c) that does not fit beside it. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "exitcodes.h"
#include "frontend.h"
#include "text.h"
#include "runvec.h"

int run_explain, run_launch_env;

/* --timeout and --kill-after, as timeout(1) takes them and more: a
 * decimal number of seconds, or of minutes, hours or days with m, h or d
 * (s for seconds), with a fraction or not ("1.5s", "2m", "1d", "90"), or
 * several such terms, each with its unit, largest first ("1m30s",
 * "1h0.5m"); into milliseconds, a fraction of one rounded up, from 1 ms
 * to 2^31-1 s. */
unsigned long long duration_ms(const char *opt, const char *s)
{
	static const char units[] = "dhms";
	static const unsigned long long unit_ms[] = { 86400000, 3600000, 60000, 1000 };
	unsigned long long total = 0, whole, frac, scale;
	const char *p = s, *u, *last = units;
	int terms = 0, ok = *s != '\0';

	while (ok && *p) {
		whole = frac = 0;
		scale = 1;
		if (!((*p >= '0' && *p <= '9') || (p[0] == '.' && p[1] >= '0' && p[1] <= '9')))
			ok = 0;
		for (; ok && *p >= '0' && *p <= '9'; p++)
			if ((whole = whole * 10 + (unsigned)(*p - '0')) > 2147483647ULL)
				ok = 0;
		if (ok && *p == '.') {
			if (!(p[1] >= '0' && p[1] <= '9'))
				ok = 0;
			for (p++; ok && *p >= '0' && *p <= '9'; p++)
				if (scale < 1000000000ULL) {
					frac = frac * 10 + (unsigned)(*p - '0');
					scale *= 10;
				}
		}
		if (!ok)
			break;
		/* a unit, in order, each once; none only for a lone number */
		u = *p ? strchr(last, *p) : NULL;
		if (*p ? !u : terms) {
			ok = 0;
			break;
		}
		{
			unsigned long long ms = u ? unit_ms[u - units] : 1000;
			total += whole * ms + (frac * ms + scale - 1) / scale;
		}
		if (total > 2147483647ULL * 1000)
			ok = 0;
		if (u) {
			last = u + 1;
			p++;
		}
		terms++;
	}
	if (!ok || !total)
		diex(EXIT_REFUSED, "%s must be a duration from 1 ms to 2147483647 s: a number "
		     "of seconds, or of minutes, hours or days with m, h or d (1.5s, 2m, 1d), "
		     "or several, largest first (1m30s), not %s", opt, q(s));
	return total;
}

int quiet_rlimits(void)
{
	const char *v = getenv("SHARNESS_EXEC_QUIET_RLIMITS");

	return v && *v && strcmp(v, "0");
}

/* -T and -K for the supervise step, from --timeout and --kill-after (in
 * ms): seconds, with a fraction only where there is one. */
unsigned long long run_timeout_ms, run_kill_after_ms;

static void push_seconds(struct vec *chain, const char *opt, unsigned long long ms)
{
	char frac[8];
	size_t n;

	if (ms % 1000 == 0) {
		push_opt(chain, opt, "%llu", ms / 1000);
		return;
	}
	n = (size_t)snprintf(frac, sizeof frac, "%03llu", ms % 1000);
	while (frac[n - 1] == '0')
		frac[--n] = '\0';
	push_opt(chain, opt, "%llu.%s", ms / 1000, frac);
}

void push_timeout(struct vec *chain)
{
	if (!run_timeout_ms)
		return;
	push_seconds(chain, "--timeout", run_timeout_ms);
	push_seconds(chain, "--kill-after", run_kill_after_ms ? run_kill_after_ms : 5000);
}
