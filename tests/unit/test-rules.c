/* lib/rules.c: the one reading of the helpers' path rules, which the view
 * and landlock steps share: the grant of -r -x -w, a path made plain, and
 * the refusals (125, one fatal line and the usage), each tried in a child
 * whose stderr is read back. TAP. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <limits.h>

#include "rules.h"
#include "tap.h"

const char *progname = "test-rules";

static void is(char *got, const char *want, const char *what)
{
	if (!tap_ok(!strcmp(got, want), "%s", what))
		tap_diag("got [%s], want [%s]", got, want);
	free(got);
}

/* rule_path(OPT, ARG) in a child: it must exit 125 with LINE first on
 * its stderr and the usage after it. */
static void refused(int opt, const char *arg, const char *line, const char *what)
{
	char buf[PATH_MAX + 512] = "", want[PATH_MAX + 512];
	int p[2], status = -1;
	ssize_t n, got = 0;
	pid_t pid;

	fflush(stdout);	/* the child's exit must not print the lines so far again */
	if (pipe(p) < 0 || (pid = fork()) < 0) {
		tap_ok(0, "%s: unable to fork", what);
		return;
	}
	if (!pid) {
		dup2(p[1], 2);
		rule_path(opt, arg, "USAGE");
		_exit(0);
	}
	close(p[1]);
	while ((n = read(p[0], buf + got, sizeof buf - 1 - (size_t)got)) > 0)
		got += n;
	buf[got] = '\0';
	close(p[0]);
	waitpid(pid, &status, 0);
	snprintf(want, sizeof want, "test-rules: fatal: %s\nusage: USAGE\n", line);
	if (!tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 125 && !strcmp(buf, want),
	            "%s", what))
		tap_diag("status %d, stderr [%s], want [%s]", status, buf, want);
}

int main(void)
{
	char *big = malloc(PATH_MAX + 1);

	tap_ok(rule_grant('r') == RULE_READ, "-r grants read");
	tap_ok(rule_grant('x') == RULE_EXEC, "-x grants exec");
	tap_ok(rule_grant('w') == RULE_WRITE, "-w grants write");
	tap_ok(!rule_grant('k') && !rule_grant('T') && !rule_grant('p') && !rule_grant('c'),
	       "another letter grants none of the three");
	is(rule_path('r', "/usr/lib", "U"), "/usr/lib", "a plain path stays as it is");
	is(rule_path('r', "//usr///lib//", "U"), "/usr/lib", "repeated and trailing slashes go");
	is(rule_path('w', "/", "U"), "/", "/ stays /");
	is(rule_path('w', "///", "U"), "/", "/// is /");
	is(rule_path('x', "/a/.b/..c/...", "U"), "/a/.b/..c/...", "names that begin with dots are names");
	refused('r', "relative", "unable to parse -r relative: not an absolute path",
	        "a relative path is refused, 125");
	refused('x', "", "unable to parse -x : not an absolute path", "an empty path is refused");
	refused('w', "/usr/../etc", "unable to parse -w /usr/../etc: has a . or .. component",
	        "a .. component is refused");
	refused('T', "/tmp/.", "unable to parse -T /tmp/.: has a . or .. component",
	        "a trailing . is refused, with the option's own letter");
	if (big) {
		char line[PATH_MAX + 64];

		memset(big, 'a', PATH_MAX);
		big[0] = '/';
		big[PATH_MAX] = '\0';
		snprintf(line, sizeof line, "unable to parse -r %s: not an absolute path", big);
		refused('r', big, line, "a path PATH_MAX long is refused");
		big[PATH_MAX - 1] = '\0';
		is(rule_path('r', big, "U"), big, "one byte shorter is taken");
		free(big);
	}
	return tap_done();
}
