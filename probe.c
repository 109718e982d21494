/* sharness-exec probe [--json]: report what this machine lets sharness-exec
 * enforce. Reads, writes nothing; namespaces and syscalls are tried in
 * throwaway children (machine.c). Exit 0, or 125 on a usage error.
 *
 * --json prints ONE object. Its fields are stable: new ones may be added,
 * none is renamed or changes type. An errno is its name ("EPERM"), or null.
 *
 *   probe             1, the format of this object
 *   kernel            string, uname -r
 *   uid, gid          integers, real ids
 *   groups            array of integers, supplementary groups
 *   cap_eff, cap_prm, cap_bnd
 *                     strings, 16 hex digits as in /proc/self/status
 *   no_new_privs      boolean
 *   seccomp           integer: 0 none, 1 strict, 2 filter (the caller's own)
 *   landlock          {"abi": integer (0: unusable),
 *                      "status": "available" | "missing" (kernel lacks it,
 *                        ENOSYS) | "disabled" (not enabled at boot,
 *                        EOPNOTSUPP) | "blocked" (a seccomp filter answered)
 *                        | "unknown" (ENOSYS under a filter, no config),
 *                      "errno": errno, "signal": integer or null,
 *                      "errata": integer, the bitmask of Landlock fixes
 *                        the kernel reports (ABI 7 and later), or null}
 *   userns            {"ok": boolean, "errno": errno}
 *   netns             {"ok": boolean, "how": "direct" | "userns" | null,
 *                      "errno": errno}   (unshare, ids mapped, lo up)
 *   cgroup            {"version": "v1" | "v2" | "hybrid" | "none",
 *                      "memory": "cgroup2" | "cgroup1" | "rlimit",
 *                      "memory_path": string or null,
 *                      "pids": "cgroup2" | "cgroup1" | "rlimit",
 *                      "pids_path": string or null}
 *                     (a cgroup counts when the caller's own cgroup in that
 *                      hierarchy is writable, and on v2 lists the controller)
 *   memfd_secret      {"ok": boolean, "errno": errno}
 *   kernel_config     {"source": "/proc/config.gz" | "/boot/config-..." |
 *                      null, and for each of CONFIG_SECURITY_LANDLOCK,
 *                      CONFIG_USER_NS, CONFIG_NET_NS, CONFIG_CGROUPS,
 *                      CONFIG_MEMCG, CONFIG_CGROUP_PIDS,
 *                      CONFIG_SECCOMP_FILTER, CONFIG_LSM: "y" | "m" | "n"
 *                      | the string value | null (no config readable)}
 *   lsm               string, the active LSMs from /sys/kernel/security/lsm,
 *                     or null when securityfs is not readable
 *   tools             {"bwrap", "unshare", "systemd-run": path or null}
 *   proxy_variables   array of strings: the NAMES of the *_proxy variables
 *                     set, in any case, sorted; never their values
 *   enforce           what `run` can enforce here:
 *                     {"files": boolean (Landlock usable),
 *                      "network_none": "netns" | "seccomp",
 *                      "loopback": boolean (127.0.0.1 and ::1 work inside
 *                        under "none": only with a network namespace),
 *                      "tcp_ports": boolean (Landlock ABI >= 4),
 *                      "udp_ports": boolean (Landlock ABI >= 10),
 *                      "pathname_sockets": boolean (Landlock ABI >= 9),
 *                      "mptcp_closed": boolean (a seccomp filter can
 *                        refuse MPTCP, SCTP and other sockets Landlock
 *                        does not see),
 *                      "listen_guard": boolean (seccomp user
 *                        notification, pidfd_getfd, IP_LOCAL_PORT_RANGE),
 *                      "scopes": boolean (signals and abstract UNIX
 *                        sockets, Landlock ABI >= 6),
 *                      "memory": "cgroup2" | "cgroup1" | "rlimit",
 *                      "pids": "cgroup2" | "cgroup1" | "rlimit"}
 *   trusted_keys      array, one object for each --trust-key FILE:
 *                     {"path": string, "fingerprint": "sha256:..." or
 *                      null, "error": why run refuses it, or null}
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "frontend.h"
#include "sign.h"
#include "machine.h"

#define PROBE_USAGE "sharness-exec probe [--json] [--trust-key FILE]..."

static const char *const landlock_status[] = {
	[LANDLOCK_AVAILABLE] = "available", [LANDLOCK_MISSING] = "missing",
	[LANDLOCK_DISABLED] = "disabled", [LANDLOCK_BLOCKED] = "blocked",
	[LANDLOCK_UNKNOWN] = "unknown",
};
static const char *const cap_json[] = {
	[CAP_BY_RLIMIT] = "rlimit", [CAP_BY_CGROUP1] = "cgroup1",
	[CAP_BY_CGROUP2] = "cgroup2",
};

static const char *cgroup_version(const struct machine *m)
{
	if (m->cgroup1 && m->cgroup2)
		return "hybrid";
	return m->cgroup1 ? "v1" : m->cgroup2 ? "v2" : "none";
}

/* --- JSON --- */

