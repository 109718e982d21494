/* Unit tests of hash.c: SHA-256 known answers, the exact canonical form of
 * edge cases, hash text in and out, the constant-time comparison, and
 * read_policy_file on every kind of file. TAP on stdout. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bearssl.h>

#include "load.h"
#include "tap.h"

const char *progname = "test-hash";

struct buf {
	char *p;
	size_t n, cap;
	unsigned calls;
};

static void collect(void *ctx, const void *data, size_t len)
{
	struct buf *b = ctx;

	if (b->n + len + 1 > b->cap) {
		b->cap = 2 * (b->n + len + 1);
		b->p = realloc(b->p, b->cap);
	}
	memcpy(b->p + b->n, data, len);
	b->n += len;
	b->p[b->n] = '\0';
	b->calls++;
}

static void hex(const unsigned char *d, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

static void test_sha256(void)
{
	static const struct { const char *in; size_t repeat; const char *want; } kat[] = {
		/* FIPS 180-2 appendix B, and the empty string. */
		{ "", 1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc", 1, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1,
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
		{ "a", 1000000,
		  "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0" },
	};
	size_t i, k;

	for (i = 0; i < sizeof kat / sizeof kat[0]; i++) {
		br_sha256_context sc;
		unsigned char d[HASH_LEN];
		char h[2 * HASH_LEN + 1];

		br_sha256_init(&sc);
		for (k = 0; k < kat[i].repeat; k++)
			br_sha256_update(&sc, kat[i].in, strlen(kat[i].in));
		br_sha256_out(&sc, d);
		hex(d, HASH_LEN, h);
		tap_ok(!strcmp(h, kat[i].want), "SHA-256 of %zu x \"%.8s\"", kat[i].repeat,
		       kat[i].in);
	}
}

/* Canonical form of IN, or NULL when json_parse refuses it. */
static char *canon(const char *in, size_t *n)
{
	struct json_doc doc;
	struct buf b = { 0 };
	char err[256];

	if (!json_parse(&doc, in, strlen(in), err, sizeof err)) {
		tap_diag("refused: %s", err);
		return NULL;
	}
	if (!canon_write(&doc, collect, &b)) {
		json_free(&doc);
		return NULL;
	}
	json_free(&doc);
	if (!b.p)
		b.p = calloc(1, 1);
	if (n)
		*n = b.n;
	return b.p;
}

static void expect_canon_n(const char *in, const char *want, size_t wantlen,
                           const char *what)
{
	size_t n = 0;
	char *got = canon(in, &n);

	if (!tap_ok(got && n == wantlen && !memcmp(got, want, n), "canonical: %s", what))
		tap_diag("got: %s", got ? got : "(null)");
	free(got);
}

static void expect_canon(const char *in, const char *want, const char *what)
{
	expect_canon_n(in, want, strlen(want), what);
}

