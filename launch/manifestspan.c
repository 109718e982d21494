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
#include "near.h"

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

/* The index of the first of M's first N roles (components, then main)
 * that is S (LEN bytes, a NUL among them matching none), or N. */
static size_t role_index(const struct manifest *m, const char *s, size_t len, size_t n)
{
	size_t j = 0;

	for (; j < n && (!m->comp[j].role || strlen(s) != len || strcmp(m->comp[j].role, s)); j++)
		;
	return j;
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
		j = role_index(m, s, len, m->ncomp);
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

/* --- share: directories the roles it names share --- */

int manifest_shares(const struct share *s, size_t i)
{
	for (size_t k = 0; k < s->nwrite; k++)
		if (s->write[k] == i)
			return 'w';
	for (size_t k = 0; k < s->nread; k++)
		if (s->read[k] == i)
			return 'r';
	return 0;
}

static const char *role_at(size_t i, const void *ctx)
{
	const struct manifest *m = ctx;

	return m->comp[i].role;
}

/* share.NAME.KEY's array A: roles, each once in the share, into L. */
static void share_roles(struct mck *c, const struct manifest *m, struct share *sh,
                        const char *key, unsigned a, size_t *l, size_t *n)
{
	char at[QUOTED_MAX + 48], qs[QUOTED_MAX];
	const char *near;
	size_t len, j;
	char *s;

	snprintf(at, sizeof at, "share.%s.%s", sh->name, key);
	if (TYPE(c, a) != JSON_ARRAY || (!strcmp(key, "write") && !SIZE(c, a))) {
		mck_problem(c, at, "must be an array of %sroles", *key == 'w' ? "at least one of the " : "");
		return;
	}
	JSON_EACH_ELEMENT(c->d, a, k, e) {
		snprintf(at, sizeof at, "share.%s.%s[%u]", sh->name, key, k);
		if (!(s = mck_string(c, at, e, &len)))
			continue;
		j = role_index(m, s, len, m->ncomp + 1);
		near = j > m->ncomp ? near_word(s, len, role_at, m, m->ncomp + 1) : NULL;
		if (j > m->ncomp && near)
			mck_problem(c, at, "no role is %s; did you mean \"%s\"?",
			            quote(qs, s, len, QUOTE_ALWAYS), near);
		else if (j > m->ncomp)
			mck_problem(c, at, "no role is %s", quote(qs, s, len, QUOTE_ALWAYS));
		else if (manifest_shares(sh, j))
			mck_problem(c, at, "%s is named already: a role either writes or reads a share", q(s));
		else if (*n < MANIFEST_MAX_COMPONENTS + 1)
			l[(*n)++] = j;
		free(s);
	}
}

/* A share's name: a DNS label, short enough for its group's name. */
static int share_name_ok(const char *s, size_t len)
{
	return len && len <= MANIFEST_SHARE_NAME_MAX && s[0] != '-' && s[len - 1] != '-' &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-") == len;
}

static void check_share(struct mck *c, const struct manifest *m, struct share *sh, unsigned o)
{
	static const char *const keys[] = { "write", "read", NULL };
	char at[QUOTED_MAX + 48], qs[QUOTED_MAX];
	const char *near;
	size_t len;
	const char *k_;

	snprintf(at, sizeof at, "share.%s", sh->name);
	if (!mck_is(c, at, o, JSON_OBJECT))
		return;
	JSON_EACH_MEMBER(c->d, o, i, k) {
		(void)i;
		if (json_streq(c->d, k, "write"))
			share_roles(c, m, sh, "write", k + 1, sh->write, &sh->nwrite);
		else if (json_streq(c->d, k, "read"))
			share_roles(c, m, sh, "read", k + 1, sh->read, &sh->nread);
		else {
			k_ = json_str(c->d, k, &len);
			near = near_name(k_, len, keys);
			snprintf(at, sizeof at, "share.%s.%s", sh->name, quote(qs, k_, len, QUOTE_IF_NEEDED));
			if (near)
				mck_problem(c, at, "unknown key; did you mean share.%s.%s?", sh->name, near);
			else
				mck_problem(c, at, "unknown key");
		}
	}
	snprintf(at, sizeof at, "share.%s", sh->name);
	if (!json_get(c->d, o, "write"))
		mck_problem(c, at, "needs write, the roles that write it");
	else if (sh->nread && sh->nwrite > 1)
		mck_problem(c, at, "one role writes a directory that others read (it owns it, "
		            "mode 2750), not %zu", sh->nwrite);
}

/* "share": { NAME: { "write": [ROLE...], "read": [ROLE...] } ... }. */
static void check_shares(struct mck *c, struct manifest *m)
{
	char qs[QUOTED_MAX];
	unsigned o = m->share_tok;
	size_t len;

	if (!mck_is(c, "share", o, JSON_OBJECT))
		return;
	if (!SIZE(c, o) || SIZE(c, o) > MANIFEST_SHARE_MAX) {
		mck_problem(c, "share", "must name 1-%d directories, not %zu", MANIFEST_SHARE_MAX,
		            SIZE(c, o));
		return;
	}
	if (!(m->share = calloc(SIZE(c, o), sizeof *m->share)))
		die(EXIT_REFUSED, "unable to allocate memory");
	JSON_EACH_MEMBER(c->d, o, i, k) {
		struct share *sh = &m->share[m->nshare];
		const char *name = json_str(c->d, k, &len);

		(void)i;
		if (!share_name_ok(name, len)) {
			mck_problem(c, "share", "a directory's name must be 1-%d of a-z 0-9 -, not "
			            "beginning or ending with -: %s", MANIFEST_SHARE_NAME_MAX,
			            quote(qs, name, len, QUOTE_ALWAYS));
			continue;
		}
		if (!(sh->name = strndup(name, len)))
			die(EXIT_REFUSED, "unable to allocate memory");
		m->nshare++;
		check_share(c, m, sh, k + 1);
	}
	for (size_t i = 0; i <= m->ncomp; i++)
		if (m->comp[i].role && !strcmp(m->comp[i].role, "share"))
			mck_problem(c, "share", "no role may be named \"share\" with it: %s is the "
			            "shared directories' place", MANIFEST_SHARE_DIR);
}

/* A ready.unix beneath MANIFEST_SHARE_DIR and no write path of its own:
 * beneath a share the component writes. */
static void check_share_ready(struct mck *c, const struct manifest *m)
{
	const char *name;
	size_t len, j;

	for (size_t i = 0; i < m->ncomp; i++) {
		const struct component *p = &m->comp[i];

		if (!p->ready_path || !path_beneath(p->ready_path, MANIFEST_SHARE_DIR))
			continue;
		for (j = 0; j < p->pol.write.n + p->pol.tmpfs.n; j++)
			if (path_beneath(p->ready_path, j < p->pol.write.n ? p->pol.write.v[j] :
			                 p->pol.tmpfs.v[j - p->pol.write.n]))
				break;
		if (j < p->pol.write.n + p->pol.tmpfs.n)
			continue;
		name = p->ready_path + strlen(MANIFEST_SHARE_DIR);
		name += *name == '/';
		len = strcspn(name, "/");
		for (j = 0; j < m->nshare; j++)
			if (strlen(m->share[j].name) == len && !strncmp(m->share[j].name, name, len) &&
			    name[len] == '/' && manifest_shares(&m->share[j], i) == 'w')
				break;
		if (j == m->nshare) {
			snprintf(c->label, sizeof c->label, "components[%zu] \"%s\": ", i, p->role);
			mck_problem(c, "ready.unix", "beneath no files.write or files.tmpfs path of "
			            "policy, nor a share it writes: %s", q(p->ready_path));
			*c->label = '\0';
		}
	}
}

/* --- read_logs: the components whose logs main reads --- */

/* main's "read_logs": components' roles, each once, into M; no role is
 * named "logs" beside it, that directory's name. */
static void check_read_logs(struct mck *c, struct manifest *m)
{
	unsigned a = m->comp[m->ncomp].read_logs_tok;
	char at[32], qs[QUOTED_MAX];
	const char *near;
	size_t len, j, d;
	char *s;

	snprintf(c->label, sizeof c->label, "main \"%s\": ", m->comp[m->ncomp].role);
	if (TYPE(c, a) != JSON_ARRAY)
		mck_problem(c, "read_logs", "must be an array of the roles of components");
	else JSON_EACH_ELEMENT(c->d, a, k, e) {
		snprintf(at, sizeof at, "read_logs[%u]", k);
		if (!(s = mck_string(c, at, e, &len)))
			continue;
		j = role_index(m, s, len, m->ncomp + 1);
		for (d = 0; d < m->nread_logs && m->read_logs[d] != j; d++)
			;
		near = j > m->ncomp ? near_word(s, len, role_at, m, m->ncomp) : NULL;
		if (j == m->ncomp)
			mck_problem(c, at, "main's own role: main has no log: %s", q(s));
		else if (j > m->ncomp && near)
			mck_problem(c, at, "no component's role: %s; did you mean \"%s\"?",
			            quote(qs, s, len, QUOTE_ALWAYS), near);
		else if (j > m->ncomp)
			mck_problem(c, at, "no component's role: %s", quote(qs, s, len, QUOTE_ALWAYS));
		else if (d < m->nread_logs)
			mck_problem(c, at, "named twice: %s", q(s));
		else
			m->read_logs[m->nread_logs++] = j;
		free(s);
	}
	for (j = 0; j < m->ncomp; j++)
		if (!strcmp(m->comp[j].role, "logs"))
			mck_problem(c, "read_logs", "no role may be named \"logs\" with it: %s is the "
			            "logs' place", MANIFEST_LOGS_DIR);
	*c->label = '\0';
}

void manifest_spans(struct mck *c, struct manifest *m)
{
	check_roles(c, m);
	if (!c->n)
		check_after(c, m);
	if (!c->n && m->comp[m->ncomp].read_logs_tok)
		check_read_logs(c, m);
	if (!c->n && m->share_tok)
		check_shares(c, m);
	if (!c->n)
		check_share_ready(c, m);
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
	    !strcmp(path, MANIFEST_STATE_DIR "/" MANIFEST_STATUS_FILE) ||
	    (m->nread_logs && path_beneath(path, MANIFEST_LOGS_DIR)))
		return;
	if (path_beneath(path, MANIFEST_SHARE_DIR) && m->nshare) {
		name = path + strlen(MANIFEST_SHARE_DIR);
		name += *name == '/';
		len = strcspn(name, "/");
		for (size_t i = 0; i < m->nshare; i++)
			if (!len || (strlen(m->share[i].name) == len && !strncmp(m->share[i].name, name, len)))
				return;
		mck_problem(c, key, "%s is beneath %s/%.*s, the directory of no share", q(path),
		            MANIFEST_SHARE_DIR, (int)len, name);
		return;
	}
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

