/* The session's cgroup (launch.h): beneath the launcher's own in each
 * hierarchy where a run makes its cgroup (v1 memory, pids and cpu; v2),
 * "sharness-exec-session-ID", made once the watcher exists, and joined
 * by the session's init before it starts anything, so that every run's
 * cgroup is made beneath it. A run removes its own cgroup as it ends;
 * after a SIGKILL nothing of the run is left to, and the watcher, once
 * the session's last process is gone, finds the session's tree as the
 * launcher made it (from the session's id and its own /proc/self/cgroup,
 * which is the launcher's) and removes it from its leaves up: so no
 * moment of the launcher's leaves a cgroup that nothing removes. A
 * hierarchy where the init may not be moved is passed over: the runs'
 * cgroups are then made beside the launcher's, as for `run`. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "common.h"
#include "launch.h"

#define CGROUP2_MAGIC 0x63677270

static struct { char dir[PATH_MAX]; } cg[4];
static size_t ncg;

static int join(const char *dir, pid_t who)
{
	char path[PATH_MAX + 16], pid[24];
	int fd, n = snprintf(pid, sizeof pid, "%ld\n", (long)who), ok;

	snprintf(path, sizeof path, "%s/cgroup.procs", dir);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -1;
	ok = write_all(fd, pid, (size_t)n);
	return close(fd) < 0 ? -1 : ok;
}

const char *cgroup2_root(void)
{
	static const char *const at[] = { CG_ROOT "/unified", CG_ROOT };
	struct statfs fs;

	for (size_t i = 0; i < sizeof at / sizeof *at; i++)
		if (statfs(at[i], &fs) == 0 && fs.f_type == CGROUP2_MAGIC)
			return at[i];
	return NULL;
}

/* The hierarchy of a /proc/self/cgroup line's controllers, or NULL. */
static const char *hierarchy(const char *ctl, char *out, size_t n)
{
	static const char *const v1[] = { "memory", "pids", "cpu", "cpu,cpuacct" };
	const char *v2;

	if (!*ctl) {
		if (!(v2 = cgroup2_root()))
			return NULL;
		snprintf(out, n, "%s", v2);
		return out;
	}
	for (size_t i = 0; i < sizeof v1 / sizeof *v1; i++)
		if (!strcmp(ctl, v1[i])) {
			snprintf(out, n, "%s/%s", CG_ROOT, ctl);
			return out;
		}
	return NULL;
}

/* The session's cgroups into cg[]: made, with WHO moved in, when WHO is
 * not 0; else those that exist. */
static void scan(const char *session, pid_t who)
{
	char line[PATH_MAX + 64], root[PATH_MAX];
	FILE *f = fopen("/proc/self/cgroup", "re");
	struct stat st;

	if (!f)
		die(EXIT_CONFINE, "unable to read /proc/self/cgroup");
	while (ncg < sizeof cg / sizeof *cg && fgets(line, sizeof line, f)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (!c2 || c2[1] != '/' || strstr(c2, "/.."))
			continue;
		*c2 = '\0';
		c2[1 + strcspn(c2 + 1, "\n")] = '\0';
		if (!hierarchy(c1 + 1, root, sizeof root) ||
		    (size_t)snprintf(cg[ncg].dir, sizeof cg[ncg].dir, "%s%s/sharness-exec-session-%s",
		                     root, strcmp(c2 + 1, "/") ? c2 + 1 : "", session) >=
		    sizeof cg[ncg].dir)
			continue;
		if (!who && stat(cg[ncg].dir, &st) < 0)
			continue;
		if (who && mkdir(cg[ncg].dir, 0755) < 0)
			continue;
		if (who && join(cg[ncg].dir, who) < 0) {
			rmdir(cg[ncg].dir);
			continue;
		}
		ncg++;
	}
	fclose(f);
}

void cgroups_make(const char *session, pid_t init)
{
	scan(session, init);
}

/* DIR and the cgroups beneath it, leaves first; DEPTH bounds the walk. */
static int remove_tree(const char *dir, int depth)
{
	char sub[PATH_MAX];
	struct dirent *e;
	DIR *d = depth ? opendir(dir) : NULL;

	while (d && (e = readdir(d)))
		if (e->d_type == DT_DIR && strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    (size_t)snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name) < sizeof sub)
			remove_tree(sub, depth - 1);
	if (d)
		closedir(d);
	return rmdir(dir);
}

void cgroups_remove(const char *session)
{
	ncg = 0;
	scan(session, 0);
	for (size_t i = 0; i < ncg; i++)
		if (remove_tree(cg[i].dir, 16) < 0 && errno != ENOENT)
			warnx_("unable to remove the session's cgroup %s: %s", cg[i].dir,
			       strerror(errno));
}
