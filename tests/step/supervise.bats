#!/usr/bin/env bats
# sharness-exec-supervise: nothing of a run outlives it. Each case runs the
# whole chain (`sharness-exec run`) as root and as nobody, with and without
# caps, and checks, once the process the caller started has returned, that
# no process of the run is left (every process it starts carries a marker in
# its argv) and no cgroup (sharness-exec.<pid>* beneath our own cgroups),
# and the exit status the caller sees.
#
# As nobody the chain has a pid namespace only when the netns step hands
# CAP_SYS_ADMIN on in its user namespace; until then it runs without one
# (subreaper), and the non-root pid namespace path is tested on the helper
# alone under `unshare --user --map-current-user --keep-caps`. The
# no-namespace path is also tested for root under tests/try/deny-unshare.
#
# not tested: cgroup v2 with controllers for real (none here; the
# delegated-tree logic is in tests/unit/test-cgroup, real v2 in the kernels
# engineer's VMs: tests/cgroup2.bats); a kernel before 6.6
# (vm.memfd_noexec left alone) or before Landlock ABI 6 (simulated with
# -A); SIGKILL to supervisor, init and watcher at once (the watcher is in
# a process group of its own, so only a kill of every process of the user does
# that: then an empty cgroup may be left, CAVEATS of the man page).
load ../helpers/load

TRY_SUPER="$TRYDIR/try-super"
DENY="$TRYDIR/deny-unshare"
USAGE="usage: sharness-exec-supervise [-bt] [-A ABI] [-D FD] [-E FD] [--policy-key KEY] [--policy-hash HASH] [--policy-id ID] [--kill-after SECONDS] [-O FD] [--report-path PATH] [--status-in FD] [--egress-in FD] [--timeout SECONDS] [-W FD] [--] PROGRAM [ARG...]"

setup() {
	setup_tmp
	M="sup-$$-$BATS_TEST_NUMBER-$RANDOM"
	W=
	# no core files of killed targets in the working directory
	ulimit -c 0
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

# policy DIR CAPS: a policy that may write DIR; CAPS yes adds both caps.
policy() {
	local caps=
	[ "$2" = yes ] && caps=',"max_memory_mb":512,"max_pids":4096'
	mkdir -p "$1"
	chmod 777 "$1"
	write_policy "$TMP/p.json" '{"pbp":1,"id":"supervise","files":{"read":["/etc","/proc"],"exec":["/usr","/bin","/lib","/lib64","'"$TRYDIR"'"],"write":["'"$1"'","/dev/null"]},"network":"none","process":{"no_new_privs":true'"$caps"'}}'
}

# prep MODE CAPS: a new writable directory W for the next run, and its policy.
prep() {
	W=$TMP/w-$1-$2-$RANDOM
	policy "$W" "$2"
}

# start MODE CAPS CMD...: `sharness-exec run` under the policy prep made, in
# the background as MODE, its pid (the supervisor's, as the chain execs in
# place) in PID, and default dispositions for INT and QUIT, which a
# background job of a shell without job control starts with ignored.
start() {
	local mode=$1 caps=$2
	shift 2
	local cmd=(env --default-signal=INT,QUIT "$SHARNESS_EXEC" run -p "$TMP/p.json" --)
	[ "$mode" = nobody ] && cmd=(setpriv --reuid="$NOBODY_UID" --regid="$NOBODY_GID" --clear-groups -- "${cmd[@]}")
	"${cmd[@]}" "$@" >"$TMP/out" 2>"$TMP/err" &
	PID=$!
}

finish() {
	STATUS=0
	wait "$PID" || STATUS=$?
}

# Our own cgroup directories, where a run makes its own.
cgroup_dirs() {
	local h p
	for h in memory pids; do
		p=$(awk -F: -v h="$h" '$2 == h { print $3 }' /proc/self/cgroup)
		echo "/sys/fs/cgroup/$h${p%/}"
	done
	p=$(awk -F: '$1 == 0 { print $3 }' /proc/self/cgroup)
	echo "/sys/fs/cgroup/unified${p%/}"
}

# What is left of the runs of supervisors PID... whose processes carry
# MARKER in their argv: processes, cgroups.
left() {
	local d p m=$1
	shift
	pgrep -af -- "$m" || true
	for d in $(cgroup_dirs); do
		for p in "$@"; do
			ls -d "$d/sharness-exec.$p" "$d/sharness-exec.$p".sv "$d/sharness-exec.$p"-* 2>/dev/null || true
		done
	done
}

nothing_left() {
	local l
	l=$(left "$@")
	[ -z "$l" ] || { echo "left behind: $l"; return 1; }
}

state() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1; }
stopped() { [ "$(state "$1")" = T ]; }
running() { local s; s=$(state "$1"); [ -n "$s" ] && [ "$s" != T ]; }
a_process() { pgrep -f -- "$1" >/dev/null; }

