/* The landlock step's switch to the user of run --user (--user UID:GID, -G
 * GIDS), made as root after everything that still needs capabilities and
 * before restrict_self (DESIGN.md 4.1, 4.6): drop_caps (landlock.c) drops the
 * bounding set and locks the securebits, then calls user_switch, then
 * clears every set and calls user_check. */
#ifndef SHARNESS_SWITCHUSER_H
#define SHARNESS_SWITCHUSER_H

/* --user UID:GID (UID not 0) and -G GID,GID...: parsed, refusing with USAGE
 * (125). */
void user_parse_ids(const char *arg, const char *usage);
void user_parse_groups(const char *arg, const char *usage);
/* Was --user given? */
int user_wanted(void);
/* setgroups (-G's, or none), setresgid, setresuid: all three ids each.
 * 126 on failure. */
void user_switch(void);
/* With the sets cleared: 126 unless every id is the user's and
 * setresuid(0, 0, 0) fails. */
void user_check(void);

#endif
