#!/usr/bin/env bats
# run --timeout and --kill-after (the supervise step's -T and -K), and the
# line that names a cap the run hit. Each timeout case runs the whole chain
# as root and as nobody, in a pid namespace and without one (unshare
# refused by tests/try/deny-unshare: the subreaper's walk of its
# descendants), and checks the status the caller sees, the one line on
# stderr, that nothing of the run is left (every process it starts carries
# a marker in its argv, as in supervise.bats) and that the caller's process
# group, where the command stays, was not signalled: a sibling the test
# starts in it lives on.
#
# not tested: how long a run takes (no timed assertions: the lines say
# which of the SIGTERM and the kill ended it); a kernel before 5.3, where
# the walk has no pidfd_open and signals by pid; the memory and pids lines
# on cgroup v2 (no controllers here: the counters are read from
# memory.events and pids.events there, as on v1 from memory.oom_control
# and pids.events); an OOM kill of a process of the run but the target
# (the "killed N processes" line).
load ../helpers/load

DENY="$TRYDIR/deny-unshare"

setup() {
	setup_tmp
	M="tmo-$$-$BATS_TEST_NUMBER-$RANDOM"
	ulimit -c 0
	SIBS=()
}

teardown() {
	local p
	for p in "${SIBS[@]}"; do kill "$p" 2>/dev/null || true; done
	teardown_tmp
}

# policy DIR [PROCESS]: $TMP/p.json, which may write DIR, run python3, and
# has PROCESS after no_new_privs.
policy() {
	mkdir -p "$1"
	chmod 777 "$1"
	write_policy "$TMP/p.json" '{"pbp":1,"id":"timeout","files":{"read":["/etc","/proc"],"exec":["/usr","/bin","/lib","/lib64"],"write":["'"$1"'","/dev/null"]},"network":"none","process":{"no_new_privs":true'"${2:-}"'}}'
}

# sx MODE ARGS...: `sharness-exec run ARGS...` as MODE: root, nobody,
# root-deny or nobody-deny (no pid namespace; root then needs
# --best-effort for the view step), with INT and QUIT at their defaults.
sx() {
	local mode=$1
	shift
	local cmd=(env --default-signal=INT,QUIT)
	case $mode in *-deny) cmd+=("$DENY") ;; esac
	cmd+=("$SHARNESS_EXEC" run)
	[ "$mode" = root-deny ] && cmd+=(--best-effort)
	case $mode in nobody*) cmd=(as_nobody "${cmd[@]}") ;; esac
	"${cmd[@]}" "$@"
}

# The lines of sharness-exec's steps on stderr, but their warnings (the
# netns', view's and limits' where there is no namespace or cgroup): not
# the target's own (bash says "Terminated" of a child the SIGTERM killed).
ours() { grep '^sharness-exec' | grep -v ': warning: ' || true; }
said() { ours <"$TMP/err"; }

left() { pgrep -af -- "$M" || true; }
nothing_left() {
	local l
	l=$(left)
	[ -z "$l" ] || { echo "left behind: $l"; return 1; }
}

# siblings: two processes in our process group, which the run shares, one
# of root and one of nobody, in SIBS.
siblings() {
	sleep 1000 &
	SIBS+=($!)
	# setpriv itself, not a function's subshell: $! is the sleep
	setpriv --reuid="$NOBODY_UID" --regid="$NOBODY_GID" --clear-groups -- sleep 1000 &
	SIBS+=($!)
}

siblings_alive() {
	local p
	for p in "${SIBS[@]}"; do
		[ "$(ps -o comm=,pgid= -p "$p" | tr -s ' ')" = "sleep $(ps -o pgid= -p $$ | tr -d ' ')" ] ||
			{ echo "sibling $p is gone or not in our group"; return 1; }
	done
}

modes() {
	local m
	for m in root nobody root-deny nobody-deny; do
		case $m in nobody*) require_feature nobody ;; esac
		echo "# $m"
		"$1" "$m" || return 1
	done
}

# A target that ignores SIGTERM, as does the daemon it double-forks (it
# inherits the ignored disposition); it waits until the daemon runs.
ignore_case() {
	local W=$TMP/w-ignore-$1 status=0
	policy "$W"
	siblings
	sx "$1" --timeout 1 --kill-after 2 -p "$TMP/p.json" -- bash -c "trap '' TERM
		setsid bash -c 'touch $W/d.ready; exec -a $M-daemon sleep 1000' </dev/null >/dev/null 2>&1 &
		for i in \$(seq 2000); do [ -e $W/d.ready ] && break; sleep 0.02; done
		exec -a $M-main sleep 1000" >"$TMP/out" 2>"$TMP/err" || status=$?
	[ "$status" = 124 ] || { echo "status $status"; cat "$TMP/err"; return 1; }
	[ "$(said)" = "sharness-exec-supervise: the command timed out after 1 s (--timeout 1s), and was killed 2 s later (--kill-after 2s)" ] ||
		{ cat "$TMP/err"; return 1; }
	[ -e "$W/d.ready" ] || { echo "the daemon never ran"; return 1; }
	# at once, not eventually: the run is over when the caller gets it
	nothing_left || return 1
	siblings_alive
}

