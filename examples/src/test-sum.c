#include <stdio.h>
#include "sum.h"

int main(void)
{
	const long v[] = { 1, 2, 3, 36 };

	if (sum(v, 4) != 42 || sum(v, 0) != 0) {
		fputs("FAIL: sum\n", stderr);
		return 1;
	}
	puts("ok: sum");
	return 0;
}
