/* The Landlock UAPI beyond what older <linux/landlock.h> headers carry
 * (Debian 12's linux-libc-dev 6.1 stops at ABI 2).
 * Values from include/uapi/linux/landlock.h and the kernel's
 * Documentation/userspace-api/landlock.rst; each one guarded, so newer
 * headers win. Checked against trixie-backports' linux-libc-dev 7.3.4
 * (ABI 11): every value and the ruleset attribute's layout agree. */
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

/* struct landlock_ruleset_attr as of ABI 10. The kernel takes the size we
 * pass and accepts a larger struct from an older ABI's point of view as
 * long as the members it does not know are zero (copy_struct_from_user);
 * landlock.c passes only the prefix the running ABI knows all the same. */
struct sharness_ruleset_attr {
	__u64 handled_access_fs;
	__u64 handled_access_net;	/* ABI 4 */
	__u64 scoped;			/* ABI 6 */
	__u64 quiet_access_fs;		/* ABI 10: quiet rules, see below */
	__u64 quiet_access_net;		/* ABI 10 */
	__u64 quiet_scoped;		/* ABI 10 */
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
/* ABI 7 also brought the errata query: landlock_create_ruleset(NULL, 0,
 * LANDLOCK_CREATE_RULESET_ERRATA) returns a bitmask of the Landlock bugs
 * fixed in the running kernel (Documentation/userspace-api/landlock.rst,
 * "Errata"). */
#ifndef LANDLOCK_CREATE_RULESET_ERRATA
#define LANDLOCK_CREATE_RULESET_ERRATA			(1U << 1)
#endif
/* Erratum N is bit N-1 of the answer; the UAPI names none of them, so these
 * names are ours. The kernel matrix prints each kernel's answer: Debian's
 * 6.1.176 (ABI 2) answers 0, erratum 3 unfixed there; 7.3.4 (ABI 11)
 * answers 15, whose bit 3 (an erratum 4) no documentation read here names.
 * What each fix means for the chain:
 *  1 (ABI 4) TCP rules no longer govern MPTCP, SCTP and SMC stream sockets:
 *    no difference here, since the object form's seccomp allowlist refuses
 *    those sockets on every kernel, fixed or not (DESIGN.md 4.6);
 *  2 (ABI 6) signal scoping no longer blocks signals between threads of
 *    one process in different domains: none here, the target's threads
 *    all share the landlock step's domain;
 *  3 (ABI 1) a rename or link of a directory that a bind mount left
 *    disconnected no longer widens its rights past REFER: the one that
 *    can matter, since the view step's tree is made of bind mounts (not
 *    tested: a target disconnecting a directory there). */
#define SHARNESS_LANDLOCK_ERRATUM_TCP_SOCKETS		(1U << 0)
#define SHARNESS_LANDLOCK_ERRATUM_SCOPED_SIGNALS	(1U << 1)
#define SHARNESS_LANDLOCK_ERRATUM_DISCONNECTED_DIRS	(1U << 2)

/* ABI 8: landlock_restrict_self() enforces the domain on every thread of
 * the process at once, not only on the calling one. */
#ifndef LANDLOCK_RESTRICT_SELF_TSYNC
#define LANDLOCK_RESTRICT_SELF_TSYNC			(1U << 3)
#endif

/* ABI 9: connect(2) and sendmsg(2) to a pathname UNIX socket need this
 * right on the socket file (or a directory above it). */
#ifndef LANDLOCK_ACCESS_FS_RESOLVE_UNIX
#define LANDLOCK_ACCESS_FS_RESOLVE_UNIX			(1ULL << 16)
#endif

/* ABI 10: UDP, with the same struct landlock_net_port_attr rules as TCP.
 * BIND_UDP governs bind(2) of a UDP socket to a local port (port 0: an
 * ephemeral one, which is also what a first send on an unbound socket
 * takes); CONNECT_SEND_UDP governs connect(2) of a UDP socket and sendto(2)
 * or sendmsg(2) with an explicit destination port. */
#ifndef LANDLOCK_ACCESS_NET_BIND_UDP
#define LANDLOCK_ACCESS_NET_BIND_UDP			(1ULL << 2)
#endif
#ifndef LANDLOCK_ACCESS_NET_CONNECT_SEND_UDP
#define LANDLOCK_ACCESS_NET_CONNECT_SEND_UDP		(1ULL << 3)
#endif
/* ABI 10 too: quiet rules. landlock_add_rule(..., LANDLOCK_ADD_RULE_QUIET)
 * marks an object whose denials (for the rights in the ruleset's quiet_*
 * members) are not audit-logged. sharness-exec logs nothing of its own
 * and uses neither. */
#ifndef LANDLOCK_ADD_RULE_QUIET
#define LANDLOCK_ADD_RULE_QUIET				(1U << 0)
#endif

/* ABI 11: landlock_restrict_self() sets no_new_privs itself, in the same
 * call, so a caller without CAP_SYS_ADMIN needs no prctl(2) before it. */
#ifndef LANDLOCK_RESTRICT_SELF_NO_NEW_PRIVS
#define LANDLOCK_RESTRICT_SELF_NO_NEW_PRIVS		(1U << 4)
#endif


/* Every right of every ABI this file knows: a ruleset asks for these, and
 * landlock_mask_abi (helper.h) takes out what the running ABI lacks. */
#define LL_FS_ALL (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
	LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR | \
	LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE | \
	LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | \
	LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK | \
	LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK | \
	LANDLOCK_ACCESS_FS_MAKE_SYM | LANDLOCK_ACCESS_FS_REFER | \
	LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV | \
	LANDLOCK_ACCESS_FS_RESOLVE_UNIX)
#define LL_NET_TCP (LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP)
#define LL_NET_UDP (LANDLOCK_ACCESS_NET_BIND_UDP | LANDLOCK_ACCESS_NET_CONNECT_SEND_UDP)
#define LL_SCOPE_ALL (LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL)

#endif
