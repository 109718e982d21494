/* The launch 1 manifest checker (manifest.h). Walks the JSON that json.c
 * accepted once, in file order, as policy.c walks a policy, and hands each
 * inline policy to policy_check as a document of its own (the subtree's
 * tokens: json.c's readers use only offsets and indices within one), so
 * that it is checked, and hashed, exactly as a policy file would be. Each
 * value gets at most one message. ENOMEM dies with 125. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "manifest.h"
#include "near.h"
#include "manifestck.h"
#include "policyrules.h"

#define ROLE_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-"

/* A line of policy_check's, about the inline policy of c->label's component. */
static void policy_line(void *ctx, const char *line)
{
	static const char near[] = "; did you mean ";
	struct mck *c = ctx;
	char out[LINE_MAX_];
	const char *m = strstr(line, near);	/* its key path too is the manifest's */

	if (m)
		snprintf(out, sizeof out, "%spolicy.%.*spolicy.%s", c->label,
		         (int)(m + strlen(near) - line), line, m + strlen(near));
	else
		snprintf(out, sizeof out, "%spolicy.%s", c->label, line);
	mck_say(c, out);
}

/* Key K's name for a message: bare when it is a plain word, else quoted. */
static const char *key_name(struct mck *c, unsigned k, char out[QUOTED_MAX])
{
	size_t len, i;
	const char *s = json_str(c->d, k, &len);   /* LEN bytes, no NUL after them */

	for (i = 0; i < len && s[i] && strchr(KEY_CHARS, s[i]); i++)
		;
	if (len && len <= QUOTE_MAX && i == len) {
		memcpy(out, s, len);
		out[len] = '\0';
		return out;
	}
	return quote(out, s, len, QUOTE_ALWAYS);
}

/* KEY (key K) is none of NAMES: "unknown key", and the one of NAMES it is
 * near, as a policy's keys have it (policynear.c). */
static void unknown(struct mck *c, const char *key, unsigned k, const char *const *names,
                    const char *prefix)
{
	size_t len;
	const char *s = json_str(c->d, k, &len), *near = near_name(s, len, names);

	if (near)
		mck_problem(c, key, "unknown key; did you mean %s%s?", prefix, near);
	else
		mck_problem(c, key, "unknown key");
}

static int integer(struct mck *c, const char *key, unsigned v, long long lo, long long hi,
                   unsigned long *out)
{
	long long n;

	if (!mck_is(c, key, v, JSON_NUMBER))
		return 0;
	if ((n = json_integer(c->d, v)) < lo || n > hi) {
		if (lo == hi)
			mck_problem(c, key, "must be %lld, not %lld", lo, n);
		else
			mck_problem(c, key, "must be %lld-%lld, not %lld", lo, hi, n);
		return 0;
	}
	*out = (unsigned long)n;
	return 1;
}

static void boolean(struct mck *c, const char *key, unsigned v, int *out)
{
	if (TYPE(c, v) == JSON_TRUE || TYPE(c, v) == JSON_FALSE)
		*out = TYPE(c, v) == JSON_TRUE;
	else
		mck_problem(c, key, "must be true or false");
}

/* KEY's value V, a TCP port, into *OUT. */
static void tcp_port(struct mck *c, const char *key, unsigned v, unsigned *out)
{
	unsigned long port;

	if (integer(c, key, v, 1, POLICY_MAX_PORT, &port))
		*out = (unsigned)port;
}

/* A DNS label (RFC 1123), the role's host name in the session. */
static int role_ok(const char *s, size_t len)
{
	/* strspn stops at a NUL, so an embedded one makes it short of LEN */
	return len && len <= MANIFEST_ROLE_MAX && strspn(s, ROLE_CHARS) == len &&
	       s[0] != '-' && s[len - 1] != '-';
}

/* c->label for component I (main when MAIN) of object O: its place, and
 * its role when that is valid, so every line names the component. */
static void set_label(struct mck *c, size_t i, int main, unsigned o)
{
	unsigned r = TYPE(c, o) == JSON_OBJECT ? json_get(c->d, o, "role") : 0;
	char place[40];
	size_t len = 0;
	const char *s = r && TYPE(c, r) == JSON_STRING ? json_str(c->d, r, &len) : "";
	char role[MANIFEST_ROLE_MAX + 1] = "";

	if (len <= MANIFEST_ROLE_MAX) {
		memcpy(role, s, len);
		role[len] = '\0';
	}
	if (main)
		snprintf(place, sizeof place, "main");
	else
		snprintf(place, sizeof place, "components[%zu]", i);
	if (role_ok(role, len))
		snprintf(c->label, sizeof c->label, "%s \"%s\": ", place, role);
	else
		snprintf(c->label, sizeof c->label, "%s: ", place);
}

