/* sharness-exec-landlock: the last link before the target. A Landlock
 * ruleset handling every right of the kernel's ABI, allowing only the paths
 * and TCP ports in argv (all it trusts); then no capabilities, no_new_privs,
 * the seccomp filter of seccomp.h (SECCOMP_TARGET, and the socket allowlist
 * in the object form), restrict_self, exec PROGRAM. Exit: 125 usage, 126 could not
 * confine or exec, 127 PROGRAM not found; else PROGRAM's own status. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/securebits.h>

#include "common.h"
#include "landlock-abi.h"
#include "seccomp.h"

const char *progname = "sharness-exec-landlock";

#define USAGE "sharness-exec-landlock [-b] [-n] [-U] [-A ABI] [-e FD] [-r PATH]... " \
	"[-x PATH]... [-w PATH]... [-c PORT]... [-l PORT]... [--] PROGRAM [ARG...]"

#define FS_READ (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
#define FS_EXEC (FS_READ | LANDLOCK_ACCESS_FS_EXECUTE)
/* The only rights a rule on a plain file may carry. */
#define FS_FILE (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
	LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE | \
	LANDLOCK_ACCESS_FS_IOCTL_DEV)
#define FS_ALL (FS_FILE | LANDLOCK_ACCESS_FS_READ_DIR | \
	LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE | \
	LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | \
	LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK | \
	LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK | \
	LANDLOCK_ACCESS_FS_MAKE_SYM | LANDLOCK_ACCESS_FS_REFER)
#define NET_ALL (LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP)
#define SCOPE_ALL (LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL)

/* Every right added after ABI 1, for the refusal and best-effort lines. */
static const struct right {
	int word;		/* 0 fs, 1 net, 2 scoped */
	__u64 bit;
	const char *name;
	int abi;
	const char *kernel;
} later[] = {
	{ 0, LANDLOCK_ACCESS_FS_REFER, "FS_REFER", 2, "5.19" },
	{ 0, LANDLOCK_ACCESS_FS_TRUNCATE, "FS_TRUNCATE", 3, "6.2" },
	{ 1, LANDLOCK_ACCESS_NET_BIND_TCP, "NET_BIND_TCP", 4, "6.7" },
	{ 1, LANDLOCK_ACCESS_NET_CONNECT_TCP, "NET_CONNECT_TCP", 4, "6.7" },
	{ 0, LANDLOCK_ACCESS_FS_IOCTL_DEV, "FS_IOCTL_DEV", 5, "6.10" },
	{ 2, LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET, "SCOPE_ABSTRACT_UNIX_SOCKET", 6, "6.12" },
	{ 2, LANDLOCK_SCOPE_SIGNAL, "SCOPE_SIGNAL", 6, "6.12" },
};

static __u64 word(const struct sharness_ruleset_attr *a, int w)
{
	return w == 0 ? a->handled_access_fs : w == 1 ? a->handled_access_net :
		a->scoped;
}

static int query_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
	                   LANDLOCK_CREATE_RULESET_VERSION);

	if (abi >= 1)
		return (int)abi;
	if (errno == ENOSYS)
		die_hint(EXIT_CONFINE, errno, "this kernel lacks Landlock: it "
		         "needs Linux 5.13 or later built with CONFIG_SECURITY_LANDLOCK=y",
		         "unable to query the Landlock ABI");
	if (errno == EOPNOTSUPP)
		die_hint(EXIT_CONFINE, errno, "Landlock is built in but disabled "
		         "at boot: add it to the kernel's LSM list, "
		         "lsm=landlock,... on the command line (or CONFIG_LSM)",
		         "unable to query the Landlock ABI");
	die(EXIT_CONFINE, "unable to query the Landlock ABI");
}

/* Capabilities survive Landlock: a root target holding CAP_SYS_ADMIN or
 * CAP_PERFMON could still read /proc/PID/environ of processes outside its
 * domain. So none may reach the target, even when the caller is root. */