# A bash script for the target: start a daemon (setsid, in the
# background, its parent gone at once), wait until it runs, then $1.
daemon_then() {
	[ -n "$W" ] || return 1
	echo "setsid bash -c 'touch $W/d.ready; exec -a $M-daemon sleep 1000' </dev/null >/dev/null 2>&1 &
	$(wait_for "$W/d.ready"); $1"
}

# A shell loop that waits for FILE to exist, 40 s at most.
wait_for() {
	echo "for i in \$(seq 2000); do [ -e $1 ] && break; sleep 0.02; done"
}

# Run BODY MODE CAPS for root and nobody, with and without caps.
each() {
	local mode caps
	for mode in root nobody; do
		[ "$mode" = nobody ] && require_feature nobody
		for caps in no yes; do
			echo "# $mode, caps $caps"
			"$1" "$mode" "$caps" || return 1
		done
	done
}

@test "usage: -h and --help on stdout, 0; errors 125 with one line; 127; 126" {
	run -0 --separate-stderr "$SUPERVISE" -h
	[ "${lines[0]}" = "$USAGE" ]
	[ -z "$stderr" ]
	run -0 --separate-stderr "$SUPERVISE" --help
	[ "${lines[0]}" = "$USAGE" ]
	for args in "" "-Z -- true" "--nope true" "-c" "-c io true" "-A x true" "-A" "-b"; do
		# shellcheck disable=SC2086
		run -125 --separate-stderr "$SUPERVISE" $args
		[ -z "$output" ]
		[ "${#stderr_lines[@]}" = 2 ]
		[[ "${stderr_lines[0]}" == "sharness-exec-supervise: fatal: "* ]]
		[ "${stderr_lines[1]}" = "$USAGE" ]
	done
	run -127 --separate-stderr "$SUPERVISE" -- no-such-command-$$
	[ "$stderr" = "sharness-exec-supervise: fatal: unable to execute no-such-command-$$: No such file or directory" ]
	printf 'data\n' >"$TMP/not-exec"
	run -126 --separate-stderr "$SUPERVISE" -- "$TMP/not-exec"
	[[ "$stderr" == *"unable to execute $TMP/not-exec: Permission denied" ]]
	run -0 --separate-stderr "$SUPERVISE" echo -b -c memory --
	[ "$output" = "-b -c memory --" ]
}

@test "root: the target is pid 2 of a pid namespace of its own, init pid 1; statuses pass through" {
	require_feature root
	run -0 --separate-stderr "$SUPERVISE" -- sh -c 'echo $$ $PPID; readlink /proc/self/ns/pid'
	[ "${lines[0]}" = "2 1" ]
	[ "${lines[1]}" != "$(readlink /proc/self/ns/pid)" ]
	run -42 "$SUPERVISE" -- sh -c 'exit 42'
	run -139 "$SUPERVISE" -- sh -c 'kill -SEGV $$'
	# what bash itself sees, not only bats
	run -0 bash -c '"$0" -- sh -c "kill -TERM \$\$"; echo "status $?"' "$SUPERVISE"
	[ "${lines[-1]}" = "status 143" ]
}

daemon_case() {
	prep "$1" "$2"
	start "$1" "$2" bash -c "$(daemon_then 'exit 3')" "$M"
	finish
	[ "$STATUS" = 3 ] || { cat "$TMP/err"; return 1; }
	# at once, not eventually: the run is over when the caller gets it
	nothing_left "$M" "$PID"
}

@test "a double-forked daemon: exit 3 reaches the caller, and nothing is left" {
	need root
	each daemon_case
}

