/* sharness-exec-limits: cap the memory, the number of processes and the CPU
 * time of PROGRAM and of everything it starts (DESIGN.md 4.4), then exec it. The
 * caps go into the cgroup(s) of -g: each a directory and the file that
 * joins it, open at the descriptors DIR:JOIN, where sharness-exec-supervise
 * put the cgroup it made for this run (or a path, by hand); this process
 * writes the caps, joins them, and closes the descriptors. Without a
 * cgroup (none at those descriptors: the walls record of -W says why) the
 * caps go on rlimits, with one warning line saying what those miss. No fork: the
 * supervisor owns the run, its cgroup, and the cleanup. Trusts nothing from
 * earlier steps but argv. Exit: 125 usage; 126 could not confine or exec;
 * 127 not found; else PROGRAM's own status. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>

#include "cgroup.h"
#include "common.h"
#include "helper.h"
#include "rights.h"
#include "statuspipe.h"

const char *progname = "sharness-exec-limits";

#define USAGE "sharness-exec-limits [-bqUt] [-E FD] [-W FD] [-g DIR:JOIN]... [-m MIB] [-p N] [-u PERCENT] [--rlimits WHY] [--] PROGRAM [ARG...]"
#define MAX_CGROUPS CG_NCTL

/* Set soft and hard limit to V, never above a hard limit already set. */
static void cap(int resource, rlim_t v, const char *name)
{
	struct rlimit rl;

	if (getrlimit(resource, &rl) < 0)
		die(EXIT_CONFINE, "unable to read %s", name);
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < v)
		v = rl.rlim_max;
	rl.rlim_cur = rl.rlim_max = v;
	if (setrlimit(resource, &rl) < 0)
		die(EXIT_CONFINE, "unable to set %s", name);
}

/* Where each cap went, for check mode (-t). */
static const char *memory_in = "none", *pids_in = "none";

/* The CPU cap (-u), which no rlimit can hold: where it went (for -t), by
 * which file, at how many microseconds per 100000; -b: best effort. */
static const char *cpu_in = "none", *cpu_by = "none";
static unsigned long cpu_quota;
static int best_effort;

/* How many CPUs this process may run on, as nproc(1) counts them. */
static long cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof set, &set) == 0)
		return CPU_COUNT(&set);
	return sysconf(_SC_NPROCESSORS_ONLN);
}

/* The cgroups of -g: each a directory open at AT, the file that joins it
 * open at JOIN, and DIR, its path, for the messages and -t. */
static int at[MAX_CGROUPS], join[MAX_CGROUPS];
static char dirs[MAX_CGROUPS][PATH_MAX], *dir[MAX_CGROUPS];

/* The CPU cap PERCENT into the first of the N (at least 1) cgroups DIR
 * that has cpu files: else refused, or under -b run uncapped; a line when
 * it is clamped, uncapped, or above what the CPUs here can use. */
static void cpu_cap(int n, unsigned long percent)
{
	char why[PATH_MAX + 256];
	long have = cpus();
	int r = 0, i;

	for (i = 0; i < n && r == 0; i++)
		if ((r = cg_cpu(at[i], dir[i], percent, best_effort, &cpu_quota, why, sizeof why)) < 0)
			diex(EXIT_CONFINE, "%s", why);
	if (r == 0 && !best_effort)
		diex(EXIT_CONFINE, "unable to cap CPU (process.max_cpu_percent %lu): no cpu "
		     "controller in %s%s", percent, dir[0], n > 1 ? " or the run's other cgroups" : "");
	if (r == 0) {
		cpu_quota = 0;
		warnx_("best effort: no cpu controller in %s%s: CPU is uncapped "
		       "(process.max_cpu_percent %lu)", dir[0],
		       n > 1 ? " or the run's other cgroups" : "", percent);
		return;
	}
	if (r == 2)
		warnx_("best effort: %s", why);
	cpu_in = dir[i - 1];
	cpu_by = cg_readat(at[i - 1], "cpu.max", why, sizeof why) == 0 ? "cpu.max" :
	         "cpu.cfs_quota_us";
	if (have > 0 && cpu_quota / 1000 > (unsigned long)have * 100)
		warnx_("process.max_cpu_percent %lu is above the %ld CPUs this process may "
		       "use (%ld%%): it caps nothing", percent, have, have * 100);
}

/* The TCP buffers' share of the memory cap MIB, in the Ith cgroup, which
 * holds the memory cap (cgrouptcp.c): a v1 kernel without the file
 * refuses, as the cap does not hold what the policy relies on, or under -b
 * runs with TCP buffers uncapped; a line either way. */
