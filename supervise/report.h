/* run --report (sharness-exec-report(5)): one JSON object, written when
 * the run ends by the supervisor (report.c), which alone sees how it
 * ended: every field, null where nothing is known. No JSON library: the
 * strings go through json_quote (text.h). The front end's report of a
 * refusal before the supervisor exists, whose fields are all null but
 * the policy, the outcome, the status and the lines, is its own, kept
 * small there (runreport.c); tests/front/report.bats holds both to the same
 * fields. */
#ifndef SHARNESS_REPORT_H
#define SHARNESS_REPORT_H

#include <stddef.h>

#include "egresstally.h"

#define REPORT_VERSION 1

/* A list of lines, each a heap string. */
struct report_list {
	char **v;
	size_t n;
};

/* What is not known is -1 (numbers) or NULL (strings): null. */
struct report {
	const char *id, *hash, *key;         /* the policy; id NULL: null */
	const char *outcome;                 /* exited signaled timed_out refused
	                                      * could_not_confine not_found */
	int wrapper_exit, wrapper_signal;    /* what the caller sees */
	int target_exit, target_signal;      /* both -1: the target never ran */
	const char *walls;                   /* NAME:WALL,... ("none": none held) */
	struct report_list dropped, warnings;
	struct report_list env_dropped;      /* the names the allow-list left out */
	const char *fatal;                   /* the line of the step that refused */
	const char *memory_source;           /* NULL: memory is null */
	long long peak_bytes, cap_bytes, oom_kills;
	int pids;                            /* 0: pids is null (no counter) */
	long long pids_cap, refused_forks;
	const char *cpu_source;              /* NULL: cpu is null */
	double user_s, system_s;
	long long cpu_cap;
	double wall_s;                       /* < 0: null */
	long long timeout_ms, kill_after_ms; /* timeout_ms -1: no --timeout */
	/* run --explain's denials (DESIGN.md 4.7): a JSON array, written as
	 * it is; NULL (null) until --explain fills it. */
	const char *denials;
	/* The egress step's hosts (--egress-in): NULL (null) without it;
	 * complete: the server said "idle" after the run ended. */
	const struct tally *egress;
	int egress_complete;
	/* The view step's walk of each write path: its "@write" notes
	 * (viewwalk.c), as they came; writes_seen: it walked ("@writes"),
	 * else write_paths is null. */
	struct report_list write_paths;
	int writes_seen;
};

/* All null, and the version. */
void report_init(struct report *r);
/* Add a copy of LINE (its first LEN bytes) to L; nothing when out of
 * memory (the report then lacks a line, and says nothing wrong). */
void report_add(struct report_list *l, const char *line, size_t len);
/* The object, and a newline: a heap buffer of *LEN bytes, or NULL (errno). */
char *report_text(const struct report *r, size_t *len);

#endif
