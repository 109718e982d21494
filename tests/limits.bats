#!/usr/bin/env bats
# sharness-exec-limits: caps enforced from inside, signals and statuses seen
# from outside, nothing left behind.
#
# not tested: the cgroup v2 path for real (this machine's cgroup2 hierarchy
# has no controllers: memory and pids are bound to v1), so it is covered by
# tests/unit/test-cgroup against a fake delegated tree, including the move
# out of a cgroup the supervisor is alone in; a child that fails to join its
# cgroup (exit 126 without exec'ing; no way to make cgroup.procs refuse a
# write here); memory.swap.max and memory.memsw with real swap (no swap
# here); the EPERM give-up for a set-user-ID descendant; v1 pid reuse
# between reading cgroup.procs and kill(2).
load helpers/load

# The caller's own cgroup path in a v1 hierarchy, "" for its root.
own_path() {
	local p
	p=$(sed -n "s/^[0-9]*:$1:\\(.*\\)\$/\\1/p" /proc/self/cgroup)
	[ "$p" = / ] || printf '%s' "$p"
}

# Poll for a condition (a bound, not a timing assertion).
eventually() {
	local i
	for i in $(seq 400); do
		"$@" && return 0
		sleep 0.05
	done
	return 1
}

# Is a process whose command line starts with $1 alive? Anchored, so that
# the command line that starts it does not count.
a_process() { pgrep -f "^$1" >/dev/null; }
no_process() { ! a_process "$1"; }

@test "usage: -h and --help on stdout, status 0" {
	run -0 --separate-stderr "$LIMITS" -h
	[ "${lines[0]}" = "usage: sharness-exec-limits [-m MIB] [-p N] [-r] [--] PROGRAM [ARG...]" ]
	[ -z "$stderr" ]
	run -0 --separate-stderr "$LIMITS" --help
	[ "${lines[0]}" = "usage: sharness-exec-limits [-m MIB] [-p N] [-r] [--] PROGRAM [ARG...]" ]
}

@test "usage errors: one line and the usage on stderr, 125, nothing run" {
	for args in "" "-m 64" "-Z -- true" "--nope true" "-m" "-m 0 true" "-m 1048577 true" \
	    "-m 64k true" "-m -1 true" "-p 0 true" "-p 4194305 true" "-p 010 true" "true" "-r true"; do
		# shellcheck disable=SC2086
		run -125 --separate-stderr "$LIMITS" $args
		[ -z "$output" ]
		[ "${#stderr_lines[@]}" = 2 ]
		[[ "${stderr_lines[0]}" == "sharness-exec-limits: fatal: "* ]]
		[ "${stderr_lines[1]}" = "usage: sharness-exec-limits [-m MIB] [-p N] [-r] [--] PROGRAM [ARG...]" ]
	done
	run -125 --separate-stderr "$LIMITS" -- touch "$TMP/ran"
	[ ! -e "$TMP/ran" ]
}

@test "options stop at the program: its own arguments are not parsed" {
	run -0 --separate-stderr "$LIMITS" -p 50 echo -m -p -r --
	[ "$output" = "-m -p -r --" ]
}

@test "a missing program is 127, one that cannot be executed 126" {
	run -127 --separate-stderr "$LIMITS" -p 50 -- no-such-command-$$
	[ "$stderr" = "sharness-exec-limits: fatal: unable to execute no-such-command-$$: No such file or directory" ]
	printf 'data\n' >"$TMP/not-exec"
	run -126 --separate-stderr "$LIMITS" -m 64 -- "$TMP/not-exec"
	[[ "$stderr" == *"unable to execute $TMP/not-exec: Permission denied" ]]
}

@test "exit statuses 0, 1 and 42 pass through" {
	run -0 "$LIMITS" -m 64 -p 50 -- sh -c 'exit 0'
	run -1 "$LIMITS" -m 64 -p 50 -- sh -c 'exit 1'
	run -42 "$LIMITS" -m 64 -p 50 -- sh -c 'exit 42'
	run -42 "$LIMITS" -r -m 64 -p 50 -- sh -c 'exit 42'
}

