/* sharness-exec: the front end and the verify-hash step. It is the only
 * program of the chain that parses JSON or links BearSSL: it reads the
 * policy once, checks and hashes it, and for `run` compiles it into the argv
 * of the helpers and execs the first (run.c). This file is the top of the
 * front end: each command's entry point, and hash, check and the commands
 * that exec a program beside it. Exit: 0, or 125 when refused. */
#include <fcntl.h>
#include <pwd.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "front/frontend.h"
#include "key.h"
#include "verify.h"

const char *progname = "sharness-exec";

/* keygen, sign, verify and `hash --canonical` are sharness-exec-sign's
 * (DESIGN.md 2.3): exec it with ARGV. */
static int cmd_signer(int argc, char **argv)
{
	static const char **v;	/* static: reachable for LSan if the exec fails */

	if (!(v = calloc((size_t)argc + 2, sizeof *v)))
		diex(EXIT_REFUSED, "out of memory");
	v[0] = helper_path("sharness-exec-sign");
	memcpy(v + 1, argv, (size_t)argc * sizeof *v);
	execv(v[0], (char *const *)v);
	helper_fail("execute", v[0]);
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

/* LD_* and GLIBC_TUNABLES decide what code the dynamic loader maps into
 * the target (and into whatever it runs): legal, but worth a look. */
static void loader_warning(const char *file, const char *key, const char *name)
{
	if (!strncmp(name, "LD_", 3) || !strcmp(name, "GLIBC_TUNABLES"))
		fprintf(stderr, "%s: %s: warning: %s: %s is a loader variable: it decides "
		        "what code the target loads\n", progname, qn(file), key, q(name));
}

/* A write path that is a home directory (the caller's $HOME, or one of
 * /etc/passwd's but "/") holds agents' sockets (~/.ssh/agent, gpg-agent's
 * in ~/.gnupg) and shell start-up files: legal, but worth a look. */
static void home_warnings(const char *file, const char *where, const struct policy *p)
{
	const char *home = getenv("HOME");
	const struct passwd *pw = NULL;
	FILE *f = fopen("/etc/passwd", "re");

	for (size_t i = 0; i < p->write.n; i++) {
		int is = home && *home && !strcmp(p->write.v[i], home);
		if (f)
			rewind(f);
		while (!is && f && (pw = fgetpwent(f)))
			is = strcmp(pw->pw_dir, "/") && !strcmp(p->write.v[i], pw->pw_dir);
		if (is)
			fprintf(stderr, "%s: %s: warning: %sfiles.write[%zu]: %s is a home "
			        "directory, with agents' sockets (~/.ssh/agent, gpg-agent's) and "
			        "shell start-up files: name the project beneath it instead\n",
			        progname, qn(file), where, i, q(p->write.v[i]));
	}
	if (f)
		fclose(f);
}

static void loader_warnings(const char *file, const char *where, const struct policy *p)
{
	char key[128];

	home_warnings(file, where, p);

	for (size_t i = 0; i < p->env_inherit.n; i++) {
		snprintf(key, sizeof key, "%senv.inherit[%zu]", where, i);
		loader_warning(file, key, p->env_inherit.v[i]);
	}
	snprintf(key, sizeof key, "%senv.set", where);
	for (size_t i = 0; i < p->env_set_names.n; i++)
		loader_warning(file, key, p->env_set_names.v[i]);
}

/* Write paths check accepts but a person should look at twice: what
 * they expose, or (issue 38) how much each run walks for set-id files. */
static void write_warnings(const char *file, const char *where, const struct policy *p)
{
	static const char *const broad[][2] = {
		{ "/", "the whole machine is writable" },
		{ "/home", "every user's home is writable" },
		{ "/usr", "the system's programs are writable" },
		{ "/etc", "the system's configuration is writable" },
		{ "/var", "the system's state is writable, and each run walks all of "
		  "it for set-id files" },
		{ "/tmp", "it is shared with every job, and each run walks all of it "
		  "for set-id files: \"tmpfs\": [\"/tmp\"] gives the run a private one" },
		{ "/var/tmp", "it is shared with every job, and each run walks all of it "
		  "for set-id files: \"tmpfs\": [\"/var/tmp\"] gives the run a private one" },
	};

	for (size_t i = 0; i < p->write.n; i++)
		for (size_t b = 0; b < sizeof broad / sizeof *broad; b++)
			if (!strcmp(p->write.v[i], broad[b][0]))
				fprintf(stderr, "%s: %s: warning: %sfiles.write[%zu]: %s: %s\n",
				        progname, qn(file), where, i, q(broad[b][0]), broad[b][1]);
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
	write_warnings(argv[1], "", &l.pol);
	for (size_t i = 0; l.manifest && i <= l.man.ncomp; i++) {
		if (i < l.man.ncomp)
			snprintf(where, sizeof where, "components[%zu] \"%s\": policy.", i,
			         l.man.comp[i].role);
		else
			snprintf(where, sizeof where, "main \"%s\": policy.", l.man.comp[i].role);
		loader_warnings(argv[1], where, &l.man.comp[i].pol);
		write_warnings(argv[1], where, &l.man.comp[i].pol);
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
 * through the descriptor -F. Only this program reads keys: probe's --trust-key
 * FILE goes on as -K FILE with --fingerprint FINGERPRINT or --key-error WHY. */
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
		if (argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h")))
			return cmd_help(cmd);
		return cmds[i].run(argc - 1, argv + 1);
	}
	usage_fail(front_usage, "unknown command %s", qn(cmd));
}
