/* sharness-exec-view: files.tmpfs (-m PATH, -M MIB), a fresh, empty tmpfs
 * at each path, private to the run; and the marks (viewmark.h) by which the
 * landlock step knows the tmpfs mounts of this run's view: the new root,
 * where it may then grant READ_DIR (only policy paths and the directories
 * on the way to them lie beneath it), /dev, whose devpts is then the run's
 * own, and each -m path, which is then writable. */
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
#include "viewmark.h"

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

/* A path of the other options at or beneath a -m path would be hidden by
 * the tmpfs: refused (125). */
void tmpfs_refuse_beneath(const char *path)
{
	for (size_t i = 0; i < ntmps; i++)
		if (path_beneath(path, tmps[i]))
			usage_fail(VIEW_USAGE, "unable to mount a tmpfs at %s: it would "
			           "hide %s", tmps[i], path);
}

/* Without a mount namespace there is no private tmpfs: refused (126), or
 * with -b each path keeps what the other options grant, and no more: the
 * landlock step finds no mark there, writes no rule, and says so in one
 * line for each path (it also does where a kernel could not mark one). */
void tmpfs_no_view(int err)
{
	if (ntmps && !view_best)
		die_hint(EXIT_CONFINE, err, "-b (--best-effort) runs without them: "
		         "each path keeps only what the lists grant",
		         "unable to make a mount namespace, which the private "
		         "tmpfs paths (-m) need");
}

/* The directory DFD, the root of a tmpfs the view made, marked; where the
 * kernel cannot (viewmark.h), or a filter of an outer sandbox refuses
 * pidfd_open, nothing: the mark only ever grants, and the landlock step
 * says so for each -m path it then leaves without a rule. */
static void mark_fd(int dfd)
{
	(void)view_mark(dfd);
}

static void mark_at(const char *rel, dev_t dev)
{
	struct open_how how = { .flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
	                        .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH };
	struct stat st;
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, rel, &how, sizeof how);

	if (fd < 0)
		return;
	if (dev && fstat(fd, &st) == 0 && st.st_dev == dev)
		mark_fd(fd);
	close(fd);
}

/* The new root (the working directory while it is built) and a built
 * /dev, before they are made read-only. */
void mark_ours(void)
{
	mark_at(".", our_dev[0]);
	mark_at("dev", our_dev[1]);
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

/* Each -m path: a fresh tmpfs, nosuid, nodev, mode 1777 (the run's uid
 * and, under run --user, the uid it drops to both write it), size and
 * inodes bounded, marked, then mounted over whatever the binds put there. */
void mount_tmpfs(const char *cwd)
{
	char size[32], inodes[32];
	const char *opts[] = { "mode", "1777", "size", size, "nr_inodes", inodes, NULL };
	int m, d;

	snprintf(size, sizeof size, "%lum", tmp_mib);
	snprintf(inodes, sizeof inodes, "%lu", tmp_mib * INODES_PER_MIB);
	for (size_t i = 0; i < ntmps; i++) {
		m = new_fs("tmpfs", opts, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
		if (m < 0)
			die(EXIT_CONFINE, "unable to mount a tmpfs for %s", tmps[i]);
		if ((d = openat(m, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
			die(EXIT_CONFINE, "unable to open the tmpfs for %s", tmps[i]);
		mark_fd(d);
		make_cwd(d, tmps[i], cwd);
		close(d);
		attach(m, tmps[i], 1);
		close(m);
	}
}
