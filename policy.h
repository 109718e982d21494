/* pbp 1 policies (DESIGN.md 2, 2.2): check a parsed JSON object against the
 * format and turn it into plain C data the front end compiles into argv.
 * Unknown keys are refused everywhere: a typo must never weaken a policy. */
#ifndef SHARNESS_POLICY_H
#define SHARNESS_POLICY_H

#include <stddef.h>
#include "json.h"

#define POLICY_ID_MAX        128     /* Unicode code points */
#define POLICY_MAX_MEMORY_MB 1048576
#define POLICY_MAX_PIDS      4194304
#define POLICY_MAX_CPU_PERCENT 409600  /* 4096 CPUs */
#define POLICY_MAX_PORT      65535

struct strlist {
	char **v;
	size_t n;
};

/* Every path here (files.*, env.private) is held in its normalised form:
 * absolute, no "." or ".." component, repeated and trailing slashes
 * removed ("/usr//lib/" is "/usr/lib"; "/" stays "/"). Lists keep file
 * order and hold no duplicates. */
struct policy {
	char *id;
	struct strlist read, write, exec;
	struct strlist protected;           /* read-only beneath write paths */
	struct strlist tmpfs;               /* a fresh tmpfs each (policyfiles.c) */
	struct strlist sockets;             /* host UNIX sockets the target may connect to */
	int write_vcs;                      /* 1: "files.write_vcs": true */
	int net_none;                       /* 1: "none", or hosts: a namespace of its own */
	struct strlist hosts;               /* network.hosts: HOST:PORT, the egress step's */
	unsigned *connect_ports, *bind_ports;  /* TCP */
	size_t nconnect, nbind;
	/* UDP; both empty or absent: no UDP socket at all */
	unsigned *connect_udp_ports, *bind_udp_ports;
	size_t nconnect_udp, nbind_udp;
	int no_new_privs;                   /* always 1 in a valid policy */
	unsigned long max_memory_mb;        /* 0: not set */
	unsigned long max_pids;             /* 0: not set */
	unsigned long max_cpu_percent;      /* 0: not set; 100: one CPU */
	int user_namespaces;                /* 1: "process.user_namespaces": true */
	struct strlist env_inherit;
	struct strlist env_set_names, env_set_values; /* same length, in file order */
	char *env_private;                  /* NULL: not set */
	/* Not from the file: the front end fills these before it builds the
	 * chain (run.c, trust.h resolve_rule), one per files.* path, same
	 * order; equal to the path where no symlink was followed. The view
	 * step recreates each pair that differs as a symlink. */
	struct strlist read_resolved, write_resolved, exec_resolved, protected_resolved;
	struct strlist sockets_resolved;
};

/* Check DOC (which json_parse accepted) as a pbp 1 policy. Every problem
 * found is passed to REPORT(CTX, line) (REPORT may be NULL), one line each,
 * naming the key path first, for example
 * `files.write[2]: not an absolute path: "tmp"`; offending strings are
 * quoted with control bytes escaped, so a line never breaks. Returns the
 * number of problems; when 0, P is filled (heap strings, free with
 * policy_free), otherwise P is left empty. Dies with 125 on ENOMEM. */
size_t policy_check(struct policy *p, const struct json_doc *doc,
                   void (*report)(void *ctx, const char *line), void *ctx);
void policy_free(struct policy *p);

/* Why S (LEN bytes) is no id (1-128 characters, no control character),
 * written into WHY (N bytes, offending bytes quoted), or NULL. Manifests'
 * ids follow the same rule (manifest.h). */
const char *policy_id_refused(const char *s, size_t len, char *why, size_t n);

/* The path rules, in the order they are checked. */
enum policy_path_status {
	POLICY_PATH_OK,
	POLICY_PATH_NUL,       /* contains a NUL byte (a \u0000 escape) */
	POLICY_PATH_RELATIVE,  /* does not start with "/" */
	POLICY_PATH_LONG,      /* more than PATH_MAX - 1 bytes as written */
	POLICY_PATH_DOT,       /* has a "." component */
	POLICY_PATH_DOTDOT     /* has a ".." component */
};

/* Check S (LEN bytes, may hold NULs) as a policy path; when it is valid,
 * write its normalised form, NUL-terminated, into OUT, which MUST hold
 * LEN + 1 bytes (OUT may be S itself). */
enum policy_path_status policy_path(const char *s, size_t len, char *out);

/* policyfiles.c: why PATH (normalised) may not be in a files.* list, or
 * in files.tmpfs when TMPFS, or NULL. */
const char *policy_path_refused(const char *path, int tmpfs);
/* Each files.tmpfs path that equals or holds another files.* path or
 * env.private, passed to REPORT(CTX, key path, message). */
void policy_tmpfs_overlaps(const struct policy *p,
                           void (*report)(void *ctx, const char *kp, const char *msg),
                           void *ctx);

/* 1 when S (LEN bytes, NUL-terminated) is an environment variable name:
 * [A-Za-z_][A-Za-z0-9_]* */
int policy_env_name(const char *s, size_t len);

/* env.private's variables, and the subdirectory each one points at. */
#define POLICY_PRIVATE_N 6
extern const char *const policy_private_vars[POLICY_PRIVATE_N];
extern const char *const policy_private_dirs[POLICY_PRIVATE_N];

/* policyfiles.c: the directory beneath which PATH lies that the view
 * keeps read-only whatever the policy says (/proc/sys, /sys, ...), so
 * that PATH can be no files.write path; or NULL. */
const char *policy_never_written(const char *path);

/* policynet.c: why S (LEN bytes) is no network.hosts entry (HOST:PORT,
 * *.NAME:PORT, an address or CIDR: egress/allow.c), or NULL. */
const char *policy_host_refused(const char *s, size_t len);
/* The hosts form of network object NET (of document D), whose hosts list
 * holds NHOSTS entries: each problem through PROBLEM(CTX, KP, MSG) (no port
 * key beside it, never empty); 1 when it is that form (a network namespace
 * of the run's own), else 0. */
struct json_doc;
int policy_hosts_check(const struct json_doc *d, unsigned net, size_t nhosts,
                       void (*problem)(void *ctx, const char *kp, const char *msg),
                       void *ctx);

/* 1 when NAME is a variable launch sets in every component and main
 * (DESIGN.md 4.8), as the front end sets SHARNESS_AI_POLICY_* (which
 * policy_check refuses): SHARNESS_AI_CERT, _KEY, _CA, _SESSION_CA, _LOGS
 * and every SHARNESS_AI_READY_*. No inline policy of a manifest may name one
 * (launch/manifest.c); run passes them on under --launch-env. */
#define MANIFEST_READY_PREFIX "SHARNESS_AI_READY_"
int manifest_launch_sets(const char *name);

#endif
