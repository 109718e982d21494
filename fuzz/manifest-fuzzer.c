/* manifest-fuzzer: the launch 1 checker (manifest.c), and through it the
 * pbp 1 checker on each inline policy as a document of its own, on
 * whatever json_parse accepts. Besides crashes, undefined behaviour and
 * leaks, it checks the promises of manifest.h: every problem is one
 * printable line with a key path, the count returned is the count
 * reported, a refused manifest is left empty, and an accepted one holds
 * only what sharness-exec-manifest(5) allows (1-64 components and main,
 * valid unique roles that name distinct SHARNESS_AI_READY_ variables, a
 * command for each component and none for main, one ready kind with its
 * value and a timeout in range, a checked policy and its hash each). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "json.h"
#include "launch/manifest.h"

const char *progname = "manifest-fuzzer";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond, what) do { if (!(cond)) { \
	fprintf(stderr, "manifest-fuzzer: check failed: %s (%s)\n", what, #cond); \
	abort(); } } while (0)

static void report(void *ctx, const char *line)
{
	size_t *n = ctx;

	CHECK(line && *line, "empty problem line");
	for (const unsigned char *s = (const unsigned char *)line; *s; s++)
		CHECK(*s >= 0x20 && *s != 0x7f, "problem line with a control byte");
	CHECK(strstr(line, ": ") != NULL, "problem line without a key path");
	(*n)++;
}

static int role_ok(const char *r)
{
	size_t len = strlen(r);

	return len >= 1 && len <= MANIFEST_ROLE_MAX && r[0] != '-' && r[len - 1] != '-' &&
	       strspn(r, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-") == len;
}

static void check_component(const struct manifest *m, size_t i)
{
	const struct component *p = &m->comp[i];
	char a[MANIFEST_READY_NAME_MAX], b[MANIFEST_READY_NAME_MAX];
	int main = i == m->ncomp;

	CHECK(p->role && role_ok(p->role), "invalid role accepted");
	for (size_t j = 0; j < i; j++) {
		manifest_ready_name(a, p->role);
		manifest_ready_name(b, m->comp[j].role);
		CHECK(strcmp(a, b), "two roles name one SHARNESS_AI_READY_ variable");
	}
	CHECK(p->pol.id && p->pol.no_new_privs == 1, "unchecked inline policy");
	CHECK(!strncmp(p->hash, "sha256:", 7) && strlen(p->hash) == HASH_TEXT_LEN,
	      "inline policy without its hash");
	CHECK(main ? !p->command.n : p->command.n >= 1, "command on main, or none on a component");
	for (size_t k = 0; k < p->command.n; k++)
		CHECK(p->command.v[k] && (k || *p->command.v[k]), "NULL or empty first word");
	CHECK(!main || (!p->ready && !p->freeze_when_ready), "main with ready");
	CHECK(!p->freeze_when_ready || p->ready, "freeze_when_ready without ready");
	CHECK((p->ready == READY_TCP) == (p->ready_port != 0), "tcp ready without its port");
	CHECK((p->ready == READY_UNIX) == (p->ready_path != NULL), "unix ready without its path");
	CHECK(!p->ready_path || (p->ready_path[0] == '/' && strlen(p->ready_path) <= 107),
	      "unix ready path not absolute or too long");
	CHECK(!p->ready || (p->ready_timeout >= 1 && p->ready_timeout <= MANIFEST_READY_TIMEOUT_MAX),
	      "ready timeout out of range");
}

/* The verdict on DOC, with REPORT counting lines into *REPORTED or, when
 * REPORTED is NULL, without a callback; M checked against it. */
static size_t verdict(const struct json_doc *doc, size_t *reported)
{
	static const struct manifest empty;
	struct manifest m;
	size_t n = manifest_check(&m, doc, reported ? report : NULL, reported);

	if (n) {
		CHECK(!memcmp(&m, &empty, sizeof m), "refused manifest not left empty");
	} else {
		CHECK(m.id && manifest_is(doc), "valid manifest without an id or launch");
		CHECK(m.ncomp >= 1 && m.ncomp <= MANIFEST_MAX_COMPONENTS, "component count");
		for (size_t i = 0; i <= m.ncomp; i++)
			check_component(&m, i);
	}
	manifest_free(&m);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256], *text = malloc(size + 1);
	struct json_doc doc;
	size_t reported = 0;

	if (!text)
		return 0;
	memcpy(text, data, size);
	if (json_parse(&doc, text, size, err, sizeof err)) {
		CHECK(verdict(&doc, &reported) == reported, "returned count differs from lines reported");
		CHECK(verdict(&doc, NULL) == reported, "verdict depends on REPORT");
		json_free(&doc);
	}
	free(text);
	return 0;
}
