/* `sharness-exec launch` and a manifest's `check` (DESIGN.md 4.8): the
 * front end execs this program with their words as they are, and for
 * launch -F, a descriptor of itself. The manifest is read here, once, as
 * run reads a policy: from a file nobody else could have changed unless it
 * is pinned (--expect-hash) or signed (--trust-key), hashed and checked on
 * the very bytes parsed, which are the bytes the session runs (each
 * role's inline policy, session.c). --dry-run prints the plan, with each
 * component's chain as the front end's `run --dry-run` shows it; the
 * runtime's own checks follow (launcher.c). Until then this program
 * speaks as the front end, whose subcommands these are; run by hand
 * without the word launch, as itself. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "front/frontend.h"
#include "launch.h"
#include "near.h"
#include "trust.h"
#include "verify.h"
#include "warn.h"

/* launch --help: LAUNCH_USAGE, LAUNCH_WHAT, then these. */
#define LAUNCH_OPTS \
	"-m, --manifest FILE\tthe launch 1 manifest (required)\n" \
	"-H, --expect-hash sha256:HEX\trefuse unless the manifest has this hash\n" \
	"    --trust-key FILE\taccept a manifest signed by this key (repeatable)\n" \
	"    --signature FILE\tthe signature (default: the manifest's path .sig)\n" \
	"    --expect-id ID\trefuse unless the manifest's id is ID\n" \
	"-n, --dry-run\tprint the plan and each chain, and exit\n" \
	"    --uid-range FIRST-LAST\tthe session's uids (" MANIFEST_UID_RANGE ")\n" \
	"    --user USER\tmain runs as USER, not a uid of the session's\n" \
	"    --logs DIR\tkeep each component's output in DIR/ROLE.log\n" \
	"    --keep\tafter a failure, keep the state directories in " KEPT_DIR "/ID\n" \
	"    --explain\twhen each role ends, list what its policy refused or hid\n" \
	"COMMAND\tmain's command\n" \
	"-h, --help\tprint this help and exit\n"

struct launch_opts {
	const char *usage, *manifest, *expect, *signature, *expect_id, *logs;
	char **trust;
	size_t ntrust;
};

int usage_help(void)
{
	printf("usage: %s\n", USAGE);
	return fflush(stdout) ? EXIT_REFUSED : 0;
}

static int launch_help(void)
{
	printf("usage: %s\n\n%s\n\noptions:\n", LAUNCH_USAGE, LAUNCH_WHAT);
	help_opts(LAUNCH_OPTS);
	return fflush(stdout) ? EXIT_REFUSED : 0;
}

int fd_arg(const char *opt, const char *arg)
{
	char *end;
	long fd;

	errno = 0;
	fd = strtol(arg, &end, 10);
	if (errno || *end || fd < 3 || fd > 1 << 20 || fcntl((int)fd, F_SETFD, FD_CLOEXEC) < 0)
		usage_fail(USAGE, "%s %s: not an open descriptor above 2", opt, qn(arg));
	return (int)fd;
}

void launch_need_root(const struct launch *s)
{
	if (!s->dry && (geteuid() != 0 || getuid() != 0))
		die_hint(EXIT_REFUSED, 0, "run it as root (sudo)",
		         "launch needs root: it makes a uid for each component. Nothing ran.");
}

/* launch's options, and by hand (not FRONT) -F; -m and -H only after the word
 * launch, as the front end's (DESIGN.md 1: by hand their letters mean
 * something else), by hand their long forms. */
