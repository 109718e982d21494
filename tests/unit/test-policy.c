/* Unit tests for policy.c: every rule of the pbp 1 format with its exact
 * message, the path normaliser, variable names, "beneath", and the data a
 * valid policy is turned into. JSON below is written with ' for " (turned
 * back before parsing) so that the cases stay readable; expected lines
 * too. A case lists every line the checker must report, in order. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "text.h"
#include "tap.h"

const char *progname = "test-policy";

#define BASE "'pbp':1,'id':'t','network':'none','process':{'no_new_privs':true}"
#define NO_NET "'pbp':1,'id':'t','process':{'no_new_privs':true}"
#define NO_PROC "'pbp':1,'id':'t','network':'none'"
#define WRITE_TMP "'files':{'write':['/tmp']}"

static const struct { const char *json, *want; } cases[] = {
	/* valid */
	{ "{" BASE "}", "" },
	{ "{'pbp':1,'id':'make-check','files':{'read':['/usr','/etc'],"
	  "'write':['/tmp','/home/ci/build'],'exec':['/usr/bin','/home/ci/build']},"
	  "'network':'none','process':{'no_new_privs':true,'max_memory_mb':2048,"
	  "'max_pids':256}}", "" },
	{ "{'process':{'no_new_privs':true},'network':{},'id':'x','pbp':1}", "" },
	{ "{" BASE ",'files':{'read':[],'write':[],'exec':[]},'env':{}}", "" },
	{ "{" BASE ",'files':{'read':['/','/...','/.a','/a..','/a/b.c/']}}", "" },
	{ "{" BASE ",'env':{'inherit':['HOME','USER'],'set':{'HOME':'/x'}}}", "" },
	{ "{" BASE ",'env':{'set':{'NL':'a\\nb','E':''}}}", "" },
	{ "{" BASE ",'files':{'write':['/']},'env':{'private':'/'}}", "" },
	{ "{" BASE ",'files':{'write':['/tmp/']},'env':{'private':'/tmp'}}", "" },
	/* top level */
	{ "{}", "pbp: missing required key\nid: missing required key\n"
	        "network: missing required key\nprocess: missing required key\n" },
	{ "{" BASE ",'wrong':1}", "wrong: unknown key\n" },
	{ "{" BASE ",'PBP':1}", "PBP: unknown key\n" },
	{ "{" BASE ",'a.b':1}", "'a.b': unknown key\n" },
	{ "{" BASE ",'':1}", "'': unknown key\n" },
	{ "{" BASE ",'a\\nb\\u0000':1}", "'a\\nb\\000': unknown key\n" },
	{ "{" BASE ",'pbp\\u0000':1}", "'pbp\\000': unknown key\n" },
	/* pbp */
	{ "{'pbp':2,'id':'t','network':'none','process':{'no_new_privs':true}}",
	  "pbp: must be 1, not 2\n" },
	{ "{'pbp':-1,'id':'t','network':'none','process':{'no_new_privs':true}}",
	  "pbp: must be 1, not -1\n" },
	{ "{'pbp':'1','id':'t','network':'none','process':{'no_new_privs':true}}",
	  "pbp: must be an integer\n" },
	{ "{'pbp':true,'id':'t','network':'none','process':{'no_new_privs':true}}",
	  "pbp: must be an integer\n" },
	/* id */
	{ "{'pbp':1,'network':'none','process':{'no_new_privs':true}}",
	  "id: missing required key\n" },
	{ "{'pbp':1,'id':5,'network':'none','process':{'no_new_privs':true}}",
	  "id: must be a string\n" },
	{ "{'pbp':1,'id':'','network':'none','process':{'no_new_privs':true}}",
	  "id: must be 1-128 characters, not 0\n" },
	{ "{'pbp':1,'id':'a\\nb','network':'none','process':{'no_new_privs':true}}",
	  "id: contains a control character: 'a\\nb'\n" },
	{ "{'pbp':1,'id':'a\\u0000','network':'none','process':{'no_new_privs':true}}",
	  "id: contains a control character: 'a\\000'\n" },
	{ "{'pbp':1,'id':'a\\u001b[2J','network':'none','process':{'no_new_privs':true}}",
	  "id: contains a control character: 'a\\033[2J'\n" },
	{ "{'pbp':1,'id':'a\\u007f','network':'none','process':{'no_new_privs':true}}",
	  "id: contains a control character: 'a\\177'\n" },
	{ "{'pbp':1,'id':'a\\u0085b','network':'none','process':{'no_new_privs':true}}",
	  "id: contains a control character: 'a\\302\\205b'\n" },
	{ "{'pbp':1,'id':'a\\u009f','network':'none','process':{'no_new_privs':true}}",
	  "id: contains a control character: 'a\\302\\237'\n" },
	{ "{'pbp':1,'id':'\\u00a0\\u00e9\\u2028','network':'none','process':{'no_new_privs':true}}",
	  "" },
	{ "{'pbp':1,'id':'say \\u0022hi\\u0022\\\\','network':'none','process':{'no_new_privs':true}}",
	  "" },
	/* files */
	{ "{" BASE ",'files':[]}", "files: must be an object\n" },
	{ "{" BASE ",'files':{'protected':['/w/.git','/w'],'write':['/w/']}}", "" },
	{ "{" BASE ",'files':{'protected':['/'],'write':['/']}}", "" },
	{ "{" BASE ",'files':{'protected':['/wx/.git','/etc'],'write':['/w'],'read':['/etc']}}",
	  "files.protected[0]: not beneath any files.write path: '/wx/.git'\n"
	  "files.protected[1]: not beneath any files.write path: '/etc'\n" },
	{ "{" BASE ",'files':{'write':['/sys/kernel','/proc/sys','/proc/sysrq-trigger/x','/proc/irq/1','/proc/bus','/sysx','/proc','/']}}",
	  "files.write[0]: beneath /sys, which is always read-only: '/sys/kernel'\n"
	  "files.write[1]: beneath /proc/sys, which is always read-only: '/proc/sys'\n"
	  "files.write[2]: beneath /proc/sysrq-trigger, which is always read-only: '/proc/sysrq-trigger/x'\n"
	  "files.write[3]: beneath /proc/irq, which is always read-only: '/proc/irq/1'\n"
	  "files.write[4]: beneath /proc/bus, which is always read-only: '/proc/bus'\n" },
	{ "{" BASE ",'files':{'wrte':[]}}", "files.wrte: unknown key; did you mean files.write?\n" },
	{ "{" BASE ",'files':{'read':'/usr'}}", "files.read: must be an array\n" },
	{ "{" BASE ",'files':{'exec':[1,null,['/a']]}}",
	  "files.exec[0]: must be a string\nfiles.exec[1]: must be a string\n"
	  "files.exec[2]: must be a string\n" },
	{ "{" BASE ",'files':{'write':['/tmp','tmp']}}",
	  "files.write[1]: not an absolute path: 'tmp'\n" },
	{ "{" BASE ",'files':{'write':['']}}", "files.write[0]: not an absolute path: ''\n" },
	{ "{" BASE ",'files':{'write':['./a']}}",
	  "files.write[0]: not an absolute path: './a'\n" },
	{ "{" BASE ",'files':{'read':['/a/./b']}}",
	  "files.read[0]: has a '.' component: '/a/./b'\n" },
	{ "{" BASE ",'files':{'read':['/a/.']}}",
	  "files.read[0]: has a '.' component: '/a/.'\n" },
	{ "{" BASE ",'files':{'read':['/usr/../etc']}}",
	  "files.read[0]: has a '..' component: '/usr/../etc'\n" },
	{ "{" BASE ",'files':{'read':['/..//']}}",
	  "files.read[0]: has a '..' component: '/..//'\n" },
	{ "{" BASE ",'files':{'read':['/a\\u0000b']}}",
	  "files.read[0]: contains a NUL byte: '/a\\000b'\n" },
	{ "{" BASE ",'files':{'read':['/a\\tb\\u001b']}}", "" },
	{ "{" BASE ",'files':{'read':['/usr','/etc','/usr/']}}",
	  "files.read[2]: duplicate of files.read[0]: '/usr'\n" },
	{ "{" BASE ",'files':{'exec':['/a','/b','//a','/b','/a//']}}",
	  "files.exec[2]: duplicate of files.exec[0]: '/a'\n"
	  "files.exec[3]: duplicate of files.exec[1]: '/b'\n"
	  "files.exec[4]: duplicate of files.exec[0]: '/a'\n" },
	{ "{" BASE ",'files':{'read':['/a','x','/a']}}",
	  "files.read[1]: not an absolute path: 'x'\n"
	  "files.read[2]: duplicate of files.read[0]: '/a'\n" },
	{ "{" BASE ",'files':{'read':['/a'],'write':['/a'],'exec':['/a']}}", "" },
	/* network */
	{ "{" NO_NET "}", "network: missing required key\n" },
	{ "{" NO_NET ",'network':'all'}", "network: must be 'none' or an object: 'all'\n" },
	{ "{" NO_NET ",'network':'None'}", "network: must be 'none' or an object: 'None'\n" },
	{ "{" NO_NET ",'network':null}", "network: must be 'none' or an object\n" },
	{ "{" NO_NET ",'network':['none']}", "network: must be 'none' or an object\n" },
	{ "{" NO_NET ",'network':{'udp_ports':[53]}}", "network.udp_ports: unknown key\n" },
	{ "{" NO_NET ",'network':{'connect_tcp_ports':443}}",
	  "network.connect_tcp_ports: must be an array\n" },
	{ "{" NO_NET ",'network':{'connect_tcp_ports':[0,1,65535,65536,-80,'80']}}",
	  "network.connect_tcp_ports[0]: must be 1-65535, not 0\n"
	  "network.connect_tcp_ports[3]: must be 1-65535, not 65536\n"
	  "network.connect_tcp_ports[4]: must be 1-65535, not -80\n"
	  "network.connect_tcp_ports[5]: must be an integer\n" },
	{ "{" NO_NET ",'network':{'bind_tcp_ports':[8080,443,8080,8080]}}",
	  "network.bind_tcp_ports[2]: duplicate of network.bind_tcp_ports[0]: 8080\n"
	  "network.bind_tcp_ports[3]: duplicate of network.bind_tcp_ports[0]: 8080\n" },
	{ "{" NO_NET ",'network':{'bind_tcp_ports':[443],'connect_tcp_ports':[443]}}", "" },
	/* process */
	{ "{" NO_PROC "}", "process: missing required key\n" },
	{ "{" NO_PROC ",'process':true}", "process: must be an object\n" },
	{ "{" NO_PROC ",'process':{}}", "process.no_new_privs: missing required key\n" },
	{ "{" NO_PROC ",'process':{'no_new_privs':false}}", "process.no_new_privs: must be true\n" },
	{ "{" NO_PROC ",'process':{'no_new_privs':1}}", "process.no_new_privs: must be true\n" },
	{ "{" NO_PROC ",'process':{'no_new_privs':'true'}}", "process.no_new_privs: must be true\n" },
	{ "{" NO_PROC ",'process':{'no_new_privs':true,'max_memory_mb':0}}",
	  "process.max_memory_mb: must be 1-1048576, not 0\n" },
	{ "{" NO_PROC ",'process':{'no_new_privs':true,'max_memory_mb':1048577}}",
	  "process.max_memory_mb: must be 1-1048576, not 1048577\n" },
	{ "{" NO_PROC ",'process':{'no_new_privs':true,'max_memory_mb':'2G'}}",
	  "process.max_memory_mb: must be an integer\n" },
	{ "{" NO_PROC ",'process':{'no_new_privs':true,'max_memory_mb':1,'max_pids':1}}", "" },
	{ "{" NO_PROC ",'process':{'no_new_privs':true,'max_memory_mb':1048576,"
	  "'max_pids':4194304}}", "" },
	{ "{" NO_PROC ",'process':{'no_new_privs':true,'max_pids':4194305}}",
	  "process.max_pids: must be 1-4194304, not 4194305\n" },
	{ "{" NO_PROC ",'process':{'no_new_privs':true,'max_pids':-9007199254740991}}",
	  "process.max_pids: must be 1-4194304, not -9007199254740991\n" },
	{ "{" NO_PROC ",'process':{'no_new_privs':true,'max_pids':[1]}}",
	  "process.max_pids: must be an integer\n" },
	{ "{" NO_PROC ",'process':{'max_cpu':1,'no_new_privs':true}}",
	  "process.max_cpu: unknown key\n" },
	/* env */
	{ "{" BASE ",'env':[]}", "env: must be an object\n" },
	{ "{" BASE ",'env':{'pass':[]}}", "env.pass: unknown key\n" },
	{ "{" BASE ",'env':{'inherit':'CC'}}", "env.inherit: must be an array\n" },
	{ "{" BASE ",'env':{'inherit':[1]}}", "env.inherit[0]: must be a string\n" },
	{ "{" BASE ",'env':{'inherit':['1A','A-B','','A=B','A\\u0000','\\u00c4','a_9']}}",
	  "env.inherit[0]: not a variable name: '1A'\n"
	  "env.inherit[1]: not a variable name: 'A-B'\n"
	  "env.inherit[2]: not a variable name: ''\n"
	  "env.inherit[3]: not a variable name: 'A=B'\n"
	  "env.inherit[4]: not a variable name: 'A\\000'\n"
	  "env.inherit[5]: not a variable name: '\xc3\x84'\n" },
	{ "{" BASE ",'env':{'inherit':['SHARNESS_AI_POLICY_HASH','SHARNESS_AI_POLICY_ID']}}",
	  "env.inherit[0]: set by sharness-exec itself: 'SHARNESS_AI_POLICY_HASH'\n"
	  "env.inherit[1]: set by sharness-exec itself: 'SHARNESS_AI_POLICY_ID'\n" },
	{ "{" BASE ",'env':{'inherit':['CC','MAKEFLAGS','CC']}}",
	  "env.inherit[2]: duplicate of env.inherit[0]: 'CC'\n" },
	{ "{" BASE "," WRITE_TMP ",'env':{'inherit':['HOME','TMPDIR','XDG_CONFIG_HOME',"
	  "'XDG_CACHE_HOME','XDG_DATA_HOME','XDG_STATE_HOME','USER'],'private':'/tmp/p'}}",
	  "env.inherit[0]: conflicts with env.private: 'HOME'\n"
	  "env.inherit[1]: conflicts with env.private: 'TMPDIR'\n"
	  "env.inherit[2]: conflicts with env.private: 'XDG_CONFIG_HOME'\n"
	  "env.inherit[3]: conflicts with env.private: 'XDG_CACHE_HOME'\n"
	  "env.inherit[4]: conflicts with env.private: 'XDG_DATA_HOME'\n"
	  "env.inherit[5]: conflicts with env.private: 'XDG_STATE_HOME'\n" },
	{ "{" BASE ",'env':{'set':['CI']}}", "env.set: must be an object\n" },
	{ "{" BASE ",'env':{'set':{'1A':'x','OK':'y','a b':'z'}}}",
	  "env.set: not a variable name: '1A'\nenv.set: not a variable name: 'a b'\n" },
	{ "{" BASE ",'env':{'set':{'CI':true,'N':null}}}",
	  "env.set.CI: must be a string\nenv.set.N: must be a string\n" },
	{ "{" BASE ",'env':{'set':{'CI':'a\\u0000b'}}}", "env.set.CI: contains a NUL byte\n" },
	{ "{" BASE ",'env':{'set':{'SHARNESS_AI_POLICY_ID':'x'}}}",
	  "env.set.SHARNESS_AI_POLICY_ID: set by sharness-exec itself\n" },
	{ "{" BASE "," WRITE_TMP ",'env':{'set':{'TMPDIR':'/x','HOME':'/h','USER':'u'},"
	  "'private':'/tmp/p'}}",
	  "env.set.TMPDIR: conflicts with env.private\nenv.set.HOME: conflicts with env.private\n" },
	{ "{" BASE ",'env':{'private':5}}", "env.private: must be a string\n" },
	{ "{" BASE "," WRITE_TMP ",'env':{'private':'tmp/p'}}",
	  "env.private: not an absolute path: 'tmp/p'\n" },
	{ "{" BASE "," WRITE_TMP ",'env':{'private':'/tmp/../etc'}}",
	  "env.private: has a '..' component: '/tmp/../etc'\n" },
	{ "{" BASE "," WRITE_TMP ",'env':{'private':'/tmpx/p'}}",
	  "env.private: not beneath any files.write path: '/tmpx/p'\n" },
	{ "{" BASE ",'files':{'read':['/tmp']},'env':{'private':'/tmp/p'}}",
	  "env.private: not beneath any files.write path: '/tmp/p'\n" },
	{ "{" BASE ",'env':{'private':'/tmp/p'},'files':{'write':['/var','/tmp/p/']}}", "" },
	/* many problems at once, each reported, in file order, then the rest */
	{ "{'pbp':0,'id':'','files':{'read':['a','/b/..'],'wirte':[]},"
	  "'network':{'connect_tcp_ports':[0]},'process':{'max_pids':0},"
	  "'env':{'inherit':['1'],'private':'/p'},'extra':{}}",
	  "pbp: must be 1, not 0\n"
	  "id: must be 1-128 characters, not 0\n"
	  "files.read[0]: not an absolute path: 'a'\n"
	  "files.read[1]: has a '..' component: '/b/..'\n"
	  "files.wirte: unknown key; did you mean files.write?\n"
	  "network.connect_tcp_ports[0]: must be 1-65535, not 0\n"
	  "process.max_pids: must be 1-4194304, not 0\n"
	  "process.no_new_privs: missing required key\n"
	  "env.inherit[0]: not a variable name: '1'\n"
	  "extra: unknown key\n"
	  "env.private: not beneath any files.write path: '/p'\n" },
};

