/* sharness-exec run: the verify-hash step. Reads the policy once, hashes
 * it and compares with the pinned hash (refuse: 125, nothing runs), checks
 * it, builds the target's environment (DESIGN.md 2.2), compiles the policy
 * into the argv of only the steps it needs and execs the first of them.
 * Trusts nothing from its caller: inherited fds above 2 are closed first. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "common.h"
#include "egress/egress.h"
#include "frontend.h"
#include "near.h"
#include "runenv.h"
#include "runreport.h"
#include "runsession.h"
#include "runuser.h"
#include "sockscan.h"
#include "runvec.h"
#include "runpaths.h"
#include "verify.h"
#include "trust.h"

/* The target's environment, NAME=VALUE and a NUL each, in a sealed memfd
 * whose number the landlock step gets in argv (-e): only the final exec
 * uses it, the helpers run with an empty environment (a loader variable
 * cannot reach them), and /proc/PID/cmdline, which every user may read,
 * shows a number, never a secret. */
static int env_fd = -1, walls_fd = -1, scan_fd = -1; /* scan: sockscan.h */

/* FD, a new memfd (or -1), moved above 0-2, which the caller may have left
 * closed: the target would find it there as its stdin, stdout or stderr. */
static int above2(int fd, const char *what)
{
	int low;

	if (fd >= 0 && fd < 3) {
		low = fd;
		fd = fcntl(low, F_DUPFD_CLOEXEC, 3);
		close(low);
	}
	if (fd < 0)
		die(EXIT_REFUSED, "unable to create a memfd for %s", what);
	return fd;
}

/* One write of the whole environment (each variable's NUL with it). */
static void seal_env(const struct vec *env)
{
	size_t len = 0;
	char *all, *at;

	for (size_t i = 0; i < env->n; i++)
		len += strlen(env->v[i]) + 1;
	if (!(all = at = malloc(len + 1)))
		diex(EXIT_REFUSED, "out of memory");
	for (size_t i = 0; i < env->n; i++)
		at = stpcpy(at, env->v[i]) + 1;
	env_fd = above2(sealed_memfd("sharness-exec-env", MFD_CLOEXEC, all, len),
	                "the environment");
	free(all);
}

/* Pinned, the hash guards the content, and signed (SIGNED: keys were
 * given, and sign_run_check refuses unless one verifies) the signature
 * does; otherwise the file must be one that nobody but root or the caller
 * could have changed (DESIGN.md 4.1). */
static int load_run_policy(const char *path, struct loaded *l, const unsigned char *want,
                           int signed_)
{
	int fd, ok;

	if (want || signed_)
		return load_policy(-1, path, l, want);
	fd = open_trusted(path, "policy file");
	ok = load_policy(fd, path, l, NULL);
	if (fd > 0)
		close(fd);
	return ok;
}

/* --- the chain (DESIGN.md 1: netns, supervise, [limits], view, [listen], landlock) --- */

/* Where supervise puts the run's cgroup for the limits step: the first
 * descriptor number above every one the chain is passed (the others are
 * close-on-exec), so that none is in the way; the same in a dry run,
 * which makes the same ones. */
static int cgroup_fd;

/* --check: each step also says in one line what it uses (its -t), and the
 * landlock step, with no COMMAND, ends the run inside its domain. */
static int check_mode;

static void helper(struct vec *chain, const char *name)
{
	push(chain, "%s/%s", helperdir(), name);
	if (access(chain->v[chain->n - 1], X_OK) < 0)
		helper_fail("find helper", chain->v[chain->n - 1]);
	if (check_mode)
		push(chain, "-t");
	report_push(chain); /* the status pipe, under --report */
}

/* The test build's knob (tests/step/walls.bats): SHARNESS_EXEC_TEST_ABI=N
 * has every step that weighs the Landlock ABI take it as N (-A N), so
 * that ABI 0 to 6 run through the whole chain on a newer kernel. The
 * shipped front end has no such knob. */
static void push_test_abi(struct vec *chain)
{
#ifdef SHARNESS_TEST_HOOKS
	const char *abi = getenv("SHARNESS_EXEC_TEST_ABI");

	if (abi && *abi)
		push_opt(chain, "-A", "%s", abi);
#else
	(void)chain;
#endif
}

static void push_paths(struct vec *chain, const char *opt, const struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		push_opt(chain, opt, "%s", l->v[i]);
}