@test "stdin and stdout pass through" {
	run -0 --separate-stderr bash -c "printf 'one\ntwo\n' | \"\$0\" -p 50 -m 64 -- cat" "$LIMITS"
	[ "$output" = "$(printf 'one\ntwo')" ]
	run -0 --separate-stderr bash -c "\"\$0\" -p 50 -- sh -c 'echo out; echo err >&2'" "$LIMITS"
	[ "$output" = out ]
	[ "$stderr" = err ]
}

@test "a target killed by SIGKILL or SIGSEGV makes the wrapper die of the same signal" {
	run -137 "$LIMITS" -m 64 -- sh -c 'kill -KILL $$'
	run -139 "$LIMITS" -m 64 -- sh -c 'kill -SEGV $$'
	run -143 "$LIMITS" -r -p 50 -- sh -c 'kill -TERM $$'
	# what bash itself sees, not only bats
	run -0 bash -c '"$0" -p 50 -- sh -c "kill -SEGV \$\$"; echo "status $?"' "$LIMITS"
	[ "${lines[-1]}" = "status 139" ]
}

@test "root, cgroup v1: the target runs in sharness-exec.<pid> beneath the caller's cgroup, the supervisor outside" {
	require_feature root
	require_feature cgroup1
	local mem pids sup
	mem=$(own_path memory)
	pids=$(own_path pids)
	run -0 --separate-stderr "$LIMITS" -m 64 -p 50 -- sh -c '
		echo "$PPID"
		grep -E "^[0-9]+:(memory|pids):" /proc/self/cgroup | sort -t: -k2
		grep -E "^[0-9]+:(memory|pids):" /proc/$PPID/cgroup | sort -t: -k2
		m=$(sed -n "s/^[0-9]*:memory://p" /proc/self/cgroup)
		p=$(sed -n "s/^[0-9]*:pids://p" /proc/self/cgroup)
		cat "/sys/fs/cgroup/memory$m/memory.limit_in_bytes" "/sys/fs/cgroup/pids$p/pids.max"
		cat "/sys/fs/cgroup/memory$m/memory.memsw.limit_in_bytes" 2>/dev/null || echo 67108864
		grep -qx "$PPID" "/sys/fs/cgroup/memory$m/cgroup.procs" && echo "supervisor inside"
		true'
	[ -z "$stderr" ]
	sup=${lines[0]}
	[[ "${lines[1]}" =~ ^[0-9]+:memory:$mem/sharness-exec\.$sup$ ]]
	[[ "${lines[2]}" =~ ^[0-9]+:pids:$pids/sharness-exec\.$sup$ ]]
	[[ "${lines[3]}" =~ ^[0-9]+:memory:${mem:-/}$ ]]
	[[ "${lines[4]}" =~ ^[0-9]+:pids:${pids:-/}$ ]]
	[ "${lines[5]}" = 67108864 ]
	[ "${lines[6]}" = 50 ]
	[ "${lines[7]}" = 67108864 ]
	[ "${#lines[@]}" = 8 ]
	# and gone after the run
	[ ! -e "/sys/fs/cgroup/memory$mem/sharness-exec.$sup" ]
	[ ! -e "/sys/fs/cgroup/pids$pids/sharness-exec.$sup" ]
}

@test "root, cgroup v1: allocating twice the memory cap fails, the caller is unharmed" {
	require_feature root
	require_feature cgroup1
	run -0 "$LIMITS" -m 64 -- "$TRY" alloc 16
	[ "$output" = ok ]
	run "$LIMITS" -m 64 -- "$TRY" alloc 128
	# killed by the OOM killer (137), or refused if the kernel said no first
	[ "$status" = 137 ] || { [ "$status" = 1 ] && [[ "$output" == refused:* ]]; }
	[ "$output" != ok ]
	run -0 "$TRY" alloc 128
	[ "$output" = ok ]
}

@test "root, cgroup v1: -p 20 lets fewer than 20 processes exist" {
	require_feature root
	require_feature cgroup1
	run -0 "$LIMITS" -p 20 -- "$TRY" fork 100
	[[ "$output" =~ ^forked\ ([0-9]+)\ of\ 100$ ]]
	[ "${BASH_REMATCH[1]}" -lt 20 ]
	[ "${BASH_REMATCH[1]}" -gt 0 ]
	run -0 "$TRY" fork 100
	[ "$output" = "forked 100 of 100" ]
}

