/* The session's ephemeral uids (launch.h). A range above 65535 that no
 * user, group, subordinate range or systemd range may touch, checked at
 * every start; in it, a uid is taken by holding flock(2) on UIDS_DIR/UID
 * (a root-only directory), which the launcher, the session's init and its
 * watcher share, so two launches never hold one uid; a uid that a process
 * runs as (found in /proc) is passed over. The lock files stay:
 * removing one would let two launches lock two files of one name. Each
 * uid's gid is the same number; each shared directory's group (the
 * manifest's share) is an id of the range taken the same way. */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "launch.h"

/* systemd's documented ranges (UIDS-GIDS.md): DynamicUser=, and the
 * container range of nspawn and userns. */
static const struct { unsigned long lo, hi; const char *what; } systemd[] = {
	{ 61184, 65519, "systemd's DynamicUser range 61184-65519" },
	{ 524288, 1879048191, "systemd's container range 524288-1879048191" },
};

void uids_parse(struct launch *s, const char *arg)
{
	char *end = NULL;
	int ok = 0;

	if (!arg)
		arg = MANIFEST_UID_RANGE;
	errno = 0;
	if (*arg >= '0' && *arg <= '9')
		s->first = strtoul(arg, &end, 10);
	if (end && *end == '-' && end[1] >= '0' && end[1] <= '9') {
		s->last = strtoul(end + 1, &end, 10);
		ok = !errno && !*end;
	}
	if (!ok || s->first < 65536 || s->last < s->first || s->last > 4294967294UL)
		diex(EXIT_REFUSED, "--uid-range %s: not FIRST-LAST with 65536 <= FIRST <= LAST "
		     "< 4294967295. Nothing ran.", q(arg));
}

static int overlaps(const struct launch *s, unsigned long lo, unsigned long hi)
{
	return lo <= s->last && hi >= s->first;
}

static NORETURN void taken(const struct launch *s, const char *what)
{
	die_hint(EXIT_REFUSED, 0, "choose another range with --uid-range FIRST-LAST",
	         "the uid range %lu-%lu overlaps %s. Nothing ran.", s->first, s->last, what);
}

/* /etc/subuid or /etc/subgid: NAME:START:COUNT lines. */
static void check_sub(const struct launch *s, const char *file)
{
	char line[512], what[600];
	unsigned long start, count;
	FILE *f = fopen(file, "re");

	if (!f && errno == ENOENT)
		return;
	if (!f)
		die(EXIT_REFUSED, "unable to read %s. Nothing ran", file);
	while (fgets(line, sizeof line, f)) {
		char *c = strchr(line, ':');

		if (!c || sscanf(c + 1, "%lu:%lu", &start, &count) != 2 || !count)
			continue;
		if (overlaps(s, start, start + count - 1)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(what, sizeof what, "%s's %s", file, line);
			fclose(f);
			taken(s, what);
		}
	}
	fclose(f);
}

void uids_check(const struct launch *s)
{
	char what[300];
	struct passwd *pw;
	struct group *gr;

	for (size_t i = 0; i < sizeof systemd / sizeof *systemd; i++)
		if (overlaps(s, systemd[i].lo, systemd[i].hi))
			taken(s, systemd[i].what);
	setpwent();
	while ((pw = getpwent()))
		if (overlaps(s, pw->pw_uid, pw->pw_uid) || overlaps(s, pw->pw_gid, pw->pw_gid)) {
			snprintf(what, sizeof what, "user %s (%lu:%lu)", qn(pw->pw_name),
			         (unsigned long)pw->pw_uid, (unsigned long)pw->pw_gid);
			taken(s, what);
		}
	endpwent();
	setgrent();
	while ((gr = getgrent()))
		if (overlaps(s, gr->gr_gid, gr->gr_gid)) {
			snprintf(what, sizeof what, "group %s (%lu)", qn(gr->gr_name),
			         (unsigned long)gr->gr_gid);
			taken(s, what);
		}
	endgrent();
	check_sub(s, "/etc/subuid");
	check_sub(s, "/etc/subgid");
}

