/* sharness-exec-probe: `sharness-exec hello` and `sharness-exec probe`,
 * beside the verify path (DESIGN.md 1). The front end execs this program
 * with -F, a descriptor of itself, which hello and probe run again: this
 * program parses no policy and links no cryptography.
 *
 * probe [--json]: what this machine lets sharness-exec enforce. It writes
 * nothing; the caller's facts come from /proc and throwaway children
 * (machine.c), the walls from the chain itself: `sharness-exec run --check`
 * with probe's own two policies ("none" with both caps, and the object
 * form), where each step says in one line what it used, so probe and run
 * agree by construction. The JSON object's fields are listed, with their
 * types, in sharness-exec-probe(1); they are stable: new ones may be
 * added, none is renamed or changes type. Exit 0, or 125 on a usage error. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "helper.h"
#include "landlock-abi.h"
#include "machine.h"

const char *progname = "sharness-exec-probe";

#define USAGE "sharness-exec-probe [-F FD] hello [--policy POLICY]\n" \
	"       sharness-exec-probe [-F FD] probe [--json] [-K FILE [--fingerprint FINGERPRINT] " \
	"[--key-error WHY]]..."
#define PROBE_USAGE "sharness-exec probe [--json] [--trust-key FILE]..."

/* Probe's policies: what a run of each form would put up. The landlock
 * step ends the run inside, and nothing is executed there; the system's
 * library directories are granted so that helpers linked dynamically
 * (--disable-static-link, the sanitizer builds) find their loader in the
 * view. A missing one is skipped, a merged-/usr link resolved. */
#define PROBE_FILES "\"files\":{\"exec\":[\"/usr\",\"/lib\",\"/lib64\"]},"
#define NONE_POLICY "{\"pbp\":1,\"id\":\"sharness-exec-probe\"," PROBE_FILES \
	"\"network\":\"none\",\"process\":{\"no_new_privs\":true,\"max_memory_mb\":256," \
	"\"max_pids\":256}}"
#define OBJECT_POLICY "{\"pbp\":1,\"id\":\"sharness-exec-probe-ports\"," PROBE_FILES \
	"\"network\":{\"connect_tcp_ports\":[],\"bind_tcp_ports\":[]}," \
	"\"process\":{\"no_new_privs\":true}}"

struct key { const char *path, *fp, *err; };

struct report {
	struct machine m;
	struct walls none, object;
	char strict[256];      /* the strict run's fatal line, or "" */
	struct key *keys;
	size_t nkeys;
};

static const char *const landlock_status[] = {
	[LANDLOCK_AVAILABLE] = "available", [LANDLOCK_MISSING] = "missing",
	[LANDLOCK_DISABLED] = "disabled", [LANDLOCK_BLOCKED] = "blocked",
	[LANDLOCK_UNKNOWN] = "unknown",
};

/* A strict run first; where it is refused, best effort says what a run
 * could still put up. */
static void check_both(const char *policy, struct walls *w, char *strict, size_t size)
{
	walls_check("-", policy, NULL, 0, w);
	if (w->ran)
		return;
	if (strict && !*strict)
		snprintf(strict, size, "%s", w->fatal);
	walls_check("-", policy, NULL, 1, w);
}

/* "cgroup1", "cgroup2" or "rlimit": how a resource limit is set. */
static const char *limit_how(const struct walls *w, const char *where)
{
	if (*where != '/')
		return "rlimit";
	return !strcmp(w->cgroup, "v2") ? "cgroup2" : "cgroup1";
}

static int is(const char *a, const char *b)
{
	return !strcmp(a, b);
}

/* --- JSON --- */

/* A JSON string; bytes that are not UTF-8 become U+FFFD, so the output
 * always parses. NULL is null. */
static void jstr(const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *end;

	if (!s) {
		fputs("null", stdout);
		return;
	}
	end = p + strlen(s);
	putchar('"');
	while (p < end) {
		const unsigned char *bad = p + utf8_check(p, (size_t)(end - p));

		for (; p < bad; p++) {
			if (*p == '"' || *p == '\\')
				printf("\\%c", *p);
			else if (*p < 0x20)
				printf("\\u%04x", *p);
			else
				putchar(*p);
		}
		if (p < end) {
			fputs("\\ufffd", stdout);
			p++;
		}
	}
	putchar('"');
}

