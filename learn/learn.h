/* sharness-exec-learn, `sharness-exec learn` (DESIGN.md 4.7): a draft
 * policy widened, round by round, by what confined runs of a command were
 * refused. learn.c runs the rounds (and is the main); learnrules.c decides
 * what a refusal may add and writes drafts. */
#ifndef SHARNESS_LEARN_H
#define SHARNESS_LEARN_H

#include <stdio.h>
#include "policy.h"
#include "json.h"

/* One refused access, as the run report's "denials" lists it
 * (sharness-exec-report(5)). PATH is absolute, or NULL for a port. */
struct denial {
	const char *kind;      /* read, list, write, create, remove, exec,
	                        * connect_unix, connect_tcp, bind_tcp,
	                        * connect_udp, bind_udp */
	const char *path;
	long port;             /* -1: none */
	const char *state;     /* hidden, absent, unknown (may be NULL) */
};

/* What learn knows beyond the draft: the cwd (whose subtree it may grant),
 * the caller's home (which it never grants), and --allow-network. */
struct learn_ctx {
	const char *cwd, *home, *envhome;   /* envhome: $HOME, or NULL */
	int allow_network;
};

/* One line of the closing list: an addition granted, or a suggestion for a
 * person, with the access that asked for it. */
struct addition {
	char *key;             /* "files.read", "network.connect_tcp_ports", ... */
	char *value;           /* the path, or the port in decimal */
	char *why;             /* "read /usr/share/x", "outside the allowlist" */
	int granted;
	int was_none;          /* a port's grant turned "none" into the object form */
};

struct draft {
	struct policy p;
	struct addition *add;
	size_t nadd;
};

/* Take DENIAL into D: grant it when the rules allow (1: the draft grew), or
 * list it as a suggestion (0). A repeat of a line already listed adds
 * nothing. */
int draft_consider(struct draft *d, const struct denial *x, const struct learn_ctx *c);
/* learn --allow-network: each host of the report's "egress" (DOC, the
 * report's tail) that the egress step refused as not listed, or listed on
 * another port, as a suggestion for network.hosts; never a grant. */
void draft_hosts(struct draft *d, const struct json_doc *doc);
/* Take back the last addition, which check refused for WHY: it becomes a
 * suggestion. */
void draft_retract(struct draft *d, const char *why);
/* The draft as indented JSON, a pbp 1 policy. */
void draft_write(FILE *f, const struct policy *p);
void draft_free(struct draft *d);

#endif
