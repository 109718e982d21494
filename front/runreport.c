/* run --report, the front end's part (runreport.h). FILE's directory is
 * opened before any namespace exists, so that the owners the trust rules
 * read are true ones (open_trusted_dir: trusted and not writable by
 * others, every directory on the way too, a symlink followed only when an
 * earlier run could not have planted it). FILE itself is written by name
 * only when the run is over, by the supervisor, through that descriptor
 * (replace_at): a new file renamed over the name, so that nothing the
 * target left there, nor a rename of the directory, is what the caller
 * reads. What is at the name now must be nothing, or a regular file of
 * the caller's, which the report replaces (125 otherwise). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "frontend.h"
#include "runreport.h"
#include "runsession.h"
#include "trust.h"

static struct {
	int fd, rfd, wfd;          /* fd:N; the status pipe's ends */
	int xfd;                   /* --explain's denials, a memfd; -1 none */
	int erfd, ewfd;            /* network.hosts: the egress server's lines */
	int dfd;                   /* FILE's directory, -1: fd:N */
	char dir[PATH_MAX];        /* its name (symlink-free), */
	char *base;                /* and FILE's in it */
	int dry;
	const char *id, *hash, *key;
	const char *fatal;         /* the front end's own fatal line */
	int code;                  /* the status it exits with; 0: none yet */
	char *warnings[16];        /* and its first warnings */
	size_t nwarnings;
} rr = { .fd = -1, .rfd = -1, .wfd = -1, .xfd = -1, .erfd = -1, .ewfd = -1, .dfd = -1 };

/* FD moved to the lowest number above 2 (the caller may have left 0-2
 * closed: the target would find it there), close-on-exec. */
static int above2(int fd, const char *what)
{
	int nfd;

	if (fd < 0 || fd > 2)
		return fd;
	if ((nfd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0)
		die(EXIT_REFUSED, "unable to move %s above descriptor 2", what);
	close(fd);
	return nfd;
}

/* fd:N: an inherited descriptor, open for writing, above 2. */
static void take_fd(const char *arg)
{
	unsigned long n = 0;
	char *end = NULL;
	int fl;

	errno = 0;
	if (arg[3] >= '1' && arg[3] <= '9')
		n = strtoul(arg + 3, &end, 10);
	if (!end || *end || errno || n < 3 || n > 1 << 20)
		usage_fail(RUN_USAGE, "--report fd:N needs a descriptor above 2, not %s", q(arg));
	close_inherited((int)n);
	fl = fcntl((int)n, F_GETFL);
	if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY)
		usage_fail(RUN_USAGE, "--report %s: descriptor %lu is not open for writing", arg, n);
	if (fcntl((int)n, F_SETFD, FD_CLOEXEC) < 0)
		die(EXIT_REFUSED, "--report %s: unable to keep descriptor %lu to the supervisor",
		    arg, n);
	rr.fd = (int)n;
}

/* FILE: its directory opened (open_trusted_dir, the rule paths' symlink
 * rule), and whatever is at its name looked at: nothing, or a regular
 * file of the caller's, which the report will replace. */
static void open_file(const char *arg)
{
	char path[PATH_MAX], why[2 * QUOTED_MAX + 128], *slash;
	struct stat st;
	int n;

	if (arg[0] != '/' && (!getcwd(rr.dir, sizeof rr.dir) ||
	                      snprintf(path, sizeof path, "%s/%s", rr.dir, arg) >= PATH_MAX))
		die(EXIT_REFUSED, "--report %s: unable to make it an absolute path", q(arg));
	if (arg[0] == '/' && snprintf(path, sizeof path, "%s", arg) >= PATH_MAX)
		diex(EXIT_REFUSED, "--report %s: the path is too long", q(arg));
	slash = strrchr(path, '/');
	rr.base = strdup(slash + 1);
	if (!rr.base || !*rr.base || !strcmp(rr.base, ".") || !strcmp(rr.base, ".."))
		diex(EXIT_REFUSED, "--report %s: FILE must name a file", q(arg));
	*(slash == path ? slash + 1 : slash) = '\0';
	if ((rr.dfd = open_trusted_dir(path, 1, rr.dir, why, sizeof why)) < 0)
		diex(EXIT_REFUSED, "refused: --report %s: %s", q(arg), why);
	rr.dfd = above2(rr.dfd, "the report's directory");
	if ((n = fstatat(rr.dfd, rr.base, &st, AT_SYMLINK_NOFOLLOW)) < 0 && errno != ENOENT)
		die(EXIT_REFUSED, "--report %s: unable to look at it", q(arg));
	if (n == 0 && (!S_ISREG(st.st_mode) || st.st_uid != getuid()))
		diex(EXIT_REFUSED, "refused: --report %s is %s: a report replaces only a regular "
		     "file of the caller's", q(arg), S_ISLNK(st.st_mode) ? "a symlink" :
		     !S_ISREG(st.st_mode) ? "not a regular file" : "another user's file");
	/* The last report goes now: a run killed early leaves none, not it */
	if (n == 0 && !rr.dry && unlinkat(rr.dfd, rr.base, 0) < 0)
		die(EXIT_REFUSED, "--report %s: unable to remove the last report", q(arg));
}

