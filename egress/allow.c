/* sharness-exec-egress: what an allow-list entry and a requested name
 * may be (egress.h): HOST:PORT, *.NAME:PORT, an address or a CIDR, and a
 * DNS name or an IP literal in any spelling. The policy library checks
 * network.hosts with the same code, so that `check` and the step agree. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "egress.h"

static int port_of(const char *s, unsigned *port)
{
	char *end;
	unsigned long v;

	if (*s < '1' || *s > '9')
		return -1;
	v = strtoul(s, &end, 10);
	if (*end || v > 65535)
		return -1;
	*port = (unsigned)v;
	return 0;
}

/* A DNS name's letters, digits and hyphens, lower case, labels of 1 to 63
 * bytes that neither begin nor end with a hyphen, at most 253 in all. */
static int dns_name(const char *s, const char **why)
{
	size_t n = strlen(s), label = 0;

	if (!n || n > EGRESS_NAME_MAX)
		return *why = "not a host name of 1 to 253 bytes", -1;
	for (size_t i = 0; i <= n; i++) {
		char c = s[i];
		if (c == '.' || !c) {
			if (!label || label > 63)
				return *why = "a label of the name is empty or over 63 bytes", -1;
			if (s[i - 1] == '-')
				return *why = "a label of the name ends with a hyphen", -1;
			label = 0;
			continue;
		}
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'))
			return *why = "not a host name: only a-z, 0-9, '-' and '.' (A-labels)", -1;
		if (c == '-' && !label)
			return *why = "a label of the name begins with a hyphen", -1;
		label++;
	}
	/* Top-level domains are letters: a last label of digits is an
	 * address in some spelling that inet_aton did not take. */
	if (strspn(strrchr(s, '.') ? strrchr(s, '.') + 1 : s, "0123456789") ==
	    strlen(strrchr(s, '.') ? strrchr(s, '.') + 1 : s))
		return *why = "an IP address is no host name", -1;
	return 0;
}

int name_check(char *name, int *literal, int *family, unsigned char addr[16],
               const char **why)
{
	size_t n = strlen(name);
	char inner[INET6_ADDRSTRLEN + 2], canon[INET6_ADDRSTRLEN];
	struct in_addr a4;

	*literal = 0;
	*family = 0;
	for (size_t i = 0; i < n; i++)
		if (name[i] >= 'A' && name[i] <= 'Z')
			name[i] = (char)(name[i] - 'A' + 'a');
	if (n > 1 && name[n - 1] == '.' && name[n - 2] != '.')
		name[--n] = '\0';
	if (n >= 2 && name[0] == '[' && name[n - 1] == ']' && n - 2 < sizeof inner) {
		memcpy(inner, name + 1, n - 2);
		inner[n - 2] = '\0';
		if (inet_pton(AF_INET6, inner, addr) == 1) {
			*literal = 1;
			inet_ntop(AF_INET6, addr, canon, sizeof canon);
			*family = strcmp(canon, inner) ? 0 : AF_INET6;
			return *why = "an IP address", -1;
		}
	}
	if (inet_pton(AF_INET6, name, addr) == 1 || inet_aton(name, &a4)) {
		*literal = 1;
		if (inet_pton(AF_INET, name, addr) == 1) {
			inet_ntop(AF_INET, addr, canon, sizeof canon);
			*family = strcmp(canon, name) ? 0 : AF_INET;
		}
		return *why = "an IP address", -1;
	}
	return dns_name(name, why);
}

/* ADDR[/LEN] in A, a family of its own. */
static int addr_parse(char *s, struct allow *a)
{
	char *slash = strchr(s, '/'), *end;
	unsigned long len;

	if (slash)
		*slash = '\0';
	if (inet_pton(AF_INET, s, a->addr) == 1)
		a->family = AF_INET;
	else if (inet_pton(AF_INET6, s, a->addr) == 1)
		a->family = AF_INET6;
	else
		return -1;
	a->prefix = a->family == AF_INET ? 32 : 128;
	if (slash) {
		len = strtoul(slash + 1, &end, 10);
		if (!slash[1] || *end || len > a->prefix ||
		    (slash[1] == '0' && slash[2]))
			return -1;
		a->prefix = (unsigned)len;
	}
	return 0;
}

int allow_parse(const char *arg, struct allow *a, const char **why)
{
	char buf[EGRESS_NAME_MAX + 16], *colon, *host = buf;
	int literal, family;
	unsigned char addr[16];

	memset(a, 0, sizeof *a);
	if (strlen(arg) >= sizeof buf)
		return *why = "too long", -1;
	strcpy(buf, arg);
	if (!(colon = strrchr(buf, ':')) || port_of(colon + 1, &a->port) < 0)
		return *why = "not HOST:PORT with a port of 1 to 65535", -1;
	*colon = '\0';
	if (*host == '[') {
		size_t n = strlen(host);
		if (n < 3 || host[n - 1] != ']')
			return *why = "an IPv6 address is written [ADDR]:PORT", -1;
		host[n - 1] = '\0';
		host++;
		if (addr_parse(host, a) < 0 || a->family != AF_INET6)
			return *why = "not an IPv6 address or CIDR in brackets", -1;
		return 0;
	}
	if (strchr(host, '/') || (*host >= '0' && *host <= '9' && addr_parse(host, a) == 0)) {
		if (!a->family && addr_parse(host, a) < 0)
			return *why = "not an IPv4 address or CIDR in its plain form", -1;
		if (a->family != AF_INET)
			return *why = "an IPv6 address is written [ADDR]:PORT", -1;
		return 0;
	}
	if (strchr(host, ':'))
		return *why = "an IPv6 address is written [ADDR]:PORT", -1;
	if (!strncmp(host, "*.", 2)) {
		a->wild = 1;
		host += 2;
	}
	if (strchr(host, '*'))
		return *why = "a wildcard is only a whole leftmost label, *.NAME", -1;
	for (const char *p = host; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			return *why = "a host name is written in lower case", -1;
	if (name_check(host, &literal, &family, addr, why) < 0)
		return literal ? (*why = "not an IPv4 address in its plain form", -1) : -1;
	if (a->wild && !strchr(host, '.'))
		return *why = "a wildcard needs a name of two labels or more beneath it", -1;
	strcpy(a->name, host);
	return 0;
}