@test "--timeout 1, a target that ignores SIGTERM and a daemon: 124 (not 137), nothing left, the caller's group untouched" {
	need root
	modes ignore_case
}

# A target that handles SIGTERM and exits 0; its child, asleep, gets the
# SIGTERM too. Only the SIGTERM can have ended it (the line says no kill).
# The trap is set before the target says it is there (W/trapped): on a
# machine so loaded that --timeout fired first, the same run again with a
# longer timeout, rather than a verdict on a target that never ran.
handle_case() {
	local W=$TMP/w-handle-$1 status t
	for t in 2 8 30; do
		rm -rf "$W"
		policy "$W"
		siblings
		status=0
		sx "$1" --timeout "$t" --kill-after 600 -p "$TMP/p.json" -- bash -c "
			trap 'touch $W/termed; exit 0' TERM
			touch $W/trapped
			bash -c 'exec -a $M-child sleep 1000' &
			wait" "$M" >"$TMP/out" 2>"$TMP/err" || status=$?
		[ -e "$W/trapped" ] && break
		echo "# the target had not set its trap in $t s: again, with a longer timeout"
		kill "${SIBS[@]}" 2>/dev/null
		SIBS=()
	done
	[ "$status" = 124 ] || { echo "status $status"; cat "$TMP/err"; return 1; }
	[ "$(said)" = "sharness-exec-supervise: the command timed out after $t s (--timeout ${t}s)" ] ||
		{ cat "$TMP/err"; return 1; }
	[ -e "$W/termed" ] || { echo "the target's trap did not run"; return 1; }
	nothing_left || return 1
	siblings_alive
}

@test "a target that handles SIGTERM and exits 0 ends the run with 124 too, and one line" {
	need root
	modes handle_case
}

@test "without the timeout expiring: the target's own status, signals re-raised, no line" {
	need root
	local W=$TMP/w
	policy "$W"
	run -124 --separate-stderr sx root -p "$TMP/p.json" -- sh -c 'exit 124'
	[ -z "$stderr" ]
	run -124 --separate-stderr sx root --timeout 10m -p "$TMP/p.json" -- sh -c 'exit 124'
	[ -z "$stderr" ]
	run -3 --separate-stderr sx root --timeout 600 -p "$TMP/p.json" -- sh -c 'exit 3'
	[ -z "$stderr" ]
	run -0 bash -c '"$@"; echo "status $?"' sx env --default-signal=INT,QUIT "$SHARNESS_EXEC" run \
		--timeout 1h -p "$TMP/p.json" -- sh -c 'kill -SEGV $$'
	[ "${lines[-1]}" = "status 139" ]
	require_feature nobody
	run -124 --separate-stderr sx nobody --timeout 600 -p "$TMP/p.json" -- sh -c 'exit 124'
	[[ "$stderr" != *"timed out"* ]]
}

