/* The session's status (launch.h): SESSION_DIR/STATUS_FILE, a line for
 * the session and one for each role, as the init sees them, written anew
 * (a temporary file renamed over it) at each change: waiting (for what
 * its "after" names, or main for the components), starting, ready,
 * frozen, healthy, failing or unhealthy (why), running (main), ended
 * (how). Root's, 0644, in the tmpfs's root, which no role may write;
 * kept with the state directories under --keep. `launch status` prints
 * the status of every session running, found through /proc (the
 * launcher's root, in the session's mount namespace), and of every one
 * kept. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "launch.h"

/* R's state, into OUT. */
static void role_state(const struct role *r, char *out, size_t n)
{
	char how[64];

	if (r->ended)
		log_ended(r, how, sizeof how);
	if (r->unhealthy)
		snprintf(out, n, "unhealthy: %s, %lu check%s in a row%s%s", r->unwell, r->fails,
		         r->fails == 1 ? "" : "s", r->ended ? "; then ended: " : "",
		         r->ended ? how : "");
	else if (r->ended)
		snprintf(out, n, "ended: %s", how);
	else if (r->pid <= 0) {
		snprintf(out, n, "waiting");
	} else if (r->main) {
		snprintf(out, n, "running");
	} else if (!r->up) {
		snprintf(out, n, "starting");
	} else if (r->frozen) {
		snprintf(out, n, "frozen");
	} else if (r->fails) {
		snprintf(out, n, "failing: %s, %lu check%s in a row", r->unwell, r->fails,
		         r->fails == 1 ? "" : "s");
	} else {
		snprintf(out, n, "%s", r->checked ? "healthy" : "ready");
	}
}

void status_write(const struct launch *s)
{
	char state[sizeof ((struct role *)0)->unwell + 200];
	FILE *f;
	int fd;

	if ((fd = open(SESSION_DIR "/." STATUS_FILE, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
	               O_CLOEXEC, 0644)) < 0 || !(f = fdopen(fd, "w")))
		return;     /* the status is a view of the session, never its end */
	fprintf(f, "session %s manifest %s\n", s->session, q(s->man.id));
	for (size_t i = 0; i < s->n; i++) {
		role_state(&s->r[i], state, sizeof state);
		fprintf(f, "%s %s %s\n", s->r[i].main ? "main" : "component", s->r[i].c->role, state);
	}
	if (fclose(f) == 0)
		rename(SESSION_DIR "/." STATUS_FILE, SESSION_DIR "/" STATUS_FILE);
}

/* PATH's text on stdout, a blank line before it but first; 1 if printed. */
static int show(const char *path, int first)
{
	char buf[4096];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (!first)
		putchar('\n');
	fflush(stdout);
	while ((n = read(fd, buf, sizeof buf)) > 0)
		if (write_all(1, buf, (size_t)n) < 0)
			break;
	close(fd);
	return 1;
}

int launch_status(void)
{
	char self[4096], exe[4096], path[512], seen[256][33];
	size_t nseen = 0;
	int shown = 0;
	struct dirent *e;
	DIR *d;
	ssize_t k;

	if ((k = readlink("/proc/self/exe", self, sizeof self - 1)) < 0 || !(d = opendir("/proc")))
		die(EXIT_REFUSED, "unable to read /proc");
	self[k] = '\0';
	while ((e = readdir(d))) {
		char id[33] = "";
		FILE *f;

		snprintf(path, sizeof path, "/proc/%.32s/exe", e->d_name);
		if (!strchr("123456789", e->d_name[0]) || (k = readlink(path, exe, sizeof exe - 1)) < 0 ||
		    (exe[k] = '\0', strcmp(exe, self)) || e->d_name[0] == '\0' ||
		    (size_t)atol(e->d_name) == (size_t)getpid())
			continue;
		snprintf(path, sizeof path, "/proc/%.32s/root%s/%s", e->d_name, SESSION_DIR, STATUS_FILE);
		if (!(f = fopen(path, "re")))
			continue;
		if (fscanf(f, "session %32[0-9a-f]", id) != 1) {
			fclose(f);
			continue;
		}
		fclose(f);
		size_t i = 0;   /* the launcher and its watcher: one session */
		while (i < nseen && strcmp(seen[i], id))
			i++;
		if (i < nseen || nseen == sizeof seen / sizeof *seen)
			continue;
		memcpy(seen[nseen++], id, sizeof id);
		shown += show(path, !shown);
	}
	closedir(d);
	if ((d = opendir(KEPT_DIR))) {
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof path, "%s/%.64s/%s", KEPT_DIR, e->d_name, STATUS_FILE);
			if (show(path, !shown) && ++shown)
				printf("kept in %s/%.64s\n", KEPT_DIR, e->d_name);
		}
		closedir(d);
	}
	if (!shown)
		printf("no session running or kept\n");
	return fflush(stdout) ? EXIT_REFUSED : 0;
}