/* A string where "" (a step that said nothing) is null too. */
static void jopt(const char *s)
{
	jstr(s && *s ? s : NULL);
}

static void jerr(int err)
{
	jstr(err ? errno_name(err) : NULL);
}

/* ,"KEY":VALUE with VALUE as jopt writes it. */
static void jkey(const char *key, const char *value)
{
	printf(",\"%s\":", key);
	jopt(value);
}

static const char *jbool(int b)
{
	return b ? "true" : "false";
}

static void json_caller(const struct machine *m)
{
	printf("{\"probe\":1,\"kernel\":");
	jstr(m->kernel);
	printf(",\"uid\":%u,\"gid\":%u,\"groups\":[", (unsigned)m->uid, (unsigned)m->gid);
	for (int i = 0; i < m->ngroups; i++)
		printf("%s%u", i ? "," : "", (unsigned)m->groups[i]);
	putchar(']');
	jkey("cap_eff", m->cap_eff);
	jkey("cap_prm", m->cap_prm);
	jkey("cap_bnd", m->cap_bnd);
	printf(",\"no_new_privs\":%s,\"seccomp\":%d", jbool(m->no_new_privs == 1), m->seccomp);
	printf(",\"landlock\":{\"abi\":%d,\"status\":\"%s\",\"errno\":", m->landlock_abi,
	       landlock_status[m->landlock]);
	jerr(m->landlock_err);
	if (m->landlock_sig)
		printf(",\"signal\":%d", m->landlock_sig);
	else
		printf(",\"signal\":null");
	if (m->landlock_errata >= 0)
		printf(",\"errata\":%ld}", m->landlock_errata);
	else
		printf(",\"errata\":null}");
}

/* ,"KEY":{"RIGHT":"WALL",...} from a check line's rights= words. */
static void json_rights_as(const char *key, const char *rights)
{
	char buf[sizeof ((struct walls *)0)->rights], *word, *save = NULL, *colon;
	int n = 0;

	snprintf(buf, sizeof buf, "%s", rights);
	printf(",\"%s\":{", key);
	for (word = strtok_r(buf, ",", &save); word; word = strtok_r(NULL, ",", &save)) {
		if (!(colon = strchr(word, ':')))
			continue;
		*colon = '\0';
		printf("%s", n++ ? "," : "");
		jstr(word);
		putchar(':');
		jstr(colon + 1);
	}
	putchar('}');
}

static void json_chain(const struct report *r)
{
	const struct walls *w = &r->none;
	int netns = is(w->network, "namespace"), userns = is(w->user, "namespace");

	printf(",\"userns\":{\"ok\":%s,\"errno\":", jbool(userns));
	jopt(userns || netns ? NULL : w->why_net);
	printf("},\"netns\":{\"ok\":%s,\"how\":", jbool(netns));
	jstr(!netns ? NULL : userns ? "userns" : "direct");
	printf(",\"errno\":");
	jopt(netns ? NULL : w->why_net);
	printf("},\"cgroup\":{\"version\":");
	jstr(*w->cgroup ? w->cgroup : "none");
	printf(",\"memory\":\"%s\",\"memory_path\":", limit_how(w, w->memory));
	jstr(*w->memory == '/' ? w->memory : NULL);
	printf(",\"pids\":\"%s\",\"pids_path\":", limit_how(w, w->pids));
	jstr(*w->pids == '/' ? w->pids : NULL);
	printf("},\"walls\":{\"strict\":");
	jopt(r->strict);
	jkey("network", w->network);
	jkey("ipc", w->ipc);
	jkey("pid", w->pid);
	jkey("mount", w->mount);
	jkey("mount_why", w->why_mount);
	printf(",\"landlock_abi\":%d,\"fs_rights\":%llu", w->ran ? w->abi : 0, w->ran ? w->fs : 0);
	jkey("scoped", w->scoped);
	printf(",\"seccomp\":%d,\"no_new_privs\":%d", w->seccomp, w->no_new_privs);
	jkey("caps", w->caps);
	jkey("listen_guard", r->object.guard);
	json_rights_as("rights", w->rights);
	json_rights_as("rights_object_form", r->object.rights);
	putchar('}');
}