static void check_role(struct mck *c, struct component *p, unsigned v)
{
	char q[QUOTED_MAX];
	size_t len;
	char *s = mck_string(c, "role", v, &len);

	if (s && !role_ok(s, len)) {
		mck_problem(c, "role", "must be a DNS label, its host name in the session: 1-%d of "
		        "A-Z a-z 0-9 -, not beginning or ending with -: %s",
		        MANIFEST_ROLE_MAX, quote(q, s, len, QUOTE_ALWAYS));
		free(s);
		s = NULL;
	}
	p->role = s;
}

/* KEY's array A into L: a command. */
static void check_command(struct mck *c, const char *key, struct strlist *l, unsigned a)
{
	char at[48];
	size_t len;
	char *s;

	if (TYPE(c, a) != JSON_ARRAY || !SIZE(c, a)) {
		mck_problem(c, key, "must be an array of at least one string");
		return;
	}
	if (!(l->v = calloc(SIZE(c, a) + 1, sizeof *l->v)))
		die(EXIT_REFUSED, "unable to allocate memory");
	JSON_EACH_ELEMENT(c->d, a, i, e) {
		snprintf(at, sizeof at, "%s[%u]", key, i);
		if (!(s = mck_string(c, at, e, &len)))
			continue;
		if (memchr(s, '\0', len))
			mck_problem(c, at, "contains a NUL byte");
		else if (!i && !len)
			mck_problem(c, at, "must not be empty");
		l->v[l->n++] = s;
	}
}

static void check_policy(struct mck *c, struct component *p, unsigned o)
{
	struct json_doc sub = *c->d;
	unsigned char digest[HASH_LEN];

	if (!mck_is(c, "policy", o, JSON_OBJECT))
		return;
	sub.tok = c->d->tok + o;
	sub.ntok = json_next(c->d, o) - o;
	p->policy_tok = o;
	policy_check(&p->pol, &sub, policy_line, c);
	if (!hash_doc(&sub, digest))
		die(EXIT_REFUSED, "unable to allocate memory");
	hash_format(digest, p->hash);
}

static void ready_unix(struct mck *c, struct component *p, unsigned v)
{
	char q[QUOTED_MAX];
	size_t len;
	char *s = mck_string(c, "ready.unix", v, &len);

	if (!s)
		return;
	if (policy_path(s, len, s) != POLICY_PATH_OK)
		mck_problem(c, "ready.unix", "not an absolute path without . or ..: %s",
		        quote(q, s, len, QUOTE_ALWAYS));
	else if (strlen(s) > SUN_PATH_MAX)
		mck_problem(c, "ready.unix", "longer than the %d bytes a socket address holds: %s",
		        SUN_PATH_MAX, quote(q, s, len, QUOTE_ALWAYS));
	else {
		p->ready_path = s;
		return;
	}
	free(s);
}

/* One of tcp, unix and stdout_line, and an optional timeout_seconds. */
static void check_ready(struct mck *c, struct component *p, unsigned o)
{
	char key[QUOTED_MAX + 8], name[QUOTED_MAX];
	int kinds = 0;

	p->ready_timeout = MANIFEST_READY_TIMEOUT;
	if (!mck_is(c, "ready", o, JSON_OBJECT))
		return;
	JSON_EACH_MEMBER(c->d, o, m, k) {
		(void)m;
		snprintf(key, sizeof key, "ready.%s", key_name(c, k, name));
		if (json_streq(c->d, k, "timeout_seconds")) {
			integer(c, key, k + 1, 1, MANIFEST_READY_TIMEOUT_MAX, &p->ready_timeout);
			continue;
		}
		kinds++;
		if (json_streq(c->d, k, "tcp")) {
			p->ready = READY_TCP;
			tcp_port(c, key, k + 1, &p->ready_port);
		} else if (json_streq(c->d, k, "unix")) {
			p->ready = READY_UNIX;
			ready_unix(c, p, k + 1);
		} else if (json_streq(c->d, k, "stdout_line")) {
			p->ready = READY_STDOUT_LINE;
			if (TYPE(c, k + 1) != JSON_TRUE)
				mck_problem(c, key, "must be true");
		} else {
			unknown(c, key, k, (const char *const[]){ "tcp", "unix", "stdout_line",
			        "timeout_seconds", NULL }, "ready.");
			kinds--;
		}
	}
	if (kinds != 1)
		mck_problem(c, "ready", "needs exactly one of tcp, unix and stdout_line, not %d", kinds);
}