static char got[1 << 16];

static void collect(void *ctx, const char *line)
{
	size_t n = strlen(got);

	(void)ctx;
	snprintf(got + n, sizeof got - n, "%s\n", line);
}

static char *unquote(const char *s)
{
	char *d = strdup(s);

	for (char *p = d; *p; p++)
		if (*p == '\'')
			*p = '"';
	return d;
}

/* Parse JSON (with ' for "), load it, and return the number of problems
 * with their lines in GOT. */
static size_t load(struct policy *p, const char *json)
{
	char err[256], *text = unquote(json);
	struct json_doc doc;
	size_t n;

	got[0] = '\0';
	if (!json_parse(&doc, text, strlen(text), err, sizeof err)) {
		snprintf(got, sizeof got, "json: %s\n", err);
		free(text);
		return (size_t)-1;
	}
	n = policy_check(p, &doc, collect, NULL);
	json_free(&doc);
	free(text);
	return n;
}

static void test_cases(void)
{
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *want = unquote(cases[i].want);
		size_t lines = 0;
		struct policy p;
		size_t n;

		for (const char *s = want; *s; s++)
			lines += *s == '\n';
		n = load(&p, cases[i].json);
		if (!tap_ok(n == lines && !strcmp(got, want), "case %zu: %s", i, cases[i].json))
			tap_diag("want %zu:\n%s# got %zu:\n%s", lines, want, n, got);
		policy_free(&p);
		free(want);
	}
}

