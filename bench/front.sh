#!/usr/bin/env bash
# bench/front.sh [BUILD-DIR]: what the front end alone costs, from its exec
# to its exec of the first helper: test-sharness-exec, copied beside
# helpers that are a static program which only exits (the test front end
# finds its helpers beside itself), run with bench/chain.sh's policy, in
# ONE run beside that program alone ("bare": a fork, an exec, an exit)
# and beside `run --dry-run` (the same work but the socket scan and the
# exec). BENCH_BEFORE=BUILD-DIR adds an older build's front end. Needs
# musl-gcc (or cc) for the stub. A benchmark, never a test.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bench_init "${1:-.}" test-sharness-exec bench/interleave

# fake DIR FRONT-END: FRONT-END in DIR, with the stub as each helper.
fake() {
	mkdir -p "$1"
	cp "$2" "$1/test-sharness-exec"
	for h in netns supervise limits view landlock; do
		cp "$TMP/stub" "$1/sharness-exec-$h"
	done
}
printf 'int main(void) { return 0; }\n' >"$TMP/stub.c"
"$(command -v musl-gcc || echo cc)" -static -O2 -o "$TMP/stub" "$TMP/stub.c"
fake "$TMP/after" "$build/test-sharness-exec"
mkdir "$TMP/w"
cat >"$TMP/p.json" <<JSON
{"pbp":1,"id":"bench","files":{"read":["/etc"],"exec":["/usr","/bin","/lib","/lib64"],"write":["$TMP/w"]},
 "network":"none","process":{"no_new_privs":true}}
JSON
chmod 644 "$TMP/p.json"
hash=$("$build/test-sharness-exec" hash "$TMP/p.json")
args="run -p $TMP/p.json -H $hash -- /bin/true"
before=()
if [ -n "${BENCH_BEFORE:-}" ]; then
	fake "$TMP/before" "$(cd "$BENCH_BEFORE" && pwd)/test-sharness-exec"
	before=(before "$TMP/before/test-sharness-exec $args"
		before-dry "$TMP/before/test-sharness-exec ${args/run/run -n}")
fi

cd /
bench_run bare "$TMP/stub" \
	front-end "$TMP/after/test-sharness-exec $args" \
	dry-run "$TMP/after/test-sharness-exec ${args/run/run -n}" \
	"${before[@]}"
bench_table bare
bench_py <<'PY'
st = R['bare']
print(f"the front end over the stub (bare): {(R['front-end'] - st) * 1e6:.0f} us; "
      f"its dry run: {(R['dry-run'] - st) * 1e6:.0f} us")
if 'before' in R:
    print(f"before: {(R['before'] - st) * 1e6:.0f} us, dry run {(R['before-dry'] - st) * 1e6:.0f} us; "
          f"now {(R['front-end'] - st) / (R['before'] - st):.2f} x before")
PY
