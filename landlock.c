/* sharness-exec-landlock: the last link before the target. A Landlock
 * ruleset handling every right of the kernel's ABI, allowing only the paths
 * and TCP and UDP ports in argv (all it trusts); then no capabilities,
 * no_new_privs, the seccomp filter of seccomp.h (SECCOMP_TARGET, and the
 * socket allowlist in the object form, whose listen guard the listen step
 * before this one stands), restrict_self, exec PROGRAM. Exit: 125 usage, 126 could not
 * confine or exec, 127 PROGRAM not found; else PROGRAM's own status. */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <limits.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/securebits.h>

#include "common.h"
#include "helper.h"
#include "landlock-abi.h"
#include "landlock/landlockrules.h"
#include "landlock/landlockview.h"
#include "rights.h"
#include "seccomp.h"
#include "statuspipe.h"
#include "landlock/switchuser.h"
#include "landlock/setgid.h"

const char *progname = "sharness-exec-landlock";

#define USAGE "sharness-exec-landlock [-bHRtX] [-A ABI] [-e FD] [-E FD] [-W FD] [--scan FD] " \
	"[--user UID:GID [-G GIDS]] [--userns] [-r PATH]... [-x PATH]... [-w PATH]... [-s PATH]... " \
	"[-T PATH]... [-c PORT]... [-l PORT]... [-C PORT]... [-L PORT]... [--] PROGRAM [ARG...]"



/* The running kernel's ABI, or 0 without Landlock, WHY then saying why:
 * a "none" policy may still run where the other walls hold every right
 * (rights.h). */
static int query_abi(const char **why)
{
	long abi = landlock_abi();

	*why = NULL;
	if (abi >= 1)
		return (int)abi;
	if (errno == ENOSYS)
		*why = "this kernel lacks Landlock: it needs Linux 5.13 or later built "
		       "with CONFIG_SECURITY_LANDLOCK=y";
	else if (errno == EOPNOTSUPP)
		*why = "Landlock is built in but disabled at boot: add it to the "
		       "kernel's LSM list, lsm=landlock,... on the command line (or CONFIG_LSM)";
	else
		die(EXIT_CONFINE, "unable to query the Landlock ABI");
	return 0;
}

/* Capabilities survive Landlock: a root target holding CAP_SYS_ADMIN or
 * CAP_PERFMON could still read /proc/PID/environ of processes outside its
 * domain. So none may reach the target, even when the caller is root.
 * Under run --user (--user) the ids change between the locked securebits
 * (NO_SETUID_FIXUP: the change itself clears nothing) and the cleared
 * sets, and then there is no way back to root. */
static unsigned setgid_server(int procfd);
static int server_procfd = -1;
static unsigned server_flag;

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
	} else if (user_wanted()) {
		diex(EXIT_CONFINE, "unable to run as another user: this step lacks CAP_SETPCAP");
	}
	if (user_wanted())
		user_switch();
	/* The target's ids and groups, the capabilities still held: the
	 * setgid server keeps CAP_SYS_PTRACE where Yama asks for it. */
	server_flag = setgid_server(server_procfd);
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
	if (user_wanted())
		user_check();
}

/* Check mode (-t), from inside: what the target would get, as the kernel
 * now answers for this very process (it has no /proc of its own to read
 * where the view left /proc out). */
static void check(int abi, const struct sharness_ruleset_attr *a, __u32 flags,
                  const char *guard, const char *held)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	int caps = -1;

	if (syscall(SYS_capget, &h, d) == 0)
		caps = (d[0].effective | d[0].permitted | d[1].effective | d[1].permitted) != 0;
	check_line("abi=%d fs=%#llx net=%s%s scoped=%s%s restrict_flags=%#x seccomp=%d "
	           "no_new_privs=%d caps=%s listen_guard=%s rights=%s", abi,
	           (unsigned long long)a->handled_access_fs,
	           a->handled_access_net & LL_NET_TCP ? "tcp" : "none",
	           a->handled_access_net & LL_NET_UDP ? ",udp" : "",
	           a->scoped & LANDLOCK_SCOPE_SIGNAL ? "signal" : "none",
	           a->scoped & LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET ? ",abstract_unix" : "",
	           flags, prctl(PR_GET_SECCOMP, 0, 0, 0, 0), prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0),
	           caps < 0 ? "unknown" : caps ? "some" : "none", guard, held);
}

