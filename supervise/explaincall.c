/* run --explain: which access each traced call that failed was
 * (explain.h), the explainer's dispatcher: a path call goes to
 * explain.c's record, a socket call to explainnet.c. Above both, below
 * the observer (observer.c), which hands it every call. */
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <sys/syscall.h>

#include "explain.h"
#include "seccomp.h"


enum { K_OPEN, K_EXEC, K_CREATE, K_REMOVE, K_WRITE, K_CHDIR, K_PROBE };

/* Each traced path call: where its directory descriptor (-1: none) and
 * path are, and what it does; for open, where its flags are (-1: creat). */
static const struct pathcall {
	long nr;
	signed char dirfd, path, kind, flags;
} pathcalls[] = {
#ifdef SYS_open
	{ SYS_open, -1, 0, K_OPEN, 1 },
#endif
#ifdef SYS_creat
	{ SYS_creat, -1, 0, K_OPEN, -1 },
#endif
	{ SYS_openat, 0, 1, K_OPEN, 2 },
	{ SYS_execve, -1, 0, K_EXEC, 0 },
	{ SYS_execveat, 0, 1, K_EXEC, 0 },
#ifdef SYS_mkdir
	{ SYS_mkdir, -1, 0, K_CREATE, 0 },
	{ SYS_mknod, -1, 0, K_CREATE, 0 },
	{ SYS_unlink, -1, 0, K_REMOVE, 0 },
	{ SYS_rmdir, -1, 0, K_REMOVE, 0 },
	{ SYS_rename, -1, 1, K_CREATE, 0 },
	{ SYS_link, -1, 1, K_CREATE, 0 },
	{ SYS_symlink, -1, 1, K_CREATE, 0 },
	{ SYS_chmod, -1, 0, K_WRITE, 0 },
#endif
	{ SYS_mkdirat, 0, 1, K_CREATE, 0 },
	{ SYS_mknodat, 0, 1, K_CREATE, 0 },
	{ SYS_unlinkat, 0, 1, K_REMOVE, 0 },
#ifdef SYS_renameat
	{ SYS_renameat, 2, 3, K_CREATE, 0 },
#endif
	{ SYS_renameat2, 2, 3, K_CREATE, 0 },
	{ SYS_linkat, 2, 3, K_CREATE, 0 },
	{ SYS_symlinkat, 1, 2, K_CREATE, 0 },
	{ SYS_truncate, -1, 0, K_WRITE, 0 },
	{ SYS_fchmodat, 0, 1, K_WRITE, 0 },
	{ SYS_fchmodat2, 0, 1, K_WRITE, 0 },
	{ SYS_chdir, -1, 0, K_CHDIR, 0 },
	/* Probes: a stat or access of a hidden path (record_probe). */
#ifdef SYS_stat
	{ SYS_stat, -1, 0, K_PROBE, 0 }, { SYS_lstat, -1, 0, K_PROBE, 0 },
	{ SYS_access, -1, 0, K_PROBE, 0 },
#endif
	{ SYS_newfstatat, 0, 1, K_PROBE, 0 }, { SYS_statx, 0, 1, K_PROBE, 0 },
	{ SYS_faccessat, 0, 1, K_PROBE, 0 }, { SYS_faccessat2, 0, 1, K_PROBE, 0 },
};

static void explain_path(pid_t pid, const struct pathcall *pc, const struct call *c,
                         int err, const char *cwd)
{
	char name[PATH_MAX], abs[PATH_MAX];
	const char *path;
	int dirfd = pc->dirfd < 0 ? AT_FDCWD : (int)c->args[(int)pc->dirfd];

	if (!failure_of_policy(err) ||
	    observe_string(pid, c->args[(int)pc->path], name, sizeof name) <= 0)
		return;
	path = absolute(pid, dirfd, name, cwd, abs);
	switch (pc->kind) {
	case K_OPEN:
		record_open(path, name, pc->flags < 0 ? O_CREAT | O_WRONLY | O_TRUNC :
		            (int)c->args[(int)pc->flags], err);
		break;
	case K_EXEC: record_path("exec", path, name, err, R_EXEC, 0, 1); break;
	case K_CREATE: record_path("create", path, name, err, R_WRITE, 1, 0); break;
	case K_REMOVE: record_path("remove", path, name, err, R_WRITE, 1, 0); break;
	case K_WRITE: record_path("write", path, name, err, R_WRITE, 0, 0); break;
	case K_CHDIR: record_path("list", path, name, err, R_READ, 0, 0); break;
	case K_PROBE: record_probe(path, name, err); break;
	}
}

void explain_call(pid_t pid, const struct call *c, int err, const char *cwd)
{
	if (!err)
		return;
#ifdef SYS_connect
	if (c->nr == SYS_connect || c->nr == SYS_bind) {
		explain_socket(pid, c, err, cwd, c->nr == SYS_bind);
		return;
	}
#endif
	for (size_t i = 0; i < sizeof pathcalls / sizeof *pathcalls; i++)
		if (pathcalls[i].nr == c->nr) {
			explain_path(pid, &pathcalls[i], c, err, cwd);
			return;
		}
}
