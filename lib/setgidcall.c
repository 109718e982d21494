/* The setgid servers' shared decision (setgidcall.h); landlock/setgid.c
 * says why it holds. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "seccomp.h"
#include "setgidcall.h"

#ifndef AT_EMPTY_PATH
# define AT_EMPTY_PATH 0x1000
#endif
#ifndef RESOLVE_NO_MAGICLINKS
# define RESOLVE_NO_MAGICLINKS 0x02
#endif

static int decode(const struct seccomp_data *d, struct setgidcall *c)
{
	memset(c, 0, offsetof(struct setgidcall, path));
	c->dirfd = AT_FDCWD;
	c->base = -1;
	c->path[0] = '\0';
#ifdef SECCOMP_ARCH
	if (d->arch != SECCOMP_ARCH)
		return -1;
#endif
#ifdef SYS_chmod
	if (d->nr == SYS_chmod) {
		c->addr = d->args[0];
		c->mode = (unsigned)d->args[1];
		return 0;
	}
#endif
	if (d->nr == SYS_fchmod) {
		c->dirfd = -1;
		c->fd = (int)d->args[0];
		c->mode = (unsigned)d->args[1];
		return 0;
	}
	if (d->nr != SYS_fchmodat && d->nr != SYS_fchmodat2)
		return -1;
	c->dirfd = (int)d->args[0];
	c->addr = d->args[1];
	c->mode = (unsigned)d->args[2];
	c->flags = d->nr == SYS_fchmodat2 ? (int)d->args[3] : 0;
	return 0;
}

/* The NUL-terminated string at ADDR in TID's memory, a page at a time. */
static int read_path(pid_t tid, unsigned long long addr, char *buf, size_t size)
{
	size_t got = 0;

	while (got + 1 < size) {
		size_t chunk = 4096 - (size_t)((addr + got) & 4095);
		struct iovec l, r;
		ssize_t n;

		if (chunk > size - 1 - got)
			chunk = size - 1 - got;
		l = (struct iovec){ buf + got, chunk };
		r = (struct iovec){ (void *)(uintptr_t)(addr + got), chunk };
		if ((n = process_vm_readv(tid, &l, 1, &r, 1, 0)) <= 0)
			return errno == EFAULT ? EFAULT : EPERM;
		if (memchr(buf + got, '\0', (size_t)n))
			return 0;
		got += (size_t)n;
	}
	return ENAMETOOLONG;
}

/* The caller's root is this process's own (the same inode). */
static int same_root(int procfd, pid_t tid)
{
	struct stat a, b;
	char name[32];

	snprintf(name, sizeof name, "%d/root", (int)tid);
	if (fstatat(procfd, name, &a, 0) < 0 || stat("/", &b) < 0)
		return 0;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* PATH beneath BASE, as the caller's lookup would go, but for the
 * magic links of /proc (ELOOP): there "self" would be this process, and
 * /proc/self/cwd this one's working directory. openat2 (Linux 5.6; the
 * filter refuses it to the target, never to this process). */
static int lookup(int base, const char *path, int flags)
{
	struct { __u64 flags, mode, resolve; } how = { (__u64)flags, 0, RESOLVE_NO_MAGICLINKS };

	return (int)syscall(SYS_openat2, base, path, &how, sizeof how);
}

int setgid_begin(int procfd, const struct seccomp_notif *req, struct setgidcall *c,
                 int (*getfd)(pid_t tid, int fd))
{
	pid_t tid = (pid_t)req->pid;
	char name[64];
	int err;

	if (decode(&req->data, c) < 0 || c->mode & S_ISUID || !(c->mode & S_ISGID))
		return EPERM;
	c->tid = tid;
	c->nr = (unsigned long long)req->data.nr;
	memcpy(c->args, req->data.args, sizeof c->args);
	if (c->flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return EINVAL;
	if (c->dirfd != -1 && (err = read_path(tid, c->addr, c->path, sizeof c->path)))
		return err;
	/* A target in a user namespace of its own may have chrooted: its
	 * names would mean other files here. */
	if (!same_root(procfd, tid))
		return EPERM;
	/* An empty path names the directory descriptor itself only with
	 * AT_EMPTY_PATH (fchmodat2). */
	if (c->dirfd != -1 && !(c->flags & AT_EMPTY_PATH) && !c->path[0])
		return ENOENT;
	if (c->dirfd == AT_FDCWD)
		snprintf(name, sizeof name, "%d/cwd", (int)tid);
	else if (getfd) {
		c->base = getfd(tid, c->dirfd == -1 ? c->fd : c->dirfd);
		return c->base < 0 ? (errno == EBADF ? EBADF : EPERM) : 0;
	} else
		snprintf(name, sizeof name, "%d/fd/%d", (int)tid, c->dirfd == -1 ? c->fd : c->dirfd);
	c->base = openat(procfd, name, O_PATH | O_CLOEXEC);
	if (c->base < 0)
		return errno == ENOENT ? EBADF : EPERM;
	return 0;
}

/* C's file, opened O_PATH where it is a directory, into *OUT; 0 or the
 * errno to answer (EPERM for anything but a directory, *FILE then 1). */
static int open_target(const struct setgidcall *c, int *out, int *file)
{
	int fd, nofollow = c->flags & AT_SYMLINK_NOFOLLOW ? O_NOFOLLOW : 0, e;

	if (c->dirfd == -1 || !c->path[0]) {
		*out = dup(c->base);
		return *out < 0 ? EPERM : 0;
	}
	fd = lookup(c->base, c->path, O_PATH | O_DIRECTORY | O_CLOEXEC | nofollow);
	e = errno;
	if (fd < 0 && e == ENOTDIR) {
		/* The file itself is no directory (refused), or a
		 * component on the way is not (the call's own error). */
		fd = lookup(c->base, c->path, O_PATH | O_CLOEXEC | nofollow);
		e = fd < 0 ? errno : EPERM;
		*file = fd >= 0;
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	*out = fd;
	return fd < 0 ? e : 0;
}

int setgid_finish(int procfd, struct setgidcall *c)
{
	struct stat st;
	char self[64];
	int fd = -1, file = 0, err = open_target(c, &fd, &file);

	close(c->base);
	c->base = -1;
	if (!err && fstat(fd, &st) < 0)
		err = EPERM;
	else if (!err && (!S_ISDIR(st.st_mode) || st.st_uid != geteuid()))
		err = EPERM, file = !S_ISDIR(st.st_mode);
	else if (!err) {
		snprintf(self, sizeof self, "self/fd/%d", fd);
		err = fchmodat(procfd, self, c->mode & 07777, 0) < 0 ? errno : 0;
	}
	if (fd >= 0)
		close(fd);
	/* Before the answer: the caller still waits in the call, and the
	 * observer reads its path there. */
	if (file)
		setgid_tell(c);
	return err;
}

static int telling;

int setgid_tell_install(void)
{
#ifdef SECCOMP_ARCH
	struct seccomp_prog p = { .n = 0 };

	seccomp_arch_check(&p);
	seccomp_if_eq(&p, SYS_getppid, SECCOMP_RET_TRACE | SECCOMP_TRACE_SETGID);
	seccomp_ret(&p, SECCOMP_RET_ALLOW);
	telling = seccomp_filter(&p, 0) == 0;
#endif
	return telling ? 0 : -1;
}

void setgid_tell(const struct setgidcall *c)
{
	if (telling)
		syscall(SYS_getppid, (long)c->tid, (long)c->nr, (long)c->args[0],
		        (long)c->args[1], (long)c->args[2], (long)c->args[3]);
}