/* What argv asks for: the rules in their order, and the switches; VIEW
 * is room for the paths of -x and -w (set_view). */
static struct {
	struct rule *rule;
	const char **view;
	int nrules, best, net, udp, userns, test, explain, record;
	unsigned long cap, envfd;
} o = { .cap = 1000, .envfd = ULONG_MAX };

/* The port of -c, -l (TCP), -C or -L (UDP). Landlock's port 0 for UDP
 * bind: any ephemeral port, which a client's first send takes on its own. */
static unsigned long parse_port(int c, const char *arg)
{
	unsigned long port;

	if (!parse_ulong(arg, c == 'L' ? 0 : 1, 65535, &port))
		usage_fail(USAGE, "unable to parse -%c %s: not a %s port (%s-65535)", c, arg,
		           c == 'c' || c == 'l' ? "TCP" : "UDP", c == 'L' ? "0" : "1");
	return port;
}

static void parse(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' }, { "rights", no_argument, NULL, 'r' << 8 },
		/* no letter: the table of letters (DESIGN.md 1) gives -S, -u and
		 * -U other meanings; the value is the letter they had */
		{ "scan", required_argument, NULL, 'S' }, { "user", required_argument, NULL, 'u' },
		{ "userns", no_argument, NULL, 'U' }, { NULL, 0, NULL, 0 } };
	int c, groups = 0;

	o.rule = calloc((size_t)argc, sizeof *o.rule);
	o.view = calloc((size_t)argc, sizeof *o.view);
	if (!o.rule || !o.view)
		die(EXIT_REFUSED, "unable to allocate the rule list");
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:hbHtXA:e:E:W:G:r:x:w:s:c:l:C:L:RT:", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			printf("usage: %s\n", USAGE);
			exit(0);
		case 'r' << 8:
			rights_print();
			exit(0);
		case 'b': o.best = 1; break;
		case 'X': o.explain = 1; break; /* run --explain: seccomp.h */
		case 'H': o.net = 1; break;
		case 'U': o.userns = 1; break;
		case 't': o.test = 1; break;
		case 'R': view_opt_root(); break;
		case 'A':
			if (!parse_ulong(optarg, 0, 1000, &o.cap))
				usage_fail(USAGE, "unable to parse -A %s: not an ABI number", optarg);
			break;
		case 'e': o.envfd = (unsigned long)parse_fd(optarg, 'e', INT_MAX, USAGE); break;
		case 'S': walls_scan_fd(optarg, USAGE); break;
		case 'u': user_parse_ids(optarg, USAGE); break;
		case 'G': user_parse_groups(optarg, USAGE); groups = 1; break;
		case 'W': walls_fd(optarg, USAGE); o.record = 1; break;
		case 'E': status_fd(optarg, USAGE); break;
		case 'C': case 'L':
			o.udp = 1;
			__attribute__((fallthrough));
		case 'c': case 'l':
			o.net = 1;
			o.rule[o.nrules].port = parse_port(c, optarg);
			__attribute__((fallthrough));
		case 'r': case 'x': case 'w': case 's': case 'T':
			o.rule[o.nrules].opt = c;
			o.rule[o.nrules++].arg = strchr("clCL", c) ? optarg :
				rule_path(c, optarg, USAGE);
			break;
		default:
			usage_option(USAGE, c, argv[optind - 1]);
		}
	}
	if (optind >= argc && !o.test)
		usage_fail(USAGE, "no program given");
	if (groups && !user_wanted())
		usage_fail(USAGE, "-G needs --user");
}


