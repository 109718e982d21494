/* What check warns of in a valid policy (warn.h): legal, but worth a
 * second look. The front end's check of a policy and the launcher's of a
 * manifest, for each inline policy, say the same. */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "warn.h"

/* LD_* and GLIBC_TUNABLES decide what code the dynamic loader maps into
 * the target (and into whatever it runs): legal, but worth a look. */
static void loader_warning(const char *file, const char *key, const char *name)
{
	if (!strncmp(name, "LD_", 3) || !strcmp(name, "GLIBC_TUNABLES"))
		fprintf(stderr, "%s: %s: warning: %s: %s is a loader variable: it decides "
		        "what code the target loads\n", progname, qn(file), key, q(name));
}

/* A write path that is a home directory (the caller's $HOME, or one of
 * /etc/passwd's but "/") holds agents' sockets (~/.ssh/agent, gpg-agent's
 * in ~/.gnupg) and shell start-up files: legal, but worth a look. */
static void home_warnings(const char *file, const char *where, const struct policy *p)
{
	const char *home = getenv("HOME");
	const struct passwd *pw = NULL;
	FILE *f = fopen("/etc/passwd", "re");

	for (size_t i = 0; i < p->write.n; i++) {
		int is = home && *home && !strcmp(p->write.v[i], home);
		if (f)
			rewind(f);
		while (!is && f && (pw = fgetpwent(f)))
			is = strcmp(pw->pw_dir, "/") && !strcmp(p->write.v[i], pw->pw_dir);
		if (is)
			fprintf(stderr, "%s: %s: warning: %sfiles.write[%zu]: %s is a home "
			        "directory, with agents' sockets (~/.ssh/agent, gpg-agent's) and "
			        "shell start-up files: name the project beneath it instead\n",
			        progname, qn(file), where, i, q(p->write.v[i]));
	}
	if (f)
		fclose(f);
}

static void loader_warnings(const char *file, const char *where, const struct policy *p)
{
	char key[128];

	home_warnings(file, where, p);

	for (size_t i = 0; i < p->env_inherit.n; i++) {
		snprintf(key, sizeof key, "%senv.inherit[%zu]", where, i);
		loader_warning(file, key, p->env_inherit.v[i]);
	}
	snprintf(key, sizeof key, "%senv.set", where);
	for (size_t i = 0; i < p->env_set_names.n; i++)
		loader_warning(file, key, p->env_set_names.v[i]);
}

/* Write paths check accepts but a person should look at twice: what
 * they expose, or (issue 38) how much each run walks for set-id files. */
static void write_warnings(const char *file, const char *where, const struct policy *p)
{
	static const char *const broad[][2] = {
		{ "/", "the whole machine is writable" },
		{ "/home", "every user's home is writable" },
		{ "/usr", "the system's programs are writable" },
		{ "/etc", "the system's configuration is writable" },
		{ "/var", "the system's state is writable, and each run walks all of "
		  "it for set-id files" },
		{ "/tmp", "it is shared with every job, and each run walks all of it "
		  "for set-id files: \"tmpfs\": [\"/tmp\"] gives the run a private one" },
		{ "/var/tmp", "it is shared with every job, and each run walks all of it "
		  "for set-id files: \"tmpfs\": [\"/var/tmp\"] gives the run a private one" },
	};

	for (size_t i = 0; i < p->write.n; i++)
		for (size_t b = 0; b < sizeof broad / sizeof *broad; b++)
			if (!strcmp(p->write.v[i], broad[b][0]))
				fprintf(stderr, "%s: %s: warning: %sfiles.write[%zu]: %s: %s\n",
				        progname, qn(file), where, i, q(broad[b][0]), broad[b][1]);
}

void policy_warnings(const char *file, const char *where, const struct policy *p)
{
	loader_warnings(file, where, p);
	write_warnings(file, where, p);
}
