/* sharness-exec-landlock's rules for what this run's view made
 * (landlockview.c): READ_DIR on its root and the private devpts (-R), and
 * the private tmpfs paths (-T). */
#ifndef SHARNESS_LANDLOCKVIEW_H
#define SHARNESS_LANDLOCKVIEW_H

#include <linux/types.h>

void view_opt_root(void);               /* -R */
void view_opt_tmpfs(const char *path);  /* -T PATH */
/* 1 when / is the root that this run's view step made. */
int view_stands(void);
/* Add the rules of -R and -T that stand to the ruleset FD. */
void view_rules(int fd, __u64 handled);

#endif