/* The first read or exec rule that holds a daemon's socket directory
 * (rights.h), or NULL. */
static const struct rule *socket_dir_rule(void)
{
	for (int i = 0; i < o.nrules; i++)
		if (strchr("rx", o.rule[i].opt) && socket_dir_beneath(o.rule[i].arg))
			return &o.rule[i];
	return NULL;
}

/* The object form's listen guard, as the listen step before this one
 * noted it in the walls record (listen/listen.c): "on", "listen-refused"
 * (-b, where it could not be had), or "none". In a chain (-W) the object
 * form never runs without that step; by hand, without -W, this step
 * stands alone, the guard being sharness-exec-listen's. */
static const char *guard_word(void)
{
	const char *v = walls_value("listen");

	if (!v && o.net && o.record)
		diex(EXIT_CONFINE, "unable to confine the object form (-H): the walls record "
		     "notes no listen guard (no sharness-exec-listen step before this one)");
	return !v ? "none" : !strcmp(v, "guard") ? "on" : "listen-refused";
}

/* The walls of this run: the record's (-W), and this step's own. */
static void find_walls(int abi, struct run_walls *w)
{
	w->abi = abi;
	walls_read(w);
	if (o.net && !o.udp)
		w->stand |= WALL_ALLOWLIST;
	w->object_form = o.net;
	w->socket_dirs = socket_dir_rule() || view_listener();
	w->write_paths = 0;
	for (int i = 0; i < o.nrules; i++)
		w->write_paths |= o.rule[i].opt == 'w';
}

/* ", or read paths narrower than PATH, ..." for the rule that makes the
 * run rely on FS_RESOLVE_UNIX_READ, or the socket the front end found
 * listening beneath one. */
static void socket_dir_hint(char *would, size_t size)
{
	const struct rule *r = socket_dir_rule();
	const char *list = r && r->opt == 'r' ? "read" : "exec";

	if (!r) /* the front end's scan found one (sockscan.h) */
		snprintf(would + strlen(would), size - strlen(would), ", or no socket "
		         "listening beneath read or exec paths: %s", view_listener());
	else
		snprintf(would + strlen(would), size - strlen(would), ", or %s paths "
		         "(files.%s, -%c) narrower than %s, which holds daemons' sockets "
		         "(/run, /var/lib/docker)", list, list, r->opt, qn(r->arg));
}

/* Strict mode (DESIGN.md 4.7): every right this run relies on is held by
 * a wall that stands. Refuse (126), naming each right that none holds and
 * what would hold it; with -b, run and say exactly which. HELD gets the
 * NAME:WALL words of the check line. The rights that are the view's and
 * the netns step's to refuse or warn about (ROOT_STRICT, WARN) they have
 * already; they are only named here. */
