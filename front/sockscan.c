/* The socket scan of the front end (sockscan.h).
 *
 * What it reads: /proc/net/unix of the caller's network namespace, which
 * lists every bound AF_UNIX socket there with the path it was bound to,
 * and the listening ones with __SO_ACCEPTCON in Flags; each path is made
 * symlink-free (realpath) and must still be a socket (lstat), then it is
 * compared with the resolved rule paths. And each read or exec path that
 * is itself a socket or holds one among its own entries. What it misses
 * (sharness-exec(1) CAVEATS): a socket bound in another network namespace
 * (a container's, a service's with PrivateNetwork=) deeper than that; one
 * bound with a relative path, or in another mount namespace, or moved or
 * linked to another name since bind(2), since the listed path is the name
 * given then; one made after the start. The known socket directories
 * (/run, /var/lib/docker, ...) are refused as a whole whatever the scan
 * finds (rights.c). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/openat2.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common.h"
#include "landlock-abi.h"
#include "sockscan.h"

/* __SO_ACCEPTCON, as /proc/net/unix prints a listener's flags. */
#define ACCEPTCON 0x10000UL

/* The ABI the landlock step will take: the kernel's, or lower under the
 * test front end's knob (run.c's push_test_abi), asked once. */
static long effective_abi(void)
{
	static long abi = -1;
#ifdef SHARNESS_TEST_HOOKS
	const char *knob;
#endif

	if (abi >= 0)
		return abi;
	abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
#ifdef SHARNESS_TEST_HOOKS
	if ((knob = getenv("SHARNESS_EXEC_TEST_ABI")) && *knob && atol(knob) < abi)
		abi = atol(knob);
#endif
	return abi = abi < 0 ? 0 : abi;
}

static struct {
	const struct policy *p;
	char sock[PATH_MAX];
	const char *key, *rule;
	size_t i, more;
} found;

/* The first of LIST that holds PATH, or -1. */
static long holder(const struct strlist *list, const char *path)
{
	for (size_t i = 0; i < list->n; i++)
		if (path_beneath(path, list->v[i]))
			return (long)i;
	return -1;
}

/* The socket SOCK (symlink-free): beneath a read or exec path and no
 * write path, and still a socket (looked at last: most are beneath none),
 * it is found. */
static void weigh_socket(const char *sock)
{
	const struct policy *p = found.p;
	long r = holder(&p->read_resolved, sock), x = holder(&p->exec_resolved, sock);
	struct stat st;

	if ((r < 0 && x < 0) || holder(&p->write_resolved, sock) >= 0 ||
	    lstat(sock, &st) < 0 || !S_ISSOCK(st.st_mode))
		return;
	if (*found.sock) {
		found.more += strcmp(found.sock, sock) != 0;
		return;
	}
	snprintf(found.sock, sizeof found.sock, "%s", sock);
	found.key = r >= 0 ? "files.read" : "files.exec";
	found.i = (size_t)(r >= 0 ? r : x);
	found.rule = r >= 0 ? p->read.v[r] : p->exec.v[x];
}

/* One line of /proc/net/unix: "Num RefCount Protocol Flags Type St Inode
 * Path", the path last and raw (it may hold spaces; a newline in it only
 * makes a line that is no socket's, which lstat then drops). Its directory
 * is made symlink-free once for the sockets that share it (most do: a
 * daemon's, a user's runtime directory). */
static void listed(char *line)
{
	static char dir[PATH_MAX], real[PATH_MAX];
	char sock[PATH_MAX], *path, *nl, *slash;
	unsigned long flags = 0;
	int at = 0;

	for (path = line; at < 7; at++) {
		path += strspn(path, " ");
		if (at == 3)
			flags = strtoul(path, NULL, 16);
		path += strcspn(path, " \n");
	}
	if (*path != ' ' || !(flags & ACCEPTCON))
		return;
	path++;
	if ((nl = strchr(path, '\n')))
		*nl = '\0';
	/* Abstract (@name) and relative names are no file here. */
	if (path[0] != '/' || !(slash = strrchr(path, '/')))
		return;
	*slash = '\0';
	if (strcmp(dir, *path ? path : "/")) {
		snprintf(dir, sizeof dir, "%s", *path ? path : "/");
		if (!realpath(dir, real))
			*real = '\0';
	}
	if (*real && snprintf(sock, sizeof sock, "%s/%s", strcmp(real, "/") ? real : "",
	                      slash + 1) < (int)sizeof sock)
		weigh_socket(sock);
}

