#!/usr/bin/env bash
# bench/writepath.sh [BUILD-DIR]: what a write path's size costs a run
# (issue 38), in ONE interleaved run (bench/interleave, round-robin; this
# machine is noisy: compare ratios, not seconds): `sharness-exec run --
# /bin/true` under a policy writing a directory of 10, 10,000 and 100,000
# entries (empty files, mode 0644), on the root file system (set-id can
# take effect there: the view stats each regular file) and on a tmpfs
# mounted nosuid (no stat: the listing alone); beside each, bwrap binding
# the same tree read-write, and the walk's floor (bench/walkfloor: a
# listing of the tree; a listing and one statx per entry).
# Aims (issue 38): at 100,000 entries on the root file system, the run
# costs at most the 10-entry run plus 1.2 x the floor of a listing and a
# statx per entry; on the nosuid tmpfs at most 1.1 x the 10-entry run
# (below Landlock ABI 9 the view still lists the tree for sockets and VCS
# metadata: there the aim is the 10-entry run plus the listing's floor).
# BENCH_BEFORE=BUILD-DIR adds an older build's front end (with its own
# helpers) at 10 and 100,000 entries to the same run: a before and after.
# RUNS (default 30) runs of each. A benchmark, never a test. Needs root.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
: "${BENCH_INTERLEAVE:=1}"
: "${RUNS:=30}"
bench_init "${1:-.}" test-sharness-exec sharness-exec-view bench/walkfloor bench/interleave
fe=$build/test-sharness-exec
wf=$build/bench/walkfloor
[ "$(id -u)" = 0 ] || { echo "bench: needs root (a tmpfs is mounted nosuid)" >&2; exit 2; }

mkdir "$TMP/root" "$TMP/tmpfs"
mount -t tmpfs -o nosuid,nodev,size=256m,nr_inodes=400000 bench "$TMP/tmpfs"
trap 'umount "$TMP/tmpfs"; rm -rf "$TMP"' EXIT
sizes="10 10000 100000"
args=(bare /bin/true)
bf=
if [ -n "${BENCH_BEFORE:-}" ]; then
	bf=$(cd "$BENCH_BEFORE" && pwd)/test-sharness-exec
	[ -x "$bf" ] || { echo "bench: no $bf" >&2; exit 2; }
fi
for fs in root tmpfs; do
	for n in $sizes; do
		d=$TMP/$fs/$n
		mkdir "$d"
		python3 -c 'import os, sys
for i in range(int(sys.argv[2])):
    os.close(os.open(f"{sys.argv[1]}/f{i}", os.O_CREAT | os.O_WRONLY, 0o644))' "$d" "$n"
		cat >"$TMP/$fs-$n.json" <<JSON
{"pbp":1,"id":"bench-writepath","files":{"read":["/etc"],"exec":["/usr","/bin","/lib","/lib64"],"write":["$d"]},
 "network":"none","process":{"no_new_privs":true}}
JSON
		chmod 644 "$TMP/$fs-$n.json"
		args+=("se-$fs-$n" "$fe run -p $TMP/$fs-$n.json -- /bin/true"
			"bwrap-$fs-$n" "bwrap --unshare-all --die-with-parent --ro-bind /usr /usr --ro-bind /etc /etc --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 --bind $d $d --dev /dev --proc /proc /bin/true"
			"list-$fs-$n" "$wf $d /bin/true"
			"stat-$fs-$n" "$wf -s $d /bin/true")
		[ -z "$bf" ] || [ "$n" = 10000 ] || args+=("before-$fs-$n" "$bf run -p $TMP/$fs-$n.json -- /bin/true")
	done
done

cd /
bench_run "${args[@]}"
bench_table bare
SIZES=$sizes bench_py <<'PY'
import os
bare = R['bare']
ms = lambda x: f"{x*1e3:7.1f} ms"
sizes = os.environ['SIZES'].split()
for fs in ("root", "tmpfs"):
    small = R[f"se-{fs}-{sizes[0]}"]
    print(f"{fs}{' (set-id possible: a stat per file)' if fs == 'root' else ' (nosuid: a listing)'}:")
    for n in sizes:
        se, bw = R[f"se-{fs}-{n}"], R[f"bwrap-{fs}-{n}"]
        lf, sf = R[f"list-{fs}-{n}"] - bare, R[f"stat-{fs}-{n}"] - bare
        floor = sf if fs == "root" else lf
        over = se - small
        print(f"  {int(n):7d} entries: run {ms(se)} ({se/small:5.2f} x the {sizes[0]}-entry run, "
              f"{se/bw:5.2f} x bwrap {ms(bw)}); over the small run {ms(over)}, "
              f"floor list {ms(lf)} list+statx {ms(sf)}: {over/floor if floor > 0 else float('nan'):5.2f} x its floor")
n = sizes[-1]
for fs in ("root", "tmpfs"):
    if f"before-{fs}-{n}" in R:
        b, a = R[f"before-{fs}-{n}"], R[f"se-{fs}-{n}"]
        print(f"before, {fs}: {ms(R[f'before-{fs}-{sizes[0]}'])} at {sizes[0]}, {ms(b)} at {n}; "
              f"now {ms(a)}: {a/b:.2f} x before")
print(f"aim: root at {n}: at most the small run + 1.2 x the list+statx floor: "
      f"{(R[f'se-root-{n}'] - R[f'se-root-{sizes[0]}']) / (R[f'stat-root-{n}'] - bare):.2f} x")
print(f"aim: nosuid tmpfs at {n}: at most 1.1 x the small run: "
      f"{R[f'se-tmpfs-{n}'] / R[f'se-tmpfs-{sizes[0]}']:.2f} x "
      f"(below ABI 9 the listing stays: over the small run "
      f"{(R[f'se-tmpfs-{n}'] - R[f'se-tmpfs-{sizes[0]}']) / (R[f'list-tmpfs-{n}'] - bare):.2f} x the listing's floor)")
PY
