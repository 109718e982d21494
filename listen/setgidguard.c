/* The listen guard's setgid calls (setgidguard.h). Why it holds, beyond
 * what landlock/setgid.c says of the landlock step's server (the inode
 * opened once, never CONTINUE, the caller's memory and /proc entries read
 * before SECCOMP_IOCTL_NOTIF_ID_VALID, outside the target's domain, not
 * dumpable):
 *
 * - The guard's server is forked by the listen step, before the landlock
 *   step switches to the target's user: its ids may be root's. So it
 *   decides nothing under its own. It reads the caller's filesystem uid,
 *   filesystem gid and groups (/proc/TID/status) with the rest, before
 *   the ID_VALID check (a thread changes only its own credentials, and
 *   the caller was blocked in the call all along), then forks a child that
 *   takes exactly those (setgroups, setresgid, setresuid: CAP_SETGID and
 *   CAP_SETUID, the only capabilities the server keeps besides
 *   CAP_SYS_PTRACE, and those only permitted, never effective, outside the
 *   child), drops every capability, and only then resolves the path from
 *   the caller's working directory or descriptor and sets the mode. The
 *   lookup's permissions, the owner check (CAP_FOWNER: not held), and the
 *   kernel's own clearing of S_ISGID for a group the caller is not in
 *   (CAP_FSETID: not held) are the caller's.
 * - A call on a descriptor (fchmod, fchmodat's dirfd): the server takes
 *   the caller's descriptor with pidfd_getfd (CAP_SYS_PTRACE), as
 *   /proc/TID/fd is for the caller's uid alone to search; it is the same
 *   open file /proc/TID/fd/N would give. The pidfd is opened before the
 *   ID_VALID check, so the tid was the caller's.
 * - A user namespace that denies setgroups, or a server without
 *   CAP_SETUID and CAP_SETGID (a run without root's ids): the child keeps
 *   the ids and groups it has only where they are the caller's; else the
 *   call is refused. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>

#include "common.h"
#include "helper.h"
#include "rights.h"
#include "setgidcall.h"
#include "setgidguard.h"

#define MAX_GROUPS 4096

/* The caller's credentials, as the kernel checks a chmod against them. */
struct ids {
	uid_t uid;
	gid_t gid;
	int n;
	gid_t groups[MAX_GROUPS];
};

int view_procfd(void)
{
	const char *v = walls_value("procfd");
	unsigned long fd;
	struct statfs sf;
	int dup;

	if (!v || !parse_ulong(v, 3, INT_MAX, &fd))
		return -1;
	if (fstatfs((int)fd, &sf) < 0 || sf.f_type != 0x9fa0 /* PROC_SUPER_MAGIC */)
		return -1;
	dup = fcntl((int)fd, F_DUPFD_CLOEXEC, 3);
	return dup < 0 ? -1 : dup;
}

void setgid_rules(struct seccomp_prog *p)
{
	static const long nr[] = {
#ifdef SYS_chmod
		SYS_chmod,
#endif
		SYS_fchmod, SYS_fchmodat, SYS_fchmodat2,
	};
	static const unsigned arg[] = {
#ifdef SYS_chmod
		1,
#endif
		1, 2, 2,
	};

	for (size_t i = 0; i < sizeof nr / sizeof *nr; i++) {
		unsigned j = seccomp_emit(p, BPF_JMP | BPF_JEQ | BPF_K, (__u32)nr[i]), u, g;

		seccomp_load(p, SECCOMP_ARG_LO(arg[i]));
		u = seccomp_emit(p, BPF_JMP | BPF_JSET | BPF_K, S_ISUID);
		g = seccomp_emit(p, BPF_JMP | BPF_JSET | BPF_K, S_ISGID);
		seccomp_ret(p, SECCOMP_RET_USER_NOTIF);
		seccomp_land(p, u, 1);
		seccomp_land(p, g, 0);
		seccomp_ret(p, SECCOMP_RET_ALLOW);
		seccomp_land(p, j, 0);
	}
}

/* The fourth number of LINE ("Uid:\tr\te\ts\tfs"): the filesystem id. */
static int fs_id(const char *line, unsigned *id)
{
	return sscanf(line, "%*s %*u %*u %*u %u", id) == 1 ? 0 : -1;
}

