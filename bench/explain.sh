#!/usr/bin/env bash
# bench/explain.sh [BUILD-DIR]: what `run --explain` costs on a file-heavy
# run, in ONE hyperfine run (compare ratios, not seconds; this machine is
# noisy): the examples' C sources compiled three times by cc (headers
# opened, cc1, as and collect2 executed) bare, confined, and confined with
# --explain, whose observer stops every path-taking call twice (its
# seccomp stop and its exit stop). A plain run has no observer: its cost
# is the chain's (bench/chain.sh). A benchmark, never a test.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bench_init "${1:-.}" test-sharness-exec sharness-exec-landlock sharness-exec-supervise \
	sharness-exec-netns sharness-exec-view
fe=$build/test-sharness-exec
command -v cc >/dev/null || { echo "bench: needs a C compiler (cc)" >&2; exit 2; }
cp -r "$here/../examples/src" "$TMP/src"
chmod 755 "$TMP"
cat >"$TMP/p.json" <<JSON
{"pbp":1,"id":"bench-explain","files":{"read":["/etc"],"exec":["/usr","/bin","/lib","/lib64"],
 "write":["$TMP","/dev/null"]},"network":"none","process":{"no_new_privs":true}}
JSON
chmod 644 "$TMP/p.json"
build_it="/bin/sh -c 'cd $TMP/src && for i in 1 2 3; do cc -O2 -c sum.c test-sum.c test-home.c; done'"

cd /
bench_run \
	bare "$build_it" \
	confined "$fe run -p $TMP/p.json -- $build_it" \
	explain "$fe run --explain -p $TMP/p.json -- $build_it"

bench_table confined
bench_py <<'PY'
print(f"--explain over a plain confined run: {R['explain']/R['confined']:.2f} x")
PY
