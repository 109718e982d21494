/* sharness-exec-egress: the two requests it serves (egress.h). HTTP
 * CONNECT in authority form, every line and the whole head bounded, and
 * SOCKS5 CONNECT with a domain name (RFC 1928), without authentication.
 * Anything else is refused with the status the protocol has for it: no
 * plain HTTP is forwarded, no SOCKS5 BIND or UDP ASSOCIATE, no address
 * types but a name, no SOCKS4. */
#include <stdlib.h>
#include <string.h>

#include "egress.h"

static int bad(struct request *r, int status, const char *why)
{
	r->status = status;
	r->why = why;
	return REQ_BAD;
}

/* HOST:PORT of an authority-form target into R. */
static int authority(const char *s, size_t n, struct request *r)
{
	const char *colon = NULL;
	unsigned long port = 0;

	for (size_t i = n; i-- > 0;)
		if (s[i] == ':') {
			colon = s + i;
			break;
		}
	if (!colon || colon == s || (size_t)(colon - s) > EGRESS_NAME_MAX + 1 ||
	    colon + 1 == s + n || colon[1] == '0' || s + n - colon - 1 > 5)
		return bad(r, 400, "not CONNECT HOST:PORT");
	for (const char *p = colon + 1; p < s + n; p++) {
		if (*p < '0' || *p > '9')
			return bad(r, 400, "not CONNECT HOST:PORT");
		port = port * 10 + (unsigned long)(*p - '0');
	}
	if (port > 65535)
		return bad(r, 400, "a port over 65535");
	for (const char *p = s; p < colon; p++)
		if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f)
			return bad(r, 400, "a byte no host name has in the host");
	memcpy(r->host, s, (size_t)(colon - s));
	r->host[colon - s] = '\0';
	r->port = (unsigned)port;
	return REQ_DONE;
}

int http_request(const char *buf, size_t len, struct request *r)
{
	const char *end = NULL, *line = buf, *nl, *sp1, *sp2;
	size_t lines = 0;

	memset(r, 0, sizeof *r);
	/* Each line within its limit, the head within its own, up to the
	 * empty line that ends it. */
	for (;;) {
		size_t left = len - (size_t)(line - buf), n;
		nl = memchr(line, '\n', left);
		n = nl ? (size_t)(nl - line) : left;
		if (n > EGRESS_LINE_MAX)
			return bad(r, 431, "a line of the request over 1024 bytes");
		if (!nl)
			break;
		if (n == 0 || nl[-1] != '\r')
			return bad(r, 400, "a line not ended by CR LF");
		if (++lines > 100)
			return bad(r, 431, "over 100 header lines");
		if (n == 1 && lines > 1) {
			end = nl + 1;
			break;
		}
		line = nl + 1;
	}
	if (!end)
		return len >= EGRESS_HEAD_MAX ? bad(r, 431, "a request head over 8192 bytes")
		                              : REQ_MORE;
	if ((size_t)(end - buf) > EGRESS_HEAD_MAX)
		return bad(r, 431, "a request head over 8192 bytes");
	r->used = (size_t)(end - buf);
	nl = memchr(buf, '\r', r->used);
	if (!(sp1 = memchr(buf, ' ', (size_t)(nl - buf))) ||
	    !(sp2 = memchr(sp1 + 1, ' ', (size_t)(nl - sp1 - 1))) ||
	    memchr(sp2 + 1, ' ', (size_t)(nl - sp2 - 1)))
		return bad(r, 400, "not a request line");
	if ((size_t)(nl - sp2 - 1) != 8 || strncmp(sp2 + 1, "HTTP/1.", 7) ||
	    (sp2[8] != '0' && sp2[8] != '1'))
		return bad(r, 400, "not HTTP/1.0 or HTTP/1.1");
	if (sp1 - buf != 7 || strncmp(buf, "CONNECT", 7))
		return bad(r, 405, "plain HTTP is not forwarded: only CONNECT (https://)");
	return authority(sp1 + 1, (size_t)(sp2 - sp1 - 1), r);
}

int socks_greeting(const unsigned char *buf, size_t len, struct request *r)
{
	memset(r, 0, sizeof *r);
	r->socks = 5;
	if (len < 2)
		return REQ_MORE;
	if (buf[0] != 5)
		return bad(r, 0xff, buf[0] == 4 ? "SOCKS4 is not served: SOCKS5 with a name "
		           "(socks5h://)" : "not SOCKS5");
	if (buf[1] == 0)
		return bad(r, 0xff, "a SOCKS5 greeting with no method");
	if (len < 2 + (size_t)buf[1])
		return REQ_MORE;
	r->used = 2 + (size_t)buf[1];
	if (!memchr(buf + 2, 0, buf[1]))
		return bad(r, 0xff, "a SOCKS5 greeting without \"no authentication\"");
	return REQ_DONE;
}

int socks_request(const unsigned char *buf, size_t len, struct request *r)
{
	size_t n;

	memset(r, 0, sizeof *r);
	r->socks = 5;
	if (len < 4)
		return REQ_MORE;
	if (buf[0] != 5 || buf[2] != 0)
		return bad(r, 1, "not a SOCKS5 request");
	if (buf[1] != 1)
		return bad(r, 7, buf[1] == 2 ? "SOCKS5 BIND is not served" : buf[1] == 3 ?
		           "SOCKS5 UDP ASSOCIATE is not served" : "an unknown SOCKS5 command");
	if (buf[3] != 3)
		return bad(r, 8, "a SOCKS5 address that is no name: the step resolves names "
		           "itself (socks5h://)");
	if (len < 5)
		return REQ_MORE;
	n = buf[4];
	if (!n)
		return bad(r, 1, "an empty name");
	if (len < 5 + n + 2)
		return REQ_MORE;
	for (size_t i = 0; i < n; i++)
		if (buf[5 + i] <= ' ' || buf[5 + i] >= 0x7f)
			return bad(r, 1, "a byte that is no host name's in the name");
	memcpy(r->host, buf + 5, n);
	r->host[n] = '\0';
	r->port = (unsigned)buf[5 + n] << 8 | buf[6 + n];
	r->used = 7 + n;
	if (!r->port)
		return bad(r, 1, "port 0");
	return REQ_DONE;
}
