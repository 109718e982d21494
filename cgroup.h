/* The run's cgroup: made by sharness-exec-supervise beneath the caller's own
 * one, on cgroup v2 or on the v1 memory, pids and cpu hierarchies, capped and
 * joined by sharness-exec-limits (cg_caps, cg_enter), and killed, emptied
 * and removed by the supervise step's watcher alone (watcher.c), which
 * outlives a SIGKILLed supervisor. The launcher makes, joins and removes
 * its session's cgroups with the same calls (launch/cgroups.c). Every
 * function takes the hierarchy's mount point (ROOT) and the text of
 * /proc/self/cgroup rather than reading them itself (cg2_root looks for
 * the one, cg_read can read the other), so the unit tests run the same
 * code against a fake tree.
 * Nothing here prints: failures come back as -1 with errno set, or as a
 * pointer to the path that failed, and the setup functions also leave a
 * one-line reason in WHY.
 *
 * Preconditions: ROOT MUST be a mounted cgroup hierarchy of the right
 * version (the caller checks the file system type); SELF MUST be the pid of
 * the calling process. */
#ifndef SHARNESS_CGROUP_H
#define SHARNESS_CGROUP_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

/* Children are named CG_PREFIX "<supervisor pid>", or, when that name is
 * taken (by a run in another pid namespace, or one that is gone),
 * CG_PREFIX "<pid>-<n>"; on v2 the supervisor may also need a leaf of its
 * own, the same name followed by CG_SV_SUFFIX. */
#define CG_PREFIX "sharness-exec."
#define CG_SV_SUFFIX ".sv"

/* The controllers, as a mask: cg2_setup and cg1_setup take the ones the
 * caps need, and cg_caps says which caps it wrote. */
#define CG_MEMORY 1
#define CG_PIDS 2
#define CG_CPU 4
#define CG_NCTL 3
extern const char *const cg_ctl[CG_NCTL]; /* "memory", "pids", "cpu" */

struct cgroup {
	int version;             /* 1 or 2; 0: no cgroup is used */
	int n;                   /* cgroups made: one on v2, one to three on v1 */
	char dir[CG_NCTL][PATH_MAX]; /* the cgroup(s) the child joins */
	int ctl[CG_NCTL];        /* v1: the controller of each (CG_*); v2: 0 */
	/* v2 only: the caller's own cgroup, the controllers we enabled in its
	 * cgroup.subtree_control, and whether the supervisor moved out of it
	 * into the leaf SV to be allowed to (the "no internal processes"
	 * rule); cg_remove undoes all three. */
	char home[PATH_MAX];
	char sv[PATH_MAX];
	int enabled, moved;      /* enabled: a mask of CG_* */
};

/* Find the caller's cgroup path in the text of /proc/self/cgroup: the
 * "0::PATH" line when CONTROLLER is NULL (v2), else the v1 line whose
 * controller list holds CONTROLLER. The path must be absolute and hold no
 * ".", ".." or empty component: a cgroup namespace shows a cgroup outside
 * it as "/.." and that must never be followed. 0 on success; -1 with
 * ENOENT (no such line), EINVAL (refused path) or ENAMETOOLONG. */
int cg_self_path(const char *proc_cgroup, const char *controller,
                 char *out, size_t outsz);

/* Make the v2 cgroup ROOT/<caller's path>/sharness-exec.SELF, with the
 * controllers of WANT (CG_MEMORY, CG_PIDS, CG_CPU) enabled for it; with
 * none, a plain cgroup that only tracks the run.
 * ALSO, when not 0, is the calling process, a helper of SELF's in the same
 * cgroup (the supervisor's watcher): it counts as SELF's, not as another
 * process, and moves along into the leaf. Never enables a controller in a
 * cgroup that holds other processes (but the hierarchy's root), never
 * touches a cgroup it did not make, nor a process but SELF and ALSO. 0 on
 * success; -1 with WHY filled and everything undone (but SELF, moved back
 * only by cg_remove's caller: see there). */
int cg2_setup(struct cgroup *cg, const char *root, const char *proc_cgroup,
              pid_t self, pid_t also, int want, char *why, size_t whysz);

/* The same on v1: ROOT/CONTROLLER/<path>/sharness-exec.SELF for each
 * controller of WANT, in the order of cg_ctl. */
int cg1_setup(struct cgroup *cg, const char *root, const char *proc_cgroup,
              pid_t self, int want, char *why, size_t whysz);

/* limits/cgroupcaps.c, for sharness-exec-limits: write the caps that DIR
 * (the directory open at AT; DIR names it in WHY) has files for: memory (MIB, when not 0) as v2 memory.max and
 * memory.swap.max 0, or as v1 memory.limit_in_bytes and
 * memory.memsw.limit_in_bytes; processes (PIDS, when not 0) as pids.max.
 * Adds CG_MEMORY and CG_PIDS to *DONE for what was written, and CG_V1 when
 * the memory cap went into v1 files; with CG_V1 in *DONE already (an
 * earlier cgroup of the run's was v1), no v2 file is tried. Callers pass 0
 * for a cap written already, so that each file is opened once. 0 on
 * success; -1 with WHY filled. */
