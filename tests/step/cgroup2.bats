#!/usr/bin/env bats
# Memory and process caps through a real cgroup v2 hierarchy, through the
# whole chain (`sharness-exec run`), as root and as nobody with a subtree
# delegated to it the way systemd delegates one (Delegate=yes: the
# directory, cgroup.procs, cgroup.subtree_control and cgroup.threads chowned
# to the user). The kernel matrix's guests (tests/kernels) mount a pure
# cgroup2 hierarchy with the memory and pids controllers and run this file
# there as root, from the hierarchy's root; elsewhere it skips with the
# reason, unless SHARNESS_EXEC_NEED_CGROUP2=1 (the guests set it).
#
# Each test works in a cgroup of its own beneath the root (sx-test.*) and
# checks from outside that the caps sit on a cgroup beneath the caller's,
# that they hold against what rlimits would let through (tmpfs pages, root's
# forks), and that nothing of the run is left: no process, no cgroup, no
# controller left enabled in the caller's cgroup.
#
# A SIGKILLed wrapper (and init with it) leaves nothing either: the
# supervisor's watcher cleans up (t_killed).
#
# The CPU cap (max_cpu_percent) is measured as a ratio of the run itself,
# user and system CPU seconds from rusage over its wall seconds; where cpu
# is not delegated (cgroup.controllers does not list it) the run is refused,
# or runs uncapped under --best-effort.
#
# not tested: memory.swap.max with real swap (no swap in the guests).
load ../helpers/load

CG=/sys/fs/cgroup

need_cgroup2() {
	local why=
	if [ "$(stat -f -c %T "$CG" 2>/dev/null)" != cgroup2fs ]; then
		why="$CG is not a cgroup v2 hierarchy"
	elif [ "$(sed -n 's/^0:://p' /proc/self/cgroup)" != / ]; then
		why="this test must run in the root of the cgroup v2 hierarchy (the kernel matrix's guests)"
	elif ! grep -qw memory "$CG/cgroup.controllers" || ! grep -qw pids "$CG/cgroup.controllers"; then
		why="the cgroup v2 hierarchy has no memory and pids controllers"
	fi
	if [ -n "$why" ]; then
		[ "${SHARNESS_EXEC_NEED_CGROUP2:-0}" = 1 ] && { echo "cgroup v2 needed: $why" >&2; return 1; }
		not_here cgroup2-guest "$why"
	fi
	echo "+memory +pids" >"$CG/cgroup.subtree_control"
}

setup() {
	setup_tmp
	mkdir -p "$TMP/rw" "$TMP/x"
	chmod 777 "$TMP/rw"
	base=
	pids=()
	markers=()
	# Strict at every Landlock ABI: below 6 the namespaces hold what the
	# scopes would (rights.c, tests/confine.bats).
	be=()
}

# quiet TEXT: TEXT holds nothing but, under --best-effort, the one line
# saying what it dropped.
quiet() {
	local rest
	rest=$(printf '%s\n' "$1" | grep -v -e '^$' -e '^sharness-exec-landlock: warning: Landlock ABI [0-9]*: best effort: dropped ' || true)
	[ -z "$rest" ] || { echo "unexpected on stderr: $rest"; return 1; }
}

teardown() {
	for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
	for p in "${markers[@]}"; do pkill -KILL -f "^$p" 2>/dev/null || true; done
	# Only what this test made: its own cgroup and whatever is beneath.
	if [ -n "$base" ] && [ -d "$base" ]; then
		echo 1 >"$base/cgroup.kill" 2>/dev/null || true
		find "$base" -depth -mindepth 1 -type d -exec rmdir {} + 2>/dev/null || true
		rmdir "$base" 2>/dev/null || true
	fi
	teardown_tmp
}

# policy PROCESS-EXTRA
policy() {
	write_policy "$TMP/p.json" '{"pbp":1,"id":"cgroup2",
	  "files":{"read":["/etc","/proc","/dev/zero"],"write":["'"$TMP"'/rw","/dev/null"],
	           "exec":["/usr","/bin","/lib","/lib64","'"$TRYDIR"'"]},
	  "network":"none",
	  "process":{"no_new_privs":true'"$1"'}}'
}

