/* The manifest checker's ground (manifestck.h): how it says a problem,
 * and what spans a manifest's components: its roles, each once; each
 * "after", another component's, and no cycle of them; and what check
 * warns of in a valid manifest (manifest.h, manifest_warn). manifest.c,
 * above it, checks each component's keys. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifestck.h"

/* --- the checker's ways of saying (manifestck.h) --- */

void mck_say(struct mck *c, const char *line)
{
	c->n++;
	if (c->report)
		c->report(c->ctx, line);
}

PRINTF(3, 4)
void mck_problem(struct mck *c, const char *key, const char *fmt, ...)
{
	char line[LINE_MAX_];
	size_t k = (size_t)snprintf(line, sizeof line, "%s%s: ", c->label, key);
	va_list ap;

	if (k < sizeof line) {
		va_start(ap, fmt);
		vsnprintf(line + k, sizeof line - k, fmt, ap);
		va_end(ap);
	}
	mck_say(c, line);
}

/* 1 when V is of type T, else 0 and "KEY: must be ..." said. */
int mck_is(struct mck *c, const char *key, unsigned v, enum json_type t)
{
	static const char *const what[] = {
		[JSON_OBJECT] = "an object", [JSON_ARRAY] = "an array",
		[JSON_STRING] = "a string", [JSON_NUMBER] = "an integer",
	};

	if (TYPE(c, v) == t)
		return 1;
	mck_problem(c, key, "must be %s", what[t]);
	return 0;
}

/* KEY's value V, when it is a string, in a fresh heap buffer, NUL added. */
char *mck_string(struct mck *c, const char *key, unsigned v, size_t *len)
{
	char *s = NULL;

	if (mck_is(c, key, v, JSON_STRING) && !(s = json_string(c->d, v, len)))
		die(EXIT_REFUSED, "unable to allocate memory");
	return s;
}

void manifest_ready_name(char out[MANIFEST_READY_NAME_MAX], const char *role)
{
	size_t k = strlen(MANIFEST_READY_PREFIX);

	memcpy(out, MANIFEST_READY_PREFIX, k);
	for (; *role && k < MANIFEST_READY_NAME_MAX - 1; role++)
		out[k++] = *role == '-' || *role == '.' ? '_' : (char)toupper((unsigned char)*role);
	out[k] = '\0';
}

/* --- what spans components --- */


/* No two roles alike, nor two that name one SHARNESS_AI_READY_ variable;
 * each is said at the later one. */
static void check_roles(struct mck *c, struct manifest *m)
{
	char a[MANIFEST_READY_NAME_MAX], b[MANIFEST_READY_NAME_MAX];
	const char *role, *other;

	for (size_t i = 1; i <= m->ncomp; i++)
		for (size_t j = 0; j < i && (role = m->comp[i].role); j++) {
			if (!(other = m->comp[j].role))
				continue;
			manifest_ready_name(a, role);
			manifest_ready_name(b, other);
			if (strcmp(a, b))
				continue;
			if (i == m->ncomp)
				snprintf(c->label, sizeof c->label, "main \"%s\": ", role);
			else
				snprintf(c->label, sizeof c->label, "components[%zu] \"%s\": ", i, role);
			if (!strcmp(role, other))
				mck_problem(c, "role", "duplicate of components[%zu]", j);
			else
				mck_problem(c, "role", "%s is also that of components[%zu] \"%s\"", a, j, other);
			break;
		}
	*c->label = '\0';
}

/* Component P's "after", I its index: the roles of other components, each
 * once, as indices. */
static void after_roles(struct mck *c, struct manifest *m, size_t i)
{
	struct component *p = &m->comp[i];
	char at[32], qs[QUOTED_MAX];
	size_t len, j;
	char *s;

	if (TYPE(c, p->after_tok) != JSON_ARRAY) {
		mck_problem(c, "after", "must be an array of the roles of other components");
		return;
	}
	if (!(p->after = calloc(SIZE(c, p->after_tok) + 1, sizeof *p->after)))
		die(EXIT_REFUSED, "unable to allocate memory");
	JSON_EACH_ELEMENT(c->d, p->after_tok, k, e) {
		snprintf(at, sizeof at, "after[%u]", k);
		if (!(s = mck_string(c, at, e, &len)))
			continue;
		for (j = 0; j < m->ncomp && (!m->comp[j].role || strcmp(m->comp[j].role, s)); j++)
			;
		if (j == i || j == m->ncomp)
			mck_problem(c, at, j == i ? "the component itself: %s" : "no other component's role: %s",
			        quote(qs, s, len, QUOTE_ALWAYS));
		else {
			size_t d = 0;
			for (; d < p->nafter && p->after[d] != j; d++)
				;
			if (d < p->nafter)
				mck_problem(c, at, "named twice: %s", quote(qs, s, len, QUOTE_ALWAYS));
			else
				p->after[p->nafter++] = j;
		}
		free(s);
	}
}

/* Every "after" names other components, and no component waits, however
 * far back, on itself: said once, at the first that cannot start, with
 * every one that cannot. */
