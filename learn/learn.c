/* sharness-exec-learn: `sharness-exec learn` (DESIGN.md 4.7), a program
 * beside the verify path that parses JSON (a base policy, its drafts, the
 * run reports), which the front end execs with -F, a descriptor of
 * itself. It speaks as the front end, whose subcommand it is. It never runs COMMAND
 * unconfined: each round runs it through the front end (the descriptor -F), pinned to the round's draft, with
 * --explain and --report, reads the report's denials, widens the draft by
 * what learnrules.c allows, and stops when a round is refused nothing new
 * or at the round limit. Exit 0 with the draft written, 125 refused. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "hash.h"
#include "json.h"
#include "learn.h"
#include "load.h"
#include "trust.h"

#define LEARN_USAGE "sharness-exec learn -o DRAFT [--base POLICY] [--rounds N] " \
	"[--allow-network] -- COMMAND [ARG...]"
/* This program's own: the front end's `learn` with -F before it, or -t. */
#define USAGE "sharness-exec-learn -F FD -o DRAFT [--base POLICY] [--rounds N] " \
	"[--allow-network] -- COMMAND [ARG...]\n" \
	"       sharness-exec-learn -t -o DRAFT [--base POLICY] [--rounds N] " \
	"[--allow-network] -- COMMAND [ARG...]"
#define ROUNDS_MAX 20

const char *progname = "sharness-exec";

extern char **environ;

struct learn {
	struct learn_ctx c;
	const char *out, *base;
	int outdir;                    /* -o's directory, opened before the rounds */
	char outpath[PATH_MAX];        /* its symlink-free name */
	char outname[NAME_MAX + 1];    /* -o's name in it */
	char **cmd;
	unsigned long rounds;
	int frontend;
	struct draft d;
};

/* --- drafts as text --- */

static void first_problem(void *ctx, const char *line)
{
	char *why = ctx;
	if (!*why)
		snprintf(why, 256, "%s", line);
}

/* TEXT (LEN bytes, kept) checked as a policy into P, as `check` would;
 * 0 with the first problem in WHY. */
static int draft_parse(const char *text, size_t len, struct policy *p, char why[256])
{
	struct json_doc doc;
	size_t n;

	*why = '\0';
	if (!json_parse(&doc, text, len, why, 256))
		return 0;
	n = policy_check(p, &doc, first_problem, why);
	json_free(&doc);
	return n == 0;
}

static char *draft_text(const struct policy *p, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	if (!f)
		diex(EXIT_REFUSED, "out of memory");
	draft_write(f, p);
	if (fclose(f))
		diex(EXIT_REFUSED, "out of memory");
	return text;
}

/* The default base: read /etc and the run's own /proc, exec the system
 * directories that exist, write the cwd and /dev/null, no network, a
 * private env in CWD/.sharness-env. /proc and /dev/null are what nearly
 * every command asks for first, each a round when learned (tests/
 * learn-clients.bats): both are on the allowlist anyway. */
static char *default_base(const char *cwd, size_t *len)
{
	static const char *const sys[] = { "/usr", "/bin", "/sbin", "/lib", "/lib32",
	                                   "/lib64", "/libx32" };
	struct policy p = { 0 };
	char **exec = calloc(sizeof sys / sizeof *sys, sizeof *exec), *text;
	char etc[] = "/etc", proc[] = "/proc", null[] = "/dev/null", id[] = "learned";
	char *write[2] = { (char *)cwd, null }, *read[2] = { etc, proc }, priv[PATH_MAX];
	struct stat st;

	if (!exec)
		diex(EXIT_REFUSED, "out of memory");
	for (size_t i = 0; i < sizeof sys / sizeof *sys; i++)
		if (!lstat(sys[i], &st))
			exec[p.exec.n++] = (char *)sys[i];
	if (snprintf(priv, sizeof priv, "%s/.sharness-env", strcmp(cwd, "/") ? cwd : "") >=
	    (int)sizeof priv)
		diex(EXIT_REFUSED, "refused: the working directory's name is too long");
	p.id = id;
	p.exec.v = exec;
	p.read = (struct strlist){ read, 2 };
	p.write = (struct strlist){ write, 2 };
	p.net_none = 1;
	p.env_private = priv;
	text = draft_text(&p, len);
	free(exec);
	return text;
}

