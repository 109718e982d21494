/* The socket scan of the front end (sockscan.h). It asks the caller's
 * network namespace for its listening AF_UNIX sockets through
 * NETLINK_SOCK_DIAG, each with the path it was bound to, length-counted
 * (a newline in a name stays in it); where the kernel has no UNIX
 * diagnostics (unix_diag a module not loaded), it reads /proc/net/unix,
 * which prints names raw, and a line there that is no socket's (a name
 * with a newline split it) leaves what listens unknown: no wall. Each
 * path is made symlink-free and must still be a socket. It also reads
 * the entries of each read or exec path. It misses
 * (sharness-exec(1) CAVEATS) a socket of another network namespace deeper
 * than that; one bound with a relative path, in another mount namespace,
 * moved or linked since bind(2); one made after the start. The known
 * socket directories (/run, ...) are refused whole (rights.c). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>
#include <linux/openat2.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common.h"
#include "landlock-abi.h"
#include "sockscan.h"

/* __SO_ACCEPTCON, as /proc/net/unix prints a listener's flags. */
#define ACCEPTCON 0x10000UL

/* The landlock step's ABI: the kernel's, or run.c's push_test_abi's. */
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

struct finding {
	char sock[PATH_MAX];
	const char *key, *rule;
	size_t i, more;
};

/* What the scan found: beneath /dev, which the view builds (named whole,
 * or the default /dev) and so hides the host's, unless a rule beneath it
 * binds the host's node; and the rest. */
static const struct policy *scanned;
static struct finding found, found_dev;
static int garbled;	/* a line of /proc/net/unix that is no socket's */

/* The first of LIST that holds PATH, or -1. */
static long holder(const struct strlist *list, const char *path)
{
	for (size_t i = 0; i < list->n; i++)
		if (path_beneath(path, list->v[i]))
			return (long)i;
	return -1;
}

/* 1 when SOCK lies in the /dev the view builds: beneath /dev, and
 * beneath no rule path below /dev (a node bound from the host). */
static int in_built_dev(const char *sock)
{
	const struct strlist *lists[] = { &scanned->read_resolved, &scanned->exec_resolved };

	if (!path_beneath(sock, "/dev"))
		return 0;
	for (int l = 0; l < 2; l++)
		for (size_t i = 0; i < lists[l]->n; i++)
			if (strcmp(lists[l]->v[i], "/dev") && path_beneath(lists[l]->v[i], "/dev") &&
			    path_beneath(sock, lists[l]->v[i]))
				return 0;
	return 1;
}

/* The socket SOCK (symlink-free): beneath a read or exec path and no
 * write path (where the view covers it), not one files.sockets names, and
 * still a socket (looked at last: most are beneath none), it is found. */
static void weigh_socket(const char *sock)
{
	const struct policy *p = scanned;
	long r = holder(&p->read_resolved, sock), x = holder(&p->exec_resolved, sock);
	struct finding *f = in_built_dev(sock) ? &found_dev : &found;
	struct stat st;

	for (size_t i = 0; i < p->sockets_resolved.n; i++)
		if (!strcmp(sock, p->sockets_resolved.v[i]))
			return;
	if ((r < 0 && x < 0) || holder(&p->write_resolved, sock) >= 0 ||
	    lstat(sock, &st) < 0 || !S_ISSOCK(st.st_mode))
		return;
	if (*f->sock) {
		f->more += strcmp(f->sock, sock) != 0;
		return;
	}
	snprintf(f->sock, sizeof f->sock, "%s", sock);
	f->key = r >= 0 ? "files.read" : "files.exec";
	f->i = (size_t)(r >= 0 ? r : x);
	f->rule = r >= 0 ? p->read.v[r] : p->exec.v[x];
}

/* A listener's PATH, as bound: absolute ones weighed, their directory
 * made symlink-free once for the sockets that share it (most do: a
 * daemon's, a user's runtime directory). Abstract (@name) and relative
 * names are no file here. */
