/* sharness-exec-netns: the namespace step, first in every chain. Makes new
 * network and IPC namespaces (with -H only the IPC namespace: the host's
 * network is kept; with -I too, the caller's namespace being a session's,
 * which must hold no interface but its loopback), inside a user namespace that maps only the caller's own
 * uid and gid when that needs privilege; brings lo up; joins a new anonymous
 * session keyring; then execs the rest of argv. In a user namespace it raises
 * the ambient capabilities CAP_SYS_ADMIN, CAP_SETPCAP and CAP_SYS_PTRACE, so
 * that the later steps can make their own namespaces there (the landlock step
 * drops them before the target). Where no namespace can be had, a seccomp
 * filter refuses every socket family but AF_UNIX, and it says so. Trusts
 * nothing but argv. Exit: 125 usage, 126 could not confine or exec, 127
 * program not found; else the program's own status. */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdlib.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/keyctl.h>

#include "common.h"
#include "helper.h"
#include "rights.h"
#include "seccomp.h"
#include "statuspipe.h"

const char *progname = "sharness-exec-netns";

#define USAGE "sharness-exec-netns [-btX] [-A ABI] [-H | -I | -S] [-E FD] [-W FD] [--] PROGRAM [ARG...]"

/* What the later steps need in the user namespace (DESIGN.md 1):
 * CAP_SYS_ADMIN for the pid and mount namespaces and the view's mounts,
 * CAP_SETPCAP for the landlock step to empty the bounding set and lock the
 * securebits, CAP_SYS_PTRACE for the explain step (run --explain). */
/* With -H, CAP_NET_ADMIN too: the host's network namespace is not the user
 * namespace's, so it grants nothing there; a namespace the egress step
 * makes for the run is, and its lo must be brought up (the step lowers
 * it again before the rest of the chain). */
static const int ambient[] = { CAP_SYS_ADMIN, CAP_SETPCAP, CAP_SYS_PTRACE, CAP_NET_ADMIN };
static size_t nambient = 3;

static int in_userns; /* a user namespace was made */

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

/* capabilities(7): a capability may be raised in the ambient set only
 * while it is in both the permitted and the inheritable sets. A new user
 * namespace gives its creator a full permitted set there. */
static void raise_ambient(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	size_t i;

	if (syscall(SYS_capget, &h, d) < 0)
		die(EXIT_CONFINE, "unable to read the capability sets");
	for (i = 0; i < nambient; i++)
		d[CAP_TO_INDEX(ambient[i])].inheritable |= CAP_TO_MASK(ambient[i]);
	if (syscall(SYS_capset, &h, d) < 0)
		die(EXIT_CONFINE, "unable to set the inheritable capabilities");
	for (i = 0; i < nambient; i++)
		if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, ambient[i], 0, 0) < 0)
			die(EXIT_CONFINE, "unable to raise the ambient capability %d", ambient[i]);
}

/* 0 once in the fresh namespaces of FLAGS; else the errno that says none
 * can be had here (user namespaces disabled, unshare(2) filtered, the id
 * maps out of reach), with WHY saying which. */
static int unshare_ns(int flags, char *why, size_t size)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	int fd;

	if (unshare(flags) == 0)
		return 0;
	if (errno == EPERM) {
		/* A user namespace is of no use unless its id maps can be
		 * written, which an outer sandbox (a Landlock domain that
		 * grants no write beneath /proc) may forbid: find out before
		 * making one, while "none" can still fall back. */
		fd = open("/proc/self/uid_map", O_WRONLY | O_CLOEXEC);
		/* Out of descriptors says nothing about namespaces here:
		 * falling back would weaken the run for a transient reason. */
		if (fd < 0 && (errno == EMFILE || errno == ENFILE || errno == ENOMEM))
			die(EXIT_CONFINE, "unable to open /proc/self/uid_map");
		if (fd < 0) {
			snprintf(why, size, "unable to write /proc/self/uid_map: %s",
			         strerror(errno));
			return errno;
		}
		close(fd);
		if (unshare(CLONE_NEWUSER | flags) == 0) {
			map_ids(uid, gid);
			raise_ambient();
			in_userns = 1;
			return 0;
		}
	}
	snprintf(why, size, "unshare: %s", strerror(errno));
	if (errno == EPERM || errno == EINVAL || errno == ENOSPC || errno == ENOSYS)
		return errno;
	die(EXIT_CONFINE, "unable to unshare the %s namespaces",
	    flags & CLONE_NEWNET ? "network and IPC" : "IPC");
}

