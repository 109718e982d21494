#!/usr/bin/env bash
# chain-stress.sh [TOP_SRCDIR [BUILDDIR]]: the whole chain, with caps, many
# times at once, half of the runs killed at a random moment. Root only (it
# checks the cgroups sharness-exec-supervise makes beneath our own).
#
# STRESS_RUNS (200) runs of `sharness-exec run` with max_memory_mb and
# max_pids, STRESS_JOBS (8) at a time. Each target is bash, tagged with a
# unique marker in argv; it leaves a background process behind, tries to
# write and delete in a directory outside its policy, sleeps and exits with
# a status of its own. Half of the runs are hit with SIGTERM or SIGKILL
# after a random delay: half of those the wrapper (the process we started,
# whatever step of the chain it is at by then), half the target. Then:
#   - every status is what the caller should see: the target's own exit
#     code, or 128+signal for the one killed;
#   - after one more clean run, no process started by the test is alive
#     (the marker is in every argv), and no sharness-exec.* cgroup of ours,
#     or of a dead supervisor, is left beneath our memory and pids cgroups
#     (init kills the run when its supervisor is SIGKILLed, and the
#     supervisor's watcher removes the cgroup);
#   - the directory outside the policy is unchanged (checksums).
# STRESS_SEED makes a run reproducible. Prints "N passed, N failed".
set -u
top=$(cd "${1:-${top_srcdir:?give TOP_SRCDIR}}" && pwd)
build=$(cd "${2:-${top_builddir:?give BUILDDIR}}" && pwd)
SE=${SHARNESS_EXEC:-$build/test-sharness-exec}
RUNS=${STRESS_RUNS:-200}
JOBS=${STRESS_JOBS:-8}
SEED=${STRESS_SEED:-$$}
RANDOM=$SEED

[ "$(id -u)" = 0 ] || { echo "chain-stress.sh: skipped: needs root (cgroups)"; exit 77; }
[ -x "$SE" ] || { echo "chain-stress.sh: $SE is not built" >&2; exit 2; }

work=$(mktemp -d /tmp/sharness-exec-stress.XXXXXX)
chmod 755 "$work"
W=$work/w P=$work/protected
mkdir "$W" "$P"
for n in 1 2 3; do head -c 4096 /dev/urandom >"$P/keep$n"; done
sums() { (cd "$P" && find . -print0 | sort -z | xargs -0 ls -ld --time-style=+%s-%N; \
          find . -type f -print0 | sort -z | xargs -0 sha256sum) 2>&1; }
before=$(sums)
MARKER=sharness-stress-$$-$RANDOM$RANDOM

cat >"$work/policy.json" <<JSON
{
  "pbp": 1,
  "id": "chain-stress",
  "files": { "read": ["/etc"], "exec": ["/usr"], "write": ["$W", "/dev/null"] },
  "network": "none",
  "process": { "no_new_privs": true, "max_memory_mb": 256, "max_pids": 64 }
}
JSON
chmod 644 "$work/policy.json"

# $0 marker, $1 writable dir, $2 protected dir, $3 seconds, $4 status
target='echo $$ >"$1/pid.${0##*-}"
(exec -a "$0-bg" sleep 60) &
if (echo x >"$2/intruder") 2>/dev/null || rm "$2/keep1" 2>/dev/null; then exit 99; fi
(exec -a "$0-fg" sleep "$3")
exit "$4"'

echo "chain-stress.sh: $RUNS runs, $JOBS at a time, seed $SEED, marker $MARKER"
start=$(date +%s)

# run_one I MODE SIG DELAY SECONDS STATUS; MODE: none, wrapper or target.
run_one() {
	local i=$1 mode=$2 sig=$3 delay=$4 secs=$5 status=$6 pid tpid st want n
	"$SE" run --policy "$work/policy.json" -- \
		/bin/bash -c "$target" "$MARKER-$i" "$W" "$P" "$secs" "$status" \
		</dev/null >/dev/null 2>"$work/err.$i" &
	pid=$!
	echo "$pid" >>"$work/spawned"
	case $mode in
	wrapper)
		sleep "$delay"
		kill -s "$sig" "$pid" ;;
	target)
		for n in $(seq 500); do [ -s "$W/pid.$i" ] && break; sleep 0.01; done
		sleep "$delay"
		# its pid out here: the one it wrote is its pid in the run's
		# own pid namespace
		tpid=$(pgrep -o -f "^/bin/bash -c .* $MARKER-$i ") && kill -s "$sig" "$tpid" ;;
	esac
	wait "$pid" 2>/dev/null   # not bash's "Killed" line
	st=$?
	case $mode in
	none) want=$status ;;
	*) want=$((128 + $(kill -l "$sig"))) ;;
	esac
	echo "$i $mode $sig $want $st" >>"$work/results"
}

