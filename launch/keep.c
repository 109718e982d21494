/* --keep (launch.h): after a launch that failed (main's status not 0, or
 * 126 and the like, or the launcher killed), the session's tmpfs, its
 * state directories and its status, is kept for inspection at
 * KEPT_DIR/NAME, NAME the manifest's id with every byte but
 * [A-Za-z0-9._-] as "_" (and a leading "." too), at most 64 bytes. The
 * watcher, the session's last process, clones the tmpfs (open_tree),
 * joins the host's mount namespace (which the launcher opened before it
 * left it) and mounts the clone there (move_mount), and says where, one
 * line. KEPT_DIR is root's, 0700: a uid of a later session, which may be
 * one of those that own the files kept, cannot reach them. The next
 * launch of the same id (kept or not) unmounts and removes it first, and
 * so does umount(8) of it. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/mount.h>

#include "common.h"
#include "launch.h"

static void kept_name(const struct launch *s, char out[65])
{
	const char *id = s->man.id;
	size_t i;

	for (i = 0; id[i] && i < 64; i++)
		out[i] = strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-",
		                id[i]) && (i || id[i] != '.') ? id[i] : '_';
	out[i] = '\0';
}

void keep_clear(struct launch *s)
{
	char name[65];
	int run, kept;

	kept_name(s, name);
	snprintf(s->kept, sizeof s->kept, "%s/%s", KEPT_DIR, name);
	if (access(s->kept, F_OK) < 0 && !s->keep)
		return;
	run = run_dir();
	kept = own_dir(run, "kept", 0700);
	while (umount2(s->kept, MNT_DETACH | UMOUNT_NOFOLLOW) == 0)
		;
	if (unlinkat(kept, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		die(EXIT_CONFINE, "unable to remove %s, kept by a launch before", s->kept);
	close(kept);
	close(run);
	if (s->keep && (s->hostmnt = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC)) < 0)
		die(EXIT_CONFINE, "unable to open the host's mount namespace for --keep");
}

int keep_move(const struct launch *s)
{
	const char *name = s->kept + sizeof KEPT_DIR;
	int tree, kept, run;

	tree = (int)syscall(SYS_open_tree, AT_FDCWD, SESSION_DIR,
	                    OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
	if (tree < 0 || setns(s->hostmnt, CLONE_NEWNS) < 0) {
		warnx_("unable to keep the state directories: %s", strerror(errno));
		return -1;
	}
	run = run_dir();
	kept = own_dir(run, "kept", 0700);
	if ((mkdirat(kept, name, 0700) < 0 && errno != EEXIST) ||
	    syscall(SYS_move_mount, tree, "", kept, name, MOVE_MOUNT_F_EMPTY_PATH) < 0) {
		warnx_("unable to keep the state directories in %s: %s", s->kept, strerror(errno));
		return -1;
	}
	fprintf(stderr, "%s: the session's state directories and status are kept in %s "
	        "until the next launch of this manifest's id, or umount %s\n", progname,
	        s->kept, s->kept);
	return 0;
}
