/* The pbp 1 policy checker (DESIGN.md 2, 2.2). Walks the JSON that json.c
 * accepted (strict UTF-8, integers only, no duplicate keys: trusted here)
 * once, in file order, against one table of every key (policy_check), and
 * fills a struct policy of plain heap strings. An object's missing required
 * keys are reported after its members, cross-key rules last. Each value
 * gets at most one message. ENOMEM dies with 125. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "policy.h"
#include "policyrules.h"

#define KEYPATH_MAX (3 * QUOTED_MAX)
#define COUNT(a) (sizeof (a) / sizeof *(a))

const char *const policy_private_vars[POLICY_PRIVATE_N] = {
	"HOME", "TMPDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME",
	"XDG_STATE_HOME",
};
const char *const policy_private_dirs[POLICY_PRIVATE_N] = {
	"home", "tmp", "config", "cache", "data", "state",
};

/* Names the front end sets itself. */
static const char *const reserved_names[] = {
	"SHARNESS_AI_POLICY_HASH", "SHARNESS_AI_POLICY_ID", "SHARNESS_AI_POLICY_KEY",
};
/* ... and those launch sets, beside MANIFEST_READY_PREFIX's (policy.h). */
static const char *const launch_names[] = {
	"SHARNESS_AI_CERT", "SHARNESS_AI_KEY", "SHARNESS_AI_CA", "SHARNESS_AI_SESSION_CA",
	"SHARNESS_AI_LOGS",
};

#define TYPE(c, i) json_type((c)->d, i)
#define SIZE(c, i) ((size_t)(c)->d->tok[i].size)

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		die(EXIT_REFUSED, "unable to allocate memory");
	return p;
}

PRINTF(3, 4)
static void problem(struct ck *c, const char *keypath, const char *fmt, ...)
{
	char line[KEYPATH_MAX + 2 * QUOTED_MAX];
	size_t k = (size_t)snprintf(line, sizeof line, "%s: ", keypath);
	va_list ap;

	if (k < sizeof line) {
		va_start(ap, fmt);
		vsnprintf(line + k, sizeof line - k, fmt, ap);
		va_end(ap);
	}
	c->n++;
	if (c->report)
		c->report(c->ctx, line);
}

/* String V decoded into a heap buffer (NUL-terminated, *LEN bytes), or
 * NULL when it is not a string (reported at KP). */
static char *string(struct ck *c, const char *kp, unsigned v, size_t *len)
{
	char *s;

	if (TYPE(c, v) != JSON_STRING) {
		problem(c, kp, "must be a string");
		return NULL;
	}
	if (!(s = json_string(c->d, v, len)))
		die(EXIT_REFUSED, "unable to allocate memory");
	return s;
}

/* PARENT.KEY into OUT: KEY bare when it is a plain word, else quoted. */
static const char *keypath(char out[KEYPATH_MAX], const char *parent,
                           struct ck *c, unsigned key)
{
	char q[QUOTED_MAX];
	size_t len;
	char *s = string(c, parent, key, &len);     /* a key is always a string */
	const char *name = s;

	if (!len || len > QUOTE_MAX || len != strspn(s, NAME_CHARS "-"))
		name = quote(q, s, len, QUOTE_ALWAYS);
	snprintf(out, KEYPATH_MAX, "%s%s%s", parent, *parent ? "." : "", name);
	free(s);
	return out;
}

/* --- the rules, also exported for the unit tests --- */

enum policy_path_status policy_path(const char *s, size_t len, char *out)
{
	size_t i, o = 0;

