/* pbp 1 policies (DESIGN.md 2, 2.2): check a parsed JSON object against the
 * format and turn it into plain C data the front end compiles into argv.
 * Unknown keys are refused everywhere: a typo must never weaken a policy. */
#ifndef SHARNESS_POLICY_H
#define SHARNESS_POLICY_H

#include <stddef.h>
#include "json.h"

#define POLICY_MAX_MEMORY_MB 1048576
#define POLICY_MAX_PIDS      4194304

struct strlist {
	char **v;
	size_t n;
};

struct policy {
	char *id;
	struct strlist read, write, exec;   /* absolute, normalised by the checks */
	int net_none;                       /* 1: "network": "none" */
	unsigned *connect_ports, *bind_ports;
	size_t nconnect, nbind;
	int no_new_privs;                   /* always 1 in a valid policy */
	unsigned long max_memory_mb;        /* 0: not set */
	unsigned long max_pids;             /* 0: not set */
	struct strlist env_inherit;
	struct strlist env_set_names, env_set_values; /* same length, in file order */
	char *env_private;                  /* NULL: not set */
};

/* Check DOC as a pbp 1 policy. Every problem found is passed to
 * REPORT(CTX, line), where LINE names the key path, for example
 * `files.write[2]: not an absolute path: "tmp"`. Returns the number of
 * problems; when 0, P is filled (heap strings, free with policy_free). */
size_t policy_load(struct policy *p, const struct json_doc *doc,
                   void (*report)(void *ctx, const char *line), void *ctx);
void policy_free(struct policy *p);

#endif