static void draft_start(struct learn *l)
{
	char why[256], err[256];
	size_t len;
	char *text;

	if (l->base)
		text = read_policy_file(l->base, &len, err, sizeof err);
	else
		text = default_base(l->c.cwd, &len);
	if (!text)
		diex(EXIT_REFUSED, "refused: base policy %s: %s", qn(l->base), err);
	if (!draft_parse(text, len, &l->d.p, why))
		diex(EXIT_REFUSED, "refused: base policy %s: %s", l->base ? qn(l->base) : "(default)",
		     why);
	free(text);
}

/* --- one round --- */

/* All of FD from its start, NUL added; FD is closed. */
static char *fd_read_all(int fd, size_t *len)
{
	off_t size = lseek(fd, 0, SEEK_END);
	char *buf;
	ssize_t n;

	if (size < 0 || size > JSON_MAX_BYTES || !(buf = malloc((size_t)size + 1)))
		diex(EXIT_REFUSED, "refused: the round's report is too large or unreadable");
	if (lseek(fd, 0, SEEK_SET) < 0 || (n = read_upto(fd, buf, (size_t)size)) < 0 ||
	    n > size)
		die(EXIT_REFUSED, "unable to read the round's report");
	*len = (size_t)n;
	buf[*len] = '\0';
	close(fd);
	return buf;
}

static int memfd(const char *name)
{
	int fd = memfd_create(name, 0);

	if (fd < 0)
		die(EXIT_REFUSED, "unable to create a memfd");
	return fd;
}

/* Run COMMAND under the draft in POLICY (pinned to HASH) with --explain
 * and --report fd:3; the report's text, and the wait status in *STATUS. */
static char *round_run(struct learn *l, const char *policy, const char *hash, int *status,
                       size_t *len)
{
	int report = memfd("sharness-exec-learn-report");
	const char *head[] = { "sharness-exec", "run", "--explain", "--report", "fd:3",
	                       "-p", policy, "-H", hash, "--" };
	size_t nh = sizeof head / sizeof *head, n = 0;
	const char **argv;
	pid_t pid;

	while (l->cmd[n])
		n++;
	if (!(argv = calloc(nh + n + 1, sizeof *argv)))
		diex(EXIT_REFUSED, "out of memory");
	memcpy(argv, head, sizeof head);
	memcpy(argv + nh, l->cmd, n * sizeof *argv);
	fflush(NULL);
	if ((pid = fork()) < 0)
		die(EXIT_REFUSED, "unable to fork");
	if (!pid) {
		/* The report goes to 3, where the front end may be: move it. */
		int fe = fcntl(l->frontend, F_DUPFD_CLOEXEC, 4);
		/* The command's output goes to our stderr: stdout is the
		 * draft's hash and the list of additions, for a program. */
		if (fe < 0 || dup2(report, 3) < 0 || dup2(2, 1) < 0)
			die(EXIT_REFUSED, "unable to pass the report's descriptor");
		syscall(SYS_execveat, fe, "", argv, environ, AT_EMPTY_PATH);
		die(EXIT_REFUSED, "unable to run the front end again");
	}
	free(argv);
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			die(EXIT_REFUSED, "unable to wait for a round");
	return fd_read_all(report, len);
}

/* String member KEY of object O, NUL-terminated on the heap, or NULL. */
static char *member(const struct json_doc *doc, unsigned o, const char *key)
{
	unsigned v;

	if (json_type(doc, o) != JSON_OBJECT || !(v = json_get(doc, o, key)) ||
	    json_type(doc, v) != JSON_STRING)
		return NULL;
	return json_string(doc, v, &(size_t){ 0 });
}

/* One of the report's denials (sharness-exec-report(5): kind, what,
 * status) as learnrules.c takes it; 0 for what no policy change can
 * allow (the seccomp filter's own refusals, keyrings). */
static int denial_of(struct denial *x, const char *kind, const char *what, const char *status)
{
	static const struct { const char *report, *learn; } kinds[] = {
		{ "read", "read" }, { "list", "list" }, { "write", "write" },
		{ "create", "create" }, { "remove", "remove" }, { "exec", "exec" },
		{ "connect to UNIX socket", "connect_unix" },
		{ "TCP connect", "connect_tcp" }, { "TCP bind", "bind_tcp" },
		{ "UDP connect", "connect_udp" }, { "UDP bind", "bind_udp" },
	};
	const char *colon;
	char *end;

	if (!strcmp(status, "refused by the seccomp filter"))
		return 0;
	x->state = !strcmp(status, "absent") ? "absent" : !strcmp(status, "unknown") ? "unknown" :
	           "hidden";
	for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
		if (strcmp(kind, kinds[i].report))
			continue;
		x->kind = kinds[i].learn;
		if (strncmp(x->kind + strlen(x->kind) - 4, "_tcp", 4) &&
		    strncmp(x->kind + strlen(x->kind) - 4, "_udp", 4)) {
			x->path = what;
			return 1;
		}
		/* ADDRESS:PORT, [ADDRESS]:PORT */
		if (!(colon = strrchr(what, ':')))
			return 0;
		x->port = strtol(colon + 1, &end, 10);
		return *end == '\0' && x->port >= 0 && x->port <= 65535;
	}
	return 0;
}

