/* sharness-exec-view: files.tmpfs (-T PATH, -M MIB), a fresh, empty tmpfs
 * at each path, private to the run; and the notes in the walls record
 * (rights.h) by which the landlock step knows the tmpfs mounts of this
 * run's view: the new root, where it may then grant READ_DIR (only policy
 * paths and the directories on the way to them lie beneath it), /dev,
 * whose devpts is then the run's own, and each -T path, which is then
 * writable. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/mount.h>
#include <linux/openat2.h>

#include "common.h"
#include "helper.h"
#include "text.h"
#include "view.h"
#include "rights.h"

#define TMPFS_DEFAULT_MIB 1024
/* One inode per page of the size: a file with data takes at least one,
 * so the bound on inodes holds empty files and directories, and never
 * bites first on files with data. */
#define INODES_PER_MIB 256

static char **tmps;
static size_t ntmps;
static unsigned long tmp_mib = TMPFS_DEFAULT_MIB;

void tmpfs_add(char *path)
{
	if (!strcmp(path, "/"))
		usage_fail(VIEW_USAGE, "unable to mount a tmpfs at /: the new root is one already");
	for (size_t i = 0; i < ntmps; i++) {
		if (!strcmp(tmps[i], path)) {
			free(path);
			return;
		}
		if (path_beneath(path, tmps[i]) || path_beneath(tmps[i], path))
			usage_fail(VIEW_USAGE, "unable to mount a tmpfs at both %s and "
			           "%s: one would hide the other", tmps[i], path);
	}
	if (!(tmps = reallocarray(tmps, ntmps + 1, sizeof *tmps)))
		die(EXIT_REFUSED, "out of memory");
	tmps[ntmps++] = path;
}

void tmpfs_size(const char *arg)
{
	if (!parse_ulong(arg, 1, 1048576, &tmp_mib))
		usage_fail(VIEW_USAGE, "unable to parse -M %s: not a size in MiB (1-1048576)", arg);
}

/* A path of the other options at a -T path: refused (125). One beneath
 * is bound on top of the tmpfs (view.c's bind_all mounts each tmpfs in
 * tree order, before the paths beneath it). */
void tmpfs_refuse_beneath(const char *path)
{
	for (size_t i = 0; i < ntmps; i++)
		if (!strcmp(path, tmps[i]))
			usage_fail(VIEW_USAGE, "unable to mount a tmpfs at %s: it is "
			           "a path of another option too", tmps[i]);
}

size_t tmpfs_count(void)
{
	return ntmps;
}

const char *tmpfs_path(size_t i)
{
	return tmps[i];
}

/* Without a mount namespace there is no private tmpfs: refused (126), or
 * with -b each path keeps what the other options grant, and no more: the
 * walls record notes none, so the landlock step writes no rule there, and
 * says so in one line for each path. */
void tmpfs_no_view(int err)
{
	if (ntmps && !view_best)
		die_hint(EXIT_CONFINE, err, "-b (--best-effort) runs without them: "
		         "each path keeps only what the lists grant",
		         "unable to make a mount namespace, which the private "
		         "tmpfs paths (-T) need");
}

/* What the landlock step may grant only on what this view made (the
 * walls record, rights.h): its root a tmpfs of its own, /dev built with a
 * private devpts (named whole) or the default one (granted nowhere: its
 * usual nodes and private /dev/shm need rules of their own); each -T
 * path is noted as it is mounted. */
void note_ours(void)
{
	if (our_dev[0])
		walls_note("root", "tmpfs");
	if (our_dev[1])
		walls_note("dev", dev_whole ? "built" : "default");
	if (our_dev[1] && !dev_shm_bound)
		walls_note("shm", "private");
}

/* CWD's directories beneath the tmpfs at PATH, made in it (open on MNT),
 * so that the working directory keeps its path. */
static void make_cwd(int mnt, const char *path, const char *cwd)
{
	char buf[PATH_MAX];
	const char *rest = cwd + strlen(path) + (strcmp(path, "/") != 0);

	if (!path_beneath(cwd, path) || !*rest)
		return;
	snprintf(buf, sizeof buf, "%s", rest);
	for (char *s = buf; s; ) {
		s = strchr(s, '/');
		if (s)
			*s = '\0';
		if (mkdirat(mnt, buf, 0755) < 0 && errno != EEXIST)
			die(EXIT_CONFINE, "unable to make the working directory %s", cwd);
		if (s)
			*s++ = '/';
	}
}

/* The -T path PATH: a fresh tmpfs, nosuid, nodev, mode 1777 (the run's
 * uid and, under run --user, the uid it drops to both write it), size and
 * inodes bounded, mounted over whatever the binds above it put there and
 * below the paths beneath it (bound next, in tree order), and noted in
 * the walls record. */
void mount_tmpfs(const char *path, const char *cwd)
{
	char size[32], inodes[32];
	const char *opts[] = { "mode", "1777", "size", size, "nr_inodes", inodes, NULL };
	struct stat st;
	int m, d;

	snprintf(size, sizeof size, "%lum", tmp_mib);
	snprintf(inodes, sizeof inodes, "%lu", tmp_mib * INODES_PER_MIB);
	m = new_fs("tmpfs", opts, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	if (m < 0)
		die(EXIT_CONFINE, "unable to mount a tmpfs for %s", path);
	if ((d = openat(m, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 || fstat(d, &st) < 0)
		die(EXIT_CONFINE, "unable to open the tmpfs for %s", path);
	ours_add(st.st_dev);	/* the paths beneath it get mount points there */
	make_cwd(d, path, cwd);
	files_points(d, path);
	close(d);
	attach(m, path, 1);
	close(m);
	walls_note("tmpfs", path);
}
