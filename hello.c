/* placeholder: replaced by the real implementation */
#include "common.h"
#include "frontend.h"
int cmd_hello(int argc, char **argv)
{
	(void)argc; (void)argv;
	diex(EXIT_REFUSED, "hello: not implemented yet");
}
