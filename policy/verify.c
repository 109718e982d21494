/* Signed policies on the verify path (verify.h, DESIGN.md 2.3). A policy is
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
#include "verify.h"
#include "trust.h"

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
