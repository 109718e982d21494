#!/usr/bin/env bats
# sharness-exec-limits: caps enforced from inside, in the cgroup that
# sharness-exec-supervise made (-g) or on rlimits, and no fork of its own.
# Signals, statuses through the supervisor and cleanup: tests/supervise.bats.
#
# not tested: the cgroup v2 path for real (this machine's cgroup2 hierarchy
# has no controllers: memory and pids are bound to v1), so it is covered by
# tests/unit/test-cgroup against a directory laid out like a delegated tree
# (and by the kernels engineer's VMs); memory.swap.max and memory.memsw with
# real swap (no swap here).
load ../helpers/load

USAGE="usage: sharness-exec-limits [-bqUt] [-E FD] [-W FD] [-g DIR:JOIN]... [-m MIB] [-p N] [-u PERCENT] [--rlimits WHY] [--] PROGRAM [ARG...]"
# the one short line where the caps are rlimits: what is on them
rl_warn() {
	echo "sharness-exec-limits: warning: no cgroup, so $1 per-process rlimits, which cover less (see sharness-exec(1) CAVEATS; SHARNESS_EXEC_QUIET_RLIMITS=1 silences this)"
}
AS_WARN=$(rl_warn "max_memory_mb is")
NPROC_WARN=$(rl_warn "max_pids is")
BOTH_WARN=$(rl_warn "max_memory_mb and max_pids are")
TRY_SUPER="$TRYDIR/try-super"

# The caller's own cgroup path in a v1 hierarchy, "" for its root.
own_path() {
	local p
	p=$(sed -n "s/^[0-9]*:$1:\\(.*\\)\$/\\1/p" /proc/self/cgroup)
	[ "$p" = / ] || printf '%s' "$p"
}

# The supervisor making the cgroup, then limits: the chain's two steps.
SL() { "$SUPERVISE" -- "$LIMITS" -g 5:6 -g 7:8 "$@"; }

@test "usage: -h and --help on stdout, status 0" {
	run -0 --separate-stderr "$LIMITS" -h
	[ "${lines[0]}" = "$USAGE" ]
	[ -z "$stderr" ]
	run -0 --separate-stderr "$LIMITS" --help
	[ "${lines[0]}" = "$USAGE" ]
}

@test "usage errors: one line and the usage on stderr, 125, nothing run" {
	for args in "" "-m 64" "-Z -- true" "--nope true" "-m" "-m 0 true" "-m 1048577 true" \
	    "-m 64k true" "-m -1 true" "-p 0 true" "-p 4194305 true" "-p 010 true" "-u 0 true" "-u 409601 true" "-u 2.5 true" "true" "-r true" \
	    "-g rel -m 1 true" "-g /a -r why -m 1 true" "-g /a -g /b -g /c -g /d -m 1 true" "-m 1 -g"; do
		# shellcheck disable=SC2086
		run -125 --separate-stderr "$LIMITS" $args
		[ -z "$output" ]
		[ "${#stderr_lines[@]}" = 2 ]
		[[ "${stderr_lines[0]}" == "sharness-exec-limits: fatal: "* ]]
		[ "${stderr_lines[1]}" = "$USAGE" ]
	done
	run -125 --separate-stderr "$LIMITS" -- touch "$TMP/ran"
	[ ! -e "$TMP/ran" ]
}

@test "options stop at the program: its own arguments are not parsed" {
	run -0 --separate-stderr "$LIMITS" -p 50 echo -m -p -r -g --
	[ "$output" = "-m -p -r -g --" ]
}

@test "a missing program is 127, one that cannot be executed 126" {
	run -127 --separate-stderr "$LIMITS" -p 50 -- no-such-command-$$
	[ "${stderr_lines[-1]}" = "sharness-exec-limits: fatal: unable to execute no-such-command-$$: No such file or directory" ]
	printf 'data\n' >"$TMP/not-exec"
	run -126 --separate-stderr "$LIMITS" -m 64 -- "$TMP/not-exec"
	[[ "$stderr" == *"unable to execute $TMP/not-exec: Permission denied" ]]
}

@test "exit statuses 0, 1 and 42 pass through" {
	run -0 "$LIMITS" -m 64 -p 50 -- sh -c 'exit 0'
	run -1 "$LIMITS" -m 64 -p 50 -- sh -c 'exit 1'
	run -42 "$LIMITS" -m 64 -p 50 -- sh -c 'exit 42'
	run -42 "$LIMITS" --rlimits x -m 64 -p 50 -- sh -c 'exit 42'
}