static void drop_caps(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	unsigned i;
	int cap, bits;

	if (syscall(SYS_capget, &h, d) < 0)
		die(EXIT_CONFINE, "unable to read the capability sets");
	/* The bounding set and securebits need CAP_SETPCAP. Without it they
	 * stay, but the sets below are cleared all the same and no_new_privs
	 * keeps exec from granting anything back. */
	if (d[0].effective & (1U << CAP_SETPCAP)) {
		/* EINVAL past the kernel's last capability (cap_last_cap). */
		for (cap = 0; prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0; cap++)
			;
		if (errno != EINVAL || cap == 0)
			die(EXIT_CONFINE, "unable to drop capability %d "
			    "from the bounding set", cap);
		bits = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
		if (bits < 0 || prctl(PR_SET_SECUREBITS, (unsigned long)bits |
		    SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
		    SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED, 0, 0, 0) < 0)
			die(EXIT_CONFINE, "unable to lock the securebits");
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 &&
	    errno != EINVAL)
		die(EXIT_CONFINE, "unable to clear the ambient capabilities");
	memset(d, 0, sizeof d);
	if (syscall(SYS_capset, &h, d) < 0)
		die(EXIT_CONFINE, "unable to clear the capability sets");
	if (syscall(SYS_capget, &h, d) < 0)
		die(EXIT_CONFINE, "unable to read the capability sets");
	for (i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		if (d[i].effective | d[i].permitted | d[i].inheritable)
			diex(EXIT_CONFINE, "unable to drop every capability: "
			     "some are still held");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 } };
	struct sharness_ruleset_attr want = { FS_ALL, 0, SCOPE_ALL }, attr;
	struct { int opt; const char *arg; unsigned long port; } *rule;
	int nrules = 0, best = 0, net = 0, userns = 0, abi, fd, c, i;
	unsigned filter = SECCOMP_TARGET;
	unsigned long cap = 1000, envfd = ULONG_MAX;
	/* Nothing of ours runs between restrict_self and exec that an audit
	 * record would help with; the kernel asks sandbox launchers to say so. */
	__u32 flags = LANDLOCK_RESTRICT_SELF_LOG_SAME_EXEC_OFF;
	char missing[256] = "";
	const struct right *need = NULL;
	const char **view;

	rule = calloc((size_t)argc, sizeof *rule);
	view = calloc((size_t)argc, sizeof *view);
	if (!rule || !view)
		die(EXIT_REFUSED, "unable to allocate the rule list");
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:hbnUA:e:r:x:w:c:l:", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			printf("usage: %s\n", USAGE);
			exit(0);
		case 'b': best = 1; break;
		case 'n': net = 1; break;
		case 'U': userns = 1; break;
		case 'A':
			if (!parse_ulong(optarg, 0, 1000, &cap))
				usage_fail(USAGE, "unable to parse -A %s: not an ABI number", optarg);
			break;
		case 'e':
			if (!parse_ulong(optarg, 3, INT_MAX, &envfd))
				usage_fail(USAGE, "unable to parse -e %s: not a descriptor above 2",
				           qn(optarg));
			break;
		case 'c': case 'l':
			net = 1;
			if (!parse_ulong(optarg, 1, 65535, &rule[nrules].port))
				usage_fail(USAGE, "unable to parse -%c %s: not a TCP port (1-65535)",
				           c, optarg);
			__attribute__((fallthrough));
		case 'r': case 'x': case 'w':
			rule[nrules].opt = c;
			rule[nrules++].arg = optarg;
			break;
		case ':':
			usage_fail(USAGE, "unable to parse options: -%c needs an argument", optopt);
		default:
			if (optopt)
				usage_fail(USAGE, "unable to parse options: unknown option -%c", optopt);
			usage_fail(USAGE, "unable to parse options: unknown option %s", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		usage_fail(USAGE, "unable to parse options: no program to run");

	/* The target's environment, which this step never ran with. */
	if (envfd != ULONG_MAX)
		env_from_fd((int)envfd);

	abi = query_abi();
	if ((unsigned long)abi > cap)
		abi = (int)cap;
	if (abi < 1)
		diex(EXIT_CONFINE, "unable to use Landlock: -A %lu leaves no ABI "
		     "(best effort never drops the whole sandbox)", cap);
	/* TCP is handled whenever the kernel can (defence in depth behind the
	 * netns step), but required only when the policy relies on Landlock
	 * for it: -n, -c or -l. */
	want.handled_access_net = NET_ALL;
	attr = want;
	switch (abi) {
	case 1: /* ABI 2: linking and renaming across directories (REFER) */
		attr.handled_access_fs &= ~LANDLOCK_ACCESS_FS_REFER;
		__attribute__((fallthrough));
	case 2: /* ABI 3: truncate(2), O_TRUNC */
		attr.handled_access_fs &= ~LANDLOCK_ACCESS_FS_TRUNCATE;
		__attribute__((fallthrough));
	case 3: /* ABI 4: TCP bind and connect */
		attr.handled_access_net = 0;
		__attribute__((fallthrough));
	case 4: /* ABI 5: ioctl(2) on character and block devices */
		attr.handled_access_fs &= ~LANDLOCK_ACCESS_FS_IOCTL_DEV;
		__attribute__((fallthrough));
	case 5: /* ABI 6: signals and abstract UNIX sockets leaving the domain */
		attr.scoped = 0;
		__attribute__((fallthrough));
	case 6: /* ABI 7: audit logging flags for landlock_restrict_self */
		flags = 0;
		break;
	default:
		break;
	}
	for (i = 0; i < (int)(sizeof later / sizeof later[0]); i++) {
		if (later[i].word == 1 && !net)
			continue;
		if (word(&want, later[i].word) & ~word(&attr, later[i].word) &
		    later[i].bit) {
			if (*missing)
				strcat(missing, ", ");
			strcat(missing, later[i].name);
			need = &later[i];
		}
	}
	if (*missing && !best) {
		fprintf(stderr, "%s: fatal: unable to confine with Landlock ABI %d: "
		        "it lacks %s\n", progname, abi, missing);
		hint("Landlock ABI %d (Linux %s) has them; -b (--best-effort) "
		     "runs without them", need->abi, need->kernel);
		exit(EXIT_CONFINE);
	}
	if (*missing)
		warnx_("Landlock ABI %d: best effort: dropped %s", abi, missing);

	fd = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
	if (fd < 0)
		die(EXIT_CONFINE, "unable to create a Landlock ruleset");
	for (i = 0; i < nrules; i++) {
		struct landlock_path_beneath_attr pb;
		struct landlock_net_port_attr np;
		int dir;

		if (rule[i].opt == 'c' || rule[i].opt == 'l') {
			if (!attr.handled_access_net)
				continue;
			np.allowed_access = rule[i].opt == 'c' ?
				LANDLOCK_ACCESS_NET_CONNECT_TCP : LANDLOCK_ACCESS_NET_BIND_TCP;
			np.port = rule[i].port;
			if (syscall(SYS_landlock_add_rule, fd, LANDLOCK_RULE_NET_PORT, &np, 0) < 0)
				die(EXIT_CONFINE, "unable to add a Landlock rule for "
				    "TCP port %lu", rule[i].port);
			continue;
		}
		/* O_DIRECTORY tells a directory from a file without an
		 * fstat(2) a path: syscalls are most of the cost of a rule. No
		 * symlink is followed: the front end resolved them (DESIGN.md 2),
		 * so one met here was put there since. */
		pb.parent_fd = open_nofollow(rule[i].arg, O_PATH | O_DIRECTORY);
		dir = pb.parent_fd >= 0;
		if (!dir && errno == ENOTDIR)
			pb.parent_fd = open_nofollow(rule[i].arg, O_PATH);
		if (pb.parent_fd < 0 && (errno == ENOENT || errno == ENOTDIR)) {
			warnx_("skipping missing path %s", qn(rule[i].arg));
			continue;
		}
		if (pb.parent_fd < 0 && errno == ELOOP)
			die_hint(EXIT_CONFINE, errno, "rule paths are opened without following "
			         "symlinks; give the path the symlink points to",
			         "unable to open %s", qn(rule[i].arg));
		if (pb.parent_fd < 0)
			die(EXIT_CONFINE, "unable to open %s", qn(rule[i].arg));
		pb.allowed_access = rule[i].opt == 'r' ? FS_READ :
			rule[i].opt == 'x' ? FS_EXEC : attr.handled_access_fs;
		if (!dir)
			pb.allowed_access &= FS_FILE;
		pb.allowed_access &= attr.handled_access_fs;
		if (syscall(SYS_landlock_add_rule, fd, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0)
			die(EXIT_CONFINE, "unable to add a Landlock rule for %s", qn(rule[i].arg));
		close(pb.parent_fd);
	}

	/* Where the target may run things, for the message of a failed exec. */
	for (i = c = 0; i < nrules; i++)
		if (rule[i].opt == 'x' || rule[i].opt == 'w')
			view[c++] = rule[i].arg;
	xexec_view(view, (size_t)c);

	drop_caps();
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die(EXIT_CONFINE, "unable to set no_new_privs");
	if (!userns)
		filter |= SECCOMP_DENY_USERNS;
	if (net)
		filter |= SECCOMP_NET_ALLOWLIST;
	if (seccomp_install(filter) < 0)
		die(EXIT_CONFINE, "unable to install the seccomp filter");
	if (syscall(SYS_landlock_restrict_self, fd, flags) < 0)
		die(EXIT_CONFINE, "unable to enforce the Landlock ruleset");
	close(fd);
	xexecvp(argv[optind], argv + optind);
}