static void parse_launch(struct launch *s, int argc, char **argv, struct launch_opts *o,
                         int front)
{
	static const struct option longopts[] = {
		{ "manifest", required_argument, NULL, 'm' },
		{ "expect-hash", required_argument, NULL, 'H' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ "trust-key", required_argument, NULL, 'K' },
		{ "signature", required_argument, NULL, 'S' },
		{ "expect-id", required_argument, NULL, 'I' },
		{ "uid-range", required_argument, NULL, 'R' },
		{ "user", required_argument, NULL, 'u' },
		{ "logs", required_argument, NULL, 'L' },
		{ "keep", no_argument, NULL, 0x100 },
		{ "explain", no_argument, NULL, 0x101 },
		{ NULL, 0, NULL, 0 },
	};
	/* Options that take a value, by letter; -n, -h, -F and --trust-key
	 * (repeatable) are the others. */
	const char **value[128] = {
		['m'] = &o->manifest, ['H'] = &o->expect, ['S'] = &o->signature,
		['I'] = &o->expect_id, ['R'] = &s->range, ['u'] = &s->user,
		['L'] = &o->logs,
	};
	int c;

	o->usage = front ? LAUNCH_USAGE : USAGE;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, front ? "+:m:H:nh" : "+:F:nh", longopts,
	                        NULL)) != -1) {
		if (c > 0 && c < 128 && value[c]) {
			*value[c] = optarg;
		} else if (c == 'n') {
			s->dry = 1;
		} else if (c == 0x100) {
			s->keep = 1;
		} else if (c == 0x101) {
			s->explain = 1;
		} else if (c == 'h') {
			exit(front ? launch_help() : usage_help());
		} else if (c == 'F') {
			s->frontend = fd_arg("-F", optarg);
		} else if (c == 'K') {
			if (!(o->trust = reallocarray(o->trust, o->ntrust + 1, sizeof *o->trust)))
				diex(EXIT_REFUSED, "out of memory");
			o->trust[o->ntrust++] = optarg;
		} else if (c == '?' && !optopt) {
			unknown_option(o->usage, argv[optind - 1], longopts);
		} else {
			usage_option(o->usage, c, argv[optind - 1]);
		}
	}
	if (!o->manifest)
		usage_fail(o->usage, "launch needs --manifest FILE");
	if (optind >= argc)
		usage_fail(o->usage, "launch needs main's COMMAND after the options");
	if (o->signature && !o->ntrust)
		usage_fail(o->usage, "--signature needs --trust-key");
	if (s->frontend < 0)
		usage_fail(USAGE, "launch needs -F, a descriptor of the front end");
	s->cmd = argv + optind;
}

static const char *network(const struct policy *p)
{
	return p->net_none ? "the session's loopback" :
	       "the session's loopback, limited to the policy's ports";
}

static void warn_line(void *ctx, const char *line)
{
	(void)ctx;
	warnx_("%s", line);
}

/* P's health checks, in the order they run, on F. */
static void health_describe(const struct component *p, FILE *f)
{
	char tcp[24], http[MANIFEST_HTTP_PATH_MAX + 32];
	const char *part[3];
	int n = 0;

	if (p->health_port && snprintf(tcp, sizeof tcp, "TCP port %u", p->health_port))
		part[n++] = tcp;
	if (p->http_port && snprintf(http, sizeof http, "HTTP GET %s on port %u", p->http_path,
	                              p->http_port))
		part[n++] = http;
	if (p->health_command.n)
		part[n++] = "its command";
	fprintf(f, "; health: ");
	for (int i = 0; i < n; i++)
		fprintf(f, "%s%s", !i ? "" : i == n - 1 ? " and " : ", ", part[i]);
	fprintf(f, " every %lu ms, each within %lu ms, %lu failed in a row end the session",
	        p->health_interval_ms, p->health_timeout_ms, p->health_fails);
}

/* Each role's plan on F, after what manifest_warn finds on stderr. */
static void manifest_describe(const struct manifest *m, FILE *f)
{
	manifest_warn(m, warn_line, NULL);
	for (size_t i = 0; i <= m->ncomp; i++) {
		const struct component *p = &m->comp[i];

		if (i < m->ncomp)
			fprintf(f, "components[%zu] \"%s\": ", i, p->role);
		else
			fprintf(f, "main \"%s\": ", p->role);
		fprintf(f, "policy %s %s; network: %s", q(p->pol.id), p->hash, network(&p->pol));
		if (p->ready == READY_TCP)
			fprintf(f, "; ready: TCP port %u accepts", p->ready_port);
		else if (p->ready == READY_UNIX)
			fprintf(f, "; ready: socket %s accepts", q(p->ready_path));
		else if (p->ready == READY_STDOUT_LINE)
			fprintf(f, "; ready: its first stdout line");
		if (p->ready)
			fprintf(f, " within %lu s", p->ready_timeout);
		for (size_t d = 0; d < p->nafter; d++)
			fprintf(f, "%s%s", d ? ", " : "; starts once ready: ", m->comp[p->after[d]].role);
		for (size_t d = 0; i == m->ncomp && d < m->nread_logs; d++)
			fprintf(f, "%s%s", d ? ", " : "; reads the logs of: ", m->comp[m->read_logs[d]].role);
		if (p->health)
			health_describe(p, f);
		fprintf(f, "%s%s%s\n", p->freeze_when_ready ? "; frozen when ready" : "",
		        p->identity ? "; identity spiffe://SESSION/" : "", p->identity ? p->role : "");
	}
}