/* What socket_scan_dir read while the rules were resolved: for rule I of
 * list WHICH, each socket among its entries (SOCK NULL: none), in the
 * order of the lists; named() takes them up in the same order. */
static struct kept { int which; size_t i; char *sock; } *kept;
static size_t nkept, kept_at;

static void keep(int which, size_t i, const char *sock)
{
	if (!(nkept & (nkept + 1)) && !(kept = reallocarray(kept, 2 * nkept + 1, sizeof *kept)))
		diex(EXIT_REFUSED, "out of memory");
	kept[nkept++] = (struct kept){ which, i, sock ? strdup(sock) : NULL };
	if (sock && !kept[nkept - 1].sock)
		diex(EXIT_REFUSED, "out of memory");
}

int socket_scan_wants(const char *path)
{
	return effective_abi() < 9 && !path_beneath(path, "/usr");
}

void socket_scan_dir(int which, size_t i, int fd, const char *path)
{
	char sock[PATH_MAX];
	const char *name;
	unsigned char type;

	keep(which, i, NULL);
	while ((name = next_dirent(fd, &type)))
		if (type == DT_SOCK && snprintf(sock, sizeof sock, "%s/%s", strcmp(path, "/") ?
		                                path : "", name) < (int)sizeof sock)
			keep(which, i, sock);
	close(fd);
}

/* Each of LIST (WHICH: 0 read, 1 exec) that is itself a socket, or a
 * directory with a socket among its own entries (d_type: no stat but the
 * socket's), for one bound in another network namespace: a container's
 * server in a directory the host bind-mounted into it, which
 * /proc/net/unix here does not list. One found there may also be stale:
 * it is counted all the same. Not beneath /usr. Each directory was read
 * as its rule was resolved (socket_scan_dir); what was not, is no
 * directory the caller may read: it is weighed itself. */
static void named(const struct strlist *list, int which)
{
	int seen;

	for (size_t i = 0; i < list->n; i++) {
		for (seen = 0; kept_at < nkept && kept[kept_at].which == which &&
		       kept[kept_at].i == i; kept_at++, seen = 1)
			if (kept[kept_at].sock)
				weigh_socket(kept[kept_at].sock);
		if (!seen)
			weigh_socket(list->v[i]);
	}
}

/* Each line of the file FD, to listed(), read without stdio (whose FILE
 * is a page mapped, faulted in twice and unmapped again): a line is at
 * most a path of sizeof sun_path and seven short numbers, far less than
 * BUF; one longer is no listener's and is dropped. */
static void each_line(int fd)
{
	char buf[4096];
	size_t len = 0;
	ssize_t n;
	char *nl, *at;
	int skip = 0;

	while ((n = read(fd, buf + len, sizeof buf - 1 - len)) > 0 || (n < 0 && errno == EINTR)) {
		len += (size_t)(n < 0 ? 0 : n);
		buf[len] = '\0';
		for (at = buf; (nl = strchr(at, '\n')); at = nl + 1, skip = 0) {
			*nl = '\0';
			if (!skip)
				listed(at);
		}
		len -= (size_t)(at - buf);
		memmove(buf, at, len);
		if (len == sizeof buf - 1)
			len = 0, skip = 1;
	}
	buf[len] = '\0';
	if (len && !skip)
		listed(buf);
}

void socket_scan(const struct policy *p, int fd)
{
	char words[4 * QUOTED_MAX + 128] = "";
	int f;

	if (effective_abi() >= 9 || (!p->read.n && !p->exec.n))
		return;
	found.p = p;
	named(&p->read_resolved, 0);
	named(&p->exec_resolved, 1);
	/* Without /proc nothing says what listens: that is no wall either.
	 * openat, not open: musl's open adds an F_SETFD for O_CLOEXEC. */
	if ((f = openat(AT_FDCWD, "/proc/net/unix", O_RDONLY | O_CLOEXEC)) < 0)
		snprintf(words, sizeof words, "sockets beneath read and exec paths unknown: "
		         "unable to read /proc/net/unix: %s", strerror(errno));
	if (f >= 0) {
		each_line(f);
		close(f);
	}
	if (*found.sock)
		snprintf(words, sizeof words, "%s beneath %s[%zu] %s", q(found.sock), found.key,
		         found.i, q(found.rule));
	if (found.more)
		snprintf(words + strlen(words), sizeof words - strlen(words), " (and %zu more)",
		         found.more);
	/* One line (every string quoted: no newline in it). */
	if (*words && dprintf(fd, "listener=%s\n", words) < 0)
		die(EXIT_REFUSED, "unable to write the walls record");
}

