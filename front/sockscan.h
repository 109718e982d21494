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
 * sockets of P's resolved read and exec paths beneath no write path (the
 * view covers those) and not named in files.sockets: each
 * listening one /proc/net/unix lists, and each rule path that is one or
 * holds one among its own entries (not beneath /usr). Note the first, its
 * rule and how many more in the walls record WALLS, one line
 * `listener="SOCKET" beneath files.read[I] "PATH"[ (and N more)]`, and
 * apart as `listener_dev=` one beneath /dev but no rule below it: the view
 * builds /dev, hiding the host's, and where it did the landlock step
 * weighs none of those. From
 * 64 directories to read on, a scanner forked now does it beside the
 * chain, and dies with its first process: the return is then a pipe's
 * read end (above 2, not close-on-exec) for the landlock step's --scan, which
 * waits there for the scanner's "y" and refuses without it; else -1.
 * DRY_RUN: no scan (beside, the pipe alone, for the chain printed). */
int socket_scan(const struct policy *p, int walls, int dry_run);

#endif
