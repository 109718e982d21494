/* sharness-exec-sign: `sharness-exec keygen`, `sign`, `verify` and `hash
 * --canonical`, beside the verify path (DESIGN.md 2.3): the front end execs
 * this program, so private keys are read, made and used here only, and
 * the subcommands that only print what a file holds are not in the
 * program that runs the chain (`learn` is a program of its own,
 * sharness-exec-learn). It speaks as the front end, whose subcommands
 * these are. Exit 0, or 125 with one line on stderr. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bearssl.h>

#include "common.h"
#include "front/frontend.h"
#include "launch/manifest.h"
#include "privkey.h"
#include "verify.h"

const char *progname = "sharness-exec";

#define USAGE "sharness-exec-sign keygen -o NAME\n" \
	"       sharness-exec-sign sign -k NAME.key POLICY\n" \
	"       sharness-exec-sign verify -K NAME.pub POLICY [SIG]\n" \
	"       sharness-exec-sign hash --canonical FILE"

/* The argument of a subcommand's one option "-LETTER ARG", optind past
 * it; --help prints USAGE and exits 0, anything else is a usage error. */
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
		if (c == letter) {
			arg = optarg;
		} else if (c == 'h') {
			printf("usage: %s\n", usage);
			exit(fflush(stdout) ? EXIT_REFUSED : 0);
		} else {
			usage_option(usage, c, argv[optind - 1]);
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

static int cmd_keygen(int argc, char **argv)
{
	const char *name = one_option(argc, argv, 'o', KEYGEN_USAGE);
	unsigned char spki[SPKI_P256_LEN];
	char keypem[512], pubpem[512];
	struct privkey k, back;
	const char *why;
	char *keypath, *pubpath;
	int kfd, pfd;

	if (optind != argc)
		usage_fail(KEYGEN_USAGE, "keygen takes no operand");
	keypath = with_suffix(name, ".key");
	pubpath = with_suffix(name, ".pub");

	errno = 0;
	if (!key_generate(&k))
		die(EXIT_REFUSED, "unable to make a P-256 key");
	if (!key_private_pem(&k, keypem, sizeof keypem))
		diex(EXIT_REFUSED, "unable to encode the key");
	/* Read back what is written, so the key file is one that sign reads. */
	why = "it reads as another key";
	if (!key_private_parse(keypem, strlen(keypem), &back, &why) ||
	    memcmp(back.x, k.x, sizeof k.x))
		diex(EXIT_REFUSED, "the new key does not read back: %s", why);
	explicit_bzero(&back, sizeof back);
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

static int cmd_sign(int argc, char **argv)
{
	const char *keypath = one_option(argc, argv, 'k', SIGN_USAGE);
	unsigned char text[KEY_FILE_MAX], sig[SIG_DER_MAX], raw[SIG_RAW_LEN];
	char *sigpath, *tmp;
	const char *why;
	struct privkey k;
	struct manifest m;
	struct loaded l;
	size_t n;
	int fd, ok;

	if (optind + 1 != argc)
		usage_fail(SIGN_USAGE, "sign takes one POLICY");
	if (!strcmp(argv[optind], "-"))
		usage_fail(SIGN_USAGE, "sign needs a policy file, not standard input");
	n = file_read(-1, keypath, text, sizeof text);
	ok = key_private_parse(text, n, &k, &why);
	explicit_bzero(text, sizeof text);
	if (!ok)
		diex(EXIT_REFUSED, "%s: %s", qn(keypath), why);
	/* As `check` does: every problem on a line of its own. */
	if (!manifest_load(-1, argv[optind], &l, &m, NULL, LOAD_POLICY | LOAD_MANIFEST)) {
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
	manifest_free(&m);
	unload_policy(&l);
	return 0;
}

static int cmd_verify(int argc, char **argv)
{
	char *keys[1] = { (char *)one_option(argc, argv, 'K', VERIFY_USAGE) };
	const char *fp;
	struct manifest m;
	struct loaded l;

	if (optind + 1 != argc && optind + 2 != argc)
		usage_fail(VERIFY_USAGE, "verify takes a POLICY and, optionally, its SIG");
	if (!manifest_load(-1, argv[optind], &l, &m, NULL, LOAD_POLICY | LOAD_MANIFEST))
		return EXIT_REFUSED;
	fp = sign_run_check(&l, argv[optind], argv[optind + 1], keys, 1, NULL);
	if (printf("hash: %s\nid: %s\nkey: %s\n", l.hash, l.id, fp) < 0 || fflush(stdout))
		die(EXIT_REFUSED, "unable to write standard output");
	manifest_free(&m);
	unload_policy(&l);
	return 0;
}

static void write_out(void *ctx, const void *buf, size_t len)
{
	if (fwrite(buf, 1, len, stdout) != len)
		*(int *)ctx = 1;
}

/* `hash --canonical FILE`: its canonical bytes on standard output. */
static int cmd_canonical(int argc, char **argv)
{
	struct json_doc doc;
	size_t len;
	int bad = 0;
	char *text;

	if (argc != 3 || strcmp(argv[1], "--canonical"))
		usage_fail(HASH_USAGE, "hash takes one FILE");
	if (!(text = read_json(-1, argv[2], &len, &doc)))
		return EXIT_REFUSED;
	if (!canon_write(&doc, write_out, &bad))
		diex(EXIT_REFUSED, "out of memory");
	if (bad || fflush(stdout))
		die(EXIT_REFUSED, "unable to write standard output");
	json_free(&doc);
	free(text);
	return 0;
}

static const struct {
	const char *name;
	int (*run)(int, char **);
} cmds[] = {
	{ "keygen", cmd_keygen }, { "sign", cmd_sign }, { "verify", cmd_verify },
	{ "hash", cmd_canonical },
};

int main(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: %s\n", USAGE);
		return fflush(stdout) ? EXIT_REFUSED : 0;
	}
	for (size_t i = 0; argc > 1 && i < sizeof cmds / sizeof *cmds; i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].run(argc - 1, argv + 1);
	if (argc > 1)
		usage_fail(USAGE, "unknown command %s", qn(argv[1]));
	usage_fail(USAGE, "no command given");
}
