# What the tests of launch's runtime share (tests/launch/launch-run.bats,
# tests/launch/launch-freeze.bats): the session's paths, the default uid range,
# the system paths of a role's policy, and these helpers.
STATE=/run/sharness-exec/session
UIDS=/run/sharness-exec/uids
FIRST=1879048192
LAST=1879113727
SYS='"/usr","/bin","/lib","/lib64"'

# launch_lock, launch_unlock: one test at a time, of every file that
# launches (make -j2 check runs files side by side), since nothing_left
# looks at what any session leaves: its cgroups, its tmpfs. The lock is
# taken in setup and let go in teardown, on a descriptor of the test's
# own shell; the front end closes it before anything of a launch runs.
LAUNCH_LOCK=/run/sharness-exec-launch-tests.lock
launch_lock() {
	exec {launch_lock_fd}>>"$LAUNCH_LOCK"
	flock -w 600 "$launch_lock_fd" || { echo "# $LAUNCH_LOCK: held for 600 s" >&3; return 1; }
	launch_snapshot
}
launch_unlock() {
	[ -n "${launch_lock_fd:-}" ] || return 0
	flock -u "$launch_lock_fd"
	exec {launch_lock_fd}>&-
}

# launch_setup [FEATURE...]: a setup of a file that launches: root,
# Landlock and each FEATURE (require_feature), then the lock, the test's
# $TMP, and the programs where the session's uids reach them.
launch_setup() {
	local f
	for f in root landlock "$@"; do
		require_feature "$f"
	done
	launch_lock
	setup_tmp
	reach_programs
}

# session_procs: every process of a uid in the default range, "UID PID".
session_procs() {
	ps -eo uid=,pid= | awk -v lo="$FIRST" -v hi="$LAST" '$1 >= lo && $1 <= hi'
}

# under_launcher PID: a live sharness-exec-launch (a launcher, or its
# watcher) is PID's ancestor: a session still running. nothing_left looks
# once the test's own launches have all ended, so that is another launch's
# (a person's, another checkout's), which may start at any time.
under_launcher() {
	local p=$1
	while [ "$p" -gt 1 ] 2>/dev/null; do
		case $(readlink "/proc/$p/exe" 2>/dev/null) in
		*/sharness-exec-launch) return 0 ;;
		esac
		p=$(awk '/^PPid:/ { print $2 }' "/proc/$p/status" 2>/dev/null) || return 1
	done
	return 1
}

# launch_snapshot (in launch_lock): the sessions' cgroups and state
# entries already there, which are not the test's.
launch_snapshot() {
	CG_BEFORE=$(session_cgroups)
	STATE_BEFORE=$(ls -A "$STATE" 2>/dev/null | sort)
}
session_cgroups() {
	find /sys/fs/cgroup -maxdepth 6 -name 'sharness-exec-session-*' 2>/dev/null | sort
}

# nothing_left UID...: of the test's own sessions (not launch_snapshot's,
# nor a live one's: under_launcher), no process of a session uid, each
# uid's lock free, no cgroup, no process that sees a session's tmpfs, no
# state entry (where another launch runs, its own cannot be told apart:
# not looked at then).
nothing_left() {
	local uid pid left= cg f foreign=
	while read -r uid pid; do
		[ -n "$pid" ] || continue
		if under_launcher "$pid"; then foreign=1; else left+="$pid,"; fi
	done < <(session_procs)
	[ -z "$left" ] || { ps -o uid=,pid=,ppid=,args= -p "${left%,}"; return 1; }
	for uid; do
		flock -n "$UIDS/$uid" true
	done
	for cg in $(comm -13 <(echo "$CG_BEFORE") <(session_cgroups)); do
		for pid in $(cat "$cg/cgroup.procs" 2>/dev/null); do
			under_launcher "$pid" && continue 2
		done
		echo "# left: $cg"
		return 1
	done
	for f in $(grep -ls ' sharness-exec-session ' /proc/[0-9]*/mountinfo); do
		pid=${f#/proc/}
		under_launcher "${pid%%/*}" || { echo "# left: a session tmpfs in $f"; return 1; }
	done
	[ -n "$foreign" ] || [ -z "$(comm -13 <(echo "$STATE_BEFORE") <(ls -A "$STATE" | sort))" ]
}

# fifos: the test's ends of main's FIFOs $TMP/to-test and $TMP/to-main,
# opened read-write so that no open blocks: 7 reads what main says, 8
# writes to main (3 is bats's). hear reads a line of 7, waiting at most
# 60 s, so that a launch that failed early ends the test, never hangs it.
fifos() {
	exec 7<>"$TMP/to-test" 8<>"$TMP/to-main"
}
hear() {
	read -r -t 60 -u 7 "$@"
}

# script NAME LINE...: $TMP/NAME.sh, a /bin/sh script of LINEs.
script() {
	local name=$1
	shift
	printf '%s\n' '#!/bin/sh' "$@" >"$TMP/$name.sh"
	chmod 755 "$TMP/$name.sh"
}