@test "stdin and stdout pass through" {
	run -0 --separate-stderr bash -c "printf 'one\ntwo\n' | \"\$0\" -p 50 -m 64 -- cat" "$LIMITS"
	[ "$output" = "$(printf 'one\ntwo')" ]
	run -0 --separate-stderr bash -c "\"\$0\" --rlimits test -p 50 -- sh -c 'echo out; echo err >&2'" "$LIMITS"
	[ "$output" = out ]
	[ "$stderr" = "$NPROC_WARN"$'\n'err ]
}

@test "a target killed by SIGKILL or SIGSEGV: the caller sees that signal" {
	# no fork: the process that dies is the one the caller started
	run -137 "$LIMITS" -m 64 -- sh -c 'kill -KILL $$'
	run -139 "$LIMITS" -m 64 -- sh -c 'kill -SEGV $$'
	run -143 "$LIMITS" --rlimits x -p 50 -- sh -c 'kill -TERM $$'
	run -0 bash -c '"$0" -p 50 -- sh -c "kill -SEGV \$\$"; echo "status $?"' "$LIMITS"
	[ "${lines[-1]}" = "status 139" ]
}

@test "root, cgroup v1: the caps go into the cgroup that supervise made, which the target joins" {
	require_feature root
	require_feature cgroup1
	local mem pids
	mem=$(own_path memory)
	pids=$(own_path pids)
	run -0 --separate-stderr "$SUPERVISE" -- "$LIMITS" -g 5:6 -g 7:8 -m 64 -p 50 -- sh -c '
		grep -E "^[0-9]+:(memory|pids):" /proc/self/cgroup | sort -t: -k2
		m=$(sed -n "s/^[0-9]*:memory://p" /proc/self/cgroup)
		p=$(sed -n "s/^[0-9]*:pids://p" /proc/self/cgroup)
		cat "/sys/fs/cgroup/memory$m/memory.limit_in_bytes" "/sys/fs/cgroup/pids$p/pids.max"
		cat "/sys/fs/cgroup/memory$m/memory.memsw.limit_in_bytes" 2>/dev/null || echo 67108864
		# only the run is in it: neither the supervisor nor init
		wc -l <"/sys/fs/cgroup/memory$m/cgroup.procs"'
	[ -z "$stderr" ]
	[[ "${lines[0]}" =~ ^[0-9]+:memory:$mem/sharness-exec\.([0-9]+)$ ]]
	local sup=${BASH_REMATCH[1]}
	[[ "${lines[1]}" =~ ^[0-9]+:pids:$pids/sharness-exec\.$sup$ ]]
	[ "${lines[2]}" = 67108864 ]
	[ "${lines[3]}" = 50 ]
	[ "${lines[4]}" = 67108864 ]
	[ "${lines[5]}" = 2 ] # sh and wc
	[ "${#lines[@]}" = 6 ]
	# and gone after the run
	[ ! -e "/sys/fs/cgroup/memory$mem/sharness-exec.$sup" ]
	[ ! -e "/sys/fs/cgroup/pids$pids/sharness-exec.$sup" ]
}