static void push_ports(struct vec *chain, const char *opt, const unsigned *ports, size_t n)
{
	for (size_t i = 0; i < n; i++)
		push_opt(chain, opt, "%u", ports[i]);
}

/* run --user: the landlock step drops to these numbers. */
static void push_user(struct vec *chain)
{
	const struct run_user *u = run_user();

	if (u)
		push_opt(chain, "--user", "%s", u->ids);
	if (u && u->groups)
		push_opt(chain, "-G", "%s", u->groups);
}

/* The test build's ABI knob, and -b under --best-effort. */
static void push_knobs(struct vec *chain, int best_effort)
{
	push_test_abi(chain);
	if (best_effort)
		push(chain, "-b");
}

/* A step that stands a wall: its walls record (-W), and the knobs. */
static void walled_step(struct vec *chain, const char *name, int best_effort)
{
	helper(chain, name);
	push_opt(chain, "-W", "%d", walls_fd);
	push_knobs(chain, best_effort);
}

/* The limits step (DESIGN.md 4.4), where the policy has a cap: a -g for
 * each controller a cap needs (memory, pids, cpu, the order of the v1
 * hierarchies), two descriptors each, which supervise fills with the
 * cgroup it makes from these very words (its walls note says why not). */
static void limits_step(struct vec *chain, const struct policy *p, int best_effort)
{
	unsigned long caps[] = { p->max_memory_mb, p->max_pids, p->max_cpu_percent };

	helper(chain, "sharness-exec-limits");
	push_opt(chain, "-W", "%d", walls_fd);
	for (int i = 0, fd = cgroup_fd; i < 3; i++)
		if (caps[i]) {
			push_opt(chain, "-g", "%d:%d", fd, fd + 1);
			fd += 2;
		}
	if (run_user())
		push(chain, "-U");
	if (quiet_rlimits())
		push(chain, "-q"); /* no line where the caps are rlimits */
	if (p->max_memory_mb)
		push_opt(chain, "-m", "%lu", p->max_memory_mb);
	if (p->max_pids)
		push_opt(chain, "-p", "%lu", p->max_pids);
	if (best_effort && (p->max_cpu_percent || p->max_memory_mb))
		push(chain, "-b"); /* a CPU cap clamped or dropped, TCP uncapped */
	if (p->max_cpu_percent)
		push_opt(chain, "-u", "%lu", p->max_cpu_percent);
	push(chain, "--");
}

/* --explain-as ROLE: --explain, each of the explain step's lines naming
 * ROLE (its --as); launch --explain runs each role with it. */
static const char *explain_as;

/* run --explain's step (DESIGN.md 4.7), right after supervise: the
 * observer, and what it is to know of the policy. */
static void explain_step(struct vec *chain, const struct policy *p)
{
	helper(chain, "sharness-exec-explain");
	report_push_explain(chain); /* -D: the report's denials */
	if (explain_as)
		push_opt(chain, "--as", "%s", explain_as);
	if (!p->net_none || session_in()) /* the caller's network */
		push(chain, "-N");
	if (p->hosts.n) /* no route but the egress step's proxy */
		push_opt(chain, "--proxy", "%d", EGRESS_PORT);
	push_paths(chain, "-r", &p->read_resolved);
	push_paths(chain, "-x", &p->exec_resolved);
	push_paths(chain, "-w", &p->write_resolved);
	push_paths(chain, "-s", &p->sockets_resolved);
	push(chain, "--");
}

static int run_verbose;	/* --verbose */

/* The view (DESIGN.md 4.5): a mount namespace holding only the policy's
 * paths, which it opens following no symlink, and recreates the links
 * that led to them. */
static void push_view(struct vec *chain, const struct policy *p, int best_effort)
{
	walled_step(chain, "sharness-exec-view", best_effort);
	if (run_verbose)
		push(chain, "-v"); /* each write path: what the walk looked at, or why not */
	push_paths(chain, "-r", &p->read_resolved);
	push_paths(chain, "-x", &p->exec_resolved);
	push_paths(chain, "-w", &p->write_resolved);
	push_paths(chain, "-P", &p->protected_resolved);
	push_paths(chain, "-T", &p->tmpfs);
	push_sockets(chain, p, 1);
	if (p->write_vcs)
		push(chain, "-V"); /* VCS metadata beneath write paths stays writable */
	if (p->tmpfs.n && p->max_memory_mb)
		push_opt(chain, "-M", "%lu", p->max_memory_mb > 1 ? p->max_memory_mb / 2 : 1);
	push_links(chain, "files.read", &p->read, &p->read_resolved);
	push_links(chain, "files.exec", &p->exec, &p->exec_resolved);
	push_links(chain, "files.write", &p->write, &p->write_resolved);
	push_links(chain, "files.protected", &p->protected, &p->protected_resolved);
	push_links(chain, "files.sockets", &p->sockets, &p->sockets_resolved);
	session_push_view(chain); /* --passwd-fd, --group-fd */
	push(chain, "--");
}