static void json_machine(const struct machine *m)
{
	printf(",\"memfd_secret\":{\"ok\":%s,\"errno\":", jbool(m->memfd_secret));
	jerr(m->memfd_secret ? 0 : m->memfd_secret_err);
	printf("},\"kernel_config\":{\"source\":");
	jstr(m->config_source);
	for (int i = 0; i < MACHINE_NCONFIG; i++) {
		printf(",\"%s\":", machine_config_keys[i]);
		jstr(m->config[i]);
	}
	printf("},\"lsm\":");
	jstr(m->lsm);
	printf(",\"tools\":{");
	for (int i = 0; i < MACHINE_NTOOLS; i++) {
		printf("%s\"%s\":", i ? "," : "", machine_tools[i]);
		jstr(m->tools[i]);
	}
	printf("},\"proxy_variables\":[");
	for (size_t i = 0; i < m->nproxies; i++) {
		if (i)
			putchar(',');
		jstr(m->proxies[i]);
	}
	putchar(']');
}

static void print_json(const struct report *r)
{
	const struct walls *w = &r->none, *o = &r->object;

	json_caller(&r->m);
	json_chain(r);
	json_machine(&r->m);
	printf(",\"enforce\":{\"files\":%s,\"network_none\":\"%s\",\"loopback\":%s,"
	       "\"tcp_ports\":%s,\"udp_ports\":%s,\"pathname_sockets\":%s,\"mptcp_closed\":%s,"
	       "\"listen_guard\":%s,\"scopes\":%s,\"memory\":\"%s\",\"pids\":\"%s\"}",
	       jbool(w->ran), is(w->network, "namespace") ? "netns" : "seccomp",
	       jbool(is(w->network, "namespace")), jbool(o->ran && strstr(o->net, "tcp")),
	       jbool(o->ran && o->abi >= 10),
	       jbool(w->ran && (w->fs & LANDLOCK_ACCESS_FS_RESOLVE_UNIX)),
	       jbool(o->ran && o->seccomp == 2), jbool(o->ran && is(o->guard, "on")),
	       jbool(w->ran && strstr(w->scoped, "signal")), limit_how(w, w->memory),
	       limit_how(w, w->pids));
	printf(",\"trusted_keys\":[");
	for (size_t i = 0; i < r->nkeys; i++) {
		printf("%s{\"path\":", i ? "," : "");
		jstr(r->keys[i].path);
		printf(",\"fingerprint\":");
		jstr(r->keys[i].fp);
		printf(",\"error\":");
		jstr(r->keys[i].err);
		putchar('}');
	}
	printf("]}\n");
}

/* --- text --- */

#define ROW(key, ...) (printf("%-26s", key), printf(__VA_ARGS__), putchar('\n'))

/* One row: each right and the wall holding it (rights.h), "none" where
 * nothing does. */
static void print_rights(const char *key, const char *rights)
{
	char buf[sizeof ((struct walls *)0)->rights], *word, *save = NULL;

	snprintf(buf, sizeof buf, "%s", rights);
	printf("%-26s", key);
	for (word = strtok_r(buf, ",", &save); word; word = strtok_r(NULL, ",", &save))
		printf("%s%s", word == buf ? "" : " ", word);
	if (!*rights)
		printf("unknown: the run did not go through");
	putchar('\n');
}

static void print_landlock(const struct machine *m)
{
	static const char *const no[][2] = {
		[LANDLOCK_MISSING] = { "the kernel lacks it (", ")" },
		[LANDLOCK_DISABLED] = { "built in but not enabled at boot (", "; add landlock to lsm=)" },
		[LANDLOCK_BLOCKED] = { "blocked by a seccomp filter (", ")" },
		[LANDLOCK_UNKNOWN] = { "", " under a seccomp filter (kernel lacks it, or the filter hides it)" },
	};
	char sig[32];
	const char *why = sig;

	if (m->landlock_sig)
		snprintf(sig, sizeof sig, "killed by signal %d", m->landlock_sig);
	else
		why = errno_name(m->landlock_err);

	if (m->landlock == LANDLOCK_AVAILABLE)
		ROW("landlock", "ABI %d", m->landlock_abi);
	else
		ROW("landlock", "no: %s%s%s", no[m->landlock][0], why, no[m->landlock][1]);
}

static void print_cap(const char *key, const struct walls *w, const char *where,
                      const char *rlimit)
{
	if (*where == '/')
		ROW(key, "cgroup %s, beneath %s", w->cgroup, where);
	else
		ROW(key, "%s only (%s)", rlimit, *w->why_cgroup ? w->why_cgroup :
		    "no cgroup of yours has the controller");
}

