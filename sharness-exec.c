/* sharness-exec: the front end and the verify-hash step. It is the only
 * program of the chain that parses JSON or links BearSSL: it reads the
 * policy once, checks and hashes it, and for `run` compiles it into the argv
 * of the helpers and execs the first (run.c). Exit: 0, or 125 when refused. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "common.h"
#include "frontend.h"
#include "key.h"
#include "sign.h"

const char *progname = "sharness-exec";

#define HELLO_USAGE "sharness-exec hello"
#define PROBE_USAGE "sharness-exec probe [--json] [--trust-key FILE]..."
#define LEARN_USAGE "sharness-exec learn -o DRAFT [--base POLICY] [--rounds N] " \
	"[--allow-network] -- COMMAND [ARG...]"
#define USAGE RUN_USAGE "\n       " LAUNCH_USAGE "\n       " HASH_USAGE "\n       " CHECK_USAGE "\n       " \
	KEYGEN_USAGE "\n       " SIGN_USAGE "\n       " VERIFY_USAGE "\n       " WRAP_USAGE "\n" \
	"       " HELLO_USAGE "\n       " PROBE_USAGE "\n       " LEARN_USAGE "\n" \
	"       sharness-exec --help | --version"

static int cmd_hash(int argc, char **argv)
{
	char out[HASH_TEXT_LEN + 1];
	unsigned char digest[HASH_LEN];
	struct json_doc doc;
	size_t len;
	char *text;

	if (argc == 3 && !strcmp(argv[1], "--canonical"))
		return canonical_print(argv[2]);
	if (argc != 2 || !strcmp(argv[1], "--canonical"))
		usage_fail(HASH_USAGE, "hash takes one FILE");
	if (!(text = read_json(-1, argv[1], &len, &doc)))
		return EXIT_REFUSED;
	if (!hash_doc(&doc, digest))
		diex(EXIT_REFUSED, "out of memory");
	hash_format(digest, out);
	json_free(&doc);
	free(text);
	/* A hash that did not reach its reader must not look like success. */
	if (puts(out) == EOF || fflush(stdout) == EOF)
		die(EXIT_REFUSED, "unable to write standard output");
	return 0;
}

/* LD_* and GLIBC_TUNABLES decide what code the dynamic loader maps into
 * the target (and into whatever it runs): legal, but worth a look. */
static void loader_warning(const char *file, const char *key, const char *name)
{
	if (!strncmp(name, "LD_", 3) || !strcmp(name, "GLIBC_TUNABLES"))
		fprintf(stderr, "%s: %s: warning: %s: %s is a loader variable: it decides "
		        "what code the target loads\n", progname, qn(file), key, q(name));
}

static void loader_warnings(const char *file, const char *where, const struct policy *p)
{
	char key[128];

	for (size_t i = 0; i < p->env_inherit.n; i++) {
		snprintf(key, sizeof key, "%senv.inherit[%zu]", where, i);
		loader_warning(file, key, p->env_inherit.v[i]);
	}
	snprintf(key, sizeof key, "%senv.set", where);
	for (size_t i = 0; i < p->env_set_names.n; i++)
		loader_warning(file, key, p->env_set_names.v[i]);
}

static int cmd_check(int argc, char **argv)
{
	char where[128];
	struct loaded l;

	if (argc != 2)
		usage_fail(CHECK_USAGE, "check takes one FILE");
	if (!load_as(-1, argv[1], &l, NULL, LOAD_POLICY | LOAD_MANIFEST))
		return EXIT_REFUSED;
	loader_warnings(argv[1], "", &l.pol);
	for (size_t i = 0; l.manifest && i <= l.man.ncomp; i++) {
		if (i < l.man.ncomp)
			snprintf(where, sizeof where, "components[%zu] \"%s\": policy.", i,
			         l.man.comp[i].role);
		else
			snprintf(where, sizeof where, "main \"%s\": policy.", l.man.comp[i].role);
		loader_warnings(argv[1], where, &l.man.comp[i].pol);
	}
	if (l.manifest) {
		printf("%s: valid launch 1 manifest %s\n", qn(argv[1]), q(l.id));
		manifest_describe(&l.man, stdout);
	} else {
		printf("%s: valid pbp 1 policy %s\n", qn(argv[1]), q(l.id));
	}
	unload_policy(&l);
	return fflush(stdout) ? EXIT_REFUSED : 0;
}

