#!/usr/bin/env bash
# bench/explain.sh [BUILD-DIR [BEFORE-DIR]]: what `run --explain` costs on a
# file-heavy run, in ONE hyperfine run (compare ratios, not seconds; this
# machine is noisy): the examples' C sources compiled three times by cc
# (headers opened and probed, cc1, as and collect2 executed) bare,
# confined, and confined with --explain, whose observer stops every
# path-taking call twice (its seccomp stop and its exit stop), in a step of
# its own, sharness-exec-explain: one fork and exec more. A plain run has no
# observer (tests/step/explainstep.bats holds that it has no such step): its cost
# is the chain's (bench/chain.sh). BEFORE-DIR, a build of a tree from
# before --explain (6874e77~1, say), adds that build's plain confined run to
# the same hyperfine run, to show a plain run costs what it cost then. A
# benchmark, never a test.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bench_init "${1:-.}" test-sharness-exec sharness-exec-landlock sharness-exec-supervise \
	sharness-exec-netns sharness-exec-view sharness-exec-explain
fe=$build/test-sharness-exec
before=()
if [ -n "${2:-}" ]; then
	old=$(cd "$2" && pwd)
	[ -x "$old/test-sharness-exec" ] || { echo "bench: build $old/test-sharness-exec first" >&2; exit 2; }
fi
command -v cc >/dev/null || { echo "bench: needs a C compiler (cc)" >&2; exit 2; }
cp -r "$here/../examples/src" "$TMP/src"
chmod 755 "$TMP"
cat >"$TMP/p.json" <<JSON
{"pbp":1,"id":"bench-explain","files":{"read":["/etc"],"exec":["/usr","/bin","/lib","/lib64"],
 "write":["$TMP","/dev/null"]},"network":"none","process":{"no_new_privs":true}}
JSON
chmod 644 "$TMP/p.json"
build_it="/bin/sh -c 'cd $TMP/src && for i in 1 2 3; do cc -O2 -c sum.c test-sum.c test-home.c; done'"

[ -z "${old:-}" ] || before=(before "$old/test-sharness-exec run -p $TMP/p.json -- $build_it")

cd /
bench_run \
	bare "$build_it" \
	confined "$fe run -p $TMP/p.json -- $build_it" \
	explain "$fe run --explain -p $TMP/p.json -- $build_it" \
	"${before[@]}"

bench_table confined
bench_py <<'PY'
print(f"--explain over a plain confined run: {R['explain']/R['confined']:.2f} x")
if "before" in R:
    print(f"a plain confined run over the same run before --explain: {R['confined']/R['before']:.2f} x")
PY
