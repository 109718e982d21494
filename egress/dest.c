/* sharness-exec-egress: where a request may lead (egress.h). A name is
 * matched against the allow list before anything resolves it; an address
 * that a listed name resolves to, or a literal a request names, passes only
 * when it is none of those no name may lead to, or an entry lists it. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "egress.h"

const struct allow *allow_name(const struct allow *list, size_t n, const char *name,
                               unsigned port)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < n; i++) {
		const struct allow *a = &list[i];
		size_t al = strlen(a->name);
		if (a->family || a->port != port)
			continue;
		if (!a->wild && !strcmp(a->name, name))
			return a;
		if (a->wild && len > al + 1 && name[len - al - 1] == '.' &&
		    !strcmp(name + len - al, a->name))
			return a;
	}
	return NULL;
}

static int in_prefix(const unsigned char *addr, const unsigned char *net, unsigned bits)
{
	unsigned whole = bits / 8, rest = bits % 8;

	if (memcmp(addr, net, whole))
		return 0;
	return !rest || ((addr[whole] ^ net[whole]) & (0xff << (8 - rest))) == 0;
}

const struct allow *allow_addr(const struct allow *list, size_t n, int family,
                               const unsigned char *addr, unsigned port)
{
	for (size_t i = 0; i < n; i++)
		if (list[i].family == family && list[i].port == port &&
		    in_prefix(addr, list[i].addr, list[i].prefix))
			return &list[i];
	return NULL;
}

static const struct {
	int family;
	const char *net;
	unsigned bits;
	const char *why;
} internal[] = {
	{ AF_INET, "0.0.0.0", 8, "this network (0.0.0.0/8)" },
	{ AF_INET, "10.0.0.0", 8, "a private address (10.0.0.0/8)" },
	{ AF_INET, "100.100.100.200", 32, "a cloud's metadata address (100.100.100.200)" },
	{ AF_INET, "100.64.0.0", 10, "a shared address (100.64.0.0/10)" },
	{ AF_INET, "127.0.0.0", 8, "a loopback address (127.0.0.0/8)" },
	{ AF_INET, "168.63.129.16", 32, "a cloud's metadata address (168.63.129.16)" },
	{ AF_INET, "169.254.169.254", 32, "a cloud's metadata address (169.254.169.254)" },
	{ AF_INET, "169.254.0.0", 16, "a link-local address (169.254.0.0/16)" },
	{ AF_INET, "172.16.0.0", 12, "a private address (172.16.0.0/12)" },
	{ AF_INET, "192.0.0.0", 24, "an IETF protocol address (192.0.0.0/24)" },
	{ AF_INET, "192.168.0.0", 16, "a private address (192.168.0.0/16)" },
	{ AF_INET, "198.18.0.0", 15, "a benchmarking address (198.18.0.0/15)" },
	{ AF_INET, "224.0.0.0", 4, "a multicast address (224.0.0.0/4)" },
	{ AF_INET, "240.0.0.0", 4, "a reserved or broadcast address (240.0.0.0/4)" },
	{ AF_INET6, "fd00:ec2::254", 128, "a cloud's metadata address (fd00:ec2::254)" },
	{ AF_INET6, "::1", 128, "the loopback address (::1)" },
	{ AF_INET6, "::ffff:0:0", 96, "an IPv4-mapped address (::ffff:0:0/96)" },
	{ AF_INET6, "::", 8, "a reserved address, or one holding an IPv4 one (::/8)" },
	{ AF_INET6, "64:ff9b::", 96, "a NAT64 address holding an IPv4 one (64:ff9b::/96)" },
	{ AF_INET6, "64:ff9b:1::", 48, "a local NAT64 address (64:ff9b:1::/48)" },
	{ AF_INET6, "100::", 64, "a discard-only address (100::/64)" },
	{ AF_INET6, "2002::", 16, "a 6to4 address holding an IPv4 one (2002::/16)" },
	{ AF_INET6, "2001::", 32, "a Teredo address holding an IPv4 one (2001::/32)" },
	{ AF_INET6, "fc00::", 7, "a unique-local address (fc00::/7)" },
	{ AF_INET6, "fe80::", 10, "a link-local address (fe80::/10)" },
	{ AF_INET6, "fec0::", 10, "a site-local address (fec0::/10)" },
	{ AF_INET6, "ff00::", 8, "a multicast address (ff00::/8)" },
};

const char *addr_internal(int family, const unsigned char *addr)
{
	unsigned char net[16];

	for (size_t i = 0; i < sizeof internal / sizeof *internal; i++)
		if (internal[i].family == family &&
		    inet_pton(family, internal[i].net, net) == 1 &&
		    in_prefix(addr, net, internal[i].bits))
			return internal[i].why;
	return NULL;
}
