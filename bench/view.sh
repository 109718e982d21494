#!/usr/bin/env bash
# bench/view.sh [BUILD-DIR]: what the view step costs, side by side in ONE
# hyperfine run (this machine is noisy: compare ratios, not seconds):
#   bare /bin/true; `bwrap --unshare-all` with the binds of the policy below
#   (read /etc, exec /usr and the merged-/usr links, write /tmp, --dev /dev,
#   --proc /proc); the full chain `sharness-exec run` (netns -> view ->
#   landlock) with that policy; the view helper alone with those paths, and
#   with 32 more read paths (directories of /usr/share, each a bind of its
#   own since its flags differ from /usr's), whose difference over 32 is the
#   cost of one bound path.
# Aim (issue 14): the full chain at most 0.6 x bwrap. A benchmark, never a
# test. Needs root (bwrap --unshare-all as root needs no user namespace).
set -euo pipefail
build=$(cd "${1:-.}" && pwd)
fe=$build/test-sharness-exec
view=$build/sharness-exec-view
# `make` rebuilds the helpers but not test-sharness-exec (a check program):
# an old front end with new helpers would measure a chain that no longer
# exists, or fail (one from before the rule paths were resolved hands
# /bin to the landlock step as it is: "Symbolic link loop", 126).
make -s -C "$build" test-sharness-exec sharness-exec-view sharness-exec-netns \
	sharness-exec-supervise sharness-exec-landlock >&2 ||
	{ echo "bench: unable to build in $build" >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "bench: apt-get install hyperfine" >&2; exit 2; }
command -v bwrap >/dev/null || { echo "bench: apt-get install bubblewrap" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/p.json" <<JSON
{"pbp":1,"id":"bench-view","files":{"read":["/etc","/proc","/dev"],
 "exec":["/usr","/bin","/lib","/lib64"],"write":["/tmp"]},
 "network":"none","process":{"no_new_privs":true}}
JSON
chmod 644 "$tmp/p.json"
hash=$("$fe" hash "$tmp/p.json")
# By hand as the front end passes them: the view follows no symlink, so a
# merged-/usr link goes as its resolved path and -s LINK=RESOLVED.
paths="-r /etc -r /proc -r /dev -x /usr -w /tmp"
for d in /bin /lib /lib64; do
	if [ -L "$d" ]; then
		paths="$paths -x $(realpath "$d") -s $d=$(realpath "$d")"
	elif [ -d "$d" ]; then
		paths="$paths -x $d"
	fi
done
more=
n=0
for d in /usr/share/*/; do
	[ "$n" -lt 32 ] || break
	more="$more -r ${d%/}"
	n=$((n + 1))
done
[ "$n" = 32 ] || { echo "bench: fewer than 32 directories in /usr/share" >&2; exit 2; }

cd /
hyperfine -N --warmup 20 --runs "${RUNS:-200}" --export-json "$tmp/r.json" \
	-n bare '/bin/true' \
	-n bwrap-unshare-all 'bwrap --unshare-all --ro-bind /etc /etc --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 --bind /tmp /tmp --dev /dev --proc /proc /bin/true' \
	-n sharness-exec "$fe run -p $tmp/p.json -H $hash -- /bin/true" \
	-n view-alone "$view $paths -- /bin/true" \
	-n view-alone+32 "$view $paths $more -- /bin/true" >&2

python3 - "$tmp/r.json" <<'PY'
import json, sys
r = {x["command"]: x["mean"] for x in json.load(open(sys.argv[1]))["results"]}
bare, bw = r["bare"], r["bwrap-unshare-all"]
for name, mean in r.items():
    print(f"{name:24s} {mean*1e3:8.3f} ms   {mean/bare:6.2f} x bare   {mean/bw:6.2f} x bwrap")
print(f"aim: sharness-exec at most 0.6 x bwrap --unshare-all: {r['sharness-exec']/bw:.2f}")
print(f"one bound path: {(r['view-alone+32'] - r['view-alone'])/32*1e6:.1f} us")
PY
