/* sharness-exec-egress: the server name a TLS client asks for (egress.h),
 * read from its ClientHello (RFC 8446 4.1.2, RFC 6066 3) across as many
 * handshake records as it takes, so that a hello split in pieces is read
 * whole. What it cannot see: the Host header inside the TLS session
 * (domain fronting), and the inner hello of Encrypted Client Hello, which
 * is refused. */
#include <string.h>

#include "egress.h"

#define EXT_SERVER_NAME 0x0000
#define EXT_ECH         0xfe0d
#define EXT_ECH_OUTER   0xfd00

static unsigned be16(const unsigned char *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

/* The handshake bytes of the records in BUF into HS (at most CAP), and
 * whether the records so far are whole: SNI_MORE, SNI_NOT_TLS or SNI_BAD,
 * or 1 with *HLEN the handshake bytes gathered. */
static int records(const unsigned char *buf, size_t len, unsigned char *hs, size_t cap,
                   size_t *hlen, const char **why)
{
	size_t at = 0;

	*hlen = 0;
	if (len < 1)
		return SNI_MORE;
	if (buf[0] != 0x16)
		return SNI_NOT_TLS;
	while (at + 5 <= len) {
		size_t n = be16(buf + at + 3);
		if (buf[at] != 0x16 || buf[at + 1] != 3)
			return *why = "a TLS record that is no handshake within the ClientHello", SNI_BAD;
		if (!n || n > 16384)
			return *why = "a TLS record of a length TLS does not allow", SNI_BAD;
		if (at + 5 + n > len)
			break;
		if (*hlen + n > cap)
			return *why = "a ClientHello over 16384 bytes", SNI_BAD;
		memcpy(hs + *hlen, buf + at + 5, n);
		*hlen += n;
		at += 5 + n;
		/* The hello whole: what follows (0-RTT data) is not its. */
		if (*hlen >= 4 && *hlen >= 4 + ((size_t)hs[1] << 16 | (size_t)hs[2] << 8 | hs[3]))
			break;
	}
	if (len >= 3 && buf[1] != 3)
		return *why = "not TLS 1.x", SNI_BAD;
	return 1;
}

/* The server_name extension's body P (N bytes): its one host name. */
static int server_name(const unsigned char *p, size_t n, char *name, const char **why)
{
	size_t list, at = 2, names = 0;

	if (n < 2 || (list = be16(p)) != n - 2)
		return *why = "a malformed server_name extension", SNI_BAD;
	while (at < n) {
		size_t len;
		if (at + 3 > n || at + 3 + (len = be16(p + at + 1)) > n)
			return *why = "a malformed server_name extension", SNI_BAD;
		if (p[at] == 0) {
			if (++names > 1)
				return *why = "a ClientHello naming two servers", SNI_BAD;
			/* its text, less one trailing dot: 1 to 253 bytes */
			size_t text = len - (len && p[at + 3 + len - 1] == '.');
			if (!text || text > EGRESS_NAME_MAX)
				return *why = "a server name of a length no host name has", SNI_BAD;
			for (size_t i = 0; i < text; i++) {
				unsigned char c = p[at + 3 + i];
				if (c <= ' ' || c >= 0x7f)
					return *why = "a server name with a byte no host name has", SNI_BAD;
				name[i] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
			}
			name[text] = '\0';
		}
		at += 3 + len;
	}
	return names ? SNI_NAME : SNI_NONE;
}

int sni_parse(const unsigned char *buf, size_t len, char name[EGRESS_NAME_MAX + 1],
              const char **why)
{
	static unsigned char hs[EGRESS_HELLO_MAX];
	size_t hlen, body, at, ext_end;
	int r = records(buf, len, hs, sizeof hs, &hlen, why), found = SNI_NONE;

	*name = '\0';
	if (r != 1)
		return r;
	if (hlen < 4)
		return len > EGRESS_HELLO_MAX ? (*why = "a ClientHello over 16384 bytes", SNI_BAD)
		                              : SNI_MORE;
	if (hs[0] != 1)
		return *why = "a TLS handshake that does not begin with a ClientHello", SNI_BAD;
	body = (size_t)hs[1] << 16 | (size_t)hs[2] << 8 | hs[3];
	if (body + 4 > sizeof hs)
		return *why = "a ClientHello over 16384 bytes", SNI_BAD;
	if (hlen < body + 4)
		return SNI_MORE;
	/* version, random, then the session id, cipher suites and
	 * compression methods, each length-prefixed, then the extensions */
	at = 4 + 2 + 32;
	if (at + 1 > body + 4 || (at += 1 + hs[at]) + 2 > body + 4 ||
	    (at += 2 + be16(hs + at)) + 1 > body + 4 || (at += 1 + hs[at]) > body + 4)
		return *why = "a malformed ClientHello", SNI_BAD;
	if (at == body + 4)
		return SNI_NONE;	/* no extensions at all */
	if (at + 2 > body + 4 || (ext_end = at + 2 + be16(hs + at)) != body + 4)
		return *why = "a malformed ClientHello", SNI_BAD;
	for (at += 2; at < ext_end;) {
		unsigned type;
		size_t n;
		if (at + 4 > ext_end || at + 4 + (n = be16(hs + at + 2)) > ext_end)
			return *why = "a malformed ClientHello extension", SNI_BAD;
		type = be16(hs + at);
		if (type == EXT_ECH || type == EXT_ECH_OUTER)
			return *why = "Encrypted Client Hello, which hides the server's name", SNI_BAD;
		if (type == EXT_SERVER_NAME) {
			if (found != SNI_NONE)
				return *why = "a ClientHello with two server_name extensions", SNI_BAD;
			if ((found = server_name(hs + at + 4, n, name, why)) == SNI_BAD)
				return SNI_BAD;
		}
		at += 4 + n;
	}
	return found;
}
