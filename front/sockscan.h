/* Listening pathname sockets beneath read and exec paths (DESIGN.md 4.7,
 * the right FS_RESOLVE_UNIX_READ): below Landlock ABI 9 nothing keeps the
 * target from connect(2)ing to one, since a read-only bind refuses writes
 * to files, directories and symlinks, not to a socket's inode. The front
 * end looks at the start, in the caller's network namespace, before any of
 * the run's exists; the landlock step weighs what it found (rights.h). */
#ifndef SHARNESS_SOCKSCAN_H
#define SHARNESS_SOCKSCAN_H

#include "policy.h"

/* Below ABI 9 (or the test front end's SHARNESS_EXEC_TEST_ABI), find the
 * sockets of P's resolved read and exec paths that lie beneath no write
 * path: every listening pathname socket /proc/net/unix lists, and every
 * rule path that is itself a socket or holds one among its own entries. Note the first, with its rule and
 * how many more, in the walls record FD as one line
 * `listener="SOCKET" beneath files.read[I] "PATH"[ (and N more)]`. */
void socket_scan(const struct policy *p, int fd);
/* 1 when the scan will read PATH's entries (below ABI 9, not beneath
 * /usr): then the front end hands each such rule's directory, opened once
 * for its resolution and this (resolve_rule_dir), to socket_scan_dir,
 * which reads and closes FD (rule I of files.read, WHICH 0, or of
 * files.exec, 1, resolved to PATH). socket_scan reads no directory. */
int socket_scan_wants(const char *path);
void socket_scan_dir(int which, size_t i, int fd, const char *path);

#endif