/* Never propose what check refuses: the grant just made is taken back
 * when the draft no longer passes. 1 when it stands. */
static int check_grant(struct learn *l)
{
	struct policy p = { 0 };
	char why[256];
	size_t tl;
	char *t = draft_text(&l->d.p, &tl);
	int ok = draft_parse(t, tl, &p, why);

	if (ok)
		policy_free(&p);
	else
		draft_retract(&l->d, why);
	free(t);
	return ok;
}

/* The report's denials into the draft; how many grants they made. */
static size_t round_learn(struct learn *l, const char *text, size_t len, char *outcome,
                          size_t outlen)
{
	char err[256], *tail;
	const char *p, *q;
	struct json_doc doc;
	unsigned den;
	size_t grants = 0;

	*outcome = '\0';
	/* The report holds fractions (wall_s, cpu), which the strict reader
	 * of policies refuses: take the two members learn reads, the outcome
	 * (one word) and the denials, which its writer puts last. In the
	 * report's text these bytes can only be keys: a string's quotes are
	 * escaped. */
	if ((p = strstr(text, ",\"outcome\":\"")))
		snprintf(outcome, outlen, "%.*s", (int)strcspn(p + 12, "\""), p + 12);
	if (!len || !(p = strstr(text, ",\"denials\":")))
		diex(EXIT_REFUSED, "refused: the round wrote no report it could read");
	for (q = p; (q = strstr(q + 1, ",\"denials\":")); p = q)
		;
	/* network.hosts: the egress step's hosts come right before */
	if ((q = strstr(text, ",\"egress\":{")) && q < p)
		p = q;
	if (!(tail = malloc(len - (size_t)(p - text) + 2)))
		diex(EXIT_REFUSED, "out of memory");
	tail[0] = '{';
	memcpy(tail + 1, p + 1, len - (size_t)(p + 1 - text) + 1);
	if (!json_parse(&doc, tail, strlen(tail), err, sizeof err))
		diex(EXIT_REFUSED, "refused: the round's report does not parse: %s", err);
	den = json_get(&doc, 0, "denials");
	if (den && json_type(&doc, den) == JSON_ARRAY) {
		JSON_EACH_ELEMENT(&doc, den, m, e) {
			char *kind = member(&doc, e, "kind"), *what = member(&doc, e, "what");
			char *status = member(&doc, e, "status");
			struct denial x = { .port = -1 };

			if (kind && what && status && denial_of(&x, kind, what, status) &&
			    draft_consider(&l->d, &x, &l->c))
				grants += check_grant(l);
			free(kind);
			free(what);
			free(status);
		}
	}
	if (l->c.allow_network)
		draft_hosts(&l->d, &doc);
	json_free(&doc);
	free(tail);
	return grants;
}

/* --- the rounds --- */

/* The round's draft in DIR/round-N.json, 0600; its hash into HASH. */
static void round_write(struct learn *l, const char *dir, unsigned long n, char *path,
                        size_t pathlen, char hash[HASH_TEXT_LEN + 1])
{
	unsigned char digest[HASH_LEN];
	char err[256];
	struct json_doc doc;
	size_t len;
	char *text = draft_text(&l->d.p, &len);
	int fd;

	snprintf(path, pathlen, "%s/round-%lu.json", dir, n);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || write_all(fd, text, len) < 0 || close(fd) < 0)
		die(EXIT_REFUSED, "unable to write %s", qn(path));
	if (!json_parse(&doc, text, len, err, sizeof err) || !hash_doc(&doc, digest))
		diex(EXIT_REFUSED, "refused: the draft does not parse: %s", err);
	hash_format(digest, hash);
	json_free(&doc);
	free(text);
}

/* -o's directory, opened once before the first round: every round runs
 * the command, which may swap the directory's name for a symlink; the
 * draft is written through this descriptor alone (draft_save). */
