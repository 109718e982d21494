#!/usr/bin/env bash
# bench/writepath.sh [BUILD-DIR]: what a write path's size costs a run
# (issue 38), in ONE interleaved run (bench/interleave, round-robin; this
# machine is noisy: compare ratios, not seconds): `sharness-exec run --
# /bin/true` under a policy writing a directory of 10, 10,000 and 100,000
# entries (empty files, mode 0644), on the root file system (set-id can
# take effect there: the view stats each regular file) and on a tmpfs
# mounted nosuid (no stat: the listing alone); beside each, bwrap binding
# the same tree read-write, and the walk's floor (bench/walkfloor: a
# listing of the tree; on the root file system also a listing and one
# statx per entry).
# Aims (issue 38): at 100,000 entries on the root file system, the run
# costs at most the 10-entry run plus 1.2 x the floor of a listing and a
# statx per entry; on the nosuid tmpfs at most 1.1 x the 10-entry run
# (below Landlock ABI 9, or without files.write_vcs, the view still lists
# the tree for sockets or VCS metadata: there the aim is the 10-entry run
# plus the listing's floor).
# BENCH_BEFORE=BUILD-DIR adds an older build's front end (with its own
# helpers) at 10 and 100,000 entries to the same run: a before and after.
# WRITEPATH_FS (default "root tmpfs") and WRITEPATH_SIZES (default "10
# 10000 100000", the smallest first) pick what is measured;
# WRITEPATH_VCS=1 adds each policy with "write_vcs": true (from ABI 9 a
# nosuid write path is then not walked at all); BENCH_NO_BWRAP=1 leaves
# bwrap out (tests/kernels/bench-writepath.bats, where a guest may lack
# it). RUNS (default 30) runs of each. A benchmark, never a test. Needs
# root.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
: "${BENCH_INTERLEAVE:=1}"
: "${RUNS:=30}"
bench_init "${1:-.}" test-sharness-exec sharness-exec-view bench/walkfloor bench/interleave
fe=$build/test-sharness-exec
wf=$build/bench/walkfloor
[ "$(id -u)" = 0 ] || { echo "bench: needs root (a tmpfs is mounted nosuid)" >&2; exit 2; }

fss=${WRITEPATH_FS:-root tmpfs}
sizes=${WRITEPATH_SIZES:-10 10000 100000}
vcss=
[ "${WRITEPATH_VCS:-}" != 1 ] || vcss=-vcs
mkdir "$TMP/root" "$TMP/tmpfs"
mount -t tmpfs -o nosuid,nodev,size=256m,nr_inodes=400000 bench "$TMP/tmpfs"
trap 'umount "$TMP/tmpfs"; rm -rf "$TMP"' EXIT
args=(bare /bin/true)
bf=
if [ -n "${BENCH_BEFORE:-}" ]; then
	bf=$(cd "$BENCH_BEFORE" && pwd)/test-sharness-exec
	[ -x "$bf" ] || { echo "bench: no $bf" >&2; exit 2; }
fi
for fs in $fss; do
	for n in $sizes; do
		d=$TMP/$fs/$n
		mkdir "$d"
		python3 -c 'import os, sys
for i in range(int(sys.argv[2])):
    os.close(os.open(f"{sys.argv[1]}/f{i}", os.O_CREAT | os.O_WRONLY, 0o644))' "$d" "$n"
		for vcs in '' $vcss; do
			extra=
			[ -z "$vcs" ] || extra=',"write_vcs":true'
			cat >"$TMP/$fs-$n$vcs.json" <<JSON
{"pbp":1,"id":"bench-writepath","files":{"read":["/etc"],"exec":["/usr","/bin","/lib","/lib64"],"write":["$d"]$extra},
 "network":"none","process":{"no_new_privs":true}}
