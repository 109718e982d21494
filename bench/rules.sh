#!/usr/bin/env bash
# bench/rules.sh [BUILD-DIR]: what one read rule costs end to end, at
# 1,000 and 10,000 rules (each a directory of its own, siblings, so that
# each is a bind of its own), one hyperfine run a size, each command with
# no extra rule and with N (this machine is noisy: compare within a run):
#   `sharness-exec run` with the policy of bench/chain.sh plus N read
#   rules; bwrap --unshare-all with the same binds plus N --ro-bind (at
#   1,000 only: bwrap refuses more than 9,000 arguments); the
#   bind-only floor (bench/floor: a mount namespace, each path one
#   open_tree, mount_setattr and move_mount); Landlock's own cost a rule
#   (bench/floor -P -l: the rules alone, no mount namespace) and the
#   landlock helper's; and what the front end's socket scan reads a rule
#   below Landlock ABI 9 (bench/floor -S -P: each read directory opened
#   and read to its end), which the bind floor leaves out.
# Per rule: (time with N - time without) / N. Aim (issue 27): sharness-exec
# within 2 x the bind floor at both sizes, and ahead of bwrap.
# BENCH_INTERLEAVE=1 as in bench/lib.sh. BENCH_BEFORE=BUILD-DIR: that
# build's front end too (its own helpers), with the same policies, in the
# same run: a before and after. RUNS_1000 (default 30) and RUNS_10000 (default 5) runs a command; SIZES
# (default "1000 10000") the sizes.
# A benchmark, never a test. Needs root.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bench_init "${1:-.}" test-sharness-exec sharness-exec-landlock sharness-exec-netns \
	sharness-exec-supervise sharness-exec-view bench/floor bench/interleave
fe=$build/test-sharness-exec
ll=$build/sharness-exec-landlock
fl=$build/bench/floor
bf=
if [ -n "${BENCH_BEFORE:-}" ]; then
	bf=$(cd "$BENCH_BEFORE" && pwd)/test-sharness-exec
	[ -x "$bf" ] || { echo "bench: no $bf" >&2; exit 2; }
fi
mkdir "$TMP/w" "$TMP/r"
fbind="-r /etc -x /usr -w $TMP/w"
bwbind="--ro-bind /usr /usr --ro-bind /etc /etc --bind $TMP/w $TMP/w"
for d in /bin /lib /lib64; do
	if [ -L "$d" ]; then
		fbind="$fbind -s $d=$(realpath "$d")"
		bwbind="$bwbind --symlink $(readlink "$d") $d"
	fi