#define CG_V1 8
int cg_caps(int at, const char *dir, unsigned long mib, unsigned long pids, int *done,
            char *why, size_t whysz);

/* cgrouptcp.c, for sharness-exec-limits, after cg_caps wrote the memory
 * cap into DIR (open at AT): on cgroup v1, cap the memory of the TCP buffers of the
 * sockets made in DIR from now on at MIB MiB too, in CG_TCP_FILE (a
 * counter apart from memory.limit_in_bytes; UDP is in neither). VERSION
 * is DIR's when known (cg_caps's CG_V1: 1), else 0: then it is looked
 * for. 1 written; 2 when DIR is v2 (memory.max counts socket memory
 * already); 0 when the kernel has no such file; -1 with WHY filled. */
#define CG_TCP_FILE "memory.kmem.tcp.limit_in_bytes"
int cg_tcp(int at, const char *dir, unsigned long mib, int version, char *why, size_t whysz);

/* cgroupcpu.c, for sharness-exec-limits: cap the CPU time of DIR (open at
 * AT; its ancestors are read by DIR's path) at
 * PERCENT % of one CPU, as v2 cpu.max "PERCENT*1000 100000", or as v1
 * cpu.cfs_period_us 100000 and cpu.cfs_quota_us PERCENT*1000. v1 refuses a
 * quota above the nearest ancestor's: then, when CLAMP, the ancestor's is
 * written instead, and WHY says so. *QUOTA is what was written, in
 * microseconds per 100000. 1 written, 2 written but clamped, 0 when DIR
 * has no cpu files; -1 with WHY filled. */
#define CG_CPU_PERIOD 100000
int cg_cpu(int at, const char *dir, unsigned long percent, int clamp, unsigned long *quota,
           char *why, size_t whysz);

/* DIR/FILE, as the kernel's interface files are written and read:
 * cg_put writes VAL (1 done, -1 failed, 0 when OPTIONAL and missing),
 * cg_read reads at most N - 1 bytes (0, or -1 with errno set). */
int cg_put(const char *dir, const char *file, const char *val, int optional);
int cg_read(const char *dir, const char *file, char *buf, size_t n);

/* Called, when set, with each cgroup directory just made: the unit tests
 * put in the interface files that cgroupfs would have made. */
extern void (*cg_made)(const char *dir);

/* Move the calling process into DIR. 0, or -1 with errno set. */
int cg_enter(const char *dir);
/* Move PID, a whole process, into DIR (its cgroup.procs). 0, or -1 with
 * errno set. */
int cg_move(const char *dir, pid_t pid);

/* Open DIR (O_RDONLY) into *DIRFD and the file that joins it into *JOINFD
 * (O_WRONLY): v1's "tasks", else cgroup.procs, both close-on-exec. The
 * kernel checks a write to it against the credentials of whoever opened
 * it: supervise opens them, the limits step writes (cg_enter_fd). 0, or -1
 * with errno set and nothing left open. */
int cg_open(const char *dir, int *dirfd, int *joinfd);

/* limits/cgroupcaps.c: cg_put, cg_read and cg_enter at the cgroup
 * directory AT, or through JOINFD (from cg_open), by descriptor. */
int cg_putat(int at, const char *file, const char *val, int optional);
int cg_readat(int at, const char *file, char *buf, size_t n);
int cg_enter_fd(int joinfd);

/* Move PID into every cgroup of CG. NULL on success, else the directory
 * that refused it, with errno set. */
const char *cg_join(const struct cgroup *cg, pid_t pid);

/* One pass of killing what is left in CG: cgroup.kill where the kernel has
 * it (v2, Linux 5.14), else SIGKILL to every pid in cgroup.procs. Returns
 * how many processes were still listed (0: all empty). */
int cg_kill(const struct cgroup *cg);

/* Remove the cgroups of CG and undo what cg2_setup did to the caller's
 * cgroup; call it once, after the last process in CG is gone. NULL on
 * success, else the first path that could not be cleaned, with errno set
 * (the rest is still attempted). */
const char *cg_remove(struct cgroup *cg, pid_t self);

/* rmdir DIR and, first, every cgroup beneath it, leaves first, down to a
 * nesting of 16 (DEPTH: 0); EBUSY is retried for a moment (a process just
 * killed). 0 (also when DIR is gone already), or -1 with errno set. */
int cg_remove_tree(const char *dir, int depth);

/* Where the hierarchies are mounted: cgroup2 at CG_ROOT on a unified
 * host, at CG_ROOT "/unified" (often without controllers) on a hybrid
 * one, and the v1 hierarchies at CG_ROOT/CONTROLLER. cg2_root: the one of
 * the two that is a cgroup2 mount, or NULL. */
#define CG_ROOT "/sys/fs/cgroup"
const char *cg2_root(void);

#endif
