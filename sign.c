/* Signed policies (DESIGN.md 2.3): keygen, sign, verify, `hash
 * --canonical` and run's --trust-key step. A policy
 * is signed by signing its canonical bytes, so the message digest ECDSA
 * signs is the policy's own hash: loading the policy computes it. Exit 0,
 * or 125 with one line on stderr. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bearssl.h>

#include "common.h"
#include "key.h"
#include "pem.h"
#include "sign.h"
#include "trust.h"

/* The one option of a subcommand: "-X ARG", or --help. */
static const char *one_option(int argc, char **argv, int letter, const char *usage)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char optstring[] = "+:X:h";
	const char *arg = NULL;
	int c;

	optstring[2] = (char)letter;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, optstring, longopts, NULL)) != -1) {
		if (c == letter)
			arg = optarg;
		else if (c == 'h') {
			printf("usage: %s\n", usage);
			exit(fflush(stdout) ? EXIT_REFUSED : 0);
		} else if (c == ':') {
			usage_fail(usage, "option %s needs an argument", qn(argv[optind - 1]));
		} else {
			usage_fail(usage, "unknown option %s", qn(argv[optind - 1]));
		}
	}
	if (!arg)
		usage_fail(usage, "-%c is required", letter);
	return arg;
}

static char *with_suffix(const char *path, const char *suffix)
{
	char *s;

	if (asprintf(&s, "%s%s", path, suffix) < 0)
		diex(EXIT_REFUSED, "out of memory");
	return s;
}

static void write_or_die(int fd, const char *path, const void *buf, size_t len,
                         const char *unlink1, const char *unlink2)
{
	if (write_all(fd, buf, len) == 0 && fsync(fd) == 0 && close(fd) == 0)
		return;
	int e = errno;
	unlink(unlink1);
	if (unlink2)
		unlink(unlink2);
	errno = e;
	die(EXIT_REFUSED, "unable to write %s", path);
}

