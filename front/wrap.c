/* sharness-exec wrap (DESIGN.md 4.1): a one-word wrapper for a pinned or
 * signed policy, for the places that take one program and no quoting:
 * GOFLAGS=-exec=, meson's exe_wrapper, cargo's runner, CTest. The policy
 * is checked and its hash or signature verified as run would, before
 * anything is written. The wrapper itself runs unconfined, so it may not
 * lie where the policy lets the confined command write. */
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
#include "verify.h"
#include "trust.h"

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
	const char *out, *policy, *expect, *sig, *id;
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
 * that others may write to and that is not sticky. */
static void place_check(const char *out, const struct policy *p)
{
	char dir[PATH_MAX], real[PATH_MAX], r[2 * PATH_MAX], rw[PATH_MAX], *slash;
	char why[2 * QUOTED_MAX + 64];
	const char *base;
	struct stat st;

	snprintf(dir, sizeof dir, "%s", out);
	slash = strrchr(dir, '/');
	base = out + (slash - dir) + 1;
	*slash = '\0';
	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		diex(EXIT_REFUSED, "-o %s names no file", q(out));
	if (!realpath(*dir ? dir : "/", real) || stat(real, &st) < 0)
		die(EXIT_REFUSED, "unable to find the directory of %s", q(out));
	if ((st.st_mode & 022) && !(st.st_mode & S_ISVTX))
		diex(EXIT_REFUSED, "refused: -o %s: its directory is writable by others, who "
		     "could replace the wrapper", q(out));
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
}

/* The wrapper: it looks at itself and at its policy file before it runs
 * anything (nobody but the caller or root may be able to change either),
 * then execs run (SELF) with W's words and its own arguments. */
static char *script(const struct wrap *w, const char *self, const char *out, size_t *len)
{
	unsigned uid = (unsigned)getuid();
	char *text = NULL, who[64];
	FILE *f = open_memstream(&text, len);

	if (!f)
		diex(EXIT_REFUSED, "out of memory");
	snprintf(who, sizeof who, uid ? "uid %u or root" : "root", uid);
	fprintf(f, "#!/bin/sh\n"
	        "# Written by sharness-exec wrap: runs its arguments as a command confined\n"
	        "# by the policy below (sharness-exec(1)). It runs nothing when it or that\n"
	        "# policy file could be changed by a user other than %s.\n"
	        "me=", who);
	sh_word(f, strrchr(out, '/') + 1);
	fputs("\nfor f in ", f);
	sh_word(f, out);
	fputc(' ', f);
	sh_word(f, w->policy);
	fprintf(f, "; do\n"
	        "\tif [ -n \"$(find \"$f\" -prune ! \\( -type f \\( -user %u -o -user 0 \\) "
	        "! -perm -020 ! -perm -002 \\) -print 2>&1)\" ]; then\n"
	        "\t\tprintf '%%s: fatal: refused: %%s could be changed by a user other than "
	        "%s; nothing ran\\n' \"$me\" \"$f\" >&2\n"
	        "\t\texit 125\n\tfi\ndone\nexec ", uid, who);
	sh_word(f, self);
	fputs(" run --policy ", f);
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

/* The wrapper goes in beside OUT and is renamed over it: never through a
 * symlink at OUT, never half written. */
static void write_script(const char *out, const char *text, size_t len)
{
	char *tmp;
	int fd, e;

	if (asprintf(&tmp, "%s.XXXXXX", out) < 0)
		diex(EXIT_REFUSED, "out of memory");
	if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0)
		die(EXIT_REFUSED, "unable to create a temporary file beside %s", qn(out));
	if (fchmod(fd, 0755) < 0 || write_all(fd, text, len) < 0 || fsync(fd) < 0 ||
	    close(fd) < 0 || rename(tmp, out) < 0) {
		e = errno;
		unlink(tmp);
		errno = e;
		die(EXIT_REFUSED, "unable to write %s", qn(out));
	}
	free(tmp);
}

int cmd_wrap(int argc, char **argv)
{
	static struct wrap w;	/* static: what it holds stays reachable for LSan */
	unsigned char want[HASH_LEN];
	char self[PATH_MAX], *out, *text;
	const char *key;
	struct loaded l;
	ssize_t n;
	size_t len;

	parse_wrap(argc, argv, &w);
	if (w.expect && !hash_parse(w.expect, want))
		diex(EXIT_REFUSED, "--expect-hash must be sha256: and 64 hex digits, not %s",
		     q(w.expect));
	/* As run checks it: hash, signature, id, every problem said. */
	w.policy = absolute(w.policy);
	if (!load_policy(-1, w.policy, &l, w.expect ? want : NULL))
		return EXIT_REFUSED;
	key = sign_run_check(&l, w.policy, w.sig, w.trust, w.ntrust, w.id);
	w.out = out = absolute(w.out);
	place_check(out, &l.pol);
	if ((n = readlink("/proc/self/exe", self, sizeof self - 1)) <= 0)
		die(EXIT_REFUSED, "unable to read /proc/self/exe");
	self[n] = '\0';
	text = script(&w, self, out, &len);
	write_script(out, text, len);
	if (printf("%s: runs its arguments confined by %s %s%s%s\n", out, w.policy, l.hash,
	           key ? ", signed by " : "", key ? key : "") < 0 || fflush(stdout))
		die(EXIT_REFUSED, "unable to write standard output");
	free(text);
	unload_policy(&l);
	return 0;
}
