/* Signed policies on the verify path (sign.h, DESIGN.md 2.3). A policy is
 * signed by signing its canonical bytes, so the message digest ECDSA
 * signs is the policy's own hash: loading the policy computes it. Exit 0,
 * or 125 with one line on stderr. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "sign.h"
#include "trust.h"

int cmd_signer(int argc, char **argv)
{
	static const char **v;	/* static: reachable for LSan if the exec fails */

	if (!(v = calloc((size_t)argc + 2, sizeof *v)))
		diex(EXIT_REFUSED, "out of memory");
	v[0] = helper_path("sharness-exec-sign");
	memcpy(v + 1, argv, (size_t)argc * sizeof *v);
	execv(v[0], (char *const *)v);
	helper_fail("execute", v[0]);
}

/* A trust anchor gets the policy file's check (DESIGN.md 2.3). */
static void key_read(const char *path, struct pubkey *k)
{
	unsigned char text[KEY_FILE_MAX];
	/* "-" is a file of that name here, not standard input. */
	int fd = open_trusted(strcmp(path, "-") ? path : "./-", "key file");
	size_t len = file_read(fd, path, text, sizeof text);
	const char *why;

	if (!key_public_parse(text, len, k, &why))
		diex(EXIT_REFUSED, "refused: key file %s: %s", qn(path), why);
}

int key_public_read(const char *path, struct pubkey *k, char *err, size_t errlen)
{
	static const char fatal[] = "sharness-exec: fatal: ";
	char out[sizeof *k + 1024], *nl;
	ssize_t n;
	pid_t pid;
	int p[2], status;

	/* key_read dies at the first refusal: in a child, whose standard
	 * error holds the line. */
	fflush(NULL);
	if (pipe2(p, O_CLOEXEC) < 0 || (pid = fork()) < 0)
		die(EXIT_REFUSED, "unable to read key file %s", qn(path));
	if (!pid) {
		dup2(p[1], 2);
		key_read(path, k);
		_exit(write_all(p[1], k, sizeof *k) < 0 ? EXIT_REFUSED : 0);
	}
	close(p[1]);
	n = read_upto(p[0], out, sizeof out - 1);
	close(p[0]);
	if (waitpid(pid, &status, 0) < 0 || n < 0)
		die(EXIT_REFUSED, "unable to read key file %s", qn(path));
	if (status == 0 && n == sizeof *k) {
		memcpy(k, out, sizeof *k);
		return 1;
	}
	out[n < (ssize_t)sizeof out ? n : 0] = '\0';
	if ((nl = strchr(out, '\n')))
		*nl = '\0';
	snprintf(err, errlen, "%s", strncmp(out, fatal, strlen(fatal)) ? out : out + strlen(fatal));
	return 0;
}

/* The signature file SIG, or POLICY.sig, into RAW; its name. */
static char *sig_read(const char *policy, const char *sig, unsigned char raw[SIG_RAW_LEN])
{
	unsigned char der[SIG_DER_MAX];
	char *path;

	if (!sig && !strcmp(policy, "-"))
		diex(EXIT_REFUSED, "a policy on standard input needs its signature file named");
	if (asprintf(&path, "%s%s", sig ? sig : policy, sig ? "" : ".sig") < 0)
		diex(EXIT_REFUSED, "out of memory");
	if (!sig_der_decode(der, file_read(-1, path, der, sizeof der), raw))
		diex(EXIT_REFUSED, "refused: %s is not a DER ECDSA P-256 signature", qn(path));
	return path;
}

int cmd_verify(int argc, char **argv)
{
	char *keys[1] = { (char *)one_option(argc, argv, 'K', VERIFY_USAGE) };
	const char *fp;
	struct loaded l;

	if (optind + 1 != argc && optind + 2 != argc)
		usage_fail(VERIFY_USAGE, "verify takes a POLICY and, optionally, its SIG");
	if (!load_as(-1, argv[optind], &l, NULL, LOAD_POLICY | LOAD_MANIFEST))
		return EXIT_REFUSED;
	fp = sign_run_check(&l, argv[optind], argv[optind + 1], keys, 1, NULL);
	if (printf("hash: %s\nid: %s\nkey: %s\n", l.hash, l.id, fp) < 0 || fflush(stdout))
		die(EXIT_REFUSED, "unable to write standard output");
	unload_policy(&l);
	return 0;
}

static void write_out(void *ctx, const void *buf, size_t len)
{
	if (fwrite(buf, 1, len, stdout) != len)
		*(int *)ctx = 1;
}

int canonical_print(const char *path)
{
	struct json_doc doc;
	size_t len;
	int bad = 0;
	char *text = read_json(-1, path, &len, &doc);

	if (!text)
		return EXIT_REFUSED;
	if (!canon_write(&doc, write_out, &bad))
		diex(EXIT_REFUSED, "out of memory");
	if (bad || fflush(stdout))
		die(EXIT_REFUSED, "unable to write standard output");
	json_free(&doc);
	free(text);
	return 0;
}

const char *sign_run_check(const struct loaded *l, const char *policy, const char *sig,
                           char *const *keys, size_t nkeys, const char *expect_id)
{
	static char fp[HASH_TEXT_LEN + 1];
	unsigned char raw[SIG_RAW_LEN];
	struct pubkey k;
	char *sigpath;

	if (expect_id && strcmp(l->id, expect_id))
		diex(EXIT_REFUSED, "refused: %s id is %s, expected %s. Nothing ran.",
		     l->kind, q(l->id), q(expect_id));
	if (!nkeys)
		return NULL;
	sigpath = sig_read(policy, sig, raw);
	/* Every key is read and checked, even past one that verifies, so
	 * that a broken one is found now, not on the day it is needed. */
	for (size_t i = 0; i < nkeys; i++) {
		key_read(keys[i], &k);
		if (!*fp && key_verify(&k, l->digest, raw))
			memcpy(fp, k.fp_text, sizeof fp);
	}
	if (!*fp)
		diex(EXIT_REFUSED, "refused: %s is not a signature of %s %s by %s. Nothing ran.",
		     qn(sigpath), l->kind, l->hash, nkeys == 1 ? "the trusted key" : "any of the trusted keys");
	free(sigpath);
	return fp;
}
