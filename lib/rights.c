/* The table of rights and walls (rights.h), each right worked out against
 * what the kernel's documentation says each wall does and does not cover:
 *
 * - Landlock restricts only what its ABI handles, and only for what is
 *   opened inside the domain: descriptors inherited on 0-2 act on the host
 *   file whatever the ABI (and whatever the view), so no wall holds those;
 *   the view step refuses directories on them.
 * - The view's read-only binds refuse writes, truncate, chmod, chown,
 *   utime and xattrs by path (EROFS), for a root target too, and hide what
 *   the policy does not name; they do not refuse connect(2) to a socket
 *   beneath a read path (a socket inode is not written), nor ioctls on the
 *   device nodes the view binds on purpose.
 * - Abstract UNIX sockets live in the network namespace (a session's,
 *   under run --in-session, is shared with the session's other
 *   components: there only Landlock's scope holds them); signals and
 *   ptrace reach only what the pid namespace shows, which includes the
 *   caller's process group (the target stays in it, for job control): the
 *   landlock step's filter then refuses kill() at that group.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common.h"
#include "helper.h"
#include "rights.h"

const struct right rights_table[] = {
	{ "FS", "read, write, create, remove and exec only beneath the "
	  "policy's paths", 1, "5.13", WALL_VIEW, ALWAYS, STRICT },
	/* At ABI 1 the kernel refuses every rename and link across
	 * directories (EXDEV), inside write paths too: held, by refusal. */
	{ "FS_REFER", "no rename or link that moves a file to where it "
	  "gains rights", 1, "5.13", WALL_VIEW, ALWAYS, STRICT },
	{ "FS_TRUNCATE", "truncate(2) and O_TRUNC only beneath write paths",
	  3, "6.2", WALL_VIEW, ALWAYS, STRICT },
	/* Landlock handles none of these at any ABI. */
	{ "FS_METADATA", "chmod, chown, utime, xattrs and executable mappings "
	  "only beneath the paths that allow them", 0, NULL, WALL_VIEW,
	  ALWAYS, ROOT_STRICT },
	{ "FS_IOCTL_DEV", "ioctl(2) on a device node only beneath write paths",
	  5, "6.10", WALL_VIEW_NODEV, ALWAYS, STRICT },
	{ "FS_RESOLVE_UNIX", "no connect(2) to a pathname UNIX socket outside "
	  "the policy", 9, "7.1", WALL_VIEW, ALWAYS, ROOT_STRICT },
	/* One rule for read, exec and write paths: no host socket beneath
	 * one is reached but those files.sockets names (-s). Landlock ABI 9
	 * holds it for all three. Below, beneath write paths the view covers
	 * each socket its walk finds; read and exec paths it does not walk,
	 * so the front end's socket scan looks for listeners there, and one
	 * found (or a directory where daemons keep theirs) has no wall.
	 * Without the view below ABI 9 Landlock handles no socket at all:
	 * every pathname socket of the host is reached, beneath write paths
	 * or not (FS_RESOLVE_UNIX), so the two are refused together, for a
	 * root caller, and named in the view's warning for others. */
	{ "FS_RESOLVE_UNIX_READ", "no connect(2) to a host socket beneath a "
	  "read or exec path (/run, /var/lib/docker)", 9, "7.1",
	  0, SOCKET_DIRS, STRICT },
	{ "FS_RESOLVE_UNIX_WRITE", "no connect(2) to a host socket beneath a "
	  "write path (tmux's, ssh-agent's, X's in /tmp)", 9, "7.1",
	  WALL_VIEW, WRITE_PATHS, ROOT_STRICT },
	{ "SCOPE_ABSTRACT_UNIX_SOCKET", "no abstract UNIX socket outside the "
	  "run", 6, "6.12", WALL_NETNS, ALWAYS, STRICT },
	{ "SCOPE_SIGNAL", "no signal to a process outside the run", 6, "6.12",
	  WALL_PIDNS, ALWAYS, STRICT },
	{ "PTRACE", "no ptrace(2) or /proc/PID access to a process outside the "
	  "run", 1, "5.13", WALL_PIDNS, ALWAYS, STRICT },
	{ "IPC", "no SysV or POSIX IPC object outside the run", 0, NULL,
	  WALL_IPCNS, ALWAYS, WARN },
	/* The netns step runs with one of these or not at all. */
	/* Under run --in-session "the run's own" is the session's. */
	{ "NETWORK", "no network but the run's own loopback", 0, NULL,
	  WALL_NETNS | WALL_SOCKETS | WALL_SESSION, NONE_FORM, WARN },
	{ "NET_BIND_TCP", "TCP bind(2) only to the listed ports", 4, "6.7", 0,
	  OBJECT_FORM, STRICT },
	{ "NET_CONNECT_TCP", "TCP connect(2) only to the listed ports", 4,
	  "6.7", 0, OBJECT_FORM, STRICT },
	{ "NET_BIND_UDP", "UDP bind(2) only to the listed ports", 10, "7.2",
	  WALL_ALLOWLIST, OBJECT_FORM, STRICT },
	{ "NET_CONNECT_SEND_UDP", "UDP connect(2) and sends only to the listed "
	  "ports", 10, "7.2", WALL_ALLOWLIST, OBJECT_FORM, STRICT },
};
const size_t nrights = sizeof rights_table / sizeof rights_table[0];

