/* What the try programs share: how an attempt is reported ("ok", or
 * "refused: STRERROR" with errno's text; exit 0 or 1), and the loopback
 * address they aim at. Header only: each try program is one file. */
#ifndef TRY_H
#define TRY_H

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* RC < 0: refused, with errno; else ok. The exit status to return. */
static inline int result(int rc)
{
	if (rc < 0) {
		printf("refused: %s\n", strerror(errno));
		return 1;
	}
	printf("ok\n");
	return 0;
}

/* 127.0.0.1:PORT */
static inline struct sockaddr_in loopback(const char *port)
{
	struct sockaddr_in a;

	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_port = htons((unsigned short)atoi(port));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

#endif