/* Component P's chain, from `run --dry-run` of the front end (-F), its
 * inline policy on a pipe, pinned by its hash, its state directory
 * given as the launch gives it. */
static int show_chain(const struct launch *s, const struct component *p, char **cmd)
{
	const jsmntok_t *t = &s->l.doc.tok[p->policy_tok];
	char state[sizeof SESSION_DIR + MANIFEST_ROLE_MAX + 1];
	char dirs[MANIFEST_SHARE_MAX][sizeof SHARE_DIR + MANIFEST_SHARE_NAME_MAX + 2];
	const char **v;
	size_t n = 0, argc = 0;
	int fd[2], status, how;
	pid_t pid;

	while (cmd[argc])
		argc++;
	if (!(v = calloc(argc + 13 + 2 * MANIFEST_SHARE_MAX, sizeof *v)))
		diex(EXIT_REFUSED, "out of memory");
	v[n++] = "sharness-exec";
	v[n++] = "run";
	v[n++] = "--dry-run";
	snprintf(state, sizeof state, "%s/%s", SESSION_DIR, p->role);
	v[n++] = "--state-dir";
	v[n++] = state;
	for (size_t j = 0; j < s->man.nshare; j++)	/* its shares, as start.c gives them */
		if ((how = manifest_shares(&s->man.share[j], (size_t)(p - s->man.comp)))) {
			snprintf(dirs[j], sizeof dirs[j], "%s/%s", SHARE_DIR, s->man.share[j].name);
			v[n++] = how == 'w' ? "--share" : "--share-read";
			v[n++] = dirs[j];
		}
	if (p == s->man.comp + s->man.ncomp && s->man.nread_logs) {
		v[n++] = "--share-read";
		v[n++] = LOGS_DIR;
	}
	if (s->explain) {	/* as start.c gives it */
		v[n++] = "--explain-as";
		v[n++] = p->role;
	}
	v[n++] = "--policy=-";
	v[n++] = "--expect-hash";
	v[n++] = p->hash;
	v[n++] = "--";
	memcpy(v + n, cmd, argc * sizeof *v);
	fflush(NULL);
	if (pipe2(fd, O_CLOEXEC) < 0 || (pid = fork()) < 0)
		die(EXIT_REFUSED, "unable to start run --dry-run");
	if (!pid) {
		if (dup2(fd[0], 0) < 0)
			_exit(EXIT_REFUSED);
		fexecve(s->frontend, (char *const *)v, environ);
		die(EXIT_REFUSED, "unable to execute the front end (-F)");
	}
	close(fd[0]);
	if (write_all(fd[1], s->l.text + t->start, (size_t)(t->end - t->start)) < 0)
		die(EXIT_REFUSED, "unable to write the policy to run --dry-run");
	close(fd[1]);
	free(v);
	if (waitpid(pid, &status, 0) < 0)
		die(EXIT_REFUSED, "unable to wait for run --dry-run");
	return WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_REFUSED;
}

/* The plan and each chain: 0, or the first chain's refusal. */
static int dry_run(const struct launch *s, const char *how)
{
	const struct manifest *m = &s->man;
	char self[PATH_MAX] = "";
	int rc = 0;

	if (readlink("/proc/self/exe", self, sizeof self - 1) < 0)
		die(EXIT_REFUSED, "unable to find this program: no /proc/self/exe");
	printf("manifest %s %s (%s)\n", q(m->id), s->l.hash, how);
	printf("session: an id of 16 random bytes; a network namespace of its own, loopback only; "
	       "state directories on a session tmpfs\n");
	printf("uids: allocated at run time by %s from %s, one for each component%s%s\n", self,
	       s->range ? s->range : MANIFEST_UID_RANGE, s->user ? "; main runs as " : " and main",
	       s->user ? s->user : "");
	printf("CA: P-256, spiffe://SESSION, never written\n");
	manifest_describe(m, stdout);
	for (size_t i = 0; i <= m->ncomp && !rc; i++) {
		const struct component *p = &m->comp[i];

		printf("%s \"%s\": chain as run --dry-run shows it "
		       "(launch adds the session's namespace and the uid):\n",
		       i < m->ncomp ? "component" : "main", p->role);
		rc = show_chain(s, p, i < m->ncomp ? p->command.v : s->cmd);
	}
	if (!rc && fflush(stdout))
		return EXIT_REFUSED;
	return rc;
}

