/* run --explain: which access each traced call that failed was
 * (explain.h), the explainer's dispatcher: a path call goes to
 * explain.c's record, a socket call to explainnet.c. Above both, below
 * the observer (observer.c), which hands it every call. */
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

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

/* --- the set-id bits (seccomp.c's mode_setters and setid_open) --- */

/* Each call the filter refuses a set-id bit in: where its mode is, where
 * its flags are (-1: it always creates or sets), its directory
 * descriptor and path (-1: none; fchmod's descriptor is its dirfd). */
static const struct setidcall {
	long nr;
	signed char mode, flags, dirfd, path;
} setidcalls[] = {
#ifdef SYS_open
	{ SYS_open, 2, 1, -1, 0 }, { SYS_creat, 1, -1, -1, 0 }, { SYS_chmod, 1, -1, -1, 0 },
	{ SYS_mknod, 1, -1, -1, 0 },
#endif
	{ SYS_openat, 3, 2, 0, 1 }, { SYS_fchmod, 1, -1, 0, -1 }, { SYS_fchmodat, 2, -1, 0, 1 },
	{ SYS_fchmodat2, 2, -1, 0, 1 }, { SYS_mknodat, 2, -1, 0, 1 },
};

#define CREATES (O_CREAT | (O_TMPFILE & ~O_DIRECTORY))

static const struct setidcall *setid_call(const struct call *c)
{
	for (size_t i = 0; i < sizeof setidcalls / sizeof *setidcalls; i++) {
		const struct setidcall *s = &setidcalls[i];

		/* The filter reads the low 32 bits of each (seccomp.c). */
		if (s->nr == c->nr && (s->flags < 0 || (unsigned)c->args[(int)s->flags] & CREATES) &&
		    (unsigned)c->args[(int)s->mode] & (S_ISUID | S_ISGID))
			return s;
	}
	return NULL;
}

int setid_refused(const struct call *c)
{
	return setid_call(c) != NULL;
}

/* Is the file of a set-id bit a directory? Looked at from here, outside
 * the view, where a write path has the same name. */
static int setid_on_dir(pid_t pid, const struct setidcall *s, int dirfd, const char *path)
{
	struct stat st;
	int fd = s->path >= 0 ? -1 : fd_copy(pid, dirfd);
	int r = s->path >= 0 ? path && *path == '/' && stat(path, &st) == 0 :
	        fd >= 0 && fstat(fd, &st) == 0;

	if (fd >= 0)
		close(fd);
	return r && S_ISDIR(st.st_mode);
}

void explain_setid(pid_t pid, const struct call *c, int err, const char *cwd, int server)
{
	const struct setidcall *s = setid_call(c);
	char name[PATH_MAX], abs[PATH_MAX], what[PATH_MAX + 64];
	const char *path = NULL;
	unsigned mode;
	int dirfd;

	if (!s)
		return;
	dirfd = s->dirfd < 0 ? AT_FDCWD : (int)c->args[(int)s->dirfd];
	if (s->path < 0)
		path = fd_path(pid, dirfd, abs) == 0 ? abs : NULL;
	else if (observe_string(pid, c->args[(int)s->path], name, sizeof name) > 0)
		path = absolute(pid, dirfd, name, cwd, abs) ? abs : name;
	mode = (unsigned)c->args[(int)s->mode] & 07777;
	snprintf(what, sizeof what, "%s, mode %04o", path ? path : "?", mode);
	/* A directory's setgid bit reaches the filter's refusal only where
	 * no setgid server could be had (landlock/setgid.c); the server's
	 * refusals (SERVER) are of files. */
	record("set-id bit", what, err, server ? "refused by the setgid server" :
	       "refused by the seccomp filter", NULL,
	       !server && !(mode & S_ISUID) && s->flags < 0 && setid_on_dir(pid, s, dirfd, path) ?
	       "this run has no setgid server, which sets a directory's setgid bit where "
	       "the target owns the directory: it needs seccomp user notification, and "
	       "the view's mount namespace or no namespace at all (in the object form, "
	       "the view)" :
	       "no target makes a set-id file: a file's set-id bit hands its owner "
	       "or group to whoever runs it, and the filter refuses S_ISUID in every "
	       "mode, and S_ISGID on everything but a directory the target owns");
}
