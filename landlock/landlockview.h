/* sharness-exec-landlock's rules for what this run's view made
 * (landlockview.c): READ_DIR on its root, the private devpts and a built
 * /dev's nodes and /dev/shm (-R). */
#ifndef SHARNESS_LANDLOCKVIEW_H
#define SHARNESS_LANDLOCKVIEW_H

#include <linux/types.h>

void view_opt_root(void);               /* -R */
/* 1 when / is the root that this run's view step made. */
int view_stands(void);
/* Add the rules of -R that stand to the ruleset FD. (-T is a rule of
 * landlock.c's list, written where the walls record notes the tmpfs.) */
void view_rules(int fd, __u64 handled);
/* What the front end's socket scan found listening beneath a read or exec
 * path (the walls record's listener, sockscan.h), or NULL: beneath /dev
 * (listener_dev) only where the view did not build /dev, which then shows
 * nothing of the host's. */
const char *view_listener(void);

#endif
