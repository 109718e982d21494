/* sharness-exec-netns: cut the network, then exec the rest of argv. Makes a
 * new network namespace (inside a user namespace that maps only the caller's
 * own uid and gid when that needs privilege) with just lo, up; where no
 * namespace can be had, a seccomp filter refuses every socket family but
 * AF_UNIX. Trusts nothing but argv. Exit: 125 usage, 126 could not confine
 * or exec, 127 program not found; else the program's own status. */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"
#include "seccomp.h"

const char *progname = "sharness-exec-netns";

#define USAGE "sharness-exec-netns [-S] [--] program [arg ...]"

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	/* uid_map and gid_map take their whole content in one write(2). */
	if (fd < 0 || write_all(fd, text, strlen(text)) < 0)
		die(EXIT_CONFINE, "unable to write %s", path);
	close(fd);
}

/* user_namespaces(7): an unprivileged process may map only its own ids,
 * and its gid only once setgroups(2) is denied in the namespace. */
static void map_ids(uid_t uid, gid_t gid)
{
	char line[64];

	snprintf(line, sizeof line, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	write_file("/proc/self/uid_map", line);
	write_file("/proc/self/setgroups", "deny");
	snprintf(line, sizeof line, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
	write_file("/proc/self/gid_map", line);
}

/* 0 once in a fresh network namespace; else the errno that says none can
 * be had here (user namespaces disabled, or unshare(2) filtered). */
static int unshare_net(void)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();

	if (unshare(CLONE_NEWNET) == 0)
		return 0;
	if (errno == EPERM && unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0) {
		map_ids(uid, gid);
		return 0;
	}
	if (errno == EPERM || errno == EINVAL || errno == ENOSPC || errno == ENOSYS)
		return errno;
	die(EXIT_CONFINE, "unable to unshare the network namespace");
}

/* A new namespace starts with lo down: bring it up so 127.0.0.1 works. */
static void lo_up(void)
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

int main(int argc, char **argv)
{
	int opt, seccomp_only = 0, err = 0;

	opterr = 0;
	for (;;) {
		if (optind < argc && !strcmp(argv[optind], "--help"))
			opt = 'h';
		else if ((opt = getopt(argc, argv, "+hS")) == -1)
			break;
		if (opt == 'h') {
			puts("usage: " USAGE);
			return 0;
		}
		if (opt != 'S')
			usage_die(USAGE);
		seccomp_only = 1;
	}
	if (optind >= argc)
		usage_die(USAGE);

	if (!seccomp_only && (err = unshare_net()) == 0) {
		lo_up();
	} else {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
			die(EXIT_CONFINE, "unable to set no_new_privs");
		if (seccomp_install(SECCOMP_DENY_SOCKETS) < 0)
			die_hint(EXIT_CONFINE, errno, errno == EINVAL ?
			         "the kernel lacks seccomp filters (CONFIG_SECCOMP_FILTER)" : NULL,
			         "unable to install the seccomp socket filter");
		if (!seccomp_only)
			warnx_("no network namespace available (unshare: %s): sockets other "
			       "than AF_UNIX are refused by a seccomp filter instead",
			       strerror(err));
	}
	xexecvp(argv[optind], argv + optind);
}
