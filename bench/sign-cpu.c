/* sign-cpu POLICY KEY.pub SIG N: the CPU time of what `sharness-exec
 * verify` and `run --trust-key` do besides starting a process, N times:
 * read and parse the policy, hash its canonical form, read the key (PEM,
 * SPKI, point check) and the signature (DER), verify. Prints the mean per
 * round, and of the ECDSA verification alone. Built and run by
 * bench/sign.sh; a benchmark, never a test. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "hash.h"
#include "json.h"
#include "key.h"
#include "load.h"

const char *progname = "sign-cpu";

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	unsigned char digest[HASH_LEN], raw[SIG_RAW_LEN], pem[KEY_FILE_MAX], der[SIG_DER_MAX];
	const char *why = "";
	char err[512];
	struct json_doc doc;
	struct pubkey k;
	double t0, t1, t2;
	long n;
	size_t len;
	char *text;

	if (argc != 5 || (n = atol(argv[4])) <= 0) {
		fprintf(stderr, "usage: sign-cpu POLICY KEY.pub SIG N\n");
		return 2;
	}
	t0 = cpu_ms();
	for (long i = 0; i < n; i++) {
		/* file_read refuses (and exits) by itself. */
		if (!(text = read_policy_file(argv[1], &len, err, sizeof err)) ||
		    !json_parse(&doc, text, len, err, sizeof err) || !hash_doc(&doc, digest) ||
		    !key_public_parse(pem, file_read(-1, argv[2], pem, sizeof pem), &k, &why) ||
		    !sig_der_decode(der, file_read(-1, argv[3], der, sizeof der), raw) ||
		    !key_verify(&k, digest, raw)) {
			fprintf(stderr, "sign-cpu: failed: %s%s\n", err, why);
			return 1;
		}
		json_free(&doc);
		free(text);
	}
	t1 = cpu_ms();
	for (long i = 0; i < n; i++)
		if (!key_verify(&k, digest, raw))
			return 1;
	t2 = cpu_ms();
	printf("%.3f %.3f\n", (t1 - t0) / n, (t2 - t1) / n);
	return 0;
}
