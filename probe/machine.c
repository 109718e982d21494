/* Facts about this machine for `probe` and `hello` (machine.h). Reads
 * /proc and /sys, and tries each kernel feature in a throwaway child, so
 * the calling process is never killed by a seccomp filter that answers
 * with SIGSYS; what a run would use, the chain's steps say themselves
 * (walls_check). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/landlock.h>

#include "common.h"
#include "helper.h"
#include "landlock-abi.h"
#include "machine.h"

extern char **environ;

const char *const machine_config_keys[MACHINE_NCONFIG] = {
	"CONFIG_SECURITY_LANDLOCK", "CONFIG_USER_NS", "CONFIG_NET_NS",
	"CONFIG_CGROUPS", "CONFIG_MEMCG", "CONFIG_CGROUP_PIDS",
	"CONFIG_SECCOMP_FILTER", "CONFIG_LSM",
};
const char *const machine_tools[MACHINE_NTOOLS] = { "bwrap", "unshare", "systemd-run" };

const char *errno_name(int err)
{
	static const struct { int e; const char *name; } t[] = {
		{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { EIO, "EIO" },
		{ E2BIG, "E2BIG" }, { EBADF, "EBADF" }, { EAGAIN, "EAGAIN" },
		{ ENOMEM, "ENOMEM" }, { EACCES, "EACCES" }, { EFAULT, "EFAULT" },
		{ EBUSY, "EBUSY" }, { EEXIST, "EEXIST" }, { EINVAL, "EINVAL" },
		{ ENOSPC, "ENOSPC" }, { EROFS, "EROFS" }, { ENOSYS, "ENOSYS" },
		{ EUSERS, "EUSERS" }, { EOPNOTSUPP, "EOPNOTSUPP" },
		{ EAFNOSUPPORT, "EAFNOSUPPORT" }, { ENODEV, "ENODEV" },
	};
	static char other[24];

	for (size_t i = 0; i < sizeof t / sizeof *t; i++)
		if (t[i].e == err)
			return t[i].name;
	snprintf(other, sizeof other, "errno %d", err);
	return other;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d) {
		diex(EXIT_REFUSED, "out of memory");
	}
	return d;
}

/* --- throwaway children --- */

struct child_result {
	long value;  /* what FN returned, when >= 0 */
	int err;     /* errno when FN returned -1 */
	int sig;     /* the child was killed by this signal (a seccomp filter) */
};

static struct child_result in_child(long (*fn)(void))
{
	struct child_result r = { -1, 0, 0 };
	long out[2];
	ssize_t n;
	int p[2], status = 0;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0) {
		r.err = errno;
		return r;
	}
	pid = fork();
	if (pid < 0) {
		r.err = errno;
		close(p[0]);
		close(p[1]);
		return r;
	}
	if (pid == 0) {
		errno = 0;
		out[0] = fn();
		out[1] = errno;
		_exit(write(p[1], out, sizeof out) == sizeof out ? 0 : EXIT_CONFINE);
	}
	close(p[1]);
	do
		n = read(p[0], out, sizeof out);
	while (n < 0 && errno == EINTR);
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (n == sizeof out) {
		r.value = out[0];
		r.err = out[0] < 0 ? (int)out[1] : 0;
	} else if (WIFSIGNALED(status)) {
		r.sig = WTERMSIG(status);
	} else {
		r.err = EIO;
	}
	return r;
}

static long landlock_errata(void)
{
	return syscall(SYS_landlock_create_ruleset, NULL, 0,
	               LANDLOCK_CREATE_RULESET_ERRATA);
}

static long try_memfd_secret(void)
{
#ifdef SYS_memfd_secret
	long fd = syscall(SYS_memfd_secret, 0);

	if (fd >= 0)
		close((int)fd);
	return fd < 0 ? -1 : 0;
#else
	errno = ENOSYS; /* headers older than Linux 5.14 */
	return -1;
#endif
}

/* --- /proc/self/status --- */

