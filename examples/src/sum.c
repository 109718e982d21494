#include "sum.h"

long sum(const long *v, int n)
{
	long s = 0;

	while (n-- > 0)
		s += *v++;
	return s;
}
