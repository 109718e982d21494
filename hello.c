/* sharness-exec hello: the self-test. Writes a fixed, published policy into
 * a private temp dir and runs six probes through the real command line
 * (this very program, `run --policy --expect-hash -- ...`), each checked
 * from outside, then one run with a wrong hash that must be refused before
 * anything runs. Prints a table, the caveats of this machine, removes its
 * files. Exit 0 when every expectation held, 1 otherwise, 125 when hello
 * itself cannot set up. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <unistd.h>

#include "common.h"
#include "frontend.h"
#include "machine.h"

#define HELLO_USAGE "sharness-exec hello"

/* Published (README, web page, sharness-exec-policy(5)): change neither. */
#define HELLO_POLICY "{\"pbp\":1,\"id\":\"sharness-exec-hello\",\"files\":{\"read\":[\"/etc\"]," \
	"\"write\":[],\"exec\":[\"/bin\",\"/lib\",\"/lib64\",\"/sbin\",\"/usr\"]}," \
	"\"network\":\"none\",\"process\":{\"no_new_privs\":true,\"max_memory_mb\":256}}"
#define HELLO_HASH "sha256:ce63861acaca388d965240fe54c656b9b3e8902d9a1d73731a6fc04b2ba8253f"
#define WRONG_HASH "sha256:0000000000000000000000000000000000000000000000000000000000000000"

/* Each target announces itself on stderr first, so a refusal is told apart
 * from a chain that never got as far as the target. */
#define MARKER "sharness-exec hello: probe started"
#define SAY_STARTED "echo '" MARKER "' >&2; "
#define TIMEOUT 30 /* seconds; a hung probe is killed and counts as not held */
#define CAPTURE_MAX 65536

static char tmpdir[PATH_MAX], policy_copy[PATH_MAX + 16];
static char out_path[PATH_MAX + 16], err_path[PATH_MAX + 16];
static const char *policy_file;
static char hash[HASH_TEXT_LEN + 1];
static int held, probes;
static unsigned long cap_mb;
/* Caveats learnt while probing, printed with those of the machine. */
static char notes[2][200];
static int nnotes;

static void cleanup(void)
{
	if (*out_path)
		unlink(out_path);
	if (*err_path)
		unlink(err_path);
	if (*policy_copy)
		unlink(policy_copy);
	if (*tmpdir)
		rmdir(tmpdir);
}

/* Interrupted: remove the temp dir all the same (unlink and rmdir are
 * async-signal-safe), then die of the same signal. */
