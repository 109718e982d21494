/* Facts about this machine for `probe` and `hello` (machine.h). Reads
 * /proc and /sys, and tries each kernel feature in a throwaway child, so
 * the calling process gains no namespace and is never killed by a seccomp
 * filter that answers with SIGSYS. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>

#include "landlock-abi.h"
#include "listenguard.h"
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
		fputs("sharness-exec: fatal: out of memory\n", stderr);
		exit(125);
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
		_exit(write(p[1], out, sizeof out) == sizeof out ? 0 : 1);
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

static long landlock_version(void)
{
	return syscall(SYS_landlock_create_ruleset, NULL, 0,
	               LANDLOCK_CREATE_RULESET_VERSION);
}

static long landlock_errata(void)
{
	return syscall(SYS_landlock_create_ruleset, NULL, 0,
	               LANDLOCK_CREATE_RULESET_ERRATA);
}

/* What closes MPTCP, SCTP and the rest in the object form: a seccomp
 * filter of the landlock step (here an empty one, in a throwaway child). */
static long try_seccomp_filter(void)
{
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { 1, &allow };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* A user namespace is only usable once our own ids are mapped into it. */
static long new_userns(int extra_flags)
{
	char map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (unshare(CLONE_NEWUSER | extra_flags) < 0)
		return -1;
	snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	if (write_file("/proc/self/uid_map", map) < 0)
		return -1;
	if (write_file("/proc/self/setgroups", "deny") < 0 && errno != ENOENT)
		return -1;
	snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
	return write_file("/proc/self/gid_map", map);
}

static long try_userns(void)
{
	return new_userns(0);
}

/* What sharness-exec-netns does: a new network namespace with lo up. */
static long lo_up(void)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		return -1;
	memset(&ifr, 0, sizeof ifr);
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		return -1;
	ifr.ifr_flags |= IFF_UP;
	return ioctl(s, SIOCSIFFLAGS, &ifr);
}

static long try_netns_direct(void)
{
	return unshare(CLONE_NEWNET) < 0 ? -1 : lo_up();
}

static long try_netns_userns(void)
{
	return new_userns(CLONE_NEWNET) < 0 ? -1 : lo_up();
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
				_exit(127);
			execlp("gzip", "gzip", "-dc", (char *)NULL);
			_exit(127);
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
	struct child_result r = in_child(landlock_version);
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

static void probe_namespaces(struct machine *m)
{
	struct child_result r = in_child(try_userns);

	/* A filter that kills the child (SIGSYS) refused it: shown as EPERM. */
	m->userns = r.value == 0;
	m->userns_err = r.sig ? EPERM : r.err;
	r = in_child(try_netns_direct);
	if (r.value == 0) {
		m->netns = NETNS_DIRECT;
		return;
	}
	r = in_child(try_netns_userns);
	m->netns = r.value == 0 ? NETNS_USERNS : NETNS_NO;
	m->netns_err = r.sig ? EPERM : r.err;
}

/* --- cgroups --- */

/* mountinfo escapes blanks and backslashes as \ooo. */
static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = '\0';
}

struct cg_mount {
	char root[PATH_MAX], dir[PATH_MAX];
	int found;
};

static void read_mounts(struct cg_mount *v2, struct cg_mount *mem, struct cg_mount *pids)
{
	char root[PATH_MAX], dir[PATH_MAX], type[64], opts[1024];
	char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		const char *tail = strstr(line, " - ");
		struct cg_mount *hit[2] = { NULL, NULL };

		if (!tail || sscanf(line, "%*s %*s %*s %4095s %4095s", root, dir) != 2 ||
		    sscanf(tail, " - %63s %*s %1023s", type, opts) != 2)
			continue;
		if (!strcmp(type, "cgroup2"))
			hit[0] = v2;
		else if (!strcmp(type, "cgroup")) {
			if (in_list(opts, "memory"))
				hit[0] = mem;
			if (in_list(opts, "pids"))
				hit[1] = pids;
		}
		if (!hit[0] && !hit[1])
			continue;
		unescape(root); /* once: one mount can hold memory and pids */
		unescape(dir);
		for (int i = 0; i < 2; i++) {
			if (!hit[i] || hit[i]->found)
				continue;
			strcpy(hit[i]->root, root);
			strcpy(hit[i]->dir, dir);
			hit[i]->found = 1;
		}
	}
	free(line);
	fclose(f);
}