/* health.http.path: "/", then printable ASCII without spaces. */
static void http_path(struct mck *c, const char *key, struct component *p, unsigned v)
{
	char qs[QUOTED_MAX];
	size_t len, i;
	char *s = mck_string(c, key, v, &len);

	for (i = 0; s && i < len && s[i] > ' ' && s[i] < 0x7f; i++)
		;
	if (s && len && len <= MANIFEST_HTTP_PATH_MAX && s[0] == '/' && i == len) {
		p->http_path = s;
	} else if (s) {
		mck_problem(c, key, "must be 1-%d bytes of printable ASCII without spaces, "
		             "starting with /: %s", MANIFEST_HTTP_PATH_MAX,
		             quote(qs, s, len, QUOTE_ALWAYS));
		free(s);
	}
}

/* health.http: a port and a path. */
static void check_http(struct mck *c, struct component *p, unsigned o)
{
	char key[QUOTED_MAX + 16], name[QUOTED_MAX];

	if (!mck_is(c, "health.http", o, JSON_OBJECT))
		return;
	JSON_EACH_MEMBER(c->d, o, m, k) {
		(void)m;
		snprintf(key, sizeof key, "health.http.%s", key_name(c, k, name));
		if (json_streq(c->d, k, "port"))
			tcp_port(c, key, k + 1, &p->http_port);
		else if (json_streq(c->d, k, "path"))
			http_path(c, key, p, k + 1);
		else
			unknown(c, key, k, (const char *const[]){ "port", "path", NULL },
			        "health.http.");
	}
	if (!json_get(c->d, o, "port") || !json_get(c->d, o, "path"))
		mck_problem(c, "health.http", "needs port and path");
}

/* health: tcp, http, command or more, and optionally interval_ms,
 * timeout_ms and fails. */
static void check_health(struct mck *c, struct component *p, unsigned o)
{
	char key[QUOTED_MAX + 8], name[QUOTED_MAX];

	p->health_interval_ms = MANIFEST_HEALTH_INTERVAL_MS;
	p->health_fails = MANIFEST_HEALTH_FAILS;
	p->health_timeout_ms = MANIFEST_HEALTH_TIMEOUT_MS;
	if (!mck_is(c, "health", o, JSON_OBJECT))
		return;
	p->health = 1;
	JSON_EACH_MEMBER(c->d, o, m, k) {
		(void)m;
		snprintf(key, sizeof key, "health.%s", key_name(c, k, name));
		if (json_streq(c->d, k, "tcp")) {
			tcp_port(c, key, k + 1, &p->health_port);
		} else if (json_streq(c->d, k, "http")) {
			check_http(c, p, k + 1);
		} else if (json_streq(c->d, k, "command")) {
			check_command(c, "health.command", &p->health_command, k + 1);
		} else if (json_streq(c->d, k, "interval_ms")) {
			integer(c, key, k + 1, 10, 3600000, &p->health_interval_ms);
		} else if (json_streq(c->d, k, "timeout_ms")) {
			integer(c, key, k + 1, 10, 3600000, &p->health_timeout_ms);
		} else if (json_streq(c->d, k, "fails")) {
			integer(c, key, k + 1, 1, 100, &p->health_fails);
		} else {
			unknown(c, key, k, (const char *const[]){ "tcp", "http", "command",
			        "interval_ms", "timeout_ms", "fails", NULL }, "health.");
		}
	}
	if (!json_get(c->d, o, "tcp") && !json_get(c->d, o, "http") && !json_get(c->d, o, "command"))
		mck_problem(c, "health", "needs one or more of tcp, http and command");
}

/* The policy POL lets its process bind TCP PORT: "none" is the session's
 * whole loopback, the object form its bind_tcp_ports. */
static int may_bind(const struct policy *pol, unsigned port)
{
	for (size_t i = 0; i < pol->nbind; i++)
		if (pol->bind_ports[i] == port)
			return 1;
	return pol->net_none;
}

/* What ready waits for and health checks must be what the component's
 * own (valid) policy lets it make: a TCP port it may bind, a socket where
 * it may write. */
