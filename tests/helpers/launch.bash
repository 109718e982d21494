# What the tests of launch's runtime share (tests/launch-run.bats,
# tests/launch-freeze.bats): the session's paths, the default uid range,
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
}
launch_unlock() {
	[ -n "${launch_lock_fd:-}" ] || return 0
	flock -u "$launch_lock_fd"
	exec {launch_lock_fd}>&-
}

# session_procs: every process of a uid in the default range, "UID PID".
session_procs() {
	ps -eo uid=,pid= | awk -v lo="$FIRST" -v hi="$LAST" '$1 >= lo && $1 <= hi'
}

# nothing_left UID...: no process of a session uid, each uid's lock free,
# no session's cgroup, no process that sees a session's tmpfs.
nothing_left() {
	local uid left
	left=$(session_procs)
	[ -z "$left" ] || { ps -o uid=,pid=,ppid=,args= -p "$(awk '{ print $2 }' <<<"$left" | paste -sd,)"; return 1; }
	for uid; do
		flock -n "$UIDS/$uid" true
	done
	[ -z "$(find /sys/fs/cgroup -maxdepth 6 -name 'sharness-exec-session-*' 2>/dev/null)" ]
	! grep -qs ' sharness-exec-session ' /proc/[0-9]*/mountinfo
	[ -z "$(ls -A "$STATE")" ]
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
