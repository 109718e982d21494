/* sharness-exec run: the verify-hash step. Reads the policy once, hashes
 * it and compares with the pinned hash (refuse: 125, nothing runs), checks
 * it, builds the target's environment (DESIGN.md 2.2), compiles the policy
 * into the argv of only the steps it needs and execs the first of them.
 * Trusts nothing from its caller: inherited fds above 2 are closed first. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "frontend.h"
#include "sign.h"
#include "trust.h"

/* A growable NULL-terminated vector of strings. */
struct vec {
	char **v;
	size_t n, cap;
};

static void vpush(struct vec *a, const char *s)
{
	if (a->n + 2 > a->cap) {
		a->cap = a->cap ? 2 * a->cap : 32;
		a->v = reallocarray(a->v, a->cap, sizeof *a->v);
		if (!a->v)
			diex(EXIT_REFUSED, "out of memory");
	}
	a->v[a->n] = strdup(s);
	if (!a->v[a->n])
		diex(EXIT_REFUSED, "out of memory");
	a->v[++a->n] = NULL;
}

static void vfree(struct vec *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	memset(a, 0, sizeof *a);
}

static void vpushf(struct vec *a, const char *fmt, ...) PRINTF(2, 3);
static void vpushf(struct vec *a, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		diex(EXIT_REFUSED, "out of memory");
	va_end(ap);
	vpush(a, s);
	free(s);
}

/* --- the environment (DESIGN.md 2.2) --- */

static const char *const default_env[] = {
	"PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ", "TERM",
};

static const char *const private_dirs[][2] = {
	{ "HOME", "home" }, { "TMPDIR", "tmp" }, { "XDG_CONFIG_HOME", "config" },
	{ "XDG_CACHE_HOME", "cache" }, { "XDG_DATA_HOME", "data" },
	{ "XDG_STATE_HOME", "state" },
};

/* Put NAME=VALUE into ENV, replacing an earlier NAME. */
static void env_put(struct vec *env, const char *name, const char *value)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < env->n; i++)
		if (!strncmp(env->v[i], name, len) && env->v[i][len] == '=') {
			free(env->v[i]);
			if (asprintf(&env->v[i], "%s=%s", name, value) < 0)
				diex(EXIT_REFUSED, "out of memory");
			return;
		}
	vpushf(env, "%s=%s", name, value);
}

static void env_pass(struct vec *env, const char *name)
{
	const char *v = getenv(name);

	if (v)
		env_put(env, name, v);
}

static void build_env(struct vec *env, const struct loaded *l, int dry_run)
{
	const struct policy *p = &l->pol;

	for (size_t i = 0; i < sizeof default_env / sizeof *default_env; i++)
		env_pass(env, default_env[i]);
	for (size_t i = 0; i < p->env_inherit.n; i++)
		env_pass(env, p->env_inherit.v[i]);
	if (p->env_private) {
		const char *subs[sizeof private_dirs / sizeof *private_dirs];
		for (size_t i = 0; i < sizeof private_dirs / sizeof *private_dirs; i++)
			subs[i] = private_dirs[i][1];
		make_private(p->env_private, subs, sizeof subs / sizeof *subs, !dry_run);
		for (size_t i = 0; i < sizeof private_dirs / sizeof *private_dirs; i++) {
			char *dir;
			if (asprintf(&dir, "%s/%s", strcmp(p->env_private, "/") ?
			             p->env_private : "", private_dirs[i][1]) < 0)
				diex(EXIT_REFUSED, "out of memory");
			env_put(env, private_dirs[i][0], dir);
			free(dir);
		}
	} else {
		env_pass(env, "HOME");
		env_pass(env, "USER");
	}
	for (size_t i = 0; i < p->env_set_names.n; i++)
		env_put(env, p->env_set_names.v[i], p->env_set_values.v[i]);
	env_put(env, "SHARNESS_AI_POLICY_HASH", l->hash);
	env_put(env, "SHARNESS_AI_POLICY_ID", p->id);
}

/* The target's environment, NAME=VALUE and a NUL each, in a sealed memfd
 * whose number the landlock step gets in argv (-e): only the final exec
 * uses it, the helpers run with an empty environment (a loader variable
 * cannot reach them), and /proc/PID/cmdline, which every user may read,
 * shows a number, never a secret. */
static int env_fd = -1;