static const struct {
	unsigned wall;
	const char *name, *would;
} walls[] = {
	{ WALL_VIEW, "view", "the view step's mount namespace" },
	{ WALL_VIEW_NODEV, "view", "the view step's mount namespace with no "
	  "device node named in a read or exec path" },
	{ WALL_NETNS, "netns", "a network namespace (\"network\": \"none\")" },
	{ WALL_SOCKETS, "seccomp", "the netns step's socket filter" },
	{ WALL_PIDNS, "pidns+seccomp", "a pid namespace" },
	{ WALL_IPCNS, "ipcns", "an IPC namespace" },
	{ WALL_ALLOWLIST, "seccomp", "listing no UDP port (the socket "
	  "allowlist then refuses UDP)" },
	{ WALL_SESSION, "session", "a session's network namespace, with lo alone "
	  "(run --in-session)" },
};

/* Directories where daemons keep the sockets that act for their callers,
 * some of them bound in other network namespaces (containers'), which the
 * socket scan does not list. /tmp/.X11-unix is not one:
 * an X server listens in the caller's namespace, where the scan finds it. */
static const char *const socket_dirs[] = {
	"/run", "/var/run", "/var/lib/docker",
};

/* --rights: the table of rights and walls (rights.c), a right a line:
 * NAME, the Landlock ABI and Linux release that hold it (or "-"), the
 * other walls, and what nothing holding it means. sharness-exec-landlock(1)
 * is held to it (tests/meta/man.bats). */
void rights_print(void)
{
	static const char *const strict[] = { "refused", "refused-for-root", "warned" };
	char would[256];

	for (size_t i = 0; i < nrights; i++) {
		const struct right *r = &rights_table[i];
		right_would(r, would, sizeof would);
		printf("%s\t%d\t%s\t%s\t%s\n", r->name, r->abi, r->abi ? r->kernel : "-",
		       strict[r->strict], would);
	}
	if (fflush(stdout))
		exit(EXIT_REFUSED);
}

int socket_dir_beneath(const char *path)
{
	for (size_t i = 0; i < sizeof socket_dirs / sizeof *socket_dirs; i++)
		if (path_beneath(socket_dirs[i], path))
			return 1;
	return 0;
}

int right_relied(const struct right *r, const struct run_walls *w)
{
	switch (r->relied) {
	case NONE_FORM: return !w->object_form;
	case OBJECT_FORM: return w->object_form;
	case SOCKET_DIRS: return w->socket_dirs;
	case WRITE_PATHS: return w->write_paths;
	case ALWAYS: return 1;
	}
	return 1;
}

const char *right_holder(const struct right *r, const struct run_walls *w)
{
	/* ABI 1 holds FS_REFER by refusing every rename and link across
	 * directories (EXDEV), inside write paths too: said where the
	 * walls are listed (probe, hello, run --check) rather than on
	 * every run. */
	if (r->abi == 1 && w->abi == 1 && !strcmp(r->name, "FS_REFER"))
		return "landlock-exdev";
	if (r->abi && w->abi >= r->abi)
		return "landlock";
	for (size_t i = 0; i < sizeof walls / sizeof *walls; i++)
		if (r->walls & w->stand & walls[i].wall)
			return walls[i].name;
	return NULL;
}

void right_would(const struct right *r, char *buf, size_t size)
{
	size_t n = 0;

	*buf = '\0';
	if (r->abi)
		n = (size_t)snprintf(buf, size, "Landlock ABI %d (Linux %s)", r->abi,
		                     r->kernel);
	for (size_t i = 0; i < sizeof walls / sizeof *walls && n < size; i++)
		if (r->walls & walls[i].wall)
			n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? " or " : "",
			                      walls[i].would);
}

