/* sharness-exec: the front end and the verify-hash step. It is the only
 * program of the chain that parses JSON or links BearSSL: it reads the
 * policy once, checks and hashes it, and for `run` compiles it into the argv
 * of the helpers and execs the first (run.c). This file is the top of the
 * front end: each command's entry point, and hash, check and the commands
 * that exec a program beside it. Exit: 0, or 125 when refused. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "front/frontend.h"
#include "key.h"
#include "verify.h"
#include "warn.h"

const char *progname = "sharness-exec";

/* Exec the helper NAME with the words PRE (N of them), then ARGV as it is. */
static NORETURN void hand_over(const char *name, const char *const *pre, size_t n,
                               int argc, char **argv)
{
	static const char **v;	/* static: reachable for LSan if the exec fails */

	if (!(v = calloc(n + (size_t)argc + 2, sizeof *v)))
		diex(EXIT_REFUSED, "out of memory");
	v[0] = helper_path(name);
	for (size_t i = 0; i < n; i++)
		v[1 + i] = pre[i];	/* memcpy from NULL, even of 0 bytes, is undefined */
	memcpy(v + 1 + n, argv, (size_t)argc * sizeof *v);
	execv(v[0], (char *const *)v);
	helper_fail("execute", v[0]);
}

/* keygen, sign, verify and `hash --canonical` are sharness-exec-sign's
 * (DESIGN.md 2.3): exec it with ARGV. */
static int cmd_signer(int argc, char **argv)
{
	hand_over("sharness-exec-sign", NULL, 0, argc, argv);
}

/* launch is sharness-exec-launch's (DESIGN.md 4.8), which reads, pins and
 * checks the manifest, once: exec it with ARGV and a descriptor of this
 * program (-F), which runs each role and --dry-run's chains. Nothing
 * inherited reaches the session. */
static int cmd_launch(int argc, char **argv)
{
	char fd[16];
	int self;

	closefrom(3);
	if ((self = open("/proc/self/exe", O_RDONLY)) < 0)
		die(EXIT_REFUSED, "unable to open /proc/self/exe");
	snprintf(fd, sizeof fd, "%d", self);
	hand_over("sharness-exec-launch", (const char *[]){ "-F", fd }, 2, argc, argv);
}

static int cmd_hash(int argc, char **argv)
{
	char out[HASH_TEXT_LEN + 1];
	unsigned char digest[HASH_LEN];
	struct json_doc doc;
	size_t len;
	char *text;

	if (argc == 3 && !strcmp(argv[1], "--canonical"))
		return cmd_signer(argc, argv);
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

/* A manifest's check is the launcher's (launch/command.c): it gets the
 * bytes read here, in a sealed memfd (--manifest-fd), and FILE to name them. */
static int cmd_check(int argc, char **argv)
{
	struct loaded l;
	char fd[16];
	int m;

	if (argc != 2)
		usage_fail(CHECK_USAGE, "check takes one FILE");
	if (!load_read(-1, argv[1], &l, NULL, LOAD_POLICY | LOAD_MANIFEST))
		return EXIT_REFUSED;
	if (l.manifest) {
		if ((m = sealed_memfd("sharness-exec-manifest", 0, l.text, l.len)) < 0)
			die(EXIT_REFUSED, "unable to pass the manifest on in a sealed memfd");
		snprintf(fd, sizeof fd, "%d", m);
		unload_policy(&l);
		hand_over("sharness-exec-launch", (const char *[]){ "--manifest-fd", fd }, 2, argc, argv);
	}
	if (!load_check(&l, argv[1]))
		return EXIT_REFUSED;
	policy_warnings(argv[1], "", &l.pol);
	printf("%s: valid pbp 1 policy %s\n", qn(argv[1]), q(l.id));
	unload_policy(&l);
	return fflush(stdout) ? EXIT_REFUSED : 0;
}

/* hello and probe live beside the verify path, in a program of their own
 * (DESIGN.md 1), and learn in another (no command word after its -F), each
 * running this one again through the descriptor -F. Only this program reads
 * keys: probe's --trust-key FILE goes on as -K, --fingerprint or --key-error. */
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
	v[n++] = helper_path(strcmp(argv[0], "learn") ? "sharness-exec-probe" : "sharness-exec-learn");
	v[n++] = "-F";
	v[n++] = fd;
	if (strcmp(argv[0], "learn"))
		v[n++] = argv[0];
#ifdef SHARNESS_TEST_HOOKS
	/* Test builds only: a deliberately loosened policy shows that hello
	 * reports a broken expectation. The shipped binary has no such hook. */
	if (!strcmp(argv[0], "hello") && getenv("SHARNESS_EXEC_HELLO_POLICY")) {
		v[n++] = "--policy";
		v[n++] = getenv("SHARNESS_EXEC_HELLO_POLICY");
	}
#endif
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[0], "probe") || strcmp(argv[i], "--trust-key") || i + 1 == argc) {
			v[n++] = argv[i];
			continue;
		}
		v[n++] = "-K";
		v[n++] = argv[++i];
		if (key_public_read(argv[i], &k, err, sizeof err)) {
			v[n++] = "--fingerprint";
			v[n] = strdup(k.fp_text);
		} else {
			v[n++] = "--key-error";
			v[n] = strdup(err);
		}
		if (!v[n++])
			diex(EXIT_REFUSED, "out of memory");
	}
	execv(v[0], (char *const *)v);
	helper_fail("execute", v[0]);
}

/* Each command and what runs it; frontend.c holds what it says of itself. */
static const struct {
	const char *name;
	int (*run)(int, char **);
} cmds[] = {
	{ "run", cmd_run }, { "launch", cmd_launch }, { "hash", cmd_hash },
	{ "check", cmd_check }, { "keygen", cmd_signer }, { "sign", cmd_signer },
	{ "verify", cmd_signer }, { "learn", beside }, { "wrap", cmd_wrap },
	{ "hello", beside }, { "probe", beside },
};

int main(int argc, char **argv)
{
	const char *cmd;

	if (argc < 2)
		usage_fail(front_usage, "no command given");
	cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		front_help();
		return 0;
	}
	if (!strcmp(cmd, "--version")) {
		printf("sharness-exec %s\nLicense: MIT\n", PACKAGE_VERSION);
		return fflush(stdout) ? EXIT_REFUSED : 0;
	}
	for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
		if (strcmp(cmd, cmds[i].name))
			continue;
		if (argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h")) &&
		    cmds[i].run != cmd_launch)	/* the launcher's, whole */
			return cmd_help(cmd);
		return cmds[i].run(argc - 1, argv + 1);
	}
	usage_fail(front_usage, "unknown command %s", qn(cmd));
}