/* The egress step (DESIGN.md 4.9), where the policy names hosts: it
 * stays in the caller's network namespace, makes the run's, and serves
 * the listener it makes there (EGRESS_PORT) to the hosts listed. */
static void egress_step(struct vec *chain, const struct policy *p, int best_effort)
{
	if (session_in())
		diex(EXIT_REFUSED, "refused: --in-session: a component of a launch session "
		     "keeps the session's network; its policy cannot name network.hosts");
	helper(chain, "sharness-exec-egress");
	push_opt(chain, "-W", "%d", walls_fd);
	if (best_effort)
		push(chain, "-b");
	push_opt(chain, "-l", "%d", EGRESS_PORT);
	if (run_explain)
		push(chain, "-X"); /* each refused host, in explain's words */
	report_push_egress(chain); /* --to-report: the report's hosts */
	for (size_t i = 0; i < p->hosts.n; i++)
		push_opt(chain, "-a", "%s", p->hosts.v[i]);
	push(chain, "--");
}

/* The object form's listen step (DESIGN.md 4.6), right before landlock. */
static void listen_step(struct vec *chain, int best_effort)
{
	helper(chain, "sharness-exec-listen");
	push_opt(chain, "-W", "%d", walls_fd);
	if (best_effort)
		push(chain, "-b");
	push(chain, "--");
}

/* Each step's words end with "--", which none of its option arguments can
 * be (paths are absolute, the rest are numbers); the target's words follow. */
static void build_chain(struct vec *chain, const struct policy *p, int best_effort,
                        char **target)
{
	/* In every chain: with "none" a network namespace of its own, with
	 * the object form (-H) the host's network, under --in-session (-I)
	 * the caller's, a session's; an IPC namespace and a new session
	 * keyring either way (DESIGN.md 4.2). */
	helper(chain, "sharness-exec-netns");
	push_opt(chain, "-W", "%d", walls_fd);
	if (run_explain)
		push(chain, "-X"); /* the fallback's socket refusals, reported */
	if (session_in()) {
		push(chain, "-I");
		push_knobs(chain, best_effort); /* Landlock's scopes: ABI 6 */
	} else if (!p->net_none || p->hosts.n) {
		push(chain, "-H"); /* with hosts, the egress step makes the namespace */
	}
	push(chain, "--");
	if (p->hosts.n)
		egress_step(chain, p, best_effort);
	/* every chain: the pid namespace, and the cgroup the caps go in,
	 * which supervise reads from the limits step's words */
	walled_step(chain, "sharness-exec-supervise", best_effort);
	report_push_supervise(chain);
	push_timeout(chain);
	push(chain, "--");
	if (run_explain)
		explain_step(chain, p);
	if (p->max_memory_mb || p->max_pids || p->max_cpu_percent)
		limits_step(chain, p, best_effort);
	push_view(chain, p, best_effort);
	if (!p->net_none)
		listen_step(chain, best_effort);
	helper(chain, "sharness-exec-landlock");
	push_opt(chain, "-e", "%d", env_fd);
	push_opt(chain, "-W", "%d", walls_fd);
	if (scan_fd >= 0)
		push_opt(chain, "--scan", "%d", scan_fd);
	push_user(chain);
	push_knobs(chain, best_effort);
	if (!p->net_none)
		push(chain, "-H");
	if (p->user_namespaces)
		push(chain, "--userns");
	if (run_explain)
		push(chain, "-X"); /* the TRACE rules */
	push_paths(chain, "-r", &p->read_resolved);
	push_paths(chain, "-x", &p->exec_resolved);
	push_paths(chain, "-w", &p->write_resolved);
	push_sockets(chain, p, 0);
	push_ports(chain, "-c", p->connect_ports, p->nconnect);
	push_ports(chain, "-l", p->bind_ports, p->nbind);
	push_ports(chain, "-C", p->connect_udp_ports, p->nconnect_udp);
	push_ports(chain, "-L", p->bind_udp_ports, p->nbind_udp);
	session_push_landlock(chain);
	/* What only this run's view can make safe: the landlock step looks
	 * for its mark (DESIGN.md 4.5). */
	push(chain, "-R");
	push_paths(chain, "-T", &p->tmpfs);
	push(chain, "--");
	for (; *target; target++)
		push(chain, "%s", *target);
}