static void weigh(const struct run_walls *w, const char *why_none, char *held, size_t hsize)
{
	struct { char would[1024], names[256]; } g[16];
	char missing[512] = "", abi_words[32];
	static char hintbuf[24576];
	size_t ng = 0, hn = 0, j;
	int udp = 0;

	*held = '\0';
	for (size_t i = 0; i < nrights; i++) {
		const struct right *r = &rights_table[i];
		const char *by;
		char would[1024];

		if (!right_relied(r, w))
			continue;
		by = right_holder(r, w);
		hn += (size_t)snprintf(held + hn, hn < hsize ? hsize - hn : 0, "%s%s:%s",
		                       hn ? "," : "", r->name, by ? by : "none");
		if (by || r->strict != STRICT)
			continue;
		snprintf(missing + strlen(missing), sizeof missing - strlen(missing),
		         "%s%s", *missing ? ", " : "", r->name);
		udp |= r->abi == 10;
		right_would(r, would, sizeof would);
		if (r->relied == SOCKET_DIRS)
			socket_dir_hint(would, sizeof would);
		for (j = 0; j < ng && strcmp(g[j].would, would); j++)
			;
		if (j == ng && ng < sizeof g / sizeof *g) {
			snprintf(g[ng].would, sizeof g[ng].would, "%s", would);
			g[ng++].names[0] = '\0';
		}
		if (j < ng)
			snprintf(g[j].names + strlen(g[j].names), sizeof g[j].names -
			         strlen(g[j].names), "%s%s", *g[j].names ? ", " : "", r->name);
	}
	if (!*missing)
		return;
	/* Best effort never drops the whole sandbox (FS first: the table's
	 * order). */
	if (o.best && !strncmp(missing, "FS,", 3))
		diex(EXIT_CONFINE, "unable to confine %s: no wall of this run holds FS, "
		     "and best effort never drops the whole sandbox", w->abi ?
		     "with Landlock" : "without Landlock");
	if (o.best) {
		warnx_("Landlock ABI %d: best effort: dropped %s%s%s%s", w->abi, missing,
		       udp ? ": UDP is unrestricted" : "", view_listener() ?
		       "; connect(2) reaches " : "", view_listener() ?: "");
		return;
	}
	if (why_none)
		snprintf(hintbuf, sizeof hintbuf, "%s; ", why_none);
	for (j = 0; j < ng; j++)
		snprintf(hintbuf + strlen(hintbuf), sizeof hintbuf - strlen(hintbuf),
		         "%s: %s; ", g[j].names, g[j].would);
	snprintf(hintbuf + strlen(hintbuf), sizeof hintbuf - strlen(hintbuf),
	         "-b (--best-effort) runs %s", udp ? "with UDP unrestricted" : "without them");
	if (w->abi)
		snprintf(abi_words, sizeof abi_words, "with Landlock ABI %d", w->abi);
	else
		snprintf(abi_words, sizeof abi_words, "without Landlock");
	die_hint(EXIT_CONFINE, 0, hintbuf, "unable to confine %s: no wall of this run "
	         "holds %s", abi_words, missing);
}
/* Where the target may run things, for the message of a failed exec. */
static void set_view(void)
{
	size_t n = 0;

	for (int i = 0; i < o.nrules; i++)
		if (o.rule[i].opt == 'x' || o.rule[i].opt == 'w')
			o.view[n++] = o.rule[i].arg;
	xexec_view(o.view, n);
}

/* Without Landlock, /proc/self/fd would reopen a file on 0-2 with any
 * mode its inode allows, and nothing checks an open there: refuse a
 * regular file, a directory or an O_PATH descriptor, where /proc is
 * granted. */