int cmd_keygen(int argc, char **argv)
{
	const char *name = one_option(argc, argv, 'o', KEYGEN_USAGE);
	unsigned char seed[48], kbuf[BR_EC_KBUF_PRIV_MAX_SIZE], der[256];
	unsigned char spki[SPKI_P256_LEN];
	char keypem[512], pubpem[512];
	br_hmac_drbg_context rng;
	br_ec_private_key sk;
	struct privkey k;
	size_t got = 0, dlen;
	char *keypath, *pubpath;
	int kfd, pfd;

	if (optind != argc)
		usage_fail(KEYGEN_USAGE, "keygen takes no operand");
	keypath = with_suffix(name, ".key");
	pubpath = with_suffix(name, ".pub");

	/* getrandom() waits until the kernel's pool is seeded, never after. */
	while (got < sizeof seed) {
		ssize_t n = getrandom(seed + got, sizeof seed - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die(EXIT_REFUSED, "unable to get random bytes");
		got += (size_t)n;
	}
	br_hmac_drbg_init(&rng, &br_sha256_vtable, seed, sizeof seed);
	explicit_bzero(seed, sizeof seed);
	if (!br_ec_keygen(&rng.vtable, &br_ec_p256_m31, &sk, kbuf, BR_EC_secp256r1))
		diex(EXIT_REFUSED, "unable to make a P-256 key");
	explicit_bzero(&rng, sizeof rng);
	/* Read back what is written, so the key file is one that sign reads. */
	{
		br_ec_public_key pk;
		unsigned char q[BR_EC_KBUF_PUB_MAX_SIZE];

		if (br_ec_compute_pub(&br_ec_p256_m31, &pk, q, &sk) != P256_POINT_LEN ||
		    !(dlen = br_encode_ec_raw_der(der, &sk, &pk)) || dlen > sizeof der)
			diex(EXIT_REFUSED, "unable to encode the key");
	}
	explicit_bzero(kbuf, sizeof kbuf);
	if (!pem_encode(keypem, sizeof keypem, der, dlen, "EC PRIVATE KEY"))
		diex(EXIT_REFUSED, "unable to encode the key");
	explicit_bzero(der, sizeof der);
	{
		const char *why;
		if (!key_private_parse(keypem, strlen(keypem), &k, &why))
			diex(EXIT_REFUSED, "the new key does not read back: %s", why);
	}
	spki_encode_p256(k.pub.q, spki);
	if (!pem_encode(pubpem, sizeof pubpem, spki, sizeof spki, "PUBLIC KEY"))
		diex(EXIT_REFUSED, "unable to encode the public key");

	/* O_EXCL: never replace a key, nor write through a planted link. */
	kfd = open(keypath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (kfd < 0)
		die(EXIT_REFUSED, "unable to create %s", keypath);
	pfd = open(pubpath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (pfd < 0) {
		int e = errno;
		unlink(keypath);
		errno = e;
		die(EXIT_REFUSED, "unable to create %s", pubpath);
	}
	if (fchmod(kfd, 0600) < 0) {
		unlink(keypath);
		unlink(pubpath);
		die(EXIT_REFUSED, "unable to chmod %s", keypath);
	}
	write_or_die(kfd, keypath, keypem, strlen(keypem), keypath, pubpath);
	write_or_die(pfd, pubpath, pubpem, strlen(pubpem), keypath, pubpath);
	explicit_bzero(keypem, sizeof keypem);
	if (printf("%s\n", k.pub.fp_text) < 0 || fflush(stdout))
		die(EXIT_REFUSED, "unable to write standard output");
	explicit_bzero(&k, sizeof k);
	free(keypath);
	free(pubpath);
	return 0;
}

int cmd_sign(int argc, char **argv)
{
	const char *keypath = one_option(argc, argv, 'k', SIGN_USAGE);
	char err[PATH_MAX + 128], *sigpath, *tmp;
	unsigned char sig[SIG_DER_MAX], raw[SIG_RAW_LEN];
	struct privkey k;
	struct loaded l;
	size_t n;
	int fd;

	if (optind + 1 != argc)
		usage_fail(SIGN_USAGE, "sign takes one POLICY");
	if (!strcmp(argv[optind], "-"))
		usage_fail(SIGN_USAGE, "sign needs a policy file, not standard input");
	if (!key_private_read(keypath, &k, err, sizeof err))
		diex(EXIT_REFUSED, "%s", err);
	/* As `check` does: every problem on a line of its own. */
	if (!load_policy(-1, argv[optind], &l, NULL)) {
		explicit_bzero(&k, sizeof k);
		return EXIT_REFUSED;
	}
	n = key_sign(&k, l.digest, sig);
	explicit_bzero(&k.x, sizeof k.x);
	/* Check it before it leaves: a fault must not publish a bad one. */
	if (!n || !sig_der_decode(sig, n, raw) || !key_verify(&k.pub, l.digest, raw))
		diex(EXIT_REFUSED, "unable to sign %s", argv[optind]);

	/* Write beside it and rename: a reader sees the old or the new. */
	sigpath = with_suffix(argv[optind], ".sig");
	tmp = with_suffix(sigpath, ".XXXXXX");
	if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0)
		die(EXIT_REFUSED, "unable to create a temporary file beside %s", sigpath);
	if (fchmod(fd, 0644) < 0) {
		unlink(tmp);
		die(EXIT_REFUSED, "unable to chmod %s", tmp);
	}
	write_or_die(fd, tmp, sig, n, tmp, NULL);
	if (rename(tmp, sigpath) < 0) {
		int e = errno;
		unlink(tmp);
		errno = e;
		die(EXIT_REFUSED, "unable to rename %s to %s", tmp, sigpath);
	}
	if (printf("%s: %s signed by %s\n", sigpath, l.hash, k.pub.fp_text) < 0 || fflush(stdout))
		die(EXIT_REFUSED, "unable to write standard output");
	free(tmp);
	free(sigpath);
	unload_policy(&l);
	return 0;
}

/* The signature file of POLICY: SIG, or POLICY.sig. */
static char *sig_path(const char *policy, const char *sig, const char *option)
{
	if (sig)
		return with_suffix(sig, "");
	if (!strcmp(policy, "-"))
		diex(EXIT_REFUSED, "a policy on standard input needs %s", option);
	return with_suffix(policy, ".sig");
}

int cmd_verify(int argc, char **argv)
{
	const char *keypath = one_option(argc, argv, 'K', VERIFY_USAGE);
	char err[PATH_MAX + 128], *sigpath;
	unsigned char raw[SIG_RAW_LEN];
	struct pubkey k;
	struct loaded l;

	if (optind + 1 != argc && optind + 2 != argc)
		usage_fail(VERIFY_USAGE, "verify takes a POLICY and, optionally, its SIG");
	sigpath = sig_path(argv[optind], argv[optind + 1], "its SIG named");
	check_key_file(keypath);
	if (!key_public_read(keypath, 0, &k, err, sizeof err) ||
	    !sig_read(sigpath, raw, err, sizeof err))
		diex(EXIT_REFUSED, "%s", err);
	if (!load_policy(-1, argv[optind], &l, NULL)) {
		free(sigpath);
		return EXIT_REFUSED;
	}
	if (!key_verify(&k, l.digest, raw)) {
		fprintf(stderr, "%s: fatal: refused: %s is not a signature of policy %s by key %s\n",
		        progname, qn(sigpath), l.hash, k.fp_text);
		free(sigpath);
		unload_policy(&l);
		return EXIT_REFUSED;
	}
	if (printf("hash: %s\nid: %s\nkey: %s\n", l.hash, l.pol.id, k.fp_text) < 0 ||
	    fflush(stdout))
		die(EXIT_REFUSED, "unable to write standard output");
	free(sigpath);
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
	char err[PATH_MAX + 128], *sigpath;
	unsigned char raw[SIG_RAW_LEN];
	struct pubkey *k;

	if (expect_id && strcmp(l->pol.id, expect_id))
		diex(EXIT_REFUSED, "refused: policy id is %s, expected %s. Nothing ran.",
		     q(l->pol.id), q(expect_id));
	if (!nkeys)
		return NULL;
	/* Every key is read and checked, so that a broken one is found
	 * now, not on the day it would have been needed. */
	if (!(k = calloc(nkeys, sizeof *k)))
		diex(EXIT_REFUSED, "out of memory");
	for (size_t i = 0; i < nkeys; i++) {
		if (!key_public_read(keys[i], 1, &k[i], err, sizeof err))
			diex(EXIT_REFUSED, "--trust-key %s", err);
		check_key_file(keys[i]);
	}
	sigpath = sig_path(policy, sig, "--signature FILE");
	if (!sig_read(sigpath, raw, err, sizeof err))
		diex(EXIT_REFUSED, "refused: %s", err);
	for (size_t i = 0; i < nkeys; i++)
		if (key_verify(&k[i], l->digest, raw)) {
			memcpy(fp, k[i].fp_text, sizeof fp);
			free(k);
			free(sigpath);
			return fp;
		}
	diex(EXIT_REFUSED, "refused: %s is not a signature of policy %s by %s. Nothing ran.",
	     qn(sigpath), l->hash, nkeys == 1 ? "the trusted key" : "any of the trusted keys");
}
