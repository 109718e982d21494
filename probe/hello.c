/* sharness-exec hello (in sharness-exec-probe): the self-test. Writes a
 * fixed, published policy into a private temp dir and runs six probes
 * through the real command line (the front end that exec'd us, `run
 * --policy --expect-hash -- ...`), each checked from outside, then one run
 * with a wrong hash that must be refused before anything runs. Prints a
 * table, the walls a run of that policy put up (`run --check`: each step
 * says what it used), the caveats of this machine, removes its files.
 * Exit 0 when every expectation held, 126 otherwise, 125 when hello itself
 * cannot set up or is misused. */
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
#include "machine.h"

#define HELLO_USAGE "sharness-exec hello"
#define HASH_TEXT_LEN 71 /* "sha256:" and 64 hex digits */

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

static char tmpdir[PATH_MAX], policy_copy[PATH_MAX + 16];
static const char *policy_file;
static char hash[HASH_TEXT_LEN + 1];
static int held, probes;
static struct walls walls;
/* Caveats learnt while probing, printed with those of the machine. */
static char notes[2][200];
static int nnotes;

static void cleanup(void)
{
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

/* A run of the chain as the front end saw it. */
struct result {
	struct capture c;
	int ran;             /* the target printed MARKER */
	char detail[160];    /* the last line of stderr after MARKER, or before */
};

/* Run `sharness-exec run --policy P --expect-hash H -- TARGET...` with
 * stdin IN and stdout OUT (-1: captured), stderr captured, and wait. */
static void chain(const char *want, int in, int out, const char *const target[],
                  struct result *r)
{
	const char *args[32] = { "run", "--policy", policy_file, "--expect-hash", want, "--" };
	size_t n = 6;
	char *after;

	for (; *target && n < 31; target++)
		args[n++] = *target;
	args[n] = NULL;
	memset(r, 0, sizeof *r);
	frontend_run(args, in, out, &r->c);
	after = strstr(r->c.err, MARKER "\n");
	r->ran = after && (after == r->c.err || after[-1] == '\n');
	last_line(r->ran ? after + strlen(MARKER) + 1 : r->c.err, r->detail, sizeof r->detail);
}

/* "exit 2", "killed by SIGKILL", "timed out" */
static const char *how(const struct result *r)
{
	static char buf[64];

	if (r->c.timed_out)
		snprintf(buf, sizeof buf, "timed out after %d s", FRONTEND_TIMEOUT);
	else if (WIFSIGNALED(r->c.status))
		snprintf(buf, sizeof buf, "killed by signal %d, %s", WTERMSIG(r->c.status),
		         strsignal(WTERMSIG(r->c.status)));
	else
		snprintf(buf, sizeof buf, "exit %d", WEXITSTATUS(r->c.status));
	return buf;
}

static int failed(const struct result *r)
{
	return r->c.timed_out || !WIFEXITED(r->c.status) || WEXITSTATUS(r->c.status) != 0;
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

	snprintf(label, sizeof label, "read %s", file);
	outside = fd_slurp(open_or_die(file, O_RDONLY), &len);
	chain(hash, null_in, -1, target, &r);
	if (!r.ran)
		not_run(label, "allowed", &r);
	else if (!failed(&r) && r.c.outlen == len && !memcmp(r.c.out, outside, len) && len)
		row(label, "allowed", ++held, "allowed: cat printed the same %zu bytes hello reads", len);
	else
		row(label, "allowed", 0, "refused (%s): %s", how(&r), r.detail);
	free(outside);
	capture_free(&r.c);
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
	capture_free(&r.c);
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
	} else if (!failed(&r) || strstr(r.c.out, "connected")) {
		row(label, "refused", 0, "bash reported a connection (%s)", how(&r));
	} else {
		row(label, "refused", ++held, "refused (%s), listener accepted nothing: %s",
		    how(&r), r.detail);
	}
	close(fd);
	capture_free(&r.c);
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
	else if (!failed(&r) && !strcmp(r.c.out, "ping\npong\n"))
		row(label, "allowed", ++held, "allowed: a server and a client on 127.0.0.1 "
		    "inside exchanged a line each way");
	else
		row(label, "allowed", 0, "refused (%s): %s", how(&r), r.detail);
	capture_free(&r.c);
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

	if (walls.memory_mib)
		snprintf(label, sizeof label, "allocate 512 MiB (cap %lu MiB)", walls.memory_mib);
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
	ok = !r.c.timed_out && WIFEXITED(r.c.status) && WEXITSTATUS(r.c.status) == EXIT_REFUSED &&
	     r.c.outlen == 0;
	if (ok)
		row("wrong --expect-hash", "refused", 1, "refused (exit 125) before running: "
		    "the target printed nothing");
	else
		row("wrong --expect-hash", "refused", 0, "%s, stdout %s", how(&r),
		    r.c.outlen ? "not empty: the target ran" : "empty");
	capture_free(&r.c);
	return ok;
}