/* One word, quoted for a POSIX shell when it needs to be, so the dry-run
 * view is unambiguous and can be pasted. */
static void put_word(const char *w, FILE *f)
{
	if (*w && !w[strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	                      "0123456789_-+=/.,:@%")]) {
		fputs(w, f);
		return;
	}
	fputc('\'', f);
	for (; *w; w++)
		*w == '\'' ? fputs("'\\''", f) : fputc(*w, f);
	fputc('\'', f);
}

/* Each step on a line of its own, the NTARGET words of the target last:
 * exactly the words each step is exec'd with. */
static void print_chain(const struct vec *chain, size_t ntarget, FILE *f)
{
	for (size_t i = 0; i < chain->n; i++) {
		put_word(chain->v[i], f);
		if (i < chain->n - ntarget && !strcmp(chain->v[i], "--"))
			fputc('\n', f);
		else if (i + 1 < chain->n)
			fputc(' ', f);
	}
	fputc('\n', f);
}

/* The helpers get no environment of their own (DESIGN.md 1); the test
 * build lets the sanitizers' options through, so CI's sanitizer runs of
 * the helpers stay strict. */
static NORETURN void exec_chain(struct vec *chain)
{
	static char *none[] = { NULL };
	struct vec henv = { 0 };

#ifdef SHARNESS_TEST_HOOKS
	env_put(&henv, "UBSAN_OPTIONS", getenv("UBSAN_OPTIONS"));
	env_put(&henv, "ASAN_OPTIONS", getenv("ASAN_OPTIONS"));
#endif
	if (fcntl(env_fd, F_SETFD, 0) < 0 || fcntl(walls_fd, F_SETFD, 0) < 0 ||
	    report_pass() < 0 || session_pass() < 0)
		die(EXIT_REFUSED, "unable to pass on the environment and walls memfds");
	execve(chain->v[0], chain->v, henv.n ? henv.v : none);
	die(EXIT_REFUSED, "unable to execute helper %s", qn(chain->v[0]));
}

/* run's options (RUN_USAGE). */
struct run_opts {
	const char *policy, *expect, *signature, *expect_id, *user, *report;
	char **trust;
	size_t ntrust;
	int best_effort, dry_run, verbose, user_groups;
};

