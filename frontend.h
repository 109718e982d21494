/* What the front end's subcommands share. */
#ifndef SHARNESS_FRONTEND_H
#define SHARNESS_FRONTEND_H

#include <stddef.h>
#include <stdio.h>
#include "load.h"

#ifndef __GLIBC__
void closefrom(int lo);		/* libbsd's; musl has none (muslfront.c) */
#endif

#ifndef HELPERDIR
# error "HELPERDIR must name the directory of the helpers (set by Makefile.am)"
#endif

/* Each subcommand's usage line; USAGE in sharness-exec.c joins them, and
 * tests/man.bats holds them to sharness-exec(1)'s SYNOPSIS. */
#define RUN_USAGE "sharness-exec run [--best-effort] [--check] [--dry-run] [--verbose] " \
	"[--timeout DURATION [--kill-after DURATION]] [--report FILE|fd:N] " \
	"--policy FILE [--expect-hash sha256:HEX] [--trust-key FILE]... " \
	"[--signature FILE] [--expect-id ID] [--user USER [--user-groups]] " \
	"[--explain] -- COMMAND [ARG...]"
#define LAUNCH_USAGE "sharness-exec launch [--dry-run] --manifest FILE " \
	"[--expect-hash sha256:HEX] [--trust-key FILE]... [--signature FILE] " \
	"[--expect-id ID] -- COMMAND [ARG...]"
#define HASH_USAGE   "sharness-exec hash [--canonical] FILE"
#define CHECK_USAGE  "sharness-exec check FILE"
#define KEYGEN_USAGE "sharness-exec keygen -o NAME"
#define SIGN_USAGE   "sharness-exec sign -k NAME.key POLICY"
#define VERIFY_USAGE "sharness-exec verify -K NAME.pub POLICY [SIG]"

int cmd_run(int argc, char **argv);
/* launch.c: verify a manifest; --dry-run prints the plan. */
int cmd_launch(int argc, char **argv);
/* A line for each component and main: policy, network, ready, identity. */
void manifest_describe(const struct manifest *m, FILE *f);
/* runopts.c: run's option handling beside run.c. --explain (DESIGN.md
 * 4.7): the supervise step's observer and the landlock step's TRACE
 * rules. --timeout and --kill-after: a duration in seconds, or 125. */
extern int run_explain;
unsigned long duration(const char *opt, const char *s);
/* SUBCOMMAND --help: its usage, then a line for each option; 0. */
int cmd_help(const char *name);

#endif
