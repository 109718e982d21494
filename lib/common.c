/* What every program of sharness-exec shares (common.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <limits.h>
#include <linux/openat2.h>

#include "common.h"

void (*msg_hook)(int code, const char *line);

static void vmsg(const char *kind, int code, int err, const char *fmt, va_list ap)
{
	char line[4096];
	int n = snprintf(line, sizeof line, "%s: %s: ", progname, kind);
	va_list aq;

	va_copy(aq, ap);
	fputs(line, stderr);
	vfprintf(stderr, fmt, ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
	if (msg_hook && n > 0 && (size_t)n < sizeof line) {
		n += vsnprintf(line + n, sizeof line - (size_t)n, fmt, aq);
		if (err && n > 0 && (size_t)n < sizeof line)
			snprintf(line + n, sizeof line - (size_t)n, ": %s", strerror(err));
		msg_hook(code, line);
	}
	va_end(aq);
}

void die_hint(int code, int err, const char *hintmsg, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("fatal", code, err, fmt, ap);
	va_end(ap);
	if (hintmsg)
		hint("%s", hintmsg);
	exit(code);
}

void fatal_say(int code, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("fatal", code, err, fmt, ap);
	va_end(ap);
}

void warnx_(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning", 0, 0, fmt, ap);
	va_end(ap);
}

void hint(const char *fmt, ...)
{
	va_list ap;

	fputs("hint: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void usage_fail(const char *usage, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("fatal", EXIT_REFUSED, 0, fmt, ap);
	va_end(ap);
	fprintf(stderr, "usage: %s\n", usage);
	exit(EXIT_REFUSED);
}

void usage_option(const char *usage, int c, const char *word)
{
	if (c == ':')
		usage_fail(usage, "option -%c needs a value", optopt);
	if (optopt)
		usage_fail(usage, "unknown option -%c", optopt);
	usage_fail(usage, "unknown option %s", word);
}

void help_opts(const char *s)
{
	for (int n; *s; s += strcspn(s, "\n") + 1) {
		n = (int)strcspn(s, "\t");
		printf("  %-30.*s%.*s\n", n, s, (int)strcspn(s + n + 1, "\n"), s + n + 1);
	}
}

int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* 1 when DIR, opened with no symlink on its way, is the directory DFD. */
static int same_dir(int dfd, const char *dir)
{
	struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
	                        .resolve = RESOLVE_NO_SYMLINKS };
	long fd = syscall(SYS_openat2, AT_FDCWD, dir, &how, sizeof how);
	struct stat a, b;
	int same;

	if (fd < 0 && errno == ENOSYS) /* before Linux 5.6 */
		fd = open(dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	same = fd >= 0 && fstat((int)fd, &a) == 0 && fstat(dfd, &b) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
	if (fd >= 0)
		close((int)fd);
	return same;
}

int replace_at(int dfd, const char *dir, const char *name, unsigned mode, const void *buf,
               size_t len)
{
	char tmp[NAME_MAX + 1];
	int fd = -1, e;

	for (unsigned i = 0; fd < 0 && i < 100; i++) {
		snprintf(tmp, sizeof tmp, ".%.200s.%ld-%u", name, (long)getpid(), i);
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		            mode ? 0600 : 0666);
		if (fd < 0 && errno != EEXIST)
			return -1;
	}
	if (fd < 0)
		return -1;
	e = (mode && fchmod(fd, mode) < 0) || write_all(fd, buf, len) < 0;
	e = close(fd) < 0 || e ? errno : dir && !same_dir(dfd, dir) ? ESTALE : 0;
	if (!e && renameat(dfd, tmp, dfd, name) == 0)
		return 0;
	e = e ? e : errno;
	unlinkat(dfd, tmp, 0);
	errno = e;
	return -1;
}

ssize_t read_upto(int fd, void *buf, size_t cap)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t total = 0;
	char extra;

	for (;;) {
		/* A FIFO opened O_NONBLOCK reads as empty until its first
		 * writer came: poll(2) waits for that, and for data. */
		ssize_t n = poll(&pfd, 1, -1) < 0 ? -1 : total < cap ?
		            read(fd, (char *)buf + total, cap - total) : read(fd, &extra, 1);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return n < 0 ? -1 : (ssize_t)total;
		if (total == cap)
			return (ssize_t)cap + 1;
		total += (size_t)n;
	}
}

char *sealed_read(int fd, size_t cap, size_t *len)
{
	const int all = F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL;
	int seals = fcntl(fd, F_GET_SEALS);
	struct stat st;
	size_t size;
	ssize_t n;
	char *buf;

	/* Only a memfd made with MFD_ALLOW_SEALING can be given these: every
	 * other shmem file is born with F_SEAL_SEAL, the rest take none. */
	if (seals < 0) {
		if (errno != EBADF)
			errno = EPERM;
		return NULL;
	}
	if ((seals & all) != all || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		errno = EPERM;
		return NULL;
	}
	if ((size = (size_t)st.st_size) > cap) {
		errno = EFBIG;
		return NULL;
	}
	if (!(buf = malloc(size + 1)))
		return NULL;
	for (*len = 0; *len < size; *len += (size_t)n) {
		while ((n = pread(fd, buf + *len, size - *len, (off_t)*len)) < 0 && errno == EINTR)
			;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			free(buf);
			return NULL;
		}
	}
	buf[size] = '\0';
	return buf;
}

int sealed_memfd(const char *name, unsigned int flags, const void *data, size_t len)
{
	int fd = memfd_create(name, flags | MFD_ALLOW_SEALING), e;

	if (fd < 0)
		return -1;
	if (write_all(fd, data, len) < 0 || lseek(fd, 0, SEEK_SET) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* The next entry of the directory FD (open for reading), its type in
 * *TYPE, "." and ".." left out; NULL at the end or on an error. One
 * directory at a time: readdir reads 2 KiB a call and allocates a DIR,
 * and the host's /tmp can hold thousands of entries (the view's host
 * links; the front end's socket scan, a rule directory each). */
const char *next_dirent(int fd, unsigned char *type)
{
	static char buf[32768];
	static long len, off;
	static int at = -1;
	struct d64 { unsigned long long ino; long long off; unsigned short reclen;
	             unsigned char type; char name[]; } *de;

	if (fd != at) {
		at = fd;
		len = off = 0;
	}
	for (;;) {
		if (off >= len) {
			if ((len = syscall(SYS_getdents64, fd, buf, sizeof buf)) <= 0) {
				at = -1;
				return NULL;
			}
			off = 0;
		}
		de = (struct d64 *)(buf + off);
		off += de->reclen;
		if (de->name[0] == '.' && (!de->name[1] || (de->name[1] == '.' && !de->name[2])))
			continue;
		*type = de->type;
		return de->name;
	}
}
