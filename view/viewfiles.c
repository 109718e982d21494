/* sharness-exec-view: --file PATH=FD, the files the view is given whole (run
 * --passwd-fd and --group-fd: /etc/passwd and /etc/group), whether or
 * not the policy grants the directory they are in (view.h). FD is a
 * sealed memfd, read once as the step starts and closed, so the target
 * never holds it. A memfd cannot be bound (it lives on no mount of this
 * namespace), so its bytes go to a file on a small tmpfs of our own, and
 * that one file is bound read-only, nosuid, nodev, noexec at PATH. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/mount.h>

#include "common.h"
#include "helper.h"
#include "view.h"

#ifndef MNT_DETACH
#define MNT_DETACH 2
#endif
#ifndef UMOUNT_NOFOLLOW
#define UMOUNT_NOFOLLOW 8
#endif

#define FILE_MAX (1 << 20)	/* bytes of one file, as the front end's */

static struct vfile {
	char *path, *text;
	size_t len;
} *files;
static size_t nfiles;

void file_add(char *arg)
{
	char *eq = strrchr(arg, '='), *path;
	unsigned long fd;
	struct vfile *f;

	if (!eq || !parse_ulong(eq + 1, 3, 1 << 20, &fd))
		usage_fail(VIEW_USAGE, "unable to parse --file %s: not PATH=FD, FD above 2", qn(arg));
	*eq = '\0';
	path = rule_path('F', arg, VIEW_USAGE);
	if (strrchr(path, '/') == path)
		usage_fail(VIEW_USAGE, "unable to parse --file %s: a file directly in / is "
		           "not given", path);
	for (size_t i = 0; i < nfiles; i++)
		if (!strcmp(files[i].path, path))
			usage_fail(VIEW_USAGE, "unable to parse --file %s: given twice", path);
	if (!(files = reallocarray(files, nfiles + 1, sizeof *files)))
		die(EXIT_REFUSED, "out of memory");
	f = &files[nfiles++];
	f->path = path;
	if (!(f->text = sealed_read((int)fd, FILE_MAX, &f->len)))
		die_hint(EXIT_REFUSED, errno, errno == EPERM ? "a memfd sealed with F_SEAL_WRITE, "
		         "F_SEAL_GROW, F_SEAL_SHRINK and F_SEAL_SEAL" : NULL,
		         "unable to read --file %s=%lu", path, fd);
	close((int)fd);
}

size_t files_count(void)
{
	return nfiles;
}

/* The mount points of the files beneath the tmpfs of -T at PATH, made in
 * it (DIR, open on it) before it is attached: no mount point is made on
 * a tmpfs not the view's own afterwards. */
void files_points(int dir, const char *path)
{
	char buf[PATH_MAX];

	for (size_t i = 0; i < nfiles; i++) {
		if (!path_beneath(files[i].path, path) || !strcmp(files[i].path, path))
			continue;
		snprintf(buf, sizeof buf, "%s", files[i].path + strlen(path) + 1);
		for (char *s = buf; (s = strchr(s, '/')); *s++ = '/') {
			*s = '\0';
			if (mkdirat(dir, buf, 0755) < 0 && errno != EEXIST)
				die(EXIT_CONFINE, "unable to make the directory of %s", files[i].path);
		}
		if (mknodat(dir, buf, S_IFREG | 0644, 0) < 0 && errno != EEXIST)
			die(EXIT_CONFINE, "unable to make the mount point %s", files[i].path);
	}
}

/* A detached tmpfs holding F's bytes as the file "f", mode 0444. */
static int data_fs(const struct vfile *f)
{
	static const char *const opts[] = { "mode", "0755", "size", "2m",
	                                    "nr_inodes", "8", NULL };
	int data = new_fs("tmpfs", opts, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
	                  MOUNT_ATTR_NOEXEC), fd;

	if (data < 0)
		die(EXIT_CONFINE, "unable to mount a tmpfs for %s", f->path);
	fd = openat(data, "f", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);
	if (fd < 0 || write_all(fd, f->text, f->len) < 0 || fchmod(fd, 0444) < 0 ||
	    close(fd) < 0)
		die(EXIT_CONFINE, "unable to write %s on its tmpfs", f->path);
	return data;
}

/* F at its path: the tmpfs of data_fs attached for a moment on F's
 * directory, so that its file can be cloned (open_tree(2) clones nothing
 * from a detached mount, EINVAL, but on the newest kernels), and taken
 * off again at once; then the
 * clone, read-only, at F's path (a mount point made on our own tmpfs
 * where the host's is missing). */
static void mount_file(const struct vfile *f)
{
	char dir[PATH_MAX];
	int data = data_fs(f), mp, top, m;

	snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(f->path, '/') - f->path), f->path);
	if ((mp = at_root(dir, 1, 1)) < 0)
		die(EXIT_CONFINE, "unable to make the directory %s in the new root", dir);
	if (sys_move_mount(data, "", mp, "", MOVE_MOUNT_F_EMPTY_PATH |
	                   MOVE_MOUNT_T_EMPTY_PATH) < 0)
		die(EXIT_CONFINE, "unable to mount a tmpfs on %s", dir);
	close(mp);
	close(data);
	if ((top = at_root(dir, 0, 1)) < 0 ||
	    (m = sys_open_tree(top, "f", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
	                       AT_SYMLINK_NOFOLLOW)) < 0)
		die(EXIT_CONFINE, "unable to clone the file for %s", f->path);
	close(top);
	/* DIR, relative to the new root that is the working directory: no
	 * symlink on the way (at_root found none, and nothing else runs in
	 * this namespace), and the last one is not followed. */
	if (umount2(dir + 1, MNT_DETACH | UMOUNT_NOFOLLOW) < 0)
		die(EXIT_CONFINE, "unable to take the tmpfs off %s", dir);
	set_attr(m, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
	         MOUNT_ATTR_NOEXEC, f->path);
	attach(m, f->path, 0);
	close(m);
}

void files_mount(void)
{
	for (size_t i = 0; i < nfiles; i++) {
		mount_file(&files[i]);
		free(files[i].text);
	}
	if (nfiles)
		at_root_forget();
}