#define UNBOUND "port %u is not in policy.network.bind_tcp_ports"
static void check_ready_policy(struct mck *c, const struct component *p)
{
	const struct policy *pol = &p->pol;

	if (p->ready == READY_TCP && !may_bind(pol, p->ready_port))
		mck_problem(c, "ready.tcp", UNBOUND, p->ready_port);
	if (p->health_port && !may_bind(pol, p->health_port))
		mck_problem(c, "health.tcp", UNBOUND, p->health_port);
	if (p->http_port && !may_bind(pol, p->http_port))
		mck_problem(c, "health.http.port", UNBOUND, p->http_port);
	for (size_t i = 0; p->ready_path && i < pol->write.n + pol->tmpfs.n; i++)
		if (path_beneath(p->ready_path, i < pol->write.n ? pol->write.v[i] :
		                 pol->tmpfs.v[i - pol->write.n]))
			return;
	/* beneath a share it writes: manifest_spans, once shares are known */
	if (p->ready_path && !path_beneath(p->ready_path, MANIFEST_SHARE_DIR))
		mck_problem(c, "ready.unix", "beneath no files.write or files.tmpfs path of policy: %s",
		        q(p->ready_path));
}

/* An inline policy's env may neither inherit nor set what launch sets;
 * and it names no hosts: a role keeps the session's network, where no
 * egress step stands (run --in-session refuses it, once the role starts). */
static void check_launch_env(struct mck *c, const struct policy *pol)
{
	char kp[64 + MANIFEST_READY_NAME_MAX];

	if (pol->hosts.n)
		mck_problem(c, "policy.network.hosts", "a role keeps the session's network, "
		            "where no egress step stands: name ports, or \"none\"");
	for (size_t i = 0; i < pol->env_inherit.n; i++)
		if (manifest_launch_sets(pol->env_inherit.v[i])) {
			snprintf(kp, sizeof kp, "policy.env.inherit[%zu]", i);
			mck_problem(c, kp, "set by sharness-exec launch itself: %s", q(pol->env_inherit.v[i]));
		}
	for (size_t i = 0; i < pol->env_set_names.n; i++)
		if (manifest_launch_sets(pol->env_set_names.v[i])) {
			snprintf(kp, sizeof kp, "policy.env.set.%.*s", (int)MANIFEST_READY_NAME_MAX,
			         pol->env_set_names.v[i]);
			mck_problem(c, kp, "set by sharness-exec launch itself");
		}
}

/* Component or main O into P: its members in file order, then the keys
 * it lacks, then freeze_when_ready's need of ready. */
static void check_component(struct mck *c, struct component *p, unsigned o, int main)
{
	static const char *const required[] = { "role", "command", "policy" };
	static const char *const keys[] = { "command", "ready", "freeze_when_ready", "after",
	                                     "health", "role", "policy", "identity", NULL };
	static const char *const main_keys[] = { "role", "policy", "identity", "read_logs", NULL };
	char key[QUOTED_MAX];

	if (TYPE(c, o) != JSON_OBJECT) {
		c->label[strlen(c->label) - 2] = '\0';
		mck_problem(c, "", "must be an object");
		return;
	}
	JSON_EACH_MEMBER(c->d, o, m, k) {
		(void)m;
		if (json_streq(c->d, k, "role"))
			check_role(c, p, k + 1);
		else if (json_streq(c->d, k, "policy"))
			check_policy(c, p, k + 1);
		else if (json_streq(c->d, k, "identity"))
			boolean(c, "identity", k + 1, &p->identity);
		else if (!main && json_streq(c->d, k, "command"))
			check_command(c, "command", &p->command, k + 1);
		else if (!main && json_streq(c->d, k, "ready"))
			check_ready(c, p, k + 1);
		else if (!main && json_streq(c->d, k, "freeze_when_ready"))
			boolean(c, "freeze_when_ready", k + 1, &p->freeze_when_ready);
		else if (!main && json_streq(c->d, k, "health"))
			check_health(c, p, k + 1);
		else if (!main && json_streq(c->d, k, "after"))
			p->after_tok = k + 1;   /* roles: once all are known (check_after) */
		else if (main && json_streq(c->d, k, "read_logs"))
			p->read_logs_tok = k + 1;   /* roles: once all are known (manifest_spans) */
		else if (main && json_streq(c->d, k, "command"))
			mck_problem(c, "command", "unknown key: main's command is launch's COMMAND");
		else if (json_streq(c->d, k, "read_logs"))
			mck_problem(c, "read_logs", "unknown key: main's alone, which reads the logs");
		else
			unknown(c, key_name(c, k, key), k, main ? main_keys : keys, "");
	}
	for (size_t i = 0; i < 3; i++)
		if ((!main || i != 1) && !json_get(c->d, o, required[i]))
			mck_problem(c, required[i], "missing required key");
	if (p->freeze_when_ready && !json_get(c->d, o, "ready"))
		mck_problem(c, "freeze_when_ready", "needs ready: it freezes the component once ready");
	if (p->freeze_when_ready && p->health)
		mck_problem(c, "health", "a component frozen when ready answers no health check");
	if (p->pol.id) {
		check_ready_policy(c, p);
		check_launch_env(c, &p->pol);
	}
}