@test "SIGTERM to the supervisor reaches the target, whose status is reported" {
	"$LIMITS" -m 64 -p 50 -- bash -c "trap 'echo TERM >\"$TMP/marker\"; exit 3' TERM
		touch \"$TMP/ready\"; while :; do sleep 0.05; done" &
	local pid=$! status=0
	eventually test -e "$TMP/ready"
	kill -TERM "$pid"
	wait "$pid" || status=$?
	[ "$status" = 3 ]
	[ "$(cat "$TMP/marker")" = TERM ]
}

@test "an untrapped SIGTERM kills the target and the supervisor dies of it too" {
	"$LIMITS" -p 50 -- bash -c "touch \"$TMP/ready\"; exec sleep 1000" &
	local pid=$! status=0
	eventually test -e "$TMP/ready"
	kill -TERM "$pid"
	wait "$pid" || status=$?
	[ "$status" = 143 ]
}

@test "HUP INT QUIT USR1 USR2 are forwarded, each once" {
	# a background job of a shell without job control starts with INT and
	# QUIT ignored: give them back their default
	env --default-signal=INT,QUIT "$LIMITS" -p 50 -- bash -c "
		for s in HUP INT QUIT USR1 USR2; do trap \"echo \$s >>'$TMP/got'\" \$s; done
		trap 'exit 7' TERM
		touch '$TMP/ready'; while :; do sleep 0.05; done" &
	local pid=$! status=0 sig
	eventually test -e "$TMP/ready"
	for sig in HUP INT QUIT USR1 USR2; do
		kill -"$sig" "$pid"
		eventually grep -qx "$sig" "$TMP/got"
	done
	kill -TERM "$pid"
	wait "$pid" || status=$?
	[ "$status" = 7 ]
	[ "$(cat "$TMP/got")" = "$(printf 'HUP\nINT\nQUIT\nUSR1\nUSR2')" ]
}

@test "Ctrl-C on a terminal reaches the target once, not twice" {
	require_feature pty
	{
		eventually test -e "$TMP/ready"
		printf '\003'
		eventually test -e "$TMP/done"
	} | script -qec "exec '$LIMITS' -p 50 -- bash -c \"trap 'echo INT >>$TMP/int' INT
		touch $TMP/ready; for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0.1; done
		touch $TMP/done; exit 5\"" /dev/null >/dev/null || true
	[ "$(cat "$TMP/int")" = INT ]
}

@test "the target dies when the supervisor is SIGKILLed; a later run removes the stale cgroup" {
	require_feature root
	require_feature cgroup1
	local marker="sharness-limits-orphan-$$-$BATS_TEST_NUMBER" pids status=0
	pids=$(own_path pids)
	"$LIMITS" -p 50 -- bash -c "exec -a $marker sleep 1000" &
	local pid=$!
	eventually a_process "$marker"
	[ -d "/sys/fs/cgroup/pids$pids/sharness-exec.$pid" ]
	kill -KILL "$pid"
	wait "$pid" || status=$?
	[ "$status" = 137 ]
	eventually no_process "$marker"
	# its cgroup is left behind, empty
	[ -d "/sys/fs/cgroup/pids$pids/sharness-exec.$pid" ]
	[ -z "$(cat "/sys/fs/cgroup/pids$pids/sharness-exec.$pid/cgroup.procs")" ]
	run -0 "$LIMITS" -p 50 -- true
	[ ! -e "/sys/fs/cgroup/pids$pids/sharness-exec.$pid" ]
}

@test "a grandchild left by a SIGKILLed supervisor is killed by the next run, with its cgroup" {
	require_feature root
	require_feature cgroup1
	local marker="sharness-limits-stale-$$-$BATS_TEST_NUMBER" pids status=0
	pids=$(own_path pids)
	"$LIMITS" -p 50 -- bash -c "(exec -a $marker sleep 1000) & sleep 1000" &
	local pid=$!
	eventually a_process "$marker"
	kill -KILL "$pid"
	wait "$pid" || status=$?
	[ "$status" = 137 ]
	# PR_SET_PDEATHSIG reached the target only: the grandchild lives on,
	# in the cgroup the supervisor could not remove, until a run beneath
	# the same cgroup sweeps it (under make -j that may be another test's).
	sleep 0.2
	if a_process "$marker"; then
		[ -n "$(cat "/sys/fs/cgroup/pids$pids/sharness-exec.$pid/cgroup.procs")" ]
	else
		[ ! -e "/sys/fs/cgroup/pids$pids/sharness-exec.$pid" ]
	fi
	run -0 "$LIMITS" -p 50 -- true
	eventually no_process "$marker"
	[ ! -e "/sys/fs/cgroup/pids$pids/sharness-exec.$pid" ]
}

