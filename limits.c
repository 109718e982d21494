/* placeholder */
#include "common.h"
const char *progname = "sharness-exec-limits";
int main(void) { diex(EXIT_REFUSED, "not implemented yet"); }