# Each catchable signal 1-31 sent to the wrapper with kill(1) reaches the
# target, as if it had run bare: the status is 128+N where N terminates;
# CHLD is not passed on, CONT URG WINCH are ignored by the target, and then
# TERM ends it (143); after a stop signal the wrapper stops too, and
# SIGCONT resumes it (then TERM: 143).
signals_case() {
	local sig want pids=()
	prep "$1" "$2"
	# all at once: the runs are independent
	for sig in $(seq 1 31); do
		[ "$sig" = 9 ] || [ "$sig" = 19 ] && continue
		start "$1" "$2" "$TRY_SUPER" ready "$W/ready.$sig" "$M-$sig"
		pids[sig]=$PID
	done
	for sig in "${!pids[@]}"; do
		eventually test -e "$W/ready.$sig" || return 1
		kill -"$sig" "${pids[sig]}"
	done
	for sig in "${!pids[@]}"; do
		PID=${pids[sig]}
		case $sig in
		17|18|23|28)
			want=143
			kill -TERM "$PID" ;;
		20|21|22)
			want=143
			eventually stopped "$PID" || { echo "signal $sig: the wrapper did not stop"; return 1; }
			kill -CONT "$PID"
			kill -TERM "$PID" ;;
		*)
			want=$((128 + sig)) ;;
		esac
		finish
		[ "$STATUS" = "$want" ] || { echo "signal $sig: status $STATUS, want $want"; return 1; }
	done
	nothing_left "$M" "${pids[@]}"
}

@test "each catchable signal 1-31 to the wrapper: the caller sees what it would bare" {
	need root
	each signals_case
}

# The target of the cases that kill from outside: a daemon, then ready.
ready_target() { daemon_then "touch $W/ready; exec -a $M-main sleep 1000"; }

# sigkill_wrapper: once the target started with ready_target is ready,
# SIGKILL the wrapper $PID: the caller sees 137, and then nothing of the
# run is left, no process and no cgroup. Init learns of it by
# PR_SET_PDEATHSIG and the watcher by EOF, both asynchronously: a bound.
sigkill_wrapper() {
	eventually test -e "$W/ready" || return 1
	kill -KILL "$PID"
	finish
	[ "$STATUS" = 137 ] || return 1
	eventually nothing_left "$M" "$PID" || nothing_left "$M" "$PID"
}

kill_wrapper_case() {
	prep "$1" "$2"
	start "$1" "$2" bash -c "$(ready_target)"
	sigkill_wrapper
}

@test "SIGKILL to the wrapper: 137, then nothing is left, cgroup included" {
	need root
	each kill_wrapper_case
}

kill_init_case() {
	local init
	prep "$1" "$2"
	start "$1" "$2" bash -c "$(ready_target)"
	eventually test -e "$W/ready" || return 1
	# the supervisor's child in its process group: with a cgroup it has
	# a second one, the watcher, in a process group of its own
	init=$(pgrep -P "$PID" -g "$(ps -o pgid= -p "$PID" | tr -d " ")")
	[ -n "$init" ] && [ "$(wc -w <<<"$init")" = 1 ] || return 1
	kill -KILL "$init"
	finish
	[ "$STATUS" = 137 ] || { echo "status $STATUS"; return 1; }
	nothing_left "$M" "$PID"
}

@test "SIGKILL to init from outside: 137, and nothing is left" {
	need root
	each kill_init_case
}

# init_of PID: init, the supervisor's child in the supervisor's process
# group; watcher_of PID: the watcher, its child in a process group of its
# own (there is one when the run has a cgroup).
init_of() { pgrep -P "$1" -g "$(ps -o pgid= -p "$1" | tr -d ' ')"; }
watcher_of() {
	local c pgid
	pgid=$(ps -o pgid= -p "$1" | tr -d ' ')
	for c in $(pgrep -P "$1"); do
		[ "$(ps -o pgid= -p "$c" | tr -d ' ')" = "$pgid" ] || echo "$c"
	done
}

# SIGKILL to the supervisor and init at once, as a kill of the whole job
# would: nobody is left to clean up but the watcher (with a cgroup) and the
# kernel (with a pid namespace). Without a pid namespace and without a
# cgroup the daemon would live on: not run here (see CAVEATS).
kill_both_case() {
	local init
	prep "$1" "$2"
	start "$1" "$2" bash -c "$(ready_target)"
	eventually test -e "$W/ready" || return 1
	init=$(init_of "$PID")
	[ -n "$init" ] || return 1
	kill -KILL "$PID" "$init"
	finish
	[ "$STATUS" = 137 ] || { echo "status $STATUS"; return 1; }
	eventually nothing_left "$M" "$PID" || nothing_left "$M" "$PID"
}

