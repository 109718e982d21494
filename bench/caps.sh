#!/usr/bin/env bash
# bench/caps.sh [BUILD-DIR]: where the caps path's time goes, in ONE run
# (BENCH_INTERLEAVE=1 as in bench/lib.sh; compare within the run): the
# supervise step alone (a pid namespace, no watcher); with -c pids (the
# watcher forked, one v1 or v2 group made, emptied and removed, nothing
# joins it); with -c memory -c pids (a second controller); the same with
# the limits step after it (its exec, the caps written, both groups
# joined); the limits step alone on rlimits (its exec); and the floors:
# bench/floor -p (the pid namespace's two forks), -c -p (a memory and a
# pids group beside them, one more fork). Each line is what it adds to
# the one before it. BENCH_BEFORE=BUILD-DIR adds that build's supervise
# step alone and with caps to the same run: a before and after. A
# benchmark, never a test. Needs root and a writable cgroup hierarchy.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bench_init "${1:-.}" sharness-exec-supervise sharness-exec-limits bench/floor bench/interleave
sv=$build/sharness-exec-supervise
li=$build/sharness-exec-limits
fl=$build/bench/floor
before=()
if [ -n "${BENCH_BEFORE:-}" ]; then
	b=$(cd "$BENCH_BEFORE" && pwd)
	[ -x "$b/sharness-exec-supervise" ] && [ -x "$b/sharness-exec-limits" ] ||
		{ echo "bench: no helpers in $b" >&2; exit 2; }
	before=(before-supervise "$b/sharness-exec-supervise -- /bin/true"
		before-caps "$b/sharness-exec-supervise -c memory -c pids -m 512 -p 256 -- $b/sharness-exec-limits -m 512 -p 256 -- /bin/true")
fi
cd /
bench_run "${before[@]}" \
	bare /bin/true \
	supervise "$sv -- /bin/true" \
	watcher-pids "$sv -c pids -- /bin/true" \
	watcher-memory-pids "$sv -c memory -c pids -- /bin/true" \
	caps "$sv -c memory -c pids -m 512 -p 256 -- $li -m 512 -p 256 -- /bin/true" \
	limits-rlimits "$li -r bench -p 4194304 -- /bin/true" \
	floor-pidns "$fl -p -- /bin/true" \
	floor-caps-pidns "$fl -c -p -- /bin/true"
bench_table supervise
bench_py <<'PY'
ms = lambda a, b: f"{(R[a] - R[b]) * 1e3:6.3f} ms"
print("where the caps path's time goes (medians, each over the one before):")
print(f"  {ms('supervise', 'bare')}  the supervise step (pid namespace, two forks, one exec)")
print(f"  {ms('watcher-pids', 'supervise')}  the watcher's fork, one group made, emptied, removed")
print(f"  {ms('watcher-memory-pids', 'watcher-pids')}  a second controller's group")
print(f"  {ms('caps', 'watcher-memory-pids')}  the limits step: its exec {ms('limits-rlimits', 'bare')}, "
      "the caps written, both groups joined")
print(f"  {ms('caps', 'supervise')}  caps in all; their floor {ms('floor-caps-pidns', 'floor-pidns')}: "
      f"{(R['caps'] - R['supervise']) / (R['floor-caps-pidns'] - R['floor-pidns']):.2f} x")
if 'before-caps' in R:
    print(f"  {ms('before-caps', 'before-supervise')}  the same before (BENCH_BEFORE): "
          f"{(R['before-caps'] - R['before-supervise']) / (R['floor-caps-pidns'] - R['floor-pidns']):.2f} x")
PY