static int list_is(const struct strlist *l, const char *const *want, size_t n)
{
	if (l->n != n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (strcmp(l->v[i], want[i]))
			return 0;
	return 1;
}

static void test_fill(void)
{
	static const char *const read[] = { "/usr", "/", "/usr/lib", "/etc" };
	static const char *const write[] = { "/tmp", "/home/ci/build" };
	static const char *const inherit[] = { "MAKEFLAGS", "CC" };
	static const char *const set_names[] = { "CI", "LANG" };
	static const char *const set_values[] = { "true", "C.UTF-8" };
	struct policy p;

	tap_ok(load(&p, "{'pbp':1,'id':'\\u00e9t\\u00e9','files':{'read':['/usr/','//',"
	       "'/usr//lib/','/etc'],'write':['/tmp','/home/ci//build/']},"
	       "'network':{'connect_tcp_ports':[443,80],'bind_tcp_ports':[8080]},"
	       "'process':{'no_new_privs':true,'max_memory_mb':2048,'max_pids':256},"
	       "'env':{'inherit':['MAKEFLAGS','CC'],'set':{'CI':'true','LANG':'C.UTF-8'},"
	       "'private':'/tmp//job-42/'}}") == 0, "full policy is valid");
	tap_ok(p.id && !strcmp(p.id, "\xc3\xa9t\xc3\xa9"), "id decoded");
	tap_ok(list_is(&p.read, read, 4), "files.read normalised, in file order");
	tap_ok(list_is(&p.write, write, 2), "files.write normalised");
	tap_ok(p.exec.n == 0, "files.exec empty when absent");
	tap_ok(!p.net_none, "object network is not none");
	tap_ok(p.nconnect == 2 && p.connect_ports[0] == 443 && p.connect_ports[1] == 80,
	       "connect ports in file order");
	tap_ok(p.nbind == 1 && p.bind_ports[0] == 8080, "bind ports");
	tap_ok(p.no_new_privs == 1, "no_new_privs");
	tap_ok(p.max_memory_mb == 2048 && p.max_pids == 256, "caps");
	tap_ok(list_is(&p.env_inherit, inherit, 2), "env.inherit");
	tap_ok(list_is(&p.env_set_names, set_names, 2) &&
	       list_is(&p.env_set_values, set_values, 2), "env.set names and values");
	tap_ok(p.env_private && !strcmp(p.env_private, "/tmp/job-42"), "env.private normalised");
	policy_free(&p);
	tap_ok(!p.id && !p.read.v && !p.env_private, "policy_free leaves it empty");

	tap_ok(load(&p, "{" BASE "}") == 0, "minimal policy is valid");
	tap_ok(p.net_none == 1 && !p.max_memory_mb && !p.max_pids && !p.read.n &&
	       !p.env_inherit.n && !p.env_set_names.n && !p.env_private && p.no_new_privs,
	       "minimal policy: network none, nothing else set");
	policy_free(&p);

	tap_ok(load(&p, "{" BASE ",'files':{'read':['x']}}") == 1 && !p.id && !p.read.v,
	       "a refused policy is left empty");
	policy_free(&p);
}

static void test_long(void)
{
	char *json, *key = malloc(300);
	size_t n = PATH_MAX + 64;
	struct policy p;

	json = malloc(n + 200);
	/* exactly PATH_MAX - 1 bytes is accepted, one more is refused */
	for (size_t len = PATH_MAX - 1; len <= PATH_MAX; len++) {
		char *s = json + sprintf(json, "{" BASE ",'files':{'read':['");
		memset(s, 'a', len);
		s[0] = '/';
		strcpy(s + len, "']}}");
		if (len == PATH_MAX - 1)
			tap_ok(load(&p, json) == 0, "path of PATH_MAX - 1 bytes accepted");
		else
			tap_ok(load(&p, json) == 1 && strstr(got, "files.read[0]: longer than 4095 "
			       "bytes: \"/aaa") && strstr(got, "aaa\"...\n"),
			       "path of PATH_MAX bytes refused, quoted short");
		policy_free(&p);
	}
	/* 128 code points of two bytes each is fine; 129 is not */
	for (size_t chars = 128; chars <= 129; chars++) {
		char *s = json + sprintf(json, "{'pbp':1,'network':'none','process':{'no_new_privs':true},'id':'");
		for (size_t i = 0; i < chars; i++)
			s += sprintf(s, "\xc3\xa9");
		strcpy(s, "'}");
		if (chars == 128)
			tap_ok(load(&p, json) == 0, "id of 128 characters (256 bytes) accepted");
		else
			tap_ok(load(&p, json) == 1 &&
			       !strcmp(got, "id: must be 1-128 characters, not 129\n"),
			       "id of 129 characters refused");
		policy_free(&p);
	}
	/* a long unknown key is quoted and cut on a character boundary */
	memset(key, 0, 300);
	for (size_t i = 0; i < 130; i += 2)
		memcpy(key + i, "\xc3\xa9", 2);
	sprintf(json, "{" BASE ",'%s':1}", key);
	load(&p, json);
	key[128] = '\0';
	snprintf(json, n, "\"%s\"...: unknown key\n", key);
	tap_ok(!strcmp(got, json), "long key cut at 128 bytes on a character boundary");
	key[0] = 'a';
	for (size_t i = 1; i < 127; i += 2)
		memcpy(key + i, "\xc3\xa9", 2);
	key[127] = '\0';
	sprintf(json, "{" BASE ",'%s\\u0085':1}", key);
	load(&p, json);
	snprintf(json, n, "\"%s\"...: unknown key\n", key);
	tap_ok(!strcmp(got, json), "a C1 control is never cut in half");
	free(key);
	free(json);
}

static void test_path(void)
{
	static const struct { const char *in, *out; } ok[] = {
		{ "/", "/" }, { "//", "/" }, { "///", "/" }, { "/a", "/a" },
		{ "/usr//lib/", "/usr/lib" }, { "///a//b///", "/a/b" },
		{ "/a/.../b", "/a/.../b" }, { "/a/.b/", "/a/.b" }, { "/..a/b..", "/..a/b.." },
	};
	static const struct { const char *in; enum policy_path_status st; } bad[] = {
		{ "", POLICY_PATH_RELATIVE }, { "a", POLICY_PATH_RELATIVE },
		{ "./a", POLICY_PATH_RELATIVE }, { "a/", POLICY_PATH_RELATIVE },
		{ "/.", POLICY_PATH_DOT }, { "/a/./b", POLICY_PATH_DOT }, { "/a/.", POLICY_PATH_DOT },
		{ "/a/./", POLICY_PATH_DOT }, { "/..", POLICY_PATH_DOTDOT },
		{ "/a/../b", POLICY_PATH_DOTDOT }, { "//..//", POLICY_PATH_DOTDOT },
		{ "/a/..", POLICY_PATH_DOTDOT },
	};
	char out[PATH_MAX + 2], buf[PATH_MAX + 2];

	for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
		memset(out, 'x', sizeof out);
		tap_ok(policy_path(ok[i].in, strlen(ok[i].in), out) == POLICY_PATH_OK &&
		       !strcmp(out, ok[i].out), "normalise %s -> %s", ok[i].in, ok[i].out);
	}
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		tap_ok(policy_path(bad[i].in, strlen(bad[i].in), out) == bad[i].st,
		       "refuse \"%s\" (%d)", bad[i].in, bad[i].st);
	tap_ok(policy_path("/a\0b", 4, out) == POLICY_PATH_NUL, "refuse an embedded NUL");
	tap_ok(policy_path("a\0/..", 5, out) == POLICY_PATH_NUL, "NUL is checked first");
	strcpy(buf, "//x//y//");
	tap_ok(policy_path(buf, strlen(buf), buf) == POLICY_PATH_OK && !strcmp(buf, "/x/y"),
	       "normalises in place");
	memset(buf, '/', PATH_MAX);
	tap_ok(policy_path(buf, PATH_MAX - 1, out) == POLICY_PATH_OK && !strcmp(out, "/"),
	       "PATH_MAX - 1 slashes are /");
	tap_ok(policy_path(buf, PATH_MAX, out) == POLICY_PATH_LONG,
	       "PATH_MAX bytes are too long, counted as written");
	tap_ok(policy_path("a/../b", 6, out) == POLICY_PATH_RELATIVE,
	       "relative is checked before components");
}