# The watcher removes a cgroup of the run's once it has read its counters,
# and the rmdir proves it empty; one that holds a cgroup of the target's
# own is refused (EBUSY): then it is emptied, read again and removed, its
# children first.
@test "root, cgroup v1: a cgroup the target made in the run's, with a process in it, goes with the run; the cap's count stays right" {
	require_feature root
	require_feature cgroup1
	run --separate-stderr "$SUPERVISE" -- "$LIMITS" -g 5:6 -g 7:8 -m 64 -p 3 -- sh -c '
		m=/sys/fs/cgroup/memory$(sed -n "s/^[0-9]*:memory://p" /proc/self/cgroup)
		p=/sys/fs/cgroup/pids$(sed -n "s/^[0-9]*:pids://p" /proc/self/cgroup)
		echo "$m"; echo "$p"
		mkdir "$m/inner" "$p/inner" || exit 9
		sleep 1000 &
		echo $! >"$m/inner/cgroup.procs" && echo $! >"$p/inner/cgroup.procs" || exit 9
		cat "$p/inner/cgroup.procs"
		true & true & true &
		wait'
	[ "$status" != 9 ]
	[[ "${lines[0]}" == /sys/fs/cgroup/memory/*sharness-exec.* ]]
	[[ "${lines[1]}" == /sys/fs/cgroup/pids/*sharness-exec.* ]]
	[ -n "${lines[2]}" ] # the sleep, in the inner cgroup
	[[ "$stderr" == *"the process cap (max_pids 3) refused "*" fork"* ]]
	# gone at once, inner cgroups included
	[ ! -e "${lines[0]}" ] && [ ! -e "${lines[1]}" ]
}

@test "root, cgroup v1: -g alone writes the caps into a cgroup and joins it, without forking" {
	require_feature root
	require_feature cgroup1
	local mem dir
	mem=$(own_path memory)
	dir=/sys/fs/cgroup/memory$mem/limits-test-$$-$BATS_TEST_NUMBER
	mkdir "$dir"
	"$LIMITS" -g "$dir" -m 32 -- sh -c 'echo $$; cat /proc/self/cgroup' >"$TMP/out" 2>"$TMP/err" &
	local pid=$! status=0
	wait "$pid" || status=$?
	cat "$dir/memory.limit_in_bytes" >"$TMP/limit"
	rmdir "$dir"
	[ "$status" = 0 ]
	[ ! -s "$TMP/err" ]
	# the shell is the process started: limits exec'd it in place, no fork
	[ "$(head -n 1 "$TMP/out")" = "$pid" ]
	grep -q ":memory:$mem/limits-test-$$-$BATS_TEST_NUMBER\$" "$TMP/out"
	[ "$(cat "$TMP/limit")" = 33554432 ]
}

@test "-g: a cap the cgroup has no file for is refused, nothing runs" {
	mkdir "$TMP/cg"
	: >"$TMP/cg/cgroup.procs"
	run -126 --separate-stderr "$LIMITS" -g "$TMP/cg" -m 32 -- touch "$TMP/ran"
	[ "$stderr" = "sharness-exec-limits: fatal: unable to cap memory: no memory controller in $TMP/cg" ]
	run -126 --separate-stderr "$LIMITS" -g "$TMP/cg" -p 8 -- touch "$TMP/ran"
	[ "$stderr" = "sharness-exec-limits: fatal: unable to cap processes: no pids controller in $TMP/cg" ]
	[ ! -e "$TMP/ran" ]
	[ -z "$(cat "$TMP/cg/cgroup.procs")" ]
}

@test "root, cgroup v1: allocating twice the memory cap fails, the caller is unharmed" {
	require_feature root
	require_feature cgroup1
	run -0 SL -m 64 -- "$TRY" alloc 16
	[ "$output" = ok ]
	run SL -m 64 -- "$TRY" alloc 128
	# killed by the OOM killer (137), or refused if the kernel said no first
	[ "$status" = 137 ] || { [ "$status" = 1 ] && [[ "$output" == refused:* ]]; }
	[ "$output" != ok ]
	run -0 "$TRY" alloc 128
	[ "$output" = ok ]
}

@test "root, cgroup v1: -p 20 lets fewer than 20 processes exist" {
	require_feature root
	require_feature cgroup1
	# (supervise names the cap from limits' -p on stderr)
	run -0 --separate-stderr SL -p 20 -- "$TRY" fork 100
	[[ "$output" =~ ^forked\ ([0-9]+)\ of\ 100$ ]]
	[ "${BASH_REMATCH[1]}" -lt 20 ]
	[ "${BASH_REMATCH[1]}" -gt 0 ]
	run -0 "$TRY" fork 100
	[ "$output" = "forked 100 of 100" ]
}

@test "-r as root: rlimits only, with one warning line, and RLIMIT_AS holds" {
	require_feature root
	run -0 --separate-stderr "$LIMITS" --rlimits "a test" -m 64 -p 50 -- sh -c 'cat /proc/self/limits /proc/self/cgroup'
	[ "${#stderr_lines[@]}" = 1 ]
	[ "$stderr" = "$BOTH_WARN" ]
	[[ "$output" =~ Max\ address\ space\ +67108864\ +67108864\ +bytes ]]
	[[ "$output" =~ Max\ processes\ +50\ +50\ +processes ]]
	[[ "$output" != *sharness-exec.* ]]
	run -1 --separate-stderr "$LIMITS" -m 64 -- "$TRY" alloc 128
	[[ "$output" == refused:* ]]
	[ "$stderr" = "$AS_WARN" ]
	# -q: no line, the caps all the same
	run -1 --separate-stderr "$LIMITS" -q -m 64 -- "$TRY" alloc 128
	[[ "$output" == refused:* ]]
	[ -z "$stderr" ]
}

@test "nobody: the v1 hierarchies are not writable, rlimits hold the allocation" {
	require_feature nobody
	cd /
	run -1 --separate-stderr as_nobody "$SUPERVISE" -- "$LIMITS" -g 5:6 -m 64 -- "$TRY" alloc 128
	[ "$output" = "refused: Cannot allocate memory" ]
	[ "${#stderr_lines[@]}" = 1 ]
	[ "$stderr" = "$AS_WARN" ]
	run -0 --separate-stderr as_nobody "$LIMITS" -m 64 -- "$TRY" alloc 16
	[ "$output" = ok ]
}

@test "nobody: RLIMIT_NPROC bounds forks, counted for a uid of the test's own" {
	require_feature nobody
	cd /
	# RLIMIT_NPROC counts every process of the user, and nobody's are
	# shared (a second suite running at once has some): a uid of this
	# test's own, which no other process has, so the count is exact.
	local uid=$((2000000000 + $$ % 1000000)) cap=10
	[ -z "$(ps -L -U "$uid" -o lwp= || true)" ]
	run -0 --separate-stderr setpriv --reuid="$uid" --regid="$uid" --clear-groups -- \
		"$SUPERVISE" -- "$LIMITS" -g 5:6 -p "$cap" -- "$TRY" fork 100
	# the supervisor, init and try-syscall itself count too (the watcher,
	# with no cgroup to watch, is gone before init starts)
	[ "$output" = "forked $((cap - 3)) of 100" ]
	[ "$stderr" = "$NPROC_WARN" ]
}

@test "the rlimit gap sharness-exec(1) names: a memfd holds more than -m, a cgroup does not let it" {
	# RLIMIT_AS counts mappings, not the pages of a memfd written with
	# write(2): the man page says so (the warning points there), and here
	# is why.
	grep -q 'does not count shared memory (memfd, tmpfs,' "$top_srcdir/man/sharness-exec.1"
	run -0 --separate-stderr "$LIMITS" --rlimits "a test" -m 64 -- "$TRY_SUPER" memfd 128
	[ "$output" = ok ]
	[ "$stderr" = "$AS_WARN" ]
	require_feature root
	require_feature cgroup1
	run --separate-stderr SL -m 64 -- "$TRY_SUPER" memfd 128
	# killed by the OOM killer (137), or the write refused
	[ "$status" = 137 ] || { [ "$status" = 1 ] && [[ "$output" == refused:* ]]; }
	[ "$output" != ok ]
}

@test "the rlimit gap sharness-exec(1) names: an AddressSanitizer build fails under RLIMIT_AS, runs in a cgroup" {
	require_feature tool:cc
	printf 'int main(void) { return 0; }\n' >"$TMP/asan.c"
	cc -fsanitize=address -o "$TMP/asan" "$TMP/asan.c" 2>/dev/null ||
		feature_missing asan "cc cannot build with -fsanitize=address (no libasan)" ||
		return
	run -0 "$TMP/asan"
	# ASan aborts (SIGABRT) when it cannot map its shadow memory.
	run -134 --separate-stderr "$LIMITS" --rlimits "a test" -m 2048 -- "$TMP/asan"
	[[ "$stderr" == *"Perhaps you're using ulimit -v"* ]]
	[[ "$stderr" == *"$AS_WARN"* ]]
	grep -q 'and AddressSanitizer, which reserves terabytes of it, fails under it' "$top_srcdir/man/sharness-exec.1"
	require_feature nobody
	run -0 as_nobody "$TMP/asan"
	run -134 --separate-stderr as_nobody "$LIMITS" --rlimits "a test" -m 2048 -- "$TMP/asan"
	[[ "$stderr" == *"Perhaps you're using ulimit -v"* ]]
	require_feature cgroup1
	run -0 --separate-stderr SL -m 2048 -- "$TMP/asan"
}