/* --- the walls, as the steps of a run of this policy said (run --check) --- */

#define WALL(name, ...) (printf("  %-12s", name), printf(__VA_ARGS__), putchar('\n'))

/* Each right the run relies on, and the wall of this run that holds it
 * (rights.h), one a line. */
static void print_rights(const char *rights)
{
	char buf[sizeof walls.rights], *word, *save = NULL, *colon;

	printf("rights, and the wall that holds each here:\n");
	snprintf(buf, sizeof buf, "%s", rights);
	for (word = strtok_r(buf, ",", &save); word; word = strtok_r(NULL, ",", &save))
		if ((colon = strchr(word, ':'))) {
			*colon = '\0';
			printf("  %-28s %s\n", word, colon + 1);
		}
}

static void print_walls(void)
{
	const struct walls *w = &walls;

	printf("walls a run of this policy put up (run --check):\n");
	WALL("network", "%s", !strcmp(w->network, "namespace") ? "a network namespace of its own" :
	     *w->network ? "NO namespace: a seccomp filter refuses sockets but AF_UNIX" : "unknown");
	WALL("pid", "%s", !strcmp(w->pid, "namespace") ? "a pid namespace" :
	     *w->pid ? "NO namespace: a subreaper" : "unknown");
	if (!strcmp(w->mount, "namespace"))
		WALL("mount", "a mount namespace: only the policy's paths exist");
	else if (*w->mount)
		WALL("mount", "NO mount namespace (%s): Landlock alone", w->why_mount);
	else
		WALL("mount", "unknown");
	if (*w->memory == '/')
		WALL("memory", "cgroup %s, beneath %s", w->cgroup, w->memory);
	else
		WALL("memory", "%s", *w->memory ? w->memory : "unknown");
	if (w->ran)
		WALL("landlock", "ABI %d, scoped %s, seccomp filter %s, capabilities %s", w->abi,
		     w->scoped, w->seccomp == 2 ? "on" : "OFF", w->caps);
	else
		WALL("landlock", "the run did not go through: %s", w->fatal);
	if (w->ran)
		print_rights(w->rights);
}

