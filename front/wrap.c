/* sharness-exec wrap (DESIGN.md 4.1): a one-word wrapper for a pinned or
 * signed policy, for the places that take one program and no quoting:
 * GOFLAGS=-exec=, meson's exe_wrapper, cargo's runner, CTest. The policy
 * is checked and its hash or signature verified as run would, before
 * anything is written. The wrapper itself runs unconfined, so it may not
 * lie where the policy lets the confined command write, nor below a
 * directory another user could change; it names no command PATH finds,
 * and its checks are the front end's own (wrap --exec, wrapped()). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "frontend.h"
#include "near.h"
#include "verify.h"
#include "trust.h"
#include "runuser.h"

/* PATH made absolute as written (symlinks kept: run finds POLICY.sig
 * beside the name it is given), on the heap. */
static char *absolute(const char *path)
{
	char cwd[PATH_MAX], *s;

	if (*path == '/')
		s = strdup(path);
	else if (!getcwd(cwd, sizeof cwd))
		die(EXIT_REFUSED, "unable to find the current directory");
	else if (asprintf(&s, "%s%s%s", cwd, strcmp(cwd, "/") ? "/" : "", path) < 0)
		s = NULL;
	if (!s)
		diex(EXIT_REFUSED, "out of memory");
	return s;
}

/* W, one word for sh(1): in single quotes, each ' as '\''. */
static void sh_word(FILE *f, const char *w)
{
	fputc('\'', f);
	for (; *w; w++)
		fputs(*w == '\'' ? "'\\''" : (char[]){ *w, '\0' }, f);
	fputc('\'', f);
}

struct wrap {
	const char *out, *policy, *expect, *sig, *id, *user;
	int user_groups;
	char **trust, **args;	/* --trust-key FILEs; run's words, in order */
	size_t ntrust, nargs;
};

static void arg(struct wrap *w, const char *word)
{
	if (!(w->args = reallocarray(w->args, w->nargs + 1, sizeof *w->args)))
		diex(EXIT_REFUSED, "out of memory");
	w->args[w->nargs++] = (char *)word;
}

/* Each option but -o and -p goes on to run, spelt long, as run reads it:
 * run checks them again at every run. */
static void pass_on(struct wrap *w, const struct option *o, int c, char *value)
{
	char *word;

	if (c == 'K' || c == 'S')
		value = absolute(value);
	if (c == 'K') {
		if (!(w->trust = reallocarray(w->trust, w->ntrust + 1, sizeof *w->trust)))
			diex(EXIT_REFUSED, "out of memory");
		w->trust[w->ntrust++] = value;
	}
	if (c == 'H')
		w->expect = value;
	else if (c == 'S')
		w->sig = value;
	else if (c == 'I')
		w->id = value;
	else if (c == 'u')
		w->user = value;
	else if (c == 'g')
		w->user_groups = 1;
	while (o->val != c)
		o++;
	if (asprintf(&word, "--%s", o->name) < 0)
		diex(EXIT_REFUSED, "out of memory");
	arg(w, word);
	if (o->has_arg)
		arg(w, value);
}

static void parse_wrap(int argc, char **argv, struct wrap *w)
{
	static const struct option longopts[] = {
		RUN_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:p:H:bvh", longopts, NULL)) != -1) {
		if (c == ':')
			usage_fail(WRAP_USAGE, "option %s needs a value", qn(argv[optind - 1]));
		if (c == '?')
			unknown_option(WRAP_USAGE, argv[optind - 1], longopts);
		if (c == 'h')
			exit(cmd_help("wrap"));
		if (c == 'o')
			w->out = optarg;
		else if (c == 'p')
			w->policy = optarg;
		else
			pass_on(w, longopts, c, optarg);
	}
	if (optind < argc)
		usage_fail(WRAP_USAGE, "wrap takes no operand: the wrapper's arguments are the command");
	if (!w->out || !w->policy)
		usage_fail(WRAP_USAGE, "wrap needs -o FILE and --policy FILE");
	if (!w->expect && !w->ntrust)
		usage_fail(WRAP_USAGE, "wrap needs --expect-hash or --trust-key: a wrapper runs only "
		           "a pinned or signed policy");
	if (!strcmp(w->policy, "-"))
		usage_fail(WRAP_USAGE, "wrap needs a policy file, not standard input");
	if (w->sig && !w->ntrust)
		usage_fail(WRAP_USAGE, "--signature needs --trust-key");
}

/* Refuse an OUT (absolute) that the confined command could rewrite: one
 * beneath a files.write path, as written or resolved, or in a directory
 * that someone other than root or the caller (under --user, root alone)
 * could change, or below one (open_trusted_dir). OUT's directory, opened,
 * into *DIR, its name into REAL (PATH_MAX bytes). */
