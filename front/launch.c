/* `sharness-exec launch` (DESIGN.md 4.8): the manifest is verified as run
 * verifies a policy (pinned, signed, or from a trusted file; --expect-id);
 * --dry-run prints the plan, with each component's chain as `run
 * --dry-run` shows it; otherwise, as root, this process becomes the
 * runtime, sharness-exec-launch, with the verified bytes in a sealed
 * memfd (the file is not read again) and a descriptor of this program,
 * which runs each role: an exec, no fork. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "frontend.h"
#include "verify.h"
#include "trust.h"

struct launch_opts {
	const char *manifest, *expect, *signature, *expect_id, *uid_range, *user, *logs;
	char **trust;
	size_t ntrust;
	int dry_run;
};

static void parse_launch(int argc, char **argv, struct launch_opts *o)
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
		{ NULL, 0, NULL, 0 },
	};
	/* Options that take a value, by letter; -n, -h and --trust-key
	 * (repeatable) are the others. */
	const char **value[128] = {
		['m'] = &o->manifest, ['H'] = &o->expect, ['S'] = &o->signature,
		['I'] = &o->expect_id, ['R'] = &o->uid_range, ['u'] = &o->user,
		['L'] = &o->logs,
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:m:H:nh", longopts, NULL)) != -1) {
		if (c > 0 && c < 128 && value[c]) {
			*value[c] = optarg;
		} else if (c == 'n') {
			o->dry_run = 1;
		} else if (c == 'h') {
			exit(cmd_help("launch"));
		} else if (c == 'K') {
			if (!(o->trust = reallocarray(o->trust, o->ntrust + 1, sizeof *o->trust)))
				diex(EXIT_REFUSED, "out of memory");
			o->trust[o->ntrust++] = optarg;
		} else if (c == '?' && !optopt) {
			unknown_option(LAUNCH_USAGE, argv[optind - 1], longopts);
		} else {
			usage_option(LAUNCH_USAGE, c, argv[optind - 1]);
		}
	}
	if (!o->manifest)
		usage_fail(LAUNCH_USAGE, "launch needs --manifest FILE");
	if (optind >= argc)
		usage_fail(LAUNCH_USAGE, "launch needs main's COMMAND after the options");
	if (o->signature && !o->ntrust)
		usage_fail(LAUNCH_USAGE, "--signature needs --trust-key");
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

/* Each role's plan on F, after what manifest_warn finds on stderr. */
void manifest_describe(const struct manifest *m, FILE *f)
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
		fprintf(f, "%s%s%s\n", p->freeze_when_ready ? "; frozen when ready" : "",
		        p->identity ? "; identity spiffe://SESSION/" : "", p->identity ? p->role : "");
	}
}

/* Component P's chain, from `run --dry-run` of this very program, its
 * inline policy on a pipe, pinned by its hash. */
static int show_chain(const struct loaded *l, const struct component *p, char **cmd)
{
	const jsmntok_t *t = &l->doc.tok[p->policy_tok];
	const char **v;
	size_t n = 0, argc = 0;
	int fd[2], status;
	pid_t pid;

	while (cmd[argc])
		argc++;
	if (!(v = calloc(argc + 9, sizeof *v)))
		diex(EXIT_REFUSED, "out of memory");
	v[n++] = "sharness-exec";
	v[n++] = "run";
	v[n++] = "--dry-run";
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
		execv("/proc/self/exe", (char *const *)v);
		die(EXIT_REFUSED, "unable to execute /proc/self/exe");
	}
	close(fd[0]);
	if (write_all(fd[1], l->text + t->start, (size_t)(t->end - t->start)) < 0)
		die(EXIT_REFUSED, "unable to write the policy to run --dry-run");
	close(fd[1]);
	free(v);
	if (waitpid(pid, &status, 0) < 0)
		die(EXIT_REFUSED, "unable to wait for run --dry-run");
	return WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_REFUSED;
}

static NORETURN void exec_launcher(const struct loaded *l, const struct launch_opts *o,
                                   char **cmd, int dry);

/* The runtime's own checks before anything runs (-n): its status, the
 * launch's. */
static int launcher_check(const struct loaded *l, const struct launch_opts *o, char **cmd)
{
	int status;
	pid_t pid;

	fflush(NULL);
	if ((pid = fork()) < 0)
		die(EXIT_REFUSED, "unable to fork the runtime's check");
	if (!pid)
		exec_launcher(l, o, cmd, 1);
	if (waitpid(pid, &status, 0) < 0)
		die(EXIT_REFUSED, "unable to wait for the runtime's check");
	return WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_CONFINE;
}