static void seal_env(const struct vec *env)
{
	int fd = memfd_create("sharness-exec-env", MFD_CLOEXEC | MFD_ALLOW_SEALING), low;

	if (fd < 0)
		die(EXIT_REFUSED, "unable to create a memfd for the environment");
	/* Not on 0-2, which the caller may have left closed: the target
	 * would find it there as its stdin, stdout or stderr. */
	if (fd < 3) {
		low = fd;
		if ((fd = fcntl(low, F_DUPFD_CLOEXEC, 3)) < 0)
			die(EXIT_REFUSED, "unable to create a memfd for the environment");
		close(low);
	}
	for (size_t i = 0; i < env->n; i++)
		if (write_all(fd, env->v[i], strlen(env->v[i]) + 1) < 0)
			die(EXIT_REFUSED, "unable to write the environment memfd");
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE |
	          F_SEAL_SEAL) < 0)
		die(EXIT_REFUSED, "unable to seal the environment memfd");
	env_fd = fd;
}

static void push_env_fd(struct vec *chain)
{
	vpush(chain, "-e");
	vpushf(chain, "%d", env_fd);
}

/* --- rule paths: resolved here, before any namespace exists, so the owner
 * of a symlink reads true; the helpers then open the resolved paths without
 * following symlinks (DESIGN.md 2) --- */

static void resolve_list(const char *key, const struct strlist *in,
                         struct strlist *out, int show)
{
	char r[PATH_MAX], why[2 * QUOTED_MAX + 64];

	out->v = calloc(in->n ? in->n : 1, sizeof *out->v);
	if (!out->v)
		diex(EXIT_REFUSED, "out of memory");
	for (size_t i = 0; i < in->n; i++) {
		if (resolve_rule(in->v[i], r, why, sizeof why) < 0)
			die_hint(EXIT_REFUSED, 0, "a rule path may pass through a symlink "
			         "only when root or the caller owns it",
			         "refused: %s[%zu] %s: %s", key, i, q(in->v[i]), why);
		if (!(out->v[i] = strdup(r)))
			diex(EXIT_REFUSED, "out of memory");
		out->n++;
		if (show && strcmp(r, in->v[i]))
			fprintf(stderr, "%s: %s[%zu]: %s resolves to %s\n", progname, key, i,
			        q(in->v[i]), q(r));
	}
}

static void resolve_rules(struct policy *p, int show)
{
	resolve_list("files.read", &p->read, &p->read_resolved, show);
	resolve_list("files.exec", &p->exec, &p->exec_resolved, show);
	resolve_list("files.write", &p->write, &p->write_resolved, show);
	resolve_list("files.protected", &p->protected, &p->protected_resolved, show);
	/* check has seen each beneath a write path; a link may lead out. */
	for (size_t i = 0; i < p->protected.n; i++) {
		size_t w = 0;
		while (w < p->write.n && !path_beneath(p->protected_resolved.v[i],
		                                         p->write_resolved.v[w]))
			w++;
		if (w == p->write.n)
			diex(EXIT_REFUSED, "refused: files.protected[%zu] %s resolves to %s, "
			     "which lies beneath no files.write path", i,
			     q(p->protected.v[i]), q(p->protected_resolved.v[i]));
	}
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

/* --- the chain (DESIGN.md 1: netns -> supervise -> limits -> view -> landlock -> target) --- */

/* --check: each step also says in one line what it uses (its -t), and the
 * landlock step, with no COMMAND, ends the run inside its domain. */
static int check_mode;

static void helper(struct vec *chain, const char *name)
{
	char *path;

	if (asprintf(&path, "%s/%s", HELPERDIR, name) < 0)
		diex(EXIT_REFUSED, "out of memory");
	if (access(path, X_OK) < 0)
		die_hint(EXIT_REFUSED, errno, "reinstall sharness-exec: its helpers live in " HELPERDIR,
		         "unable to find helper %s", path);
	vpush(chain, path);
	free(path);
	if (check_mode)
		vpush(chain, "-t");
}

#define MAX_STEPS 6
static size_t step_start[MAX_STEPS + 1], nsteps;

static void push_paths(struct vec *chain, const char *opt, const struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		vpush(chain, opt);
		vpush(chain, l->v[i]);
	}
}

/* -s ORIG=RESOLVED for each rule path that went through a symlink. The
 * view splits at the first '=': a name holding one cannot be said, and
 * only the link is left out (its target is bound all the same). */
