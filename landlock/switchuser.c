/* The switch to run --user's user in the landlock step (switchuser.h).
 * The numbers come from the front end, which resolved the name through
 * NSS before any namespace existed; nothing here looks a name up. */
#include <errno.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helper.h"
#include "switchuser.h"

#define ID_MAX 4294967294UL	/* (uid_t)-1 means "unchanged" to setresuid */
#define GROUPS_MAX 65536	/* the kernel's NGROUPS_MAX */

static struct {
	int on;
	uid_t uid;
	gid_t gid, *groups;
	size_t ngroups;
} u;

void user_parse_ids(const char *arg, const char *usage)
{
	const char *colon = strchr(arg, ':');
	char id[16];
	unsigned long uid, gid;

	if (!colon || (size_t)(colon - arg) >= sizeof id)
		usage_fail(usage, "unable to parse --user %s: not UID:GID", qn(arg));
	memcpy(id, arg, (size_t)(colon - arg));
	id[colon - arg] = '\0';
	if (!parse_ulong(id, 1, ID_MAX, &uid) || !parse_ulong(colon + 1, 0, ID_MAX, &gid))
		usage_fail(usage, "unable to parse --user %s: not UID:GID with a UID other than 0", qn(arg));
	u.on = 1;
	u.uid = (uid_t)uid;
	u.gid = (gid_t)gid;
}

void user_parse_groups(const char *arg, const char *usage)
{
	char *copy = strdup(arg), *w, *save = NULL;
	unsigned long gid;

	free(u.groups);
	u.ngroups = 0;
	u.groups = calloc(strlen(arg) / 2 + 1, sizeof *u.groups);
	if (!copy || !u.groups)
		diex(EXIT_REFUSED, "out of memory");
	for (w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (!parse_ulong(w, 0, ID_MAX, &gid) || u.ngroups == GROUPS_MAX)
			usage_fail(usage, "unable to parse -G %s: not a list of at most "
			           "%d GIDs, comma-separated", qn(arg), GROUPS_MAX);
		u.groups[u.ngroups++] = (gid_t)gid;
	}
	free(copy);
}

int user_wanted(void)
{
	return u.on;
}

void user_switch(void)
{
	if (setgroups(u.ngroups, u.groups) < 0)
		die(EXIT_CONFINE, "unable to set the supplementary groups of uid %lu",
		    (unsigned long)u.uid);
	if (setresgid(u.gid, u.gid, u.gid) < 0)
		die(EXIT_CONFINE, "unable to set gid %lu", (unsigned long)u.gid);
	if (setresuid(u.uid, u.uid, u.uid) < 0)
		die(EXIT_CONFINE, "unable to set uid %lu", (unsigned long)u.uid);
}

void user_check(void)
{
	uid_t r, e, s;
	gid_t rg, eg, sg;

	if (getresuid(&r, &e, &s) < 0 || getresgid(&rg, &eg, &sg) < 0 ||
	    r != u.uid || e != u.uid || s != u.uid ||
	    rg != u.gid || eg != u.gid || sg != u.gid)
		diex(EXIT_CONFINE, "unable to run as uid %lu gid %lu: the ids did not all change",
		     (unsigned long)u.uid, (unsigned long)u.gid);
	if (setresuid(0, 0, 0) == 0)
		diex(EXIT_CONFINE, "unable to run as uid %lu: setresuid(0, 0, 0) still "
		     "succeeds", (unsigned long)u.uid);
	errno = 0;
}
