/* The pbp 1 policy checker (DESIGN.md 2, 2.2). Walks the JSON that json.c
 * accepted (strict UTF-8, integers only, no duplicate keys: trusted here)
 * once, in file order, reports every problem as one line that names its
 * key path, and fills a struct policy of plain heap strings for the front
 * end. Missing required keys and cross-key rules are reported last. Each
 * value gets at most one message. ENOMEM dies with 125. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "policy.h"

#define KEYPATH_MAX (3 * QUOTED_MAX)

/* Names the front end sets itself, and those env.private points elsewhere. */
static const char *const reserved_names[] = {
	"SHARNESS_AI_POLICY_HASH", "SHARNESS_AI_POLICY_ID", "SHARNESS_AI_POLICY_KEY",
};
static const char *const private_names[] = {
	"HOME", "TMPDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME",
	"XDG_STATE_HOME",
};

struct ck {
	const struct json_doc *d;
	struct policy *p;
	void (*report)(void *ctx, const char *line);
	void *ctx;
	size_t n;
	unsigned *protected_at;           /* JSON positions of p->protected */
};

/* Always read-only in the view (a capability-less uid 0 still passes
 * their permission bits), so never a files.write path. */
static const char *const never_written[] = {
	"/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/sys",
};

#define TYPE(c, i) json_type((c)->d, i)
#define SIZE(c, i) ((size_t)(c)->d->tok[i].size)
#define EACH_MEMBER(c, o, i, k) JSON_EACH_MEMBER((c)->d, o, i, k)
#define EACH_ELEMENT(c, a, i, e) JSON_EACH_ELEMENT((c)->d, a, i, e)

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		die(EXIT_REFUSED, "unable to allocate memory");
	return p;
}