@test "bad durations: 125 and one line, nothing runs; good ones reach the supervise step as -T and -K" {
	local W=$TMP/w v opt
	policy "$W"
	for opt in --timeout --kill-after; do
		for v in 0 0s 00 x 1. . 1e3 1m30 30s1m 1s1s -1 +1 ' 1' '1 ' 5ss 1M '' 99999999999999999999 2147483648 35791395m 596524h 24856d; do
			run -125 --separate-stderr "$SHARNESS_EXEC" run --timeout 1 "$opt" "$v" -p "$TMP/p.json" -- touch "$TMP/ran"
			[ -z "$output" ]
			[ "${#stderr_lines[@]}" = 1 ]
			[[ "$stderr" == "sharness-exec: fatal: $opt must be a duration from 1 ms to 2147483647 s: "*", not \""* ]]
		done
	done
	[ ! -e "$TMP/ran" ]
	run -125 --separate-stderr "$SHARNESS_EXEC" run --kill-after 3 -p "$TMP/p.json" -- touch "$TMP/ran"
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: --kill-after needs --timeout" ]
	[[ "${stderr_lines[1]}" == "usage: sharness-exec run "* ]]
	[ ! -e "$TMP/ran" ]
	for v in "1 1" "1s 1" "2m 120" "1h 3600" "2147483647 2147483647" "35791394m 2147483640" \
	         "1.5 1.5" "1.25s 1.25" "1m30s 90" "1d 86400" "0.0001 0.001"; do
		run -0 --separate-stderr "$SHARNESS_EXEC" run --dry-run --timeout "${v% *}" -p "$TMP/p.json" -- true
		[ "${lines[1]}" = "$HELPERDIR/sharness-exec-supervise -W 4 --timeout ${v#* } --kill-after 5 --" ]
	done
	run -0 --separate-stderr "$SHARNESS_EXEC" run -n --timeout 1 --kill-after 1m -p "$TMP/p.json" -- true
	[ "${lines[1]}" = "$HELPERDIR/sharness-exec-supervise -W 4 --timeout 1 --kill-after 60 --" ]
	# and the step on its own
	for v in "--timeout 0" "--timeout x" "--timeout 2147483648" "--timeout 1.2345" "--timeout 1." "--kill-after 0" "--kill-after 5" "-m 0" "-p x"; do
		# shellcheck disable=SC2086
		run -125 --separate-stderr "$SUPERVISE" $v -- touch "$TMP/ran"
		[ "${#stderr_lines[@]}" = 2 ]
		[[ "${stderr_lines[0]}" == "sharness-exec-supervise: fatal: "* ]]
	done
	[ ! -e "$TMP/ran" ]
}

# The 512 MiB really allocated (written), as bytes objects are.
ALLOC="b = b'x' * (512 << 20)"

@test "root: the memory cap (max_memory_mb 64) is named when it killed the target, from the cgroup's counter" {
	need root
	require_feature cgroup1
	local W=$TMP/w mode
	# bare, the allocation works
	run -0 python3 -c "$ALLOC"
	policy "$W" ',"max_memory_mb":64'
	for mode in root root-deny; do
		run -137 --separate-stderr sx "$mode" -p "$TMP/p.json" -- python3 -c "$ALLOC"
		[ "$(ours <<<"$stderr")" = "sharness-exec-supervise: the target was killed by the memory cap (max_memory_mb 64)" ]
		# under the cap, no word; nor for a SIGKILL that is not the cap's
		run -0 --separate-stderr sx "$mode" -p "$TMP/p.json" -- python3 -c "b = b'x' * (8 << 20)"
		[ -z "$(ours <<<"$stderr")" ]
		run -137 --separate-stderr sx "$mode" -p "$TMP/p.json" -- sh -c 'kill -KILL $$'
		[ -z "$(ours <<<"$stderr")" ]
	done
}

@test "root: the process cap (max_pids 8) says how many forks it refused, from pids.events" {
	need root
	require_feature cgroup1
	local W=$TMP/w mode
	run -0 python3 -c "$FORKS"
	[ "$output" = 0 ]
	policy "$W" ',"max_pids":8'
	for mode in root root-deny; do
		run -0 --separate-stderr sx "$mode" -p "$TMP/p.json" -- python3 -c "$FORKS"
		# python itself and 7 children; the landlock step's setgid
		# server is one of the 8 (without namespaces too, with the
		# step's own /proc)
		local refused=6
		[ "$output" = "$refused" ]
		[ "$(ours <<<"$stderr")" = "sharness-exec-supervise: the process cap (max_pids 8) refused $refused forks" ]
		run -0 --separate-stderr sx "$mode" -p "$TMP/p.json" -- true
		[ -z "$(ours <<<"$stderr")" ]
	done
}

@test "nobody (rlimits, no cgroup): a target dead of SIGKILL gets no cap line: an rlimit sends none" {
	need nobody
	local W=$TMP/w
	# no max_pids: RLIMIT_NPROC would count every process of nobody's
	policy "$W" ',"max_memory_mb":64'
	run -137 --separate-stderr sx nobody -p "$TMP/p.json" -- sh -c 'kill -KILL $$'
	[ -z "$(ours <<<"$stderr")" ]
	# RLIMIT_AS makes the allocation fail: python's own error, no line
	run -1 --separate-stderr sx nobody -p "$TMP/p.json" -- python3 -c "$ALLOC"
	[[ "$stderr" == *MemoryError* ]]
	[[ "$stderr" != *sharness-exec-supervise* ]]
	# and the timeout's own kill is not taken for the cap's
	run -124 --separate-stderr sx nobody --timeout 1 --kill-after 1 -p "$TMP/p.json" -- sh -c "trap '' TERM; exec sleep 1000"
	[ "$(ours <<<"$stderr")" = "sharness-exec-supervise: the command timed out after 1 s (--timeout 1s), and was killed 1 s later (--kill-after 1s)" ]
}