@test "SIGKILL to the supervisor and init at once: 137, and nothing is left, cgroup included" {
	need root
	each kill_both_case
	# without a pid namespace, the watcher kills what the cgroup holds
	W=$TMP/w-deny-both
	policy "$W" yes
	env --default-signal=INT,QUIT "$DENY" "$SHARNESS_EXEC" run --best-effort -p "$TMP/p.json" -- \
		bash -c "$(ready_target)" >"$TMP/out" 2>"$TMP/err" &
	PID=$!
	eventually test -e "$W/ready"
	[ -n "$(watcher_of "$PID")" ]
	kill -KILL "$PID" "$(init_of "$PID")"
	finish
	[ "$STATUS" = 137 ]
	eventually nothing_left "$M" "$PID" || nothing_left "$M" "$PID"
}

# The target against the watcher: it learns the watcher's pid (here from
# the test) and tries to stop it, kill it and lower its rlimits. With a pid
# namespace the watcher is not there for it (ESRCH); without one, Landlock's
# signal scoping and the seccomp filter refuse (EPERM). The watcher is then
# still running, and cleans up at the end.
watcher_case() {
	local how=$1 cmd wpid
	W=$TMP/w-watcher-$how
	policy "$W" yes
	cmd=(env --default-signal=INT,QUIT "$SHARNESS_EXEC" run -p "$TMP/p.json" --)
	[ "$how" = no-pidns ] && cmd=(env --default-signal=INT,QUIT "$DENY" "$SHARNESS_EXEC" run --best-effort -p "$TMP/p.json" --)
	"${cmd[@]}" bash -c "touch $W/ready; $(wait_for "$W/pid"); read w <$W/pid
		kill -0 \$w 2>&1; echo \"stop \$?\"; kill -STOP \$w 2>&1; echo \"stop \$?\"
		kill -KILL \$w 2>&1; echo \"kill \$?\"; $TRY_SUPER prlimit \$w
		touch $W/done; $(wait_for "$W/go"); exit 5" "$M" >"$TMP/out" 2>"$TMP/err" &
	PID=$!
	eventually test -e "$W/ready"
	wpid=$(watcher_of "$PID")
	[ -n "$wpid" ]
	local limits
	limits=$(cat "/proc/$wpid/limits")
	echo "$wpid" >"$W/pid.tmp" && mv "$W/pid.tmp" "$W/pid"
	eventually test -e "$W/done"
	cat "$TMP/out"
	running "$wpid"
	[ "$(cat "/proc/$wpid/limits")" = "$limits" ]
	touch "$W/go"
	finish
	[ "$STATUS" = 5 ]
	grep -q 'stop 1' "$TMP/out"
	! grep -q 'stop 0\|kill 0' "$TMP/out"
	grep -q '^refused: ' "$TMP/out"
	if [ "$how" = pidns ]; then grep -q 'No such process' "$TMP/out"; else grep -q 'Operation not permitted' "$TMP/out"; fi
	[ ! -e "/proc/$wpid" ] || [ "$(state "$wpid")" = Z ] || { echo "the watcher outlived the run"; return 1; }
	nothing_left "$M" "$PID"
}

@test "the target cannot stop, kill or prlimit the watcher, in a pid namespace or without one" {
	require_feature root
	require_feature cgroup1
	watcher_case pidns
	watcher_case no-pidns
}

# fds_of PID: "FD TARGET" for each of its descriptors.
fds_of() {
	local f
	for f in /proc/"$1"/fd/*; do echo "${f##*/} $(readlink "$f")"; done
}

