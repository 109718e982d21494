/* run --in-session, --passwd-fd FD, --group-fd FD, --hosts-fd FD and
 * --state-dir DIR: what
 * sharness-exec launch (DESIGN.md 4.8) gives the run of each component,
 * usable alone. --in-session: the netns step keeps the caller's network
 * namespace (-I), which must hold no interface but lo. --passwd-fd,
 * --group-fd, --hosts-fd: sealed memfds of passwd, group and hosts lines,
 * checked here, that the view step shows read-only at /etc/passwd,
 * /etc/group and /etc/hosts (-F); --user is resolved against the first
 * two. --state-dir: the role's state directory, which its policy need not
 * list, read-write (a files.write path of the run's own). --share DIR,
 * --share-read DIR: a directory the manifest's share gives the role, a
 * files.write or files.read path of the run's own; and each socket in it
 * when the run starts a files.sockets path (Landlock ABI 9 lets a domain
 * connect to another's socket only so). */
#ifndef SHARNESS_RUNSESSION_H
#define SHARNESS_RUNSESSION_H

#include "policy.h"
#include "runvec.h"

/* The long options (run's getopt_long values), for RUN's table. */
enum { SESSION_OPT_IN = 0x200, SESSION_OPT_PASSWD, SESSION_OPT_GROUP, SESSION_OPT_HOSTS,
       SESSION_OPT_STATE, SESSION_OPT_SHARE, SESSION_OPT_SHARE_READ };
#define SESSION_LONGOPTS \
	{ "in-session", no_argument, NULL, SESSION_OPT_IN }, \
	{ "passwd-fd", required_argument, NULL, SESSION_OPT_PASSWD }, \
	{ "group-fd", required_argument, NULL, SESSION_OPT_GROUP }, \
	{ "hosts-fd", required_argument, NULL, SESSION_OPT_HOSTS }, \
	{ "state-dir", required_argument, NULL, SESSION_OPT_STATE }, \
	{ "share", required_argument, NULL, SESSION_OPT_SHARE }, \
	{ "share-read", required_argument, NULL, SESSION_OPT_SHARE_READ }

/* One of them, from run's option loop (USAGE for a bad FD). */
void session_option(int c, const char *arg, const char *usage);
/* In place of closefrom(3): close every inherited descriptor above 2 but
 * the ones of --passwd-fd, --group-fd and --hosts-fd and KEEP (-1: none). */
void close_inherited(int keep);
/* Check what --passwd-fd, --group-fd and --hosts-fd name (125, one line,
 * when they are not sealed memfds of well-formed lines), and have --user
 * resolved against the first two; before run_user_resolve. */
void session_check(void);
/* --state-dir's directory into P's files.write, once its hash is checked,
 * unless a files.write or files.tmpfs path holds it already; --share's
 * and --share-read's into files.write and files.read, the sockets in them
 * into files.sockets. */
void session_state(struct policy *p);
/* --in-session given? */
int session_in(void);
/* The view step's words (-F /etc/passwd=FD ...), and the landlock step's
 * (-r for each of those files, which the view holds). */
void session_push_view(struct vec *chain);
void session_push_landlock(struct vec *chain);
/* Just before the exec: the descriptors open across it; 0, or -1. The
 * highest of them, or -1. */
int session_pass(void);
int session_top(void);

#endif
