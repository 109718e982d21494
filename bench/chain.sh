#!/usr/bin/env bash
# bench/chain.sh [BUILD-DIR]: what the chain costs, and where the time
# goes, side by side in ONE hyperfine run (this machine is noisy: compare
# ratios, not seconds; run it when `uptime` shows a load below 1):
#   bare /bin/true; plain `unshare` (network, IPC and pid namespaces, with
#   the fork a pid namespace needs); `bwrap --unshare-all --die-with-parent`
#   with the same binds as the policy (ro /usr /etc, rw /tmp, --dev,
#   --proc); one extra exec of a static helper that does next to nothing
#   (the limits step on rlimits); the landlock helper alone; the supervise
#   helper alone, with its pid namespace and without one (under
#   tests/try/deny-unshare, measured against deny-unshare alone); the
#   helpers of the chain that `sharness-exec run --dry-run` prints, one
#   more each time (netns; netns+supervise; +view; +landlock), without the
#   front end; and `sharness-exec run` itself with read /etc, exec /usr
#   /bin /lib /lib64, write /tmp, network none, plus the same with caps
#   (the supervise step's watcher and cgroup, and the limits step).
# Then the decomposition: what each step adds to the one before it, what
# the pid namespace costs, what an extra exec costs, what the front end
# (verify, compile, exec) costs.
# Beside them the floors (bench/floor: the kernel's share of each step,
# alone; the front end's, below Landlock ABI 9, the socket scan's reads of
# the read and exec directories and of /proc/net/unix, and one exec) and
# what each step adds beside its floor (the front end's line also holds
# what the walls record and the environment memfd cost the helpers: the
# helpers-only commands run without them). BENCH_BEFORE=BUILD-DIR
# adds an older build's front end (with its own helpers) to the same run.
# Aims (issues 3, 11, 27): full chain at most 0.6 x bwrap, 0.7 x with
# caps; each step within 1.5 x its floor; the landlock helper alone below
# 1.6 x bare. A benchmark, never a test. Needs root.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bench_init "${1:-.}" test-sharness-exec sharness-exec-landlock sharness-exec-supervise \
	sharness-exec-limits sharness-exec-netns sharness-exec-view tests/try/deny-unshare bench/floor \
	bench/interleave
fe=$build/test-sharness-exec
ll=$build/sharness-exec-landlock
sv=$build/sharness-exec-supervise
li=$build/sharness-exec-limits
deny=$build/tests/try/deny-unshare
fl=$build/bench/floor

cat >"$TMP/p.json" <<JSON
{"pbp":1,"id":"bench","files":{"read":["/etc"],"exec":["/usr","/bin","/lib","/lib64"],"write":["$TMP/w"]},
 "network":"none","process":{"no_new_privs":true}}
JSON
cat >"$TMP/caps.json" <<JSON
{"pbp":1,"id":"bench-caps","files":{"read":["/etc"],"exec":["/usr","/bin","/lib","/lib64"],"write":["$TMP/w"]},
 "network":"none","process":{"no_new_privs":true,"max_memory_mb":512,"max_pids":256}}
