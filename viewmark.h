/* The mark by which the landlock step knows a tmpfs that this very run's
 * view step made (viewmark.c): its root directory carries an extended
 * attribute naming the process that mounted it. The view and the landlock
 * steps are one process (the one execs the other), so only a tmpfs made by
 * the view step just before bears the landlock step's own name. */
#ifndef SHARNESS_VIEWMARK_H
#define SHARNESS_VIEWMARK_H

#define VIEW_MARK_XATTR "user.sharness-exec.view"

/* Mark the directory open on DFD (O_RDONLY, the root of a tmpfs of ours)
 * as this process's. 0, or -1 with errno: the kernel lacks pidfs (Linux
 * 6.9) or user xattrs on tmpfs (6.6); then nothing is marked, and the
 * landlock step grants nothing that needs the mark. */
int view_mark(int dfd);

/* 1 when PATH (absolute, opened following no symlink) is the root of a
 * tmpfs that this process marked; else 0. */
int view_marked(const char *path);

#endif