static void check_after(struct mck *c, struct manifest *m)
{
	unsigned char done[MANIFEST_MAX_COMPONENTS] = { 0 };
	char list[MANIFEST_MAX_COMPONENTS * (MANIFEST_ROLE_MAX + 2)];
	size_t n = c->n, left = 0, k = 0, first = 0;
	int more = 1;

	for (size_t i = 0; i < m->ncomp; i++)
		if (m->comp[i].after_tok && m->comp[i].role) {
			snprintf(c->label, sizeof c->label, "components[%zu] \"%s\": ", i, m->comp[i].role);
			after_roles(c, m, i);
		}
	*c->label = '\0';
	if (c->n != n)
		return;
	while (more) {        /* take each component whose every "after" is taken */
		more = 0;
		for (size_t i = 0; i < m->ncomp; i++) {
			size_t d = 0;
			for (; !done[i] && d < m->comp[i].nafter && done[m->comp[i].after[d]]; d++)
				;
			if (!done[i] && d == m->comp[i].nafter)
				more = done[i] = 1;
		}
	}
	for (size_t i = m->ncomp; i-- > 0;)
		if (!done[i]) {
			left++;
			first = i;
		}
	for (size_t i = first; left && i < m->ncomp; i++)
		if (!done[i])
			k += (size_t)snprintf(list + k, sizeof list - k, "%s%s", k ? ", " : "",
			                      m->comp[i].role);
	if (left) {
		snprintf(c->label, sizeof c->label, "components[%zu] \"%s\": ", first,
		         m->comp[first].role);
		mck_problem(c, "after", "a cycle: none of %s can start first", list);
		*c->label = '\0';
	}
}

void manifest_spans(struct mck *c, struct manifest *m)
{
	check_roles(c, m);
	if (!c->n)
		check_after(c, m);
}

/* --- what check warns of: a valid manifest that would not work --- */

static int offered(const struct manifest *m, unsigned port)
{
	for (size_t i = 0; i <= m->ncomp; i++) {
		const struct component *p = &m->comp[i];

		if (p->ready == READY_TCP && p->ready_port == port)
			return 1;
		for (size_t k = 0; k < p->pol.nbind; k++)
			if (p->pol.bind_ports[k] == port)
				return 1;
	}
	return 0;
}

/* PATH (at KEY) beneath the state directory of no role of M's? */
static void state_path(struct mck *c, const struct manifest *m, const char *key,
                       const char *path)
{
	const char *name;
	size_t len;

	if (!path_beneath(path, MANIFEST_STATE_DIR) || !strcmp(path, MANIFEST_STATE_DIR) ||
	    !strcmp(path, MANIFEST_STATE_DIR "/" MANIFEST_STATUS_FILE))
		return;
	/* only now: PATH is longer than the state directory and its '/' */
	name = path + strlen(MANIFEST_STATE_DIR) + 1;
	len = strcspn(name, "/");
	for (size_t i = 0; i <= m->ncomp; i++)
		if (strlen(m->comp[i].role) == len && !strncmp(m->comp[i].role, name, len))
			return;
	mck_problem(c, key, "%s is beneath %s/%.*s, the state directory of no role", q(path),
	        MANIFEST_STATE_DIR, (int)len, name);
}

static void warn_role(struct mck *c, const struct manifest *m, const struct component *p)
{
	static const char *const names[] = { "read", "write", "exec", "protected", "tmpfs" };
	const struct strlist *lists[] = { &p->pol.read, &p->pol.write, &p->pol.exec,
	                                  &p->pol.protected, &p->pol.tmpfs };
	char key[64];

	for (size_t k = 0; k < p->pol.nconnect; k++)
		if (!offered(m, p->pol.connect_ports[k])) {
			snprintf(key, sizeof key, "policy.network.connect_tcp_ports[%zu]", k);
			mck_problem(c, key, "no role listens on port %u: no ready.tcp or "
			        "policy.network.bind_tcp_ports names it", p->pol.connect_ports[k]);
		}
	for (size_t l = 0; l < sizeof lists / sizeof *lists; l++)
		for (size_t k = 0; k < lists[l]->n; k++) {
			snprintf(key, sizeof key, "policy.files.%s[%zu]", names[l], k);
			state_path(c, m, key, lists[l]->v[k]);
		}
	if (p->ready_path)
		state_path(c, m, "ready.unix", p->ready_path);
}

size_t manifest_warn(const struct manifest *m, void (*report)(void *ctx, const char *line),
                     void *ctx)
{
	struct mck c = { NULL, report, ctx, 0, "" };

	for (size_t i = 0; i <= m->ncomp; i++) {
		if (i < m->ncomp)
			snprintf(c.label, sizeof c.label, "components[%zu] \"%s\": ", i,
			         m->comp[i].role);
		else
			snprintf(c.label, sizeof c.label, "main \"%s\": ", m->comp[i].role);
		warn_role(&c, m, &m->comp[i]);
	}
	return c.n;
}