static void put_bytes(void *f, const char *s, size_t n)
{
	fwrite(s, 1, n, f);
}

static void put_str(FILE *f, const char *s)
{
	if (s)
		json_quote(put_bytes, f, s, strlen(s));
	else
		fputs("null", f);
}

/* The refusal's report, as the front end exits before any step ran: the
 * fields of report_write (report.h), all null but these. */
/* At exit (atexit: musl has no on_exit), with the status of the refusal:
 * a fatal line's, or report_refused's. */
static void front_exit(void)
{
	int status = rr.code;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if ((rr.fd < 0 && rr.dfd < 0) || rr.dry || status == 0 ||
	    !(f = open_memstream(&buf, &len)))
		return;
	signal(SIGPIPE, SIG_IGN); /* fd:N's reader gone: the status stays ours */
	fputs("{\"report\":1,\"policy\":", f);
	if (rr.id) {
		fputs("{\"id\":", f);
		put_str(f, rr.id);
		fputs(",\"hash\":", f);
		put_str(f, rr.hash);
		fputs(",\"key\":", f);
		put_str(f, rr.key);
		fputc('}', f);
	} else {
		fputs("null", f);
	}
	fprintf(f, ",\"outcome\":\"%s\",\"wrapper_status\":{\"exit_code\":%d},\"target\":null,"
	        "\"fatal\":", status == EXIT_REFUSED ? "refused" : status == EXIT_NOTFOUND ?
	        "not_found" : "could_not_confine", status);
	put_str(f, rr.fatal);
	fputs(",\"walls\":null,\"dropped\":[],\"memory\":null,\"pids\":null,\"cpu\":null,"
	      "\"timeout\":null,\"wall_s\":null,\"warnings\":[", f);
	for (size_t i = 0; i < rr.nwarnings; i++) {
		if (i)
			fputc(',', f);
		put_str(f, rr.warnings[i]);
	}
	fputs("],\"env_dropped\":null,\"egress\":null,\"denials\":null,"
	      "\"write_paths\":null}\n", f);
	if (fclose(f) != 0 || (rr.dfd >= 0 ? replace_at(rr.dfd, NULL, rr.base, 0, buf, len) :
	                       write_all(rr.fd, buf, len)) < 0)
		fprintf(stderr, "%s: warning: unable to write the report: %s\n", progname,
		        strerror(errno));
	free(buf);
}

static void front_line(int code, const char *line)
{
	if (code && !rr.fatal) {
		rr.fatal = strdup(line);
		rr.code = code;
	}
	else if (!code && rr.nwarnings < sizeof rr.warnings / sizeof *rr.warnings)
		rr.nwarnings += (rr.warnings[rr.nwarnings] = strdup(line)) != NULL;
}

void report_start(const char *arg, int dry_run)
{
	if (!arg) {
		close_inherited(-1);
		return;
	}
	rr.dry = dry_run;
	if (!strncmp(arg, "fd:", 3)) {
		take_fd(arg);
	} else {
		close_inherited(-1);
		open_file(arg);
	}
	msg_hook = front_line;
	if (atexit(front_exit) != 0)
		diex(EXIT_REFUSED, "unable to arrange the report of a refusal");
}