static void on_fatal(int sig)
{
	cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* --- running the chain --- */

struct result {
	int status;          /* from waitpid; valid when !timed_out */
	int timed_out;
	int ran;             /* the target printed MARKER */
	char *out;           /* its stdout (when captured) */
	size_t outlen;
	char detail[160];    /* the last line of stderr after MARKER, or before */
};

static volatile sig_atomic_t alarmed;

static void on_alarm(int sig)
{
	(void)sig;
	alarmed = 1;
}

static char *slurp(int fd, size_t *len)
{
	char *buf = malloc(CAPTURE_MAX + 1);
	ssize_t n;

	*len = 0;
	if (!buf)
		diex(EXIT_REFUSED, "out of memory");
	while (*len < CAPTURE_MAX &&
	       (n = pread(fd, buf + *len, CAPTURE_MAX - *len, (off_t)*len)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			die(EXIT_REFUSED, "unable to read a probe's output");
		}
		*len += (size_t)n;
	}
	buf[*len] = '\0';
	return buf;
}

/* The last non-empty line of TEXT, on one line, shortened. */
static void last_line(const char *text, char *dst, size_t size)
{
	const char *end = text + strlen(text), *start;

	while (end > text && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	for (start = end; start > text && start[-1] != '\n'; start--)
		;
	snprintf(dst, size, "%.*s", (int)(end - start), start);
}

static int capture_file(char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);

	if (fd < 0)
		die(EXIT_REFUSED, "unable to create %s", path);
	return fd;
}

/* Run `THIS run --policy P --expect-hash H -- TARGET...` with stdin IN and
 * stdout OUT (-1: a capture file), stderr captured, and wait for it. */
static void chain(const char *want, int in, int out, const char *const target[],
                  struct result *r)
{
	const char *argv[32] = { "sharness-exec", "run", "--policy", policy_file,
	                         "--expect-hash", want, "--" };
	struct sigaction sa;
	size_t n = 7, len;
	int ofd = out < 0 ? capture_file(out_path) : out;
	int efd = capture_file(err_path);
	char *err, *after;
	pid_t pid;

	for (; *target && n < 31; target++)
		argv[n++] = *target;
	argv[n] = NULL;
	memset(r, 0, sizeof *r);

	pid = fork();
	if (pid < 0)
		die(EXIT_REFUSED, "unable to fork");
	if (pid == 0) {
		if (dup2(in, 0) < 0 || dup2(ofd, 1) < 0 || dup2(efd, 2) < 0)
			_exit(EXIT_CONFINE);
		execv("/proc/self/exe", (char *const *)argv);
		_exit(errno == ENOENT ? EXIT_NOTFOUND : EXIT_CONFINE);
	}

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm; /* no SA_RESTART: waitpid must see EINTR */
	sigaction(SIGALRM, &sa, NULL);
	alarmed = 0;
	alarm(TIMEOUT);
	while (waitpid(pid, &r->status, 0) < 0) {
		if (errno != EINTR)
			die(EXIT_REFUSED, "unable to wait for a probe");
		if (alarmed && !r->timed_out) {
			/* The chain's children die with it (PR_SET_PDEATHSIG). */
			kill(pid, SIGKILL);
			r->timed_out = 1;
		}
	}
	alarm(0);

	if (out < 0) {
		r->out = slurp(ofd, &r->outlen);
		close(ofd);
	}
	err = slurp(efd, &len);
	close(efd);
	after = strstr(err, MARKER "\n");
	r->ran = after && (after == err || after[-1] == '\n');
	last_line(r->ran ? after + strlen(MARKER) + 1 : err, r->detail, sizeof r->detail);
	free(err);
}

/* "exit 2", "killed by SIGKILL", "timed out" */
static const char *how(const struct result *r)
{
	static char buf[64];

	if (r->timed_out)
		snprintf(buf, sizeof buf, "timed out after %d s", TIMEOUT);
	else if (WIFSIGNALED(r->status))
		snprintf(buf, sizeof buf, "killed by signal %d, %s", WTERMSIG(r->status),
		         strsignal(WTERMSIG(r->status)));
	else
		snprintf(buf, sizeof buf, "exit %d", WEXITSTATUS(r->status));
	return buf;
}

static int failed(const struct result *r)
{
	return r->timed_out || !WIFEXITED(r->status) || WEXITSTATUS(r->status) != 0;
}

static void row(const char *probe, const char *expected, int ok, const char *fmt, ...)
	PRINTF(4, 5);
static void row(const char *probe, const char *expected, int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%-32s %-9s %-9s", probe, expected, ok ? "held" : "NOT held");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* The chain never reached the target: say how it stopped, in its words. */
static void not_run(const char *probe, const char *expected, const struct result *r)
{
	row(probe, expected, 0, "did not run: sharness-exec %s: %s", how(r),
	    *r->detail ? r->detail : "(no message)");
}

static const char *program(const char *name)
{
	static char buf[4][32];
	static int next;
	char *p = buf[next++ % 4];

	snprintf(p, sizeof buf[0], "/usr/bin/%s", name);
	if (access(p, X_OK) == 0)
		return p;
	snprintf(p, sizeof buf[0], "/bin/%s", name);
	return access(p, X_OK) == 0 ? p : NULL;
}

static int open_or_die(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC);

	if (fd < 0)
		die(EXIT_REFUSED, "unable to open %s", path);
	return fd;
}

/* --- the six probes --- */

static void probe_read(int null_in)
{
	const char *file = access("/etc/os-release", R_OK) == 0 ? "/etc/os-release" : "/etc/passwd";
	const char *target[] = { program("sh"), "-c", SAY_STARTED "exec cat \"$1\"", "sh", file, NULL };
	char label[64], *outside;
	struct result r;
	size_t len;
	int fd;

	snprintf(label, sizeof label, "read %s", file);
	fd = open_or_die(file, O_RDONLY);
	outside = slurp(fd, &len);
	close(fd);
	chain(hash, null_in, -1, target, &r);
	if (!r.ran)
		not_run(label, "allowed", &r);
	else if (!failed(&r) && r.outlen == len && !memcmp(r.out, outside, len) && len)
		row(label, "allowed", ++held, "allowed: cat printed the same %zu bytes hello reads", len);
	else
		row(label, "allowed", 0, "refused (%s): %s", how(&r), r.detail);
	free(outside);
	free(r.out);
}

/* Create a file in DIR from inside; held when that fails and no file
 * appears. A refusal only means something where the caller could write
 * unconfined: otherwise hello's own temp dir (which it can) stands in. */
static void probe_write(int null_in, const char *label, const char *dir, const char *what,
                        const char *tag)
{
	const char *target[] = { program("sh"), "-c", SAY_STARTED "echo x >\"$1\"", "sh", NULL, NULL };
	char path[PATH_MAX + 64];
	struct result r;
	struct stat st;

	if (access(dir, W_OK | X_OK) < 0) {
		snprintf(notes[nnotes++], sizeof notes[0], "%s is not writable by you even "
		         "unconfined, so a refusal there would prove nothing: hello's temp "
		         "dir stood in", what);
		label = "write in hello's temp dir";
		dir = tmpdir;
	}
	snprintf(path, sizeof path, "%s/sharness-exec-hello.%ld.%s.%s", strcmp(dir, "/") ? dir : "",
	         (long)getpid(), tmpdir + strlen(tmpdir) - 6, tag);
	if (lstat(path, &st) == 0 || errno != ENOENT)
		diex(EXIT_REFUSED, "%s exists already: remove it and try again", path);
	target[4] = path;
	chain(hash, null_in, -1, target, &r);
	if (lstat(path, &st) == 0) {
		if (S_ISREG(st.st_mode))
			unlink(path);
		row(label, "refused", 0, "the file %s was created (%s)", path, how(&r));
	} else if (!r.ran) {
		not_run(label, "refused", &r);
	} else if (!failed(&r)) {
		row(label, "refused", 0, "sh reported success (%s) yet no file appeared", how(&r));
	} else {
		row(label, "refused", ++held, "refused (%s), no file appeared: %s", how(&r), r.detail);
	}
	free(r.out);
}

static void probe_tcp(int null_in)
{
	const char *target[] = { program("bash"), "-c",
		SAY_STARTED "exec 3<>/dev/tcp/127.0.0.1/$1 && echo connected", "bash", NULL, NULL };
	struct sockaddr_in sa;
	socklen_t salen = sizeof sa;
	char label[64], port[8];
	struct result r;
	int fd, got;

	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, 8) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &salen) < 0) {
		row("TCP to 127.0.0.1", "refused", 0, "could not test: no listener on 127.0.0.1: %s",
		    strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	snprintf(port, sizeof port, "%u", (unsigned)ntohs(sa.sin_port));
	snprintf(label, sizeof label, "TCP to 127.0.0.1:%s", port);
	if (!target[0]) {
		row(label, "refused", 0, "could not test: no bash in /usr/bin or /bin");
		close(fd);
		return;
	}
	target[4] = port;
	chain(hash, null_in, -1, target, &r);
	got = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
	if (got >= 0) {
		row(label, "refused", 0, "hello's listener accepted a connection (%s)", how(&r));
		close(got);
	} else if (errno != EAGAIN && errno != EWOULDBLOCK) {
		row(label, "refused", 0, "could not check the listener: %s", strerror(errno));
	} else if (!r.ran) {
		not_run(label, "refused", &r);
	} else if (!failed(&r) || strstr(r.out, "connected")) {
		row(label, "refused", 0, "bash reported a connection (%s)", how(&r));
	} else {
		row(label, "refused", ++held, "refused (%s), listener accepted nothing: %s",
		    how(&r), r.detail);
	}
	close(fd);
	free(r.out);
}

/* "network": "none" leaves the run a loopback of its own: a server and a
 * client inside it, one TCP round trip on 127.0.0.1, as a test suite that
 * starts its own server does. Perl (perl-base is Essential on Debian) does
 * it: hello's policy grants exec beneath /usr and nothing outside it. */
#define LOCAL_SERVER "use IO::Socket::INET; " \
	"my $s = IO::Socket::INET->new(Listen => 1, LocalAddr => '127.0.0.1', " \
	"LocalPort => 0, Proto => 'tcp') or die \"listen: $!\\n\"; " \
	"my $c = IO::Socket::INET->new(PeerAddr => '127.0.0.1', " \
	"PeerPort => $s->sockport, Proto => 'tcp') or die \"connect: $!\\n\"; " \
	"my $a = $s->accept or die \"accept: $!\\n\"; " \
	"print $c \"ping\\n\"; my $got = <$a>; print $a \"pong\\n\"; my $back = <$c>; " \
	"print $got, $back;"

static void probe_local_server(int null_in)
{
	const char *label = "a local server works";
	/* The script on a pipe: `perl -e` would open /dev/null, which the
	 * policy does not grant. */
	const char *target[] = { program("sh"), "-c", SAY_STARTED "printf '%s' \"$1\" | \"$0\"",
		program("perl"), LOCAL_SERVER, NULL };
	struct result r;

	if (!target[3]) {
		row(label, "allowed", 0, "could not test: no perl in /usr/bin or /bin");
		return;
	}
	chain(hash, null_in, -1, target, &r);
	if (!r.ran)
		not_run(label, "allowed", &r);
	else if (!failed(&r) && !strcmp(r.out, "ping\npong\n"))
		row(label, "allowed", ++held, "allowed: a server and a client on 127.0.0.1 "
		    "inside exchanged a line each way");
	else
		row(label, "allowed", 0, "refused (%s): %s", how(&r), r.detail);
	free(r.out);
}

/* /dev/zero and /dev/null are opened here, outside: the policy grants
 * neither, and the probe is about memory, not files. */
static void probe_memory(void)
{
	const char *target[] = { program("sh"), "-c",
		SAY_STARTED "exec dd bs=512M count=1 status=none", "sh", NULL };
	int zero = open_or_die("/dev/zero", O_RDONLY), null = open_or_die("/dev/null", O_WRONLY);
	char label[64];
	struct result r;

	if (cap_mb)
		snprintf(label, sizeof label, "allocate 512 MiB (cap %lu MiB)", cap_mb);
	else
		snprintf(label, sizeof label, "allocate 512 MiB (no cap!)");
	chain(hash, zero, null, target, &r);
	if (!r.ran)
		not_run(label, "refused", &r);
	else if (!failed(&r))
		row(label, "refused", 0, "dd read 512 MiB and exited 0");
	else
		row(label, "refused", ++held, "refused (%s)%s%s", how(&r),
		    *r.detail ? ": " : "", r.detail);
	close(zero);
	close(null);
}

/* Must be refused (125) before the target runs: it would print to stdout. */
static int probe_wrong_hash(int null_in)
{
	const char *target[] = { program("sh"), "-c", "echo ran", NULL };
	struct result r;
	int ok;

	chain(WRONG_HASH, null_in, -1, target, &r);
	ok = !r.timed_out && WIFEXITED(r.status) && WEXITSTATUS(r.status) == EXIT_REFUSED &&
	     r.outlen == 0;
	if (ok)
		row("wrong --expect-hash", "refused", 1, "refused (exit 125) before running: "
		    "the target printed nothing");
	else
		row("wrong --expect-hash", "refused", 0, "%s, stdout %s", how(&r),
		    r.outlen ? "not empty: the target ran" : "empty");
	free(r.out);
	return ok;
}

/* --- caveats, from the facts `probe` reports --- */

static void caveats(const struct machine *m)
{
	int n = 0;

	printf("caveats:\n");
	for (int i = 0; i < nnotes; i++)
		n++, printf("  - %s\n", notes[i]);
	if (m->landlock_abi > 0 && m->landlock_abi < 6)
		n++, printf("  - Landlock ABI %d < 6: the target can still signal your other "
		            "processes (no scoping)\n", m->landlock_abi);
	if (m->netns == NETNS_NO)
		n++, printf("  - no network namespace (%s), so the network is cut by the seccomp "
		            "filter: TCP and UDP sockets alike are refused, so loopback is "
		            "unavailable and no local server works; AF_UNIX stays open\n",
		            errno_name(m->netns_err));
	else if (m->netns == NETNS_USERNS)
		n++, printf("  - the network namespace is made inside a user namespace (you are "
		            "not root); the target keeps your uid\n");
	if (m->memory == CAP_BY_RLIMIT)
		n++, printf("  - no writable cgroup with the memory controller, so memory is "
		            "capped by RLIMIT_AS: address space per process, not a total\n");
	if (m->seccomp == 2)
		n++, printf("  - hello itself runs under a seccomp filter (a container?): some "
		            "results may be that filter's, not sharness-exec's\n");
	if (m->nproxies) {
		printf("  - proxy variables are set (");
		for (size_t i = 0; i < m->nproxies; i++)
			printf("%s%s", i ? " " : "", m->proxies[i]);
		printf("): the target does not inherit them unless env.inherit names them\n");
		n++;
	}
	if (!n)
		printf("  none\n");
}

static void landlock_missing(const struct machine *m)
{
	static const char *const why[] = {
		[LANDLOCK_AVAILABLE] = "", [LANDLOCK_MISSING] = "the kernel lacks it",
		[LANDLOCK_DISABLED] = "built in but not enabled at boot (lsm=)",
		[LANDLOCK_BLOCKED] = "blocked by a seccomp filter",
		[LANDLOCK_UNKNOWN] = "ENOSYS: the kernel lacks it, or a seccomp filter hides it",
	};

	printf("Landlock is NOT available here (%s): sharness-exec cannot confine files "
	       "on this machine, and the probes below cannot hold.\n", why[m->landlock]);
}

/* Read, parse and hash the policy in-process, as `sharness-exec hash`;
 * `run` checks it again, independently, on every probe. */
static void hash_policy(void)
{
	unsigned char digest[HASH_LEN];
	struct json_doc doc;
	struct policy pol;
	size_t len;
	char *text = read_json(-1, policy_file, &len, &doc);

	if (!text)
		exit(EXIT_REFUSED);
	if (!hash_doc(&doc, digest))
		diex(EXIT_REFUSED, "out of memory");
	hash_format(digest, hash);
	if (policy_check(&pol, &doc, NULL, NULL) == 0) {
		cap_mb = pol.max_memory_mb;
		policy_free(&pol);
	}
	json_free(&doc);
	free(text);
}

static void write_policy(void)
{
	int fd;

	snprintf(policy_copy, sizeof policy_copy, "%s/policy.json", tmpdir);
	fd = open(policy_copy, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		die(EXIT_REFUSED, "unable to create %s", policy_copy);
	if (fchmod(fd, 0644) < 0 || write_all(fd, HELLO_POLICY, strlen(HELLO_POLICY)) < 0 ||
	    close(fd) < 0)
		die(EXIT_REFUSED, "unable to write %s", policy_copy);
	policy_file = policy_copy;
}

int cmd_hello(int argc, char **argv)
{
	const char *base = getenv("TMPDIR"), *test_policy = NULL;
	char cwd[PATH_MAX];
	struct machine m;
	int null_in, hash_held, published, failures;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: %s\n", HELLO_USAGE);
		return 0;
	}
	if (argc != 1)
		usage_die(HELLO_USAGE);
	/* Keep 0-2 taken, so no file of ours lands there and leaks in. */
	for (int fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
			die(EXIT_REFUSED, "unable to open /dev/null");

	machine_probe(&m);
	snprintf(tmpdir, sizeof tmpdir, "%s/sharness-exec-hello.XXXXXX",
	         base && *base == '/' ? base : "/tmp");
	if (!mkdtemp(tmpdir)) {
		int e = errno;
		char failed_dir[PATH_MAX];
		memcpy(failed_dir, tmpdir, sizeof failed_dir);
		*tmpdir = '\0';
		errno = e;
		die(EXIT_REFUSED, "unable to create a temp dir like %s", failed_dir);
	}
	atexit(cleanup);
	signal(SIGINT, on_fatal);
	signal(SIGTERM, on_fatal);
	signal(SIGHUP, on_fatal);
	snprintf(out_path, sizeof out_path, "%s/stdout", tmpdir);
	snprintf(err_path, sizeof err_path, "%s/stderr", tmpdir);
#ifdef SHARNESS_TEST_HOOKS
	/* Test builds only: a deliberately loosened policy shows that hello
	 * reports a broken expectation. The shipped binary has no such hook. */
	test_policy = getenv("SHARNESS_EXEC_HELLO_POLICY");
#endif
	if (test_policy)
		policy_file = test_policy;
	else
		write_policy();
	hash_policy();
	published = !strcmp(hash, HELLO_HASH);

	printf("sharness-exec hello: self-test, policy %s\n", policy_file);
	if (test_policy)
		printf("%s\n", "(test hook: SHARNESS_EXEC_HELLO_POLICY, not the published policy)");
	else
		printf("%s\n", HELLO_POLICY);
	printf("hash %s (%s)\n", hash, published ? "the published hash" :
	       test_policy ? "a test policy" : "NOT the published " HELLO_HASH);
	if (m.landlock_abi < 1)
		landlock_missing(&m);
	fflush(stdout);

	null_in = open_or_die("/dev/null", O_RDONLY);
	if (!getcwd(cwd, sizeof cwd))
		strcpy(cwd, ".");
	printf("\n%-32s %-9s %-9s%s\n", "probe", "expected", "result", "what happened");
	probe_read(null_in);
	probe_write(null_in, "write in /tmp", "/tmp", "/tmp", "tmp");
	probe_write(null_in, "write in the current directory", cwd, "the current directory", "cwd");
	probe_tcp(null_in);
	probe_local_server(null_in);
	probe_memory();
	probes = 6;
	printf("%d/%d held\n", held, probes);
	hash_held = probe_wrong_hash(null_in);
	putchar('\n');
	caveats(&m);
	machine_free(&m);
	close(null_in);

	/* The six probes, the hash refusal and the published hash itself. */
	failures = probes - held + !hash_held + !(published || test_policy);
	if (failures)
		printf("hello: %d expectation%s did NOT hold\n", failures, failures > 1 ? "s" : "");
	else
		printf("hello: every expectation held\n");
	if (fflush(stdout) || ferror(stdout))
		die(EXIT_REFUSED, "unable to write the report");
	return failures ? 1 : 0;
}
