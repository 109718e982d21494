/* sharness-exec-view, one step in four files: view.c (the arguments, the
 * rights of each path, the order of the build, pivot_root), viewfs.c (the
 * mount primitives: detached mounts, clones of host paths opened without
 * following a symlink, mount points on our own tmpfs), viewdev.c (what is
 * made rather than bound: /proc and a minimal /dev), viewguard.c (what
 * holds a write path's weak spots: protected trees that could be moved
 * aside, set-id files; the masked parts of /proc; the cwd's warning),
 * viewtmp.c (the private tmpfs paths of -T, and the notes that tell the
 * landlock step which tmpfs mounts this view made), viewplan.c (each
 * path's rights in one pass), viewfiles.c (the files of --file, from
 * sealed memfds: run --passwd-fd, --group-fd), viewlinks.c (the symlinks:
 * --symlink, and the host's above the bound paths). */
#ifndef SHARNESS_VIEW_H
#define SHARNESS_VIEW_H

#include <limits.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <linux/types.h>
#include "rules.h"

#define VIEW_USAGE "sharness-exec-view [-btvV] [-A ABI] [-E FD] [-W FD] [-r PATH]... [-x PATH]... " \
	"[-w PATH]... [-P PATH]... [-T PATH]... [-M MIB] [--symlink LINK=TARGET]... " \
	"[--file PATH=FD]... [-s PATH]... [--] PROGRAM [ARG...]"

/* Rights, as the landlock step grants them: write implies read and exec
 * (rules.h, the one reading of -r -x -w). */
enum { R = RULE_READ, X = RULE_EXEC, W = RULE_WRITE, PROT = 8 };
/* An entry that is a -T path: a fresh tmpfs, mounted before the paths
 * beneath it are bound on top (not a right: no entry beneath inherits it). */
#define TMPFS 0x100

struct ent {
	char *path;
	unsigned rights;	/* its own: a mask of R X W PROT (0: implied) */
	unsigned eff;		/* with its ancestors', PROT applied */
	__u64 attr;		/* what it was mounted with */
	int mounted;		/* 1 bound or fresh, 2 built (/dev), 3 a tmpfs (-T) */
	size_t up;		/* its nearest ancestor's index (viewplan.c) */
};

extern int view_best;		/* -b */
extern dev_t our_dev[2];	/* the tmpfs mounts we made: the root, /dev */

/* viewfiles.c: --file PATH=FD, read and closed at once (125 when FD is not a
 * sealed memfd); how many; their mount points in a -T tmpfs at PATH (DIR)
 * before it is attached; each bound read-only at its path, after the
 * binds and the tmpfs paths. */
void file_add(char *arg);
size_t files_count(void);
void files_points(int dir, const char *path);
void files_mount(void);

/* viewfs.c */
int new_fs(const char *fs, const char *const *opts, __u64 attr);
int ours(int fd);
/* DEV is a tmpfs of ours too (a -T path's): mount points go on it. */
void ours_add(dev_t dev);
int at_root(const char *path, int create, int dir);
/* PATH (absolute) in the new root, a directory opened for reading, with
 * at_root's resolution (no symlink on the way, mounts followed); -1 with
 * errno. */
int read_in_root(const char *path);
void at_root_forget(void);
extern struct stat clone_st;	/* what clone_host or clone_at cloned last */
void mount_point(const char *path, int dir);
void attach(int mnt, const char *path, int dir);
int clone_host(const char *path, int *dir);
/* clone_host for the rules, in tree order: a sibling of the last is cloned
 * by its name beneath their directory (viewfs.c's host_fd); host_forget
 * closes that directory once the rules are bound. */
int clone_rule(const char *path, int *dir);
void host_forget(void);
int clone_at(int dfd, const char *path, int *dir);
void set_attr(int m, __u64 attr, const char *path);
int sys_open_tree(int dfd, const char *path, unsigned flags);
int sys_move_mount(int from, const char *fpath, int to, const char *tpath,
                   unsigned flags);
int sys_setattr(int dfd, const char *path, unsigned flags, __u64 set);
void bind_steps(char *const *next);

/* viewtmp.c */
void tmpfs_add(char *path);
void tmpfs_size(const char *arg);
void tmpfs_refuse_beneath(const char *path);
void tmpfs_no_view(int err);
void note_ours(void);
size_t tmpfs_count(void);
const char *tmpfs_path(size_t i);
void mount_tmpfs(const char *path, const char *cwd);

/* viewdev.c */
int mount_proc(struct ent *e);
void proc_for_landlock(void);
/* /dev built: named whole (WHOLE 1, dev_whole then 1), or granted by
 * no path (0). */
void mount_dev(struct ent *e, int whole);
extern int dev_whole;
extern int dev_shm_bound;	/* a policy path at or beneath /dev/shm */

/* viewplan.c; plan_effective: PATH's rights by ENTS (any order), the
 * union of its own and its ancestors', write implying read and exec,
 * less write at or beneath a protected path. */
size_t plan_sort(struct ent *ents, size_t nents);
void plan_rights(struct ent *ents, size_t nents);
unsigned plan_effective(const struct ent *ents, size_t nents, const char *path);

/* viewlinks.c: LINK -> TARGET (--symlink) in the new root; the host's symlinks
 * above ENTS (planned, bound, in tree order) that lead into the view. */
void make_link(const char *link, const char *target);
void host_links(const struct ent *ents, size_t nents);

/* viewwalk.c: each write path not beneath another walked, in the view
 * (VIEW) what it finds held (viewhold.c); FOUND: what it met of each
 * kind, the first named. */
enum { WALK_SETID, WALK_VCS, WALK_UNLISTED, WALK_KINDS };
struct walk_found { size_t n; char first[PATH_MAX]; };
void walk_writes(const struct ent *ents, size_t nents, int view,
                 struct walk_found found[WALK_KINDS]);

/* viewhold.c: -V (VCS metadata writable), -v (a line for each write
 * path's walk), Landlock holds the sockets (ABI 9: no covering); -s PATH,
 * a host socket left uncovered. The caller's mount table, read once
 * before the view's namespace is made: whether set-id can take effect on
 * DEV (1 unless its every mount there is nosuid, or where it is not
 * found), and whether any mount lies beneath PATH. What the walk holds:
 * NAME in DFD bound read-only onto itself (TREE: a directory, with its
 * submounts), a socket covered, the gitdir a .git file or link names
 * (held by hold_gitdirs once every write path is walked: how many). */
extern int view_vcs, view_verbose, view_sockets_held;
void keep_add(char *path);
int keep_named(const char *path);
void suid_mounts_read(void);
int suid_possible(dev_t dev);
int suid_mounts_beneath(const char *path);
void hold_ro(int dfd, const char *name, const char *path, int tree);
void hold_socket(int dfd, const char *name, const char *path);
void hold_gitdir_of(int dfd, const char *name, const char *path, int link);
size_t hold_gitdirs(const struct ent *ents, size_t nents);

/* viewguard.c */
void guard_writes(const struct ent *ents, size_t nents);
void guard_no_view(const struct ent *ents, size_t nents);
void mask_proc(void);
void warn_cwd(const char *cwd);

#endif