void report_refused(int code)
{
	rr.code = code;
}

void report_policy(const char *id, const char *hash)
{
	rr.id = id;
	rr.hash = hash;
}

void report_chain(const char *key, int hosts)
{
	int p[2];

	rr.key = key;
	if (rr.fd < 0 && rr.dfd < 0)
		return;
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
		die(EXIT_REFUSED, "unable to make the status pipe");
	rr.rfd = above2(p[0], "the status pipe");
	rr.wfd = above2(p[1], "the status pipe");
	/* --explain's list: the explain step writes it here as its child
	 * ends (-D), and the supervisor reads it into the report (-D). */
	if (run_explain && (rr.xfd = above2(memfd_create("sharness-exec-denials", MFD_CLOEXEC),
	                                    "the denials memfd")) < 0)
		die(EXIT_REFUSED, "unable to create a memfd for the report's denials");
	/* network.hosts: the egress server writes its lines here
	 * (--to-report), and the supervisor reads them as they come
	 * (--egress-in): blocking, so that none is lost. */
	if (hosts) {
		if (pipe2(p, O_CLOEXEC) < 0)
			die(EXIT_REFUSED, "unable to make the egress step's pipe");
		rr.erfd = above2(p[0], "the egress step's pipe");
		rr.ewfd = above2(p[1], "the egress step's pipe");
	}
}

void report_push_egress(struct vec *chain)
{
	if (rr.ewfd >= 0)
		push_opt(chain, "--to-report", "%d", rr.ewfd);
}

void report_env(const struct vec *env)
{
	extern char **environ;
	char *buf = NULL;
	size_t len = 0, n, i;
	long cap = fcntl(rr.wfd, F_GETPIPE_SZ) / 4; /* the steps' lines come after */
	FILE *f;

	if (rr.wfd < 0 || rr.dry || !(f = open_memstream(&buf, &len)))
		return;
	for (char **e = environ; *e && ftell(f) < cap - NAME_MAX; e++) {
		n = strcspn(*e, "=\n");
		for (i = 0; i < env->n && (strncmp(env->v[i], *e, n) || env->v[i][n] != '='); i++)
			;
		if (i == env->n && (*e)[n] == '=')
			fprintf(f, "@env %.*s\n", (int)n, *e);
	}
	if (fclose(f) == 0)
		write_all(rr.wfd, buf, len);
	free(buf);
}

void report_push(struct vec *chain)
{
	if (rr.wfd >= 0)
		push_opt(chain, "-E", "%d", rr.wfd);
}

void report_push_supervise(struct vec *chain)
{
	if (rr.fd < 0 && rr.dfd < 0)
		return;
	push_opt(chain, "-O", "%d", rr.dfd >= 0 ? rr.dfd : rr.fd);
	if (rr.dfd >= 0)
		push_opt(chain, "--report-path", "%s%s%s", rr.dir, strcmp(rr.dir, "/") ? "/" : "", rr.base);
	push_opt(chain, "--status-in", "%d", rr.rfd);
	if (rr.erfd >= 0)
		push_opt(chain, "--egress-in", "%d", rr.erfd);
	report_push_explain(chain);
	push_opt(chain, "--policy-id", "%s", rr.id);
	push_opt(chain, "--policy-hash", "%s", rr.hash);
	if (rr.key)
		push_opt(chain, "--policy-key", "%s", rr.key);
}

int report_top(void)
{
	int fds[] = { rr.fd, rr.rfd, rr.wfd, rr.dfd, rr.xfd, rr.erfd, rr.ewfd }, top = -1;

	for (size_t i = 0; i < sizeof fds / sizeof *fds; i++)
		top = fds[i] > top ? fds[i] : top;
	return top;
}

void report_push_explain(struct vec *chain)
{
	if (rr.xfd >= 0)
		push_opt(chain, "-D", "%d", rr.xfd);
}

int report_pass(void)
{
	int fds[] = { rr.fd, rr.rfd, rr.wfd, rr.dfd, rr.xfd, rr.erfd, rr.ewfd };

	for (size_t i = 0; i < sizeof fds / sizeof *fds; i++)
		if (fds[i] >= 0 && fcntl(fds[i], F_SETFD, 0) < 0)
			return -1;
	return 0;
}