static void refuse_reopenable_fds(void)
{
	struct stat st;
	int proc = 0, fl;

	for (int i = 0; i < o.nrules; i++)
		if (strchr("rxw", o.rule[i].opt) && path_beneath("/proc", o.rule[i].arg))
			proc = 1;
	for (int fd = 0; proc && fd <= 2; fd++) {
		if ((fl = fcntl(fd, F_GETFL)) < 0 || fstat(fd, &st) < 0)
			continue;
		if (!(fl & O_PATH) && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
			continue;
		if (!o.best)
			die_hint(EXIT_CONFINE, 0, "give it a pipe or a device, or leave /proc "
			         "out of the policy; -b (--best-effort) runs with it reopenable",
			         "refused: descriptor %d is a file that /proc/self/fd would "
			         "reopen, and no Landlock ruleset checks that open", fd);
		warnx_("best effort: descriptor %d is a file that /proc/self/fd would "
		       "reopen with any mode its inode allows", fd);
	}
}

/* The view's procfs for the setgid server (view/viewdev.c: procfd=FD in
 * the walls record), close-on-exec at once: the target never holds it.
 * -1 where there is none. */
static int take_procfd(void)
{
	const char *v = walls_value("procfd");
	unsigned long fd;
	struct statfs sf;

	if (!v || !parse_ulong(v, 3, INT_MAX, &fd))
		return -1;
	if (fcntl((int)fd, F_SETFD, FD_CLOEXEC) < 0)
		return -1;
	if (fstatfs((int)fd, &sf) < 0 || sf.f_type != 0x9fa0 /* PROC_SUPER_MAGIC */) {
		close((int)fd);
		return -1;
	}
	return (int)fd;
}

/* A chain with no namespace at all (the record notes neither a view nor
 * a pid namespace): this step's own /proc, where it is a procfs whose
 * "self" is this process, so that its pids are the server's and the
 * notifications' (a pid namespace without a mount namespace fails both:
 * there /proc is the host's). By hand, no record tells: none, as before.
 * Opened only now, after the ruleset's paths. -1: none. */
static int own_procfd(void)
{
	char self[16] = "";
	struct statfs sf;
	int fd = !o.record || walls_value("view") || walls_value("pid") ? -1 :
	         open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0 && (readlinkat(fd, "self", self, sizeof self - 1) < 0 || atoi(self) != getpid() ||
	                fstatfs(fd, &sf) < 0 || sf.f_type != 0x9fa0 /* PROC_SUPER_MAGIC */)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The setgid bit on directories (issue 42): a server outside the domain
 * sets it, where one can be had; else the filter refuses it everywhere,
 * as on files. Under -X too: the observer traces the server, which tells
 * it of each file it refuses (lib/setgidcall.h). Not in the object form,
 * where the listen step holds the chain's one listener and its server
 * sets the bit instead (listen/setgidguard.c), where it has the view's
 * procfs. */
static unsigned setgid_server(int procfd)
{
	const char *why;

	if (o.net) {
		if (procfd >= 0)
			close(procfd);
		return walls_noted("setgid", "listen") ? SECCOMP_SETGID_ABOVE : 0;
	}
	return setgid_start(procfd >= 0 ? procfd : own_procfd(), &why) == 0 ?
	       SECCOMP_NOTIFY_SETGID : 0;
}

/* Install the filter; with the setgid server, hand it the listener, or
 * where none can be had, refuse the bit instead. */
static void install_filter(unsigned filter)
{
	int r = seccomp_install(filter);

	/* EBUSY: a filter above holds a listener; EMFILE: no descriptor
	 * left for ours (a low RLIMIT_NOFILE). */
	if (r < 0 && filter & SECCOMP_NOTIFY_SETGID) {
		setgid_cancel();
		filter &= ~(unsigned)SECCOMP_NOTIFY_SETGID;
		r = seccomp_install(filter);
	}
	if (r < 0 || (o.explain && seccomp_trace_install() < 0))
		die(EXIT_CONFINE, "unable to install the seccomp filter");
	if (filter & SECCOMP_NOTIFY_SETGID)
		setgid_hand(r);
}

/* The ruleset of ATTR with every rule of argv, or -1 without Landlock. */
static int ruleset(int abi, const struct sharness_ruleset_attr *attr)
{
	int fd;

	if (!abi)
		return -1;
	fd = (int)syscall(SYS_landlock_create_ruleset, attr, landlock_attr_size(abi), 0);
	if (fd < 0)
		die(EXIT_CONFINE, "unable to create a Landlock ruleset");
	for (int i = 0; i < o.nrules; i++) {
		if (strchr("clCL", o.rule[i].opt))
			add_port(fd, &o.rule[i], attr->handled_access_net);
		else if (o.rule[i].opt == 'T' && !walls_noted("tmpfs", o.rule[i].arg))
			/* -T: a write path where the view made it the run's
			 * private tmpfs (landlockview.c), else nothing. */
			warnx_("no private tmpfs at %s (-T): it keeps only what the "
			       "other rules grant", qn(o.rule[i].arg));
		else
			add_path(fd, o.rule, i, attr->handled_access_fs);
	}
	return fd;
}

int main(int argc, char **argv)
{
	struct sharness_ruleset_attr want = { LL_FS_ALL, 0, LL_SCOPE_ALL, 0, 0, 0 }, attr;
	unsigned filter = SECCOMP_TARGET;
	const char *guard, *why_none;
	/* Nothing of ours runs between restrict_self and exec that an audit
	 * record would help with; the kernel asks sandbox launchers to say so.
	 * Of the later flags, none is used: this step is single-threaded (the
	 * listen guard is a step of its own), so TSYNC (ABI 8) would cover
	 * nothing more; and no_new_privs must be set before restrict_self
	 * anyway, for the seccomp filters, so NO_NEW_PRIVS (ABI 11) would make
	 * nothing simpler. */
	__u32 flags = LANDLOCK_RESTRICT_SELF_LOG_SAME_EXEC_OFF;
	struct run_walls w;
	char held[1024];
	int abi, fd;

	parse(argc, argv);
	/* The target's environment, which this step never ran with. */
	if (o.envfd != ULONG_MAX)
		env_from_fd((int)o.envfd);

	abi = query_abi(&why_none);
	if ((unsigned long)abi > o.cap) {
		abi = (int)o.cap;
		if (!abi)
			why_none = "-A 0: as without Landlock";
	}
	/* TCP and UDP are handled only in the object form (-H, -c, -l, -C,
	 * -L). With "none" the network namespace is the isolation, and
	 * everything local in it must work: a test suite's own servers on
	 * 127.0.0.1 and ::1. UDP is required only when ports are listed:
	 * without -C or -L the object form's seccomp allowlist refuses UDP
	 * sockets outright, whatever the ABI. */
	want.handled_access_fs |= LANDLOCK_ACCESS_FS_RESOLVE_UNIX;
	want.handled_access_net = o.net ? LL_NET_TCP | LL_NET_UDP : 0;
	attr = want;
	landlock_mask_abi(abi, &attr, &flags);
	walls_wait();	/* --scan: the front end's socket scan */
	find_walls(abi, &w);
	server_procfd = take_procfd();
	guard = guard_word();
	weigh(&w, why_none, held, sizeof held);
	if (!abi)
		refuse_reopenable_fds();
	fd = ruleset(abi, &attr);
	if (fd >= 0)
		view_rules(fd, attr.handled_access_fs);

	set_view();

	drop_caps();
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die(EXIT_CONFINE, "unable to set no_new_privs");
	if (!o.userns)
		filter |= SECCOMP_DENY_USERNS;
	if (o.net)
		filter |= SECCOMP_NET_ALLOWLIST;
	/* UDP sockets only for a policy that lists UDP ports: below ABI 10,
	 * with -b, they are then unrestricted, as the warning above says. */
	if (o.net && o.udp)
		filter |= SECCOMP_ALLOW_UDP;
	/* Below ABI 6 no scope keeps signals in: the filter keeps them from
	 * the caller's process group (SCOPE_SIGNAL's other wall, rights.c). */
	if (abi < 6) {
		filter |= SECCOMP_DENY_GROUP;
		seccomp_group(getpgrp());
	}
	/* -X: traps (seccomp.h), the netns step's socket fallback too */
	if (o.explain)
		filter |= SECCOMP_EXPLAIN | (w.stand & WALL_SOCKETS ? SECCOMP_DENY_SOCKETS : 0);
	install_filter(filter | server_flag);
	if (fd >= 0 && syscall(SYS_landlock_restrict_self, fd, flags) < 0)
		die(EXIT_CONFINE, "unable to enforce the Landlock ruleset");
	if (fd >= 0)
		close(fd);
	walls_close();
	status_note("walls %s", held);
	if (o.test)
		check(abi, &attr, flags, guard, held);
	if (optind >= argc)
		return 0;
	status_exec();
	xexecvp(argv[optind], argv + optind);
}
