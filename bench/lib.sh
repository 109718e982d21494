# bench/lib.sh: what the benchmarks of the chain share (sourced, not run).
#
#   bench_init BUILD-DIR EXE...   BUILD is the build directory; each EXE
#                                 (relative to it) must be built; hyperfine
#                                 and bwrap must be installed (bwrap not
#                                 with BENCH_NO_BWRAP=1); TMP is a
#                                 temporary directory removed on exit
#   bench_run NAME CMD [NAME CMD]...
#                                 one hyperfine run (-N, warmup 20, $RUNS
#                                 runs, default BENCH_RUNS) of every command,
#                                 its JSON in $TMP/r.json; with
#                                 BENCH_INTERLEAVE=1, bench/interleave's
#                                 round-robin instead (build it first: make
#                                 check builds it), for a busy machine
#   bench_table BASELINE          one line per command: median, x bare, x
#                                 the command named BASELINE
#   bench_py <<PY ... PY          runs the python code on stdin with R, the
#                                 medians in seconds by command name (a
#                                 median, not a mean: on a shared machine a
#                                 few runs that waited for the CPU pull a
#                                 mean far from the rest)
#
# Every figure is a ratio within ONE hyperfine run: this machine is shared
# and noisy, seconds from two runs do not compare.

bench_init() {
	build=$(cd "${1:-.}" && pwd)
	shift
	local p
	# `make` rebuilds the helpers but not test-sharness-exec (a check
	# program): an old front end with new helpers would measure a chain
	# that no longer exists, or fail. Build what is measured first.
	make -s -C "$build" "$@" >&2 ||
		{ echo "bench: unable to build $* in $build" >&2; exit 2; }
	for p in "$@"; do
		[ -x "$build/$p" ] || { echo "bench: build first (make check builds tests/try): $build/$p" >&2; exit 2; }
	done
	command -v hyperfine >/dev/null || { echo "bench: apt-get install hyperfine" >&2; exit 2; }
	[ -n "${BENCH_NO_BWRAP:-}" ] || command -v bwrap >/dev/null ||
		{ echo "bench: apt-get install bubblewrap (or BENCH_NO_BWRAP=1, bench/writepath.sh)" >&2; exit 2; }
	TMP=$(mktemp -d)
	trap 'rm -rf "$TMP"' EXIT
}

bench_run() {
	local args=()
	if [ -n "${BENCH_INTERLEAVE:-}" ]; then
		"$build/bench/interleave" "${RUNS:-${BENCH_RUNS:-200}}" 20 "$TMP/r.json" "$@" >&2
		return
	fi
	while [ $# -gt 0 ]; do
		args+=(-n "$1" "$2")
		shift 2
	done
	hyperfine -N --warmup 20 --runs "${RUNS:-${BENCH_RUNS:-200}}" --export-json "$TMP/r.json" \
		"${args[@]}" >&2
}

bench_py() {
	python3 -c "import json, sys
R = {x['command']: x['median'] for x in json.load(open(sys.argv[1]))['results']}
$(cat)" "$TMP/r.json"
}

bench_table() {
	bench_py <<PY
base = "$1"
w = max(len(n) for n in R)
for name, med in R.items():
    print(f"{name:{w}s} {med*1e3:8.3f} ms   {med/R['bare']:6.2f} x bare   {med/R[base]:6.2f} x {base}")
PY
}
