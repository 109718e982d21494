/* The run's cgroup, handed over to the limits step (supervise.h; DESIGN.md
 * 4.3, 4.4) with no word of any argv rewritten, so that what runs is what
 * `run --dry-run` prints. The limits step's own words say everything
 * (each value once in the chain): its -m, -p and -u which controllers the
 * cgroup needs (and the caps, which the supervisor names when the cgroup
 * hit them, and the report shows), and its -g DIR:JOIN the descriptors,
 * fixed by the front end, where init's child puts the cgroup's directory
 * and the file that joins it, opened by init (the kernel checks a write to
 * cgroup.procs against its opener's credentials). Whether there is a
 * cgroup, or why not, goes in the walls record ("cgroup=v1", "v2", or
 * "none" and "cgroup_why=WHY"). The limits step is found among the steps
 * before the view: each ends with "--", as the front end writes them; the
 * target's words are never looked at. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "ending.h"
#include "helper.h"
#include "rights.h"
#include "supervise.h"

static struct {
	int n;                   /* the -g of the limits step */
	int dir[CG_NCTL], join[CG_NCTL];
	int open_dir[CG_NCTL], open_join[CG_NCTL]; /* init's, close-on-exec */
	int top;                 /* the highest -g descriptor */
} ho;

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* -g DIR:JOIN of the limits step: two descriptors that nothing holds now
 * (the front end chose them above all of its own). A path (by hand) is
 * the limits step's to open, not ours. */
static void take_fds(const char *arg, const char *usage)
{
	int fd[2];
	char *end;

	if (arg[0] == '/' || ho.n == CG_NCTL)
		return;
	errno = 0;
	fd[0] = (int)strtol(arg, &end, 10);
	fd[1] = *end == ':' ? (int)strtol(end + 1, &end, 10) : -1;
	if (errno || *end || fd[0] < 3 || fd[1] < 3 || fd[0] == fd[1])
		return; /* the limits step refuses it */
	for (int k = 0; k < 2; k++) {
		for (int i = 0; i < ho.n; i++)
			if (fd[k] == ho.dir[i] || fd[k] == ho.join[i])
				usage_fail(usage, "the limits step's -g %s: descriptor %d is named twice",
				           arg, fd[k]);
		if (fcntl(fd[k], F_GETFD) >= 0)
			usage_fail(usage, "the limits step's -g %s: descriptor %d is in use", arg,
			           fd[k]);
		if (fd[k] > ho.top)
			ho.top = fd[k];
	}
	ho.dir[ho.n] = fd[0];
	ho.join[ho.n++] = fd[1];
}

/* One option of the limits step's, C with its VAL, into WANT. */
static void take(int c, const char *val, int *want, const char *usage)
{
	unsigned long v;

	switch (c) {
	case 'g':
		take_fds(val, usage);
		break;
	case 'm':
		if (parse_ulong(val, 1, 1048576, &ending.memory_mib))
			*want |= CG_MEMORY;
		break;
	case 'p':
		if (parse_ulong(val, 1, 4194304, &ending.pids))
			*want |= CG_PIDS;
		break;
	case 'u':
		if (parse_ulong(val, 1, 409600, &v)) {
			*want |= CG_CPU;
			report_option('u', val, usage); /* the report's CPU cap */
		}
		break;
	}
}

/* The limits step's words, V[0] its name, N of them: its options, as its
 * getopt string "+:bE:g:hm:p:qr:tu:UW:" reads them. */
static void limits_words(int n, char **v, const char *usage)
{
	int want = 0;

	for (int j = 1; j < n && strcmp(v[j], "--") && v[j][0] == '-' && v[j][1]; j++)
		for (const char *c = v[j] + 1; *c; c++) {
			const char *val;

			if (!strchr("EgmpruW", *c))
				continue;
			val = c[1] ? c + 1 : j + 1 < n ? v[++j] : NULL;
			if (val)
				take(*c, val, &want, usage);
			break;
		}
	run.want = ho.n ? want : 0;
}

/* Hold the -g numbers from now on (close-on-exec, on "/"), so that no
 * descriptor of this step's own (init's pipes) is made there, which
 * init's child would close as it puts the cgroup in their place. */
static void reserve(void)
{
	int fd = open("/", O_PATH | O_CLOEXEC);
	int root = fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, ho.top + 1);

	/* F_DUPFD past RLIMIT_NOFILE says EINVAL: it is the limit */
	if (fd >= 0 && root < 0 && errno == EINVAL)
		errno = EMFILE;
	if (fd >= 0)
		close(fd);

	for (int i = 0; i < ho.n; i++)
		if (root < 0 || dup3(root, ho.dir[i], O_CLOEXEC) < 0 ||
		    dup3(root, ho.join[i], O_CLOEXEC) < 0)
			die(EXIT_CONFINE, "unable to hold descriptors %d and %d for the cgroup",
			    ho.dir[i], ho.join[i]);
	if (root >= 0)
		close(root);
}

void handover_find(int argc, char **argv, const char *usage)
{
	int i = 0;

	while (i < argc && strcmp(base(argv[i]), "sharness-exec-limits")) {
		const char *b = base(argv[i]);

		if (strncmp(b, "sharness-exec-", 14) || !strcmp(b, "sharness-exec-view") ||
		    !strcmp(b, "sharness-exec-landlock"))
			return;
		while (++i < argc && strcmp(argv[i], "--"))
			;
		i++;
	}
	if (i < argc)
		limits_words(argc - i, argv + i, usage);
	if (ho.n)
		reserve();
}

void handover_open(const char *why)
{
	char line[WHY_MAX];

	if (!ho.n)
		return;
	if (!run.cg.version) {
		/* one note a line: a newline in a path would forge another */
		snprintf(line, sizeof line, "%s", why);
		for (char *p = line; (p = strchr(p, '\n')); )
			*p = ' ';
		walls_note("cgroup", "none");
		walls_note("cgroup_why", line);
		return;
	}
	if (run.cg.n > ho.n)
		diex(EXIT_CONFINE, "unable to confine: the run has %d cgroups, and the limits step "
		     "takes %d (-g)", run.cg.n, ho.n);
	walls_note("cgroup", run.cg.version == 2 ? "v2" : "v1");
	/* never at a -g number, which reserve() holds: handover_place's
	 * dup2 into one closes nothing it has yet to put */
	for (int i = 0; i < run.cg.n; i++)
		if (cg_open(run.cg.dir[i], &ho.open_dir[i], &ho.open_join[i]) < 0)
			die(EXIT_CONFINE, "unable to open cgroup %s", run.cg.dir[i]);
}

void handover_place(void)
{
	for (int i = 0; ho.n && i < run.cg.n; i++)
		if (dup2(ho.open_dir[i], ho.dir[i]) < 0 || dup2(ho.open_join[i], ho.join[i]) < 0)
			die(EXIT_CONFINE, "unable to pass cgroup %s on", run.cg.dir[i]);
}
