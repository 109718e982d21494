#!/usr/bin/env bash
# bench/chain.sh [BUILD-DIR]: what the chain costs, side by side in ONE
# hyperfine run (this machine is noisy: compare ratios, not seconds):
#   bare /bin/true, `unshare -n /bin/true`, bwrap doing the same confinement
#   (ro-binds, --unshare-net, --dev /dev, --proc /proc), the landlock helper
#   alone, and `sharness-exec run` with read+exec /usr and /etc, write /tmp,
#   network none (netns + landlock steps), plus the same with caps (limits
#   step and its supervisor).
# Aims (issue 3): full chain below 0.6 x bwrap; the landlock helper alone
# below 1.6 x bare. A benchmark, never a test. Needs root for unshare -n.
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
	-n unshare-n 'unshare -n /bin/true' \
	-n bwrap 'bwrap --ro-bind /usr /usr --ro-bind /etc /etc --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 --bind /tmp /tmp --dev /dev --proc /proc --unshare-net /bin/true' \
	-n landlock-alone "$ll -r /etc $sysx -w /tmp -- /bin/true" \
	-n sharness-exec "$fe run -p $tmp/p.json -H $hash -- /bin/true" \
	-n sharness-exec-caps "$fe run -p $tmp/caps.json -- /bin/true" \
	"${extra[@]}" >&2

python3 - "$tmp/r.json" <<'PY'
import json, sys
r = {x["command"]: x["mean"] for x in json.load(open(sys.argv[1]))["results"]}
bare, bw = r["bare"], r["bwrap"]
for name, mean in r.items():
    print(f"{name:32s} {mean*1e3:8.3f} ms   {mean/bare:6.2f} x bare   {mean/bw:6.2f} x bwrap")
print(f"aim: sharness-exec below 0.6 x bwrap: {r['sharness-exec']/bw:.2f}")
print(f"aim: landlock helper alone below 1.6 x bare: {r['landlock-alone']/bare:.2f}")
PY
