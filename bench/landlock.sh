#!/bin/sh
# Benchmark: what sharness-exec-landlock costs. (1) The helper alone, with
# the one rule /bin/true needs, against bare /bin/true (aim: below 1.6x).
# (2) The cost of each path rule: the same run with 10, 100, 1,000 and
# 10,000 extra -r rules on distinct directories, minus the run with none,
# divided by the count (aim: under 3 us a path). A benchmark, not a test.
#
#   bench/landlock.sh [PATH-TO-sharness-exec-landlock]
#                     (default: ./sharness-exec-landlock)
set -eu

ll=${1:-./sharness-exec-landlock}
[ -x "$ll" ] || { echo "bench/landlock.sh: no executable $ll (give its path)" >&2; exit 2; }
ll=$(cd "$(dirname "$ll")" && pwd)/$(basename "$ll")
command -v hyperfine >/dev/null || { echo "bench/landlock.sh: hyperfine is not installed" >&2; exit 2; }
command -v jq >/dev/null || { echo "bench/landlock.sh: jq is not installed" >&2; exit 2; }
"$ll" -x /usr -- /bin/true || { echo "bench/landlock.sh: $ll cannot run here (no Landlock?)" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sharness-exec-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir "$tmp/p"
(cd "$tmp/p" && seq 10000 | xargs mkdir)

# The system's own dirs for the loader: -x /usr alone where /lib and /bin
# are symlinks into it (merged /usr), else those too.
base="-x /usr"
for d in /lib /lib64 /bin; do
	[ -d "$d" ] && [ ! -L "$d" ] && base="$base -x $d"
done
# Short relative paths, run from $tmp/p: hyperfine gets each command as one
# string, and one string may not exceed 128 KiB (MAX_ARG_STRLEN).
rules() {
	seq "$1" | sed 's|^|-r |' | tr '\n' ' '
}
cd "$tmp/p"

# "exec only" is the helper printing its usage: the cost of its exec alone,
# which no code inside it can save.
hyperfine -N --warmup 50 --min-runs 300 --export-json "$tmp/alone.json" \
	-n bare "/bin/true" \
	-n helper "$ll $base -- /bin/true" \
	-n "exec only" "$ll -h"

hyperfine -N --warmup 10 --min-runs 100 --export-json "$tmp/rules.json" \
	-n 0 "$ll $base -- /bin/true" \
	-n 10 "$ll $base $(rules 10) -- /bin/true" \
	-n 100 "$ll $base $(rules 100) -- /bin/true" \
	-n 1000 "$ll $base $(rules 1000) -- /bin/true" \
	-n 10000 "$ll $base $(rules 10000) -- /bin/true"

echo
# Mean, median and min: on a busy machine the mean drifts with the load,
# and for the small counts only the min sees past the noise.
jq -r '.results as $r | $r[1:][] as $x | ["mean", "median", "min"][] as $s |
	"\($x.command) / bare /bin/true (\($s)): \(($x[$s] / $r[0][$s] * 100 | round) / 100)x (\($x[$s] * 1e6 | round) us vs \($r[0][$s] * 1e6 | round) us)"' \
	"$tmp/alone.json"
jq -r '.results as $r | $r[1:][] | . as $x | ["mean", "median", "min"][] as $s |
	"\($x.command) paths (\($s)): \(((($x[$s] - $r[0][$s]) / ($x.command | tonumber)) * 1e7 | round) / 10) us a path (\($x[$s] * 1e6 | round) us a run)"' \
	"$tmp/rules.json"
