/* cgrouptcp.c: the TCP part of the memory cap of sharness-exec-limits
 * (cgroup.h, cg_tcp). cgroup v1 keeps the memory of TCP socket buffers in a
 * counter apart from memory.limit_in_bytes, and counts nothing in it until
 * memory.kmem.tcp.limit_in_bytes is written: without it, a capped target
 * queues as much as the host-wide net.ipv4.tcp_mem lets it in unread
 * sockets, and starves TCP for the whole host. cgroup v2 charges socket
 * memory to memory.current (unless booted with cgroup.memory=nosocket),
 * so there is nothing to write. Nothing here prints. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cgroup.h"
#include "common.h"

int cg_tcp(int at, const char *dir, unsigned long mib, int version, char *why, size_t whysz)
{
	char val[32];
	int r;

	/* v2: memory.max holds sockets too */
	if (version == 2 || (version != 1 && cg_readat(at, "memory.max", val, sizeof val) == 0))
		return 2;
	snprintf(val, sizeof val, "%llu", (unsigned long long)mib << 20);
	if ((r = cg_putat(at, CG_TCP_FILE, val, 1)) < 0)
		snprintf(why, whysz, "unable to write %s to %s/%s: %s", val, dir, CG_TCP_FILE,
		         strerror(errno));
	return r;
}
