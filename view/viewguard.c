/* sharness-exec-view: what holds a write path's weak spots (view.h). The
 * walk of the write paths (viewwalk.c) holds set-id files, sockets and VCS
 * metadata; where no view stands, what it finds is refused. The
 * directories between a protected path and the write path above it are
 * bound onto themselves, since a mount point cannot be renamed (EBUSY):
 * the protected tree cannot be moved aside and a new one made in its
 * place. The kernel-wide files of /proc that container runtimes mask are
 * masked. A working directory that the view shows empty draws one line. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/mount.h>

#include "common.h"
#include "helper.h"
#include "text.h"
#include "view.h"

/* A directory onto itself, with what is mounted beneath it. */
static void pin(const char *dir)
{
	int fd = at_root(dir, 0, 1), m;

	if (fd < 0 && errno == ENOENT)
		return;
	if (fd < 0)
		die(EXIT_CONFINE, "unable to open %s in the new root", dir);
	m = sys_open_tree(fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
	                  AT_RECURSIVE | AT_EMPTY_PATH);
	if (m < 0 || sys_move_mount(m, "", fd, "", MOVE_MOUNT_F_EMPTY_PATH |
	                            MOVE_MOUNT_T_EMPTY_PATH) < 0)
		die(EXIT_CONFINE, "unable to bind %s onto itself", dir);
	close(m);
	close(fd);
}

/* Each directory strictly between a protected path and the outermost
 * write path above it, once (ENTS sorted, parents first). */
static void pin_protected(const struct ent *ents, size_t nents)
{
	char dir[PATH_MAX];

	for (size_t i = 0; i < nents; i++) {
		const char *p = ents[i].path, *top = NULL;
		int under_prot = 0;
		if (!(ents[i].rights & PROT))
			continue;
		for (size_t j = 0; j < nents; j++) {
			if (j == i || !path_beneath(p, ents[j].path) || !strcmp(p, ents[j].path))
				continue;
			under_prot |= (ents[j].rights & PROT) != 0;
			if ((ents[j].rights & W) && (!top || strlen(ents[j].path) < strlen(top)))
				top = ents[j].path;
		}
		if (!top || under_prot)
			continue;	/* read-only above it already */
		for (size_t k = strlen(top) + 1; p[k]; k++) {
			int done = 0;
			if (p[k] != '/')
				continue;
			memcpy(dir, p, k);
			dir[k] = '\0';
			for (size_t j = 0; j < i && !done; j++)
				done = (ents[j].rights & PROT) && path_beneath(ents[j].path, dir) &&
					strcmp(ents[j].path, dir);
			if (!done)
				pin(dir);
		}
	}
}

/* In the view, once every path is bound. */
void guard_writes(const struct ent *ents, size_t nents)
{
	static struct walk_found found[WALK_KINDS];
	size_t held;

	walk_writes(ents, nents, 1, found);
	held = hold_gitdirs(ents, nents);
	if (view_verbose && held)
		fprintf(stderr, "%s: %zu gitdirs that .git files or links name held "
		        "read-only\n", progname, held);
	pin_protected(ents, nents);
}

/* Where no view stands: nothing can hold a set-id file, a directory the
 * walk cannot list, or VCS metadata read-only. */
void guard_no_view(const struct ent *ents, size_t nents)
{
	static const char *const what[WALK_KINDS] = {
		[WALK_SETID] = "is set-id or has file capabilities",
		[WALK_VCS] = "is VCS metadata (-V leaves it writable)",
		[WALK_UNLISTED] = "is a directory this step cannot list, which the "
		                  "target can search",
	};
	static struct walk_found found[WALK_KINDS];
	char more[40];

	walk_writes(ents, nents, 0, found);
	for (int k = 0; k < WALK_KINDS; k++) {
		if (!found[k].n)
			continue;
		more[0] = '\0';
		if (found[k].n > 1)
			snprintf(more, sizeof more, " (and %zu more)", found[k].n - 1);
		if (!view_best)
			die_hint(EXIT_CONFINE, 0, "-b (--best-effort) runs with them writable",
			         "refused: %s%s %s, beneath a write path, and without a "
			         "mount namespace nothing holds it read-only",
			         qn(found[k].first), more, what[k]);
		warnx_("best effort: %s%s %s, beneath a write path, and stays writable",
		       qn(found[k].first), more, what[k]);
	}
}

/* /proc's kernel-wide files and directories that container runtimes mask,
 * where they exist: /dev/null over a file, an empty read-only tmpfs over
 * a directory. Two descriptors at a time, as the rest of the step: a
 * low RLIMIT_NOFILE leaves no more. */
void mask_proc(void)
{
	static const char *const masked[] = { "keys", "kcore", "timer_list",
		"key-users", "timer_stats", "sched_debug", "latency_stats", "acpi", "asound", "scsi" };
	static const char *const empty[] = { "mode", "0555", "size", "4k",
		"nr_inodes", "1", NULL };
	char path[32];
	struct stat st;
	int fd, m, dir;

	for (size_t i = 0; i < sizeof masked / sizeof *masked; i++) {
		snprintf(path, sizeof path, "/proc/%s", masked[i]);
		if ((fd = at_root(path, 0, 0)) < 0 && errno == ENOENT)
			continue;
		if (fd < 0 || fstat(fd, &st) < 0)
			die(EXIT_CONFINE, "unable to open %s", path);
		close(fd);
		dir = S_ISDIR(st.st_mode);
		if (dir)
			m = new_fs("tmpfs", empty, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
			           MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
		else if ((m = clone_host("/dev/null", &dir)) >= 0)
			set_attr(m, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
			         MOUNT_ATTR_NOEXEC, "/dev/null");
		if (m < 0)
			die(EXIT_CONFINE, "unable to mask %s", path);
		attach(m, path, dir);
		close(m);
	}
}

/* The working directory CWD, outside every policy path: empty here
 * (not on the way to a policy path) draws one line; the root never does.
 * Read with next_dirent, to its end (which leaves it ready for the next
 * directory): opendir(3) would allocate a page of its own and free it. */
void warn_cwd(const char *cwd)
{
	unsigned char type;
	int d, empty;

	if (!strcmp(cwd, "/") || (d = openat(AT_FDCWD, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return;
	for (empty = 1; next_dirent(d, &type); empty = 0)
		;
	close(d);
	if (empty)
		warnx_("the working directory %s lies outside the policy: it is an "
		       "empty directory here; add it to files.read (or files.write) "
		       "to see it", qn(cwd));
}