	if (memchr(s, '\0', len))
		return POLICY_PATH_NUL;
	if (!len || s[0] != '/')
		return POLICY_PATH_RELATIVE;
	if (len > PATH_MAX - 1)
		return POLICY_PATH_LONG;
	for (i = 0; i < len; ) {
		size_t start = i, n;
		while (i < len && s[i] != '/')
			i++;
		n = i - start;
		if (n == 1 && s[start] == '.')
			return POLICY_PATH_DOT;
		if (n == 2 && s[start] == '.' && s[start + 1] == '.')
			return POLICY_PATH_DOTDOT;
		i++;
	}
	for (i = 0; i < len; i++)
		if (s[i] != '/' || !o || out[o - 1] != '/')
			out[o++] = s[i];
	if (o > 1 && out[o - 1] == '/')
		o--;
	out[o] = '\0';
	return POLICY_PATH_OK;
}

int policy_env_name(const char *s, size_t len)
{
	/* strspn stops at a NUL, so an embedded one makes it short of LEN */
	return len && !(s[0] >= '0' && s[0] <= '9') && strspn(s, NAME_CHARS) == len;
}

static int listed(const char *s, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s, v[i]))
			return 1;
	return 0;
}

int manifest_launch_sets(const char *name)
{
	return listed(name, launch_names, COUNT(launch_names)) ||
	       !strncmp(name, MANIFEST_READY_PREFIX, strlen(MANIFEST_READY_PREFIX));
}

/* Duplicates in IT[0..N) of list KP, each reported at its own position,
 * naming the first; NUMBERS: the entries are ports, shown bare. */
static void duplicates(struct ck *c, const char *kp, struct text_item *it, size_t n,
                       int numbers)
{
	char at[KEYPATH_MAX], q[QUOTED_MAX];
	size_t ndup = text_duplicates(it, n);

	for (size_t i = 0; i < ndup; i++) {
		snprintf(at, sizeof at, "%s[%zu]", kp, it[i].at);
		problem(c, at, "duplicate of %s[%zu]: %s", kp, it[i].of,
		        quote(q, it[i].s, it[i].len, numbers ? QUOTE_IF_NEEDED : QUOTE_ALWAYS));
	}
}

/* --- values: each function checks one kind of value at KP --- */

static int integer(struct ck *c, const struct rule *r, const char *kp, unsigned v,
                   unsigned long *out)
{
	long long n;

	if (TYPE(c, v) != JSON_NUMBER) {
		problem(c, kp, "must be an integer");
		return 0;
	}
	n = json_integer(c->d, v);
	if (n < r->lo || n > r->hi) {
		if (r->lo == r->hi)
			problem(c, kp, "must be %lld, not %lld", r->lo, n);
		else
			problem(c, kp, "must be %lld-%lld, not %lld", r->lo, r->hi, n);
		return 0;
	}
	*out = (unsigned long)n;
	return 1;
}

static void check_int(struct ck *c, const struct rule *r, const char *kp, unsigned v)
{
	integer(c, r, kp, v, r->out);
}

static void check_bool(struct ck *c, const struct rule *r, const char *kp, unsigned v)
{
	if (TYPE(c, v) == JSON_TRUE)
		*(int *)r->out = 1;
	else if (r->lo || TYPE(c, v) != JSON_FALSE)
		problem(c, kp, r->lo ? "must be true" : "must be true or false");
}

const char *policy_id_refused(const char *s, size_t len, char *why, size_t n)
{
	char q[QUOTED_MAX];
	size_t chars = 0, controls = 0;
	const unsigned char *u = (const unsigned char *)s;

	/* control characters: C0, DEL, C1 (U+0080 to U+009F, 0xc2 0x80-0x9f) */
	for (size_t i = 0; i < len; i++) {
		chars += (u[i] & 0xc0) != 0x80;
		controls += u[i] < 0x20 || u[i] == 0x7f ||
		            (u[i] == 0xc2 && i + 1 < len && u[i + 1] < 0xa0);
	}
	if (chars < 1 || chars > POLICY_ID_MAX)
		snprintf(why, n, "must be 1-%d characters, not %zu", POLICY_ID_MAX, chars);
	else if (controls)
		snprintf(why, n, "contains a control character: %s", quote(q, s, len, QUOTE_ALWAYS));
	else
		return NULL;
	return why;
}

