/* What this machine lets sharness-exec enforce, gathered without changing
 * anything: identity, capabilities and seccomp state of the caller, the
 * Landlock ABI, whether namespaces can be made (tried in throwaway
 * children), where memory and processes can be capped, a few kernel config
 * keys, related tools on PATH and the names of proxy variables.
 * `probe` prints these facts; `hello` turns them into caveats. */
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

enum netns_how { NETNS_NO, NETNS_DIRECT, NETNS_USERNS };

/* Where a cap on memory or on processes would be placed, best first. */
enum cap_how { CAP_BY_RLIMIT, CAP_BY_CGROUP1, CAP_BY_CGROUP2 };

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

	int seccomp_filter;            /* 1: a seccomp filter can be installed */
	int listen_guard;              /* 1: the listen guard can be had */
	const char *listen_guard_why;  /* what it lacks, or NULL */

	int userns;                    /* 1: a user namespace can be made */
	int userns_err;
	enum netns_how netns;
	int netns_err;                 /* why the last attempt failed */

	int cgroup1, cgroup2;          /* hierarchies mounted (v1: memory or pids) */
	enum cap_how memory, pids;
	char *memory_path, *pids_path; /* the caller's own cgroup, when usable */

	int memfd_secret;
	int memfd_secret_err;

	const char *config_source;     /* NULL: no kernel config readable */
	char *config[MACHINE_NCONFIG]; /* "y", "m", "n", a string; NULL unknown */
	char *lsm;                     /* /sys/kernel/security/lsm, or NULL */

	char *tools[MACHINE_NTOOLS];   /* full path on PATH, or NULL */
	char **proxies;                /* names only, sorted */
	size_t nproxies;
};

/* Gather every fact. Never fails: what cannot be learnt stays unknown.
 * Forks short-lived children (namespaces, Landlock, memfd_secret, gzip);
 * the calling process itself is left exactly as it was. */
void machine_probe(struct machine *m);
/* Free what machine_probe allocated; M is all zeros afterwards. */
void machine_free(struct machine *m);

/* "EPERM" and friends for the errnos these facts can carry. */
const char *errno_name(int err);

#endif
