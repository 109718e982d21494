/* What the front end's subcommands share (frontend.c, and the subcommands'
 * usage lines and entry points). */
#ifndef SHARNESS_FRONTEND_H
#define SHARNESS_FRONTEND_H

#include <stddef.h>
#include <stdio.h>
#include "common.h"
#include "load.h"

#ifndef __GLIBC__
void closefrom(int lo);		/* libbsd's; musl has none (muslfront.c) */
#endif

#ifndef HELPERDIR
# error "HELPERDIR must name the directory of the helpers (set by Makefile.am)"
#endif

/* Each subcommand's usage line; USAGE in sharness-exec.c joins them, and
 * tests/meta/man.bats holds them to sharness-exec(1)'s SYNOPSIS. */
#define RUN_USAGE "sharness-exec run [--best-effort] [--check] [--dry-run] [--verbose] " \
	"[--timeout DURATION [--kill-after DURATION]] [--report FILE|fd:N] " \
	"--policy FILE [--expect-hash sha256:HEX] [--trust-key FILE]... " \
	"[--signature FILE] [--expect-id ID] [--user USER [--user-groups]] " \
	"[--in-session] [--passwd-fd FD] [--group-fd FD] [--hosts-fd FD] " \
	"[--state-dir DIR] [--share DIR]... [--share-read DIR]... [--explain] " \
	"[--explain-as ROLE] [--launch-env] -- COMMAND [ARG...]"
#define LAUNCH_USAGE "sharness-exec launch [--dry-run] --manifest FILE " \
	"[--expect-hash sha256:HEX] [--trust-key FILE]... [--signature FILE] " \
	"[--expect-id ID] [--uid-range FIRST-LAST] [--user USER] [--logs DIR] " \
	"[--keep] [--explain] -- COMMAND [ARG...]"
/* What launch does: its options and --help are the launcher's
 * (launch/command.c), which gets launch's words whole. */
#define LAUNCH_WHAT  "run the session of a launch manifest, as root; --dry-run prints its plan"
#define HASH_USAGE   "sharness-exec hash [--canonical] FILE"
#define CHECK_USAGE  "sharness-exec check FILE"
#define KEYGEN_USAGE "sharness-exec keygen -o NAME"
#define SIGN_USAGE   "sharness-exec sign -k NAME.key POLICY"
#define VERIFY_USAGE "sharness-exec verify -K NAME.pub POLICY [SIG]"
#define WRAP_USAGE   "sharness-exec wrap -o FILE --policy FILE [--expect-hash sha256:HEX] " \
	"[--trust-key FILE]... [--signature FILE] [--expect-id ID] [--best-effort] " \
	"[--check] [--verbose] [--timeout DURATION [--kill-after DURATION]] " \
	"[--user USER [--user-groups]]"

/* frontend.c: the helpers' directory: HELPERDIR, fixed at build time; the test
 * build's are beside itself, wherever the tests put it (a copy that uid
 * 65534 can reach, tests/helpers/load.bash). helper_path: NAME there, on
 * the heap. helper_fail: "unable to WHAT PATH: errno", the hint to
 * reinstall, and 125. */
const char *helperdir(void);
char *helper_path(const char *name);
NORETURN void helper_fail(const char *what, const char *path);

/* The long options run and wrap share (run adds --dry-run), each with
 * its letter. */
#define RUN_LONGOPTS \
	{ "policy", required_argument, NULL, 'p' }, \
	{ "expect-hash", required_argument, NULL, 'H' }, \
	{ "best-effort", no_argument, NULL, 'b' },	/* -b, the hints' word */ \
	{ "verbose", no_argument, NULL, 'v' }, \
	{ "help", no_argument, NULL, 'h' }, \
	{ "trust-key", required_argument, NULL, 'K' },	/* long only */ \
	{ "signature", required_argument, NULL, 'S' }, \
	{ "expect-id", required_argument, NULL, 'I' }, \
	{ "check", no_argument, NULL, 'C' }, \
	{ "timeout", required_argument, NULL, 't' },	/* long only */ \
	{ "kill-after", required_argument, NULL, 'k' }, \
	{ "user", required_argument, NULL, 'u' },	/* long only */ \
	{ "user-groups", no_argument, NULL, 'g' }

int cmd_run(int argc, char **argv);
/* runopts.c: run's option handling beside run.c. --explain (DESIGN.md
 * 4.7): the supervise step's observer and the landlock step's TRACE
 * rules. --timeout and --kill-after: a duration in milliseconds, or 125. */
extern int run_explain;
/* --launch-env: the variables launch sets (manifest_launch_sets) pass
 * from run's environment to the target's; launch's runtime asks for it. */
extern int run_launch_env;
unsigned long long duration_ms(const char *opt, const char *s);
/* Those of this run (0: none), and the supervise step's -T and -K from
 * them: seconds, with a fraction only where there is one. */
extern unsigned long long run_timeout_ms, run_kill_after_ms;
struct vec;
void push_timeout(struct vec *chain);
/* SHARNESS_EXEC_QUIET_RLIMITS set (not empty, not 0): the limits step's
 * -q, no warning line where the caps are rlimits. */
int quiet_rlimits(void);
/* runexec.c: refuse (127) a COMMAND FILE that P hides, looked up in
 * PATH_ENV (the target's PATH, or NULL) as the landlock step will, with
 * the list that would allow it; return where the view would show it, or
 * where the host has no such file. */
struct policy;
void check_program(const char *file, const struct policy *p, const char *path_env);
/* wrap.c: write a one-word wrapper that runs a pinned or signed policy. */
int cmd_wrap(int argc, char **argv);
/* frontend.c: SUBCOMMAND --help: its usage, then a line for each option;
 * 0. front_help: --help, every usage line (front_usage) and command. */
int cmd_help(const char *name);
void front_help(void);
extern const char front_usage[];

#endif
