/* What a refused access may add to a learned draft, and the draft written
 * out. learn is steered by the command it learns from, so it grants only
 * from a conservative allowlist (the system directories, the cwd's
 * subtree, a fresh tmpfs for /tmp, the run's own /proc and /dev) and lists
 * everything else for a person to review. The rules, in the order they
 * are tried, are those of sharness-exec(1) LEARN. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "json.h"
#include "learn.h"

static const char *const system_dirs[] = {
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", NULL
};
/* Device nodes a test suite writes and reads without harm; the view binds
 * each one named, and learn grants each in files.write. */
static const char *const plain_devices[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", NULL
};
/* Never granted, wherever they lie: credentials, sockets and keys. */
static const char *const never_dirs[] = { "/root", "/run", "/var/run", "/proc/keys", NULL };
static const char *const secret_names[] = {
	".ssh", ".gnupg", ".aws", ".docker", ".kube", ".netrc", ".git-credentials",
	".pki", ".password-store", NULL
};

static const char *beneath_any(const char *path, const char *const *dirs)
{
	for (; *dirs; dirs++)
		if (path_beneath(path, *dirs))
			return *dirs;
	return NULL;
}

static int has_component(const char *path, const char *const *names)
{
	for (const char *p = path; (p = strchr(p, '/')); ) {
		size_t n = strcspn(++p, "/");
		for (const char *const *s = names; *s; s++)
			if (strlen(*s) == n && !strncmp(p, *s, n))
				return 1;
	}
	return 0;
}

/* /proc/PID/environ, /proc/self/environ, /proc/thread-self/environ and the
 * like beneath task/. */
static int proc_environ(const char *path)
{
	size_t n = strlen(path);
	return path_beneath(path, "/proc") && n >= 8 && !strcmp(path + n - 8, "/environ");
}

static int is_write(const char *kind)
{
	return !strcmp(kind, "write") || !strcmp(kind, "create") || !strcmp(kind, "remove");
}

static const char *list_for(const char *kind)
{
	if (is_write(kind))
		return "files.write";
	return strcmp(kind, "exec") ? "files.read" : "files.exec";
}

static struct strlist *list_of(struct policy *p, const char *key)
{
	if (!strcmp(key, "files.read"))
		return &p->read;
	if (!strcmp(key, "files.exec"))
		return &p->exec;
	if (!strcmp(key, "files.write"))
		return &p->write;
	return &p->tmpfs;
}

static int in_list(const struct strlist *l, const char *path)
{
	for (size_t i = 0; i < l->n; i++)
		if (path_beneath(path, l->v[i]))
			return 1;
	return 0;
}

/* Does the draft already grant KEY's right on PATH? Write holds every
 * right, exec holds read. */
static int granted(const struct policy *p, const char *key, const char *path)
{
	if (in_list(&p->write, path) || in_list(&p->tmpfs, path))
		return 1;
	if (!strcmp(key, "files.write"))
		return 0;
	if (in_list(&p->exec, path))
		return 1;
	return !strcmp(key, "files.read") && in_list(&p->read, path);
}

static int push(struct strlist *l, const char *s)
{
	char **v = realloc(l->v, (l->n + 1) * sizeof *v);

	if (!v || !(v[l->n] = strdup(s)))
		diex(EXIT_REFUSED, "out of memory");
	l->v = v;
	l->n++;
	return 1;
}

static unsigned *port_list(struct policy *p, const char *kind, size_t **n, const char **key)
{
	static const struct { const char *kind, *key; } k[] = {
		{ "connect_tcp", "network.connect_tcp_ports" },
		{ "bind_tcp", "network.bind_tcp_ports" },
		{ "connect_udp", "network.connect_udp_ports" },
		{ "bind_udp", "network.bind_udp_ports" },
	};
	unsigned **l[] = { &p->connect_ports, &p->bind_ports, &p->connect_udp_ports,
	                   &p->bind_udp_ports };
	size_t *c[] = { &p->nconnect, &p->nbind, &p->nconnect_udp, &p->nbind_udp };

	for (size_t i = 0; i < sizeof k / sizeof *k; i++)
		if (!strcmp(kind, k[i].kind)) {
			*n = c[i];
			*key = k[i].key;
			return (unsigned *)l[i];
		}
	return NULL;
}

