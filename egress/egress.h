/* sharness-exec-egress: the parts of the egress step that read what a
 * hostile target sends, kept free of I/O so that the fuzzers and the unit
 * tests call them as the step does.
 *
 *   dest.c     the allow list (-a), DNS names, IP literals in any spelling,
 *              and the addresses no name may lead to unless listed
 *   request.c  HTTP CONNECT and SOCKS5 CONNECT with a domain name
 *   sni.c      the server name of a TLS ClientHello, across records */
#ifndef SHARNESS_EGRESS_H
#define SHARNESS_EGRESS_H

#include <stddef.h>
#include <netinet/in.h>

#define EGRESS_NAME_MAX 253      /* a DNS name's text, no trailing dot */
#define EGRESS_HEAD_MAX 8192     /* an HTTP request's head, every line */
#define EGRESS_LINE_MAX 1024     /* one line of it */
#define EGRESS_HELLO_MAX 16384   /* a ClientHello's bytes the step holds */
/* In a chain: the listener's port on 127.0.0.1 in the run's own network
 * namespace, which holds nothing else yet (the proxies' usual port). */
#define EGRESS_PORT 3128

/* One -a entry: NAME:PORT, *.NAME:PORT (one label or more before NAME,
 * never NAME itself), ADDR:PORT, [ADDR6]:PORT, or a CIDR in their place
 * (10.0.0.0/8:443, [fd00::/8]:443). */
struct allow {
	char name[EGRESS_NAME_MAX + 1];	/* lower case; for *.NAME, NAME */
	int wild;
	int family;			/* AF_INET or AF_INET6 for an address */
	unsigned char addr[16];
	unsigned prefix;
	unsigned port;
};

/* Parse ARG into A: 0, or -1 with *WHY saying what is wrong. */
int allow_parse(const char *arg, struct allow *a, const char **why);

/* NAME (lower-cased in place, one trailing dot dropped) as a host name a
 * request may carry: 0; -1 with *WHY. An IP literal in any spelling that
 * inet_aton(3) or inet_pton(3) takes (2130706433, 0x7f.1, 0177.0.0.1,
 * [::1]) is no name: *LITERAL is set, and the family and address are in
 * *FAMILY and ADDR where the spelling is the canonical one, else 0. */
int name_check(char *name, int *literal, int *family, unsigned char addr[16],
               const char **why);

/* The entry of LIST (N entries) that lets NAME:PORT through, or NULL. */
const struct allow *allow_name(const struct allow *list, size_t n, const char *name,
                               unsigned port);
/* The address entry of LIST that holds FAMILY ADDR on PORT, or NULL. */
const struct allow *allow_addr(const struct allow *list, size_t n, int family,
                               const unsigned char *addr, unsigned port);
/* Why FAMILY ADDR is one no name may lead to unless listed (loopback,
 * private, link-local, a cloud's metadata address, an IPv6 form holding
 * an IPv4 one, ...), or NULL. The host's own addresses are the caller's
 * to add. */
const char *addr_internal(int family, const unsigned char *addr);

/* What a request parser says. */
enum { REQ_MORE = 0, REQ_DONE = 1, REQ_BAD = -1 };

struct request {
	char host[EGRESS_NAME_MAX + 2];	/* as sent, at most 255 bytes */
	unsigned port;
	int socks;			/* 5 for SOCKS5, 0 for HTTP */
	int status;			/* on REQ_BAD: HTTP status or SOCKS5 reply code */
	const char *why;
	size_t used;			/* bytes of the buffer the request took */
};

/* An HTTP request head in BUF (LEN bytes so far): REQ_MORE, REQ_DONE with
 * R's host and port (CONNECT host:port HTTP/1.x), or REQ_BAD with R's
 * status and why (any other method, a line or head over its limit, a
 * malformed line). */
int http_request(const char *buf, size_t len, struct request *r);
/* A SOCKS5 greeting in BUF: REQ_MORE, REQ_DONE (no authentication
 * offered among its methods, R->used its length), or REQ_BAD. */
int socks_greeting(const unsigned char *buf, size_t len, struct request *r);
/* A SOCKS5 request in BUF: REQ_MORE, REQ_DONE for CONNECT with a domain
 * name, or REQ_BAD with R->status the reply code (7: not CONNECT, 8: an
 * address type other than a name). */
int socks_request(const unsigned char *buf, size_t len, struct request *r);

/* chain.c: the step in the chain (a PROGRAM after its options). Forks
 * the run, which makes its network namespace and a listener on
 * 127.0.0.1:PORT there and execs ARGV, and the server; returns only in the
 * server: the UNIX socket the listener comes over, and in *LINES where its
 * lines go to the step, which names the refused hosts at the end (in one
 * line; with EXPLAIN, -X, one explain line each). *REPORT (--to-report,
 * or -1) is the server's alone: the step closes it. */
int egress_chain(char **argv, unsigned port, int explain, int *lines, int *report);

/* confine.c: the server confines itself, -b (BEST) running without
 * Landlock where the kernel has none; ALLOW's ports are the ones it may
 * connect to. */
void confine_self(int best, const struct allow *allow, size_t nallow);
/* Close every descriptor above 2 but the N of KEEP (sorted here; -1s and
 * repeats are fine): what the server inherited of the chain (the walls
 * record, the environment's memfd, the status pipe) is not its. */
void keep_only(int *keep, size_t n);

/* What sni_parse says. */
enum { SNI_MORE = 0, SNI_NAME = 1, SNI_NONE = 2, SNI_NOT_TLS = 3, SNI_BAD = -1 };
/* The first bytes a client sent in BUF (LEN so far): SNI_MORE; SNI_NAME
 * with the one host name (lower case) in NAME; SNI_NONE, a ClientHello
 * without one; SNI_NOT_TLS, bytes that open no TLS handshake; SNI_BAD with
 * *WHY (two names, Encrypted Client Hello, a malformed or oversized
 * ClientHello). */
int sni_parse(const unsigned char *buf, size_t len, char name[EGRESS_NAME_MAX + 1],
              const char **why);

#endif