static void check_id(struct ck *c, const struct rule *r, const char *kp, unsigned v)
{
	char why[QUOTED_MAX + 64];
	size_t len;
	char *s = string(c, kp, v, &len);

	if (!s || !policy_id_refused(s, len, why, sizeof why)) {
		*(char **)r->out = s;
		return;
	}
	problem(c, kp, "%s", why);
	free(s);
}

/* Path V normalised (policy.h), or NULL (reported). */
static char *path_value(struct ck *c, const char *kp, unsigned v)
{
	static const char *const why[] = {
		[POLICY_PATH_NUL] = "contains a NUL byte",
		[POLICY_PATH_RELATIVE] = "not an absolute path",
		[POLICY_PATH_DOT] = "has a \".\" component",
		[POLICY_PATH_DOTDOT] = "has a \"..\" component",
	};
	enum policy_path_status st;
	char q[QUOTED_MAX];
	size_t len;
	char *s = string(c, kp, v, &len), *out;

	if (!s)
		return NULL;
	out = xcalloc(len + 1, 1);
	st = policy_path(s, len, out);
	if (st == POLICY_PATH_OK) {
		free(s);
		return out;
	}
	if (st == POLICY_PATH_LONG)
		problem(c, kp, "longer than %d bytes: %s", PATH_MAX - 1, quote(q, s, len, QUOTE_ALWAYS));
	else
		problem(c, kp, "%s: %s", why[st], quote(q, s, len, QUOTE_ALWAYS));
	free(s);
	free(out);
	return NULL;
}

/* A files.* path, never the host's ptys; in files.tmpfs (TMPFS) never /,
 * /proc or /sys either (policyfiles.c). */
static char *checked_path(struct ck *c, const char *kp, unsigned v, int tmpfs)
{
	char q[QUOTED_MAX];
	char *s = path_value(c, kp, v);
	const char *why = s ? policy_path_refused(s, tmpfs) : NULL;

	if (why)
		problem(c, kp, "%s: %s", why, quote(q, s, strlen(s), QUOTE_ALWAYS));
	return s;
}

static char *file_path(struct ck *c, const char *kp, unsigned v)
{
	return checked_path(c, kp, v, 0);
}

static char *tmpfs_path(struct ck *c, const char *kp, unsigned v)
{
	return checked_path(c, kp, v, 1);
}

static void problem_cb(void *c, const char *kp, const char *msg)
{
	problem(c, kp, "%s", msg);
}

static char *write_path(struct ck *c, const char *kp, unsigned v)
{
	char q[QUOTED_MAX];
	char *s = file_path(c, kp, v);
	const char *ro = s ? policy_never_written(s) : NULL;

	if (ro)
		problem(c, kp, "beneath %s, which is always read-only: %s", ro,
		        quote(q, s, strlen(s), QUOTE_ALWAYS));
	return s;
}

/* Why the variable S (LEN bytes) may not be named in env.inherit or
 * env.set, or NULL. */
static const char *env_refused(struct ck *c, const char *s, size_t len)
{
	if (!policy_env_name(s, len))
		return "not a variable name";
	if (listed(s, reserved_names, COUNT(reserved_names)))
		return "set by sharness-exec itself";
	if (c->private && listed(s, policy_private_vars, POLICY_PRIVATE_N))
		return "conflicts with env.private";
	return NULL;
}

static char *env_name(struct ck *c, const char *kp, unsigned v)
{
	char q[QUOTED_MAX];
	const char *why;
	size_t len;
	char *s = string(c, kp, v, &len);

	if (!s || !(why = env_refused(c, s, len)))
		return s;
	problem(c, kp, "%s: %s", why, quote(q, s, len, QUOTE_ALWAYS));
	free(s);
	return NULL;
}

/* A list of strings, each made by R's ITEM, no two equal. A refused entry
 * is reported and leaves a NULL, so that entry I stays the file's [I] for
 * the checks of policy_check (a policy with problems is freed). */