static void push_links(struct vec *chain, const char *key, const struct strlist *orig,
                       const struct strlist *res)
{
	for (size_t i = 0; i < orig->n; i++) {
		if (!strcmp(orig->v[i], res->v[i]))
			continue;
		if (strchr(orig->v[i], '=')) {
			warnx_("%s[%zu] %s: a name with '=' is not recreated as a "
			       "symlink in the view; %s is", key, i, q(orig->v[i]),
			       q(res->v[i]));
			continue;
		}
		vpush(chain, "-s");
		vpushf(chain, "%s=%s", orig->v[i], res->v[i]);
	}
}

static void push_ports(struct vec *chain, const char *opt, const unsigned *ports, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		vpush(chain, opt);
		vpushf(chain, "%u", ports[i]);
	}
}

/* The view (DESIGN.md 4.5): a mount namespace holding only the policy's
 * paths, in every chain, just before landlock. It gets the resolved paths,
 * which it opens following no symlink, and recreates the links. */
static void view_step(struct vec *chain, const struct policy *p, int best_effort)
{
	step_start[nsteps++] = chain->n;
	helper(chain, "sharness-exec-view");
	if (best_effort)
		vpush(chain, "-b");
	push_paths(chain, "-r", &p->read_resolved);
	push_paths(chain, "-x", &p->exec_resolved);
	push_paths(chain, "-w", &p->write_resolved);
	push_paths(chain, "-p", &p->protected_resolved);
	push_links(chain, "files.read", &p->read, &p->read_resolved);
	push_links(chain, "files.exec", &p->exec, &p->exec_resolved);
	push_links(chain, "files.write", &p->write, &p->write_resolved);
	push_links(chain, "files.protected", &p->protected, &p->protected_resolved);
	vpush(chain, "--");
}

static void build_chain(struct vec *chain, const struct policy *p, int best_effort,
                        char **target)
{
	/* In every chain: with "none" a network namespace of its own, with
	 * the object form (-H) the host's network; an IPC namespace and a new
	 * session keyring either way (DESIGN.md 4.2). */
	step_start[nsteps++] = chain->n;
	helper(chain, "sharness-exec-netns");
	if (!p->net_none)
		vpush(chain, "-H");
	vpush(chain, "--");
	/* every chain: the pid namespace, and the cgroup the caps go in */
	step_start[nsteps++] = chain->n;
	helper(chain, "sharness-exec-supervise");
	if (best_effort)
		vpush(chain, "-b");
	if (p->max_memory_mb) {
		vpush(chain, "-c");
		vpush(chain, "memory");
	}
	if (p->max_pids) {
		vpush(chain, "-c");
		vpush(chain, "pids");
	}
	vpush(chain, "--");
	if (p->max_memory_mb || p->max_pids) {
		step_start[nsteps++] = chain->n;
		helper(chain, "sharness-exec-limits");
		if (p->max_memory_mb) {
			vpush(chain, "-m");
			vpushf(chain, "%lu", p->max_memory_mb);
		}
		if (p->max_pids) {
			vpush(chain, "-p");
			vpushf(chain, "%lu", p->max_pids);
		}
		vpush(chain, "--");
	}
	view_step(chain, p, best_effort);
	step_start[nsteps++] = chain->n;
	helper(chain, "sharness-exec-landlock");
	push_env_fd(chain);
	if (best_effort)
		vpush(chain, "-b");
	if (!p->net_none)
		vpush(chain, "-H");
	if (p->user_namespaces)
		vpush(chain, "-U");
	push_paths(chain, "-r", &p->read_resolved);
	push_paths(chain, "-x", &p->exec_resolved);
	push_paths(chain, "-w", &p->write_resolved);
	push_ports(chain, "-c", p->connect_ports, p->nconnect);
	push_ports(chain, "-l", p->bind_ports, p->nbind);
	push_ports(chain, "-C", p->connect_udp_ports, p->nconnect_udp);
	push_ports(chain, "-L", p->bind_udp_ports, p->nbind_udp);
	vpush(chain, "--");
	step_start[nsteps++] = chain->n;
	for (; *target; target++)
		vpush(chain, *target);
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
	for (; *w; w++) {
		if (*w == '\'')
			fputs("'\\''", f);
		else
			fputc(*w, f);
	}
	fputc('\'', f);
}

/* Each step on a line of its own, the target last. */
static void print_chain(const struct vec *chain, FILE *f)
{
	step_start[nsteps] = chain->n;
	for (size_t s = 0; s < nsteps; s++) {
		for (size_t i = step_start[s]; i < step_start[s + 1]; i++) {
			if (i > step_start[s])
				fputc(' ', f);
			put_word(chain->v[i], f);
		}
		fputc('\n', f);
	}
}