/* --- the record --- */

static int record = -1;

void walls_fd(const char *arg, const char *usage)
{
	record = parse_fd(arg, 'W', 1 << 20, usage);
}

static int scan_done = -1;

void walls_scan_fd(const char *arg, const char *usage)
{
	unsigned long fd;

	if (!parse_ulong(arg, 3, INT_MAX, &fd))
		usage_fail(usage, "unable to parse --scan %s: not a descriptor above 2", qn(arg));
	scan_done = (int)fd;
}

void walls_wait(void)
{
	char c = 0;
	ssize_t n;

	if (scan_done < 0)
		return;
	while ((n = read(scan_done, &c, 1)) < 0 && errno == EINTR)
		;
	if (n < 0)
		die(EXIT_CONFINE, "unable to read the socket scan's pipe (--scan %d)", scan_done);
	close(scan_done);
	if (n != 1 || c != 'y')
		diex(EXIT_CONFINE, "unable to confine: the front end's socket scan did not "
		     "finish, so nothing says what listens beneath the read and exec paths");
}

void walls_close(void)
{
	if (record >= 0)
		close(record);
	record = -1;
}

void walls_note(const char *key, const char *value)
{
	struct iovec line[] = { { (char *)key, strlen(key) }, { (char *)"=", 1 },
	                        { (char *)value, strlen(value) }, { (char *)"\n", 1 } };
	ssize_t n;

	/* One note a line: a value with a newline could forge another. */
	if (strchr(value, '\n'))
		diex(EXIT_CONFINE, "unable to note %s=%s in the walls record: it holds "
		     "a newline", key, qn(value));
	if (record < 0)
		return;
	/* The line in one system call (a memfd takes it whole or fails). */
	while ((n = writev(record, line, 4)) < 0 && errno == EINTR)
		;
	if (n >= 0 && n != (ssize_t)(line[0].iov_len + line[2].iov_len + 2))
		errno = EIO, n = -1;
	if (n < 0)
		die(EXIT_CONFINE, "unable to write the walls record (fd %d)", record);
}

int walls_given(void)
{
	return record >= 0;
}

/* The record's text, read once, with a newline in front. */
static const char *walls_text(void)
{
	static char *text;
	ssize_t n;

	if (!text) {
		off_t size = lseek(record, 0, SEEK_END);
		if (size < 0 || !(text = calloc(1, (size_t)size + 2)))
			die(EXIT_CONFINE, "unable to read the walls record (fd %d)", record);
		text[0] = '\n';
		if ((n = pread(record, text + 1, (size_t)size, 0)) != size)
			die(EXIT_CONFINE, "unable to read the walls record (fd %d)", record);
	}
	return text;
}

int walls_noted(const char *key, const char *value)
{
	size_t klen = strlen(key), vlen = strlen(value);
	const char *p;

	if (record < 0)
		return 0;
	for (p = walls_text(); (p = strchr(p, '\n')); p++)
		if (!strncmp(p + 1, key, klen) && p[1 + klen] == '=' &&
		    !strncmp(p + 2 + klen, value, vlen) && p[2 + klen + vlen] == '\n')
			return 1;
	return 0;
}

const char *walls_value(const char *key)
{
	static char value[4096];
	size_t klen = strlen(key);
	const char *p;

	if (record < 0)
		return NULL;
	for (p = walls_text(); (p = strchr(p, '\n')); p++)
		if (!strncmp(p + 1, key, klen) && p[1 + klen] == '=') {
			snprintf(value, sizeof value, "%.*s", (int)strcspn(p + 2 + klen, "\n"),
			         p + 2 + klen);
			return value;
		}
	return NULL;
}

static const struct {
	const char *key, *value;
	unsigned wall;
} notes[] = {
	{ "view", "namespace", WALL_VIEW | WALL_VIEW_NODEV },
	{ "net", "namespace", WALL_NETNS },
	{ "net", "seccomp", WALL_SOCKETS },
	{ "net", "session", WALL_SESSION },
	{ "pid", "namespace", WALL_PIDNS },
	{ "ipc", "namespace", WALL_IPCNS },
};

void walls_read(struct run_walls *w)
{
	w->stand = 0;
	for (size_t i = 0; i < sizeof notes / sizeof *notes; i++)
		if (walls_noted(notes[i].key, notes[i].value))
			w->stand |= notes[i].wall;
	if (walls_noted("devices", "named"))
		w->stand &= ~(unsigned)WALL_VIEW_NODEV;
}