static void caveats(const struct machine *m)
{
	const struct walls *w = &walls;
	int n = 0;

	printf("caveats:\n");
	for (int i = 0; i < nnotes; i++)
		n++, printf("  - %s\n", notes[i]);
	if (w->ran && strstr(w->rights, ":none"))
		n++, printf("  - nothing in this run holds %s: strict mode refuses a policy "
		            "that relies on it, --best-effort runs without it\n", w->rights);
	if (!strcmp(w->network, "seccomp"))
		n++, printf("  - no network namespace (%s), so the network is cut by the seccomp "
		            "filter: TCP and UDP sockets alike are refused, so loopback is "
		            "unavailable and no local server works; AF_UNIX stays open\n",
		            w->why_net);
	else if (!strcmp(w->user, "namespace"))
		n++, printf("  - the network namespace is made inside a user namespace (you are "
		            "not root); the target keeps your uid\n");
	if (!strncmp(w->memory, "RLIMIT", 6))
		n++, printf("  - no writable cgroup with the memory controller, so memory is "
		            "capped by RLIMIT_AS: address space per process, not a total\n");
	if (m->seccomp == 2 && !strcmp(w->network, "seccomp"))
		n++, printf("  - no namespace can be made under the seccomp filter hello runs "
		            "under, as in a container with Docker's default profiles: start it "
		            "with --security-opt seccomp=unconfined --security-opt "
		            "apparmor=unconfined (README.md, \"In a container\")\n");
	else if (m->seccomp == 2)
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

	printf("Landlock is NOT available here (%s): only the view and the namespaces "
	       "can hold the files; the probes below say whether they do.\n", why[m->landlock]);
}

/* The policy's hash as `sharness-exec hash` prints it; `run` checks it
 * again, independently, on every probe. */
static void hash_policy(int null_in)
{
	const char *args[] = { "hash", policy_file, NULL };
	struct capture c;

	frontend_run(args, null_in, -1, &c);
	if (c.timed_out || !WIFEXITED(c.status) || WEXITSTATUS(c.status) ||
	    c.outlen != HASH_TEXT_LEN + 1 || c.out[HASH_TEXT_LEN] != '\n')
		diex(EXIT_REFUSED, "unable to hash %s: %s", policy_file, *c.err ? c.err : "no hash");
	memcpy(hash, c.out, HASH_TEXT_LEN);
	hash[HASH_TEXT_LEN] = '\0';
	capture_free(&c);
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

/* A private temp dir, removed at exit and on the usual signals. */
static void make_tmpdir(void)
{
	const char *base = getenv("TMPDIR");

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
}

static void run_probes(int null_in)
{
	char cwd[PATH_MAX];

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
}

/* hello [--policy POLICY]: --policy (the test build's front end passes it) runs
 * another policy than the published one, and says so. */
int cmd_hello(int argc, char **argv)
{
	const char *other = NULL;
	struct machine m;
	int null_in, hash_held, published, failures;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: %s\n", HELLO_USAGE);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "--policy"))
		other = argv[2];
	else if (argc != 1)
		usage_fail(HELLO_USAGE, "unknown option %s", qn(argv[1]));

	machine_probe(&m);
	null_in = open_or_die("/dev/null", O_RDONLY);
	make_tmpdir();
	if (other)
		policy_file = other;
	else
		write_policy();
	hash_policy(null_in);
	published = !strcmp(hash, HELLO_HASH);
	walls_check(policy_file, NULL, hash, 0, &walls);

	printf("sharness-exec hello: self-test, policy %s\n", policy_file);
	printf("%s\n", other ? "(--policy: not the published policy)" :
	       HELLO_POLICY);
	printf("hash %s (%s)\n", hash, published ? "the published hash" :
	       other ? "a test policy" : "NOT the published " HELLO_HASH);
	if (m.landlock_abi < 1)
		landlock_missing(&m);
	else
		printf("Landlock ABI %d on kernel %s\n", m.landlock_abi, m.kernel);

	run_probes(null_in);
	hash_held = probe_wrong_hash(null_in);
	putchar('\n');
	print_walls();
	caveats(&m);
	machine_free(&m);
	close(null_in);

	/* The six probes, the hash refusal and the published hash itself. */
	failures = probes - held + !hash_held + !(published || other);
	if (failures)
		printf("hello: %d expectation%s did NOT hold\n", failures, failures > 1 ? "s" : "");
	else
		printf("hello: every expectation held\n");
	if (fflush(stdout) || ferror(stdout))
		die(EXIT_REFUSED, "unable to write the report");
	return failures ? EXIT_CONFINE : 0;
}