/* --logs DIR: made 0700 if it is not there; refused (125, one line) when
 * it is a symbolic link, not a directory, or not the caller's. Open. */
static int logs_dir(const char *dir)
{
	struct stat st;
	int fd;

	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		die(EXIT_REFUSED, "--logs %s: unable to make it. Nothing ran", q(dir));
	if (lstat(dir, &st) == 0 && S_ISLNK(st.st_mode))
		diex(EXIT_REFUSED, "refused: --logs %s: a symbolic link. Nothing ran.", q(dir));
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    fstat(fd, &st) < 0)
		die(EXIT_REFUSED, "--logs %s: unable to open it as a directory. Nothing ran", q(dir));
	if (st.st_uid != getuid())
		diex(EXIT_REFUSED, "refused: --logs %s: owned by uid %lu, not the caller's (%lu). "
		     "Nothing ran.", q(dir), (unsigned long)st.st_uid, (unsigned long)getuid());
	return fd;
}

void launch_command(struct launch *s, int argc, char **argv, int front)
{
	struct launch_opts o = { 0 };
	unsigned char want[HASH_LEN];
	char how[HASH_TEXT_LEN + 16];
	const char *key;
	int fd = -1, ok, rc;

	if (front)
		progname = "sharness-exec";
	parse_launch(s, argc, argv, &o, front);
	if (!front)	/* by hand: root first, as the runtime it is */
		launch_need_root(s);
	if (o.expect && !hash_parse(o.expect, want))
		diex(EXIT_REFUSED, "--expect-hash must be sha256: and 64 hex digits, not %s",
		     q(o.expect));
	/* As run takes a policy (front/run.c, load_run_policy): the file
	 * opened once, and its bytes read once, from that descriptor. */
	if (!o.expect && !o.ntrust)
		fd = open_trusted(o.manifest, "manifest file");
	ok = manifest_load(fd, o.manifest, &s->l, &s->man, o.expect ? want : NULL, LOAD_MANIFEST);
	if (fd > 0)
		close(fd);
	if (!ok)
		exit(EXIT_REFUSED);
	key = sign_run_check(&s->l, o.manifest, o.signature, o.trust, o.ntrust, o.expect_id);
	free(o.trust);
	if (!s->dry && geteuid() != 0)
		die_hint(EXIT_REFUSED, 0, "run it as root (sudo); --dry-run needs no root",
		         "launch needs root: it makes a uid for each component. Nothing ran.");
	if (!s->dry) {
		s->logdir = o.logs ? logs_dir(o.logs) : -1;
		return;
	}
	snprintf(how, sizeof how, "%s%s", o.expect ? "pinned" : key ? "signed by " : "not pinned",
	         !o.expect && key ? key : "");
	if ((rc = dry_run(s, how)))
		exit(rc);
}

int launch_check(int fd, int argc, char **argv)
{
	struct manifest m;
	struct loaded l;
	char where[128];

	progname = "sharness-exec";
	if (argc != 2)
		usage_fail(CHECK_USAGE, "check takes one FILE");
	if (!manifest_load(fd, argv[1], &l, &m, NULL, LOAD_MANIFEST))
		return EXIT_REFUSED;
	for (size_t i = 0; i <= m.ncomp; i++) {
		if (i < m.ncomp)
			snprintf(where, sizeof where, "components[%zu] \"%s\": policy.", i,
			         m.comp[i].role);
		else
			snprintf(where, sizeof where, "main \"%s\": policy.", m.comp[i].role);
		policy_warnings(argv[1], where, &m.comp[i].pol);
	}
	printf("%s: valid launch 1 manifest %s\n", qn(argv[1]), q(l.id));
	manifest_describe(&m, stdout);
	manifest_free(&m);
	unload_policy(&l);
	return fflush(stdout) ? EXIT_REFUSED : 0;
}
