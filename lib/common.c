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