for i in $(seq "$RUNS"); do
	status=$((RANDOM % 99))
	case $((RANDOM % 4)) in
	0|1) mode=none secs=$(printf '0.%03d' $((RANDOM % 300))) ;;
	2) mode=wrapper secs=2 ;;
	3) mode=target secs=2 ;;
	esac
	sig=TERM
	[ $((RANDOM % 2)) = 0 ] && sig=KILL
	delay=$(printf '0.%03d' $((RANDOM % 250)))
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
	run_one "$i" "$mode" "$sig" "$delay" "$secs" "$status" &
done
wait

pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# 1. statuses
while read -r i mode sig want st; do
	if [ "$want" = "$st" ]; then ok; else
		bad "run $i ($mode${mode#none}, SIG$sig): status $st, expected $want$(
			[ -s "$work/err.$i" ] && printf '; stderr: %s' "$(head -c 300 "$work/err.$i" | tr '\n' '|')")"
	fi
done <"$work/results"
got=$(wc -l <"$work/results")
[ "$got" = "$RUNS" ] && ok || bad "$got results for $RUNS runs"
echo "chain-stress.sh: $RUNS runs: $(awk '{print $2}' "$work/results" | sort | uniq -c | tr '\n' ' ')in $(($(date +%s) - start)) s"

# 2. one more clean run, which must not touch the other runs' cgroups.
last=$("$SE" run --policy "$work/policy.json" -- /bin/bash -c 'exit 7' "$MARKER-last" 2>&1)
st=$?
[ "$st" = 7 ] && ok || bad "the clean run: status $st, expected 7: $last"

# Then nothing started by the test is alive. A run whose supervisor was
# SIGKILLed is killed by its init, told by PR_SET_PDEATHSIG, asynchronously:
# allow a moment.
for n in $(seq 50); do pgrep -f "$MARKER" >/dev/null || break; sleep 0.1; done
left=$(pgrep -f "$MARKER")
if [ -z "$left" ]; then ok; else
	bad "processes left alive after their run ended:"
	ps -o pid=,ppid=,args= -p "$(echo $left | tr ' ' ,)" | while read -r p pp args; do
		i=${args#"$MARKER"-}
		i=${i%%[!0-9]*}
		echo "    pid $p (parent $pp) $args: from run $(awk -v i="$i" '$1 == i { print $1 " (" $2 ", SIG" $3 ")" }' "$work/results")"
	done
fi

# 3. no cgroup of ours or of a dead supervisor.
fail_before_cg=$fail
spawned=" $(tr '\n' ' ' <"$work/spawned") "
ours=()
for hier in memory pids; do
	own=$(awk -F: -v h="$hier" '$2 == h { print $3 }' /proc/self/cgroup)
	dir=/sys/fs/cgroup/$hier${own%/}
	[ -d "$dir" ] || continue
	for cg in "$dir"/sharness-exec.*; do
		[ -d "$cg" ] || continue
		n=${cg##*/sharness-exec.}
		n=${n%%[-.]*} # sharness-exec.PID, .PID.sv, .PID-N
		# the watcher removes the cgroup of a SIGKILLed supervisor: a moment
		for w in $(seq 50); do [ -d "$cg" ] || break; sleep 0.1; done
		[ -d "$cg" ] || continue
		# Another test's run in progress owns a live pid; not ours to judge.
		case $spawned in *" $n "*) ;; *) kill -0 "$n" 2>/dev/null && continue ;; esac
		ours+=("$cg")
		# Empty or not: the watcher removes the cgroup of a SIGKILLed
		# wrapper, whatever step it was at.
		bad "cgroup left behind: $cg (processes in it: $(tr '\n' ' ' <"$cg/cgroup.procs"))"
	done
done
[ "${#ours[@]}" = 0 ] && ok

# Clean up after a failure: our leftover processes (by pid), then their
# cgroups, so that nothing of this test outlives it.
if [ -n "$left" ]; then
	kill -KILL $left 2>/dev/null
	sleep 0.2
fi
for cg in "${ours[@]}"; do rmdir "$cg" 2>/dev/null; done

# 4. the directory outside the policy is intact.
after=$(sums)
if [ "$before" = "$after" ]; then ok; else
	bad "files outside the policy changed:"
	diff <(echo "$before") <(echo "$after") | sed 's/^/    /'
fi

rm -rf "$work"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