static void print_walls(const struct report *r)
{
	const struct walls *w = &r->none, *o = &r->object;

	if (is(w->network, "namespace"))
		ROW("network namespaces", "yes (%s)", is(w->user, "namespace") ?
		    "inside a user namespace" : "unshare CLONE_NEWNET");
	else
		ROW("network namespaces", "no (%s): under \"none\" loopback is unavailable",
		    *w->why_net ? w->why_net : "unknown");
	ROW("user namespaces", "%s", is(w->user, "namespace") ? "yes (made by the namespace step)" :
	    is(w->network, "namespace") ? "not needed (you may unshare directly)" : "no");
	ROW("pid namespace", "%s", is(w->pid, "namespace") ? "yes" :
	    "no: a subreaper, and a cgroup where one is writable");
	if (is(w->mount, "namespace"))
		ROW("mount namespace", "yes: only the policy's paths exist (view)");
	else
		ROW("mount namespace", "no (%s): Landlock alone", *w->why_mount ? w->why_mount : "unknown");
	ROW("cgroups", "%s", *w->cgroup ? w->cgroup : "none");
	print_cap("memory cap", w, w->memory, "RLIMIT_AS");
	print_cap("pids cap", w, w->pids, "RLIMIT_NPROC");
	if (w->ran)
		ROW("landlock domain", "ABI %d, fs rights %#llx, scoped %s, seccomp %d, caps %s",
		    w->abi, w->fs, w->scoped, w->seccomp, w->caps);
	else
		ROW("landlock domain", "none: %s", w->fatal);
	ROW("listen guard", "%s", o->ran ? o->guard : "unknown: the object form did not run");
	print_rights("rights (network none)", w->rights);
	print_rights("rights (object form)", o->rights);
	ROW("strict run", "%s", *r->strict ? r->strict : "runs");
}

static void print_machine(const struct machine *m)
{
	if (m->memfd_secret)
		ROW("memfd_secret", "yes");
	else
		ROW("memfd_secret", "no (%s)", errno_name(m->memfd_secret_err));
	ROW("kernel config", "%s", m->config_source ? m->config_source :
	    "unknown (no /proc/config.gz, no /boot/config-RELEASE, or no gzip)");
	for (int i = 0; i < MACHINE_NCONFIG; i++)
		ROW(machine_config_keys[i], "%s", m->config[i] ? m->config[i] : "unknown");
	ROW("active LSMs", "%s", m->lsm ? m->lsm : "unknown (/sys/kernel/security/lsm not readable)");
	for (int i = 0; i < MACHINE_NTOOLS; i++)
		ROW(machine_tools[i], "%s", m->tools[i] ? m->tools[i] : "not found");
	printf("%-26s", "proxy variables");
	for (size_t i = 0; i < m->nproxies; i++)
		printf("%s%s", i ? " " : "", m->proxies[i]);
	printf("%s\n", m->nproxies ? "" : "none");
}

