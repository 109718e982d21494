/* sharness-exec-view: what is made rather than bound (view.h). /proc a
 * fresh procfs of the run's pid namespace, its sysctls and the like
 * read-only; /dev named whole a minimal one, as bwrap's --dev, and a
 * policy that grants no /dev a smaller one still (no tty, no pty): never
 * the host's /dev, whatever its list. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/mount.h>

#include "common.h"
#include "rights.h"
#include "view.h"

int dev_whole, dev_shm_bound;

#define ATTR_RO (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | \
	MOUNT_ATTR_NOEXEC)

/* /proc: a fresh procfs of this pid namespace, mounted while the old root
 * (a fully visible /proc) is still here, as the kernel asks of a user
 * namespace, hidepid=invisible; its sysctls and the like read-only, the
 * kernel-wide files that container runtimes mask masked. */
int mount_proc(struct ent *e)
{
	static const char *const ro[] = { "sys", "sysrq-trigger", "irq", "bus" };
	/* What the target cannot ptrace (init, the listen guard) is not there;
	 * the gid that sees all is (gid_t)-1, which no process holds (by
	 * default it is 0, a root target's). */
	static const char *const opts[] = { "hidepid", "invisible", "gid", "4294967295", NULL };
	int m;

	e->attr |= MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC;
	mount_point("/proc", 1);
	m = new_fs("proc", opts, e->attr);

	if (m < 0) {
		if (errno != EPERM && errno != EACCES && errno != EBUSY)
			die(EXIT_CONFINE, "unable to mount a fresh /proc");
		if (!view_best)
			die_hint(EXIT_CONFINE, errno, "a masked /proc (as in a "
			         "container) or a pid namespace of another user "
			         "namespace; -b (--best-effort) leaves /proc out",
			         "unable to mount a fresh /proc");
		warnx_("best effort: /proc left out: a fresh procfs was refused (%s)",
		       strerror(errno));
		return 0;
	}
	attach(m, "/proc", 1);
	for (size_t i = 0; i < sizeof ro / sizeof *ro; i++) {
		int c = sys_open_tree(m, ro[i], OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
		                      AT_RECURSIVE | AT_SYMLINK_NOFOLLOW);
		if (c < 0 && errno == ENOENT)
			continue;
		if (c < 0)
			die(EXIT_CONFINE, "unable to clone /proc/%s", ro[i]);
		set_attr(c, ATTR_RO, ro[i]);
		if (sys_move_mount(c, "", m, ro[i], MOVE_MOUNT_F_EMPTY_PATH) < 0)
			die(EXIT_CONFINE, "unable to mount /proc/%s read-only", ro[i]);
		close(c);
	}
	close(m);
	mask_proc();
	return 1;
}

/* For the landlock step's setgid server (landlock/setgid.c), which finds
 * a caller's working directory in /proc/TID/cwd: a procfs of the run's
 * pid namespace, detached (no path leads to it), read-only, made while the
 * old root is still here as the kernel asks of a user namespace. It stays
 * open across exec at the descriptor the walls record notes (procfd=FD);
 * the landlock step takes it and closes it, so the target never holds it.
 * Only in a chain (-W); where it cannot be made, nothing is noted and
 * the landlock step refuses the setgid bit everywhere, as before. */
void proc_for_landlock(void)
{
	static const char *const opts[] = { "hidepid", "invisible", "gid", "4294967295", NULL };
	char num[16];
	int m, fd;

	if (!walls_given() || (m = new_fs("proc", opts, ATTR_RO)) < 0)
		return;
	/* Above 0-2, which a caller may have left closed: the landlock step
	 * takes no lower one, and the target would hold it there. F_DUPFD
	 * leaves close-on-exec clear. Short of descriptors, no server. */
	fd = fcntl(m, F_DUPFD, 3);
	close(m);
	if (fd < 0)
		return;
	snprintf(num, sizeof num, "%d", fd);
	walls_note("procfd", num);
}

/* A fresh FS at PATH in the new root. */
static void fresh(const char *fs, const char *const *opts, __u64 attr, const char *path,
                  const char *what)
{
	int m;

	mount_point(path, 1);
	at_root_forget();	/* two descriptors at once below: a low RLIMIT_NOFILE */
	if ((m = new_fs(fs, opts, attr)) < 0)
		die(EXIT_CONFINE, "unable to mount %s", what);
	attach(m, path, 1);
	close(m);
}

/* /dev: a tmpfs with the usual nodes bound from the host (read-only
 * mounts: a node is written through one all the same), a private
 * /dev/shm, and the /proc/self/fd links (bwrap --dev). Named whole (WHOLE)
 * it also has tty and a private devpts with its ptmx; granted nowhere
 * (DESIGN.md 4.5) it has neither: a command that needs a terminal or a pty
 * gets them only when the policy asks. Nothing else of the host's /dev,
 * even when /dev is a write path: the tmpfs is nodev, so a node made there
 * opens nothing. */
void mount_dev(struct ent *e, int whole)
{
	static const char *const nodes[] = { "null", "zero", "full", "random",
	                                     "urandom", "tty" };
	static const char *const sym[][2] = { { "fd", "/proc/self/fd" },
		{ "stdin", "/proc/self/fd/0" }, { "stdout", "/proc/self/fd/1" },
		{ "stderr", "/proc/self/fd/2" }, { "ptmx", "pts/ptmx" } };
	static const char *const tmpfs_opts[] = { "mode", "0755", NULL };
	static const char *const shm_opts[] = { "mode", "1777", NULL };
	static const char *const pts_opts[] = { "newinstance", NULL,
		"ptmxmode", "0666", "mode", "620", NULL };
	/* the last node and the last link are a terminal's */
	size_t nnodes = sizeof nodes / sizeof *nodes - !whole;
	size_t nsym = sizeof sym / sizeof *sym - !whole;
	__u64 attr = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC | MOUNT_ATTR_NODEV;
	char path[32];
	struct stat st;
	int m, d, dir;

	/* no rule's directory held open meanwhile: a low RLIMIT_NOFILE */
	host_forget();
	at_root_forget();
	mount_point("/dev", 1);
	at_root_forget();
	m = new_fs("tmpfs", tmpfs_opts, attr);
	if (m < 0 || fstat(m, &st) < 0)
		die(EXIT_CONFINE, "unable to mount a tmpfs for /dev");
	our_dev[1] = st.st_dev;
	dev_whole = whole;
	attach(m, "/dev", 1);
	close(m);
	for (size_t i = 0; i < nnodes; i++) {
		snprintf(path, sizeof path, "/dev/%s", nodes[i]);
		if ((d = clone_host(path, &dir)) < 0)
			continue;
		set_attr(d, (e->attr & ~(__u64)MOUNT_ATTR_NODEV) | MOUNT_ATTR_RDONLY, path);
		attach(d, path, dir);
		close(d);
	}
	if ((m = at_root("/dev", 0, 1)) < 0)
		die(EXIT_CONFINE, "unable to open /dev in the new root");
	for (size_t i = 0; i < nsym; i++)
		if (symlinkat(sym[i][1], m, sym[i][0]) < 0)
			die(EXIT_CONFINE, "unable to make the symlink /dev/%s", sym[i][0]);
	close(m);
	if (whole)
		fresh("devpts", pts_opts, attr & ~(__u64)MOUNT_ATTR_NODEV, "/dev/pts",
		      "a private devpts");
	fresh("tmpfs", shm_opts, attr, "/dev/shm", "a private /dev/shm");
}
