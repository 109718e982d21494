#!/bin/sh
# tests/valgrind.sh [TOP_SRCDIR [BUILDDIR]]: the front end under valgrind's
# memcheck over every test vector there is, `hash FILE` and `check FILE`:
# no invalid read or write, no use of uninitialised memory, no definite or
# indirect leak, and a status of 0 or 125 (never a crash). The directories
# default to $top_srcdir and $top_builddir, as in make check.
#
# `hash` runs on every vector; `check` on every one that `hash` accepts: on
# the others both stop at the same refusal of the same parser, and a
# valgrind run costs half a second. VALGRIND_ALL=1 runs `check` on all.
#
# Vectors: ../shared/policy-hash/vectors (when present), the JSONTestSuite
# parsing cases of ../shared/json-test-suite wrapped as {"v": ...} (so each
# reaches the value grammar; raw, only those that are objects: the rest is
# refused at the first byte, a path the wrapped ones cover), tests/vectors,
# tests/fixtures/policy, tests/golden and fuzz/regress. Two at a time
# (xargs -P2). Ends with "N passed, N failed"; exit 1 on any failure.
set -eu
top=$(cd "${1:-${top_srcdir:?give TOP_SRCDIR}}" && pwd)
build=$(cd "${2:-${top_builddir:?give BUILDDIR}}" && pwd)
fe=$build/sharness-exec
shared=$top/../shared
command -v valgrind >/dev/null || { echo "valgrind.sh: valgrind is not installed" >&2; exit 2; }
[ -x "$fe" ] || { echo "valgrind.sh: $fe is not built" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/sharness-exec-valgrind.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/wrapped" "$work/out"
list=$work/list

{
	for f in "$shared"/policy-hash/vectors/*.json "$top"/tests/vectors/* \
	         "$top"/tests/fixtures/policy/*/*.json "$top"/tests/golden/*.json \
	         "$top"/fuzz/regress/*; do
		[ -f "$f" ] && printf '%s\n' "$f"
	done
	for f in "$shared"/json-test-suite/test_parsing/*; do
		[ -f "$f" ] || continue
		w=$work/wrapped/$(basename "$f")
		{ printf '{"v":'; cat "$f"; printf '}'; } >"$w"
		printf '%s\n' "$w"
		# tr keeps the first non-blank byte; JSON's blanks are these four.
		[ "$(tr -d ' \t\r\n' <"$f" | head -c1)" = "{" ] && printf '%s\n' "$f"
	done
} >"$list"
# File names here hold no newline; some hold spaces and quotes.
n=$(wc -l <"$list")
echo "valgrind.sh: $n vectors, under valgrind"

# One run: CMD FILE; prints "PASS ..." or "FAIL ..." and keeps the log.
cat >"$work/one.sh" <<'ONE'
fe=$1 out=$2 cmd=$3 f=$4
log=$out/$(printf '%s %s' "$cmd" "$f" | cksum | cut -d' ' -f1).log
rc=0
valgrind -q --error-exitcode=1 --leak-check=full --read-inline-info=no \
	--errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
	"$fe" "$cmd" "$f" >"$log" 2>&1 || rc=$?
case $rc in
0)     echo "PASS $cmd $f"; rm -f "$log"; echo "ACCEPTED $f" ;;
125)   echo "PASS $cmd $f"; rm -f "$log" ;;
*)     echo "FAIL $cmd $f (status $rc)"; sed 's/^/    /' "$log" ;;
esac
ONE
tr '\n' '\0' <"$list" >"$work/list0"
xargs -0 -n1 -P2 sh "$work/one.sh" "$fe" "$work/out" hash <"$work/list0" >"$work/results" || true
if [ "${VALGRIND_ALL:-0}" = 1 ]; then
	cp "$work/list0" "$work/check0"
else
	sed -n 's/^ACCEPTED //p' "$work/results" | tr '\n' '\0' >"$work/check0"
fi
want=$((n + $(tr -cd '\0' <"$work/check0" | wc -c)))
echo "valgrind.sh: hash on $n, check on $((want - n))"
xargs -0 -n1 -P2 sh "$work/one.sh" "$fe" "$work/out" check <"$work/check0" >>"$work/results" || true
grep '^FAIL\|^    ' "$work/results" || true
pass=$(grep -c '^PASS' "$work/results" || true)
fail=$(grep -c '^FAIL' "$work/results" || true)
[ $((pass + fail)) = "$want" ] || { echo "valgrind.sh: $((want - pass - fail)) runs gave no verdict"; fail=$((want - pass)); }
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