int own_dir(int at, const char *name, mode_t mode)
{
	struct stat st;
	int fd;

	if (mkdirat(at, name, mode) < 0 && errno != EEXIST)
		die(EXIT_CONFINE, "unable to make %s", name);
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		die(EXIT_CONFINE, "unable to open %s", name);
	if (st.st_uid != 0 || (st.st_mode & 07777) != mode)
		diex(EXIT_CONFINE, "refused: %s is not root's with mode %04o", name, (unsigned)mode);
	return fd;
}

int run_dir(void)
{
	return own_dir(AT_FDCWD, RUN_DIR, 0755);
}

/* The ids of S's range that a process runs as (real, effective, saved or
 * fs uid or gid), from one walk of /proc: such a uid is not free,
 * whatever its lock says. Each status is read only up to its Gid line,
 * which follows its Uid line, near its start: a busy machine has many
 * processes, and the lines after it are most of each file. */
static unsigned long busy[1024];
static size_t nbusy;

static void note_busy(const struct launch *s, const unsigned long id[4])
{
	for (int i = 0; i < 4; i++)
		if (id[i] >= s->first && id[i] <= s->last && nbusy < sizeof busy / sizeof *busy)
			busy[nbusy++] = id[i];
}

static void scan_busy(const struct launch *s)
{
	char path[300], line[256];
	unsigned long id[4];
	struct dirent *e;
	DIR *d = opendir("/proc");
	FILE *f;

	if (!d)
		die(EXIT_CONFINE, "unable to read /proc");
	while ((e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/status", e->d_name);
		if (!(f = fopen(path, "re")))
			continue;
		for (int n = 0; n < 2 && fgets(line, sizeof line, f);)	/* Uid's, Gid's */
			if (sscanf(line, "%*[UG]id: %lu %lu %lu %lu", &id[0], &id[1], &id[2], &id[3]) == 4 && ++n)
				note_busy(s, id);
		fclose(f);
	}
	closedir(d);
}

static int has_process(unsigned long uid)
{
	for (size_t i = 0; i < nbusy; i++)
		if (busy[i] == uid)
			return 1;
	return 0;
}

/* The next free id of S's range from *ID on for WHAT, locked: its lock's
 * descriptor; *ID is the id taken. */
static int take_id(const struct launch *s, int dir, unsigned long *id, const char *what)
{
	char name[16];
	int fd;

	for (;; ++*id) {
		if (*id > s->last)
			die_hint(EXIT_CONFINE, 0, "wait for a launch to end, or widen --uid-range",
			         "no free uid left in %lu-%lu for %s", s->first, s->last, what);
		snprintf(name, sizeof name, "%lu", *id);
		fd = openat(dir, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			die(EXIT_CONFINE, "unable to open %s/%s", UIDS_DIR, name);
		if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
			if (!has_process(*id))
				return fd;
		} else if (errno != EWOULDBLOCK) {
			die(EXIT_CONFINE, "unable to lock %s/%s", UIDS_DIR, name);
		}
		close(fd);
	}
}

void uids_take(struct launch *s)
{
	int run = run_dir(), dir = own_dir(run, "uids", 0700);
	unsigned long uid = s->first;
	char what[MANIFEST_SHARE_NAME_MAX + 32];

	scan_busy(s);
	for (size_t i = 0; i < s->n; i++) {
		struct role *r = &s->r[i];

		r->lock = -1;
		if (r->main && s->user)
			continue;
		r->lock = take_id(s, dir, &uid, q(r->c->role));
		r->uid = (uid_t)uid;
		r->gid = (gid_t)uid;
		snprintf(r->ids, sizeof r->ids, "%lu:%lu", uid, uid);
		uid++;
	}
	/* each share's group: an id of the range, as a role's */
	for (size_t i = 0; i < s->man.nshare; i++) {
		snprintf(what, sizeof what, "the share %s", s->man.share[i].name);
		s->share_lock[i] = take_id(s, dir, &uid, what);
		s->share_gid[i] = (gid_t)uid++;
	}
	close(dir);
	close(run);
}