static struct addition *note(struct draft *d, const char *key, const char *value,
                             const char *why, int grant)
{
	struct addition *a;

	for (size_t i = 0; i < d->nadd; i++)
		if (!strcmp(d->add[i].key, key) && !strcmp(d->add[i].value, value))
			return &d->add[i];
	if (!(a = realloc(d->add, (d->nadd + 1) * sizeof *a)))
		diex(EXIT_REFUSED, "out of memory");
	d->add = a;
	a += d->nadd++;
	a->key = strdup(key);
	a->value = strdup(value);
	a->why = strdup(why);
	a->granted = grant;
	a->was_none = 0;
	if (!a->key || !a->value || !a->why)
		diex(EXIT_REFUSED, "out of memory");
	return a;
}

/* A port: only with --allow-network, and only in the object form. */
static int consider_port(struct draft *d, const struct denial *x, const struct learn_ctx *c)
{
	char value[16], why[96];
	const char *key;
	size_t *n;
	unsigned **l = (unsigned **)port_list(&d->p, x->kind, &n, &key);

	/* network.hosts: the run reaches the world through the egress
	 * step's proxy alone; a tool that went around it has no port to
	 * learn (explain's line says so). */
	if (!l || x->port < 0 || x->port > 65535 || d->p.hosts.n)
		return 0;
	snprintf(value, sizeof value, "%ld", x->port);
	snprintf(why, sizeof why, "%s %ld", x->kind, x->port);
	if (d->p.net_none && !c->allow_network) {
		note(d, key, value, "needs the host's network: learn --allow-network", 0);
		return 0;
	}
	for (size_t i = 0; i < *n; i++)
		if ((*l)[i] == (unsigned)x->port)
			return 0;
	if (!(*l = realloc(*l, (*n + 1) * sizeof **l)))
		diex(EXIT_REFUSED, "out of memory");
	(*l)[(*n)++] = (unsigned)x->port;
	note(d, key, value, why, 1)->was_none = d->p.net_none;
	d->p.net_none = 0;
	return 1;
}

/* A string member KEY of object O of DOC, or NULL (a heap copy). */
static char *text_of(const struct json_doc *doc, unsigned o, const char *key)
{
	unsigned v = json_get(doc, o, key);

	return v && json_type(doc, v) == JSON_STRING ? json_string(doc, v, &(size_t){ 0 }) :
	       NULL;
}

void draft_hosts(struct draft *d, const struct json_doc *doc)
{
	unsigned e = json_get(doc, 0, "egress"), r = e ? json_get(doc, e, "refused") : 0;

	if (!r || json_type(doc, r) != JSON_ARRAY)
		return;
	JSON_EACH_ELEMENT(doc, r, m, h) {
		char *host = text_of(doc, h, "host"), *reason = text_of(doc, h, "reason");
		unsigned port = json_get(doc, h, "port");
		char what[300], why[400];

		/* a person decides which hosts a run may reach: proposed only */
		if (host && reason && port && json_type(doc, port) == JSON_NUMBER &&
		    (!strcmp(reason, "not listed") ||
		     !strcmp(reason, "the name is listed, not this port"))) {
			snprintf(what, sizeof what, "%s:%lld", host, json_integer(doc, port));
			snprintf(why, sizeof why, "proxy connect %s: %s", qn(what), reason);
			note(d, "network.hosts", what, why, 0);
		}
		free(host);
		free(reason);
	}
}

/* The directory a suggestion names: a file's, or a listed directory. */
static char *suggested(const struct denial *x)
{
	char *s = strdup(x->path), *slash;

	if (!s)
		diex(EXIT_REFUSED, "out of memory");
	if (strcmp(x->kind, "list") && (slash = strrchr(s, '/')) && slash != s)
		*slash = '\0';
	return s;
}

/* Where the allowlist grants PATH for KIND, the path granted (static or
 * the cwd) and its list, else NULL. */
