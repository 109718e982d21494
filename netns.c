/* placeholder */
#include "common.h"
const char *progname = "sharness-exec-netns";
int main(void) { diex(EXIT_REFUSED, "not implemented yet"); }