JSON
			chmod 644 "$TMP/$fs-$n$vcs.json"
			args+=("se$vcs-$fs-$n" "$fe run -p $TMP/$fs-$n$vcs.json -- /bin/true")
		done
		[ -n "${BENCH_NO_BWRAP:-}" ] ||
			args+=("bwrap-$fs-$n" "bwrap --unshare-all --die-with-parent --ro-bind /usr /usr --ro-bind /etc /etc --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 --bind $d $d --dev /dev --proc /proc /bin/true")
		args+=("list-$fs-$n" "$wf $d /bin/true")
		# nosuid: the view stats nothing there, and no statx floor
		[ "$fs" = tmpfs ] || args+=("stat-$fs-$n" "$wf -s $d /bin/true")
		[ -z "$bf" ] || [ "$n" = 10000 ] || args+=("before-$fs-$n" "$bf run -p $TMP/$fs-$n.json -- /bin/true")
	done
done

cd /
bench_run "${args[@]}"
bench_table bare
FSS=$fss SIZES=$sizes bench_py <<'PY'
import os
bare = R['bare']
ms = lambda x: f"{x*1e3:7.1f} ms"
sizes = os.environ['SIZES'].split()
fss = os.environ['FSS'].split()
n0, n = sizes[0], sizes[-1]
kinds = [k for k in ("se", "se-vcs") if f"{k}-{fss[0]}-{n0}" in R]
for fs in fss:
    print(f"{fs}{' (set-id possible: a stat per file)' if fs == 'root' else ' (nosuid: no stat)'}:")
    for k in kinds:
        small = R[f"{k}-{fs}-{n0}"]
        print(f"  {'with' if k == 'se-vcs' else 'without'} write_vcs:")
        for m in sizes:
            se, bw = R[f"{k}-{fs}-{m}"], R.get(f"bwrap-{fs}-{m}")
            lf = R[f"list-{fs}-{m}"] - bare
            sf = R[f"stat-{fs}-{m}"] - bare if fs == "root" else None
            floor = sf if fs == "root" else lf
            over = se - small
            print(f"    {int(m):7d} entries: run {ms(se)} ({se/small:5.2f} x the {n0}-entry run"
                  + (f", {se/bw:5.2f} x bwrap {ms(bw)}" if bw else ", no bwrap") + f"); over the small run {ms(over)}, "
                  f"floor list {ms(lf)}" + (f" list+statx {ms(sf)}" if sf is not None else "")
                  + f": {over/floor if floor > 0 else float('nan'):5.2f} x its floor")
    if f"bwrap-{fs}-{n}" in R:
        print(f"  bwrap, which walks nothing: {R[f'bwrap-{fs}-{n}'] / R[f'bwrap-{fs}-{n0}']:.2f} x from "
              f"{n0} to {n} entries (what the tree's size, or the noise, costs any run)")
for fs in fss:
    if f"before-{fs}-{n}" in R:
        b, a = R[f"before-{fs}-{n}"], R[f"se-{fs}-{n}"]
        print(f"before, {fs}: {ms(R[f'before-{fs}-{n0}'])} at {n0}, {ms(b)} at {n}; "
              f"now {ms(a)}: {a/b:.2f} x before")
if "root" in fss:
    for k in kinds:
        print(f"aim: root at {n}{' with write_vcs' if k == 'se-vcs' else ''}: at most the small run + 1.2 x the list+statx floor: "
              f"{(R[f'{k}-root-{n}'] - R[f'{k}-root-{n0}']) / (R[f'stat-root-{n}'] - bare):.2f} x")
if "tmpfs" in fss:
    for k in kinds:
        print(f"aim: nosuid tmpfs at {n}{' with write_vcs' if k == 'se-vcs' else ''}: at most 1.1 x the small run: "
              f"{R[f'{k}-tmpfs-{n}'] / R[f'{k}-tmpfs-{n0}']:.2f} x "
              f"(where the tree is listed, below ABI 9 or for VCS metadata: over the small run "
              f"{(R[f'{k}-tmpfs-{n}'] - R[f'{k}-tmpfs-{n0}']) / (R[f'list-tmpfs-{n}'] - bare):.2f} x the listing's floor)")
PY
