/* The report's one writer (report.h): every field, in the order of
 * sharness-exec-report(5), into a buffer, which report.c writes. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "ending.h"
#include "report.h"

struct out {
	char *buf;
	size_t len, cap;
	int failed;
};

static void out_bytes(void *ctx, const char *s, size_t n)
{
	struct out *o = ctx;

	if (o->len + n + 1 > o->cap) {
		size_t cap = o->cap ? o->cap : 4096;
		char *b;

		while (cap < o->len + n + 1)
			cap *= 2;
		if (!(b = realloc(o->buf, cap))) {
			o->failed = 1;
			return;
		}
		o->buf = b;
		o->cap = cap;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

/* A string literal. */
#define LIT(o, s) out_bytes(o, s, sizeof s - 1)

static void outf(struct out *o, const char *fmt, ...) PRINTF(2, 3);
static void outf(struct out *o, const char *fmt, ...)
{
	char b[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(b, sizeof b, fmt, ap);
	va_end(ap);
	out_bytes(o, b, n < 0 ? 0 : (size_t)n < sizeof b ? (size_t)n : sizeof b - 1);
}

/* A string, or null; one that is not UTF-8 (supervise run by hand) as
 * qn() shows it. */
static void str(struct out *o, const char *s)
{
	if (!s) {
		LIT(o, "null");
		return;
	}
	if (s[utf8_check((const unsigned char *)s, strlen(s))])
		s = qn(s);
	json_quote(out_bytes, o, s, strlen(s));
}

/* V as text into B, or null. */
static const char *n(char b[24], long long v)
{
	if (v < 0)
		return "null";
	snprintf(b, 24, "%lld", v);
	return b;
}

static void list(struct out *o, const struct report_list *l)
{
	LIT(o, "[");
	for (size_t i = 0; i < l->n; i++) {
		if (i)
			LIT(o, ",");
		str(o, l->v[i]);
	}
	LIT(o, "]");
}

/* {"exit_code": N} or {"signal": N}, or null. */
static void status(struct out *o, int code, int sig)
{
	if (code >= 0)
		outf(o, "{\"exit_code\":%d}", code);
	else if (sig > 0)
		outf(o, "{\"signal\":%d}", sig);
	else
		LIT(o, "null");
}

/* "NAME:WALL,..." as {"NAME": "WALL", ...}, "none" as null. */
static void walls(struct out *o, const char *w)
{
	const char *p = w;

	if (!w) {
		LIT(o, "null");
		return;
	}
	LIT(o, "{");
	while (*p) {
		size_t n = strcspn(p, ","), k = strcspn(p, ":");
		char *name;

		if (k < n && (name = strndup(p, k))) {
			char *wall = strndup(p + k + 1, n - k - 1);

			if (p != w)
				LIT(o, ",");
			str(o, name);
			LIT(o, ":");
			str(o, wall && strcmp(wall, "none") ? wall : NULL);
			free(wall);
			free(name);
		}
		p += n + (p[n] == ',');
	}
	LIT(o, "}");
}

/* The egress step's hosts: {"complete", "refused": [{host, port, count,
 * reason}], "allowed": [{host, port, connections, bytes_sent,
 * bytes_received}], "more_refused", "more_allowed"}, or null. */
static void egress(struct out *o, const struct tally *t, int complete)
{
	if (!t) {
		LIT(o, "null");
		return;
	}
	outf(o, "{\"complete\":%s,\"refused\":[", complete ? "true" : "false");
	for (size_t i = 0; i < t->nrefused; i++) {
		const struct tally_host *h = &t->refused[i];
		if (i)
			LIT(o, ",");
		LIT(o, "{\"host\":");
		str(o, strcmp(h->host, "-") ? h->host : NULL);
		if (h->port)
			outf(o, ",\"port\":%u,\"count\":%lu,\"reason\":", h->port, h->n);
		else
			outf(o, ",\"port\":null,\"count\":%lu,\"reason\":", h->n);
		str(o, h->why);
		LIT(o, "}");
	}
	LIT(o, "],\"allowed\":[");
	for (size_t i = 0; i < t->nallowed; i++) {
		const struct tally_host *h = &t->allowed[i];
		if (i)
			LIT(o, ",");
		LIT(o, "{\"host\":");
		str(o, h->host);
		outf(o, ",\"port\":%u,\"connections\":%lu,\"bytes_sent\":%llu,"
		     "\"bytes_received\":%llu}", h->port, h->n, h->up, h->down);
	}
	outf(o, "],\"more_refused\":%lu,\"more_allowed\":%lu}", t->more_refused,
	     t->more_allowed);
}

/* The view step's notes "WALKED SUID VIEW ENTRIES MS SETID VCS UNLISTED
 * SOCKETS PATH" (viewwalk.c) as [{path, walked, entries, ms,
 * setid_looked_for, held: {setid, vcs, unlisted} or null without a view,
 * sockets_covered, why_not}], or null when the view step never walked. */
static void write_paths(struct out *o, const struct report *r)
{
	if (!r->writes_seen) {
		LIT(o, "null");
		return;
	}
	LIT(o, "[");
	for (size_t i = 0, k = 0; i < r->write_paths.n; i++) {
		int walked, suid, view, at = -1;
		size_t entries, setid, vcs, unlisted, sockets;
		long ms;

		if (sscanf(r->write_paths.v[i], "%d %d %d %zu %ld %zu %zu %zu %zu %n", &walked,
		           &suid, &view, &entries, &ms, &setid, &vcs, &unlisted, &sockets,
		           &at) < 9 || at < 0)
			continue;	/* not the view's: never on the pipe */
		if (k++)
			LIT(o, ",");
		LIT(o, "{\"path\":");
		str(o, r->write_paths.v[i] + at);
		if (walked)
			outf(o, ",\"walked\":true,\"entries\":%zu,\"ms\":%ld", entries, ms);
		else
			LIT(o, ",\"walked\":false,\"entries\":null,\"ms\":null");
		outf(o, ",\"setid_looked_for\":%s,\"held\":", walked && suid ? "true" : "false");
		if (view)
			outf(o, "{\"setid\":%zu,\"vcs\":%zu,\"unlisted\":%zu},"
			     "\"sockets_covered\":%zu", setid, vcs, unlisted, sockets);
		else
			LIT(o, "null,\"sockets_covered\":null");
		LIT(o, ",\"why_not\":");
		str(o, walked ? NULL : view ? "nosuid wherever its file system is mounted, "
		    "sockets held by Landlock (ABI 9), VCS metadata writable (-V)" :
		    "nosuid wherever its file system is mounted, no mount namespace, "
		    "VCS metadata writable (-V)");
		LIT(o, "}");
	}
	LIT(o, "]");
}

void report_init(struct report *r)
{
	memset(r, 0, sizeof *r);
	r->wrapper_exit = r->wrapper_signal = r->target_exit = r->target_signal = -1;
	r->peak_bytes = r->cap_bytes = r->oom_kills = -1;
	r->pids_cap = r->refused_forks = r->cpu_cap = -1;
	r->wall_s = -1;
	r->timeout_ms = r->kill_after_ms = -1;
}

void report_add(struct report_list *l, const char *line, size_t len)
{
	char **v = reallocarray(l->v, l->n + 1, sizeof *l->v);

	if (!v)
		return;
	l->v = v;
	if ((v[l->n] = strndup(line, len)))
		l->n++;
}

char *report_text(const struct report *r, size_t *len)
{
	struct out o = { 0 };
	char a[24], b[24], c[24];

	outf(&o, "{\"report\":%d,\"policy\":", REPORT_VERSION);
	if (r->id) {
		LIT(&o, "{\"id\":");
		str(&o, r->id);
		LIT(&o, ",\"hash\":");
		str(&o, r->hash);
		LIT(&o, ",\"key\":");
		str(&o, r->key);
		LIT(&o, "}");
	} else {
		LIT(&o, "null");
	}
	LIT(&o, ",\"outcome\":");
	str(&o, r->outcome);
	LIT(&o, ",\"wrapper_status\":");
	status(&o, r->wrapper_exit, r->wrapper_signal);
	LIT(&o, ",\"target\":");
	status(&o, r->target_exit, r->target_signal);
	LIT(&o, ",\"fatal\":");
	str(&o, r->fatal);
	LIT(&o, ",\"walls\":");
	walls(&o, r->walls);
	LIT(&o, ",\"dropped\":");
	list(&o, &r->dropped);
	LIT(&o, ",\"memory\":");
	if (r->memory_source) {
		outf(&o, "{\"peak_bytes\":%s,\"cap_bytes\":%s,\"oom_kills\":%s,\"source\":",
		     n(a, r->peak_bytes), n(b, r->cap_bytes), n(c, r->oom_kills));
		str(&o, r->memory_source);
		LIT(&o, "}");
	} else {
		LIT(&o, "null");
	}
	if (r->pids)
		outf(&o, ",\"pids\":{\"cap\":%s,\"refused_forks\":%s}", n(a, r->pids_cap),
		     n(b, r->refused_forks));
	else
		LIT(&o, ",\"pids\":null");
	LIT(&o, ",\"cpu\":");
	if (r->cpu_source) {
		outf(&o, "{\"user_s\":%.3f,\"system_s\":%.3f,\"cap_percent\":%s,\"source\":",
		     r->user_s, r->system_s, n(a, r->cpu_cap));
		str(&o, r->cpu_source);
		LIT(&o, "}");
	} else {
		LIT(&o, "null");
	}
	LIT(&o, ",\"timeout\":");
	if (r->timeout_ms >= 0)
		outf(&o, "{\"after_s\":%s,\"kill_after_s\":%s}",
		     seconds((unsigned long long)r->timeout_ms, a, sizeof a),
		     seconds((unsigned long long)r->kill_after_ms, b, sizeof b));
	else
		LIT(&o, "null");
	LIT(&o, ",\"wall_s\":");
	if (r->wall_s >= 0)
		outf(&o, "%.3f", r->wall_s);
	else
		LIT(&o, "null");
	LIT(&o, ",\"warnings\":");
	list(&o, &r->warnings);
	LIT(&o, ",\"env_dropped\":");
	list(&o, &r->env_dropped);
	LIT(&o, ",\"egress\":");
	egress(&o, r->egress, r->egress_complete);
	/* run --explain's list goes here, as it is (report.h). */
	LIT(&o, ",\"denials\":");
	if (r->denials)
		out_bytes(&o, r->denials, strlen(r->denials));
	else
		LIT(&o, "null");
	LIT(&o, ",\"write_paths\":");
	write_paths(&o, r);
	LIT(&o, "}\n");
	if (o.failed) {
		free(o.buf);
		errno = ENOMEM;
		return NULL;
	}
	*len = o.len;
	return o.buf;
}