/* The directory of our own cgroup PATH (from /proc/self/cgroup) beneath
 * mount MNT; a mount of a subtree (no cgroup namespace) shows its root. */
static char *own_dir(const struct cg_mount *mnt, const char *path)
{
	size_t rlen = strlen(mnt->root);
	char *dir;

	if (strcmp(mnt->root, "/") && !strncmp(path, mnt->root, rlen) &&
	    (path[rlen] == '/' || path[rlen] == '\0'))
		path += rlen;
	if (asprintf(&dir, "%s%s", mnt->dir, strcmp(path, "/") ? path : "") < 0)
		return NULL;
	return dir;
}

static int v2_has(const char *dir, const char *controller)
{
	char path[PATH_MAX + 32], buf[512], *tok, *save;
	int fd, found = 0;
	ssize_t n;

	snprintf(path, sizeof path, "%s/cgroup.controllers", dir);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	for (tok = strtok_r(buf, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
		found |= !strcmp(tok, controller);
	return found;
}

static void probe_cgroups(struct machine *m)
{
	static struct cg_mount v2, mem, pids;
	char *line = NULL, *v2dir = NULL, *memdir = NULL, *pidsdir = NULL;
	size_t cap = 0;
	FILE *f;

	m->memory = m->pids = CAP_BY_RLIMIT;
	read_mounts(&v2, &mem, &pids);
	m->cgroup2 = v2.found;
	m->cgroup1 = mem.found || pids.found;
	if (!(f = fopen("/proc/self/cgroup", "re")))
		return;
	while (getline(&line, &cap, f) > 0) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c2 = '\0';
		c2[1 + strcspn(c2 + 1, "\n")] = '\0';
		if (!strcmp(line, "0") && c2 == c1 + 1 && v2.found && !v2dir)
			v2dir = own_dir(&v2, c2 + 1);
		if (in_list(c1 + 1, "memory") && mem.found && !memdir)
			memdir = own_dir(&mem, c2 + 1);
		if (in_list(c1 + 1, "pids") && pids.found && !pidsdir)
			pidsdir = own_dir(&pids, c2 + 1);
	}
	free(line);
	fclose(f);

	if (v2dir && access(v2dir, W_OK) == 0) {
		if (v2_has(v2dir, "memory")) {
			m->memory = CAP_BY_CGROUP2;
			m->memory_path = xstrdup(v2dir);
		}
		if (v2_has(v2dir, "pids")) {
			m->pids = CAP_BY_CGROUP2;
			m->pids_path = xstrdup(v2dir);
		}
	}
	if (m->memory == CAP_BY_RLIMIT && memdir && access(memdir, W_OK) == 0) {
		m->memory = CAP_BY_CGROUP1;
		m->memory_path = xstrdup(memdir);
	}
	if (m->pids == CAP_BY_RLIMIT && pidsdir && access(pidsdir, W_OK) == 0) {
		m->pids = CAP_BY_CGROUP1;
		m->pids_path = xstrdup(pidsdir);
	}
	free(v2dir);
	free(memdir);
	free(pidsdir);
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
	m->seccomp_filter = in_child(try_seccomp_filter).value == 0;
	m->listen_guard = m->seccomp_filter && listenguard_possible(&m->listen_guard_why);
	if (!m->seccomp_filter)
		m->listen_guard_why = "no seccomp filter can be installed";
	probe_namespaces(m);
	probe_cgroups(m);
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
	free(m->memory_path);
	free(m->pids_path);
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
