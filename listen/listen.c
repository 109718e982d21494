/* sharness-exec-listen: the listen guard of the object form of "network"
 * (listenguard.h), a step of its own, right before the landlock step
 * (DESIGN.md 1). It forks the guard's server, sets no_new_privs, installs
 * the seccomp filter that hands every listen(2) to that server (a filter
 * stays across exec: the landlock step and the target run under it),
 * hands the server the filter's listener and closes it here, so that no
 * later step and not the target hold it; notes in the walls record what
 * stands ("listen=guard", or under -b where the guard cannot be had
 * "listen=refused": listen(2) refused on every socket); and execs PROGRAM,
 * the landlock step. Exit: 125 usage, 126 could not confine or exec, 127
 * PROGRAM not found; else PROGRAM's own status.
 *
 * Why here: the server must be forked while the capabilities are held (it
 * keeps CAP_SYS_PTRACE, for pidfd_getfd) and before the landlock step's
 * landlock_restrict_self (it stays outside the target's domain). A chain
 * of filters has one user-notification listener at most (a second gets
 * EBUSY): this step owns it. The landlock step's filters, installed after
 * this one, cannot weaken it: the kernel takes the strongest action of all
 * filters whatever their order (KILL, TRAP, ERRNO, USER_NOTIF, TRACE,
 * ALLOW), and for listen(2) and setsockopt(2) IP_LOCAL_PORT_RANGE the
 * landlock step's filters answer ALLOW (TRACE under --explain), weaker
 * than this filter's USER_NOTIF and ERRNO; io_uring_setup(2) and foreign
 * ABIs they refuse too (ENOSYS, or TRAP for the observer under --explain).
 * tests/step/listenstep.bats holds that, --explain included. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common.h"
#include "helper.h"
#include "listenguard.h"
#include "rights.h"
#include "statuspipe.h"

const char *progname = "sharness-exec-listen";

#define USAGE "sharness-exec-listen [-bt] [-E FD] [-W FD] [--] PROGRAM [ARG...]"

static int best, test;

static NORETURN void help(void)
{
	printf("usage: %s\n"
	       "  -b         best effort: where the kernel cannot have the guard,\n"
	       "             or a filter above holds the chain's one seccomp\n"
	       "             listener, refuse listen(2) on every socket, with a\n"
	       "             warning, instead of exiting 126\n"
	       "  -E FD      also write warning and fatal lines to FD\n"
	       "  -t         check mode: also print one line of what stands;\n"
	       "             without PROGRAM, exit 0 after it\n"
	       "  -W FD      the walls record: note listen=guard or listen=refused,\n"
	       "             and setgid=listen where the server takes the setgid calls\n",
	       USAGE);
	exit(0);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 }
	};
	int c, on;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:bE:htW:", longopts, NULL)) != -1) {
		switch (c) {
		case 'b': best = 1; break;
		case 'E': status_fd(optarg, USAGE); break;
		case 'h': help();
		case 't': test = 1; break;
		case 'W': walls_fd(optarg, USAGE); break;
		default: usage_option(USAGE, c, argv[optind - 1]);
		}
	}
	if (optind >= argc && !test)
		usage_fail(USAGE, "no program given");

	on = listenguard_start(best);
	walls_note("listen", on ? "guard" : "refused");
	if (test)
		check_line("listen_guard=%s", on ? "on" : "listen-refused");
	if (optind >= argc)
		return 0;
	xexecvp(argv[optind], argv + optind);
}
