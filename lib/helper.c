/* What only the helpers share (helper.h): the exec wrapper, an exit like
 * a child's, the sealed environment, symlink-free opens. The front end
 * links none of it. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include <net/if.h>
#include <signal.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/landlock.h>
#include <linux/openat2.h>

#include "common.h"
#include "helper.h"
#include "landlock-abi.h"

void exit_like(int status)
{
	struct rlimit zero = { 0, 0 };
	sigset_t one;
	int sig;

	if (WIFEXITED(status))
		exit(WEXITSTATUS(status));
	sig = WTERMSIG(status);
	setrlimit(RLIMIT_CORE, &zero);
	prctl(PR_SET_DUMPABLE, 0);
	signal(sig, SIG_DFL);
	sigemptyset(&one);
	sigaddset(&one, sig);
	raise(sig);
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	exit(128 + sig); /* a signal whose default action is not to terminate */
}

/*
 * execve(2) PATH; a file the kernel cannot execute (ENOEXEC) is run by
 * /bin/sh instead, as POSIX asks of execvp(3). Returns with errno set.
 */
static void exec_or_sh(const char *path, char *const argv[])
{
	char **sh;
	size_t n;

	execve(path, argv, environ);
	if (errno != ENOEXEC)
		return;
	for (n = 0; argv[n]; n++)
		;
	sh = calloc(n + 2, sizeof *sh);
	if (!sh) {
		errno = ENOEXEC;
		return;
	}
	sh[0] = (char *)"/bin/sh";
	sh[1] = (char *)path;
	if (n > 1)
		memcpy(sh + 2, argv + 1, (n - 1) * sizeof *sh);
	execve("/bin/sh", sh, environ);
	free(sh);
}

static const char *const *view_paths;
static size_t view_npaths;

void xexec_view(const char *const *paths, size_t n)
{
	view_paths = paths;
	view_npaths = n;
}

/* 1 when PATH, as written or with its directory resolved, lies beneath
 * one of the paths xexec_view was given (1 too when it was given none). */
static int in_view(const char *path)
{
	char dir[PATH_MAX], real[PATH_MAX], full[PATH_MAX];
	const char *slash = strrchr(path, '/');

	if (!view_paths)
		return 1;
	for (size_t i = 0; i < view_npaths; i++)
		if (path_beneath(path, view_paths[i]))
			return 1;
	if (!slash || (size_t)(slash - path) >= sizeof dir)
		return 0;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	if (!realpath(*dir ? dir : "/", real) ||
	    snprintf(full, sizeof full, "%s/%s", real, slash + 1) >= (int)sizeof full)
		return 0;
	for (size_t i = 0; i < view_npaths; i++)
		if (path_beneath(full, view_paths[i]))
			return 1;
	return 0;
}

/* What FILE needs to start: its "#!" interpreter or its ELF loader
 * (PT_INTERP), into OUT with KIND naming it; 0 when it needs neither or
 * cannot be read. */