/* hello and probe live beside the verify path, in a program of their own
 * (DESIGN.md 1), and learn in the signer's, each of which runs this one again
 * through the descriptor -F. Only this program reads keys: probe's
 * --trust-key FILE goes on as -k FILE with -f FINGERPRINT or -E WHY. */
static int beside(int argc, char **argv)
{
	static const char **v;	/* static: reachable for LSan if the exec fails */
	char fd[16], err[PATH_MAX + 128];
	int self = open("/proc/self/exe", O_RDONLY), n = 0;
	struct pubkey k;

	if (!(v = calloc((size_t)argc * 2 + 8, sizeof *v)))
		diex(EXIT_REFUSED, "out of memory");
	if (self < 0)
		die(EXIT_REFUSED, "unable to open /proc/self/exe");
	snprintf(fd, sizeof fd, "%d", self);
	v[n++] = helper_path(strcmp(argv[0], "learn") ? "sharness-exec-probe" : "sharness-exec-sign");
	v[n++] = "-F";
	v[n++] = fd;
	v[n++] = argv[0];
#ifdef SHARNESS_TEST_HOOKS
	/* Test builds only: a deliberately loosened policy shows that hello
	 * reports a broken expectation. The shipped binary has no such hook. */
	if (!strcmp(argv[0], "hello") && getenv("SHARNESS_EXEC_HELLO_POLICY")) {
		v[n++] = "-p";
		v[n++] = getenv("SHARNESS_EXEC_HELLO_POLICY");
	}
#endif
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[0], "probe") || strcmp(argv[i], "--trust-key") || i + 1 == argc) {
			v[n++] = argv[i];
			continue;
		}
		v[n++] = "-k";
		v[n++] = argv[++i];
		if (key_public_read(argv[i], &k, err, sizeof err)) {
			v[n++] = "-f";
			v[n] = strdup(k.fp_text);
		} else {
			v[n++] = "-E";
			v[n] = strdup(err);
		}
		if (!v[n++])
			diex(EXIT_REFUSED, "out of memory");
	}
	execv(v[0], (char *const *)v);
	helper_fail("execute", v[0]);
}

const char *helperdir(void)
{
#ifdef SHARNESS_TEST_HOOKS
	static char dir[PATH_MAX];
	const char *run_as = (const char *)getauxval(AT_EXECFN);

	if (*dir)
		return dir;
	/* Without /proc (a run in a view that has none), the name it was
	 * executed by, which the tests give whole. */
	if (readlink("/proc/self/exe", dir, sizeof dir - 1) <= 0 &&
	    (!run_as || *run_as != '/' || !realpath(run_as, dir)))
		die(EXIT_REFUSED, "unable to find this program: no /proc/self/exe");
	*strrchr(dir, '/') = '\0';
	return dir;
#else
	return HELPERDIR;
#endif
}

char *helper_path(const char *name)
{
	char *s;

	if (asprintf(&s, "%s/%s", helperdir(), name) < 0)
		diex(EXIT_REFUSED, "out of memory");
	return s;
}

void helper_fail(const char *what, const char *path)
{
	char h[PATH_MAX + 64];
	int e = errno;

	snprintf(h, sizeof h, "reinstall sharness-exec: its helpers live in %s", helperdir());
	die_hint(EXIT_REFUSED, e, h, "unable to %s %s", what, path);
}

