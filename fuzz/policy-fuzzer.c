/* policy-fuzzer: the pbp 1 checker (policy.c) on whatever json_parse
 * accepts. Besides crashes, undefined behaviour and leaks, it checks the
 * promises of policy.h: every problem is reported as one line that cannot
 * break a terminal, the count returned is the count reported, a refused
 * policy is left empty, and an accepted one holds what DESIGN.md 2 allows
 * (normalised absolute paths without duplicates, ports 1-65535, caps in
 * range, env.private beneath a files.write path). */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "json.h"
#include "policy.h"

const char *progname = "policy-fuzzer";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond, what) do { if (!(cond)) { \
	fprintf(stderr, "policy-fuzzer: check failed: %s (%s)\n", what, #cond); \
	abort(); } } while (0)

/* 1 when S is strict UTF-8 with no C0, DEL or C1 control character. */
static int printable_utf8(const unsigned char *s)
{
	while (*s) {
		unsigned cp, n, k;

		if (*s < 0x80) {
			if (*s < 0x20 || *s == 0x7f)
				return 0;
			s++;
			continue;
		}
		if ((*s & 0xe0) == 0xc0)
			n = 1, cp = *s & 0x1f;
		else if ((*s & 0xf0) == 0xe0)
			n = 2, cp = *s & 0x0f;
		else if ((*s & 0xf8) == 0xf0)
			n = 3, cp = *s & 0x07;
		else
			return 0;
		for (k = 1; k <= n; k++) {
			if ((s[k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[k] & 0x3f);
		}
		if (cp < (n == 1 ? 0x80u : n == 2 ? 0x800u : 0x10000u) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp < 0xa0))
			return 0;
		s += n + 1;
	}
	return 1;
}

static void report(void *ctx, const char *line)
{
	size_t *n = ctx;

	CHECK(line && *line, "empty problem line");
	CHECK(printable_utf8((const unsigned char *)line),
	      "problem line with a control byte or broken UTF-8");
	CHECK(strstr(line, ": ") != NULL, "problem line without a key path");
	(*n)++;
}

/* Normalised: absolute, no empty, "." or ".." component, no trailing
 * slash but for "/" itself. */
static void check_path(const char *s)
{
	size_t len = strlen(s);

	CHECK(s[0] == '/', "relative path accepted");
	CHECK(len < PATH_MAX, "over-long path accepted");
	CHECK(len == 1 || s[len - 1] != '/', "trailing slash kept");
	CHECK(!strstr(s, "//"), "repeated slash kept");
	CHECK(!strstr(s, "/./") && !strstr(s, "/../"), "dot component accepted");
	CHECK(!(len >= 2 && !strcmp(s + len - 2, "/.")), "dot component accepted");
	CHECK(!(len >= 3 && !strcmp(s + len - 3, "/..")), "dot-dot component accepted");
}

static void check_list(const struct strlist *l, int paths)
{
	for (size_t i = 0; i < l->n; i++) {
		CHECK(l->v[i] != NULL, "NULL in a list");
		if (paths)
			check_path(l->v[i]);
		for (size_t j = 0; j < i; j++)
			CHECK(strcmp(l->v[i], l->v[j]), "duplicate kept in a list");
	}
}

static void check_ports(const unsigned *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		CHECK(v[i] >= 1 && v[i] <= POLICY_MAX_PORT, "port out of range");
		for (size_t j = 0; j < i; j++)
			CHECK(v[i] != v[j], "duplicate port kept");
	}
}

static void check_valid(const struct policy *p)
{
	size_t chars = 0;

	CHECK(p->id != NULL, "valid policy without an id");
	for (const unsigned char *s = (const unsigned char *)p->id; *s; s++)
		chars += (*s & 0xc0) != 0x80;
	CHECK(chars >= 1 && chars <= POLICY_ID_MAX, "id length out of range");
	CHECK(printable_utf8((const unsigned char *)p->id), "id with a control character");
	CHECK(p->no_new_privs == 1, "no_new_privs not set");
	CHECK(p->max_memory_mb <= POLICY_MAX_MEMORY_MB, "max_memory_mb out of range");
	CHECK(p->max_pids <= POLICY_MAX_PIDS, "max_pids out of range");
	check_list(&p->read, 1);
	check_list(&p->write, 1);
	check_list(&p->exec, 1);
	check_list(&p->env_inherit, 0);
	check_list(&p->env_set_names, 0);
	CHECK(p->env_set_names.n == p->env_set_values.n, "env.set names and values differ");
	for (size_t i = 0; i < p->env_set_values.n; i++)
		CHECK(p->env_set_values.v[i] != NULL, "NULL env.set value");
	for (size_t i = 0; i < p->env_inherit.n; i++)
		CHECK(policy_env_name(p->env_inherit.v[i], strlen(p->env_inherit.v[i])),
		      "env.inherit holds a non-name");
	for (size_t i = 0; i < p->env_set_names.n; i++)
		CHECK(policy_env_name(p->env_set_names.v[i], strlen(p->env_set_names.v[i])),
		      "env.set holds a non-name");
	if (p->net_none)
		CHECK(p->nconnect == 0 && p->nbind == 0, "ports with \"network\": \"none\"");
	check_ports(p->connect_ports, p->nconnect);
	check_ports(p->bind_ports, p->nbind);
	if (p->env_private) {
		int beneath = 0;

		check_path(p->env_private);
		for (size_t i = 0; i < p->write.n; i++)
			beneath |= path_beneath(p->env_private, p->write.v[i]);
		CHECK(beneath, "env.private not beneath files.write");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct policy empty;
	struct json_doc doc;
	struct policy p;
	size_t problems, reported = 0;
	char err[256];
	char *copy;

	if (!(copy = malloc(size ? size : 1)))
		return 0;
	memcpy(copy, data, size);
	if (!json_parse(&doc, copy, size, err, sizeof err)) {
		free(copy);
		return 0;
	}
	problems = policy_check(&p, &doc, report, &reported);
	CHECK(problems == reported, "returned count differs from lines reported");
	if (problems)
		CHECK(!memcmp(&p, &empty, sizeof p), "refused policy not left empty");
	else
		check_valid(&p);
	policy_free(&p);
	/* Without a report callback: the same verdict. */
	CHECK(policy_check(&p, &doc, NULL, NULL) == problems, "verdict depends on REPORT");
	policy_free(&p);
	json_free(&doc);
	free(copy);
	return 0;
}