# make_base MODE: a cgroup of the test's own beneath the root, delegated to
# nobody as systemd would when MODE is nobody. Sets $base.
make_base() {
	base=$CG/sx-test.$$.$BATS_TEST_NUMBER
	mkdir "$base"
	if [ "$1" = nobody ]; then
		chown "$NOBODY_UID:$NOBODY_GID" "$base" "$base/cgroup.procs" \
			"$base/cgroup.subtree_control" "$base/cgroup.threads"
	fi
}

# launcher MODE [DIR]: sets L to the words that run a command as MODE, from
# a process alone in DIR if given (root moves it there, as a service
# manager would). Words, not a function, so that a background job's $! is
# the command's own pid (each step execs in place).
launcher() {
	L=()
	[ -n "${2:-}" ] && L=(sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$2")
	[ "$1" = nobody ] && L+=(setpriv --reuid="$NOBODY_UID" --regid="$NOBODY_GID" --clear-groups --)
	return 0
}

in_cgroup() { # DIR MODE CMD...
	local L
	launcher "$2" "$1"
	shift 2
	"${L[@]}" "$@"
}

# cap_of PATH FILE: the tightest value of FILE on PATH (relative to $CG)
# and its ancestors up to, not including, the cgroup UPTO (relative too).
cap_of() {
	local path=$1 file=$2 upto=$3 best=max v
	while [ "$path" != "$upto" ] && [ "$path" != / ] && [ -n "$path" ]; do
		v=$(cat "$CG$path/$file")
		if [ "$v" != max ] && { [ "$best" = max ] || [ "$v" -lt "$best" ]; }; then best=$v; fi
		path=$(dirname "$path")
	done
	echo "$best"
}

# nothing_left DIR: no cgroup beneath DIR, no controller enabled in it.
nothing_left() {
	[ -z "$(find "$1" -mindepth 1 -type d)" ]
	[ -z "$(cat "$1/cgroup.subtree_control")" ]
}

eventually() {
	for _ in $(seq 600); do "$@" && return 0; sleep 0.1; done
	return 1
}

# t_caps_placed MODE WHERE: the run's caps sit on a cgroup beneath the
# caller's, the caller's own cgroup is untouched afterwards. WHERE is root
# (the caller is in the hierarchy's root) or alone (in a cgroup of its own,
# so the supervisor must move into a leaf to enable controllers: the "no
# internal processes" rule).
t_caps_placed() {
	local m=$1 where=$2 home
	need "$m"
	need_cgroup2
	policy ',"max_memory_mb":64,"max_pids":50'
	mkfifo -m 666 "$TMP/rw/go"
	local target="cat /proc/self/cgroup >$TMP/rw/cg; read x <$TMP/rw/go; echo done"
	if [ "$where" = root ]; then
		home=
		launcher "$m"
	else
		make_base "$m"
		home=${base#"$CG"}
		launcher "$m" "$base"
	fi
	# fd 3 closed: bats waits for whatever holds it
	"${L[@]}" "$SHARNESS_EXEC" run "${be[@]}" -p "$TMP/p.json" -- sh -c "$target" >"$TMP/out" 2>"$TMP/err" 3>&- &
	local wrapper=$! st=0
	pids+=("$wrapper")
	eventually test -s "$TMP/rw/cg"
	local path
	path=$(sed -n 's/^0:://p' "$TMP/rw/cg")
	# beneath the caller's cgroup, never the caller's own
	[[ "$path" == "$home"/?* ]]
	[ "$(cap_of "$path" memory.max "${home:-/}")" = 67108864 ]
	[ "$(cap_of "$path" pids.max "${home:-/}")" = 50 ]
	echo go >"$TMP/rw/go"
	wait "$wrapper" || st=$?
	[ "$st" = 0 ]
	[ "$(cat "$TMP/out")" = done ]
	# no warning: the cgroup held the caps, not rlimits
	quiet "$(cat "$TMP/err")"
	[ ! -e "$CG$path" ]
	if [ -n "$home" ]; then
		nothing_left "$base"
		[ -z "$(cat "$base/cgroup.procs")" ]
	fi
}

@test "root, from the hierarchy's root: the caps sit on a cgroup beneath it, removed afterwards" { t_caps_placed root root; }
@test "root, alone in its cgroup: a leaf for the supervisor, a cgroup for the run, both gone afterwards" { t_caps_placed root alone; }
@test "nobody, alone in a delegated cgroup: the caps sit beneath it, nothing left afterwards" { t_caps_placed nobody alone; }

t_others() {
	local m=$1
	need "$m"
	need_cgroup2
	policy "$2"
	make_base "$m"
	# Another process of the caller's in the same cgroup: the rule forbids
	# enabling controllers there, and a run never moves what it did not start.
	launcher "$m" "$base"
	"${L[@]}" sleep 1000 3>&- &
	pids+=($!)
	eventually grep -q . "$base/cgroup.procs"
	local other
	other=$(cat "$base/cgroup.procs")
	run --separate-stderr in_cgroup "$base" "$m" "$SHARNESS_EXEC" run "${be[@]}" -p "$TMP/p.json" -- cat /proc/self/cgroup
	echo "status $status, stdout: $output, stderr: $stderr"
	[ "$status" = 0 ]
	[ "$output" = "0::${base#"$CG"}" ]
	[[ "$stderr" == *"sharness-exec-limits: warning: no cgroup, so "*" per-process rlimits"* ]]
	[ "$(cat "$base/cgroup.procs")" = "$other" ]
	# the line is short: run --check says why
	run -0 --separate-stderr in_cgroup "$base" "$m" "$SHARNESS_EXEC" run --check "${be[@]}" -p "$TMP/p.json"
	[[ "$output" == *"cgroup=none why=cgroup v2 $base holds other processes, so it cannot enable controllers for a child"* ]]
	[ "$(cat "$base/cgroup.procs")" = "$other" ]
	# the caller's cgroup keeps its type: enabling pids beside the other
	# process would have made it a thread root ("domain threaded")
	[ "$(cat "$base/cgroup.type")" = domain ]
	nothing_left "$base"
}

@test "root, beside another process: no cgroup, the fallback says why, the other process stays" { t_others root ',"max_memory_mb":64,"max_pids":50'; }
@test "nobody, beside another process in its delegated cgroup: the fallback says why" { t_others nobody ',"max_memory_mb":64,"max_pids":50'; }
# pids alone: enabling a threaded controller beside a process succeeds and
# makes the cgroup a thread root, whose children refuse a process
# (EOPNOTSUPP); the run must still fall back rather than fail.
@test "root, pids cap only, beside another process: the fallback says why" { t_others root ',"max_pids":50'; }
@test "nobody, pids cap only, beside another process: the fallback says why" { t_others nobody ',"max_pids":50'; }
@test "root, memory cap only, beside another process: the fallback says why" { t_others root ',"max_memory_mb":64'; }
@test "nobody, memory cap only, beside another process: the fallback says why" { t_others nobody ',"max_memory_mb":64'; }

# The caller's cgroup is a thread root already (its manager enabled pids
# beside a process): the kernel makes every new child "domain invalid",
# which refuses a process (EOPNOTSUPP). The run falls back, and leaves the
# cgroup as it found it.
t_thread_root() {
	local m=$1
	need "$m"
	need_cgroup2
	policy ',"max_pids":50'
	make_base "$m"
	launcher "$m" "$base"
	"${L[@]}" sleep 1000 3>&- &
	pids+=($!)
	eventually grep -q . "$base/cgroup.procs"
	echo +pids >"$base/cgroup.subtree_control"
	[ "$(cat "$base/cgroup.type")" = "domain threaded" ]
	# bare, to show what the run must avoid: a new child refuses a process
	mkdir "$base/probe"
	[ "$(cat "$base/probe/cgroup.type")" = "domain invalid" ]
	run ! sh -c 'echo $$ >"$0/probe/cgroup.procs"' "$base"
	rmdir "$base/probe"
	run --separate-stderr in_cgroup "$base" "$m" "$SHARNESS_EXEC" run "${be[@]}" -p "$TMP/p.json" -- cat /proc/self/cgroup
	echo "status $status, stdout: $output, stderr: $stderr"
	[ "$status" = 0 ]
	[ "$output" = "0::${base#"$CG"}" ]
	[[ "$stderr" == *"sharness-exec-limits: warning: no cgroup, so "*" per-process rlimits"* ]]
	run -0 --separate-stderr in_cgroup "$base" "$m" "$SHARNESS_EXEC" run --check "${be[@]}" -p "$TMP/p.json"
	[[ "$output" == *"cgroup=none why=cgroup v2 $base/sharness-exec."*" is \"domain invalid\", not a domain a process can join (its parent is in threaded mode)"* ]]
	[ "$(cat "$base/cgroup.type")" = "domain threaded" ]
	[ "$(cat "$base/cgroup.subtree_control")" = pids ]
	[ -z "$(find "$base" -mindepth 1 -type d)" ]
}

@test "root, in a thread root: no cgroup, the fallback says why, the cgroup as it was" { t_thread_root root; }
@test "nobody, in a delegated thread root: the fallback says why" { t_thread_root nobody; }

t_memory() {
	local m=$1
	need "$m"
	need_cgroup2
	[ "$(stat -f -c %T "$TMP")" = tmpfs ] || not_here tmpfs-tmp "$TMP is not on a tmpfs"
	policy ',"max_memory_mb":64'
	make_base "$m"
	# Pages of a tmpfs file are charged to the writer's cgroup, and no
	# rlimit counts them: only the cgroup can stop this.
	run --separate-stderr in_cgroup "$base" "$m" "$SHARNESS_EXEC" run "${be[@]}" -p "$TMP/p.json" -- \
		dd if=/dev/zero of="$TMP/rw/fill" bs=1M count=128
	echo "status $status, stdout: $output, stderr: $stderr"
	# killed by the cgroup's OOM killer, or refused the page (ENOMEM)
	[ "$status" = 137 ] || [ "$status" = 1 ]
	[ "$(stat -c %s "$TMP/rw/fill")" -le $((64 << 20)) ]
	rm -f "$TMP/rw/fill"
	nothing_left "$base"
	# Under the cap it works, and the caller could write it all itself.
	run -0 --separate-stderr in_cgroup "$base" "$m" "$SHARNESS_EXEC" run "${be[@]}" -p "$TMP/p.json" -- \
		dd if=/dev/zero of="$TMP/rw/fill" bs=1M count=16
	[[ "$stderr" == *"16777216 bytes"* ]]
	rm -f "$TMP/rw/fill"
	run -0 as "$m" dd if=/dev/zero of="$TMP/rw/fill" bs=1M count=128
	[ "$(stat -c %s "$TMP/rw/fill")" = $((128 << 20)) ]
	rm -f "$TMP/rw/fill"
	nothing_left "$base"
}

@test "root: the memory cap holds tmpfs pages too (no rlimit could), nothing left" { t_memory root; }
@test "nobody, delegated: the memory cap holds tmpfs pages too, nothing left" { t_memory nobody; }

t_pids() {
	local m=$1 marker=sharness-exec-cg2-forks-$$-$RANDOM
	need "$m"
	need_cgroup2
	policy ',"max_pids":16'
	make_base "$m"
	run -0 --separate-stderr in_cgroup "$base" "$m" "$SHARNESS_EXEC" run "${be[@]}" -p "$TMP/p.json" -- \
		"$TRY" fork 100 "$marker"
	[[ "$output" =~ ^forked\ ([0-9]+)\ of\ 100$ ]]
	[ "${BASH_REMATCH[1]}" -lt 16 ]
	[ "${BASH_REMATCH[1]}" -gt 0 ]
	# The cap that was hit is named, with pids.events' count of refusals.
	grep -qE '^sharness-exec-supervise: the process cap \(max_pids 16\) refused [0-9]+ forks$' <<<"$stderr"
	quiet "$(grep -vE '^sharness-exec-supervise: the process cap \(max_pids 16\) refused [0-9]+ forks$' <<<"$stderr" || true)"
	[ -z "$(pgrep -f "$marker" || true)" ]
	nothing_left "$base"
	# The same loop outside the cap forks them all (root: RLIMIT_NPROC
	# would not have stopped it).
	run -0 as "$m" "$TRY" fork 100
	[ "$output" = "forked 100 of 100" ]
}

@test "root: the pids cap bounds a fork loop (RLIMIT_NPROC would not), nothing left" { t_pids root; }

# run --report on v2 (sharness-exec-report(5)): the counters come from
# the run's cgroup, memory.peak, memory.events, pids.events and cpu.stat,
# which this machine's v1 hierarchies do not have (tests/report.bats).
t_report_v2() {
	local m=$1 marker=sharness-exec-cg2-report-$$-$RANDOM
	need "$m"
	need_cgroup2
	policy ',"max_memory_mb":64,"max_pids":16'
	make_base "$m"
	run -0 --separate-stderr in_cgroup "$base" "$m" "$SHARNESS_EXEC" run "${be[@]}" \
		--report "$TMP/forks.json" -p "$TMP/p.json" -- "$TRY" fork 100 "$marker"
	run -0 python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["outcome"] == "exited", r
assert r["memory"]["source"] == "memory.peak" and r["memory"]["peak_bytes"] > 0, r["memory"]
assert r["memory"]["cap_bytes"] == 64 << 20, r["memory"]
assert r["pids"]["cap"] == 16 and r["pids"]["refused_forks"] > 0, r["pids"]
assert r["cpu"]["source"] == "cpu.stat", r["cpu"]
print("ok")' "$TMP/forks.json"
	[ "$output" = ok ]
	nothing_left "$base"
	run --separate-stderr in_cgroup "$base" "$m" "$SHARNESS_EXEC" run "${be[@]}" \
		--report "$TMP/oom.json" -p "$TMP/p.json" -- sh -c 'exec dd if=/dev/zero of="$1" bs=1M count=128' sh "$TMP/rw/fill"
	[ "$status" = 137 ] || [ "$status" = 1 ]
	run -0 python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
m = r["memory"]
assert m["source"] == "memory.peak" and m["peak_bytes"] <= (64 << 20) + (1 << 20), m
assert r["outcome"] != "signaled" or m["oom_kills"] >= 1, r
print("ok")' "$TMP/oom.json"
	[ "$output" = ok ]
	rm -f "$TMP/rw/fill"
	nothing_left "$base"
}

@test "root: the report's counters on v2, from memory.peak, memory.events, pids.events and cpu.stat" { t_report_v2 root; }
@test "nobody, delegated: the pids cap bounds a fork loop, nothing left" { t_pids nobody; }

t_daemon() {
	local m=$1 marker=sharness-exec-cg2-daemon-$$-$RANDOM
	markers+=("$marker")
	need "$m"
	need_cgroup2
	policy ',"max_pids":50'
	make_base "$m"
	# A grandchild that leaves the session and the process group; the
	# target exits without waiting for it.
	run -0 --separate-stderr in_cgroup "$base" "$m" "$SHARNESS_EXEC" run "${be[@]}" -p "$TMP/p.json" -- bash -c \
		"setsid bash -c 'exec -a $marker sleep 1000' </dev/null >/dev/null 2>&1 &
		 for i in \$(seq 300); do pgrep -f ^$marker >$TMP/rw/seen && break; sleep 0.1; done; echo started"
	echo "stdout: $output, stderr: $stderr"
	[ "$output" = started ]
	quiet "$stderr"
	[ -n "$(cat "$TMP/rw/seen")" ]
	[ -z "$(pgrep -f "^$marker" || true)" ]
	nothing_left "$base"
}

@test "root: a daemonized grandchild ends with the run, its cgroup too" { t_daemon root; }
@test "nobody, delegated: a daemonized grandchild ends with the run, its cgroup too" { t_daemon nobody; }

# t_killed MODE WHOM: the run, alone in a (delegated) cgroup, so that the
# supervisor moved into a leaf and enabled the controllers; then SIGKILL to
# the wrapper (WHOM wrapper), or to the wrapper and init at once (both).
# The watcher, outside the run, sees the supervisor die and removes the
# run's cgroup, gives back the controllers, and removes the leaf once init
# is gone: nothing of the run is left, without any later run's help.
t_killed() {
	local m=$1 whom=$2 marker=sharness-exec-cg2-killed-$$-$RANDOM st=0
	markers+=("$marker")
	need "$m"
	need_cgroup2
	policy ',"max_pids":50'
	make_base "$m"
	launcher "$m" "$base"
	mkfifo -m 666 "$TMP/rw/ready"
	"${L[@]}" "$SHARNESS_EXEC" run "${be[@]}" -p "$TMP/p.json" -- bash -c \
		"(exec -a $marker sleep 1000) & (exec -a $marker-2 sleep 1000) & echo up >$TMP/rw/ready; wait" 3>&- &
	local wrapper=$!
	pids+=("$wrapper")
	read -r _ <"$TMP/rw/ready"
	eventually pgrep -f "^$marker-2" >/dev/null
	local cg
	cg=$(sed -n 's/^0:://p' "/proc/$(pgrep -f "^$marker-2")/cgroup")
	[[ "$cg" == "${base#"$CG"}"/sharness-exec.* ]]
	[ -d "$base/${cg##*/}.sv" ]
	[ -n "$(cat "$base/cgroup.subtree_control")" ]
	if [ "$whom" = both ]; then
		kill -KILL "$wrapper" "$(pgrep -P "$wrapper" -g "$(ps -o pgid= -p "$wrapper" | tr -d ' ')")"
	else
		kill -KILL "$wrapper"
	fi
	wait "$wrapper" || st=$?
	[ "$st" = 137 ]
	eventually test -z "$(pgrep -f "^$marker" || true)"
	eventually nothing_left "$base"
	[ -z "$(cat "$base/cgroup.procs")" ]
	[ "$(cat "$base/cgroup.type")" = domain ]
}

@test "root: after the wrapper is SIGKILLed, nothing of the run is left, cgroups and controllers included" { t_killed root wrapper; }
@test "nobody, delegated: after the wrapper is SIGKILLed, nothing of the run is left" { t_killed nobody wrapper; }
@test "root: after SIGKILL to the wrapper and init at once, nothing of the run is left" { t_killed root both; }
@test "nobody, delegated: after SIGKILL to the wrapper and init at once, nothing of the run is left" { t_killed nobody both; }

# A busy loop that ends by itself after 2 s of wall time, eight of them at
# once; each is waited for, so all their CPU time reaches rusage.
SPIN8='spin() { local end=$(( ${EPOCHREALTIME/./} + 2000000 )); while (( ${EPOCHREALTIME/./} < end )); do :; done; }; for i in 1 2 3 4 5 6 7 8; do spin & done; wait'

# cpu_ratio CMD...: CMD's CPU use in percent of one CPU, 100 * (user + sys
# CPU seconds) / wall seconds, all of its own run's (rusage, through bash's
# `time`); its status in $TMP/rc.
cpu_ratio() {
	local TIMEFORMAT='%3R %3U %3S' t
	t=$({ time "$@" >"$TMP/out" 2>"$TMP/err"; echo $? >"$TMP/rc"; } 2>&1)
	echo "wall, user, sys: $t; status $(cat "$TMP/rc")" >&2
	echo "$t" | awk '{ printf "%d\n", ($2 + $3) * 100 / $1 }'
}

# t_cpu MODE: max_cpu_percent 50 holds eight busy loops of 2 s to at most
# 60 % of one CPU: cpu.max on the run's cgroup, beneath the caller's,
# which gets +cpu in its cgroup.subtree_control only for the run.
t_cpu() {
	local m=$1 ratio
	need "$m"
	need_cgroup2
	grep -qw cpu "$CG/cgroup.controllers" || not_here cgroup2-cpu "the cgroup v2 hierarchy has no cpu controller"
	echo +cpu >"$CG/cgroup.subtree_control"
	policy ',"max_cpu_percent":50'
	make_base "$m"
	grep -qw cpu "$base/cgroup.controllers"
	ratio=$(cpu_ratio in_cgroup "$base" "$m" "$SHARNESS_EXEC" run "${be[@]}" -p "$TMP/p.json" -- bash -c "$SPIN8")
	[ "$(cat "$TMP/rc")" = 0 ]
	quiet "$(cat "$TMP/err")"
	[ "$ratio" -le 60 ]
	nothing_left "$base"
	# bare, the same loops take more than the cap
	ratio=$(cpu_ratio as "$m" bash -c "$SPIN8")
	[ "$ratio" -gt 60 ]
}

@test "root: max_cpu_percent 50 holds busy loops to at most 60 % of one CPU, nothing left" { t_cpu root; }
@test "nobody, delegated: max_cpu_percent 50 holds busy loops to at most 60 % of one CPU" { t_cpu nobody; }

# t_cpu_undelegated MODE: a delegated cgroup whose parent gives it memory and
# pids but not cpu (its cgroup.controllers does not list it): strict, the
# run is refused (126) naming the key; under --best-effort memory still gets
# its cgroup and CPU is uncapped, with a line.
t_cpu_undelegated() {
	local m=$1 job
	need "$m"
	need_cgroup2
	base=$CG/sx-test.$$.$BATS_TEST_NUMBER
	mkdir "$base"
	echo "+memory +pids" >"$base/cgroup.subtree_control"
	job=$base/job
	mkdir "$job"
	if [ "$m" = nobody ]; then
		chown "$NOBODY_UID:$NOBODY_GID" "$job" "$job/cgroup.procs" \
			"$job/cgroup.subtree_control" "$job/cgroup.threads"
	fi
	if grep -qw cpu "$job/cgroup.controllers"; then return 1; fi
	policy ',"max_memory_mb":64,"max_cpu_percent":50'
	run --separate-stderr in_cgroup "$job" "$m" "$SHARNESS_EXEC" run "${be[@]}" -p "$TMP/p.json" -- touch "$TMP/rw/ran"
	echo "status $status, stdout: $output, stderr: $stderr"
	[ "$status" = 126 ]
	[[ "$stderr" == *"sharness-exec-limits: fatal: unable to cap CPU (process.max_cpu_percent 50): no cpu controller in $job/sharness-exec."* ]]
	[ ! -e "$TMP/rw/ran" ]
	nothing_left "$job"
	run -0 --separate-stderr in_cgroup "$job" "$m" "$SHARNESS_EXEC" run --best-effort -p "$TMP/p.json" -- cat /proc/self/cgroup
	echo "stdout: $output, stderr: $stderr"
	[[ "$output" == "0::${job#"$CG"}/sharness-exec."* ]]
	[[ "$stderr" == *"sharness-exec-limits: warning: best effort: no cpu controller in $job/sharness-exec."*": CPU is uncapped (process.max_cpu_percent 50)"* ]]
	[[ "$stderr" != *"per-process rlimits"* ]]
	nothing_left "$job"
}

@test "root, cpu not delegated: refused naming max_cpu_percent; --best-effort runs uncapped with a line" { t_cpu_undelegated root; }
@test "nobody, cpu not delegated: refused naming max_cpu_percent; --best-effort runs uncapped with a line" { t_cpu_undelegated nobody; }