static int start_piece(const char *file, char out[PATH_MAX], const char **kind)
{
	unsigned char h[256];
	struct stat st;
	ssize_t n;
	int fd, ok = 0;

	/* Opening a device can act (a tape rewinds): regular files only. */
	if (stat(file, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return 0;
	n = pread(fd, h, sizeof h, 0);
	if (n >= 2 && h[0] == '#' && h[1] == '!') {
		size_t i = 2, j = 0;
		while (i < (size_t)n && (h[i] == ' ' || h[i] == '\t'))
			i++;
		while (i < (size_t)n && h[i] != ' ' && h[i] != '\t' && h[i] != '\n' &&
		       j < PATH_MAX - 1)
			out[j++] = (char)h[i++];
		out[j] = '\0';
		*kind = "interpreter";
		ok = j > 0;
	} else if (n >= (ssize_t)sizeof(Elf32_Ehdr) && !memcmp(h, ELFMAG, SELFMAG)) {
		/* Both classes; the byte order is the host's or exec fails
		 * with ENOEXEC, not here. */
		int is64 = h[EI_CLASS] == ELFCLASS64;
		unsigned long long off, phoff;
		unsigned phnum, phsize;

		if (is64 && n >= (ssize_t)sizeof(Elf64_Ehdr)) {
			const Elf64_Ehdr *e = (const void *)h;
			phoff = e->e_phoff, phnum = e->e_phnum, phsize = e->e_phentsize;
		} else {
			const Elf32_Ehdr *e = (const void *)h;
			phoff = e->e_phoff, phnum = e->e_phnum, phsize = e->e_phentsize;
		}
		for (unsigned i = 0; i < phnum && i < 256; i++) {
			unsigned long long poff, psize;
			union { Elf64_Phdr p64; Elf32_Phdr p32; } ph;
			if (phsize > sizeof ph || pread(fd, &ph, phsize,
			    (off_t)(phoff + (unsigned long long)i * phsize)) != (ssize_t)phsize)
				break;
			if ((is64 ? ph.p64.p_type : ph.p32.p_type) != PT_INTERP)
				continue;
			poff = is64 ? ph.p64.p_offset : ph.p32.p_offset;
			psize = is64 ? ph.p64.p_filesz : ph.p32.p_filesz;
			if (psize < 2 || psize > PATH_MAX)
				break;
			off = poff;
			if (pread(fd, out, psize, (off_t)off) != (ssize_t)psize)
				break;
			out[psize - 1] = '\0';
			*kind = "ELF loader";
			ok = 1;
			break;
		}
	}
	close(fd);
	return ok;
}

/*
 * execve said ENOENT or EACCES for FILE, which exists: find what it needs
 * to start that is missing or may not be run (following interpreters of
 * interpreters, as the kernel does up to 4 deep) and say so in one line.
 * Returns only when nothing better than errno can be said.
 */
static void explain(const char *shown, const char *file, int err)
{
	char piece[PATH_MAX], at[PATH_MAX];
	const char *kind = NULL;

	snprintf(at, sizeof at, "%s", file);
	for (int depth = 0; depth < 5; depth++) {
		if (!start_piece(at, piece, &kind)) {
			/* No "#!" and no ELF: exec_or_sh ran it with /bin/sh. */
			if (depth || access("/bin/sh", X_OK) == 0 || errno != err)
				return;
			snprintf(piece, sizeof piece, "/bin/sh");
			kind = "shell (it has no \"#!\" line)";
		}
		/* access(2) sees through Landlock, which checks at open: a
		 * piece outside the paths it lets run is named as such. */
		const char *where = in_view(piece) ? "" :
			" (it lies outside the policy's exec and write paths)";
		if (access(piece, X_OK) < 0) {
			int e = errno;
			if (e == ENOENT || e == ENOTDIR)
				diex(EXIT_NOTFOUND, "unable to execute %s: its %s %s was not found%s",
				     qn(shown), kind, q(piece), where);
			diex(EXIT_CONFINE, "unable to execute %s: its %s %s may not be run%s: %s",
			     qn(shown), kind, q(piece), where, strerror(e));
		}
		if (*where && err == EACCES)
			diex(EXIT_CONFINE, "unable to execute %s: its %s %s may not be run%s: %s",
			     qn(shown), kind, q(piece), where, strerror(err));
		snprintf(at, sizeof at, "%s", piece);
	}
}

/*
 * Our own execvp(3), so that the helpers look the target up the same way
 * whichever C library they are linked with (musl's execvp has no /bin/sh
 * fallback, and another default search path): glibc's rules. PATH unset
 * means /bin:/usr/bin; an empty element is the working directory; a
 * directory where the name is missing (or is no directory) is passed over,
 * one where it may not be executed is remembered (EACCES at the end), and
 * any other failure ends the search. A file that is there but whose
 * interpreter or loader is not is passed over too, as glibc does, and is
 * the one the message names when nothing else is found.
 */
void xexecvp(const char *file, char *const argv[])
{
	const char *path, *p, *end;
	char buf[PATH_MAX], there[PATH_MAX] = "";
	size_t flen = strlen(file), dlen;
	int eacces = 0, err;

	if (!flen) {
		errno = ENOENT;
	} else if (strchr(file, '/')) {
		exec_or_sh(file, argv);
		if ((errno == ENOENT || errno == EACCES) && snprintf(there, sizeof there,
		    "%s", file) >= (int)sizeof there)
			there[0] = '\0';
	} else {
		path = getenv("PATH");
		if (!path)
			path = "/bin:/usr/bin";
		for (p = path;; p = end + 1) {
			end = strchrnul(p, ':');
			dlen = (size_t)(end - p);
			if (dlen + 1 + flen >= sizeof buf) {
				errno = ENAMETOOLONG;
				break;
			}
			if (dlen) {
				memcpy(buf, p, dlen);
				buf[dlen++] = '/';
			}
			memcpy(buf + dlen, file, flen + 1);
			exec_or_sh(buf, argv);
			err = errno;
			if ((err == ENOENT || err == EACCES) && !*there &&
			    faccessat(AT_FDCWD, buf, F_OK, AT_EACCESS) == 0)
				strcpy(there, buf);
			errno = err;
			if (errno == EACCES)
				eacces = 1;
			else if (errno != ENOENT && errno != ENOTDIR && errno != ESTALE &&
			         errno != ENODEV && errno != ETIMEDOUT)
				break;
			if (!*end) {
				if (eacces)
					errno = EACCES;
				break;
			}
		}
	}
	err = errno;
	if ((err == ENOENT || err == EACCES) && *there &&
	    faccessat(AT_FDCWD, there, F_OK, AT_EACCESS) == 0)
		explain(file, there, err);
	errno = err;
	die(errno == ENOENT ? EXIT_NOTFOUND : EXIT_CONFINE,
	    "unable to execute %s", qn(file));
}

void env_from_fd(int fd)
{
	size_t n = 0, size;
	char *buf = sealed_read(fd, SIZE_MAX - 1, &size), **env;

	if (!buf && (errno == EPERM || errno == EBADF))
		diex(EXIT_CONFINE, "unable to read the environment from fd %d: "
		     "not a sealed memfd", fd);
	if (!buf)
		die(EXIT_CONFINE, "unable to read the environment from fd %d", fd);
	close(fd);
	if (size && buf[size - 1])
		diex(EXIT_CONFINE, "unable to read the environment from fd %d: "
		     "its last string has no end", fd);
	for (size_t i = 0; i < size; i++)
		n += !buf[i];
	if (!(env = calloc(n + 1, sizeof *env)))
		diex(EXIT_CONFINE, "out of memory");
	for (size_t i = 0, k = 0; i < size; i += strlen(buf + i) + 1, k++) {
		if (!strchr(buf + i, '=') || buf[i] == '=')
			diex(EXIT_CONFINE, "unable to read the environment from fd %d: "
			     "%s is not NAME=VALUE", fd, q(buf + i));
		env[k] = buf + i;
	}
	environ = env;
}

/* One component at a time, for kernels before 5.6. */
static int open_nofollow_walk(const char *path, int flags)
{
	char name[NAME_MAX + 1];
	const char *s = path;
	int dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC), fd;

	if (dir < 0)
		return -1;
	for (;;) {
		size_t len;
		struct stat st;

		while (*s == '/')
			s++;
		len = strcspn(s, "/");
		if (!len)
			return dir;   /* PATH was "/" */
		if (len > NAME_MAX) {
			close(dir);
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(name, s, len);
		name[len] = '\0';
		s += len;
		while (*s == '/')
			s++;
		fd = openat(dir, name, (*s ? O_PATH : flags) | O_NOFOLLOW | O_CLOEXEC);
		close(dir);
		if (fd < 0)
			return -1;
		/* O_PATH | O_NOFOLLOW opens a symlink itself: ELOOP, as
		 * RESOLVE_NO_SYMLINKS says, wherever it is on the way. */
		if ((*s || (flags & O_PATH)) && fstat(fd, &st) == 0 &&
		    (S_ISLNK(st.st_mode) || (*s && !S_ISDIR(st.st_mode)))) {
			close(fd);
			errno = S_ISLNK(st.st_mode) ? ELOOP : ENOTDIR;
			return -1;
		}
		if (!*s)
			return fd;
		dir = fd;
	}
}

int open_nofollow(const char *path, int flags)
{
	struct open_how how = {
		.flags = (unsigned long long)(flags | O_CLOEXEC),
		.resolve = RESOLVE_NO_SYMLINKS,
	};
	long fd = syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);

	if (fd >= 0 || errno != ENOSYS)
		return (int)fd;
	return open_nofollow_walk(path, flags);
}

void check_line(const char *fmt, ...)
{
	va_list ap;

	printf("%s: ", progname);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (fflush(stdout) == EOF)
		die(EXIT_CONFINE, "unable to write the check line");
}

int parse_ulong(const char *s, unsigned long min, unsigned long max,
                unsigned long *out)
{
	unsigned long v;
	char *end;

	/* strtoul(3) alone would take spaces, a sign and leading zeros. */
	if (!s || *s < '0' || *s > '9' || (s[0] == '0' && s[1]))
		return 0;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return 0;
	*out = v;
	return 1;
}

int parse_fd(const char *arg, int opt, unsigned long max, const char *usage)
{
	unsigned long fd;

	if (!parse_ulong(arg, 3, max, &fd))
		usage_fail(usage, "unable to parse -%c %s: not a descriptor above 2", opt, qn(arg));
	return (int)fd;
}

long landlock_abi(void)
{
	return syscall(SYS_landlock_create_ruleset, NULL, 0,
	               LANDLOCK_CREATE_RULESET_VERSION);
}

long landlock_abi_at_most(unsigned long cap)
{
	long abi = landlock_abi();

	return abi > 0 && (unsigned long)abi > cap ? (long)cap : abi;
}

/* The prefix of struct sharness_ruleset_attr that ABI knows. */
size_t landlock_attr_size(int abi)
{
	return abi >= 10 ? sizeof(struct sharness_ruleset_attr) :
		abi >= 6 ? offsetof(struct sharness_ruleset_attr, quiet_access_fs) :
		abi >= 4 ? offsetof(struct sharness_ruleset_attr, scoped) :
		offsetof(struct sharness_ruleset_attr, handled_access_net);
}

/* Take out of ATTR and FLAGS what ABI lacks, one case per ABI bump. */
void landlock_mask_abi(int abi, struct sharness_ruleset_attr *attr, __u32 *flags)
{
	switch (abi) {
	case 1: /* ABI 2: linking and renaming across directories (REFER) */
		attr->handled_access_fs &= ~LANDLOCK_ACCESS_FS_REFER;
		__attribute__((fallthrough));
	case 2: /* ABI 3: truncate(2), O_TRUNC */
		attr->handled_access_fs &= ~LANDLOCK_ACCESS_FS_TRUNCATE;
		__attribute__((fallthrough));
	case 3: /* ABI 4: TCP bind and connect */
		attr->handled_access_net = 0;
		__attribute__((fallthrough));
	case 4: /* ABI 5: ioctl(2) on character and block devices */
		attr->handled_access_fs &= ~LANDLOCK_ACCESS_FS_IOCTL_DEV;
		__attribute__((fallthrough));
	case 5: /* ABI 6: signals and abstract UNIX sockets leaving the domain */
		attr->scoped = 0;
		__attribute__((fallthrough));
	case 6: /* ABI 7: audit logging flags for landlock_restrict_self, and
		 * the errata query */
		*flags = 0;
		__attribute__((fallthrough));
	case 7: /* ABI 8: restrict_self TSYNC, all threads at once (unused) */
		__attribute__((fallthrough));
	case 8: /* ABI 9: connecting to pathname UNIX sockets (RESOLVE_UNIX) */
		attr->handled_access_fs &= ~LANDLOCK_ACCESS_FS_RESOLVE_UNIX;
		__attribute__((fallthrough));
	case 9: /* ABI 10: UDP bind and connect/send; quiet rules (unused) */
		attr->handled_access_net &= ~LL_NET_UDP;
		__attribute__((fallthrough));
	case 10: /* ABI 11: restrict_self NO_NEW_PRIVS (unused, see main) */
		break;
	default:
		break;
	}
}

/* A new namespace starts with lo down: bring it up so 127.0.0.1 works. */
void lo_up(void)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		die(EXIT_CONFINE, "unable to open a socket to configure lo");
	memset(&ifr, 0, sizeof ifr);
	memcpy(ifr.ifr_name, "lo", 3);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		die(EXIT_CONFINE, "unable to read the flags of lo");
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		die(EXIT_CONFINE, "unable to bring lo up");
	close(fd);
}

int send_fd(int sock, int fd)
{
	char byte = 0, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &byte, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
	                    .msg_controllen = sizeof cbuf };
	struct cmsghdr *c;

	memset(cbuf, 0, sizeof cbuf);
	c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof fd);
	return sendmsg(sock, &m, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

int recv_fd(int sock)
{
	char byte, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &byte, 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
	                     .msg_control = ctl, .msg_controllen = sizeof ctl };
	struct cmsghdr *c;
	int fd = -1;

	if (recvmsg(sock, &mh, MSG_CMSG_CLOEXEC) <= 0)
		return -1;
	c = CMSG_FIRSTHDR(&mh);
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(c), sizeof fd);
	return fd;
}
