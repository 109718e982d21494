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
# Aims (issues 3, 11): full chain at most 0.6 x bwrap; the landlock helper
# alone below 1.6 x bare. A benchmark, never a test. Needs root.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bench_init "${1:-.}" test-sharness-exec sharness-exec-landlock sharness-exec-supervise \
	sharness-exec-limits sharness-exec-netns sharness-exec-view tests/try/deny-unshare
fe=$build/test-sharness-exec
ll=$build/sharness-exec-landlock
sv=$build/sharness-exec-supervise
li=$build/sharness-exec-limits
deny=$build/tests/try/deny-unshare

cat >"$TMP/p.json" <<JSON
{"pbp":1,"id":"bench","files":{"read":["/etc"],"exec":["/usr","/bin","/lib","/lib64"],"write":["/tmp"]},
 "network":"none","process":{"no_new_privs":true}}
JSON
cat >"$TMP/caps.json" <<JSON
{"pbp":1,"id":"bench-caps","files":{"read":["/etc"],"exec":["/usr","/bin","/lib","/lib64"],"write":["/tmp"]},
 "network":"none","process":{"no_new_privs":true,"max_memory_mb":512,"max_pids":256}}
JSON
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
	sed -n 's/ -e 3 / /; /^\//p' | grep -v '^/bin/true$')
[ "${#step[@]}" = 4 ] || { echo "bench: expected netns, supervise, view and landlock in the dry run: ${step[*]}" >&2; exit 2; }
prefix() { local i s=; for ((i = 0; i < $1; i++)); do s="$s ${step[i]}"; done; echo "${s# } /bin/true"; }

cd /
bench_run \
	bare '/bin/true' \
	exec-hop "$li -r bench -p 4194304 -- /bin/true" \
	unshare 'unshare --net --ipc --pid --fork /bin/true' \
	bwrap 'bwrap --unshare-all --die-with-parent --ro-bind /usr /usr --ro-bind /etc /etc --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 --bind /tmp /tmp --dev /dev --proc /proc /bin/true' \
	landlock-alone "$ll -r /etc $sysx -w /tmp -- /bin/true" \
	supervise-alone "$sv -- /bin/true" \
	deny-unshare-alone "$deny /bin/true" \
	supervise-no-pidns "$deny $sv -- /bin/true" \
	netns "$(prefix 1)" \
	netns+supervise "$(prefix 2)" \
	netns+supervise+view "$(prefix 3)" \
	helpers "$(prefix 4)" \
	sharness-exec "$fe run -p $TMP/p.json -H $hash -- /bin/true" \
	sharness-exec-caps "$fe run -p $TMP/caps.json -- /bin/true"

bench_table bwrap
bench_py <<'PY'
bare, bw = R['bare'], R['bwrap']
ms = lambda x: f"{x*1e3:6.3f} ms"
print(f"aim: sharness-exec at most 0.6 x bwrap: {R['sharness-exec']/bw:.2f}")
print(f"aim: landlock helper alone below 1.6 x bare: {R['landlock-alone']/bare:.2f}")
print("where the time goes (each over the one before):")
prev = bare
for name, what in (("netns", "netns step (network, IPC namespaces, lo up, keyring, one exec)"),
                   ("netns+supervise", "supervise step (pid namespace, two forks, one exec)"),
                   ("netns+supervise+view", "view step (mount namespace, binds, pivot_root, one exec)"),
                   ("helpers", "landlock step (ruleset, seccomp, one exec)"),
                   ("sharness-exec", "front end (read, hash, compile, memfd, one exec)")):
    print(f"  {ms(R[name] - prev)}  {what}")
    prev = R[name]
print(f"  {ms(R['sharness-exec-caps'] - R['sharness-exec'])}  caps (watcher, cgroup, limits step)")
nopid = R['supervise-no-pidns'] - R['deny-unshare-alone']
print(f"one extra exec of a static helper: {ms(R['exec-hop'] - bare)}")
print(f"the supervise helper alone: {ms(R['supervise-alone'] - bare)} over bare, of which the pid "
      f"namespace {ms(R['supervise-alone'] - bare - nopid)} (without one: {ms(nopid)})")
print(f"bwrap over bare: {ms(bw - bare)}; the chain over bare: {ms(R['sharness-exec'] - bare)}; "
      f"0.6 x bwrap leaves the chain {ms(0.6 * bw - bare)} over bare")
PY