# Only what each needs: the supervisor stderr, init's status pipe and its
# socket to the watcher; init stderr and its status pipe; the watcher
# stderr and its socket (its pipe to init closed once init has the
# cgroup). Not the sealed environment (fd 3 for the landlock step), not
# the caller's stdin or stdout.
fds_case() {
	local mode=$1 caps=$2 init wpid want
	prep "$mode" "$caps"
	start "$mode" "$caps" bash -c "touch $W/ready; $(wait_for "$W/go")" </dev/null
	eventually test -e "$W/ready" || return 1
	init=$(init_of "$PID")
	wpid=$(watcher_of "$PID")
	echo "# supervisor: $(fds_of "$PID" | tr '\n' ' ')"
	echo "# init: $(fds_of "$init" | tr '\n' ' ')"
	[ -z "$wpid" ] || echo "# watcher: $(fds_of "$wpid" | tr '\n' ' ')"
	# the target still got its environment through fd 3, before
	grep -q "^PATH=" "/proc/$(pgrep -f "^bash -c touch $W/ready")/environ" 2>/dev/null ||
		tr '\0' '\n' <"/proc/$(pgrep -f "^bash -c touch $W/ready")/environ" | grep -q '^PATH=' || return 1
	want=0
	[ -n "$wpid" ] && want=1
	[ "$(fds_of "$PID" | grep -c ' pipe:')" = 1 ] || return 1
	[ "$(fds_of "$PID" | grep -c ' socket:')" = "$want" ] || return 1
	[ "$(fds_of "$PID" | wc -l)" = $((2 + want)) ] || return 1
	fds_of "$PID" | grep -qx "2 $TMP/err" || return 1
	[ "$(fds_of "$init" | grep -c ' pipe:')" = 1 ] && [ "$(fds_of "$init" | wc -l)" = 2 ] || return 1
	if [ -n "$wpid" ]; then
		[ "$(fds_of "$wpid" | grep -c ' socket:')" = 1 ] && [ "$(fds_of "$wpid" | wc -l)" = 2 ] || return 1
	fi
	! fds_of "$PID" "$init" $wpid | grep -q 'memfd:' || return 1
	touch "$W/go"
	finish
	[ "$STATUS" = 0 ] || return 1
}

@test "the supervisor, init and the watcher hold only the descriptors they need" {
	need root
	each fds_case
}

prlimit_case() {
	local victim ns limits
	ns=$(readlink /proc/self/ns/pid)
	# a process outside the run, of the same user
	if [ "$1" = nobody ]; then
		setpriv --reuid="$NOBODY_UID" --regid="$NOBODY_GID" --clear-groups -- sleep 1000 &
	else
		sleep 1000 &
	fi
	victim=$!
	prep "$1" "$2"
	start "$1" "$2" bash -c "$(daemon_then "
		readlink /proc/self/ns/pid
		$TRY_SUPER prlimit \$PPID
		$(wait_for "$W/pids")
		read sup victim <$W/pids
		$TRY_SUPER prlimit \$sup
		$TRY_SUPER prlimit \$victim
		touch $W/done
		$(wait_for "$W/go")
		exit 0")"
	limits=$(grep -E 'open files|file size' "/proc/$PID/limits")
	echo "$PID $victim" >"$W/pids.tmp"
	mv "$W/pids.tmp" "$W/pids"
	eventually test -e "$W/done"
	mapfile -t out <"$TMP/out"
	echo "# $(printf '%s|' "${out[@]}")"
	local sup_after victim_after
	sup_after=$(grep -E 'open files|file size' "/proc/$PID/limits")
	victim_after=$(grep -E 'open files|file size' "/proc/$victim/limits")
	touch "$W/go"
	finish
	kill "$victim"
	wait "$victim" || true
	[ "$STATUS" = 0 ] || return 1
	# its parent is init, inside the run: refused by the landlock step's
	# seccomp filter (prlimit64 on any pid but 0), or harmless
	[[ "${out[1]}" == ok || "${out[1]}" == refused:* ]] || return 1
	# the supervisor and the victim: hidden by the pid namespace (ESRCH),
	# and refused by the filter (EPERM) in any case
	[[ "${out[2]}" == refused:* ]] && [[ "${out[3]}" == refused:* ]] || return 1
	if [ "${out[0]}" != "$ns" ]; then
		[ "${out[2]}" = "refused: No such process" ] ||
			[ "${out[2]}" = "refused: Operation not permitted" ] || return 1
	fi
	# and their limits are intact while the run goes on
	[ "$sup_after" = "$limits" ] && [ "$victim_after" = "$limits" ] || return 1
	nothing_left "$M" "$PID"
}

@test "the target lowers its parent's rlimits and tries its supervisor's and another process's" {
	need root
	each prlimit_case
}