static void check_list(struct ck *c, const struct rule *r, const char *kp, unsigned a)
{
	struct strlist *l = r->out;
	char at[KEYPATH_MAX];
	struct text_item *it;
	size_t n = 0;

	if (TYPE(c, a) != JSON_ARRAY) {
		problem(c, kp, "must be an array");
		return;
	}
	l->v = xcalloc(SIZE(c, a), sizeof *l->v);
	it = xcalloc(SIZE(c, a), sizeof *it);
	JSON_EACH_ELEMENT(c->d, a, i, e) {
		snprintf(at, sizeof at, "%s[%u]", kp, i);
		if ((l->v[i] = r->item(c, at, e)))
			it[n++] = (struct text_item){ l->v[i], strlen(l->v[i]), i, i };
	}
	l->n = SIZE(c, a);
	duplicates(c, kp, it, n, 0);
	free(it);
}

static void check_ports(struct ck *c, const struct rule *r, const char *kp, unsigned a)
{
	unsigned **ports = r->out;
	size_t *n = r->n;
	char at[KEYPATH_MAX];
	unsigned long port;
	struct text_item *it;
	char (*text)[8];

	if (TYPE(c, a) != JSON_ARRAY) {
		problem(c, kp, "must be an array");
		return;
	}
	*ports = xcalloc(SIZE(c, a), sizeof **ports);
	it = xcalloc(SIZE(c, a), sizeof *it);
	text = xcalloc(SIZE(c, a), sizeof *text);
	JSON_EACH_ELEMENT(c->d, a, i, e) {
		snprintf(at, sizeof at, "%s[%u]", kp, i);
		if (integer(c, r, at, e, &port)) {
			it[*n] = (struct text_item){ text[*n], (size_t)sprintf(text[*n], "%lu", port), i, i };
			(*ports)[(*n)++] = (unsigned)port;
		}
	}
	duplicates(c, kp, it, *n, 1);
	free(text);
	free(it);
}

static void check_path(struct ck *c, const struct rule *r, const char *kp, unsigned v)
{
	*(char **)r->out = path_value(c, kp, v);
}

static void check_set(struct ck *c, const struct rule *r, const char *kp, unsigned o)
{
	struct strlist *names = &c->p->env_set_names, *values = &c->p->env_set_values;
	char at[KEYPATH_MAX], q[QUOTED_MAX];
	size_t len, vlen, before;
	const char *why;
	char *name, *value;

	(void)r;
	if (TYPE(c, o) != JSON_OBJECT) {
		problem(c, kp, "must be an object");
		return;
	}
	names->v = xcalloc(SIZE(c, o), sizeof *names->v);
	values->v = xcalloc(SIZE(c, o), sizeof *values->v);
	JSON_EACH_MEMBER(c->d, o, i, k) {
		before = c->n;
		keypath(at, kp, c, k);
		name = string(c, kp, k, &len);
		/* a key that is no name is quoted, not made part of a key path */
		if (!policy_env_name(name, len))
			problem(c, kp, "not a variable name: %s", quote(q, name, len, QUOTE_ALWAYS));
		else if ((why = env_refused(c, name, len)))
			problem(c, at, "%s", why);
		value = string(c, at, k + 1, &vlen);
		if (value && memchr(value, '\0', vlen))
			problem(c, at, "contains a NUL byte");
		if (c->n == before) {
			names->v[names->n++] = name;
			values->v[values->n++] = value;
		} else {
			free(name);
			free(value);
		}
	}
}

/* An object: each member checked by its rule, or refused (a typo must
 * never weaken a policy), then its missing required keys. */