static int dry_run(const struct loaded *l, const struct launch_opts *o, const char *how,
                   char **main_cmd)
{
	const struct manifest *m = &l->man;
	int rc = 0;

	printf("manifest %s %s (%s)\n", q(m->id), l->hash, how);
	printf("session: an id of 16 random bytes; a network namespace of its own, loopback only; "
	       "state directories on a session tmpfs\n");
	printf("uids: allocated at run time by %s/sharness-exec-launch from %s, one for each "
	       "component%s%s\n", helperdir(), o->uid_range ? o->uid_range : MANIFEST_UID_RANGE,
	       o->user ? "; main runs as " : " and main", o->user ? o->user : "");
	printf("CA: P-256, spiffe://SESSION, never written\n");
	manifest_describe(m, stdout);
	for (size_t i = 0; i <= m->ncomp && !rc; i++) {
		const struct component *p = &m->comp[i];

		printf("%s \"%s\": chain as run --dry-run shows it "
		       "(launch adds the session's namespace and the uid):\n",
		       i < m->ncomp ? "component" : "main", p->role);
		rc = show_chain(l, p, i < m->ncomp ? p->command.v : main_cmd);
	}
	if (!rc && fflush(stdout))
		return EXIT_REFUSED;
	return rc ? rc : launcher_check(l, o, main_cmd);
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
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)) < 0 ||
	    fstat(fd, &st) < 0)
		die(EXIT_REFUSED, "--logs %s: unable to open it as a directory. Nothing ran", q(dir));
	if (st.st_uid != getuid())
		diex(EXIT_REFUSED, "refused: --logs %s: owned by uid %lu, not the caller's (%lu). "
		     "Nothing ran.", q(dir), (unsigned long)st.st_uid, (unsigned long)getuid());
	return fd;
}

/* The runtime, this process: -F this program, -M the manifest's bytes,
 * -L --logs's directory; or, DRY, its checks alone (-n). */
static NORETURN void exec_launcher(const struct loaded *l, const struct launch_opts *o,
                                   char **cmd, int dry)
{
	const char *v[16 + 1024];
	char fe[16], mf[16], lg[16];
	int self = open("/proc/self/exe", O_RDONLY),
	    m = sealed_memfd("sharness-exec-manifest", 0, l->text, l->len);
	size_t n = 0;

	if (self < 0 || m < 0)
		die(EXIT_REFUSED, "unable to pass the manifest on in a sealed memfd");
	snprintf(fe, sizeof fe, "%d", self);
	snprintf(mf, sizeof mf, "%d", m);
	v[n++] = helper_path("sharness-exec-launch");
	v[n++] = "-F", v[n++] = fe, v[n++] = "--manifest", v[n++] = mf, v[n++] = "--hash", v[n++] = l->hash;
	if (dry)
		v[n++] = "-n";
	if (o->uid_range)
		v[n++] = "--uids", v[n++] = o->uid_range;
	if (o->user)
		v[n++] = "--user", v[n++] = o->user;
	if (o->logs && !dry) {
		snprintf(lg, sizeof lg, "%d", logs_dir(o->logs));
		v[n++] = "--logs", v[n++] = lg;
	}
	v[n++] = "--";
	for (; *cmd && n < sizeof v / sizeof *v - 1; cmd++)
		v[n++] = *cmd;
	if (*cmd)
		diex(EXIT_REFUSED, "main's COMMAND has more than 1024 words");
	v[n] = NULL;
	execv(v[0], (char *const *)v);
	helper_fail("execute", v[0]);
}

int cmd_launch(int argc, char **argv)
{
	struct launch_opts o = { 0 };
	unsigned char want[HASH_LEN];
	char how[HASH_TEXT_LEN + 16];
	const char *key;
	struct loaded l;
	int fd = -1, ok, rc;

	closefrom(3);	/* nothing inherited reaches the session */
	parse_launch(argc, argv, &o);
	if (o.expect && !hash_parse(o.expect, want))
		diex(EXIT_REFUSED, "--expect-hash must be sha256: and 64 hex digits, not %s",
		     q(o.expect));
	/* As run takes a policy (run.c, load_run_policy). */
	if (!o.expect && !o.ntrust)
		fd = open_trusted(o.manifest, "manifest file");
	ok = load_as(fd, o.manifest, &l, o.expect ? want : NULL, LOAD_MANIFEST);
	if (fd > 0)
		close(fd);
	if (!ok)
		return EXIT_REFUSED;
	key = sign_run_check(&l, o.manifest, o.signature, o.trust, o.ntrust, o.expect_id);
	free(o.trust);
	if (!o.dry_run && geteuid() != 0)
		die_hint(EXIT_REFUSED, 0, "run it as root (sudo); --dry-run needs no root",
		         "launch needs root: it makes a uid for each component. Nothing ran.");
	if (!o.dry_run)
		exec_launcher(&l, &o, argv + optind, 0);
	snprintf(how, sizeof how, "%s%s", o.expect ? "pinned" : key ? "signed by " : "not pinned",
	         !o.expect && key ? key : "");
	rc = dry_run(&l, &o, how, argv + optind);
	unload_policy(&l);
	return rc;
}