storm_case() {
	local i kinds=(WINCH CONT USR1 HUP USR2 ALRM URG INT QUIT PIPE) k
	prep "$1" "$2"
	start "$1" "$2" "$TRY_SUPER" signals "$W/seen"
	eventually test -e "$W/seen.ready" || return 1
	for i in $(seq 0 399); do
		kill -"${kinds[i % ${#kinds[@]}]}" "$PID"
	done
	for k in "${kinds[@]}"; do
		eventually grep -qx "$(kill -l "$k")" "$W/seen" || { echo "never saw $k"; return 1; }
	done
	kill -TERM "$PID"
	finish
	[ "$STATUS" = 3 ] || { echo "status $STATUS"; return 1; }
	nothing_left "$W/seen" "$PID"
}

@test "a storm of 400 mixed signals to the wrapper: the target sees each kind, exits 3" {
	need root
	each storm_case
}

traceme_case() {
	prep "$1" "$2"
	start "$1" "$2" "$TRY_SUPER" traceme 7
	finish
	[ "$STATUS" = 7 ] || { echo "status $STATUS"; cat "$TMP/err"; return 1; }
}

@test "a target that makes init its tracer (PTRACE_TRACEME) and stops still exits 7 as 7" {
	need root
	each traceme_case
	require_feature root
	run -7 "$DENY" "$SUPERVISE" -- "$TRY_SUPER" traceme 7
}

tty_case() {
	local mode=$1 shell wrapper target
	W=$TMP/w-tty-$mode
	policy "$W" no
	shell="exec bash --norc --noprofile -i"
	[ "$mode" = nobody ] && shell="exec setpriv --reuid=$NOBODY_UID --regid=$NOBODY_GID --clear-groups -- bash --norc --noprofile -i"
	{
		printf "'%s' run -p '%s' -- bash -c 'touch %s/ready; exec -a %s-tty sleep 1000'\n" \
			"$SHARNESS_EXEC" "$TMP/p.json" "$W" "$M"
		eventually a_process "^$M-tty"
		target=$(pgrep -f "^$M-tty")
		wrapper=$(pgrep -o -f "^$HELPERDIR/sharness-exec-supervise .*$M-tty")
		echo "$wrapper $target" >"$W/pids"
		printf '\032' # ^Z
		eventually stopped "$target"
		eventually stopped "$wrapper"
		printf 'jobs -l >%s/jobs\n' "$W"
		eventually test -s "$W/jobs"
		printf 'fg\n'
		eventually running "$target"
		eventually running "$wrapper"
		touch "$W/resumed"
		printf '\003' # ^C
		eventually eval '! a_process "$M-tty"'
		printf 'echo "status $?" >%s/status\n' "$W"
		eventually test -s "$W/status"
		printf 'exit\n'
	} | "${SCRIPT[@]}" -qec "$shell" /dev/null >/dev/null || true
	cat "$W/jobs"
	grep -q Stopped "$W/jobs"
	[ -e "$W/resumed" ]
	[ "$(cat "$W/status")" = "status 130" ]
	nothing_left "$M" "$(cut -d' ' -f1 "$W/pids")"
}

@test "^Z and fg on a terminal stop and resume the job; ^C then ends it with 130" {
	require_feature pty
	need root
	tty_case root
	require_feature nobody
	tty_case nobody
}

