/* What the two servers of seccomp user notifications share (the listen
 * guard, listen/listenguard.c, and the setgid server, landlock/setgid.c):
 * a server forked twice by a step while its capabilities are held, before
 * landlock_restrict_self, that answers each notification of the filter
 * the step then installs. */
#ifndef SHARNESS_NOTIFY_H
#define SHARNESS_NOTIFY_H

#include <linux/seccomp.h>

#include "common.h"

/* In the server, first: a session of its own; no capability but those
 * of KEEP_CAPS (a mask of the first 32) that it holds, and besides, only
 * permitted (not effective: no check reads them), those of PERMIT_CAPS;
 * no_new_privs; not dumpable;
 * named NAME; no descriptor of the chain but SOCK and KEEP (-1: none),
 * /dev/null on 0-2 where the view has it. */
void notify_detach(__u32 keep_caps, __u32 permit_caps, const char *name, int sock, int keep);
/* In the server, then: receive the listener over SOCK (nothing there: the
 * step gave up, exit 0), acknowledge it, and answer each notification
 * with HANDLE's errno (0: success) until no process uses the filter any
 * more (POLLHUP). */
void notify_serve(int sock, int (*handle)(int nfd, struct seccomp_notif *req)) NORETURN;
/* In the step: fork SERVE(SOCK) twice (it is nobody's child but the
 * reaper's) with one end of a socket pair; the other end, or -1 with
 * errno. */
int notify_fork(void (*serve)(int sock));
/* In the step: hand the listener NFD over SOCK (NFD and SOCK closed
 * here); with WAIT, until the server holds it. 0, or -1 when it was not
 * sent, or with WAIT not taken. Without WAIT the listener may still be in
 * the socket as the step goes on: a server that dies before it takes it
 * closes it, and the kernel fails the filter's notified calls (ENOSYS),
 * so nothing waits for a server that is not needed before the first. */
int notify_hand(int sock, int nfd, int wait);

#endif