static void test_canonical(void)
{
	expect_canon("{}", "{}", "empty object");
	expect_canon(" { \"b\" : 1 ,\n\t\"a\" : [ 1 , 2 ] } ", "{\"a\":[1,2],\"b\":1}",
	             "whitespace goes, keys sorted");
	expect_canon("{\"a\":[3,1,2]}", "{\"a\":[3,1,2]}", "arrays keep their order");
	expect_canon("{\"a\":{\"d\":{},\"c\":[]},\"b\":[[],{}]}",
	             "{\"a\":{\"c\":[],\"d\":{}},\"b\":[[],{}]}", "empty containers, nested sort");
	expect_canon("{\"t\":true,\"f\":false,\"n\":null}", "{\"f\":false,\"n\":null,\"t\":true}",
	             "literals");
	expect_canon("{\"a\":-0,\"b\":0,\"c\":-1,\"d\":9007199254740991,\"e\":-9007199254740991}",
	             "{\"a\":0,\"b\":0,\"c\":-1,\"d\":9007199254740991,\"e\":-9007199254740991}",
	             "integers in plain decimal, -0 is 0");
	expect_canon("{\"a\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"}",
	             "{\"a\":\"\\\"\\\\/\\b\\f\\n\\r\\t\"}", "short escapes; \\/ becomes /");
	expect_canon("{\"a\":\"\\u0022\\u005c\\u002F\\u0008\\u000c\\u000A\\u000d\\u0009\"}",
	             "{\"a\":\"\\\"\\\\/\\b\\f\\n\\r\\t\"}", "\\u forms of the short escapes");
	expect_canon("{\"a\":\"\\u0000\\u0001\\u001F\\u001e\\u000b\"}",
	             "{\"a\":\"\\u0000\\u0001\\u001f\\u001e\\u000b\"}",
	             "other controls as \\u00xx, lowercase");
	expect_canon("{\"a\":\"\\u007f\\u0080\\u00E9\\u2028\\u2029\\uffff\"}",
	             "{\"a\":\"\x7f\xc2\x80\xc3\xa9\xe2\x80\xa8\xe2\x80\xa9\xef\xbf\xbf\"}",
	             "DEL, U+2028 and the rest as raw UTF-8");
	expect_canon("{\"a\":\"\\ud83d\\ude00 \\uDBFF\\uDFFF \\ud800\\udc00\"}",
	             "{\"a\":\"\xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf \xf0\x90\x80\x80\"}",
	             "surrogate pairs as one 4-byte sequence");
	expect_canon("{\"a\":\"\xf0\x9f\x98\x80\\u0041\"}", "{\"a\":\"\xf0\x9f\x98\x80" "A\"}",
	             "raw UTF-8 kept, \\u0041 decoded");
	expect_canon("{\"\\u0061\\n\":1}", "{\"a\\n\":1}", "keys re-escaped too");

	/* Keys in code point order, which is UTF-8 byte order (not UTF-16's:
	 * U+FFFF sorts before U+1F600, though its UTF-16 unit is larger). */
	expect_canon("{\"\\ud83d\\ude00\":1,\"\\uffff\":2,\"\xc3\xa9\":3,\"z\":4,\"a\":5,"
	             "\"B\":6,\"\":7,\"\\u0000\":8}",
	             "{\"\":7,\"\\u0000\":8,\"B\":6,\"a\":5,\"z\":4,\"\xc3\xa9\":3,"
	             "\"\xef\xbf\xbf\":2,\"\xf0\x9f\x98\x80\":1}", "keys by code point");
	expect_canon("{\"ab\":1,\"b\":2,\"a\":3,\"a\\u0000\":4,\"abcdefgh2\":5,\"abcdefgh1\":6,"
	             "\"abcdefgh\":7}",
	             "{\"a\":3,\"a\\u0000\":4,\"ab\":1,\"abcdefgh\":7,\"abcdefgh1\":6,"
	             "\"abcdefgh2\":5,\"b\":2}", "a prefix sorts first, past 8 bytes too");
	expect_canon("{\"\\u0062\":1,\"a\":2,\"\\u0063\":3}", "{\"a\":2,\"b\":1,\"c\":3}",
	             "escaped keys sort by their decoded bytes");
	expect_canon("{\"x\":{\"\\u0062\":{\"\\u0064\":1,\"c\":2},\"a\":3},\"w\":\"\\t\"}",
	             "{\"w\":\"\\t\",\"x\":{\"a\":3,\"b\":{\"c\":2,\"d\":1}}}",
	             "escaped keys in nested objects");
}

/* A document larger than the writer's buffer, built with its canonical form. */
static void test_big(void)
{
	size_t n = 20000, i;
	char *in = malloc(n * 40 + 16), *want = malloc(n * 40 + 16), *p = in, *q = want;
	size_t got_n;
	char *got;

	p += sprintf(p, "{\"list\": [");
	q += sprintf(q, "{\"list\":[");
	for (i = 0; i < n; i++) {
		p += sprintf(p, "%s\"/p/%zu\\t\\u00e9\"", i ? ", " : "", i);
		q += sprintf(q, "%s\"/p/%zu\\t\xc3\xa9\"", i ? "," : "", i);
	}
	strcpy(p, "]}");
	strcpy(q, "]}");
	got = canon(in, &got_n);
	tap_ok(got && got_n == strlen(want) && !strcmp(got, want),
	       "canonical form of a %zu-byte document (many writer flushes)", strlen(in));
	free(got);
	free(in);
	free(want);
}

static void test_hash_doc(void)
{
	static const char *in = "{ \"pbp\": 1, \"id\": \"x\" }";
	struct json_doc doc;
	unsigned char d[HASH_LEN], e[HASH_LEN];
	char err[256], text[HASH_TEXT_LEN + 1];
	br_sha256_context sc;

	if (!tap_ok(json_parse(&doc, in, strlen(in), err, sizeof err), "hash_doc document"))
		return;
	tap_ok(hash_doc(&doc, d) == 1, "hash_doc succeeds");
	br_sha256_init(&sc);
	br_sha256_update(&sc, "{\"id\":\"x\",\"pbp\":1}", 18);
	br_sha256_out(&sc, e);
	tap_ok(!memcmp(d, e, HASH_LEN), "hash_doc is SHA-256 of the canonical form");
	json_free(&doc);

	if (!json_parse(&doc, "{}", 2, err, sizeof err))
		return;
	hash_doc(&doc, d);
	hash_format(d, text);
	tap_ok(!strcmp(text, "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"),
	       "hash of {} (policy-hash vector empty-object.json)");
	json_free(&doc);
}