static void test_env_name(void)
{
	static const char *const ok[] = { "A", "_", "a1", "A_B9", "_0", "PATH" };
	static const char *const bad[] = { "", "1A", "A-B", "A B", "A=", "\xc3\x84", "$A" };

	for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
		tap_ok(policy_env_name(ok[i], strlen(ok[i])), "variable name %s", ok[i]);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		tap_ok(!policy_env_name(bad[i], strlen(bad[i])), "not a variable name \"%s\"", bad[i]);
	tap_ok(!policy_env_name("A\0B", 3), "not a variable name: embedded NUL");
}

static void test_beneath(void)
{
	static const struct { const char *path, *dir; int want; } t[] = {
		{ "/tmp", "/tmp", 1 }, { "/tmp/x", "/tmp", 1 }, { "/tmp/x/y", "/tmp", 1 },
		{ "/tmpx", "/tmp", 0 }, { "/tm", "/tmp", 0 }, { "/", "/tmp", 0 },
		{ "/x", "/", 1 }, { "/", "/", 1 }, { "/a/b", "/a/b/c", 0 },
	};

	for (size_t i = 0; i < sizeof t / sizeof *t; i++)
		tap_ok(path_beneath(t[i].path, t[i].dir) == t[i].want, "%s %s %s", t[i].path,
		       t[i].want ? "is beneath" : "is not beneath", t[i].dir);
}

