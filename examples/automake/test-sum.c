/* Reads the numbers of $SUM_DATA (set by AM_TESTS_ENVIRONMENT, let
 * through by the policy's env.inherit); the last one is their sum. */
#include <stdio.h>
#include <stdlib.h>
#include "sum.h"

int main(void)
{
	const char *data = getenv("SUM_DATA");
	long v[64], want;
	int n = 0;
	FILE *f;

	if (!data || !(f = fopen(data, "r"))) {
		perror(data ? data : "SUM_DATA is not set");
		return 1;
	}
	while (n < 64 && fscanf(f, "%ld", &v[n]) == 1)
		n++;
	fclose(f);
	if (n < 1)
		return 1;
	want = v[--n];
	if (sum(v, n) != want) {
		fprintf(stderr, "FAIL: sum of %d numbers is %ld, not %ld\n", n, sum(v, n), want);
		return 1;
	}
	printf("ok: sum of %d numbers\n", n);
	return 0;
}
