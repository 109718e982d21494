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
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"
#include "common.h"
#include "launch.h"

static struct { char dir[PATH_MAX]; } cg[1 + CG_NCTL];
static size_t ncg;

/* The session's cgroup in the hierarchy at ROOT, where this process is in
 * PATH, into cg[]: made, with WHO moved in, when WHO is not 0; else kept
 * if it exists. */
static void one(const char *root, const char *path, const char *session, pid_t who)
{
	char *dir = cg[ncg].dir;
	struct stat st;

	if ((size_t)snprintf(dir, sizeof cg[ncg].dir, "%s%s/sharness-exec-session-%s", root,
	                     strcmp(path, "/") ? path : "", session) >= sizeof cg[ncg].dir)
		return;
	if (!who && stat(dir, &st) < 0)
		return;
	if (who && mkdir(dir, 0755) < 0)
		return;
	if (who && cg_move(dir, who) < 0) {
		rmdir(dir);
		return;
	}
	ncg++;
}

/* The session's cgroups into cg[], in the hierarchies a run uses (cgroup2,
 * then the v1 memory, pids and cpu), beneath this process's own cgroup
 * there as /proc/self/cgroup names it (cg_self_path refuses a path outside
 * our view). */
static void scan(const char *session, pid_t who)
{
	static char text[16384];
	char path[PATH_MAX], root[PATH_MAX];
	const char *v2 = cg2_root();

	if (cg_read("/proc/self", "cgroup", text, sizeof text) < 0)
		die(EXIT_CONFINE, "unable to read /proc/self/cgroup");
	if (v2 && cg_self_path(text, NULL, path, sizeof path) == 0)
		one(v2, path, session, who);
	for (int i = 0; i < CG_NCTL; i++) {
		snprintf(root, sizeof root, CG_ROOT "/%s", cg_ctl[i]);
		if (cg_self_path(text, cg_ctl[i], path, sizeof path) == 0)
			one(root, path, session, who);
	}
}

void cgroups_make(const char *session, pid_t init)
{
	scan(session, init);
}

void cgroups_remove(const char *session)
{
	ncg = 0;
	scan(session, 0);
	for (size_t i = 0; i < ncg; i++)
		if (cg_remove_tree(cg[i].dir, 0) < 0)
			warnx_("unable to remove the session's cgroup %s: %s", cg[i].dir,
			       strerror(errno));
}
