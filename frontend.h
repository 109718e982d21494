/* What the front end's subcommands share. */
#ifndef SHARNESS_FRONTEND_H
#define SHARNESS_FRONTEND_H

#include <stddef.h>
#include "load.h"

#ifndef HELPERDIR
# error "HELPERDIR must name the directory of the helpers (set by Makefile.am)"
#endif

int cmd_run(int argc, char **argv);
int cmd_hello(int argc, char **argv);
int cmd_probe(int argc, char **argv);

#endif