@test "root: two runs as pid 1 of two pid namespaces share a cgroup v1 parent, and do not disturb each other" {
	require_feature root
	require_feature cgroup1
	local pids a b sa=0 sb=0 dirs ca cb
	pids=$(awk -F: '$2 == "pids" { print $3 }' /proc/self/cgroup)
	dirs=/sys/fs/cgroup/pids${pids%/}
	W=$TMP/w
	policy "$W" yes
	# Each target says which cgroup it is in: the names are the same for
	# every run that is pid 1 of its namespace (another suite's at the same
	# time too), so the test looks at its own two only.
	unshare -p -f --mount-proc "$SHARNESS_EXEC" run -p "$TMP/p.json" -- \
		bash -c "grep :pids: /proc/self/cgroup >$W/a.cg; touch $W/a.ready; $(wait_for "$W/a.go"); exit 5" "$M-a" &
	a=$!
	eventually test -e "$W/a.ready"
	ca=$dirs/$(sed 's,.*/,,' "$W/a.cg")
	# each supervisor is pid 1 where it runs: the same name, taken
	[[ "$ca" == "$dirs"/sharness-exec.1 || "$ca" == "$dirs"/sharness-exec.1-* ]]
	[ -d "$ca" ]
	unshare -p -f --mount-proc "$SHARNESS_EXEC" run -p "$TMP/p.json" -- \
		bash -c "grep :pids: /proc/self/cgroup >$W/b.cg; $(daemon_then "touch $W/b.ready; $(wait_for "$W/b.go"); exit 6")" "$M-b" &
	b=$!
	eventually test -e "$W/b.ready"
	cb=$dirs/$(sed 's,.*/,,' "$W/b.cg")
	echo "A: $ca, B: $cb"
	[[ "$cb" == "$dirs"/sharness-exec.1-* ]]
	[ "$ca" != "$cb" ]
	touch "$W/b.go"
	wait "$b" || sb=$?
	[ "$sb" = 6 ]
	! a_process "$M-daemon"
	[ ! -e "$cb" ]
	# A is untouched: alive, in its cgroup, which is still there
	a_process "$M-a"
	[ -d "$ca" ]
	[ -n "$(cat "$ca/cgroup.procs")" ]
	touch "$W/a.go"
	wait "$a" || sa=$?
	[ "$sa" = 5 ]
	! a_process "$M"
	[ ! -e "$ca" ]
}

@test "root: vm.memfd_noexec is 2 in the run's pid namespace, and unchanged outside" {
	require_feature root
	require_that memfd-noexec "no vm.memfd_noexec (Linux before 6.3)" test -e /proc/sys/vm/memfd_noexec
	local before
	before=$(cat /proc/sys/vm/memfd_noexec)
	[ "$before" = 2 ] || { run -0 "$TRY_SUPER" memfd-exec; [ "$output" = ok ]; }
	run -1 "$SUPERVISE" -- "$TRY_SUPER" memfd-exec
	[ "$output" = "refused: Permission denied" ]
	run -0 "$SUPERVISE" -- cat /proc/sys/vm/memfd_noexec
	[ "$output" = 2 ]
	[ "$(cat /proc/sys/vm/memfd_noexec)" = "$before" ]
}

@test "not root: a pid namespace in a user namespace with CAP_SYS_ADMIN (as netns makes it)" {
	require_feature nobody
	require_feature userns
	local status=0
	W=$TMP/w-userns
	mkdir -m 777 "$W"
	cd /
	run -3 as_nobody unshare --user --map-current-user --keep-caps \
		"$SUPERVISE" -- bash -c "echo \$\$ \$PPID; $(daemon_then 'exit 3')"
	[ "${lines[0]}" = "2 1" ]
	nothing_left "$M" 0
	rm -f "$W/d.ready"
	as_nobody unshare --user --map-current-user --keep-caps \
		"$SUPERVISE" -- bash -c "$(ready_target)" &
	PID=$!
	eventually test -e "$W/ready"
	# the supervisor is unshare's child, which exec'd it
	kill -KILL "$(pgrep -o -f "^$SUPERVISE -- bash")"
	wait "$PID" || status=$?
	[ "$status" = 137 ]
	eventually nothing_left "$M" 0
}

fallback_case() {
	local mode=$1 caps=$2 cmd
	W=$TMP/w-deny-$mode-$caps
	policy "$W" "$caps"
	# A root caller without a mount namespace is refused by the view
	# step's strict mode (126); --best-effort runs it with Landlock alone.
	cmd=(env --default-signal=INT,QUIT "$DENY" "$SHARNESS_EXEC" run --best-effort -p "$TMP/p.json" --)
	[ "$mode" = nobody ] && cmd=(env --default-signal=INT,QUIT "$DENY" "$SHARNESS_EXEC" run -p "$TMP/p.json" --)
	[ "$mode" = nobody ] && cmd=(setpriv --reuid="$NOBODY_UID" --regid="$NOBODY_GID" --clear-groups -- "${cmd[@]}")
	"${cmd[@]}" bash -c "readlink /proc/self/ns/pid; $(daemon_then 'exit 4')" >"$TMP/out" 2>"$TMP/err" &
	PID=$!
	finish
	[ "$STATUS" = 4 ] || { cat "$TMP/err"; return 1; }
	[ "$(head -n 1 "$TMP/out")" = "$(readlink /proc/self/ns/pid)" ] || return 1
	nothing_left "$M" "$PID" || return 1
	"${cmd[@]}" bash -c "$(ready_target)" >"$TMP/out" 2>"$TMP/err" &
	PID=$!
	sigkill_wrapper
}

