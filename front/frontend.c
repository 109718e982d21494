/* What the front end's subcommands share (frontend.h): where the helpers
 * are and how a failure to run one is said, and each subcommand's usage
 * and --help. Below every subcommand's file, above none. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "common.h"
#include "frontend.h"

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

#define HELLO_USAGE "sharness-exec hello"
#define PROBE_USAGE "sharness-exec probe [--json] [--trust-key FILE]..."
#define LEARN_USAGE "sharness-exec learn -o DRAFT [--base POLICY] [--rounds N] " \
	"[--allow-network] -- COMMAND [ARG...]"
/* Every usage line, as sharness-exec(1)'s SYNOPSIS has them. */
const char front_usage[] = RUN_USAGE "\n       " LAUNCH_USAGE "\n       " HASH_USAGE
	"\n       " CHECK_USAGE "\n       " KEYGEN_USAGE "\n       " SIGN_USAGE "\n       "
	VERIFY_USAGE "\n       " WRAP_USAGE "\n       " HELLO_USAGE "\n       " PROBE_USAGE
	"\n       " LEARN_USAGE "\n       sharness-exec --help | --version";

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
	"    --timeout DURATION\tthen SIGTERM to the whole run, exit 124 (1.5s, 2m, 1h, 1d, 1m30s)\n" \
	"    --kill-after DURATION\tthen kill what is left DURATION later (5 s)\n" \
	"    --user USER\troot only: namespaces and cgroup as root, COMMAND as USER\n" \
	"    --user-groups\twith --user: keep USER's supplementary groups\n"

/* Each command: its usage, what it does, and for its --help a line for
 * each option and operand, "OPTION\tdescription\n" (two columns). */
static const struct {
	const char *name, *usage, *what, *opts;
} cmds[] = {
	{ "run", RUN_USAGE, "check and hash the policy, then run COMMAND confined",
	  "-p, --policy FILE\tthe policy (required)\n"
	  "-H, --expect-hash sha256:HEX\trefuse unless the policy has this hash\n"
	  "-n, --dry-run\tprint the chain, one step a line, and exit\n"
	  PIN_OPTS RUN_OPTS
	  "    --report FILE|fd:N\twrite how the run ended, as JSON, to FILE (replaced) or fd N\n"
	  "    --in-session\tkeep the caller's network namespace, a session's: lo alone (launch)\n"
	  "    --passwd-fd FD\ta sealed memfd of passwd lines, the view's /etc/passwd (launch)\n"
	  "    --group-fd FD\ta sealed memfd of group lines, the view's /etc/group (launch)\n"
	  "    --hosts-fd FD\ta sealed memfd of hosts lines, the view's /etc/hosts (launch)\n"
	  "    --state-dir DIR\tthe role's state directory, writable unlisted (launch)\n"
	  "    --share DIR\ta shared directory, writable unlisted, its sockets reachable (launch)\n"
	  "    --share-read DIR\ta shared directory, readable unlisted, its sockets reachable (launch)\n"
	  "    --explain\twhen COMMAND ends, list what the policy refused or hid\n"
	  "    --explain-as ROLE\tas --explain, each line naming ROLE (launch)\n"
	  "    --launch-env\tpass on the variables launch sets (SHARNESS_AI_CERT...)\n" },
	{ "launch", LAUNCH_USAGE, LAUNCH_WHAT, NULL },	/* its --help: the launcher's */
	{ "hash", HASH_USAGE, "print the canonical hash of a JSON object",
	  "    --canonical\twrite the canonical bytes instead, no newline\n"
	  "FILE\tthe JSON object; - is standard input\n" },
	{ "check", CHECK_USAGE, "report every problem of a policy or manifest, one line each",
	  "FILE\tthe policy or launch manifest; - is standard input\n" },
	{ "keygen", KEYGEN_USAGE, "make an ECDSA P-256 key pair NAME.key and NAME.pub",
	  "-o NAME\twrite NAME.key (mode 0600, by sharness-exec-sign) and NAME.pub\n" },
	{ "sign", SIGN_USAGE, "check a policy and write its signature to POLICY.sig",
	  "-k NAME.key\tthe private key (only sharness-exec-sign reads it)\n"
	  "POLICY\tthe policy; the signature goes to POLICY.sig\n" },
	{ "verify", VERIFY_USAGE, "check a policy's signature, print its hash, id and key",
	  "-K NAME.pub\tthe public key\n"
	  "POLICY\tthe policy; - is standard input\n"
	  "SIG\tthe signature (default: POLICY.sig)\n" },
	{ "learn", LEARN_USAGE, "draft a policy from confined runs of COMMAND",
	  "-o DRAFT\twrite the draft policy here (replaced if it exists)\n"
	  "    --base POLICY\tstart from this policy (default: see sharness-exec(1))\n"
	  "    --rounds N\trun COMMAND at most N times (5; 1 to 20)\n"
	  "    --allow-network\tmay turn \"none\" into the object form for ports\n" },
	{ "wrap", WRAP_USAGE, "write FILE, a one-word wrapper: FILE ARG... runs ARG... confined",
	  "-o FILE\tthe wrapper (mode 0755), not beneath a files.write path\n"
	  "-p, --policy FILE\tthe policy (required)\n"
	  "-H, --expect-hash sha256:HEX\tits hash (this, or --trust-key, is required)\n"
	  PIN_OPTS RUN_OPTS },
	{ "hello", HELLO_USAGE, "self-test: show what this machine holds", "" },
	{ "probe", PROBE_USAGE, "report what this machine can enforce",
	  "    --json\tone JSON object, for a program to read\n"
	  "    --trust-key FILE\tsay whether run would take this key (repeatable)\n" },
};

int cmd_help(const char *name)
{
	for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++)
		if (!strcmp(name, cmds[i].name)) {
			printf("usage: %s\n\n%s\n\noptions:\n", cmds[i].usage, cmds[i].what);
			help_opts(cmds[i].opts);
			help_opts("-h, --help\tprint this help and exit\n");
		}
	return fflush(stdout) ? EXIT_REFUSED : 0;
}

void front_help(void)
{
	printf("usage: %s\n\n", front_usage);
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
	help_opts(cmds[0].opts);
	fputs(
	"\n"
	"exit status: the command's own; 125 refused (usage, policy, hash, missing\n"
	"helper); 126 could not confine or could not execute; 127 not found;\n"
	"124 --timeout expired.\n",
	stdout);
}