/* -I (run --in-session): the caller's network namespace is taken as a
 * session's and kept, so it must hold no interface but its loopback:
 * otherwise refuse (126), naming each other one, so that -I can never
 * hand out a host's network. The loopback is told by IFF_LOOPBACK, which
 * no one can set on another interface (a veth renamed lo is still named);
 * it is the launcher's to bring up, and a warning says when it is down. */
static void session_only_lo(void)
{
	struct if_nameindex *ifs = if_nameindex();
	char others[512] = "";
	struct ifreq ifr;
	int fd, lo_seen = 0, n = 0;

	if (!ifs || (fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		die(EXIT_CONFINE, "unable to list the interfaces of this network namespace");
	for (struct if_nameindex *i = ifs; i->if_index; i++) {
		memset(&ifr, 0, sizeof ifr);
		snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", i->if_name);
		if (!lo_seen && ioctl(fd, SIOCGIFFLAGS, &ifr) == 0 &&
		    (ifr.ifr_flags & IFF_LOOPBACK)) {
			lo_seen = 1;
			if (!(ifr.ifr_flags & IFF_UP))
				warnx_("the session's loopback %s is down: nothing answers on "
				       "127.0.0.1 or ::1 (bring it up before the run)",
				       qn(i->if_name));
			continue;
		}
		if (strlen(others) < sizeof others - 40)
			snprintf(others + strlen(others), sizeof others - strlen(others),
			         "%s%s", n ? ", " : "", qn(i->if_name));
		n++;
	}
	close(fd);
	if_freenameindex(ifs);
	if (n)
		diex(EXIT_CONFINE, "refused: -I (run --in-session): this network namespace "
		     "holds the interface%s %s besides its loopback, and a session's holds "
		     "lo alone", n > 1 ? "s" : "", others);
}

/* -I: below Landlock ABI 6 (or -A's) there are no scopes, and the
 * session's components would share its abstract UNIX sockets, which no
 * uid check guards: refused (126) unless -b, under which the landlock step
 * says what it dropped. */
static void session_abi(unsigned long cap, int best)
{
	long abi = landlock_abi_at_most(cap);

	if (abi < 0)
		abi = 0;
	if (abi < 6 && !best)
		diex(EXIT_CONFINE, "refused: -I (run --in-session) needs Landlock ABI 6 "
		     "(Linux 6.12), not %ld: below it the session's components would share "
		     "its abstract UNIX sockets, which no uid check guards; -b "
		     "(--best-effort) runs so", abi);
}

/* Leave the caller's session keyring (its secrets, ssh and kerberos keys)
 * for a new, empty, nameless one. A kernel without keys (ENOSYS), or a
 * filter that refuses keyctl(2) to everyone here, leaves nothing to reach:
 * any other failure stops the run. 1 when joined, 0 when there is none. */
static int new_keyring(void)
{
	int err;

	if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) >= 0)
		return 1;
	err = errno;
	if ((err == ENOSYS || err == EPERM || err == EACCES) &&
	    syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0) < 0 &&
	    errno == err)
		return 0;
	die_hint(EXIT_CONFINE, err, err == EDQUOT ? "this user's key quota is used up "
	         "(/proc/sys/kernel/keys/maxkeys, maxbytes)" : NULL,
	         "unable to join a new session keyring");
}

