/* What this machine lets sharness-exec enforce, for `probe` and `hello`
 * (sharness-exec-probe). Two kinds of facts: those of the caller, read
 * without changing anything (identity, capabilities, seccomp state, the
 * Landlock ABI and why it is missing, a few kernel config keys, tools on
 * PATH, the names of proxy variables); and the walls a run really puts up,
 * which only the chain's own steps decide: `sharness-exec run --check`
 * runs them in check mode (-t) and each says in one line what it used. */
#ifndef SHARNESS_MACHINE_H
#define SHARNESS_MACHINE_H

#include <stddef.h>
#include <sys/types.h>

enum landlock_state {
	LANDLOCK_AVAILABLE,  /* the ABI version is in landlock_abi */
	LANDLOCK_MISSING,    /* ENOSYS from the kernel itself: not built in */
	LANDLOCK_DISABLED,   /* EOPNOTSUPP: built in, not enabled at boot (lsm=) */
	LANDLOCK_BLOCKED,    /* a seccomp filter answered instead of the kernel */
	LANDLOCK_UNKNOWN,    /* ENOSYS under a filter, and no kernel config to tell */
};

#define MACHINE_NCONFIG 8
#define MACHINE_NTOOLS  3
extern const char *const machine_config_keys[MACHINE_NCONFIG];
extern const char *const machine_tools[MACHINE_NTOOLS];

struct machine {
	char kernel[65];               /* uname -r */
	uid_t uid;
	gid_t gid;
	gid_t *groups;
	int ngroups;
	char cap_eff[17], cap_prm[17], cap_bnd[17]; /* hex as in /proc; "" unknown */
	int no_new_privs;              /* -1: unknown */
	int seccomp;                   /* 0 none, 1 strict, 2 filter, -1 unknown */

	enum landlock_state landlock;
	int landlock_abi;              /* 0 unless LANDLOCK_AVAILABLE */
	int landlock_err;              /* errno, or 0; landlock_sig: killed by it */
	int landlock_sig;
	long landlock_errata;          /* LANDLOCK_CREATE_RULESET_ERRATA; -1 unknown */

	int memfd_secret;
	int memfd_secret_err;

	const char *config_source;     /* NULL: no kernel config readable */
	char *config[MACHINE_NCONFIG]; /* "y", "m", "n", a string; NULL unknown */
	char *lsm;                     /* /sys/kernel/security/lsm, or NULL */

	char *tools[MACHINE_NTOOLS];   /* full path on PATH, or NULL */
	char **proxies;                /* names only, sorted */
	size_t nproxies;
};

/* Gather the caller's facts. Never fails: what cannot be learnt stays
 * unknown. Forks short-lived children (Landlock, memfd_secret, gzip); the
 * calling process itself is left exactly as it was. */
void machine_probe(struct machine *m);
/* Free what machine_probe allocated; M is all zeros afterwards. */
void machine_free(struct machine *m);

/* "EPERM" and friends for the errnos these facts can carry. */
const char *errno_name(int err);

/* --- the front end --- */

/* The front end that exec'd us (-F FD), or the installed one. */
void frontend_set(int fd);

/* One run of the front end with ARGS (argv[1] on), stdin IN, stdout OUT
 * (-1: captured), stderr captured; killed after TIMEOUT seconds. */
struct capture {
	int status;          /* from waitpid; valid when !timed_out */
	int timed_out;
	char *out, *err;     /* what was captured, NUL-terminated */
	size_t outlen, errlen;
};
#define FRONTEND_TIMEOUT 30
void frontend_run(const char *const *args, int in, int out, struct capture *c);
void capture_free(struct capture *c);
/* All of the file FD (regular, or a memfd), NUL-terminated; FD is closed. */
char *fd_slurp(int fd, size_t *len);

/* --- the walls, as the chain's steps report them in check mode --- */

struct walls {
	int ran;                       /* every step reported: the run went through */
	char fatal[256];               /* else the first fatal line, or how it ended */
	char network[16], ipc[16], user[16], why_net[160];
	char pid[16], cgroup[8], why_cgroup[256];
	/* where each limit went: the cgroup the run's own was made in, or
	 * RLIMIT_AS, RLIMIT_NPROC, none; "" without a limits step */
	char memory[256], pids[256];
	unsigned long memory_mib;
	char mount[16], root[8], proc[8], why_mount[160];
	int abi, seccomp, no_new_privs;
	unsigned long long fs;
	char net[16], scoped[32], caps[16], guard[16];
	/* each right the run relies on and the wall holding it, "none"
	 * where nothing does (rights.h): "FS:landlock,SCOPE_SIGNAL:pidns+seccomp" */
	char rights[640];
};

/* Run `sharness-exec run --check [--best-effort] --policy POLICY` (POLICY
 * a file, or "-" for the text TEXT on a pipe; HASH, when not NULL, pinned)
 * and read each step's line into W. */
void walls_check(const char *policy, const char *text, const char *hash, int best,
                 struct walls *w);

/* sharness-exec-probe's hello (hello.c): ARGV[0] is "hello". */
int cmd_hello(int argc, char **argv);

#endif