static void print_text(const struct report *r)
{
	static const char *const seccomp_mode[] = { "no filter", "strict", "filter" };
	const struct machine *m = &r->m;
	const struct walls *w = &r->none, *o = &r->object;

	ROW("kernel", "%s", m->kernel);
	ROW("uid", "%u", (unsigned)m->uid);
	ROW("gid", "%u", (unsigned)m->gid);
	printf("%-26s", "groups");
	for (int i = 0; i < m->ngroups; i++)
		printf("%s%u", i ? " " : "", (unsigned)m->groups[i]);
	printf("%s\n", m->ngroups ? "" : "none");
	ROW("CapEff", "%s", *m->cap_eff ? m->cap_eff : "unknown");
	ROW("CapPrm", "%s", *m->cap_prm ? m->cap_prm : "unknown");
	ROW("CapBnd", "%s", *m->cap_bnd ? m->cap_bnd : "unknown");
	ROW("NoNewPrivs", "%d", m->no_new_privs);
	ROW("Seccomp", "%d (%s)", m->seccomp,
	    m->seccomp >= 0 && m->seccomp <= 2 ? seccomp_mode[m->seccomp] : "unknown");
	print_landlock(m);
	print_walls(r);
	print_machine(m);
	/* The front end's reason names the file already. */
	for (size_t i = 0; i < r->nkeys; i++)
		if (r->keys[i].fp)
			ROW("trusted key", "%s %s", r->keys[i].path, r->keys[i].fp);
		else
			ROW("trusted key", "%s", r->keys[i].err ? r->keys[i].err : r->keys[i].path);

	if (w->ran)
		printf("verdict: files: Landlock ABI %d; network none: %s; TCP ports: %s; "
		       "UDP ports: %s; MPTCP and other sockets closed: %s; listen guard: %s; "
		       "signals held: %s; pid namespace: %s; "
		       "mount namespace: %s; memory: %s; processes: %s%s%s\n",
		       w->abi, is(w->network, "namespace") ? "network namespace" :
		       "seccomp socket filter, loopback unavailable",
		       strstr(o->net, "tcp") ? "yes" : "no (ABI < 4)",
		       o->abi >= 10 ? "yes" : "no (ABI < 10)",
		       o->seccomp == 2 ? "yes" : "no (no seccomp filter)",
		       is(o->guard, "on") ? "yes" : "no", strstr(w->rights, "SCOPE_SIGNAL:none") ?
		       "no" : "yes", is(w->pid, "namespace") ? "yes" : "no",
		       is(w->mount, "namespace") ? "yes" : "no", limit_how(w, w->memory),
		       limit_how(w, w->pids), *r->strict ? "; without --best-effort run refuses: " : "",
		       r->strict);
	else
		printf("verdict: files cannot be confined here: %s\n", w->fatal);
}

/* probe's own options; the front end turns each --trust-key FILE into
 * -K FILE (a public key, as the signer's verify -K) and --fingerprint
 * FINGERPRINT or --key-error WHY (it alone reads keys). */
static int cmd_probe(int argc, char **argv)
{
	struct report r;
	int json = 0;

	memset(&r, 0, sizeof r);
	if (!(r.keys = calloc((size_t)argc, sizeof *r.keys)))
		diex(EXIT_REFUSED, "out of memory");
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--json"))
			json = 1;
		else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			printf("usage: %s\n", PROBE_USAGE);
			return 0;
		} else if (!strcmp(a, "-K") && i + 1 < argc)
			r.keys[r.nkeys++].path = argv[++i];
		else if ((!strcmp(a, "--fingerprint") || !strcmp(a, "--key-error")) && i + 1 < argc &&
		         r.nkeys)
			*(a[2] == 'f' ? &r.keys[r.nkeys - 1].fp : &r.keys[r.nkeys - 1].err) = argv[++i];
		else
			usage_fail(PROBE_USAGE, "unknown option %s", qn(a));
	}
	machine_probe(&r.m);
	check_both(NONE_POLICY, &r.none, r.strict, sizeof r.strict);
	check_both(OBJECT_POLICY, &r.object, NULL, 0);
	if (json)
		print_json(&r);
	else
		print_text(&r);
	if (fflush(stdout) || ferror(stdout))
		die(EXIT_REFUSED, "unable to write the report");
	machine_free(&r.m);
	free(r.keys);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long fd;
	int i = 1;

	if (argc > 2 && !strcmp(argv[1], "-F")) {
		if (!parse_ulong(argv[2], 3, 1024, &fd))
			usage_fail(USAGE, "unable to parse -F %s: not a descriptor above 2", qn(argv[2]));
		if (fcntl((int)fd, F_SETFD, FD_CLOEXEC) < 0)
			die(EXIT_REFUSED, "unable to use descriptor %lu", fd);
		frontend_set((int)fd);
		i = 3;
	}
	if (i < argc && (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))) {
		printf("usage: %s\n", USAGE);
		return 0;
	}
	/* Keep 0-2 taken, so no descriptor of ours lands there and leaks in. */
	for (int f = 0; f < 3; f++)
		if (fcntl(f, F_GETFD) < 0 && open("/dev/null", O_RDWR) != f)
			die(EXIT_REFUSED, "unable to open /dev/null");
	if (i < argc && !strcmp(argv[i], "hello"))
		return cmd_hello(argc - i, argv + i);
	if (i < argc && !strcmp(argv[i], "probe"))
		return cmd_probe(argc - i, argv + i);
	if (i < argc)
		usage_fail(USAGE, "unknown command %s", qn(argv[i]));
	usage_fail(USAGE, "no command given");
}