static void open_out(struct learn *l)
{
	char path[PATH_MAX], why[2 * QUOTED_MAX + 128], *slash;

	if (snprintf(path, sizeof path, "%s%s%s", l->out[0] == '/' ? "" : l->c.cwd,
	             l->out[0] == '/' ? "" : "/", l->out) >= (int)sizeof path)
		diex(EXIT_REFUSED, "refused: -o %s: name too long", qn(l->out));
	slash = strrchr(path, '/');
	if (strlen(slash + 1) > NAME_MAX)
		diex(EXIT_REFUSED, "refused: -o %s: name too long", qn(l->out));
	strcpy(l->outname, slash + 1);
	if (!*l->outname || !strcmp(l->outname, ".") || !strcmp(l->outname, ".."))
		diex(EXIT_REFUSED, "refused: -o %s names no file", qn(l->out));
	*(slash == path ? slash + 1 : slash) = '\0';
	if ((l->outdir = open_trusted_dir(path, 1, l->outpath, why, sizeof why)) < 0)
		diex(EXIT_REFUSED, "refused: -o %s: %s", qn(l->out), why);
}

/* The draft to -o, once the last round is over: a new file in -o's
 * directory, renamed over the name, only when the directory's name still
 * leads to it (replace_at): a symlink at -o is replaced, never followed,
 * and a directory swapped by the command gets nothing. */
static void draft_save(struct learn *l, char hash[HASH_TEXT_LEN + 1])
{
	unsigned char digest[HASH_LEN];
	char err[256];
	struct json_doc doc;
	size_t len;
	char *text = draft_text(&l->d.p, &len);

	if (replace_at(l->outdir, l->outpath, l->outname, 0644, text, len) < 0) {
		int e = errno;
		free(text);	/* die exits: the leak checker of the sanitizer build */
		die_hint(EXIT_REFUSED, 0, e == ESTALE ? "the command moved or replaced a "
		         "directory on the way: look at what else it changed" : NULL,
		         "unable to write %s: %s; no draft written", qn(l->out), e ==
		         ESTALE ? "its directory was moved during the rounds" : strerror(e));
	}
	if (!json_parse(&doc, text, len, err, sizeof err) || !hash_doc(&doc, digest))
		diex(EXIT_REFUSED, "refused: the draft does not parse: %s", err);
	hash_format(digest, hash);
	json_free(&doc);
	free(text);
}

static void rmround(const char *dir, unsigned long n)
{
	char path[PATH_MAX];

	for (unsigned long i = 1; i <= n; i++) {
		snprintf(path, sizeof path, "%s/round-%lu.json", dir, i);
		unlink(path);
	}
	rmdir(dir);
}