static const char *allowed(const struct denial *x, const struct learn_ctx *c,
                           const char **key)
{
	const char *dir, *p = x->path;

	*key = list_for(x->kind);
	if (path_beneath(p, c->cwd))
		return c->cwd;
	if (path_beneath(p, "/tmp") || path_beneath(p, "/var/tmp")) {
		*key = "files.tmpfs";
		return path_beneath(p, "/tmp") ? "/tmp" : "/var/tmp";
	}
	/* A plain node is written whatever the access asked: a command that
	 * reads /dev/null nearly always writes it too, and each such write
	 * would cost a round of its own. */
	for (const char *const *dev = plain_devices; *dev; dev++)
		if (!strcmp(p, *dev)) {
			*key = "files.write";
			return *dev;
		}
	if (path_beneath(p, "/dev/pts") || !strcmp(p, "/dev/ptmx") || !strcmp(p, "/dev/tty")) {
		*key = "files.read";	/* /dev whole: the built /dev, its own ptys */
		return "/dev";
	}
	if (!is_write(x->kind) && path_beneath(p, "/proc") && !proc_environ(p)) {
		*key = "files.read";	/* the run's own procfs */
		return "/proc";
	}
	if (!is_write(x->kind) && (dir = beneath_any(p, system_dirs)))
		return dir;
	return NULL;
}

int draft_consider(struct draft *d, const struct denial *x, const struct learn_ctx *c)
{
	const char *key, *grant, *never;
	char why[4 * PATH_MAX + 48], *dir;
	int unknown;

	if (!x->kind)
		return 0;
	if (!x->path)
		return consider_port(d, x, c);
	if (x->path[0] != '/' || (x->state && !strcmp(x->state, "absent")))
		return 0;	/* relative: not decidable; absent: nothing to grant */
	/* The path as every line of ours shows one: a newline in a name
	 * must not forge a line of the list (quote(), text.h). */
	snprintf(why, sizeof why, "%s %s", x->kind, qn(x->path));
	/* A path the observer could not decide (through a link beneath a
	 * write path, say) is for a person to look at. */
	unknown = x->state && !strcmp(x->state, "unknown");
	never = beneath_any(x->path, never_dirs);
	if (unknown || !strcmp(x->kind, "connect_unix") || never || proc_environ(x->path) ||
	    has_component(x->path, secret_names) ||
	    ((path_beneath(x->path, c->home) ||
	      (c->envhome && path_beneath(x->path, c->envhome))) &&
	     !path_beneath(x->path, c->cwd)) ||
	    !(grant = allowed(x, c, &key))) {
		/* A host socket acts for whoever listens: files.sockets names
		 * that one, never a directory. */
		if (!strcmp(x->kind, "connect_unix")) {
			note(d, "files.sockets", x->path, why, 0);
			return 0;
		}
		dir = suggested(x);
		note(d, list_for(x->kind), dir, why, 0);
		free(dir);
		return 0;
	}
	if (granted(&d->p, key, x->path))
		return 0;	/* granted, and still refused: the run's warnings say why */
	push(list_of(&d->p, key), grant);
	note(d, key, grant, why, 1);
	return 1;
}

void draft_retract(struct draft *d, const char *why)
{
	struct addition *a = &d->add[d->nadd - 1];
	const char *key;
	size_t *n;

	if (!strncmp(a->key, "files.", 6)) {
		struct strlist *l = list_of(&d->p, a->key);
		free(l->v[--l->n]);
	} else {
		/* "network.KIND_ports" */
		char kind[32];
		snprintf(kind, sizeof kind, "%.*s", (int)(strlen(a->key) - 14), a->key + 8);
		if (port_list(&d->p, kind, &n, &key))
			--*n;
		d->p.net_none |= a->was_none;
	}
	a->granted = 0;
	free(a->why);
	if (asprintf(&a->why, "check refuses it: %s", why) < 0)
		diex(EXIT_REFUSED, "out of memory");
}

/* --- the draft as JSON --- */

static void to_file(void *f, const char *s, size_t n)
{
	fwrite(s, 1, n, f);
}

/* A policy's strings are UTF-8 (policy_check), as json_quote wants. */
static void str(FILE *f, const char *s)
{
	json_quote(to_file, f, s, strlen(s));
}