static void check_object(struct ck *c, const struct rule *r, const char *kp, unsigned o)
{
	const struct rule *m, *end = c->rules + c->nrules;
	char at[KEYPATH_MAX];
	const char *near;

	(void)r;
	if (TYPE(c, o) != JSON_OBJECT) {
		problem(c, kp, "must be an object");
		return;
	}
	JSON_EACH_MEMBER(c->d, o, i, k) {
		for (m = c->rules; m < end; m++)
			if (!strcmp(m->parent, kp) && json_streq(c->d, k, m->name))
				break;
		keypath(at, kp, c, k);
		if (m < end)
			m->check(c, m, at, k + 1);
		else if ((near = policy_near_key(c, kp, k)))
			problem(c, at, "unknown key; did you mean %s%s%s?", kp, *kp ? "." : "", near);
		else
			problem(c, at, "unknown key");
	}
	for (m = c->rules; m < end; m++)
		if (m->required && !strcmp(m->parent, kp) && !json_get(c->d, o, m->name)) {
			snprintf(at, sizeof at, "%s%s%s", kp, *kp ? "." : "", m->name);
			problem(c, at, "missing required key");
		}
}

/* A network.hosts entry: the egress step's own grammar (policynet.c). */
static char *host_entry(struct ck *c, const char *kp, unsigned v)
{
	char q[QUOTED_MAX];
	const char *why;
	size_t len;
	char *s = string(c, kp, v, &len);

	if (!s || !(why = policy_host_refused(s, len)))
		return s;
	problem(c, kp, "%s: %s", why, quote(q, s, len, QUOTE_ALWAYS));
	free(s);
	return NULL;
}

static void check_network(struct ck *c, const struct rule *r, const char *kp, unsigned v)
{
	char q[QUOTED_MAX];
	size_t len;
	char *s;

	if (TYPE(c, v) == JSON_OBJECT) {
		check_object(c, r, kp, v);
		c->p->net_none |= policy_hosts_check(c->d, v, c->p->hosts.n, problem_cb, c);
	} else if (TYPE(c, v) != JSON_STRING) {
		problem(c, kp, "must be \"none\" or an object");
	} else if (json_streq(c->d, v, "none")) {
		c->p->net_none = 1;
	} else {
		s = string(c, kp, v, &len);
		problem(c, kp, "must be \"none\" or an object: %s", quote(q, s, len, QUOTE_ALWAYS));
		free(s);
	}
}

/* env.private must lie beneath a files.write path: it is created, and
 * written by the target, after confinement would otherwise forbid it.
 * files.protected narrows a files.write path: beneath none, it would
 * protect nothing the landlock step does not already refuse. */
static void beneath_write(struct ck *c, const char *kp, const char *path)
{
	char q[QUOTED_MAX];

	if (!path)
		return;         /* refused already */
	for (size_t w = 0; w < c->p->write.n; w++)
		if (c->p->write.v[w] && path_beneath(path, c->p->write.v[w]))
			return;
	problem(c, kp, "not beneath any files.write path: %s",
	        quote(q, path, strlen(path), QUOTE_ALWAYS));
}