done
policy() { # N: the policy with N extra read rules
	local i sep=
	printf '{"pbp":1,"id":"rules","files":{"exec":["/usr","/bin","/lib","/lib64"],"write":["%s"],"read":["/etc"' "$TMP/w"
	for ((i = 0; i < $1; i++)); do printf ',"%s/r/%d"' "$TMP" "$i"; done
	printf ']},"network":"none","process":{"no_new_privs":true}}\n'
}
cd /
for n in ${SIZES:-1000 10000}; do
	for ((i = $(find "$TMP/r" -mindepth 1 -maxdepth 1 | wc -l); i < n; i++)); do
		mkdir "$TMP/r/$i"
	done
	policy 0 >"$TMP/p0.json"
	policy "$n" >"$TMP/p$n.json"
	chmod 644 "$TMP"/p*.json
	h0=$("$fe" hash "$TMP/p0.json")
	hn=$("$fe" hash "$TMP/p$n.json")
	rr= br=
	for ((i = 0; i < n; i++)); do
		rr="$rr -r $TMP/r/$i"
		br="$br --ro-bind $TMP/r/$i $TMP/r/$i"
	done
	# Each command through floor -f, its arguments in a file (a command
	# of 10,000 rules is more than the kernel's 128 KiB for one argument).
	cmd() { # NAME ARGS...: the file for NAME
		local f=$TMP/cmd-$1
		shift
		printf '%s\n' $* >"$f"
		echo "$fl -f $f"
	}
	# bwrap refuses more than 9,000 arguments (3 a bind): not at 10,000.
	bw=()
	[ "$n" -gt 2990 ] || bw=(bwrap-0 "$(cmd bw0 "bwrap --unshare-all --die-with-parent $bwbind --dev /dev --proc /proc /bin/true")"
		bwrap-n "$(cmd bwn "bwrap --unshare-all --die-with-parent $bwbind$br --dev /dev --proc /proc /bin/true")")
	before=()
	[ -z "$bf" ] || before=(before-0 "$(cmd bf0 "$bf run -p $TMP/p0.json -H $h0 -- /bin/true")"
		before-n "$(cmd bfn "$bf run -p $TMP/p$n.json -H $hn -- /bin/true")")
	echo "== $n read rules" >&2
	RUNS=$(eval echo "\${RUNS_$n:-}")
	: "${RUNS:=$([ "$n" = 1000 ] && echo 30 || echo 5)}"
	RUNS=$RUNS bench_run \
		bare "$(cmd bare /bin/true)" \
		sharness-exec-0 "$(cmd sx0 "$fe run -p $TMP/p0.json -H $h0 -- /bin/true")" \
		sharness-exec-n "$(cmd sxn "$fe run -p $TMP/p$n.json -H $hn -- /bin/true")" \
		"${before[@]}" \
		"${bw[@]}" \
		floor-binds-0 "$(cmd fb0 "$fl $fbind -- /bin/true")" \
		floor-binds-n "$(cmd fbn "$fl $fbind$rr -- /bin/true")" \
		floor-landlock-0 "$(cmd fl0 "$fl -P -l -r /etc -x /usr -w $TMP/w -- /bin/true")" \
		floor-landlock-n "$(cmd fln "$fl -P -l -r /etc -x /usr -w $TMP/w$rr -- /bin/true")" \
		landlock-0 "$(cmd ll0 "$ll -r /etc -x /usr -w $TMP/w -- /bin/true")" \
		landlock-n "$(cmd lln "$ll -r /etc -x /usr -w $TMP/w$rr -- /bin/true")" \
		floor-scan-0 "$(cmd fs0 "$fl -S -P -r /etc -x /usr -w $TMP/w -- /bin/true")" \
		floor-scan-n "$(cmd fsn "$fl -S -P -r /etc -x /usr -w $TMP/w$rr -- /bin/true")"
	N=$n bench_py <<'PY'
import os
n = int(os.environ['N'])
per = lambda k: (R[k + '-n'] - R[k + '-0']) / n
fb = per('floor-binds')
print(f"{n} read rules, per rule:")
for k, what in (('sharness-exec', 'sharness-exec run (bind and Landlock rule)'),
                ('before', 'the same, BENCH_BEFORE\'s build'),
                ('bwrap', 'bwrap --ro-bind (it refuses more than 9,000 arguments)'),
                ('floor-binds', 'floor: one bind'),
                ('floor-landlock', 'floor: one Landlock rule (no bind)'),
                ('landlock', 'the landlock helper alone (no bind)'),
                ('floor-scan', 'floor: the socket scan\'s read of a directory (below ABI 9)')):
    if k + '-n' not in R:
        print(f"  {'-':>8s}     {'':5s}                      {what}")
        continue
    print(f"  {per(k)*1e6:8.1f} us  {per(k)/fb:5.2f} x the bind floor  {what}")
import ctypes
abi = ctypes.CDLL(None, use_errno=True).syscall(444, None, 0, 1)
sx, fs = per('sharness-exec'), per('floor-scan')
print(f"Landlock ABI {abi}: " + (f"the socket scan reads each read directory; beside the bind "
      f"floor plus that read: {sx/(fb + fs):.2f} x" if 0 < abi < 9 else "no socket scan"))
print(f"aim: sharness-exec within 2 x the bind floor: {per('sharness-exec')/fb:.2f}" +
      (f"; ahead of bwrap: {per('sharness-exec')/per('bwrap'):.2f} x bwrap" if 'bwrap-n' in R else ""))
PY
done