static void tcp_cap(int i, unsigned long mib, int version)
{
	char why[PATH_MAX + 256];
	int r = cg_tcp(at[i], dir[i], mib, version, why, sizeof why);

	if (r < 0)
		diex(EXIT_CONFINE, "%s", why);
	if (r == 0 && !best_effort)
		diex(EXIT_CONFINE, "unable to cap memory (max_memory_mb %lu): cgroup v1 %s has no "
		     "%s, so TCP buffers would escape the cap", mib, dir[i], CG_TCP_FILE);
	if (r == 0)
		warnx_("best effort: cgroup v1 %s has no %s: TCP buffers are not capped "
		       "(max_memory_mb %lu)", dir[i], CG_TCP_FILE, mib);
}

/* Caps in the cgroups, then join them: every one of them, or nothing runs;
 * their descriptors do not reach PROGRAM. */
static void cgroups(int n, unsigned long mib, unsigned long pids, unsigned long percent)
{
	char why[PATH_MAX + 256];
	int done = 0, before;

	/* Each cap into the first cgroup that has its files: on v1 one
	 * hierarchy has them, and the later ones are not asked. */
	for (int i = 0; i < n; i++) {
		before = done;
		if (cg_caps(at[i], dir[i], done & CG_MEMORY ? 0 : mib, done & CG_PIDS ? 0 : pids, &done,
		            why, sizeof why) < 0)
			diex(EXIT_CONFINE, "%s", why);
		if ((done & ~before) & CG_MEMORY) {
			memory_in = dir[i];
			tcp_cap(i, mib, done & CG_V1 ? 1 : 2);
		}
		if ((done & ~before) & CG_PIDS)
			pids_in = dir[i];
	}
	if (mib && !(done & CG_MEMORY))
		diex(EXIT_CONFINE, "unable to cap memory: no memory controller in %s%s%s",
		     dir[0], n > 1 ? " or " : "", n > 1 ? dir[1] : "");
	if (pids && !(done & CG_PIDS))
		diex(EXIT_CONFINE, "unable to cap processes: no pids controller in %s%s%s",
		     dir[0], n > 1 ? " or " : "", n > 1 ? dir[1] : "");
	if (percent)
		cpu_cap(n, percent);
	for (int i = 0; i < n; i++)
		if (cg_enter_fd(join[i]) < 0)
			die(EXIT_CONFINE, "unable to join cgroup %s", dir[i]);
	for (int i = 0; i < n; i++)
		if (close(at[i]) < 0 || close(join[i]) < 0)
			die(EXIT_CONFINE, "unable to close the descriptors of cgroup %s", dir[i]);
}

/* Is FD open on a cgroup file system (v1 or v2)? */
static int on_cgroupfs(int fd)
{
	struct statfs st;

	return fstatfs(fd, &st) == 0 && ((long)st.f_type == CGROUP_SUPER_MAGIC ||
	                                  (long)st.f_type == CGROUP2_SUPER_MAGIC);
}

/* -g ARG, DIR:JOIN: the two descriptors into *D and *J (refused unless
 * both are above 2 and differ); 0 for a path. */
static int fd_pair(const char *arg, int *d, int *j)
{
	unsigned long a, b = 0;
	char *end;

	if (arg[0] == '/')
		return 0;
	errno = 0;
	a = strtoul(arg, &end, 10);
	if (*end == ':' && end[1] >= '0' && end[1] <= '9')
		b = strtoul(end + 1, &end, 10);
	if (errno || *end || a < 3 || b < 3 || a > INT_MAX || b > INT_MAX || a == b)
		usage_fail(USAGE, "invalid cgroup: %s (DIR:JOIN, two descriptors above 2, or "
		           "an absolute path)", arg);
	*d = (int)a;
	*j = (int)b;
	return 1;
}

/* -g ARG into the Nth cgroup: DIR:JOIN, two descriptors; or, by hand, a
 * path to open. */
static void take_cgroup(const char *arg, int n)
{
	char link[64];
	ssize_t len;

	if (!fd_pair(arg, &at[n], &join[n])) {
		if (cg_open(arg, &at[n], &join[n]) < 0)
			die(EXIT_CONFINE, "unable to open cgroup %s", arg);
		snprintf(dirs[n], sizeof dirs[n], "%s", arg);
		dir[n] = dirs[n];
		return;
	}
	snprintf(link, sizeof link, "/proc/self/fd/%d", at[n]);
	if ((len = readlink(link, dirs[n], sizeof dirs[n] - 1)) < 0)
		snprintf(dirs[n], sizeof dirs[n], "(fd %d)", at[n]);
	else
		dirs[n][len] = '\0';
	dir[n] = dirs[n];
}

