/* sharness-exec-egress: the server confines itself before it accepts
 * (egress.h, DESIGN.md 4.9): no capabilities, no_new_privs, Landlock (no
 * file but the resolver's, to read; no exec; TCP connect only to the
 * listed ports, bind to none; the scopes) and the landlock step's seccomp
 * filter with the object form's socket allowlist. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

#include "common.h"
#include "egress.h"
#include "helper.h"
#include "landlock-abi.h"
#include "seccomp.h"

static void landlock_self(int best, const struct allow *allow, size_t nallow)
{
	struct sharness_ruleset_attr attr = { LL_FS_ALL, LL_NET_TCP, LL_SCOPE_ALL, 0, 0, 0 };
	long abi = landlock_abi();
	static const char *const files[] = { "/etc/resolv.conf", "/etc/hosts" };
	__u32 flags = 0;
	int rs;

	if (abi < 1) {
		if (!best)
			die_hint(EXIT_CONFINE, 0, "-b runs it without", "unable to confine the "
			         "egress step: this kernel has no Landlock");
		warnx_("best effort: no Landlock: the egress step may open files and connect "
		       "anywhere its uid may");
		return;
	}
	landlock_mask_abi((int)abi, &attr, &flags);
	if ((rs = (int)syscall(SYS_landlock_create_ruleset, &attr,
	                      landlock_attr_size((int)abi), 0)) < 0)
		die(EXIT_CONFINE, "unable to make the egress step's Landlock ruleset");
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		struct landlock_path_beneath_attr pb = {
			.allowed_access = LANDLOCK_ACCESS_FS_READ_FILE };
		if ((pb.parent_fd = open(files[i], O_PATH | O_CLOEXEC)) < 0)
			continue;	/* the resolver does without it */
		if (syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0)
			die(EXIT_CONFINE, "unable to let the egress step read %s", files[i]);
		close(pb.parent_fd);
	}
	for (size_t i = 0; abi >= 4 && i < nallow; i++) {
		struct landlock_net_port_attr np = {
			.allowed_access = LANDLOCK_ACCESS_NET_CONNECT_TCP, .port = allow[i].port };
		if (syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_NET_PORT, &np, 0) < 0)
			die(EXIT_CONFINE, "unable to let the egress step connect to port %u",
			    allow[i].port);
	}
	if (syscall(SYS_landlock_restrict_self, rs, 0) < 0)
		die(EXIT_CONFINE, "unable to confine the egress step with Landlock");
	close(rs);
}

static int by_number(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

void keep_only(int *keep, size_t n)
{
	int from = 3;

	qsort(keep, n, sizeof *keep, by_number);
	for (size_t i = 0; i <= n; i++) {
		int to = i < n ? keep[i] : -1;	/* -1: up to the last */
		if (i < n && to < from)
			continue;	/* -1, a standard one, or twice */
		if (to != from && syscall(SYS_close_range, (unsigned)from,
		                          to < 0 ? ~0u : (unsigned)to - 1, 0) < 0)
			for (int fd = from; fd < (to < 0 ? 1024 : to); fd++)
				close(fd);
		from = to + 1;
	}
}

void confine_self(int best, const struct allow *allow, size_t nallow)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = { { 0, 0, 0 } };

	for (int c = 0; c <= 63; c++)
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL && errno != EPERM)
			die(EXIT_CONFINE, "unable to drop capability %d", c);
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 ||
	    syscall(SYS_capset, &h, d) < 0)
		die(EXIT_CONFINE, "unable to drop the egress step's capabilities");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die(EXIT_CONFINE, "unable to set no_new_privs");
	landlock_self(best, allow, nallow);
	if (seccomp_install(SECCOMP_TARGET | SECCOMP_DENY_USERNS | SECCOMP_NET_ALLOWLIST |
	                    SECCOMP_ALLOW_UDP) < 0)
		die(EXIT_CONFINE, "unable to install the egress step's seccomp filter");
}