static void read_status(struct machine *m)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "re");

	m->no_new_privs = m->seccomp = -1;
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		sscanf(line, "CapEff:%16s", m->cap_eff);
		sscanf(line, "CapPrm:%16s", m->cap_prm);
		sscanf(line, "CapBnd:%16s", m->cap_bnd);
		sscanf(line, "NoNewPrivs:%d", &m->no_new_privs);
		sscanf(line, "Seccomp:%d", &m->seccomp);
	}
	fclose(f);
}

/* --- kernel config --- */

static void config_line(struct machine *m, char *line)
{
	line[strcspn(line, "\n")] = '\0';
	for (int i = 0; i < MACHINE_NCONFIG; i++) {
		const char *k = machine_config_keys[i], *v;
		size_t len = strlen(k);

		if (!strncmp(line, k, len) && line[len] == '=') {
			char *q = line + len + 1;
			size_t qlen = strlen(q);
			if (qlen >= 2 && q[0] == '"' && q[qlen - 1] == '"') {
				q[qlen - 1] = '\0';
				q++;
			}
			v = q;
		} else if (!strncmp(line, "# ", 2) && !strncmp(line + 2, k, len) &&
		           !strcmp(line + 2 + len, " is not set")) {
			v = "n";
		} else {
			continue;
		}
		free(m->config[i]);
		m->config[i] = xstrdup(v);
	}
}

/* /proc/config.gz is decompressed by running `gzip -dc` rather than by
 * linking zlib: the front end gains no dependency for one informational
 * read, and where gzip is missing the keys are simply "unknown". Distro
 * kernels without it usually install /boot/config-RELEASE as plain text. */
static void read_config(struct machine *m)
{
	static char boot[sizeof "/boot/config-" + sizeof m->kernel];
	FILE *f = NULL;
	pid_t pid = -1;
	char *line = NULL;
	size_t cap = 0;
	int fd, p[2], status, ok = 1;

	fd = open("/proc/config.gz", O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && pipe2(p, O_CLOEXEC) == 0) {
		pid = fork();
		if (pid == 0) {
			int null = open("/dev/null", O_WRONLY);
			if (dup2(fd, 0) < 0 || dup2(p[1], 1) < 0 ||
			    (null >= 0 && dup2(null, 2) < 0))
				_exit(EXIT_CONFINE);
			execlp("gzip", "gzip", "-dc", (char *)NULL);
			_exit(EXIT_NOTFOUND);
		}
		close(p[1]);
		if (pid > 0 && (f = fdopen(p[0], "r")))
			m->config_source = "/proc/config.gz";
		else
			close(p[0]);
	}
	if (fd >= 0)
		close(fd);
	if (!f) {
		snprintf(boot, sizeof boot, "/boot/config-%s", m->kernel);
		if ((f = fopen(boot, "re")))
			m->config_source = boot;
	}
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0)
		config_line(m, line);
	free(line);
	fclose(f);
	if (pid > 0) {
		pid_t w;
		while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
			;
		/* status is unset when waitpid failed (ECHILD: SIGCHLD ignored) */
		ok = w == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
	}
	for (int i = 0; i < MACHINE_NCONFIG; i++) {
		if (!ok) {
			free(m->config[i]);
			m->config[i] = NULL;
		} else if (!m->config[i]) {
			m->config[i] = xstrdup("n"); /* absent from a full config */
		}
	}
	if (!ok)
		m->config_source = NULL;
}

static void read_lsm(struct machine *m)
{
	char buf[512];
	int fd = open("/sys/kernel/security/lsm", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	m->lsm = xstrdup(buf);
}

static int in_list(const char *list, const char *word)
{
	size_t len = strlen(word);

	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, word, len) && (p[len] == ',' || p[len] == '\0'))
			return 1;
	return 0;
}

/* The kernel itself answers landlock_create_ruleset(NULL, 0, VERSION) with
 * the ABI, ENOSYS (not built in: the syscall is COND_SYSCALL) or EOPNOTSUPP
 * (built in but not enabled at boot); it never says EPERM or anything else
 * for these arguments. So any other errno, or death by a signal (SIGSYS),
 * is a seccomp filter speaking. ENOSYS is ambiguous only under a filter
 * (Seccomp: 2), since filters often return ENOSYS for syscalls they do not
 * know; the kernel config, or the active LSM list, then tells them apart. */
