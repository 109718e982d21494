/* A tiny TAP producer for the C unit tests (run through tap-driver.sh). */
#ifndef SHARNESS_TAP_H
#define SHARNESS_TAP_H

#include <stdio.h>
#include <stdarg.h>

static int tap_n, tap_failed;
#define TAP_UNUSED __attribute__((unused))

__attribute__((format(printf, 2, 3)))
TAP_UNUSED static int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!cond)
		tap_failed++;
	return cond;
}

__attribute__((format(printf, 1, 2)))
TAP_UNUSED static void tap_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

TAP_UNUSED static int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
