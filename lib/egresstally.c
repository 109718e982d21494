/* The egress server's lines, read and tallied (egresstally.h). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "egresstally.h"

/* HOST:PORT (or "- -") at the start of S (LEN bytes): the host as shown
 * into HOST, the port into *PORT; the bytes it took, or 0. */
static size_t host_port(const char *s, size_t len, char host[TALLY_HOST], unsigned *port)
{
	size_t i = 1, n;
	int plain = 1;

	if (!len || (s[0] != '"' && s[0] != '-'))
		return 0;
	if (s[0] == '"') {
		for (; i < len && s[i] != '"'; i++)
			if (s[i] == '\\') {
				plain = 0;
				i++;
			}
		if (i++ >= len)
			return 0;
	}
	n = s[0] == '"' && plain ? i - 2 : i;
	if (n >= TALLY_HOST)
		n = TALLY_HOST - 1;
	memcpy(host, s[0] == '"' && plain ? s + 1 : s, n);
	host[n] = '\0';
	*port = 0;
	if (i + 1 < len && s[i] == ' ' && s[i + 1] == '-')
		return i + 2;
	if (i >= len || s[i] != ':')
		return 0;
	for (n = ++i; i < len && i - n < 6 && s[i] >= '0' && s[i] <= '9'; i++)
		*port = *port * 10 + (unsigned)(s[i] - '0');
	if (i == n || (i < len && s[i] >= '0' && s[i] <= '9') || *port > 65535)
		return 0;
	return i;
}

/* The entry of LIST (*N of them) for HOST:PORT, added if new; NULL when
 * the list is full. A request that named no host ("-") has an entry for
 * each reason WHY (WHY_LEN bytes), and none merges with another's. */
static struct tally_host *entry(struct tally_host *list, size_t *n, const char *host,
                                unsigned port, const char *why, size_t why_len)
{
	size_t i;
	int hostless = !strcmp(host, "-");

	if (why_len > TALLY_WHY - 1)
		why_len = TALLY_WHY - 1;	/* as kept: cut */

	for (i = 0; i < *n; i++)
		if (list[i].port == port && !strcmp(list[i].host, host) &&
		    (!hostless || (strlen(list[i].why) == why_len &&
		                   !memcmp(list[i].why, why, why_len))))
			return &list[i];
	if (*n == TALLY_MAX)
		return NULL;
	memset(&list[i], 0, sizeof list[i]);
	snprintf(list[i].host, sizeof list[i].host, "%s", host);
	list[i].port = port;
	(*n)++;
	return &list[i];
}

int tally_line(struct tally *t, const char *line, size_t len)
{
	char host[TALLY_HOST];
	unsigned port;
	unsigned long long up, down;
	struct tally_host *h;
	size_t used;
	char rest[64];

	if ((len == 4 && !memcmp(line, "open", 4)) || (len == 4 && !memcmp(line, "idle", 4))) {
		t->busy = line[0] == 'o';
		return 0;
	}
	if (len > 8 && !memcmp(line, "refused ", 8)) {
		if (!(used = host_port(line + 8, len - 8, host, &port)) || len - 8 - used < 3 ||
		    memcmp(line + 8 + used, ": ", 2))
			return -1;
		if (!(h = entry(t->refused, &t->nrefused, host, port, line + 10 + used,
		                len - 10 - used))) {
			t->more_refused++;
			return 0;
		}
		if (!h->n++)
			snprintf(h->why, sizeof h->why, "%.*s", (int)(len - 10 - used),
			         line + 10 + used);
		return 0;
	}
	if (len > 8 && !memcmp(line, "allowed ", 8)) {
		if (!(used = host_port(line + 8, len - 8, host, &port)) || !port ||
		    len - 8 - used >= sizeof rest)
			return -1;
		memcpy(rest, line + 8 + used, len - 8 - used);
		rest[len - 8 - used] = '\0';
		if (sscanf(rest, " up=%llu down=%llu", &up, &down) != 2)
			return -1;
		if (!(h = entry(t->allowed, &t->nallowed, host, port, NULL, 0))) {
			t->more_allowed++;
			return 0;
		}
		h->n++;
		h->up += up;
		h->down += down;
		return 0;
	}
	return -1;
}

int tally_read(struct tally *t, int fd)
{
	ssize_t n = read(fd, t->buf + t->have, sizeof t->buf - t->have);
	char *nl, *p = t->buf;

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0)
		return -1;
	t->have += (size_t)n;
	while ((nl = memchr(p, '\n', t->have - (size_t)(p - t->buf)))) {
		tally_line(t, p, (size_t)(nl - p));
		p = nl + 1;
	}
	t->have -= (size_t)(p - t->buf);
	memmove(t->buf, p, t->have);
	if (t->have == sizeof t->buf)
		t->have = 0;	/* a line longer than any the server writes */
	return 1;
}

int tally_drain(struct tally *t, int fd, int ms)
{
	struct timespec now, end;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += ms / 1000;
	end.tv_nsec += (long)(ms % 1000) * 1000000;
	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		long left;

		/* what is there first: "idle" may be behind later lines */
		while (poll(&p, 1, 0) == 1)
			if (tally_read(t, fd) < 0)
				return !t->busy;
		if (!t->busy)
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = (end.tv_sec - now.tv_sec) * 1000 + (end.tv_nsec - now.tv_nsec) / 1000000;
		if (left <= 0 || poll(&p, 1, (int)left) < 0)
			return 0;
	}
}