/* The cgroups of -g (N of them) that are there: supervise puts one where
 * it made one (v2: one for all, at the first -g), and notes in the walls
 * record which ("cgroup=v1", "v2") or that it made none ("cgroup=none",
 * and why). How many are open; *WHY, why none is. */
static int open_cgroups(const char **arg, int n, const char **why)
{
	const char *noted = walls_value("cgroup"); /* a static copy, as cgroup_why's */
	char kind[8];
	int have = 0;

	snprintf(kind, sizeof kind, "%s", noted ? noted : "");
	struct stat st;

	for (int i = 0; i < n; i++) {
		int d, j;

		if (fd_pair(arg[i], &d, &j) && fcntl(d, F_GETFD) < 0 && errno == EBADF)
			continue;
		take_cgroup(arg[i], have);
		if (fd_pair(arg[i], &d, &j) &&
		    (fstat(at[have], &st) < 0 || !S_ISDIR(st.st_mode) || !on_cgroupfs(at[have]) ||
		     !on_cgroupfs(join[have])))
			diex(EXIT_CONFINE, "unable to confine: -g %s is not a cgroup directory and "
			     "the file that joins it", arg[i]);
		have++;
	}
	if (!strcmp(kind, "none") && !have && !*why)
		*why = walls_value("cgroup_why");
	if (*kind && strcmp(kind, "none") && !have)
		diex(EXIT_CONFINE, "unable to confine: supervise made the run's cgroup (%s), "
		     "but none is at -g %s", kind, arg[0]);
	return have;
}

/* Check mode (-t): where each cap went, in one line; the CPU cap's words
 * only when there is one: its cgroup, the file that holds it (none: it is
 * uncapped) and the percent held. */
static void check(unsigned long mib, unsigned long pids, unsigned long percent)
{
	char cpu[PATH_MAX + 96] = "", frac[8] = "";

	if (cpu_quota % 1000)
		snprintf(frac, sizeof frac, ".%03lu", cpu_quota % 1000);
	if (percent)
		snprintf(cpu, sizeof cpu, " cpu=%s cpu_by=%s cpu_percent=%lu%s", cpu_in, cpu_by,
		         cpu_quota / 1000, frac);
	check_line("memory=%s memory_mib=%lu pids=%s pids_max=%lu%s", memory_in, mib, pids_in,
	           pids, cpu);
}

/* No cgroup: the caps as rlimits, with one short line (none under -q):
 * run --check says why there is no cgroup, sharness-exec(1) CAVEATS what
 * rlimits miss. */
static void rlimits(unsigned long mib, unsigned long pids, int quiet)
{
	if (!quiet)
		warnx_("no cgroup, so %s%s%s %s per-process rlimits, which cover less (see "
		       "sharness-exec(1) CAVEATS; SHARNESS_EXEC_QUIET_RLIMITS=1 silences this)",
		       mib ? "max_memory_mb" : "", mib && pids ? " and " : "",
		       pids ? "max_pids" : "", mib && pids ? "are" : "is");
	if (mib)
		cap(RLIMIT_AS, (rlim_t)mib << 20, memory_in = "RLIMIT_AS");
	if (pids)
		cap(RLIMIT_NPROC, (rlim_t)pids, pids_in = "RLIMIT_NPROC");
}

/* Under run --user RLIMIT_NPROC would count every process of that uid
 * across the host, a runner's other jobs too, and RLIMIT_AS no process
 * group: the caps must be a cgroup's. */
static NORETURN void refuse_rlimits(const char *why, unsigned long mib, unsigned long pids)
{
	diex(EXIT_CONFINE, "refused: no cgroup (%s) to hold %s%s%s under --user: %s",
	     why ? why : "none given", pids ? "max_pids" : "", mib && pids ? " and " : "",
	     mib ? "max_memory_mb" : "", pids ? "RLIMIT_NPROC counts every process of "
	     "the uid across the host" : "RLIMIT_AS caps each process, not the run");
}

