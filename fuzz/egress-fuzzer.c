/* egress-fuzzer: what the egress step reads from a hostile target
 * (egress/egress.h): the HTTP CONNECT head, the SOCKS5 greeting and
 * request, the ClientHello's server name, and, of what the policy writes,
 * the allow list's entries and host names. The first byte of an input
 * chooses the reader; the rest is its input. Besides crashes, UB and
 * leaks: a request taken names a host of at most 255 printable bytes with
 * no space and a port of 1 to 65535 within the bytes given; a server name
 * taken is a host name's bytes, lower case; what a whole input makes of
 * itself, none of its prefixes refuses when the whole is taken (a reader
 * that waits for more never refuses early what it would take). The name
 * checker's input is also read as a line of the server's, as the step
 * and the supervisor tally it (lib/egresstally.h): the server parses what
 * a target sends, so its lines are untrusted too; each host kept is a
 * string within its buffer, each port 0 to 65535, the lists within
 * TALLY_MAX. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "egress/egress.h"
#include "lib/egresstally.h"

const char *progname = "egress-fuzzer";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond, what) do { if (!(cond)) { \
	fprintf(stderr, "egress-fuzzer: check failed: %s (%s)\n", what, #cond); \
	abort(); } } while (0)

static void check_request(const struct request *r, size_t len, int host)
{
	size_t n = strlen(r->host);

	CHECK(r->used >= 1 && r->used <= len, "took bytes it was not given");
	if (!host)
		return;		/* a greeting */
	CHECK(n >= 1 && n <= 255, "a host of no length, or over 255 bytes");
	for (size_t i = 0; i < n; i++)
		CHECK((unsigned char)r->host[i] > ' ' && (unsigned char)r->host[i] < 0x7f,
		      "a host with a space, a control or a non-ASCII byte");
	CHECK(r->port >= 1 && r->port <= 65535, "a port out of range");
}

/* READ on every prefix of BUF: a whole that is taken has no refused
 * prefix. HOST: READ takes a request, which names one. */
static void prefixes(int (*read)(const unsigned char *, size_t, struct request *),
                     const unsigned char *buf, size_t len, int host)
{
	struct request r;
	int whole = read(buf, len, &r);

	if (whole == REQ_DONE)
		check_request(&r, len, host);
	if (whole == REQ_BAD)
		CHECK(r.why && *r.why, "a refusal without a reason");
	for (size_t i = 0; whole == REQ_DONE && i < r.used; i++)
		CHECK(read(buf, i, &r) == REQ_MORE, "refused or took a prefix of what it takes");
}

static int http(const unsigned char *b, size_t n, struct request *r)
{
	return http_request((const char *)b, n, r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char name[EGRESS_NAME_MAX + 1], *s;
	unsigned char addr[16];
	const char *why;
	struct allow a;
	int literal, family, st;

	if (size < 1)
		return 0;
	switch (data[0] % 5) {
	case 0:
		prefixes(http, data + 1, size - 1, 1);
		break;
	case 1:
		prefixes(socks_greeting, data + 1, size - 1, 0);
		prefixes(socks_request, data + 1, size - 1, 1);
		break;
	case 2:
		st = sni_parse(data + 1, size - 1, name, &why);
		if (st == SNI_NAME) {
			CHECK(*name && strlen(name) <= EGRESS_NAME_MAX, "a server name's length");
			for (s = name; *s; s++)
				CHECK(*s > ' ' && *s < 0x7f && !(*s >= 'A' && *s <= 'Z'),
				      "a server name's bytes");
		}
		CHECK(st != SNI_BAD || (why && *why), "a refusal without a reason");
		break;
	default:
		if (!(s = malloc(size)))
			return 0;
		memcpy(s, data + 1, size - 1);
		s[size - 1] = '\0';
		if (data[0] % 5 == 3) {
			if (allow_parse(s, &a, &why) == 0) {
				CHECK(a.port >= 1 && a.port <= 65535, "an entry's port");
				CHECK(a.family || (*a.name && strlen(a.name) <= EGRESS_NAME_MAX),
				      "an entry with neither an address nor a name");
				CHECK(!a.family || a.prefix <= (a.family == AF_INET ? 32u : 128u),
				      "a prefix longer than its address");
				CHECK(allow_name(&a, 1, a.name, a.port) == (a.family || a.wild ? NULL : &a),
				      "an exact entry that does not let its own name through");
			} else
				CHECK(why && *why, "a refusal without a reason");
		} else {
			static struct tally t;
			tally_line(&t, s, strlen(s));
			CHECK(t.nrefused <= TALLY_MAX && t.nallowed <= TALLY_MAX, "a list past its end");
			for (size_t i = 0; i < t.nrefused; i++)
				CHECK(strlen(t.refused[i].host) < TALLY_HOST &&
				      t.refused[i].port <= 65535 && t.refused[i].n, "a refused host");
			for (size_t i = 0; i < t.nallowed; i++)
				CHECK(strlen(t.allowed[i].host) < TALLY_HOST && t.allowed[i].port &&
				      t.allowed[i].port <= 65535, "an allowed host");
		}
		if (data[0] % 5 == 4 && strlen(s) <= EGRESS_NAME_MAX + 1 &&
		    name_check(s, &literal, &family, addr, &why) == 0) {
			CHECK(!literal, "a literal passed as a name");
			for (char *p = s; *p; p++)
				CHECK((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
				      *p == '-' || *p == '.', "a name's bytes");
		}
		free(s);
	}
	return 0;
}