/* Check mode (-t): what this step did, in one line. */
static void check(int host_net, int seccomp_only, int err, int keyring, const char *why)
{
	int ns = !seccomp_only && !err;

	check_line("network=%s ipc=%s user=%s keyring=%s%s%s",
	           host_net == 2 ? "session" : host_net ? "host" : ns ? "namespace" : "seccomp",
	           ns ? "namespace" : "shared", in_userns ? "namespace" : "none",
	           keyring ? "new" : "none", *why ? " why=" : "", why);
}

/* What argv asks for. net: 0 a namespace of its own, 1 the host's (-H),
 * 2 the caller's, a session's (-I). */
static struct {
	int net, seccomp_only, test, explain, best;
	unsigned long abi_cap;
} o = { .abi_cap = 1000 };

static void parse(int argc, char **argv)
{
	int opt;

	opterr = 0;
	for (;;) {
		if (optind < argc && !strcmp(argv[optind], "--help"))
			opt = 'h';
		else if (optind < argc && !strncmp(argv[optind], "--", 2) && argv[optind][2])
			usage_fail(USAGE, "unknown option %s", argv[optind]);
		else if ((opt = getopt(argc, argv, "+:hA:bE:HIStW:X")) == -1)
			break;
		if (opt == 'h') {
			puts("usage: " USAGE);
			exit(0);
		}
		switch (opt) {
		case 'H': case 'I':
			if (o.net && o.net != (opt == 'H' ? 1 : 2))
				usage_fail(USAGE, "-H and -I exclude each other");
			o.net = opt == 'H' ? 1 : 2;
			break;
		case 'X': o.explain = 1; break; /* run --explain: nothing here (landlock.c) */
		case 'S': o.seccomp_only = 1; break;
		case 't': o.test = 1; break;
		case 'b': o.best = 1; break;
		case 'A':
			if (!parse_ulong(optarg, 0, 1000, &o.abi_cap))
				usage_fail(USAGE, "unable to parse -A %s: not an ABI number", qn(optarg));
			break;
		case 'W': walls_fd(optarg, USAGE); break;
		case 'E': status_fd(optarg, USAGE); break;
		default: usage_option(USAGE, opt, argv[optind - 1]);
		}
	}
	if (optind >= argc && !o.test)
		usage_fail(USAGE, "no program given");
	if (o.net && o.seccomp_only)
		usage_fail(USAGE, "-%c and -S exclude each other", o.net == 1 ? 'H' : 'I');
}

int main(int argc, char **argv)
{
	int err = 0, keyring;
	char why[128] = "";

	parse(argc, argv);
	if (o.net == 1)
		nambient = 4;	/* CAP_NET_ADMIN, for the egress step */
	if (o.net == 2) {
		session_only_lo();
		session_abi(o.abi_cap, o.best);
		walls_note("net", "session");
	}
	if (!o.seccomp_only)
		err = unshare_ns(CLONE_NEWIPC | (o.net ? 0 : CLONE_NEWNET), why, sizeof why);
	if (!o.seccomp_only && !err) {
		if (!o.net)
			lo_up();
		if (!o.net)
			walls_note("net", "namespace");
		walls_note("ipc", "namespace");
	} else if (o.net) {
		warnx_("no IPC namespace available (%s): SysV and POSIX "
		       "IPC objects are shared with the caller", why);
	} else {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
			die(EXIT_CONFINE, "unable to set no_new_privs");
		if (seccomp_install(SECCOMP_DENY_SOCKETS) < 0)
			die_hint(EXIT_CONFINE, errno, errno == EINVAL ?
			         "the kernel lacks seccomp filters (CONFIG_SECCOMP_FILTER)" : NULL,
			         "unable to install the seccomp socket filter");
		walls_note("net", "seccomp");
		if (!o.seccomp_only)
			warnx_("no network namespace available (%s): loopback is "
			       "unavailable, sockets other than AF_UNIX are refused by a "
			       "seccomp filter, and SysV and POSIX IPC objects are shared "
			       "with the caller", why);
	}
	keyring = new_keyring();
	if (o.test)
		check(o.net, o.seccomp_only, err, keyring, why);
	if (optind >= argc)
		return 0;
	xexecvp(argv[optind], argv + optind);
}