static void listed(char *path)
{
	static char dir[PATH_MAX], real[PATH_MAX];
	char sock[PATH_MAX], *slash;

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

/* The listeners of NETLINK_SOCK_DIAG to listed(): 0, or -1 (errno) where
 * the kernel has no UNIX diagnostics or the answer broke off. */
static int diag_listeners(void)
{
	struct {
		struct nlmsghdr nh;
		struct unix_diag_req r;
	} req = {
		.nh = { .nlmsg_len = sizeof req, .nlmsg_type = SOCK_DIAG_BY_FAMILY,
		        .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP },
		.r = { .sdiag_family = AF_UNIX, .udiag_states = 1 << 10 /* TCP_LISTEN */,
		       .udiag_show = UDIAG_SHOW_NAME },
	};
	static long buf[8192];
	char name[sizeof ((struct sockaddr_un *)0)->sun_path + 1];
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	ssize_t n;

	if (fd < 0 || send(fd, &req, sizeof req, 0) != (ssize_t)sizeof req)
		goto fail;
	while ((n = recv(fd, buf, sizeof buf, 0)) > 0 || (n < 0 && errno == EINTR))
		for (struct nlmsghdr *nh = (struct nlmsghdr *)buf; n > 0 && NLMSG_OK(nh, n);
		     nh = NLMSG_NEXT(nh, n)) {
			struct unix_diag_msg *m = NLMSG_DATA(nh);
			struct rtattr *a = (struct rtattr *)(m + 1);
			int left = (int)(nh->nlmsg_len - NLMSG_LENGTH(sizeof *m));
			if (nh->nlmsg_type == NLMSG_DONE)
				return close(fd), 0;
			if (nh->nlmsg_type == NLMSG_ERROR) {
				errno = -((struct nlmsgerr *)NLMSG_DATA(nh))->error;
				goto fail;
			}
			for (; RTA_OK(a, left); a = RTA_NEXT(a, left))
				if (a->rta_type == UNIX_DIAG_NAME) {
					size_t len = (size_t)RTA_PAYLOAD(a);
					if (len > sizeof name - 1)
						len = sizeof name - 1;
					memcpy(name, RTA_DATA(a), len);
					name[len] = '\0';
					listed(name);
				}
		}
	if (n == 0)
		errno = EPROTO;
fail:
	if (fd >= 0)
		close(fd);
	return -1;
}

/* One line of /proc/net/unix: "Num RefCount Protocol Flags Type St Inode
 * Path", the path last and raw (it may hold spaces). A line that does not
 * begin as every socket's does ("%pK: ") is the rest of a name that held
 * a newline: what that socket is, and where, is unknown. */
static void proc_line(char *line)
{
	unsigned long flags = 0;
	char *path = line;
	size_t hex = strspn(line, "0123456789abcdefABCDEF");
	int at = 0;

	if (!strncmp(line, "Num ", 4))
		return;		/* the heading */
	if (!hex || line[hex] != ':' || line[hex + 1] != ' ') {
		garbled = 1;
		return;
	}
	for (; at < 7; at++) {
		path += strspn(path, " ");
		if (at == 3)
			flags = strtoul(path, NULL, 16);
		path += strcspn(path, " \n");
	}
	if (*path == ' ' && (flags & ACCEPTCON))
		listed(path + 1);
}

/* 1 when the scan reads PATH's entries. */
static int wants(const char *path)
{
	return effective_abi() < 9 && !path_beneath(path, "/usr");
}

/* Each of LIST that is a socket, or a directory with one among its own
 * entries (d_type: no stat but the socket's): one bound in another network
 * namespace (a container's, in a directory the host gave it), which no
 * /proc/net/unix here lists, or a stale one, counted all the same. Opened
 * as the helpers open it, no symlink on the way; else weighed itself. */
static void named(const struct strlist *list)
{
	struct open_how how = { .flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
	                        .resolve = RESOLVE_NO_SYMLINKS };
	char sock[PATH_MAX];
	const char *name, *path;
	unsigned char type;
	long fd;

	for (size_t i = 0; i < list->n; i++) {
		path = list->v[i];
		if (!wants(path) ||
		    (fd = syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how)) < 0) {
			weigh_socket(path);
			continue;
		}
		while ((name = next_dirent((int)fd, &type)))
			if (type == DT_SOCK && snprintf(sock, sizeof sock, "%s/%s", strcmp(path, "/") ?
			                                path : "", name) < (int)sizeof sock)
				weigh_socket(sock);
		close((int)fd);
	}
}

/* Each line of the file FD to proc_line(), then FD closed; read without
 * stdio (whose FILE is a page mapped, faulted in twice and unmapped): a
 * line is at most a path of sizeof sun_path and seven short numbers, far
 * less than BUF; one longer is no listener's and is dropped. */
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
				proc_line(at);
		}
		len -= (size_t)(at - buf);
		memmove(buf, at, len);
		if (len == sizeof buf - 1)
			len = 0, skip = 1;
	}
	buf[len] = '\0';
	if (len && !skip)
		proc_line(buf);
	close(fd);
}

