#ifndef SUM_H
#define SUM_H
/* The sum of the N numbers at V. */
long sum(const long *v, int n);
#endif
