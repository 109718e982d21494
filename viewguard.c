/* sharness-exec-view: what holds a weak spot of the view (view.h): the
 * kernel-wide files of /proc that container runtimes mask are masked. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/mount.h>

#include "common.h"
#include "view.h"

/* /proc's kernel-wide files and directories that container runtimes mask,
 * where they exist: /dev/null over a file, an empty read-only tmpfs over
 * a directory. PROC is the fresh procfs. */
void mask_proc(int proc)
{
	static const char *const masked[] = { "keys", "kcore", "timer_list",
		"timer_stats", "sched_debug", "latency_stats", "acpi", "asound", "scsi" };
	static const char *const empty[] = { "mode", "0555", "size", "4k",
		"nr_inodes", "1", NULL };
	struct stat st;
	int m, dir;

	for (size_t i = 0; i < sizeof masked / sizeof *masked; i++) {
		if (fstatat(proc, masked[i], &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT)
				continue;
			die(EXIT_CONFINE, "unable to stat /proc/%s", masked[i]);
		}
		if (S_ISDIR(st.st_mode))
			m = new_fs("tmpfs", empty, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
			           MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
		else if ((m = clone_host("/dev/null", &dir)) >= 0)
			set_attr(m, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
			         MOUNT_ATTR_NOEXEC, "/dev/null");
		if (m < 0 || sys_move_mount(m, "", proc, masked[i], MOVE_MOUNT_F_EMPTY_PATH) < 0)
			die(EXIT_CONFINE, "unable to mask /proc/%s", masked[i]);
		close(m);
	}
}