static char *str(const struct ck *c, unsigned i, size_t *len)
{
	char *s = json_string(c->d, i, len);

	if (!s)
		die(EXIT_REFUSED, "unable to allocate memory");
	return s;
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

/* 1 when S[I] starts a control character: C0, DEL, or a C1 (U+0080 to
 * U+009F, 0xc2 0x80-0x9f). */
static int is_control(const char *s, size_t len, size_t i)
{
	const unsigned char *u = (const unsigned char *)s;

	return u[i] < 0x20 || u[i] == 0x7f || (u[i] == 0xc2 && i + 1 < len && u[i + 1] < 0xa0);
}

/* PARENT.KEY into OUT: KEY bare when it is a plain word, else quoted. */
static const char *keypath(char out[KEYPATH_MAX], const char *parent,
                           const struct ck *c, unsigned key)
{
	char q[QUOTED_MAX];
	size_t len;
	char *s = str(c, key, &len);
	const char *name = s;

	if (!len || len > QUOTE_MAX || len != strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789_-"))
		name = quote(q, s, len, QUOTE_ALWAYS);
	snprintf(out, KEYPATH_MAX, "%s%s%s", parent, *parent ? "." : "", name);
	free(s);
	return out;
}

static void unknown(struct ck *c, const char *parent, unsigned key)
{
	char kp[KEYPATH_MAX];

	problem(c, keypath(kp, parent, c, key), "unknown key");
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
	static const char head[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_";

	if (!len || !s[0] || !strchr(head, s[0]))
		return 0;
	for (size_t i = 1; i < len; i++)
		if (!s[i] || (!strchr(head, s[i]) && (s[i] < '0' || s[i] > '9')))
			return 0;
	return 1;
}

static int listed(const char *s, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s, v[i]))
			return 1;
	return 0;
}

/* --- duplicates: each reported at its own position, naming the first --- */

/* NUMBERS: the entries are ports, shown bare. */
static void duplicates(struct ck *c, const char *name, struct text_item *it, size_t n,
                       int numbers)
{
	char kp[KEYPATH_MAX], q[QUOTED_MAX];
	size_t ndup = text_duplicates(it, n);

	for (size_t i = 0; i < ndup; i++) {
		snprintf(kp, sizeof kp, "%s[%zu]", name, it[i].at);
		problem(c, kp, "duplicate of %s[%zu]: %s", name, it[i].of,
		        quote(q, it[i].s, it[i].len, numbers ? QUOTE_IF_NEEDED : QUOTE_ALWAYS));
	}
}

/* --- values --- */

static int integer(struct ck *c, const char *kp, unsigned v, long long lo,
                   long long hi, unsigned long *out)
{
	long long n;

	if (TYPE(c, v) != JSON_NUMBER) {
		problem(c, kp, "must be an integer");
		return 0;
	}
	n = json_integer(c->d, v);
	if (n < lo || n > hi) {
		if (lo == hi)
			problem(c, kp, "must be %lld, not %lld", lo, n);
		else
			problem(c, kp, "must be %lld-%lld, not %lld", lo, hi, n);
		return 0;
	}
	*out = (unsigned long)n;
	return 1;
}

static void check_id(struct ck *c, unsigned v)
{
	char q[QUOTED_MAX];
	size_t len, chars = 0, i;
	char *s;

	if (TYPE(c, v) != JSON_STRING) {
		problem(c, "id", "must be a string");
		return;
	}
	s = str(c, v, &len);
	for (i = 0; i < len; i++)
		chars += ((unsigned char)s[i] & 0xc0) != 0x80;
	for (i = 0; i < len && !is_control(s, len, i); i++)
		;
	if (chars < 1 || chars > POLICY_ID_MAX)
		problem(c, "id", "must be 1-%d characters, not %zu", POLICY_ID_MAX, chars);
	else if (i < len)
		problem(c, "id", "contains a control character: %s", quote(q, s, len, QUOTE_ALWAYS));
	else {
		c->p->id = s;
		return;
	}
	free(s);
}

/* Decode path V; the normalised copy on success, else NULL (reported). */
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
	char *s, *out;

	if (TYPE(c, v) != JSON_STRING) {
		problem(c, kp, "must be a string");
		return NULL;
	}
	s = str(c, v, &len);
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

/* A list of paths; AT, when not NULL, gets each one's JSON position. */
static void check_paths(struct ck *c, const char *name, unsigned a, struct strlist *l,
                        unsigned **at)
{
	char kp[KEYPATH_MAX], q[QUOTED_MAX];
	int write = !strcmp(name, "files.write");
	struct text_item *it;

	if (TYPE(c, a) != JSON_ARRAY) {
		problem(c, name, "must be an array");
		return;
	}
	l->v = xcalloc(SIZE(c, a), sizeof *l->v);
	it = xcalloc(SIZE(c, a), sizeof *it);
	if (at)
		*at = xcalloc(SIZE(c, a), sizeof **at);
	EACH_ELEMENT(c, a, i, e) {
		snprintf(kp, sizeof kp, "%s[%u]", name, i);
		if (!(l->v[l->n] = path_value(c, kp, e)))
			continue;
		for (size_t k = 0; write && k < sizeof never_written / sizeof *never_written; k++)
			if (path_beneath(l->v[l->n], never_written[k])) {
				problem(c, kp, "beneath %s, which is always read-only: %s",
				        never_written[k], quote(q, l->v[l->n], strlen(l->v[l->n]), QUOTE_ALWAYS));
				break;
			}
		if (at)
			(*at)[l->n] = i;
		it[l->n] = (struct text_item){ l->v[l->n], strlen(l->v[l->n]), i, i };
		l->n++;
	}
	duplicates(c, name, it, l->n, 0);
	free(it);
}

static void check_files(struct ck *c, unsigned o)
{
	if (TYPE(c, o) != JSON_OBJECT) {
		problem(c, "files", "must be an object");
		return;
	}
	EACH_MEMBER(c, o, i, k) {
		if (json_streq(c->d, k, "read"))
			check_paths(c, "files.read", k + 1, &c->p->read, NULL);
		else if (json_streq(c->d, k, "write"))
			check_paths(c, "files.write", k + 1, &c->p->write, NULL);
		else if (json_streq(c->d, k, "exec"))
			check_paths(c, "files.exec", k + 1, &c->p->exec, NULL);
		else if (json_streq(c->d, k, "protected"))
			check_paths(c, "files.protected", k + 1, &c->p->protected,
			            &c->protected_at);
		else
			unknown(c, "files", k);
	}
}

static void check_ports(struct ck *c, const char *name, unsigned a,
                        unsigned **ports, size_t *n, long long lo)
{
	char kp[KEYPATH_MAX];
	unsigned long port;
	struct text_item *it;
	char (*text)[8];

	if (TYPE(c, a) != JSON_ARRAY) {
		problem(c, name, "must be an array");
		return;
	}
	*ports = xcalloc(SIZE(c, a), sizeof **ports);
	it = xcalloc(SIZE(c, a), sizeof *it);
	text = xcalloc(SIZE(c, a), sizeof *text);
	EACH_ELEMENT(c, a, i, e) {
		snprintf(kp, sizeof kp, "%s[%u]", name, i);
		if (integer(c, kp, e, lo, POLICY_MAX_PORT, &port)) {
			it[*n] = (struct text_item){ text[*n], (size_t)sprintf(text[*n], "%lu", port), i, i };
			(*ports)[(*n)++] = (unsigned)port;
		}
	}
	duplicates(c, name, it, *n, 1);
	free(text);
	free(it);
}

static void check_network(struct ck *c, unsigned v)
{
	char q[QUOTED_MAX];
	size_t len;
	char *s;

	if (TYPE(c, v) == JSON_STRING && json_streq(c->d, v, "none")) {
		c->p->net_none = 1;
	} else if (TYPE(c, v) == JSON_STRING) {
		s = str(c, v, &len);
		problem(c, "network", "must be \"none\" or an object: %s", quote(q, s, len, QUOTE_ALWAYS));
		free(s);
	} else if (TYPE(c, v) != JSON_OBJECT) {
		problem(c, "network", "must be \"none\" or an object");
	} else {
		EACH_MEMBER(c, v, i, k) {
			if (json_streq(c->d, k, "connect_tcp_ports"))
				check_ports(c, "network.connect_tcp_ports", k + 1,
				            &c->p->connect_ports, &c->p->nconnect, 1);
			else if (json_streq(c->d, k, "bind_tcp_ports"))
				check_ports(c, "network.bind_tcp_ports", k + 1,
				            &c->p->bind_ports, &c->p->nbind, 1);
			/* UDP bind port 0: any ephemeral port (Landlock ABI
			 * 10), which a UDP client's first send takes. */
			else if (json_streq(c->d, k, "connect_udp_ports"))
				check_ports(c, "network.connect_udp_ports", k + 1,
				            &c->p->connect_udp_ports, &c->p->nconnect_udp, 1);
			else if (json_streq(c->d, k, "bind_udp_ports"))
				check_ports(c, "network.bind_udp_ports", k + 1,
				            &c->p->bind_udp_ports, &c->p->nbind_udp, 0);
			else
				unknown(c, "network", k);
		}
	}
}

static void check_process(struct ck *c, unsigned o)
{
	int nnp = 0;

	if (TYPE(c, o) != JSON_OBJECT) {
		problem(c, "process", "must be an object");
		return;
	}
	EACH_MEMBER(c, o, i, k) {
		if (json_streq(c->d, k, "no_new_privs")) {
			nnp = 1;
			if (TYPE(c, k + 1) == JSON_TRUE)
				c->p->no_new_privs = 1;
			else
				problem(c, "process.no_new_privs", "must be true");
		} else if (json_streq(c->d, k, "max_memory_mb")) {
			integer(c, "process.max_memory_mb", k + 1, 1, POLICY_MAX_MEMORY_MB,
			        &c->p->max_memory_mb);
		} else if (json_streq(c->d, k, "max_pids")) {
			integer(c, "process.max_pids", k + 1, 1, POLICY_MAX_PIDS, &c->p->max_pids);
		} else if (json_streq(c->d, k, "user_namespaces")) {
			if (TYPE(c, k + 1) == JSON_TRUE)
				c->p->user_namespaces = 1;
			else if (TYPE(c, k + 1) != JSON_FALSE)
				problem(c, "process.user_namespaces", "must be true or false");
		} else {
			unknown(c, "process", k);
		}
	}
	if (!nnp)
		problem(c, "process.no_new_privs", "missing required key");
}

/* Why NAME may not appear in env.inherit or env.set, or NULL. */
static const char *env_refused(const char *name, int private)
{
	if (listed(name, reserved_names, sizeof reserved_names / sizeof *reserved_names))
		return "set by sharness-exec itself";
	if (private && listed(name, private_names, sizeof private_names / sizeof *private_names))
		return "conflicts with env.private";
	return NULL;
}

static void check_inherit(struct ck *c, unsigned a, int private)
{
	struct strlist *l = &c->p->env_inherit;
	char kp[KEYPATH_MAX], q[QUOTED_MAX];
	const char *why;
	struct text_item *it;
	size_t len;
	char *s;

	if (TYPE(c, a) != JSON_ARRAY) {
		problem(c, "env.inherit", "must be an array");
		return;
	}
	l->v = xcalloc(SIZE(c, a), sizeof *l->v);
	it = xcalloc(SIZE(c, a), sizeof *it);
	EACH_ELEMENT(c, a, i, e) {
		snprintf(kp, sizeof kp, "env.inherit[%u]", i);
		if (TYPE(c, e) != JSON_STRING) {
			problem(c, kp, "must be a string");
			continue;
		}
		s = str(c, e, &len);
		if (!policy_env_name(s, len))
			problem(c, kp, "not a variable name: %s", quote(q, s, len, QUOTE_ALWAYS));
		else if ((why = env_refused(s, private)))
			problem(c, kp, "%s: %s", why, quote(q, s, len, QUOTE_ALWAYS));
		else {
			it[l->n] = (struct text_item){ s, len, i, i };
			l->v[l->n++] = s;
			continue;
		}
		free(s);
	}
	duplicates(c, "env.inherit", it, l->n, 0);
	free(it);
}

static void check_set(struct ck *c, unsigned o, int private)
{
	struct policy *p = c->p;
	char kp[KEYPATH_MAX], q[QUOTED_MAX];
	const char *why;
	size_t len, vlen;
	char *name, *value;
	int ok;

	if (TYPE(c, o) != JSON_OBJECT) {
		problem(c, "env.set", "must be an object");
		return;
	}
	p->env_set_names.v = xcalloc(SIZE(c, o), sizeof *p->env_set_names.v);
	p->env_set_values.v = xcalloc(SIZE(c, o), sizeof *p->env_set_values.v);
	EACH_MEMBER(c, o, i, k) {
		keypath(kp, "env.set", c, k);
		name = str(c, k, &len);
		ok = 0;
		if (!policy_env_name(name, len))
			problem(c, "env.set", "not a variable name: %s", quote(q, name, len, QUOTE_ALWAYS));
		else if ((why = env_refused(name, private)))
			problem(c, kp, "%s", why);
		else
			ok = 1;
		value = NULL;
		if (TYPE(c, k + 1) != JSON_STRING) {
			problem(c, kp, "must be a string");
		} else {
			value = str(c, k + 1, &vlen);
			if (memchr(value, '\0', vlen)) {
				problem(c, kp, "contains a NUL byte");
				free(value);
				value = NULL;
			}
		}
		if (ok && value) {
			p->env_set_names.v[p->env_set_names.n++] = name;
			p->env_set_values.v[p->env_set_values.n++] = value;
		} else {
			free(name);
			free(value);
		}
	}
}

static void check_env(struct ck *c, unsigned o)
{
	unsigned priv;
	int private;

	if (TYPE(c, o) != JSON_OBJECT) {
		problem(c, "env", "must be an object");
		return;
	}
	priv = json_get(c->d, o, "private");
	private = priv && TYPE(c, priv) == JSON_STRING;
	EACH_MEMBER(c, o, i, k) {
		if (json_streq(c->d, k, "inherit"))
			check_inherit(c, k + 1, private);
		else if (json_streq(c->d, k, "set"))
			check_set(c, k + 1, private);
		else if (json_streq(c->d, k, "private"))
			c->p->env_private = path_value(c, "env.private", k + 1);
		else
			unknown(c, "env", k);
	}
}

/* env.private must lie beneath a files.write path: it is created, and
 * written by the target, after confinement would otherwise forbid it.
 * files.protected narrows a files.write path: beneath none, it would
 * protect nothing the landlock step does not already refuse. */
static void beneath_write(struct ck *c, const char *kp, const char *path)
{
	char q[QUOTED_MAX];

	for (size_t w = 0; w < c->p->write.n; w++)
		if (path_beneath(path, c->p->write.v[w]))
			return;
	problem(c, kp, "not beneath any files.write path: %s",
	        quote(q, path, strlen(path), QUOTE_ALWAYS));
}

static void check_beneath_write(struct ck *c)
{
	char kp[KEYPATH_MAX];

	if (c->p->env_private)
		beneath_write(c, "env.private", c->p->env_private);
	for (size_t i = 0; i < c->p->protected.n; i++) {
		snprintf(kp, sizeof kp, "files.protected[%u]", c->protected_at[i]);
		beneath_write(c, kp, c->p->protected.v[i]);
	}
}

size_t policy_check(struct policy *p, const struct json_doc *doc,
                   void (*report)(void *ctx, const char *line), void *ctx)
{
	static const char *const required[] = { "pbp", "id", "network", "process" };
	struct ck c = { doc, p, report, ctx, 0, NULL };
	unsigned long pbp;

	memset(p, 0, sizeof *p);
	EACH_MEMBER(&c, 0, i, k) {
		unsigned v = k + 1;
		if (json_streq(doc, k, "pbp"))
			integer(&c, "pbp", v, 1, 1, &pbp);
		else if (json_streq(doc, k, "id"))
			check_id(&c, v);
		else if (json_streq(doc, k, "files"))
			check_files(&c, v);
		else if (json_streq(doc, k, "network"))
			check_network(&c, v);
		else if (json_streq(doc, k, "process"))
			check_process(&c, v);
		else if (json_streq(doc, k, "env"))
			check_env(&c, v);
		else
			unknown(&c, "", k);
	}
	for (size_t i = 0; i < sizeof required / sizeof *required; i++)
		if (!json_get(doc, 0, required[i]))
			problem(&c, required[i], "missing required key");
	check_beneath_write(&c);
	free(c.protected_at);
	if (c.n)
		policy_free(p);
	return c.n;
}

static void free_list(struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

void policy_free(struct policy *p)
{
	free(p->id);
	free_list(&p->read);
	free_list(&p->write);
	free_list(&p->exec);
	free_list(&p->protected);
	free(p->connect_ports);
	free(p->bind_ports);
	free(p->connect_udp_ports);
	free(p->bind_udp_ports);
	free_list(&p->env_inherit);
	free_list(&p->env_set_names);
	free_list(&p->env_set_values);
	free(p->env_private);
	free_list(&p->read_resolved);
	free_list(&p->write_resolved);
	free_list(&p->exec_resolved);
	free_list(&p->protected_resolved);
	memset(p, 0, sizeof *p);
}