/* F's words into WORDS: the socket, its rule, how many more. */
static void finding_words(const struct finding *f, char *words, size_t size)
{
	if (*f->sock)
		snprintf(words, size, "%s beneath %s[%zu] %s", q(f->sock), f->key, f->i,
		         q(f->rule));
	if (f->more)
		snprintf(words + strlen(words), size - strlen(words), " (and %zu more)", f->more);
}

/* The scan itself, into the walls record FD: "listener=" (and
 * "listener_dev=", which the landlock step weighs only where the view
 * did not build /dev) in one write. */
static void scan(const struct policy *p, int fd)
{
	char words[4 * QUOTED_MAX + 128] = "", dev[sizeof words] = "";
	char line[2 * sizeof words + 32];
	int f, n = 0;

	scanned = p;
	named(&p->read_resolved);
	named(&p->exec_resolved);
	/* Without sock_diag or /proc nothing says what listens: that is no
	 * wall either. openat, not open: musl's open adds an F_SETFD for
	 * O_CLOEXEC. */
	if (diag_listeners() < 0) {
		if ((f = openat(AT_FDCWD, "/proc/net/unix", O_RDONLY | O_CLOEXEC)) < 0)
			snprintf(words, sizeof words, "sockets beneath read and exec paths "
			         "unknown: unable to read /proc/net/unix: %s", strerror(errno));
		if (f >= 0)
			each_line(f);
		if (garbled)
			snprintf(words, sizeof words, "sockets beneath read and exec paths "
			         "unknown: a line of /proc/net/unix names no socket (a "
			         "socket's name holds a newline), and the kernel has no "
			         "UNIX sock_diag to ask");
	}
	finding_words(&found, words, sizeof words);
	finding_words(&found_dev, dev, sizeof dev);
	/* One line each (every string quoted: no newline). */
	if (*words)
		n = snprintf(line, sizeof line, "listener=%s\n", words);
	if (*dev)
		n += snprintf(line + n, sizeof line - (size_t)n, "listener_dev=%s\n", dev);
	if (n && write(fd, line, (size_t)n) != n)
		die(EXIT_REFUSED, "unable to write the walls record");
}

/* From this many directories to read on, the scan runs beside the chain:
 * a fork of the front end costs what reading about 20 to 40 does on a
 * 2-core machine, a read 4 to 8 us (bench/rules.sh, bench/front.sh). */
#define BESIDE_MIN 64

static int beside(const struct policy *p)
{
	const struct strlist *lists[] = { &p->read_resolved, &p->exec_resolved };
	size_t n = 0;
#ifdef SHARNESS_TEST_HOOKS
	/* tests/attack/planted.bats: 1 (or "fail": its scanner fails), 0 never. */
	const char *knob = getenv("SHARNESS_EXEC_TEST_SCAN_BESIDE");

	if (knob && *knob)
		return strcmp(knob, "0") != 0;
#endif
	for (int w = 0; w < 2; w++)
		for (size_t i = 0; i < lists[w]->n; i++)
			n += wants(lists[w]->v[i]);
	return n >= BESIDE_MIN;
}

int socket_scan(const struct policy *p, int walls, int dry_run)
{
	pid_t parent = getpid(), pid = 1;
	int fds[2], rd;

	if (effective_abi() >= 9 || (!p->read.n && !p->exec.n))
		return -1;
	if (!beside(p))
		return dry_run ? -1 : (scan(p, walls), -1);
	/* The pipe's end above 0-2 (the caller may have left them closed);
	 * the record O_APPEND: a memfd's shared offset is no lock. */
	if (pipe2(fds, O_CLOEXEC) < 0 || (rd = fcntl(fds[0], F_DUPFD, 3)) < 0 ||
	    fcntl(walls, F_SETFL, O_APPEND) < 0)
		die(EXIT_REFUSED, "unable to make the socket scan's pipe");
	close(fds[0]);
	fflush(NULL);	/* nothing buffered twice */
	if (!dry_run && (pid = fork()) < 0)
		die(EXIT_REFUSED, "unable to fork the socket scan");
	/* The scanner: no report (runreport.c's atexit), gone with the
	 * chain's first process; "y" once its finding is in the record. */
	if (pid == 0) {
		msg_hook = NULL;
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
			_exit(EXIT_REFUSED);
		close(rd);
#ifdef SHARNESS_TEST_HOOKS
		if (!strcmp(getenv("SHARNESS_EXEC_TEST_SCAN_BESIDE") ?: "", "fail"))
			_exit(EXIT_REFUSED);
#endif
		scan(p, walls);
		_exit(write(fds[1], "y", 1) == 1 ? 0 : EXIT_REFUSED);
	}
	close(fds[1]);
	return rd;
}