/* --- beside the chain --- */

/* From this many directories to read on, the scan runs in a process of
 * its own beside the chain (sockscan.h): a fork of the front end costs
 * about what reading 20 to 40 empty directories does on this 2-core
 * machine (bench/rules.sh), and a directory's read is 4 to 6 us there. */
#define BESIDE_MIN 64

int socket_scan_beside(const struct policy *p)
{
	size_t n = 0;
#ifdef SHARNESS_TEST_HOOKS
	const char *knob = getenv("SHARNESS_EXEC_TEST_SCAN_BESIDE");
#endif

	if (effective_abi() >= 9 || (!p->read.n && !p->exec.n))
		return 0;
#ifdef SHARNESS_TEST_HOOKS
	/* tests/planted.bats: 1 (or "fail") beside whatever the count,
	 * 0 never. */
	if (knob && *knob)
		return strcmp(knob, "0") != 0;
#endif
	for (size_t i = 0; i < p->read.n; i++)
		n += socket_scan_wants(p->read.v[i]);
	for (size_t i = 0; i < p->exec.n; i++)
		n += socket_scan_wants(p->exec.v[i]);
	return n >= BESIDE_MIN;
}

/* Close every descriptor but 2 (for a fatal line), A and B. */
static void keep_two(int a, int b)
{
	int lo = a < b ? a : b, hi = a < b ? b : a;

	close(0);
	close(1);
	if (lo > 3)
		syscall(SYS_close_range, 3U, (unsigned)lo - 1, 0U);
	if (hi > lo + 1)
		syscall(SYS_close_range, (unsigned)lo + 1, (unsigned)hi - 1, 0U);
	syscall(SYS_close_range, (unsigned)hi + 1, ~0U, 0U);
}

/* The scanner: each directory the scan wants, opened as the front end
 * would have for the resolution (no symlink on the way: the path is the
 * resolved one), read, then the scan; "y" on DONE when it is all in the
 * walls record. A fatal line goes to stderr and leaves DONE without it. */
static NORETURN void scanner(const struct policy *p, int walls, int done)
{
	struct open_how how = { .flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
	                        .resolve = RESOLVE_NO_SYMLINKS };
	const struct strlist *lists[] = { &p->read_resolved, &p->exec_resolved };
	long fd;

	keep_two(walls, done);
	for (int w = 0; w < 2; w++)
		for (size_t i = 0; i < lists[w]->n; i++)
			if (socket_scan_wants(lists[w]->v[i]) &&
			    (fd = syscall(SYS_openat2, AT_FDCWD, lists[w]->v[i], &how, sizeof how)) >= 0)
				socket_scan_dir(w, i, (int)fd, lists[w]->v[i]);
#ifdef SHARNESS_TEST_HOOKS
	if (!strcmp(getenv("SHARNESS_EXEC_TEST_SCAN_BESIDE") ?: "", "fail"))
		_exit(EXIT_REFUSED);
#endif
	socket_scan(p, walls);
	if (write(done, "y", 1) != 1)
		_exit(EXIT_REFUSED);
	_exit(0);
}

int socket_scan_fork(const struct policy *p, int walls, int dry_run)
{
	pid_t parent = getpid(), pid;
	int fds[2], low;

	if (pipe2(fds, O_CLOEXEC) < 0)
		die(EXIT_REFUSED, "unable to make the socket scan's pipe");
	/* Above 0-2, which the caller may have left closed. */
	if (fds[0] < 3) {
		low = fds[0];
		if ((fds[0] = fcntl(low, F_DUPFD_CLOEXEC, 3)) < 0)
			die(EXIT_REFUSED, "unable to make the socket scan's pipe");
		close(low);
	}
	if (dry_run) {
		close(fds[1]);
		return fds[0];
	}
	fflush(NULL); /* nothing buffered twice */
	if ((pid = fork()) < 0)
		die(EXIT_REFUSED, "unable to fork the socket scan");
	if (pid == 0) {
		/* No report of its own (runreport.c's atexit), and gone with
		 * the chain's first process, whatever it has become. */
		msg_hook = NULL;
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
			_exit(EXIT_REFUSED);
		close(fds[0]);
		scanner(p, walls, fds[1]);
	}
	close(fds[1]);
	return fds[0];
}