static void test_hash_text(void)
{
	unsigned char d[HASH_LEN], e[HASH_LEN];
	char text[HASH_TEXT_LEN + 2];
	char s[100];
	size_t i;

	for (i = 0; i < HASH_LEN; i++)
		d[i] = (unsigned char)(i * 37 + 11);
	memset(text, 'Z', sizeof text);
	hash_format(d, text);
	tap_ok(strlen(text) == HASH_TEXT_LEN && !strncmp(text, "sha256:", 7) &&
	       text[HASH_TEXT_LEN + 1] == 'Z', "hash_format: 71 characters and a NUL");
	tap_ok(!strcmp(text + 7, "0b30557a9fc4e90e33587da2c7ec11365b80a5caef14395e83a8cdf2173c6186"),
	       "hash_format: lowercase hex, in order");
	tap_ok(hash_parse(text, e) && !memcmp(d, e, HASH_LEN), "hash_parse reads it back");
	strcpy(s, "sha256:0B30557A9FC4E90E33587DA2C7EC11365B80A5CAEF14395E83A8CDF2173C6186");
	memset(e, 0, sizeof e);
	tap_ok(hash_parse(s, e) && !memcmp(d, e, HASH_LEN), "hash_parse: uppercase hex");
	s[7] = 'g';
	tap_ok(!hash_parse(s, e), "hash_parse: a non-hex digit");
	tap_ok(!hash_parse("sha256:0b30", e), "hash_parse: too short");
	strcpy(s, text);
	strcat(s, "0");
	tap_ok(!hash_parse(s, e), "hash_parse: 65 digits");
	s[HASH_TEXT_LEN] = '\n';
	tap_ok(!hash_parse(s, e), "hash_parse: a trailing newline");
	s[HASH_TEXT_LEN - 1] = '\0';
	tap_ok(!hash_parse(s, e), "hash_parse: 63 digits");
	tap_ok(!hash_parse(text + 7, e), "hash_parse: no prefix");
	strcpy(s, text);
	memcpy(s, "SHA256:", 7);
	tap_ok(!hash_parse(s, e), "hash_parse: the prefix is lowercase");
	strcpy(s, text);
	memcpy(s, "sha512:", 7);
	tap_ok(!hash_parse(s, e), "hash_parse: another algorithm");
	tap_ok(!hash_parse("", e), "hash_parse: empty");

	memcpy(e, d, HASH_LEN);
	tap_ok(hash_equal(d, e) == 1, "hash_equal: equal");
	e[HASH_LEN - 1] ^= 1;
	tap_ok(hash_equal(d, e) == 0, "hash_equal: last bit differs");
	e[HASH_LEN - 1] ^= 1;
	e[0] ^= 0x80;
	tap_ok(hash_equal(d, e) == 0, "hash_equal: first bit differs");
	memset(e, 0, HASH_LEN);
	memset(d, 0xff, HASH_LEN);
	tap_ok(hash_equal(d, e) == 0, "hash_equal: every bit differs");
}

static char dir[] = "/tmp/test-hash.XXXXXX";

static char *path(const char *name)
{
	static char p[4][256];
	static int k;

	k = (k + 1) % 4;
	snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
	return p[k];
}

static void make_file(const char *name, const char *data, size_t n)
{
	FILE *f = fopen(path(name), "w");

	fwrite(data, 1, n, f);
	fclose(f);
}

static void expect_read(const char *file, const char *want_err, size_t want_len,
                        const char *what)
{
	char err[256], want[512];
	size_t len = (size_t)-1;
	char *b;

	err[0] = '\0';
	b = read_policy_file(file, &len, err, sizeof err);
	if (want_err) {
		snprintf(want, sizeof want, "unable to read %s: %s", file, want_err);
		if (!tap_ok(!b && !strcmp(err, want), "read_policy_file refuses %s", what))
			tap_diag("got: %s", b ? "a buffer" : err);
	} else {
		if (!tap_ok(b && len == want_len, "read_policy_file reads %s", what))
			tap_diag("got: %s, %zu bytes", b ? "a buffer" : err, len);
	}
	free(b);
}