/* Length of the valid UTF-8 sequence at S, or 0. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n;
	unsigned long c;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2;
	c = s[0] & (0x7f >> n);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return n;
}

/* A JSON string; bytes that are not UTF-8 become U+FFFD, so the output
 * always parses. NULL is null. */
static void jstr(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!s) {
		fputs("null", stdout);
		return;
	}
	putchar('"');
	while (*p) {
		size_t n;
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p++);
		else if (*p == '\n')
			fputs("\\n", stdout), p++;
		else if (*p == '\t')
			fputs("\\t", stdout), p++;
		else if (*p < 0x20)
			printf("\\u%04x", *p++);
		else if (*p < 0x80)
			putchar(*p++);
		else if ((n = utf8_len(p))) {
			fwrite(p, 1, n, stdout);
			p += n;
		} else {
			fputs("\\ufffd", stdout);
			p++;
		}
	}
	putchar('"');
}

static void jerr(int err)
{
	jstr(err ? errno_name(err) : NULL);
}

static const char *jbool(int b)
{
	return b ? "true" : "false";
}

static void print_json(const struct machine *m, char *const *keys, size_t nkeys)
{
	printf("{\"probe\":1,\"kernel\":");
	jstr(m->kernel);
	printf(",\"uid\":%u,\"gid\":%u,\"groups\":[", (unsigned)m->uid, (unsigned)m->gid);
	for (int i = 0; i < m->ngroups; i++)
		printf("%s%u", i ? "," : "", (unsigned)m->groups[i]);
	printf("],\"cap_eff\":");
	jstr(m->cap_eff);
	printf(",\"cap_prm\":");
	jstr(m->cap_prm);
	printf(",\"cap_bnd\":");
	jstr(m->cap_bnd);
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

	printf(",\"userns\":{\"ok\":%s,\"errno\":", jbool(m->userns));
	jerr(m->userns ? 0 : m->userns_err);
	printf("},\"netns\":{\"ok\":%s,\"how\":", jbool(m->netns != NETNS_NO));
	jstr(m->netns == NETNS_DIRECT ? "direct" : m->netns == NETNS_USERNS ? "userns" : NULL);
	printf(",\"errno\":");
	jerr(m->netns == NETNS_NO ? m->netns_err : 0);

	printf("},\"cgroup\":{\"version\":\"%s\",\"memory\":\"%s\",\"memory_path\":",
	       cgroup_version(m), cap_json[m->memory]);
	jstr(m->memory_path);
	printf(",\"pids\":\"%s\",\"pids_path\":", cap_json[m->pids]);
	jstr(m->pids_path);

	printf("},\"memfd_secret\":{\"ok\":%s,\"errno\":", jbool(m->memfd_secret));
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
	printf("],\"enforce\":{\"files\":%s,\"network_none\":\"%s\",\"loopback\":%s,"
	       "\"tcp_ports\":%s,\"udp_ports\":%s,\"pathname_sockets\":%s,\"mptcp_closed\":%s,"
	       "\"listen_guard\":%s,"
	       "\"scopes\":%s,\"memory\":\"%s\",\"pids\":\"%s\"}",
	       jbool(m->landlock_abi > 0), m->netns != NETNS_NO ? "netns" : "seccomp",
	       jbool(m->netns != NETNS_NO),
	       jbool(m->landlock_abi >= 4), jbool(m->landlock_abi >= 10),
	       jbool(m->landlock_abi >= 9), jbool(m->seccomp_filter),
	       jbool(m->listen_guard), jbool(m->landlock_abi >= 6),
	       cap_json[m->memory], cap_json[m->pids]);
	printf(",\"trusted_keys\":");
	sign_probe_json(keys, nkeys, jstr);
	printf("}\n");
}

/* --- text --- */

#define ROW(key, ...) (printf("%-26s", key), printf(__VA_ARGS__), putchar('\n'))

