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
#include <unistd.h>

#include "common.h"
#include "frontend.h"
#include "key.h"
#include "sign.h"

const char *progname = "sharness-exec";

#define USAGE RUN_USAGE "\n       " HASH_USAGE "\n       " CHECK_USAGE "\n       " \
	KEYGEN_USAGE "\n       " SIGN_USAGE "\n       " VERIFY_USAGE "\n" \
	"       sharness-exec hello\n" \
	"       sharness-exec probe [--json] [--trust-key FILE]...\n" \
	"       sharness-exec --help | --version"

static void help(void)
{
	printf("usage: %s\n\n", USAGE);
	fputs(
	"Confine COMMAND, and everything it starts, to what a pbp 1 JSON policy\n"
	"allows: paths it may read, write and execute, TCP ports, network,\n"
	"memory, processes and environment. The policy must hash to the pinned\n"
	"sha256 (see `sharness-exec hash`), or be signed by a trusted key.\n"
	"\n"
	"commands:\n"
	"  run     check and hash the policy, then run COMMAND confined\n"
	"  hash    print the canonical hash of a JSON object (FILE - is stdin),\n"
	"          or with --canonical write its canonical bytes, no newline\n"
	"  check   report every problem of a policy, one line each\n"
	"  keygen  make an ECDSA P-256 key pair NAME.key and NAME.pub (runs\n"
	"          sharness-exec-sign, which alone reads private keys)\n"
	"  sign    check a policy and write its signature to POLICY.sig (the same)\n"
	"  verify  check a policy's signature, print its hash, id and key\n"
	"  hello   self-test: show what this machine holds\n"
	"  probe   report what this machine can enforce (--json for a machine),\n"
	"          listing each --trust-key FILE\n"
	"\n"
	"run options:\n"
	"  -p, --policy FILE            the policy (required)\n"
	"  -H, --expect-hash sha256:HEX refuse unless the policy has this hash\n"
	"      --best-effort            go on when the kernel lacks a right, and say\n"
	"                               exactly what was dropped\n"
	"      --check                  each step also prints one line of what it uses;\n"
	"                               without COMMAND the run ends inside Landlock\n"
	"      --user USER              root only: make the namespaces and cgroup as\n"
	"                               root, run COMMAND as USER (--user-groups:\n"
	"                               with USER's groups)\n"
	"  -n, --dry-run                print the chain, one step a line, and exit\n"
	"  -v, --verbose                say what is done on stderr\n"
	"      --trust-key FILE         accept the policy when its signature verifies\n"
	"                               under this public key (repeatable)\n"
	"      --signature FILE         the signature (default: the policy's path .sig)\n"
	"      --expect-id ID           refuse unless the policy's id is ID\n"
	"\n"
	"exit status: the command's own; 125 refused (usage, policy, hash, missing\n"
	"helper); 126 could not confine or could not execute; 127 not found.\n",
	stdout);
}

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

static int cmd_check(int argc, char **argv)
{
	char key[64];
	struct loaded l;

	if (argc != 2)
		usage_fail(CHECK_USAGE, "check takes one FILE");
	if (!load_policy(-1, argv[1], &l, NULL))
		return EXIT_REFUSED;
	for (size_t i = 0; i < l.pol.env_inherit.n; i++) {
		snprintf(key, sizeof key, "env.inherit[%zu]", i);
		loader_warning(argv[1], key, l.pol.env_inherit.v[i]);
	}
	for (size_t i = 0; i < l.pol.env_set_names.n; i++)
		loader_warning(argv[1], "env.set", l.pol.env_set_names.v[i]);
	printf("%s: valid pbp 1 policy %s\n", qn(argv[1]), q(l.pol.id));
	unload_policy(&l);
	return fflush(stdout) ? EXIT_REFUSED : 0;
}

/* hello and probe live beside the verify path, in a program of their own
 * (DESIGN.md 1), which runs this one again through the descriptor -F. Only
 * this program reads keys: probe's --trust-key FILE goes on as -k FILE with
 * -f FINGERPRINT or -E WHY. */
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
	v[n++] = HELPERDIR "/sharness-exec-probe";
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
	die_hint(EXIT_REFUSED, errno, "reinstall sharness-exec: its helpers live in " HELPERDIR,
	         "unable to execute %s", v[0]);
}

int main(int argc, char **argv)
{
	static const struct { const char *name; int (*run)(int, char **); } cmds[] = {
		{ "run", cmd_run }, { "hash", cmd_hash }, { "check", cmd_check },
		{ "keygen", cmd_signer }, { "sign", cmd_signer }, { "verify", cmd_verify },
		{ "hello", beside }, { "probe", beside },
	};
	const char *cmd;

	if (argc < 2)
		usage_fail(USAGE, "no command given");
	cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		help();
		return 0;
	}
	if (!strcmp(cmd, "--version")) {
		printf("sharness-exec %s\n", PACKAGE_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++)
		if (!strcmp(cmd, cmds[i].name))
			return cmds[i].run(argc - 1, argv + 1);
	usage_fail(USAGE, "unknown command %s", qn(cmd));
}