static void check_components(struct mck *c, struct manifest *m, unsigned a)
{
	if (!mck_is(c, "components", a, JSON_ARRAY))
		return;
	if (!SIZE(c, a) || SIZE(c, a) > MANIFEST_MAX_COMPONENTS) {
		mck_problem(c, "components", "must hold 1-%d components, not %zu",
		        MANIFEST_MAX_COMPONENTS, SIZE(c, a));
		return;
	}
	JSON_EACH_ELEMENT(c->d, a, i, e) {
		set_label(c, i, 0, e);
		check_component(c, &m->comp[i], e, 0);
	}
	*c->label = '\0';
}

size_t manifest_check(struct manifest *m, const struct json_doc *doc,
                      void (*report)(void *ctx, const char *line), void *ctx)
{
	static const char *const required[] = { "launch", "id", "components", "main", "share",
	                                         NULL };
	struct mck c = { doc, report, ctx, 0, "" };
	char key[QUOTED_MAX], why[QUOTED_MAX + 64];
	unsigned a = json_get(doc, 0, "components");
	unsigned long format;
	size_t len;

	memset(m, 0, sizeof *m);
	if (a && TYPE(&c, a) == JSON_ARRAY && SIZE(&c, a) <= MANIFEST_MAX_COMPONENTS)
		m->ncomp = SIZE(&c, a);
	if (!(m->comp = calloc(m->ncomp + 1, sizeof *m->comp)))
		die(EXIT_REFUSED, "unable to allocate memory");
	JSON_EACH_MEMBER(doc, 0, i, k) {
		(void)i;
		if (json_streq(doc, k, "launch")) {
			integer(&c, "launch", k + 1, 1, 1, &format);
		} else if (json_streq(doc, k, "id")) {
			if ((m->id = mck_string(&c, "id", k + 1, &len)) &&
			    policy_id_refused(m->id, len, why, sizeof why)) {
				mck_problem(&c, "id", "%s", why);
				free(m->id);
				m->id = NULL;
			}
		} else if (json_streq(doc, k, "components")) {
			check_components(&c, m, k + 1);
		} else if (json_streq(doc, k, "main")) {
			set_label(&c, 0, 1, k + 1);
			check_component(&c, &m->comp[m->ncomp], k + 1, 1);
			*c.label = '\0';
		} else if (json_streq(doc, k, "share")) {
			m->share_tok = k + 1;   /* once every role is known (manifest_spans) */
		} else {
			unknown(&c, key_name(&c, k, key), k, required, "");
		}
	}
	for (size_t i = 0; i < 4; i++)
		if (!json_get(doc, 0, required[i]))
			mck_problem(&c, required[i], "missing required key");
	manifest_spans(&c, m);
	if (c.n)
		manifest_free(m);
	return c.n;
}

void manifest_free(struct manifest *m)
{
	for (size_t i = 0; m->comp && i <= m->ncomp; i++) {
		struct component *p = &m->comp[i];

		for (size_t k = 0; k < p->command.n; k++)
			free(p->command.v[k]);
		free(p->command.v);
		for (size_t k = 0; k < p->health_command.n; k++)
			free(p->health_command.v[k]);
		free(p->health_command.v);
		free(p->role);
		free(p->ready_path);
		free(p->http_path);
		free(p->after);
		policy_free(&p->pol);
	}
	for (size_t i = 0; i < m->nshare; i++)
		free(m->share[i].name);
	free(m->share);
	free(m->comp);
	free(m->id);
	memset(m, 0, sizeof *m);
}

int manifest_load(int fd, const char *path, struct loaded *l, struct manifest *m,
                  const unsigned char *want, int kinds)
{
	memset(m, 0, sizeof *m);
	if (!load_read(fd, path, l, want, kinds))
		return 0;
	if (!l->manifest)
		return load_check(l, path);
	if (manifest_check(m, &l->doc, load_report, (void *)path)) {
		unload_policy(l);
		return 0;
	}
	l->id = m->id;
	return 1;
}