static void print_landlock(const struct machine *m)
{
	char sig[32];
	const char *why = sig;

	if (m->landlock_sig)
		snprintf(sig, sizeof sig, "killed by signal %d", m->landlock_sig);
	else
		why = errno_name(m->landlock_err);

	switch (m->landlock) {
	case LANDLOCK_AVAILABLE:
		ROW("landlock", "ABI %d", m->landlock_abi);
		break;
	case LANDLOCK_MISSING:
		ROW("landlock", "no: the kernel lacks it (%s)", why);
		break;
	case LANDLOCK_DISABLED:
		ROW("landlock", "no: built in but not enabled at boot (%s; add landlock to lsm=)", why);
		break;
	case LANDLOCK_BLOCKED:
		ROW("landlock", "no: blocked by a seccomp filter (%s)", why);
		break;
	case LANDLOCK_UNKNOWN:
		ROW("landlock", "no: %s under a seccomp filter (kernel lacks it, or the filter hides it)", why);
		break;
	}
}

static void print_cap(const char *key, enum cap_how how, const char *path, const char *rlimit)
{
	switch (how) {
	case CAP_BY_CGROUP2:
		ROW(key, "cgroup v2 %s", path);
		break;
	case CAP_BY_CGROUP1:
		ROW(key, "cgroup v1 %s", path);
		break;
	case CAP_BY_RLIMIT:
		ROW(key, "%s only (no writable cgroup of yours has the controller)", rlimit);
		break;
	}
}

static const char *cap_text(enum cap_how how, const char *rlimit)
{
	return how == CAP_BY_CGROUP2 ? "cgroup v2" : how == CAP_BY_CGROUP1 ? "cgroup v1" : rlimit;
}

static void print_text(const struct machine *m, char *const *keys, size_t nkeys)
{
	static const char *const seccomp_mode[] = { "no filter", "strict", "filter" };

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
	if (m->userns)
		ROW("user namespaces", "yes");
	else
		ROW("user namespaces", "no (%s)", errno_name(m->userns_err));
	if (m->netns == NETNS_DIRECT)
		ROW("network namespaces", "yes (unshare CLONE_NEWNET)");
	else if (m->netns == NETNS_USERNS)
		ROW("network namespaces", "yes (inside a user namespace)");
	else
		ROW("network namespaces", "no (%s): under \"none\" loopback is unavailable",
		    errno_name(m->netns_err));
	ROW("cgroups", "%s", cgroup_version(m));
	print_cap("memory cap", m->memory, m->memory_path, "RLIMIT_AS");
	print_cap("pids cap", m->pids, m->pids_path, "RLIMIT_NPROC");
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
	sign_probe_text(keys, nkeys);

	if (m->landlock_abi > 0)
		printf("verdict: files: Landlock ABI %d; network none: %s; TCP ports: %s; "
		       "UDP ports: %s; MPTCP and other sockets closed: %s; listen guard: %s; "
		       "signal and abstract-socket scoping: %s; memory: %s; processes: %s\n",
		       m->landlock_abi,
		       m->netns != NETNS_NO ? "network namespace" :
		       "seccomp socket filter, loopback unavailable",
		       m->landlock_abi >= 4 ? "yes" : "no (ABI < 4)",
		       m->landlock_abi >= 10 ? "yes" : "no (ABI < 10)",
		       m->seccomp_filter ? "yes" : "no (no seccomp filter)",
		       m->listen_guard ? "yes" : m->listen_guard_why,
		       m->landlock_abi >= 6 ? "yes" : "no (ABI < 6)",
		       cap_text(m->memory, "RLIMIT_AS"), cap_text(m->pids, "RLIMIT_NPROC"));
	else
		printf("verdict: files cannot be confined here: Landlock is unavailable, "
		       "so `run` refuses (126) unless --best-effort\n");
}

int cmd_probe(int argc, char **argv)
{
	struct machine m;
	char **keys;
	size_t nkeys = 0;
	int json = 0;

	if (!(keys = calloc((size_t)argc, sizeof *keys)))
		diex(EXIT_REFUSED, "out of memory");
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (!strcmp(argv[i], "--trust-key") && i + 1 < argc)
			keys[nkeys++] = argv[++i];
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: %s\n", PROBE_USAGE);
			free(keys);
			return 0;
		} else
			usage_die(PROBE_USAGE);
	}
	fflush(stdout);
	machine_probe(&m);
	if (json)
		print_json(&m, keys, nkeys);
	else
		print_text(&m, keys, nkeys);
	if (fflush(stdout) || ferror(stdout))
		die(EXIT_REFUSED, "unable to write the report");
	machine_free(&m);
	free(keys);
	return 0;
}