/* The helpers get no environment of their own (DESIGN.md 1); the test
 * build lets the sanitizers' options through, so CI's sanitizer runs of
 * the helpers stay strict. */
static NORETURN void exec_chain(struct vec *chain)
{
	static char *none[] = { NULL };
	struct vec henv = { 0 };

#ifdef SHARNESS_TEST_HOOKS
	env_pass(&henv, "UBSAN_OPTIONS");
	env_pass(&henv, "ASAN_OPTIONS");
#endif
	if (fcntl(env_fd, F_SETFD, 0) < 0)
		die(EXIT_REFUSED, "unable to pass on the environment memfd");
	execve(chain->v[0], chain->v, henv.n ? henv.v : none);
	die(EXIT_REFUSED, "unable to execute helper %s", qn(chain->v[0]));
}

int cmd_run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "expect-hash", required_argument, NULL, 'H' },
		{ "best-effort", no_argument, NULL, 'b' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "trust-key", required_argument, NULL, 'K' },  /* long only */
		{ "signature", required_argument, NULL, 'S' },
		{ "expect-id", required_argument, NULL, 'I' },
		{ "check", no_argument, NULL, 'C' },
		{ NULL, 0, NULL, 0 },
	};
	const char *policy = NULL, *expect = NULL, *signature = NULL, *expect_id = NULL, *key;
	char **trust = NULL;
	size_t ntrust = 0;
	int best_effort = 0, dry_run = 0, verbose = 0, c;
	unsigned char want[HASH_LEN];
	struct vec env = { 0 }, chain = { 0 };
	struct loaded l;

	/* A descriptor leaked by the caller could carry access past the
	 * policy; no step after this one may gain privileges. */
	closefrom(3);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die(EXIT_CONFINE, "unable to set no_new_privs");

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:p:H:nvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': policy = optarg; break;
		case 'H': expect = optarg; break;
		case 'b': best_effort = 1; break;
		case 'n': dry_run = 1; break;
		case 'v': verbose = 1; break;
		case 'h': printf("usage: %s\n", RUN_USAGE); return 0;
		case 'K':
			if (!(trust = reallocarray(trust, ntrust + 1, sizeof *trust)))
				diex(EXIT_REFUSED, "out of memory");
			trust[ntrust++] = optarg;
			break;
		case 'S': signature = optarg; break;
		case 'I': expect_id = optarg; break;
		case 'C': check_mode = 1; break;
		case ':':
			usage_fail(RUN_USAGE, "option %s needs an argument", qn(argv[optind - 1]));
		default:
			usage_fail(RUN_USAGE, "unknown option %s", qn(argv[optind - 1]));
		}
	}
	if (!policy)
		usage_fail(RUN_USAGE, "run needs --policy FILE");
	if (optind >= argc && !check_mode)
		usage_fail(RUN_USAGE, "run needs a COMMAND after the options");
	if (signature && !ntrust)
		usage_fail(RUN_USAGE, "--signature needs --trust-key");
	if (expect && !hash_parse(expect, want))
		diex(EXIT_REFUSED, "--expect-hash must be sha256: and 64 hex digits, not %s",
		     q(expect));

	if (!load_run_policy(policy, &l, expect ? want : NULL, ntrust > 0)) {
		free(trust);
		return EXIT_REFUSED;
	}
	key = sign_run_check(&l, policy, signature, trust, ntrust, expect_id);

	resolve_rules(&l.pol, verbose || dry_run);
	build_env(&env, &l, dry_run);
	if (key)
		env_put(&env, "SHARNESS_AI_POLICY_KEY", key);
	seal_env(&env);
	build_chain(&chain, &l.pol, best_effort, argv + optind);

	if (verbose) {
		fprintf(stderr, "%s: policy %s %s%s%s%s%s\n", progname, q(l.pol.id), l.hash,
		        expect ? " (pinned)" : key ? "" : " (not pinned)",
		        key ? " (signed by " : "", key ? key : "", key ? ")" : "");
		print_chain(&chain, stderr);
	}
	if (dry_run) {
		int rc;
		print_chain(&chain, stdout);
		rc = fflush(stdout) ? EXIT_REFUSED : 0;
		vfree(&env);
		vfree(&chain);
		unload_policy(&l);
		free(trust);
		return rc;
	}
	fflush(stderr);
	exec_chain(&chain);
}