/* files.tmpfs: normalised and kept in file order; a path beneath a read
 * path is fine (it hides that part), and so is one that holds read, exec,
 * write or socket paths (bound on top of it); one that equals another
 * list's path, holds another tmpfs, or a protected path through no write
 * path beneath it, is not; the host's ptys in no list, /dev/ptsx is no pty;
 * files.sockets and files.write_vcs are read. */
static void test_tmpfs(void)
{
	static const char *const tmpfs[] = { "/tmp", "/var/tmp" };
	struct policy p;

	tap_ok(load(&p, "{" BASE ",'files':{'read':['/','/dev','/dev/ptsx'],"
	            "'tmpfs':['/tmp/','//var//tmp']}}") == 0, "files.tmpfs beneath read / is valid");
	tap_ok(list_is(&p.tmpfs, tmpfs, 2), "files.tmpfs normalised, in file order");
	policy_free(&p);
	tap_ok(!p.tmpfs.v, "policy_free frees files.tmpfs");
	tap_ok(load(&p, "{" BASE ",'files':{'tmpfs':['/tmp'],'exec':['/tmp/bin'],"
	            "'write':['/tmp/p'],'read':['/tmp/r'],'sockets':['/tmp/s'],"
	            "'protected':['/tmp/p/.git'],'write_vcs':true}}") == 0 &&
	       p.sockets.n == 1 && !strcmp(p.sockets.v[0], "/tmp/s") && p.write_vcs,
	       "a tmpfs that holds exec, write, read and socket paths: %s", got);
	policy_free(&p);
	tap_ok(load(&p, "{" BASE ",'files':{'tmpfs':['/tmp'],'exec':['/tmp']}}") == 1 &&
	       !strcmp(got, "files.tmpfs[0]: also in files.exec[0]: \"/tmp\"\n"),
	       "a tmpfs that is an exec path: %s", got);
	tap_ok(load(&p, "{" BASE ",'files':{'tmpfs':['/home/u/c'],'write':['/home/u'],"
	            "'protected':['/home/u/c/x']}}") == 1 &&
	       !strcmp(got, "files.tmpfs[0]: would hide files.protected[0]: \"/home/u/c/x\"\n"),
	       "a tmpfs that holds a protected path of a write path above it: %s", got);
	tap_ok(load(&p, "{" BASE ",'files':{'tmpfs':['/tmp','/tmp/x']}}") == 1 &&
	       !strcmp(got, "files.tmpfs[0]: would hide files.tmpfs[1]: \"/tmp/x\"\n"),
	       "a tmpfs that holds another: %s", got);
	tap_ok(load(&p, "{" BASE ",'files':{'write_vcs':1}}") == 1 &&
	       !strcmp(got, "files.write_vcs: must be true or false\n"),
	       "files.write_vcs not a boolean: %s", got);
	tap_ok(load(&p, "{" BASE ",'files':{'sockets':['run/x','/a','/a/']}}") == 2 &&
	       strstr(got, "files.sockets[0]: not an absolute path: \"run/x\"\n") &&
	       strstr(got, "files.sockets[2]: duplicate of files.sockets[1]: \"/a\"\n"),
	       "files.sockets: a relative path, a duplicate: %s", got);
	tap_ok(load(&p, "{" BASE ",'files':{'tmpfs':['/sysx','/procfs','/dev/shm']}}") == 0,
	       "/sysx, /procfs and /dev/shm are not /sys, /proc or a pty");
	policy_free(&p);
	tap_ok(load(&p, "{" BASE ",'files':{'protected':['/dev/pts/ptmx']}}") == 2 &&
	       strstr(got, "files.protected[0]: the host's ptys: name /dev whole"),
	       "a pty path in files.protected: %s", got);
}

int main(void)
{
	test_path();
	test_env_name();
	test_beneath();
	test_cases();
	test_fill();
	test_tmpfs();
	test_long();
	return tap_done();
}
