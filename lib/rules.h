/* The helpers' path rules, one parser for the view and landlock steps
 * (DESIGN.md 4.5, 4.6): the path after -r, -x, -w and the other letters
 * that take one, read the same way in both, and what each of -r -x -w
 * grants. The front end hands both steps the same words. */
#ifndef SHARNESS_RULES_H
#define SHARNESS_RULES_H

/* What a rule grants, in both steps: -r read, -x read and exec, -w
 * write, which implies read and exec (the view's R X W). */
enum { RULE_READ = 1, RULE_EXEC = 2, RULE_WRITE = 4 };

/* The grant of option letter OPT: RULE_READ for r, RULE_EXEC for x,
 * RULE_WRITE for w, 0 for any other. */
unsigned rule_grant(int opt);

/* ARG, the path of option -OPT, on the heap: absolute, slashes collapsed,
 * no trailing slash ("/" stays "/"). Refused with USAGE (usage_fail, 125):
 * "unable to parse -OPT ARG: not an absolute path" (a relative path, or
 * one PATH_MAX long or longer), or "...: has a . or .. component". */
char *rule_path(int opt, const char *arg, const char *usage);
/* The same, for an option named NAME as written: "--symlink" (a long
 * option, whose letter means something else in the table of letters). */
char *rule_path_named(const char *name, const char *arg, const char *usage);

#endif
