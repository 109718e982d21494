/* sharness-exec-landlock: the rules that hold only where this run's view
 * stands (-R, -T), each written only on a tmpfs that the view step noted
 * in the walls record (rights.h) as its own: the record is the chain's,
 * which the target cannot reach (it does not exist yet, and the landlock
 * step closes the record before exec).
 *
 * -R, READ_DIR on /: a Landlock rule covers its directory's whole subtree,
 * so listing cannot be granted on one directory alone. Where the view's
 * root is its own tmpfs, everything beneath it is a policy path or a
 * directory made on the way to one (and the working directory and this
 * helper, bound there), so READ_DIR on it adds only the names of what the
 * policy grants. Where the view cannot stand, / is the host's, and the
 * same rule would list every directory of the machine: nothing is noted,
 * and no rule. Nor in a nested run whose own view cannot stand: its / is
 * the outer run's tmpfs, which the inner record does not note. Where / is
 * itself a policy path, its rule already grants this.
 *
 * -R, the pty: /dev named whole is a tmpfs of the view with a private
 * devpts (newinstance) at /dev/pts, /dev/ptmx a symlink into it, so read,
 * write and ioctl on /dev/pts reach the run's own ptys and no others. A
 * rule on /dev/ptmx itself is not needed (nor possible: it is a symlink,
 * and Landlock checks the file it leads to, /dev/pts/ptmx).
 *
 * -R, a /dev the view built (named whole, or the default one of a policy
 * that grants no /dev, DESIGN.md 4.5): the view's own tmpfs with the
 * usual nodes bound read-only from the host and a private tmpfs at
 * /dev/shm. Each of null, zero, full, random and urandom gets what
 * "write" would give a file, even where /dev is only read (null, zero, full, random and urandom: harmless to write,
 * their ioctls reach no hardware); /dev/shm, a tmpfs of the run's own,
 * what a write path gets but exec (it is noexec). Only where the record
 * says so and statfs agrees: elsewhere / is the host's, whose /dev/shm is
 * every user's.
 *
 * -T PATH, files.tmpfs, is a rule of landlock.c's list: a write rule on
 * PATH where the record notes it as the run's private tmpfs; elsewhere
 * (no view, -b) PATH keeps only what the other rules grant, and one line
 * says so. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/magic.h>

#include "common.h"
#include "helper.h"
#include "landlock-abi.h"
#include "landlockview.h"
#include "rights.h"

#define FS_NODE (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
	LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV)
#define FS_SHM (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
	LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_REMOVE_DIR | \
	LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_DIR | \
	LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK | \
	LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_SYM | \
	LANDLOCK_ACCESS_FS_REFER | LANDLOCK_ACCESS_FS_TRUNCATE | \
	LANDLOCK_ACCESS_FS_RESOLVE_UNIX)
#define FS_PTY (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
	LANDLOCK_ACCESS_FS_IOCTL_DEV)

static int root_opt;

void view_opt_root(void)
{
	root_opt = 1;
}

/* The view's root is its own tmpfs, as the view step noted. */
int view_stands(void)
{
	return walls_noted("root", "tmpfs");
}

/* /dev is the view's own, with its private devpts. */
static int view_pty(void)
{
	struct statfs sf;

	return walls_noted("dev", "built") && statfs("/dev/pts", &sf) == 0 &&
		sf.f_type == DEVPTS_SUPER_MAGIC;
}

/* /dev is one the view built: PATH there (/dev, /dev/shm) a tmpfs. */
static int view_dev(const char *path)
{
	struct statfs sf;

	return (walls_noted("dev", "default") || walls_noted("dev", "built")) &&
		statfs(path, &sf) == 0 && sf.f_type == TMPFS_MAGIC;
}

static void rule_as(int fd, const char *path, __u64 access, int flags)
{
	struct landlock_path_beneath_attr pb = { access, -1 };

	if (!access)
		return;
	if ((pb.parent_fd = open_nofollow(path, O_PATH | flags)) < 0)
		die(EXIT_CONFINE, "unable to open %s", qn(path));
	if (syscall(SYS_landlock_add_rule, fd, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0)
		die(EXIT_CONFINE, "unable to add a Landlock rule for %s", qn(path));
	close(pb.parent_fd);
}

static void rule(int fd, const char *path, __u64 access)
{
	rule_as(fd, path, access, O_DIRECTORY);
}

/* A built /dev's usual nodes (those the view found on the host) and its
 * /dev/shm. */
static void dev_rules(int fd, __u64 handled)
{
	static const char *const nodes[] = { "/dev/null", "/dev/zero", "/dev/full",
	                                     "/dev/random", "/dev/urandom" };
	struct stat st;

	for (size_t i = 0; i < sizeof nodes / sizeof *nodes; i++)
		if (lstat(nodes[i], &st) == 0 && S_ISCHR(st.st_mode))
			rule_as(fd, nodes[i], FS_NODE & handled, 0);
	/* not where a policy path binds the host's there (shm=private) */
	if (view_dev("/dev/shm") && walls_noted("shm", "private"))
		rule(fd, "/dev/shm", FS_SHM & handled);
}

void view_rules(int fd, __u64 handled)
{
	if (root_opt && view_stands())
		rule(fd, "/", LANDLOCK_ACCESS_FS_READ_DIR & handled);
	if (root_opt && view_pty())
		rule(fd, "/dev/pts", FS_PTY & handled);
	if (root_opt && view_dev("/dev"))
		dev_rules(fd, handled);
}

const char *view_listener(void)
{
	if (walls_value("listener"))
		return walls_value("listener");
	if (walls_noted("dev", "built") || walls_noted("dev", "default"))
		return NULL;
	return walls_value("listener_dev");
}