/* -h, --help: the usage and each option, on standard output. */
static void help(void)
{
	printf("usage: %s\n"
	       "  -b         best effort: a CPU cap that cannot hold is clamped\n"
	       "             or dropped, and TCP buffers a v1 kernel cannot cap\n"
	       "             left uncapped, with a warning, instead of refused\n"
	       "  -E FD      also write warning and fatal lines to FD\n"
	       "  -g DIR:JOIN  cap the cgroup whose directory is open at descriptor\n"
	       "             DIR, join it through JOIN (its tasks or cgroup.procs,\n"
	       "             open for writing), close both (at most 3 times; a\n"
	       "             -g whose DIR is not open is skipped); by hand also\n"
	       "             -g PATH, a cgroup directory\n"
	       "  -m MIB     cap memory at MIB MiB (1-1048576)\n"
	       "  -p N       cap processes and threads at N (1-4194304)\n"
	       "  -u PERCENT cap CPU time at PERCENT %% of one CPU (1-409600)\n"
	       "  -q         no warning line where the caps are rlimits\n"
	       "  --rlimits WHY\n"
	       "             no cgroup, because WHY: use rlimits\n"
	       "  -W FD      the walls record: supervise's note of the run's\n"
	       "             cgroup, or why there is none\n"
	       "  -t         check mode: also print one line of where the caps\n"
	       "             went; without PROGRAM, exit 0 after it\n"
	       "  -U         PROGRAM will run as another user (run --user):\n"
	       "             caps on rlimits are refused\n", USAGE);
}

/* --rlimits WHY: -r is a read path in the other steps (DESIGN.md 1). */
static const struct option longopts[] = {
	{ "help", no_argument, NULL, 'h' }, { "rlimits", required_argument, NULL, 'r' },
	{ NULL, 0, NULL, 0 }
};

int main(int argc, char **argv)
{
	unsigned long mib = 0, pids = 0, percent = 0;
	const char *why = NULL, *garg[MAX_CGROUPS];
	int ngarg = 0, ndir = 0, c, test = 0, other_user = 0, quiet = 0;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:bE:g:hm:p:qtu:UW:", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			best_effort = 1;
			break;
		case 'E':
			status_fd(optarg, USAGE);
			break;
		case 'g':
			if (ngarg == MAX_CGROUPS)
				usage_fail(USAGE, "too many cgroups: -g at most %d times", MAX_CGROUPS);
			garg[ngarg++] = optarg;
			fd_pair(optarg, &ndir, &ndir); /* checked now; ndir is set below */
			break;
		case 'W':
			walls_fd(optarg, USAGE);
			break;
		case 'h':
			help();
			return 0;
		case 'q':
			quiet = 1;
			break;
		case 't':
			test = 1;
			break;
		case 'U':
			other_user = 1;
			break;
		case 'm':
			if (!parse_ulong(optarg, 1, 1048576, &mib))
				usage_fail(USAGE, "invalid memory cap: %s (MiB, 1-1048576)", optarg);
			break;
		case 'p':
			if (!parse_ulong(optarg, 1, 4194304, &pids))
				usage_fail(USAGE, "invalid process cap: %s (1-4194304)", optarg);
			break;
		case 'r':
			why = optarg;
			break;
		case 'u':
			if (!parse_ulong(optarg, 1, 409600, &percent))
				usage_fail(USAGE, "invalid CPU cap: %s (percent of one CPU, 1-409600)",
				           optarg);
			break;
		default:
			usage_option(USAGE, c, argv[optind - 1]);
		}
	}
	if (optind >= argc && !test)
		usage_fail(USAGE, "no program given");
	if (!mib && !pids && !percent)
		usage_fail(USAGE, "nothing to cap: give -m, -p, -u or more");
	if (ngarg && why)
		usage_fail(USAGE, "-g and --rlimits exclude each other");
	ndir = open_cgroups(garg, ngarg, &why);

	if (ndir) {
		cgroups(ndir, mib, pids, percent);
	} else if (other_user && (mib || pids)) {
		refuse_rlimits(why, mib, pids);
	} else {
		if (percent && !best_effort)
			diex(EXIT_CONFINE, "unable to cap CPU (process.max_cpu_percent %lu): no "
			     "cgroup (%s), and no rlimit can hold it", percent, why ? why : "none given");
		if (percent)
			warnx_("best effort: no cgroup (%s): CPU is uncapped (process.max_cpu_percent "
			       "%lu), no rlimit can hold it", why ? why : "none given", percent);
	}
	if (!ndir && (mib || pids))
		rlimits(mib, pids, quiet);
	if (test)
		check(mib, pids, percent);
	if (optind >= argc)
		return 0;
	xexecvp(argv[optind], argv + optind);
}
