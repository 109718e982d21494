/* The Landlock UAPI beyond what older <linux/landlock.h> headers carry
 * (Debian 12's linux-libc-dev 6.1 stops at ABI 2, plus the ERRATA flag).
 * Values from include/uapi/linux/landlock.h and the kernel's
 * Documentation/userspace-api/landlock.rst; each one guarded, so newer
 * headers win. */
#ifndef SHARNESS_LANDLOCK_ABI_H
#define SHARNESS_LANDLOCK_ABI_H

#include <linux/types.h>
#include <linux/landlock.h>

/* ABI 3 (Linux 6.2) */
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE		(1ULL << 14)
#endif

/* ABI 4 (Linux 6.7): TCP bind and connect, one rule per port. A header
 * without the access rights also lacks the rule type (an enum member, which
 * #ifndef cannot see) and its attribute, so all three come together. */
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP		(1ULL << 0)
#define LANDLOCK_ACCESS_NET_CONNECT_TCP		(1ULL << 1)
#define LANDLOCK_RULE_NET_PORT			2
struct landlock_net_port_attr {
	__u64 allowed_access;
	__u64 port;			/* host byte order */
};
#endif

/* ABI 5 (Linux 6.10) */
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV		(1ULL << 15)
#endif

/* ABI 6 (Linux 6.12): scoping, in a third word of the ruleset attribute. */
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET	(1ULL << 0)
#endif
#ifndef LANDLOCK_SCOPE_SIGNAL
#define LANDLOCK_SCOPE_SIGNAL			(1ULL << 1)
#endif

/* struct landlock_ruleset_attr as of ABI 6. The kernel takes the size we
 * pass and accepts a larger struct from an older ABI's point of view as
 * long as the members it does not know are zero. */
struct sharness_ruleset_attr {
	__u64 handled_access_fs;
	__u64 handled_access_net;	/* ABI 4 */
	__u64 scoped;			/* ABI 6 */
};

/* ABI 7 (Linux 6.15): landlock_restrict_self() audit flags. */
#ifndef LANDLOCK_RESTRICT_SELF_LOG_SAME_EXEC_OFF
#define LANDLOCK_RESTRICT_SELF_LOG_SAME_EXEC_OFF	(1U << 0)
#endif
#ifndef LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON
#define LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON		(1U << 1)
#endif
#ifndef LANDLOCK_RESTRICT_SELF_LOG_SUBDOMAINS_OFF
#define LANDLOCK_RESTRICT_SELF_LOG_SUBDOMAINS_OFF	(1U << 2)
#endif

#endif