static void parse_run(int argc, char **argv, struct run_opts *o)
{
	static const struct option longopts[] = {
		RUN_LONGOPTS,
		{ "dry-run", no_argument, NULL, 'n' },
		{ "explain", no_argument, NULL, 'X' },	/* long only */
		{ "explain-as", required_argument, NULL, 'A' },	/* long only */
		{ "report", required_argument, NULL, 'r' },
		SESSION_LONGOPTS,	/* long only */
		{ "launch-env", no_argument, NULL, 'L' },	/* long only */
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:p:H:bnvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': o->policy = optarg; break;
		case 'H': o->expect = optarg; break;
		case 'b': o->best_effort = 1; break;
		case 'n': o->dry_run = 1; break;
		case 'v': o->verbose = 1; break;
		case 'h': exit(cmd_help("run"));
		case 'K':
			if (!(o->trust = reallocarray(o->trust, o->ntrust + 1, sizeof *o->trust)))
				diex(EXIT_REFUSED, "out of memory");
			o->trust[o->ntrust++] = optarg;
			break;
		case 'S': o->signature = optarg; break;
		case 'I': o->expect_id = optarg; break;
		case 'C': check_mode = 1; break;
		case 't': run_timeout_ms = duration_ms("--timeout", optarg); break;
		case 'k': run_kill_after_ms = duration_ms("--kill-after", optarg); break;
		case 'u': o->user = optarg; break;
		case 'g': o->user_groups = 1; break;
		case 'A': /* a word of the chain's: never "--" (build_chain) */
			if (!*(explain_as = optarg) || *optarg == '-')
				usage_fail(RUN_USAGE, "--explain-as needs a ROLE, not %s", q(optarg));
			__attribute__((fallthrough));
		case 'X': run_explain = 1; break;
		case 'r': o->report = optarg; break;
		case SESSION_OPT_IN: case SESSION_OPT_PASSWD: case SESSION_OPT_GROUP:
		case SESSION_OPT_HOSTS: case SESSION_OPT_STATE: case SESSION_OPT_SHARE:
		case SESSION_OPT_SHARE_READ:
			session_option(c, optarg, RUN_USAGE);
			break;
		case 'L': run_launch_env = 1; break;
		case ':':
			/* musl leaves optind past argc for a short one at the end. */
			usage_fail(RUN_USAGE, "option %s needs a value",
			           qn(argv[optind > argc ? argc - 1 : optind - 1]));
		default:
			unknown_option(RUN_USAGE, argv[optind - 1], longopts);
		}
	}
	if (!o->policy)
		usage_fail(RUN_USAGE, "run needs --policy FILE");
	if (optind >= argc && !check_mode)
		usage_fail(RUN_USAGE, "run needs a COMMAND after the options");
	if (o->signature && !o->ntrust)
		usage_fail(RUN_USAGE, "--signature needs --trust-key");
	if (run_kill_after_ms && !run_timeout_ms)
		usage_fail(RUN_USAGE, "--kill-after needs --timeout");
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o = { 0 };
	const char *key;
	unsigned char want[HASH_LEN];
	struct vec env = { 0 }, chain = { 0 };
	struct loaded l;

	/* A descriptor leaked by the caller could carry access past the
	 * policy (--report fd:N's is the supervisor's alone); no step after
	 * this one may gain privileges. */
	parse_run(argc, argv, &o);
	report_start(o.report, o.dry_run);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die(EXIT_CONFINE, "unable to set no_new_privs");
	session_check();
	run_user_resolve(o.user, o.user_groups, RUN_USAGE);
	if (o.expect && !hash_parse(o.expect, want))
		diex(EXIT_REFUSED, "--expect-hash must be sha256: and 64 hex digits, not %s",
		     q(o.expect));

	if (!load_run_policy(o.policy, &l, o.expect ? want : NULL, o.ntrust > 0)) {
		free(o.trust);
		report_refused(EXIT_REFUSED);
		return EXIT_REFUSED;
	}
	report_policy(l.pol.id, l.hash);
	key = sign_run_check(&l, o.policy, o.signature, o.trust, o.ntrust, o.expect_id);
	report_chain(key, l.pol.hosts.n > 0);

	session_state(&l.pol);	/* --state-dir: after the hash, a rule of the run's */
	resolve_rules(&l.pol, o.verbose || o.dry_run);
	build_env(&env, &l, key, o.dry_run);
	report_env(&env);
	/* --dry-run prints what would run, whatever it is; --explain (and
	 * learn, which runs under it) names a hidden exec when the run ends */
	if (!o.dry_run && !run_explain)
		check_program(argv[optind], &l.pol, env_get(&env, "PATH"));
	seal_env(&env);
	/* The walls record (rights.h): each step notes there what it stood. */
	walls_fd = above2(memfd_create("sharness-exec-walls", MFD_CLOEXEC),
	                  "the walls record");
	scan_fd = socket_scan(&l.pol, walls_fd, o.dry_run);
	run_verbose = o.verbose;
	{
		int passed[] = { env_fd, walls_fd, scan_fd, report_top(), session_top() };

		cgroup_fd = 3;
		for (size_t i = 0; i < sizeof passed / sizeof *passed; i++)
			if (passed[i] >= cgroup_fd)
				cgroup_fd = passed[i] + 1;
	}
	build_chain(&chain, &l.pol, o.best_effort, argv + optind);

	if (o.verbose) {
		fprintf(stderr, "%s: policy %s %s%s%s%s%s\n", progname, q(l.pol.id), l.hash,
		        o.expect ? " (pinned)" : key ? "" : " (not pinned)",
		        key ? " (signed by " : "", key ? key : "", key ? ")" : "");
		print_chain(&chain, (size_t)(argc - optind), stderr);
		print_forks(&chain, (size_t)(argc - optind), stderr);
	}
	if (o.dry_run) {
		int rc;
		print_chain(&chain, (size_t)(argc - optind), stdout);
		rc = fflush(stdout) ? EXIT_REFUSED : 0;
		vfree(&env);
		vfree(&chain);
		unload_policy(&l);
		free(o.trust);
		return rc;
	}
	fflush(stderr);
	exec_chain(&chain);
}
