/* placeholder */
#include "common.h"
const char *progname = "sharness-exec-landlock";
int main(void) { diex(EXIT_REFUSED, "not implemented yet"); }
