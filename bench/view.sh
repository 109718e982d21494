#!/usr/bin/env bash
# bench/view.sh [BUILD-DIR]: what the view step costs, side by side in ONE
# hyperfine run (this machine is noisy: compare ratios, not seconds):
#   bare /bin/true; `bwrap --unshare-all` with the binds of the policy below
#   (read /etc, exec /usr and the merged-/usr links, write /tmp, --dev /dev,
#   --proc /proc); the full chain `sharness-exec run` (netns -> supervise ->
#   view -> landlock) with that policy; the view helper alone with those
#   paths, and with 32 more read paths (directories of /usr/share, each a
#   bind of its own since its flags differ from /usr's), whose difference
#   over 32 is the cost of one bound path.
# Aim (issue 14): the full chain at most 0.6 x bwrap. A benchmark, never a
# test. Needs root (bwrap --unshare-all as root needs no user namespace).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bench_init "${1:-.}" test-sharness-exec sharness-exec-view
fe=$build/test-sharness-exec
view=$build/sharness-exec-view

cat >"$TMP/p.json" <<JSON
{"pbp":1,"id":"bench-view","files":{"read":["/etc","/proc","/dev"],
 "exec":["/usr","/bin","/lib","/lib64"],"write":["/tmp"]},
 "network":"none","process":{"no_new_privs":true}}
JSON
chmod 644 "$TMP/p.json"
hash=$("$fe" hash "$TMP/p.json")
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
bench_run \
	bare '/bin/true' \
	bwrap-unshare-all 'bwrap --unshare-all --ro-bind /etc /etc --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 --bind /tmp /tmp --dev /dev --proc /proc /bin/true' \
	sharness-exec "$fe run -p $TMP/p.json -H $hash -- /bin/true" \
	view-alone "$view $paths -- /bin/true" \
	view-alone+32 "$view $paths $more -- /bin/true"

bench_table bwrap-unshare-all
bench_py <<'PY'
print(f"aim: sharness-exec at most 0.6 x bwrap --unshare-all: {R['sharness-exec']/R['bwrap-unshare-all']:.2f}")
print(f"one bound path: {(R['view-alone+32'] - R['view-alone'])/32*1e6:.1f} us")
PY
