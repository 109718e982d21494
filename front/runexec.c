/* The target's program, weighed before anything runs (issue 42): looked up
 * as the landlock step's execvp will look it up in the view (lib/helper.c:
 * glibc's rules, the target's PATH), on the host, where the front end
 * sees it. A command the policy hides would fail there with "No such file
 * or directory" (or, beneath a read path, "Permission denied"); here it is
 * refused (127, or 126, what the target would get) with the list that
 * would allow it. Only where every candidate the host has
 * is hidden: a later one the view shows is what execvp would run. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"
#include "exitcodes.h"
#include "frontend.h"
#include "text.h"

static int beneath_any(const char *path, const struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		if (path_beneath(path, l->v[i]))
			return 1;
	return 0;
}

/* PATH (a host path) into REAL, symlink-free: 1 the view lets it run (an
 * exec or write path holds it), 2 it shows it but only to read (a read
 * path holds it: 126, Permission denied), 0 it hides it, -1 no file on
 * the host, or one a fresh tmpfs of the run covers. */
static int weigh(const char *path, const struct policy *p, char real[PATH_MAX])
{
	struct stat st;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || !realpath(path, real) ||
	    beneath_any(real, &p->tmpfs))
		return -1;
	if (beneath_any(real, &p->exec_resolved) || beneath_any(real, &p->write_resolved))
		return 1;
	return beneath_any(real, &p->read_resolved) ? 2 : 0;
}

/* Refused: FILE, found at PATH, that is REAL, is hidden (or, WHY 2, only
 * read); the directory that would allow it. */
static NORETURN void refuse(const char *file, const char *path, const char *real, int why)
{
	char dir[PATH_MAX], at[3 * QUOTED_MAX + 32] = "";
	const char *slash = strrchr(real, '/');

	snprintf(dir, sizeof dir, "%.*s", slash == real ? 1 : (int)(slash - real), real);
	if (strcmp(file, path))
		snprintf(at, sizeof at, " (%s", q(path));
	if (strcmp(path, real))
		snprintf(at + strlen(at), sizeof at - strlen(at), "%s%s", *at ? ", that is " : " (",
		         q(real));
	diex(why == 2 ? EXIT_CONFINE : EXIT_NOTFOUND, "refused: the policy %s %s%s%s: no "
	     "files.exec or files.write path holds it%s; \"exec\": [%s] would allow it. "
	     "Nothing ran.", why == 2 ? "lets only read" : "hides", q(file), at, *at ? ")" : "",
	     why == 2 ? " (Permission denied)" : "", q(dir));
}

void check_program(const char *file, const struct policy *p, const char *path_env)
{
	char buf[PATH_MAX], real[PATH_MAX], first[PATH_MAX] = "", first_real[PATH_MAX];
	const char *dirs, *end;
	size_t dlen;
	int w, first_why = 0;

	if (!file || !*file)
		return;
	if (strchr(file, '/')) {
		if ((w = weigh(file, p, real)) == 0 || w == 2)
			refuse(file, file, real, w);
		return;
	}
	dirs = path_env ? path_env : "/bin:/usr/bin";
	for (const char *d = dirs;; d = end + 1) {
		end = strchrnul(d, ':');
		dlen = (size_t)(end - d);
		if (snprintf(buf, sizeof buf, "%.*s%s%s", (int)dlen, d, dlen ? "/" : "", file) <
		    (int)sizeof buf) {
			if ((w = weigh(buf, p, real)) == 1)
				return;
			if ((w == 0 || w == 2) && !*first) {
				strcpy(first, buf);
				strcpy(first_real, real);
				first_why = w;
			}
		}
		if (!*end)
			break;
	}
	if (*first)
		refuse(file, first, first_real, first_why);
}