/* What run and wrap share: how a policy is pinned by a key, and the
 * options that wrap passes on to run. */
#define PIN_OPTS \
	"    --trust-key FILE\taccept a policy signed by this key (repeatable)\n" \
	"    --signature FILE\tthe signature (default: the policy's path .sig)\n" \
	"    --expect-id ID\trefuse unless the policy's id is ID\n"
#define RUN_OPTS \
	"-b, --best-effort\tgo on where no wall holds a right; say which\n" \
	"    --check\teach step prints what it uses; COMMAND optional\n" \
	"-v, --verbose\tsay what is done on stderr\n" \
	"    --timeout DURATION\tthen SIGTERM to the whole run, exit 124 (s, m, h)\n" \
	"    --kill-after DURATION\tthen kill what is left DURATION later (5 s)\n" \
	"    --user USER\troot only: namespaces and cgroup as root, COMMAND as USER\n" \
	"    --user-groups\twith --user: keep USER's supplementary groups\n"

/* Each command: its usage, what it does, and for its --help a line for
 * each option and operand, "OPTION\tdescription\n" (two columns). */
static const struct cmd {
	const char *name, *usage, *what;
	int (*run)(int, char **);
	const char *opts;
} cmds[] = {
	{ "run", RUN_USAGE, "check and hash the policy, then run COMMAND confined", cmd_run,
	  "-p, --policy FILE\tthe policy (required)\n"
	  "-H, --expect-hash sha256:HEX\trefuse unless the policy has this hash\n"
	  "-n, --dry-run\tprint the chain, one step a line, and exit\n"
	  PIN_OPTS RUN_OPTS
	  "    --report FILE|fd:N\twrite how the run ended, as JSON, to a new FILE or fd N\n"
	  "    --in-session\tkeep the caller's network namespace, a session's: lo alone (launch)\n"
	  "    --passwd-fd FD\ta sealed memfd of passwd lines, the view's /etc/passwd (launch)\n"
	  "    --group-fd FD\ta sealed memfd of group lines, the view's /etc/group (launch)\n"
	  "    --explain\twhen COMMAND ends, list what the policy refused or hid\n"
	  "    --launch-env\tpass on the variables launch sets (SHARNESS_AI_CERT...)\n" },
	{ "launch", LAUNCH_USAGE,
	  "run the session of a launch manifest, as root; --dry-run prints its plan", cmd_launch,
	  "-m, --manifest FILE\tthe launch 1 manifest (required)\n"
	  "-H, --expect-hash sha256:HEX\trefuse unless the manifest has this hash\n"
	  "    --trust-key FILE\taccept a manifest signed by this key (repeatable)\n"
	  "    --signature FILE\tthe signature (default: the manifest's path .sig)\n"
	  "    --expect-id ID\trefuse unless the manifest's id is ID\n"
	  "-n, --dry-run\tprint the plan and each chain, and exit\n"
	  "    --uid-range FIRST-LAST\tthe session's uids (" MANIFEST_UID_RANGE ")\n"
	  "    --user USER\tmain runs as USER, not a uid of the session's\n"
	  "COMMAND\tmain's command\n" },
	{ "hash", HASH_USAGE, "print the canonical hash of a JSON object", cmd_hash,
	  "    --canonical\twrite the canonical bytes instead, no newline\n"
	  "FILE\tthe JSON object; - is standard input\n" },
	{ "check", CHECK_USAGE, "report every problem of a policy or manifest, one line each",
	  cmd_check, "FILE\tthe policy or launch manifest; - is standard input\n" },
	{ "keygen", KEYGEN_USAGE, "make an ECDSA P-256 key pair NAME.key and NAME.pub", cmd_signer,
	  "-o NAME\twrite NAME.key (mode 0600, by sharness-exec-sign) and NAME.pub\n" },
	{ "sign", SIGN_USAGE, "check a policy and write its signature to POLICY.sig", cmd_signer,
	  "-k NAME.key\tthe private key (only sharness-exec-sign reads it)\n"
	  "POLICY\tthe policy; the signature goes to POLICY.sig\n" },
	{ "verify", VERIFY_USAGE, "check a policy's signature, print its hash, id and key", cmd_verify,
	  "-K NAME.pub\tthe public key\n"
	  "POLICY\tthe policy; - is standard input\n"
	  "SIG\tthe signature (default: POLICY.sig)\n" },
	{ "learn", LEARN_USAGE, "draft a policy from confined runs of COMMAND", beside,
	  "-o DRAFT\twrite the draft policy here (replaced if it exists)\n"
	  "    --base POLICY\tstart from this policy (default: see sharness-exec(1))\n"
	  "    --rounds N\trun COMMAND at most N times (5; 1 to 20)\n"
	  "    --allow-network\tmay turn \"none\" into the object form for ports\n" },
	{ "wrap", WRAP_USAGE, "write FILE, a one-word wrapper: FILE ARG... runs ARG... confined", cmd_wrap,
	  "-o FILE\tthe wrapper (mode 0755), not beneath a files.write path\n"
	  "-p, --policy FILE\tthe policy (required)\n"
	  "-H, --expect-hash sha256:HEX\tits hash (this, or --trust-key, is required)\n"
	  PIN_OPTS RUN_OPTS },
	{ "hello", HELLO_USAGE, "self-test: show what this machine holds", beside, "" },
	{ "probe", PROBE_USAGE, "report what this machine can enforce", beside,
	  "    --json\tone JSON object, for a program to read\n"
	  "    --trust-key FILE\tsay whether run would take this key (repeatable)\n" },
};

