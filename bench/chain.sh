#!/usr/bin/env bash
# bench/chain.sh [BUILD-DIR]: what the chain costs, side by side in ONE
# hyperfine run (this machine is noisy: compare ratios, not seconds):
#   bare /bin/true; plain `unshare` (network, IPC and pid namespaces, with
#   the fork a pid namespace needs); `bwrap --unshare-all --die-with-parent`
#   with the same binds as the policy (ro /usr /etc, rw /tmp, --dev, --proc);
#   the landlock helper alone; the supervise helper alone, with its pid
#   namespace and without one (under tests/try/deny-unshare, measured
#   against deny-unshare alone); and `sharness-exec run` with read /etc,
#   exec /usr /bin /lib /lib64, write /tmp, network none (netns, supervise
#   and landlock steps), plus the same with caps (supervise's cgroup and the
#   limits step).
# Aims (issues 3, 11): full chain at most 0.6 x bwrap; the landlock helper
# alone below 1.6 x bare. It prints what the pid namespace costs (supervise
# with it minus supervise without it) and what the supervise step costs on
# top of a bare exec. A benchmark, never a test. Needs root for unshare.
#
# bench/chain.sh BUILD-DIR OTHER-BUILD-DIR...: the helper and the chain of
# each other build too, in the same run, named after its directory: how a
# build links (static with musl, static with glibc, dynamic) is measured
# this way, e.g. against builds configured --without-musl and
# --disable-static-link.
set -euo pipefail
build=$(cd "${1:-.}" && pwd)
shift || true
fe=$build/test-sharness-exec
ll=$build/sharness-exec-landlock
sv=$build/sharness-exec-supervise
deny=$build/tests/try/deny-unshare
[ -x "$deny" ] || { echo "bench: make check builds $deny: build it first" >&2; exit 2; }
for p in "$fe" "$ll"; do [ -x "$p" ] || { echo "bench: build first: $p" >&2; exit 2; }; done
others=()
for o in "$@"; do
	o=$(cd "$o" && pwd)
	for p in "$o/test-sharness-exec" "$o/sharness-exec-landlock"; do
		[ -x "$p" ] || { echo "bench: build first: $p" >&2; exit 2; }
	done
	others+=("$o")
done
command -v hyperfine >/dev/null || { echo "bench: apt-get install hyperfine" >&2; exit 2; }
command -v bwrap >/dev/null || { echo "bench: apt-get install bubblewrap" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/p.json" <<JSON
{"pbp":1,"id":"bench","files":{"read":["/etc"],"exec":["/usr","/bin","/lib","/lib64"],"write":["/tmp"]},
 "network":"none","process":{"no_new_privs":true}}
JSON
cat >"$tmp/caps.json" <<JSON
{"pbp":1,"id":"bench-caps","files":{"read":["/etc"],"exec":["/usr","/bin","/lib","/lib64"],"write":["/tmp"]},
 "network":"none","process":{"no_new_privs":true,"max_memory_mb":512,"max_pids":256}}
JSON
chmod 644 "$tmp"/*.json
hash=$("$fe" hash "$tmp/p.json")
# The landlock step opens rule paths without following symlinks: by hand,
# only the system directories that are not merged-/usr links.
sysx="-x /usr"
for d in /bin /lib /lib64; do
	[ -d "$d" ] && [ ! -L "$d" ] && sysx="$sysx -x $d"
done
extra=()
for o in "${others[@]}"; do
	n=$(basename "$o")
	extra+=(-n "landlock-alone@$n" "$o/sharness-exec-landlock -r /etc $sysx -w /tmp -- /bin/true"
		-n "sharness-exec@$n" "$o/test-sharness-exec run -p $tmp/p.json -H $hash -- /bin/true")
done

hyperfine -N --warmup 20 --runs "${RUNS:-300}" --export-json "$tmp/r.json" \
	-n bare '/bin/true' \
	-n unshare 'unshare --net --ipc --pid --fork /bin/true' \
	-n bwrap 'bwrap --unshare-all --die-with-parent --ro-bind /usr /usr --ro-bind /etc /etc --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 --bind /tmp /tmp --dev /dev --proc /proc /bin/true' \
	-n landlock-alone "$ll -r /etc $sysx -w /tmp -- /bin/true" \
	-n supervise-alone "$sv -- /bin/true" \
	-n deny-unshare-alone "$deny /bin/true" \
	-n supervise-no-pidns "$deny $sv -- /bin/true" \
	-n sharness-exec "$fe run -p $tmp/p.json -H $hash -- /bin/true" \
	-n sharness-exec-caps "$fe run -p $tmp/caps.json -- /bin/true" \
	"${extra[@]}" >&2

python3 - "$tmp/r.json" <<'PY'
import json, sys
r = {x["command"]: x["mean"] for x in json.load(open(sys.argv[1]))["results"]}
bare, bw = r["bare"], r["bwrap"]
for name, mean in r.items():
    print(f"{name:32s} {mean*1e3:8.3f} ms   {mean/bare:6.2f} x bare   {mean/bw:6.2f} x bwrap")
print(f"aim: sharness-exec at most 0.6 x bwrap: {r['sharness-exec']/bw:.2f}")
print(f"aim: landlock helper alone below 1.6 x bare: {r['landlock-alone']/bare:.2f}")
nopid = r["supervise-no-pidns"] - r["deny-unshare-alone"]
print(f"the supervise step (fork of init, fork of the target, one exec more): "
      f"{(r['supervise-alone'] - bare)*1e3:.3f} ms over bare")
print(f"of which the pid namespace: {(r['supervise-alone'] - bare - nopid)*1e3:.3f} ms "
      f"(supervise without one costs {nopid*1e3:.3f} ms over bare)")
PY
