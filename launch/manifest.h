/* launch 1 manifests (DESIGN.md 4.8, sharness-exec-manifest(5)): a session
 * of components and a main command, each with an inline pbp 1 policy,
 * checked as `check` checks a policy. It is hashed, pinned and signed as a
 * policy is (the canonical form of the whole object, DESIGN.md 2.1, 2.3);
 * unknown keys are refused everywhere. */
#ifndef SHARNESS_MANIFEST_H
#define SHARNESS_MANIFEST_H

#include <stddef.h>
#include "hash.h"
#include "json.h"
#include "load.h"
#include "policy.h"

#define MANIFEST_MAX_COMPONENTS 64
#define MANIFEST_ROLE_MAX       63          /* a DNS label: [A-Za-z0-9-] */
#define MANIFEST_READY_TIMEOUT  60          /* seconds, when not set */
#define MANIFEST_READY_TIMEOUT_MAX 3600
#define MANIFEST_HEALTH_INTERVAL_MS 5000    /* health.interval_ms, when not set */
#define MANIFEST_HEALTH_FAILS   3           /* health.fails, when not set */
#define MANIFEST_HEALTH_TIMEOUT_MS 10000    /* health.timeout_ms, when not set */
#define MANIFEST_HTTP_PATH_MAX  64          /* health.http.path's bytes */
/* launch's uids when --uid-range is not given: above systemd's container
 * range (524288-1879048191), below its foreign range (2147352576 on). */
#define MANIFEST_UID_RANGE      "1879048192-1879113727"
/* The session's tmpfs, a state directory for each role beneath it. */
#define MANIFEST_STATE_DIR      "/run/sharness-exec/session"
/* The shared directories, beside them: SHARE_DIR/NAME (no role is
 * named "share" where the manifest has one). */
#define MANIFEST_SHARE_DIR      MANIFEST_STATE_DIR "/share"
#define MANIFEST_SHARE_MAX      16
#define MANIFEST_SHARE_NAME_MAX 26          /* its group, "share.NAME", a user name */
/* main's read_logs: ROLE.log of each role it names, beside them (no
 * role is named "logs" where main has read_logs). */
#define MANIFEST_LOGS_DIR       MANIFEST_STATE_DIR "/logs"
/* The session's status, beside them (no role's name has a dot). */
#define MANIFEST_STATUS_FILE    "session.status"

enum ready { READY_NONE, READY_TCP, READY_UNIX, READY_STDOUT_LINE };

/* A component, or main (which has no command of its own: launch's COMMAND
 * is main's, and main has neither ready nor freeze_when_ready). */
struct component {
	char *role;                  /* a DNS label: [A-Za-z0-9-]+, no "-" first or last */
	struct strlist command;      /* at least one word, no NUL; main: none */
	struct policy pol;
	char hash[HASH_TEXT_LEN + 1];  /* of the inline policy on its own */
	unsigned policy_tok;         /* its token in the manifest's document */
	enum ready ready;
	unsigned ready_port;         /* READY_TCP */
	char *ready_path;            /* READY_UNIX, normalised (policy_path) */
	unsigned long ready_timeout; /* seconds */
	int identity, freeze_when_ready;
	size_t *after, nafter;       /* the components it starts after, by index */
	int health;                  /* it has a health check: ... */
	unsigned health_port;        /* health.tcp, or 0 */
	unsigned http_port;          /* health.http.port, or 0 */
	char *http_path;             /* ... its path: "/", then 0x21-0x7e */
	struct strlist health_command;  /* health.command, or none */
	unsigned long health_interval_ms, health_timeout_ms, health_fails;
	unsigned after_tok;          /* its "after" in the manifest's document, or 0 */
	unsigned read_logs_tok;      /* main's "read_logs" in it, or 0 */
};

/* A shared directory, MANIFEST_SHARE_DIR/NAME: its roles, as indices of
 * comp (ncomp for main). The first writer owns it; the others are in its
 * group, the session's "share.NAME"; 2770, or 2750 when it has readers
 * (then it has one writer). */
struct share {
	char *name;                  /* a DNS label of at most MANIFEST_SHARE_NAME_MAX */
	size_t write[MANIFEST_MAX_COMPONENTS + 1], nwrite;
	size_t read[MANIFEST_MAX_COMPONENTS + 1], nread;
};

struct manifest {
	char *id;                    /* as a policy's id */
	struct component *comp;      /* the components in file order, then main */
	size_t ncomp;                /* comp[ncomp] is main */
	struct share *share;         /* the manifest's "share", in file order */
	size_t nshare;
	unsigned share_tok;          /* "share" in the manifest's document, or 0 */
	size_t read_logs[MANIFEST_MAX_COMPONENTS];  /* main's read_logs, by index */
	size_t nread_logs;
};

/* Role I (an index of M's comp) shares S: 0, 'w' or 'r'. */
int manifest_shares(const struct share *s, size_t i);

/* Check DOC as a launch 1 manifest, as policy_check checks a policy: each
 * problem to REPORT(CTX, line), in file order, then missing keys, then
 * what spans components. A component's lines start with its place and,
 * when it is valid, its role (`components[1] "kms": policy.files.write[0]:
 * not an absolute path: "tmp"`). Returns the number of problems; when 0,
 * M is filled (free with manifest_free), otherwise M is left empty. */
size_t manifest_check(struct manifest *m, const struct json_doc *doc,
                      void (*report)(void *ctx, const char *line), void *ctx);
void manifest_free(struct manifest *m);

/* What `check` and `launch --dry-run` warn of in the valid manifest M, a
 * line each to REPORT(CTX, line), labelled as manifest_check's: a TCP
 * port a role connects to that no role listens on (no ready.tcp and no
 * policy.network.bind_tcp_ports names it), and a path of a policy's files
 * or of ready.unix beneath MANIFEST_STATE_DIR/NAME where NAME is no
 * role's. Returns how many. */
size_t manifest_warn(const struct manifest *m, void (*report)(void *ctx, const char *line),
                     void *ctx);

/* SHARNESS_AI_READY_<ROLE> for ROLE into OUT: upper case, "-" and "."
 * as "_". */
#define MANIFEST_READY_NAME_MAX (sizeof MANIFEST_READY_PREFIX + MANIFEST_ROLE_MAX)
void manifest_ready_name(char out[MANIFEST_READY_NAME_MAX], const char *role);

/* The one way a manifest is read (the launcher's launch and check, and
 * the signer's sign and verify): load_read (policy/load.h) of PATH, or of
 * FD when it is not -1, pinned to WANT when not NULL; then manifest_check,
 * each problem on a line of its own ("PROG: PATH: line"), or, when KINDS
 * allows a policy and it is one, load_check. 1 when valid, L's id set;
 * else 0 with every problem said, L and M empty. manifest_free(M) and
 * unload_policy(L) free it. */
int manifest_load(int fd, const char *path, struct loaded *l, struct manifest *m,
                  const unsigned char *want, int kinds);

#endif
