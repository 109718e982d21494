/* run --report FILE|fd:N, the front end's part (sharness-exec-report(5)):
 * the descriptor, made or taken before anything else, handed on to the
 * supervisor alone (-O), with the status pipe that the steps write to
 * (-E) and the supervisor reads (--status-in); and the report of a
 * refusal before the supervisor exists, written as the front end exits. */
#ifndef SHARNESS_RUNREPORT_H
#define SHARNESS_RUNREPORT_H

#include "runvec.h"

/* In place of closefrom(3): close every inherited descriptor above 2 but
 * fd:N's (and run --passwd-fd's and --group-fd's: close_inherited);
 * create FILE (ARG) unless DRY_RUN, which only checks that it could.
 * Without ARG (NULL), the closing alone. */
void report_start(const char *arg, int dry_run);
/* What the report says of the policy, once it is loaded; its key, once
 * its signature verified, and the status pipe, made then (and where the
 * policy names HOSTS, the egress step's pipe). */
void report_policy(const char *id, const char *hash);
void report_chain(const char *key, int hosts);
/* The names (never the values) of the caller's variables that ENV, the
 * target's environment, left out: to the status pipe, "@env NAME" each. */
void report_env(const struct vec *env);
/* The words of a step (its -E), the supervisor's (-O, -R, -D, -I, -H, -F;
 * the CPU cap it reads from the limits step's -u), and the explain step's
 * (-D: the memfd of --explain's denials, made with the status pipe). */
void report_push(struct vec *chain);
void report_push_supervise(struct vec *chain);
void report_push_explain(struct vec *chain);
/* The egress step's --to-report, the write end of the pipe whose read end
 * the supervisor gets as --egress-in. */
void report_push_egress(struct vec *chain);
/* The front end exits CODE without a fatal line of its own (a policy's
 * problems, each said on a line): the report says so. */
void report_refused(int code);
/* Just before the exec: the descriptors open across it; 0, or -1. The
 * highest of them, or -1. */
int report_pass(void);
int report_top(void);

#endif
