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

/* Beside the chain: 1 when the scan wants 64 directories or more of P
 * (below ABI 9). Then the front end reads none as it resolves the rules,
 * and socket_scan_fork, after the resolution, forks a scanner that opens
 * and reads them and does socket_scan into the walls record WALLS, while
 * the chain goes on; it returns a pipe's read end (above 2, close-on-exec)
 * for the landlock step (-S), which waits for the scanner's "y" there
 * before it weighs the walls, and refuses without it. DRY_RUN: the pipe
 * alone, for the chain printed. The scanner dies with the chain's first
 * process (PR_SET_PDEATHSIG), and holds only stderr, WALLS and the pipe. */
int socket_scan_beside(const struct policy *p);
int socket_scan_fork(const struct policy *p, int walls, int dry_run);

#endif