/* TID's ids (status, read whole), into W; 0 or EPERM. */
static int caller_ids(int procfd, pid_t tid, struct ids *w)
{
	static char buf[65536];
	char name[32], *l, *g;
	unsigned u = 0, gi = 0;
	ssize_t n, got = 0;
	int fd;

	snprintf(name, sizeof name, "%d/status", (int)tid);
	if ((fd = openat(procfd, name, O_RDONLY | O_CLOEXEC)) < 0)
		return EPERM;
	while ((n = read(fd, buf + got, sizeof buf - 1 - (size_t)got)) > 0)
		got += n;
	close(fd);
	if (n < 0 || got >= (ssize_t)sizeof buf - 1)
		return EPERM;
	buf[got] = '\0';
	if (!(l = strstr(buf, "\nUid:")) || fs_id(l + 1, &u) < 0 ||
	    !(l = strstr(buf, "\nGid:")) || fs_id(l + 1, &gi) < 0 ||
	    !(l = strstr(buf, "\nGroups:")))
		return EPERM;
	w->uid = (uid_t)u;
	w->gid = (gid_t)gi;
	w->n = 0;
	for (g = l + 8; *g != '\n' && *g; ) {
		char *end;
		unsigned long v = strtoul(g, &end, 10);

		if (end == g)
			break;
		if (w->n == MAX_GROUPS)
			return EPERM;
		w->groups[w->n++] = (gid_t)v;
		g = end;
	}
	return 0;
}

static int capset_eff(__u32 eff)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &h, d) < 0)
		return -1;
	d[0].effective = eff;
	if (!eff)
		memset(d, 0, sizeof d);
	return (int)syscall(SYS_capset, &h, d);
}

/* The groups this process has are W's (a user namespace that denies
 * setgroups: the caller cannot have changed them either). */
static int same_groups(const struct ids *w)
{
	static gid_t have[MAX_GROUPS];
	int n = getgroups(MAX_GROUPS, have);

	if (n != w->n)
		return 0;
	for (int i = 0; i < n; i++)
		if (have[i] != w->groups[i])
			return 0;
	return 1;
}

/* In the child: W's ids and groups, no capability. A run without root's
 * ids maps only the caller's own (netns.c): there they are already W's,
 * and the server holds neither CAP_SETUID nor CAP_SETGID. */
static int become(const struct ids *w)
{
	if (geteuid() == w->uid && getuid() == w->uid && getegid() == w->gid &&
	    getgid() == w->gid && same_groups(w))
		return capset_eff(0);
	if (capset_eff(1U << CAP_SETUID | 1U << CAP_SETGID) < 0)
		return -1;
	if (setgroups((size_t)w->n, w->groups) < 0 && !same_groups(w))
		return -1;
	if (setresgid(w->gid, w->gid, w->gid) < 0 || setresuid(w->uid, w->uid, w->uid) < 0)
		return -1;
	return capset_eff(0);
}

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

/* The caller's descriptor FD itself: its /proc/TID/fd is the caller's
 * uid's to search, and this server's may be another (CAP_SYS_PTRACE lets
 * it take the descriptor, not search the directory). -1 with errno. */
static int caller_fd(pid_t tid, int fd)
{
	int pidfd = (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD), got, e;

	if (pidfd < 0 && errno == EINVAL)
		pidfd = (int)syscall(SYS_pidfd_open, tid, 0);
	if (pidfd < 0)
		return -1;
	got = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	e = errno;
	close(pidfd);
	errno = e;
	return got;
}

int setgid_call(int procfd, int nfd, struct seccomp_notif *req)
{
	static struct setgidcall c;
	static struct ids w;
	int err, status;
	pid_t child;

	if (procfd < 0)
		return EPERM;
	if ((err = setgid_begin(procfd, req, &c, caller_fd)))
		return err;
	err = caller_ids(procfd, (pid_t)req->pid, &w);
	/* Everything of the caller's is read: it was the caller all along. */
	if (!err && ioctl(nfd, SECCOMP_IOCTL_NOTIF_ID_VALID, &req->id) < 0)
		err = ENOENT;
	if (!err) {
		child = fork();
		if (child == 0)
			_exit(become(&w) < 0 ? EPERM : setgid_finish(procfd, &c));
		if (child < 0 || waitpid(child, &status, 0) < 0 || !WIFEXITED(status))
			err = EPERM;
		else
			err = WEXITSTATUS(status);
	}
	close(c.base);
	return err;
}