static const char *place_check(const char *out, const struct policy *p, int *dir, char *real)
{
	char path[PATH_MAX], r[2 * PATH_MAX], rw[PATH_MAX], *slash;
	char why[3 * QUOTED_MAX + 128];
	const char *base;

	snprintf(path, sizeof path, "%s", out);
	slash = strrchr(path, '/');
	base = out + (slash - path) + 1;
	*(slash == path ? slash + 1 : slash) = '\0';
	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		diex(EXIT_REFUSED, "-o %s names no file", q(out));
	if ((*dir = open_trusted_dir(path, 0, real, why, sizeof why)) < 0)
		die_hint(EXIT_REFUSED, 0, "put the wrapper where only root and the caller can "
		         "change it, or a directory above it", "refused: -o %s: %s, who could "
		         "replace the wrapper", q(out), why);
	snprintf(r, sizeof r, "%s%s%s", real, strcmp(real, "/") ? "/" : "", base);
	for (size_t i = 0; i < p->write.n; i++) {
		const char *w = p->write.v[i];
		if (resolve_rule(w, rw, why, sizeof why) < 0)
			snprintf(rw, sizeof rw, "%s", w);
		if (path_beneath(out, w) || path_beneath(r, rw))
			die_hint(EXIT_REFUSED, 0, "put the wrapper where the policy does not let "
			         "the command write", "refused: -o %s lies beneath files.write[%zu] "
			         "%s: the confined command could rewrite the wrapper, which runs "
			         "unconfined", q(out), i, q(w));
	}
	return base;
}

/* The wrapper: one line, no command looked up through PATH (a write path
 * on the caller's PATH could hold any): the front end, by its absolute
 * name, as `wrap --exec FILE` (wrapped()), which checks FILE before it
 * runs W's words, and run checks the policy as it always does. */
static char *script(const struct wrap *w, const char *self, const char *out, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	if (!f)
		diex(EXIT_REFUSED, "out of memory");
	fputs("#!/bin/sh\n"
	      "# Written by sharness-exec wrap: runs its arguments as a command confined\n"
	      "# by the policy below (sharness-exec(1)). It runs nothing when this file,\n"
	      "# that policy or a directory above either could be changed by a user\n"
	      "# other than root or the caller (under --user, root alone).\nexec ", f);
	sh_word(f, self);
	fputs(" wrap --exec ", f);
	sh_word(f, out);
	fputs(" --policy ", f);
	sh_word(f, w->policy);
	for (size_t i = 0; i < w->nargs; i++) {
		fputc(' ', f);
		sh_word(f, w->args[i]);
	}
	fputs(" -- \"$@\"\n", f);
	if (fclose(f))
		diex(EXIT_REFUSED, "out of memory");
	return text;
}

/* `wrap --exec FILE RUN-ARGS...`, the wrapper's line: FILE (the wrapper)
 * and the policy checked as run checks an unpinned policy file (trust.h),
 * under --user's trust when RUN-ARGS hold it, then run with RUN-ARGS (its
 * argv[0] FILE). */
static int wrapped(int argc, char **argv)
{
	const char *policy = NULL;

	for (int i = 3; i + 1 < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--user"))
			run_user_resolve(argv[i + 1], 0, RUN_USAGE);
		if (!strcmp(argv[i], "--policy") && !policy)
			policy = argv[i + 1];
	}
	close(open_trusted(argv[2], "wrapper"));
	if (policy)
		close(open_trusted(policy, "wrapper's policy"));
	return cmd_run(argc - 2, argv + 2);
}

int cmd_wrap(int argc, char **argv)
{
	static struct wrap w;	/* static: what it holds stays reachable for LSan */
	unsigned char want[HASH_LEN];
	char self[PATH_MAX], real[PATH_MAX], *out, *text;
	const char *key, *base;
	int dir;
	struct loaded l;
	ssize_t n;
	size_t len;

	if (argc > 2 && !strcmp(argv[1], "--exec"))
		return wrapped(argc, argv);
	parse_wrap(argc, argv, &w);
	/* --user: what the user owns may have been planted by a run as it */
	run_user_resolve(w.user, w.user_groups, WRAP_USAGE);
	if (w.expect && !hash_parse(w.expect, want))
		diex(EXIT_REFUSED, "--expect-hash must be sha256: and 64 hex digits, not %s",
		     q(w.expect));
	/* As run checks it: hash, signature, id, every problem said; and
	 * where it lies, as the wrapper will (wrapped()). */
	w.policy = absolute(w.policy);
	close(open_trusted(w.policy, "wrapper's policy"));
	if (!load_policy(-1, w.policy, &l, w.expect ? want : NULL))
		return EXIT_REFUSED;
	key = sign_run_check(&l, w.policy, w.sig, w.trust, w.ntrust, w.id);
	w.out = out = absolute(w.out);
	base = place_check(out, &l.pol, &dir, real);
	if ((n = readlink("/proc/self/exe", self, sizeof self - 1)) <= 0)
		die(EXIT_REFUSED, "unable to read /proc/self/exe");
	self[n] = '\0';
	text = script(&w, self, out, &len);
	/* beside it, renamed over it: never through a symlink at OUT, never
	 * half written */
	if (replace_at(dir, real, base, 0755, text, len) < 0)
		die(EXIT_REFUSED, "unable to write %s", qn(out));
	close(dir);
	if (printf("%s: runs its arguments confined by %s %s%s%s\n", out, w.policy, l.hash,
	           key ? ", signed by " : "", key ? key : "") < 0 || fflush(stdout))
		die(EXIT_REFUSED, "unable to write standard output");
	free(text);
	unload_policy(&l);
	return 0;
}
