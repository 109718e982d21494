/* What the front end's subcommands share. */
#ifndef SHARNESS_FRONTEND_H
#define SHARNESS_FRONTEND_H

#include <stddef.h>
#include "hash.h"
#include "json.h"
#include "policy.h"

#ifndef HELPERDIR
# error "HELPERDIR must name the directory of the helpers (set by Makefile.am)"
#endif

/* A policy file read once, parsed, hashed and checked. */
struct loaded {
	char *text;
	size_t len;
	struct json_doc doc;
	unsigned char digest[HASH_LEN];
	char hash[HASH_TEXT_LEN + 1];
	struct policy pol;
};

/* Read, parse and hash PATH ("-": stdin); when WANT is not NULL, refuse
 * unless the hash equals it; then check the policy. Every problem goes to
 * stderr as one line prefixed with "sharness-exec: "; returns 1 when the
 * policy is valid (and pinned, if asked), 0 otherwise. */
int load_policy(const char *path, struct loaded *l, const unsigned char *want);
/* The same, reading the descriptor FD (left open) that was opened for PATH. */
int load_policy_fd(int fd, const char *path, struct loaded *l, const unsigned char *want);
/* Free what load_policy kept; L is all zeros afterwards. */
void unload_policy(struct loaded *l);

int cmd_run(int argc, char **argv);

#endif
