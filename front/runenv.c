/* sharness-exec run: the target's environment (DESIGN.md 2.2), built
 * from the policy's env keys, the caller's, --user's and launch's, and
 * for network.hosts the proxy variables that name the egress step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "egress/egress.h"
#include "frontend.h"
#include "runenv.h"
#include "runuser.h"
#include "trust.h"
#include "verify.h"

static const char *const default_env[] = {
	"PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ", "TERM",
};

/* Put NAME=VALUE into ENV, replacing an earlier NAME; nothing when VALUE
 * is NULL (an unset variable). */
void env_put(struct vec *env, const char *name, const char *value)
{
	size_t len = strlen(name);

	if (!value)
		return;
	for (size_t i = 0; i < env->n; i++)
		if (!strncmp(env->v[i], name, len) && env->v[i][len] == '=') {
			free(env->v[i]);
			if (asprintf(&env->v[i], "%s=%s", name, value) < 0)
				diex(EXIT_REFUSED, "out of memory");
			return;
		}
	push(env, "%s=%s", name, value);
}

/* NAME's value in ENV, or NULL. */
const char *env_get(const struct vec *env, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < env->n; i++)
		if (!strncmp(env->v[i], name, len) && env->v[i][len] == '=')
			return env->v[i] + len + 1;
	return NULL;
}

/* --launch-env: VAR (NAME=VALUE) of this process's when launch sets it. */
static void launch_var(struct vec *env, const char *var)
{
	const char *eq = strchr(var, '=');
	char *name = eq ? strndup(var, (size_t)(eq - var)) : NULL;

	if (name && manifest_launch_sets(name))
		env_put(env, name, eq + 1);
	free(name);
}

/* network.hosts: the egress step's listener in the run's own network
 * namespace (DESIGN.md 4.9), in the variables HTTP clients read (curl
 * only the lower-case http_proxy, Go the upper-case ones and not
 * ALL_PROXY; SOCKS clients must send names: socks5h). Set after the
 * policy's env.set: a run that names hosts has no other way out. */
static void proxy_env(struct vec *env)
{
	static const char *const http[] = { "http_proxy", "HTTP_PROXY", "https_proxy",
	                                     "HTTPS_PROXY" };
	char url[64];

	snprintf(url, sizeof url, "http://127.0.0.1:%d", EGRESS_PORT);
	for (size_t i = 0; i < sizeof http / sizeof *http; i++)
		env_put(env, http[i], url);
	snprintf(url, sizeof url, "socks5h://127.0.0.1:%d", EGRESS_PORT);
	env_put(env, "all_proxy", url);
	env_put(env, "ALL_PROXY", url);
	env_put(env, "no_proxy", "localhost,127.0.0.1,::1");
	env_put(env, "NO_PROXY", "localhost,127.0.0.1,::1");
}

/* KEY: the fingerprint of the key that verified the policy, or NULL. */
void build_env(struct vec *env, const struct loaded *l, const char *key, int dry_run)
{
	const struct policy *p = &l->pol;
	const struct run_user *u = run_user();

	for (size_t i = 0; i < sizeof default_env / sizeof *default_env; i++)
		env_put(env, default_env[i], getenv(default_env[i]));
	for (size_t i = 0; i < p->env_inherit.n; i++)
		env_put(env, p->env_inherit.v[i], getenv(p->env_inherit.v[i]));
	if (p->env_private) {
		make_private(p->env_private, policy_private_dirs, POLICY_PRIVATE_N, !dry_run);
		for (size_t i = 0; i < POLICY_PRIVATE_N; i++) {
			char *dir;
			if (asprintf(&dir, "%s/%s", strcmp(p->env_private, "/") ?
			             p->env_private : "", policy_private_dirs[i]) < 0)
				diex(EXIT_REFUSED, "out of memory");
			env_put(env, policy_private_vars[i], dir);
			free(dir);
		}
	} else if (u) {
		env_put(env, "HOME", u->home);
		env_put(env, "USER", u->name);
		env_put(env, "LOGNAME", u->name);
	} else {
		env_put(env, "HOME", getenv("HOME"));
		env_put(env, "USER", getenv("USER"));
	}
	for (size_t i = 0; i < p->env_set_names.n; i++)
		env_put(env, p->env_set_names.v[i], p->env_set_values.v[i]);
	if (p->hosts.n)
		proxy_env(env);
	for (char **e = run_launch_env ? environ : NULL; e && *e; e++)
		launch_var(env, *e);
	env_put(env, "SHARNESS_AI_POLICY_HASH", l->hash);
	env_put(env, "SHARNESS_AI_POLICY_ID", p->id);
	env_put(env, "SHARNESS_AI_POLICY_KEY", key);
}