static void test_read(void)
{
	char *big = malloc(JSON_MAX_BYTES + 1);
	char err[256], want[512];
	size_t len;
	char *b;
	int fd, pfd[2];
	pid_t pid;

	if (!mkdtemp(dir)) {
		tap_ok(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	make_file("small.json", "{\"a\":1}", 7);
	expect_read(path("small.json"), NULL, 7, "a small file");
	b = read_policy_file(path("small.json"), &len, err, sizeof err);
	tap_ok(b && !memcmp(b, "{\"a\":1}", 8), "the bytes, NUL-terminated");
	free(b);
	make_file("empty.json", "", 0);
	expect_read(path("empty.json"), NULL, 0, "an empty file (json_parse refuses it)");
	memset(big, ' ', JSON_MAX_BYTES + 1);
	make_file("exact.json", big, JSON_MAX_BYTES);
	expect_read(path("exact.json"), NULL, JSON_MAX_BYTES, "exactly 1 MiB");
	make_file("over.json", big, JSON_MAX_BYTES + 1);
	expect_read(path("over.json"), "larger than 1 MiB", 0, "1 MiB + 1 byte");
	free(big);
	expect_read(dir, "Is a directory", 0, "a directory");
	expect_read(path("missing.json"), "No such file or directory", 0, "a missing file");
	expect_read("/dev/zero", "not a regular file or a pipe", 0, "/dev/zero");
	expect_read("/dev/null", "not a regular file or a pipe", 0, "/dev/null");
	if (symlink("small.json", path("link.json")) == 0)
		expect_read(path("link.json"), NULL, 7, "a symlink to a file");

	/* A FIFO whose writer comes after the reader opened it. */
	fflush(stdout);         /* or the child's copy of the buffer may be written too */
	if (mkfifo(path("fifo"), 0600) == 0 && (pid = fork()) == 0) {
		usleep(100000);
		fd = open(path("fifo"), O_WRONLY);
		if (write(fd, "{\"b\":", 5) != 5)
			_exit(1);
		usleep(50000);
		_exit(write(fd, "2}", 2) == 2 ? 0 : 1);
	}
	expect_read(path("fifo"), NULL, 7, "a FIFO written in two parts by a late writer");
	waitpid(-1, NULL, 0);

	/* "-" is standard input: a pipe here, and /dev/zero refused. */
	if (pipe(pfd) == 0) {
		int save = dup(0);

		if (write(pfd[1], "{}", 2) != 2)
			tap_diag("write: %s", strerror(errno));
		close(pfd[1]);
		dup2(pfd[0], 0);
		close(pfd[0]);
		len = 0;
		b = read_policy_file("-", &len, err, sizeof err);
		tap_ok(b && len == 2 && !memcmp(b, "{}", 2), "\"-\" reads standard input");
		free(b);
		fd = open("/dev/zero", O_RDONLY);
		dup2(fd, 0);
		close(fd);
		b = read_policy_file("-", &len, err, sizeof err);
		tap_ok(!b && !strcmp(err, "unable to read standard input: not a regular file or a pipe"),
		       "\"-\" refuses /dev/zero on standard input");
		free(b);
		dup2(save, 0);
		close(save);
	}

	/* Unreadable. Root reads anything, so as root a child becomes nobody. */
	make_file("secret.json", "{}", 2);
	chmod(path("secret.json"), 0);
	chmod(dir, 0755);
	if (geteuid() != 0) {
		expect_read(path("secret.json"), "Permission denied", 0, "an unreadable file");
	} else {
		int status = -1;

		fflush(stdout);
		if ((pid = fork()) == 0) {
			if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
				_exit(2);
			b = read_policy_file(path("secret.json"), &len, err, sizeof err);
			snprintf(want, sizeof want, "unable to read %s: Permission denied",
			         path("secret.json"));
			_exit(!b && !strcmp(err, want) ? 0 : 1);
		}
		waitpid(pid, &status, 0);
		tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		       "read_policy_file refuses an unreadable file (as nobody: %d)", status);
	}

	unlink(path("small.json"));
	unlink(path("empty.json"));
	unlink(path("exact.json"));
	unlink(path("over.json"));
	unlink(path("link.json"));
	unlink(path("fifo"));
	unlink(path("secret.json"));
	rmdir(dir);
}

int main(void)
{
	test_sha256();
	test_canonical();
	test_big();
	test_hash_doc();
	test_hash_text();
	test_read();
	return tap_done();
}