size_t policy_check(struct policy *p, const struct json_doc *doc,
                   void (*report)(void *ctx, const char *line), void *ctx)
{
	unsigned long pbp;
	/* Every key of pbp 1 (DESIGN.md 2, 2.2); a required key is reported
	 * missing in this order. */
	const struct rule rules[] = {
		{ "", "pbp", 1, check_int, .out = &pbp, .lo = 1, .hi = 1 },
		{ "", "id", 1, check_id, .out = &p->id },
		{ "", "files", 0, .check = check_object },
		{ "files", "read", 0, check_list, .out = &p->read, .item = file_path },
		{ "files", "write", 0, check_list, .out = &p->write, .item = write_path },
		{ "files", "exec", 0, check_list, .out = &p->exec, .item = file_path },
		{ "files", "protected", 0, check_list, .out = &p->protected, .item = file_path },
		{ "files", "tmpfs", 0, check_list, .out = &p->tmpfs, .item = tmpfs_path },
		{ "files", "sockets", 0, check_list, .out = &p->sockets, .item = file_path },
		{ "files", "write_vcs", 0, check_bool, .out = &p->write_vcs },
		{ "", "network", 1, .check = check_network },
		{ "network", "hosts", 0, check_list, .out = &p->hosts, .item = host_entry },
		{ "network", "connect_tcp_ports", 0, check_ports, .out = &p->connect_ports,
		  .n = &p->nconnect, .lo = 1, .hi = POLICY_MAX_PORT },
		{ "network", "bind_tcp_ports", 0, check_ports, .out = &p->bind_ports,
		  .n = &p->nbind, .lo = 1, .hi = POLICY_MAX_PORT },
		{ "network", "connect_udp_ports", 0, check_ports, .out = &p->connect_udp_ports,
		  .n = &p->nconnect_udp, .lo = 1, .hi = POLICY_MAX_PORT },
		/* UDP bind port 0: any ephemeral port (Landlock ABI 10), which
		 * a UDP client's first send takes. */
		{ "network", "bind_udp_ports", 0, check_ports, .out = &p->bind_udp_ports,
		  .n = &p->nbind_udp, .lo = 0, .hi = POLICY_MAX_PORT },
		{ "", "process", 1, .check = check_object },
		{ "process", "no_new_privs", 1, check_bool, .out = &p->no_new_privs, .lo = 1 },
		{ "process", "max_memory_mb", 0, check_int, .out = &p->max_memory_mb,
		  .lo = 1, .hi = POLICY_MAX_MEMORY_MB },
		{ "process", "max_pids", 0, check_int, .out = &p->max_pids,
		  .lo = 1, .hi = POLICY_MAX_PIDS },
		{ "process", "max_cpu_percent", 0, check_int, .out = &p->max_cpu_percent,
		  .lo = 1, .hi = POLICY_MAX_CPU_PERCENT },
		{ "process", "user_namespaces", 0, check_bool, .out = &p->user_namespaces },
		{ "", "env", 0, .check = check_object },
		{ "env", "inherit", 0, check_list, .out = &p->env_inherit, .item = env_name },
		{ "env", "set", 0, .check = check_set },
		{ "env", "private", 0, check_path, .out = &p->env_private },
	};
	struct ck c = { doc, p, report, ctx, 0, 0, rules, COUNT(rules) };
	char kp[KEYPATH_MAX];
	unsigned env;

	memset(p, 0, sizeof *p);
	/* env.private takes the names it sets from env.inherit and env.set,
	 * whichever comes first in the file. */
	env = json_get(doc, 0, "env");
	if (env && TYPE(&c, env) == JSON_OBJECT && (env = json_get(doc, env, "private")))
		c.private = TYPE(&c, env) == JSON_STRING;
	check_object(&c, NULL, "", 0);
	beneath_write(&c, "env.private", p->env_private);
	for (size_t i = 0; i < p->protected.n; i++) {
		snprintf(kp, sizeof kp, "files.protected[%zu]", i);
		beneath_write(&c, kp, p->protected.v[i]);
	}
	policy_tmpfs_overlaps(p, problem_cb, &c);
	if (c.n)
		policy_free(p);
	return c.n;
}

void policy_free(struct policy *p)
{
	struct strlist *lists[] = {
		&p->read, &p->write, &p->exec, &p->protected, &p->tmpfs, &p->sockets,
		&p->hosts, &p->env_inherit, &p->env_set_names, &p->env_set_values,
		&p->read_resolved, &p->write_resolved, &p->exec_resolved, &p->protected_resolved,
		&p->sockets_resolved,
	};

	for (size_t i = 0; i < COUNT(lists); i++) {
		for (size_t k = 0; k < lists[i]->n; k++)
			free(lists[i]->v[k]);
		free(lists[i]->v);
	}
	free(p->id);
	free(p->env_private);
	free(p->connect_ports);
	free(p->bind_ports);
	free(p->connect_udp_ports);
	free(p->bind_udp_ports);
	memset(p, 0, sizeof *p);
}