static void strs(FILE *f, const char *indent, const char *name, const struct strlist *l,
                 const char **sep)
{
	if (!l->n)
		return;
	fprintf(f, "%s%s\"%s\": [", *sep, indent, name);
	for (size_t i = 0; i < l->n; i++) {
		fputs(i ? ", " : "", f);
		str(f, l->v[i]);
	}
	putc(']', f);
	*sep = ",\n";
}

static void ports(FILE *f, const char *name, const unsigned *v, size_t n, const char **sep)
{
	fprintf(f, "%s    \"%s\": [", *sep, name);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%u", i ? ", " : "", v[i]);
	putc(']', f);
	*sep = ",\n";
}

static void process(FILE *f, const struct policy *p)
{
	fputs("  \"process\": { \"no_new_privs\": true", f);
	if (p->max_memory_mb)
		fprintf(f, ", \"max_memory_mb\": %lu", p->max_memory_mb);
	if (p->max_pids)
		fprintf(f, ", \"max_pids\": %lu", p->max_pids);
	if (p->max_cpu_percent)
		fprintf(f, ", \"max_cpu_percent\": %lu", p->max_cpu_percent);
	if (p->user_namespaces)
		fputs(", \"user_namespaces\": true", f);
	fputs(" }", f);
}

static void env(FILE *f, const struct policy *p)
{
	const char *sep = "";

	if (!p->env_inherit.n && !p->env_set_names.n && !p->env_private)
		return;
	fputs(",\n  \"env\": {\n", f);
	strs(f, "    ", "inherit", &p->env_inherit, &sep);
	if (p->env_set_names.n) {
		fprintf(f, "%s    \"set\": {", sep);
		for (size_t i = 0; i < p->env_set_names.n; i++) {
			fputs(i ? ", " : " ", f);
			str(f, p->env_set_names.v[i]);
			fputs(": ", f);
			str(f, p->env_set_values.v[i]);
		}
		fputs(" }", f);
		sep = ",\n";
	}
	if (p->env_private) {
		fprintf(f, "%s    \"private\": ", sep);
		str(f, p->env_private);
	}
	fputs("\n  }", f);
}

void draft_write(FILE *f, const struct policy *p)
{
	const char *sep = "";

	fputs("{\n  \"pbp\": 1,\n  \"id\": ", f);
	str(f, p->id);
	fputs(",\n  \"files\": {\n", f);
	strs(f, "    ", "read", &p->read, &sep);
	strs(f, "    ", "exec", &p->exec, &sep);
	strs(f, "    ", "write", &p->write, &sep);
	strs(f, "    ", "protected", &p->protected, &sep);
	strs(f, "    ", "tmpfs", &p->tmpfs, &sep);
	fputs("\n  },\n  \"network\": ", f);
	if (p->hosts.n) {
		/* a base's hosts: learn never adds one (a suggestion only) */
		sep = "";
		fputs("{\n", f);
		strs(f, "    ", "hosts", &p->hosts, &sep);
		fputs("\n  }", f);
	} else if (p->net_none) {
		fputs("\"none\"", f);
	} else {
		sep = "";
		fputs("{\n", f);
		ports(f, "connect_tcp_ports", p->connect_ports, p->nconnect, &sep);
		ports(f, "bind_tcp_ports", p->bind_ports, p->nbind, &sep);
		if (p->nconnect_udp || p->nbind_udp) {
			ports(f, "connect_udp_ports", p->connect_udp_ports, p->nconnect_udp, &sep);
			ports(f, "bind_udp_ports", p->bind_udp_ports, p->nbind_udp, &sep);
		}
		fputs("\n  }", f);
	}
	fputs(",\n", f);
	process(f, p);
	env(f, p);
	fputs("\n}\n", f);
}

void draft_free(struct draft *d)
{
	for (size_t i = 0; i < d->nadd; i++) {
		free(d->add[i].key);
		free(d->add[i].value);
		free(d->add[i].why);
	}
	free(d->add);
	policy_free(&d->p);
	memset(d, 0, sizeof *d);
}