@test "a grandchild that daemonizes is killed when the target ends (cgroup)" {
	require_feature root
	require_feature cgroup1
	local marker="sharness-limits-daemon-$$-$BATS_TEST_NUMBER"
	run -0 --separate-stderr "$LIMITS" -m 64 -p 50 -- bash -c \
		"setsid bash -c 'exec -a $marker sleep 1000' </dev/null >/dev/null 2>&1 &
		 while ! pgrep -f ^$marker >/dev/null; do sleep 0.05; done; echo started"
	[ "$output" = started ]
	[ -z "$stderr" ]
	no_process "$marker"
}

@test "a grandchild that daemonizes is killed when the target ends (-r, rlimits)" {
	local marker="sharness-limits-daemon-$$-$BATS_TEST_NUMBER"
	run -0 --separate-stderr "$LIMITS" -r -p 50 -- bash -c \
		"setsid bash -c 'exec -a $marker sleep 1000' </dev/null >/dev/null 2>&1 &
		 while ! pgrep -f ^$marker >/dev/null; do sleep 0.05; done; echo started"
	[ "$output" = started ]
	no_process "$marker"
}

@test "-r as root: rlimits only, with one warning line, and RLIMIT_AS holds" {
	require_feature root
	run -0 --separate-stderr "$LIMITS" -r -m 64 -p 50 -- sh -c 'cat /proc/self/limits /proc/self/cgroup'
	[ "${#stderr_lines[@]}" = 1 ]
	[ "$stderr" = "sharness-exec-limits: warning: no cgroup (-r given); rlimits cover less: RLIMIT_AS caps each process's address space, not the memory all of them use; RLIMIT_NPROC counts every process of the user, not only this command's, and does not apply to root" ]
	[[ "$output" =~ Max\ address\ space\ +67108864\ +67108864\ +bytes ]]
	[[ "$output" =~ Max\ processes\ +50\ +50\ +processes ]]
	[[ "$output" != *sharness-exec.* ]]
	run -1 --separate-stderr "$LIMITS" -r -m 64 -- "$TRY" alloc 128
	[[ "$output" == refused:* ]]
	[ "$stderr" = "sharness-exec-limits: warning: no cgroup (-r given); rlimits cover less: RLIMIT_AS caps each process's address space, not the memory all of them use" ]
}

@test "nobody: the v1 hierarchies are not writable, rlimits hold the allocation" {
	require_feature nobody
	cd /
	run -1 --separate-stderr as_nobody "$LIMITS" -m 64 -- "$TRY" alloc 128
	[ "$output" = "refused: Cannot allocate memory" ]
	[ "${#stderr_lines[@]}" = 1 ]
	[[ "$stderr" == "sharness-exec-limits: warning: no cgroup ("*"); rlimits cover less: RLIMIT_AS caps each process's address space, not the memory all of them use" ]]
	run -0 --separate-stderr as_nobody "$LIMITS" -m 64 -- "$TRY" alloc 16
	[ "$output" = ok ]
}

@test "nobody: RLIMIT_NPROC bounds forks" {
	require_feature nobody
	cd /
	# nobody may run other processes already: they count against the cap
	local running cap
	running=$(ps -L -U "$NOBODY_UID" -o lwp= | wc -l)
	cap=$((running + 10))
	run -0 --separate-stderr as_nobody "$LIMITS" -p "$cap" -- "$TRY" fork 100
	[[ "$output" =~ ^forked\ ([0-9]+)\ of\ 100$ ]]
	# the supervisor and try-syscall itself count too
	[ "${BASH_REMATCH[1]}" -le $((cap - 2)) ]
	[ "${BASH_REMATCH[1]}" -gt 0 ]
	[[ "$stderr" == *"RLIMIT_NPROC counts every process of the user, not only this command's, and does not apply to root" ]]
}