JSON
mkdir "$TMP/w"
chmod 644 "$TMP"/*.json
hash=$("$fe" hash "$TMP/p.json")
# The landlock step opens rule paths without following symlinks: by hand,
# only the system directories that are not merged-/usr links.
sysx="-x /usr"
for d in /bin /lib /lib64; do
	[ -d "$d" ] && [ ! -L "$d" ] && sysx="$sysx -x $d"
done
# The helpers as the front end runs them, one a line (its -e 3, the
# environment memfd only the front end makes, left out).
mapfile -t step < <("$fe" run --dry-run -p "$TMP/p.json" -H "$hash" -- /bin/true 2>/dev/null |
	sed -n 's/ -e 3 / /; s/ -W [0-9]* / /g; /^\//p' | grep -v '^/bin/true$')
[ "${#step[@]}" = 4 ] || { echo "bench: expected netns, supervise, view and landlock in the dry run: ${step[*]}" >&2; exit 2; }
# The floors' binds: what the policy binds, the merged-/usr links as
# symlinks (the view's -s).
fbind="-r /etc -x /usr -w $TMP/w"
for d in /bin /lib /lib64; do
	[ -L "$d" ] && fbind="$fbind -s $d=$(realpath "$d")"
done
# The front end's socket scan runs below Landlock ABI 9 only.
abi=$(python3 -c 'import ctypes; print(ctypes.CDLL(None).syscall(444, None, 0, 1))')
scan=
[ "$abi" -gt 0 ] && [ "$abi" -lt 9 ] && scan=-S
prefix() { local i s=; for ((i = 0; i < $1; i++)); do s="$s ${step[i]}"; done; echo "${s# } /bin/true"; }

# BENCH_BEFORE=BUILD-DIR: that build's front end too (its own helpers),
# with the same policies, in the same hyperfine run: a before and after.
before=()
if [ -n "${BENCH_BEFORE:-}" ]; then
	bf=$(cd "$BENCH_BEFORE" && pwd)/test-sharness-exec
	[ -x "$bf" ] || { echo "bench: no $bf" >&2; exit 2; }
	before=(before "$bf run -p $TMP/p.json -H $hash -- /bin/true"
		before-caps "$bf run -p $TMP/caps.json -- /bin/true")
fi

cd /
bench_run \
	bare '/bin/true' \
	exec-hop "$li -r bench -p 4194304 -- /bin/true" \
	unshare 'unshare --net --ipc --pid --fork /bin/true' \
	bwrap "bwrap --unshare-all --die-with-parent --ro-bind /usr /usr --ro-bind /etc /etc --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 --bind $TMP/w $TMP/w --dev /dev --proc /proc /bin/true" \
	landlock-alone "$ll -r /etc $sysx -w $TMP/w -- /bin/true" \
	supervise-alone "$sv -- /bin/true" \
	deny-unshare-alone "$deny /bin/true" \
	supervise-no-pidns "$deny $sv -- /bin/true" \
	netns "$(prefix 1)" \
	netns+supervise "$(prefix 2)" \
	netns+supervise+view "$(prefix 3)" \
	helpers "$(prefix 4)" \
	sharness-exec "$fe run -p $TMP/p.json -H $hash -- /bin/true" \
	sharness-exec-caps "$fe run -p $TMP/caps.json -- /bin/true" \
	floor-netns "$fl -n -i -k -- /bin/true" \
	floor-pidns "$fl -p -- /bin/true" \
	floor-view "$fl $fbind -- /bin/true" \
	floor-landlock "$fl -P -l -r /etc $sysx -w $TMP/w -- /bin/true" \
	floor-caps "$fl -c -- /bin/true" \
	floor-front "$fl $scan -P -r /etc -x /usr -- /bin/true" \
	floor-chain "$fl -n -i -k -p -l $fbind -- /bin/true" \
	floor-chain-caps "$fl -c -n -i -k -p -l $fbind -- /bin/true" \
	"${before[@]}"

bench_table bwrap
bench_py <<'PY'
bare, bw = R['bare'], R['bwrap']
ms = lambda x: f"{x*1e3:6.3f} ms"
print(f"aim: sharness-exec at most 0.6 x bwrap: {R['sharness-exec']/bw:.2f} "
      f"(its floor: {R['floor-chain']/bw:.2f})")
print(f"aim: the same with caps at most 0.7 x bwrap: {R['sharness-exec-caps']/bw:.2f} "
      f"(its floor: {R['floor-chain-caps']/bw:.2f})")
print(f"aim: landlock helper alone below 1.6 x bare: {R['landlock-alone']/bare:.2f}")
print("where the time goes (each over the one before), beside its floor (over bare):")
prev = bare
hop = R['exec-hop'] - bare
for name, floor, what in (
        ("netns", "floor-netns", "netns step (network, IPC namespaces, lo up, keyring, one exec)"),
        ("netns+supervise", "floor-pidns", "supervise step (pid namespace, two forks, one exec)"),
        ("netns+supervise+view", "floor-view", "view step (mount namespace, binds, pivot_root, one exec)"),
        ("helpers", "floor-landlock", "landlock step (ruleset, seccomp, one exec)"),
        ("sharness-exec", "floor-front", "front end (read, hash, compile, memfd, one exec; "
         "floor: the socket scan's reads, one exec)")):
    step, fl = R[name] - prev, R[floor] - bare
    print(f"  {ms(step)}  floor {ms(fl)}  {step/fl if fl > 0 else float('nan'):5.2f} x  {what}")
    prev = R[name]
step, fl = R['sharness-exec-caps'] - R['sharness-exec'], R['floor-caps'] - bare
print(f"  {ms(step)}  floor {ms(fl)}  {step/fl if fl > 0 else float('nan'):5.2f} x  "
      "caps (watcher, cgroup, limits step; floor: v1 memory and pids cgroups, one fork)")
nopid = R['supervise-no-pidns'] - R['deny-unshare-alone']
print(f"one extra exec of a static helper: {ms(hop)}; the front end over it: "
      f"{(R['sharness-exec'] - R['helpers'])/hop if hop > 0 else float('nan'):.2f} x")
print(f"the supervise helper alone: {ms(R['supervise-alone'] - bare)} over bare, of which the pid "
      f"namespace {ms(R['supervise-alone'] - bare - nopid)} (without one: {ms(nopid)})")
print(f"the chain over its floor: {R['sharness-exec']/R['floor-chain']:.2f} x; with caps "
      f"{R['sharness-exec-caps']/R['floor-chain-caps']:.2f} x")
if 'before' in R:
    print(f"before: {R['before']/bw:.2f} x bwrap, with caps {R['before-caps']/bw:.2f} x; "
          f"now {R['sharness-exec']/R['before']:.2f} x before, with caps "
          f"{R['sharness-exec-caps']/R['before-caps']:.2f} x")
print(f"bwrap over bare: {ms(bw - bare)}; the chain over bare: {ms(R['sharness-exec'] - bare)}; "
      f"0.6 x bwrap leaves the chain {ms(0.6 * bw - bare)} over bare")
PY