@test "no pid namespace (unshare refused): subreaper and cgroup still leave nothing" {
	need root
	each fallback_case
}

@test "no pid namespace and Landlock below ABI 6: refused (126), or run with -b and a warning" {
	require_feature root
	run -126 --separate-stderr "$DENY" "$SUPERVISE" -A 5 -- touch "$TMP/ran"
	[ ! -e "$TMP/ran" ]
	[ "${stderr_lines[0]}" = "sharness-exec-supervise: fatal: unable to confine signals: no pid namespace (Operation not permitted) and Landlock ABI 5, which cannot scope them (ABI 6 can)" ]
	[ "${stderr_lines[1]}" = "hint: -b (--best-effort) runs with signals unscoped" ]
	run -0 --separate-stderr "$DENY" "$SUPERVISE" -b -A 5 -- touch "$TMP/ran"
	[ -e "$TMP/ran" ]
	[ "$stderr" = "sharness-exec-supervise: warning: best effort: no pid namespace (Operation not permitted) and Landlock ABI 5: signals are unscoped, the command may signal every process of its user" ]
	# with a pid namespace, the ABI does not matter
	run -0 --separate-stderr "$SUPERVISE" -A 5 -- true
	[ -z "$stderr" ]
	# and with ABI 6 no word is said
	run -0 --separate-stderr "$DENY" "$SUPERVISE" -A 6 -- true
	[ -z "$stderr" ]
}

@test "the limits step's -g: the cgroup its -m and -p need is put at those descriptors, or the walls record says why there is none; no word is rewritten" {
	require_feature root
	require_feature cgroup1
	local mem pids
	mem=$(awk -F: '$2 == "memory" { print $3 }' /proc/self/cgroup)
	pids=$(awk -F: '$2 == "pids" { print $3 }' /proc/self/cgroup)
	run -0 --separate-stderr "$SUPERVISE" -- "$LIMITS" -t -g 5:6 -g 7:8 -m 64 -p 50 -- echo a b
	[[ "${lines[0]}" =~ ^sharness-exec-limits:\ memory=/sys/fs/cgroup/memory${mem%/}/sharness-exec\.([0-9]+)\ memory_mib=64\ pids=/sys/fs/cgroup/pids${pids%/}/sharness-exec\.([0-9]+)\ pids_max=50$ ]]
	[ "${lines[1]}" = "a b" ]
	[ ! -e "/sys/fs/cgroup/memory${mem%/}/sharness-exec.${BASH_REMATCH[1]}" ]
	# the descriptors are the limits step's to close: the program has none
	run -0 --separate-stderr "$SUPERVISE" -- "$LIMITS" -g 5:6 -g 7:8 -m 64 -p 50 -- sh -c 'ls /proc/self/fd/5 /proc/self/fd/6 /proc/self/fd/7 /proc/self/fd/8 2>&1 | grep -c "No such"'
	[ "$output" = 4 ]
	# one that the caller holds already is refused, before anything runs
	run -125 --separate-stderr "$SUPERVISE" -- "$LIMITS" -g 5:6 -m 64 -- touch "$TMP/ran" 6</dev/null
	[[ "$stderr" == "sharness-exec-supervise: fatal: the limits step's -g 5:6: descriptor 6 is in use"* ]]
	[ ! -e "$TMP/ran" ]
	require_feature nobody
	cd /
	: >"$TMP/walls"
	chmod 666 "$TMP/walls"
	run -126 --separate-stderr as_nobody "$SUPERVISE" -W 9 -- "$LIMITS" -W 9 -g 5:6 -U -p 50 -- echo a b 9<>"$TMP/walls"
	[[ "$stderr" == "sharness-exec-limits: fatal: refused: no cgroup (unable to create cgroup /sys/fs/cgroup/pids"*"Permission denied) to hold max_pids under --user: "* ]]
	grep -qx 'cgroup=none' "$TMP/walls"
	grep -q '^cgroup_why=unable to create cgroup /sys/fs/cgroup/pids.*Permission denied$' "$TMP/walls"
}
