/* interleave: hyperfine -N's timing, but round-robin: each round runs every
 * command once, in turn, so that a change in the machine's load falls on
 * all of them alike. On a machine shared with other builds a load that
 * moves between one command's runs and the next one's skews hyperfine's
 * ratios (it runs all of one command's runs first). Writes what
 * bench/lib.sh reads of hyperfine's JSON: each command's name, mean and
 * median wall time in seconds (and its fastest, 10th and 25th percentile
 * runs). Each round runs the commands in an order of its own, shuffled:
 * what a command leaves for the kernel to finish after it has exited (a
 * network namespace is torn down by a workqueue) falls on whichever
 * command comes next, and in a fixed order that would always be the same
 * one. A benchmark, not a test.
 *
 *   interleave RUNS WARMUP OUT.json NAME COMMAND [NAME COMMAND]...
 *
 * COMMAND is split at spaces (no quoting, as the benchmarks write them);
 * its output goes to /dev/null, as with hyperfine. A command that fails
 * stops it (exit 1). */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

struct cmd {
	const char *name;
	char **argv;
	double *t;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char **split(const char *s)
{
	char *copy = strdup(s), **v = calloc(strlen(s) / 2 + 2, sizeof *v);
	size_t n = 0;

	if (!copy || !v)
		exit(2);
	for (char *w = strtok(copy, " "); w; w = strtok(NULL, " "))
		v[n++] = w;
	return v;
}

static double run(const struct cmd *c, posix_spawn_file_actions_t *fa)
{
	double t0 = now();
	pid_t pid;
	int st;

	if (posix_spawnp(&pid, c->argv[0], fa, NULL, c->argv, environ) != 0 ||
	    waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "interleave: %s failed\n", c->name);
		exit(1);
	}
	return now() - t0;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	posix_spawn_file_actions_t fa;
	int runs, warmup, n = (argc - 4) / 2, *order;
	struct cmd *c;
	FILE *out;

	if (argc < 6 || (argc - 4) % 2 || (runs = atoi(argv[1])) < 1 || (warmup = atoi(argv[2])) < 0) {
		fprintf(stderr, "usage: interleave RUNS WARMUP OUT.json NAME COMMAND [NAME COMMAND]...\n");
		return 2;
	}
	if (!(c = calloc((size_t)n, sizeof *c)))
		return 2;
	for (int i = 0; i < n; i++) {
		c[i].name = argv[4 + 2 * i];
		c[i].argv = split(argv[5 + 2 * i]);
		if (!(c[i].t = calloc((size_t)runs, sizeof *c[i].t)))
			return 2;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	for (int r = 0; r < warmup; r++)
		for (int i = 0; i < n; i++)
			run(&c[i], &fa);
	if (!(order = calloc((size_t)n, sizeof *order)))
		return 2;
	for (int i = 0; i < n; i++)
		order[i] = i;
	srandom(27);
	for (int r = 0; r < runs; r++) {
		for (int i = n - 1; i > 0; i--) { /* Fisher-Yates */
			int j = (int)(random() % (i + 1)), t = order[i];
			order[i] = order[j];
			order[j] = t;
		}
		for (int i = 0; i < n; i++)
			c[order[i]].t[r] = run(&c[order[i]], &fa);
		if ((r + 1) % 50 == 0)
			fprintf(stderr, "interleave: %d of %d rounds\n", r + 1, runs);
	}
	if (!(out = fopen(argv[3], "w")))
		return 2;
	fprintf(out, "{\"results\": [\n");
	for (int i = 0; i < n; i++) {
		double sum = 0;
		for (int r = 0; r < runs; r++)
			sum += c[i].t[r];
		qsort(c[i].t, (size_t)runs, sizeof *c[i].t, by_value);
		fprintf(out, "  {\"command\": \"%s\", \"mean\": %.9f, \"median\": %.9f, "
		        "\"min\": %.9f, \"p10\": %.9f, \"p25\": %.9f, \"runs\": %d}%s\n", c[i].name, sum / runs,
		        runs % 2 ? c[i].t[runs / 2] : (c[i].t[runs / 2 - 1] + c[i].t[runs / 2]) / 2,
		        c[i].t[0], c[i].t[runs / 10], c[i].t[runs / 4], runs, i + 1 < n ? "," : "");
	}
	fprintf(out, "]}\n");
	return fclose(out) ? 2 : 0;
}