static void status_text(int status, char *out, size_t len)
{
	if (WIFSIGNALED(status))
		snprintf(out, len, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(out, len, "exit %d", WEXITSTATUS(status));
}

static int rounds(struct learn *l)
{
	char dir[] = "/tmp/sharness-exec-learn.XXXXXX", path[PATH_MAX], st[48];
	char hash[HASH_TEXT_LEN + 1], outcome[32];
	unsigned long n = 0;
	size_t grants = 1, len;
	int status = 0;
	char *report;
	struct timespec t0, t1;

	if (!mkdtemp(dir))
		die(EXIT_REFUSED, "unable to make a directory in /tmp");
	fprintf(stderr, "%s: learn: each round runs the command again, side effects and all\n",
	        progname);
	while (grants && n < l->rounds) {
		round_write(l, dir, ++n, path, sizeof path, hash);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		report = round_run(l, path, hash, &status, &len);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		grants = round_learn(l, report, len, outcome, sizeof outcome);
		free(report);
		status_text(status, st, sizeof st);
		/* Each round reruns the command: its time is what a round costs. */
		fprintf(stderr, "%s: learn: round %lu: %s (%s), %zu added, %.1f s\n", progname, n,
		        st, *outcome ? outcome : "no outcome", grants,
		        (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
		if (!strcmp(outcome, "refused") || !strcmp(outcome, "could_not_confine")) {
			rmround(dir, n);
			diex(EXIT_REFUSED, "refused: round %lu could not run the command confined "
			     "(%s): see its lines above. No draft written.", n, outcome);
		}
	}
	rmround(dir, n);
	draft_save(l, hash);
	printf("%s %s\n", qn(l->out), hash);
	for (size_t i = 0; i < l->d.nadd; i++) {
		struct addition *a = &l->d.add[i];
		printf("%s %s %s: %s\n", a->granted ? "added" : "suggest", a->key, q(a->value),
		       a->why);
	}
	if (l->d.p.env_private && path_beneath(l->d.p.env_private, l->c.cwd))
		printf("note: HOME is %s (env.private), inside the working directory, and the "
		       "command may write it; move env.private to keep HOME out\n",
		       q(l->d.p.env_private));
	if (grants)
		printf("note: the round limit (%lu) was reached with more to add\n", l->rounds);
	printf("note: the last round ended with %s; review the draft before pinning it\n", st);
	draft_free(&l->d);
	return fflush(stdout) ? EXIT_REFUSED : 0;
}

/* The cwd is granted: never /, the caller's home, or above it. */
static void check_cwd(struct learn *l)
{
	static char cwd[PATH_MAX], home[PATH_MAX];
	const char *envhome = getenv("HOME");
	FILE *f = fopen("/etc/passwd", "re");
	const struct passwd *pw;

	/* The file, not NSS, which a static program cannot load (runuser.c). */
	while (f && (pw = fgetpwent(f)))
		if (pw->pw_uid == getuid()) {
			snprintf(home, sizeof home, "%s", pw->pw_dir);
			break;
		}
	if (f)
		fclose(f);

	if (!getcwd(cwd, sizeof cwd))
		die(EXIT_REFUSED, "unable to find the working directory");
	l->c.cwd = cwd;
	l->c.home = *home == '/' ? home : "/root";
	l->c.envhome = envhome && *envhome == '/' ? envhome : NULL;
	if (!strcmp(cwd, "/") || path_beneath(l->c.home, cwd) ||
	    (envhome && *envhome == '/' && path_beneath(envhome, cwd)))
		die_hint(EXIT_REFUSED, 0, "run learn in the project's own directory",
		         "refused: learn may grant the working directory's whole subtree, "
		         "and %s is %s", qn(cwd),
		         strcmp(cwd, "/") ? "the caller's home or above it" : "the root");
}

static char **parse(struct learn *l, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "base", required_argument, NULL, 'B' },
		{ "rounds", required_argument, NULL, 'R' },
		{ "allow-network", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	char *end;
	int c;

	l->rounds = 5;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': l->out = optarg; break;
		case 'B': l->base = optarg; break;
		case 'N': l->c.allow_network = 1; break;
		case 'R':
			errno = 0;
			l->rounds = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || l->rounds < 1 || l->rounds > ROUNDS_MAX)
				usage_fail(LEARN_USAGE, "--rounds %s: not a number from 1 to %d",
				           qn(optarg), ROUNDS_MAX);
			break;
		case 'h':
			printf("usage: %s\n", LEARN_USAGE);
			exit(0);
		default:
			usage_option(LEARN_USAGE, c, argv[optind - 1]);
		}
	}
	if (!l->out)
		usage_fail(LEARN_USAGE, "learn needs -o DRAFT");
	if (optind >= argc)
		usage_fail(LEARN_USAGE, "learn needs a COMMAND after --");
	return argv + optind;
}

/* Check mode (-t): what learn would start from, one line on stdout, and
 * no round run. */
static int check_mode(struct learn *l)
{
	printf("sharness-exec-learn: draft=%s/%s base=%s rounds=%lu network=%s\n",
	       strcmp(l->outpath, "/") ? l->outpath : "", qn(l->outname),
	       l->base ? qn(l->base) : "default", l->rounds,
	       l->c.allow_network ? "may-open" : "as-base");
	draft_free(&l->d);
	return fflush(stdout) ? EXIT_REFUSED : 0;
}

/* sharness-exec-learn -F FD ARGS..., FD the front end that execs it,
 * to run again round by round; ARGS are `sharness-exec learn`'s. With -t
 * instead, the checks before the first round, and no round. */
int main(int argc, char **argv)
{
	struct learn l = { .frontend = -1 };
	unsigned long fd;
	int test = argc > 1 && !strcmp(argv[1], "-t");
	char *end;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: %s\n", USAGE);
		return fflush(stdout) ? EXIT_REFUSED : 0;
	}
	argc -= test;
	argv += test;
	if (!test && argc > 2 && !strcmp(argv[1], "-F")) {
		errno = 0;
		fd = strtoul(argv[2], &end, 10);
		if (errno || *end || fd < 3 || fd > 1024 || fcntl((int)fd, F_SETFD, FD_CLOEXEC) < 0)
			usage_fail(LEARN_USAGE, "unable to use -F %s: not a descriptor above 2",
			           qn(argv[2]));
		l.frontend = (int)fd;
		argc -= 2;
		argv += 2;
	}
	if (l.frontend < 0 && !test)
		usage_fail(LEARN_USAGE, "run me as sharness-exec learn");
	l.cmd = parse(&l, argc, argv);
	check_cwd(&l);
	open_out(&l);
	draft_start(&l);
	return test ? check_mode(&l) : rounds(&l);
}
