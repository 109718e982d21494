/* run --user USER: who USER is (runuser.h). */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "runuser.h"
#include "trust.h"

#define PASSWD_FILE "/etc/passwd"
#define GROUP_FILE "/etc/group"
#define GROUPS_MAX 65536	/* the kernel's NGROUPS_MAX */

static struct run_user user;
static int resolved;
static const char *passwd_text, *group_text;	/* run_user_files */

void run_user_files(const char *passwd, const char *group)
{
	passwd_text = passwd;
	group_text = group;
}

/* The database at PATH, or TEXT in its place. */
static FILE *open_db(const char *path, const char *text)
{
	FILE *f = text ? fmemopen((void *)text, strlen(text), "r") : fopen(path, "re");

	if (!f)
		die(EXIT_REFUSED, "unable to read %s%s", text ? "the lines in place of " : "",
		    path);
	return f;
}

/* Groups that can act as root on the host, or read what root keeps. */
static const char *const privileged[] = {
	"docker", "lxd", "libvirt", "kvm", "disk", "adm", "sudo",
};

/* A decimal id below (uid_t)-1, the whole of S up to END. */
static int parse_id(const char *s, const char *end, unsigned long *out)
{
	char *e;

	if (s == end || strspn(s, "0123456789") < (size_t)(end - s))
		return 0;
	errno = 0;
	*out = strtoul(s, &e, 10);
	return !errno && e == end && *out < 4294967295UL;
}

static char *xstrdup(const char *s)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d)
		diex(EXIT_REFUSED, "out of memory");
	return d;
}

/* The passwd entry named NAME, or (NAME NULL) of UID, into user.name
 * and user.home, with its ids into UID and GID; 0 when there is none. The
 * files themselves, not NSS: a static front end cannot load NSS modules,
 * and glibc's static getpwnam crashes falling through to one (LDAP, sssd,
 * systemd's dynamic users: give UID:GID for those). */
static int passwd_find(const char *name, unsigned long *uid, unsigned long *gid)
{
	FILE *f = open_db(PASSWD_FILE, passwd_text);
	const struct passwd *pw;

	while ((pw = fgetpwent(f)))
		if (name ? !strcmp(pw->pw_name, name) : pw->pw_uid == *uid)
			break;
	if (pw) {
		*uid = pw->pw_uid;
		*gid = pw->pw_gid;
		user.name = xstrdup(pw->pw_name);
		user.home = xstrdup(pw->pw_dir);
	}
	fclose(f);
	return pw != NULL;
}

/* USER's groups (their primary one among them) into user.groups, and a
 * warning naming the privileged ones kept. */
static void keep_groups(void)
{
	char priv[256] = "";
	size_t len = 0, plen = 0, n = 0;
	const struct group *gr;
	FILE *f;
	int member;

	if (!user.name)
		diex(EXIT_REFUSED, "refused: --user-groups: uid %lu has no passwd entry to "
		     "take groups from", (unsigned long)user.uid);
	f = open_db(GROUP_FILE, group_text);
	if (!(user.groups = malloc(GROUPS_MAX * 11)))
		diex(EXIT_REFUSED, "out of memory");
	user.groups[0] = '\0';
	while ((gr = fgetgrent(f))) {
		member = gr->gr_gid == user.gid;
		for (char **m = gr->gr_mem; !member && *m; m++)
			member = !strcmp(*m, user.name);
		if (!member || n == GROUPS_MAX)
			continue;
		len += (size_t)sprintf(user.groups + len, "%s%lu", n++ ? "," : "",
		                       (unsigned long)gr->gr_gid);
		for (size_t j = 0; j < sizeof privileged / sizeof *privileged; j++)
			if (!strcmp(gr->gr_name, privileged[j]) && plen < sizeof priv - 16)
				plen += (size_t)snprintf(priv + plen, sizeof priv - plen, "%s%s",
				                         plen ? ", " : "", privileged[j]);
	}
	fclose(f);
	if (plen)
		warnx_("--user-groups keeps groups of %s that carry host privileges: %s",
		       qn(user.name), priv);
}

void run_user_resolve(const char *spec, int keep, const char *usage)
{
	const char *colon, *end;
	unsigned long uid = 0, gid = 0, given;

	if (!spec && keep)
		usage_fail(usage, "--user-groups needs --user");
	if (!spec)
		return;
	colon = strchr(spec, ':');
	end = spec + strlen(spec);
	if (getuid() != 0 || geteuid() != 0)
		usage_fail(usage, "--user is for a root caller only (sudo sharness-exec run --user ...)");
	if (colon) {
		if (!parse_id(spec, colon, &uid) || !parse_id(colon + 1, end, &gid))
			usage_fail(usage, "unable to parse --user %s: not NAME, UID or UID:GID",
			           qn(spec));
		/* the numbers as given; an entry only for HOME, USER and LOGNAME */
		given = gid;
		passwd_find(NULL, &uid, &gid);
		gid = given;
	} else if (parse_id(spec, end, &uid)) {
		if (!passwd_find(NULL, &uid, &gid))
			diex(EXIT_REFUSED, "refused: --user %s: no passwd entry for uid %lu "
			     "(give UID:GID)", qn(spec), uid);
	} else if (!passwd_find(spec, &uid, &gid)) {
		diex(EXIT_REFUSED, "refused: --user %s: no such user", qn(spec));
	}
	user.uid = (uid_t)uid;
	user.gid = (gid_t)gid;
	if (user.uid == 0)
		diex(EXIT_REFUSED, "refused: --user %s is root: leave --user out", qn(spec));
	snprintf(user.ids, sizeof user.ids, "%lu:%lu", uid, gid);
	if (keep)
		keep_groups();
	trust_as_user(user.uid, user.gid, user.groups);
	resolved = 1;
}

const struct run_user *run_user(void)
{
	return resolved ? &user : NULL;
}