static void probe_landlock(struct machine *m)
{
	const char *cfg = m->config[0];
	struct child_result r = in_child(landlock_abi);
	int built = (cfg && !strcmp(cfg, "y")) || (m->lsm && in_list(m->lsm, "landlock"));

	m->landlock_err = r.err;
	m->landlock_sig = r.sig;
	if (r.value > 0) {
		m->landlock = LANDLOCK_AVAILABLE;
		m->landlock_abi = (int)r.value;
	} else if (r.sig) {
		m->landlock = LANDLOCK_BLOCKED;
	} else if (r.err == EOPNOTSUPP) {
		m->landlock = m->seccomp == 2 && m->lsm && in_list(m->lsm, "landlock") ?
		              LANDLOCK_BLOCKED : LANDLOCK_DISABLED;
	} else if (r.err == ENOSYS) {
		if (m->seccomp != 2 || (cfg && strcmp(cfg, "y")))
			m->landlock = LANDLOCK_MISSING;
		else
			m->landlock = built ? LANDLOCK_BLOCKED : LANDLOCK_UNKNOWN;
	} else {
		m->landlock = m->seccomp == 2 ? LANDLOCK_BLOCKED : LANDLOCK_UNKNOWN;
	}
}

/* --- PATH and environment --- */

static char *on_path(const char *name)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save, *full;
	struct stat st;

	copy = xstrdup(path && *path ? path : "/usr/bin:/bin");
	for (dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		if (asprintf(&full, "%s/%s", dir, name) < 0)
			break;
		if (stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0) {
			free(copy);
			return full;
		}
		free(full);
	}
	free(copy);
	return NULL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Any variable named *_proxy, in any case: http_proxy, HTTPS_PROXY,
 * no_proxy, ALL_PROXY, ftp_proxy... Names only, never their values. */
static void find_proxies(struct machine *m)
{
	size_t n = 0;

	for (char **e = environ; e && *e; e++)
		n++;
	m->proxies = calloc(n + 1, sizeof *m->proxies);
	if (!m->proxies)
		return;
	for (char **e = environ; e && *e; e++) {
		size_t len = strcspn(*e, "=");
		if (len > 6 && !strncasecmp(*e + len - 6, "_proxy", 6) && (*e)[len] == '=') {
			m->proxies[m->nproxies] = strndup(*e, len);
			if (m->proxies[m->nproxies])
				m->nproxies++;
		}
	}
	qsort(m->proxies, m->nproxies, sizeof *m->proxies, cmp_str);
}

void machine_probe(struct machine *m)
{
	struct utsname u;
	struct child_result r;
	int n;

	memset(m, 0, sizeof *m);
	if (uname(&u) == 0)
		snprintf(m->kernel, sizeof m->kernel, "%s", u.release);
	m->uid = getuid();
	m->gid = getgid();
	n = getgroups(0, NULL);
	if (n > 0 && (m->groups = calloc((size_t)n, sizeof *m->groups)))
		m->ngroups = getgroups(n, m->groups) < 0 ? 0 : n;
	read_status(m);
	read_config(m);
	read_lsm(m);
	probe_landlock(m);
	m->landlock_errata = -1;
	if (m->landlock_abi >= 7) {
		r = in_child(landlock_errata);
		m->landlock_errata = r.value >= 0 ? r.value : -1;
	}
	r = in_child(try_memfd_secret);
	m->memfd_secret = r.value == 0;
	m->memfd_secret_err = r.sig ? EPERM : r.err;
	for (int i = 0; i < MACHINE_NTOOLS; i++)
		m->tools[i] = on_path(machine_tools[i]);
	find_proxies(m);
}

void machine_free(struct machine *m)
{
	free(m->groups);
	for (int i = 0; i < MACHINE_NCONFIG; i++)
		free(m->config[i]);
	free(m->lsm);
	for (int i = 0; i < MACHINE_NTOOLS; i++)
		free(m->tools[i]);
	for (size_t i = 0; i < m->nproxies; i++)
		free(m->proxies[i]);
	free(m->proxies);
	memset(m, 0, sizeof *m);
}