static void print_opts(const char *s)
{
	for (int n; *s; s += strcspn(s, "\n") + 1) {
		n = (int)strcspn(s, "\t");
		printf("  %-30.*s%.*s\n", n, s, (int)strcspn(s + n + 1, "\n"), s + n + 1);
	}
}

int cmd_help(const char *name)
{
	for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++)
		if (!strcmp(name, cmds[i].name)) {
			printf("usage: %s\n\n%s\n\noptions:\n", cmds[i].usage, cmds[i].what);
			print_opts(cmds[i].opts);
			print_opts("-h, --help\tprint this help and exit\n");
		}
	return fflush(stdout) ? EXIT_REFUSED : 0;
}

static void help(void)
{
	printf("usage: %s\n\n", USAGE);
	fputs(
	"Confine COMMAND, and everything it starts, to what a pbp 1 JSON policy\n"
	"allows: paths it may read, write and execute, TCP ports, network,\n"
	"memory, processes and environment. The policy must hash to the pinned\n"
	"sha256 (see `sharness-exec hash`), or be signed by a trusted key.\n"
	"\n"
	"commands:\n", stdout);
	for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++)
		printf("  %-7s %s\n", cmds[i].name, cmds[i].what);
	fputs("\nrun options:\n", stdout);
	print_opts(cmds[0].opts);
	fputs(
	"\n"
	"exit status: the command's own; 125 refused (usage, policy, hash, missing\n"
	"helper); 126 could not confine or could not execute; 127 not found;\n"
	"124 --timeout expired.\n",
	stdout);
}

int main(int argc, char **argv)
{
	const char *cmd;

	if (argc < 2)
		usage_fail(USAGE, "no command given");
	cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		help();
		return 0;
	}
	if (!strcmp(cmd, "--version")) {
		printf("sharness-exec %s\nLicense: MIT\n", PACKAGE_VERSION);
		return fflush(stdout) ? EXIT_REFUSED : 0;
	}
	for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
		if (strcmp(cmd, cmds[i].name))
			continue;
		if (argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h")))
			return cmd_help(cmd);
		return cmds[i].run(argc - 1, argv + 1);
	}
	usage_fail(USAGE, "unknown command %s", qn(cmd));
}
