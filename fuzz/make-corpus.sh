#!/bin/sh
# make-corpus.sh TOP_SRCDIR OUTDIR: gather the seed corpus of the fuzzers
# from every test vector there is, one file per distinct input (named by its
# SHA-1, so running it twice adds nothing):
#   ../shared/policy-hash/vectors/*.json        (when present)
#   ../shared/json-test-suite/test_parsing/*     raw, and wrapped as {"v": ...}
#   tests/vectors/*, tests/fixtures/{policy,manifest}/*/*.json, tests/golden/*.json
#   fuzz/regress/*                               (inputs that once failed)
# The wrapped JSONTestSuite cases matter most: raw, most are not objects and
# stop at the first byte; wrapped, every one reaches the value grammar.
set -eu
[ $# = 2 ] || { echo "usage: make-corpus.sh TOP_SRCDIR OUTDIR" >&2; exit 2; }
top=$1 out=$2
shared=$top/../shared
mkdir -p "$out"

add() { # FILE: copy FILE into OUT under its content hash
	sum=$(sha1sum <"$1" | cut -c1-40)
	[ -e "$out/$sum" ] || cp "$1" "$out/$sum"
}

for f in "$shared"/policy-hash/vectors/*.json \
         "$top"/tests/vectors/* \
         "$top"/tests/fixtures/policy/*/*.json \
         "$top"/tests/fixtures/manifest/*/*.json \
         "$top"/tests/golden/*.json \
         "$top"/fuzz/regress/*; do
	[ -f "$f" ] && add "$f"
done

wrapped=$(mktemp)
trap 'rm -f "$wrapped"' EXIT
for f in "$shared"/json-test-suite/test_parsing/*; do
	[ -f "$f" ] || continue
	add "$f"
	{ printf '{"v":'; cat "$f"; printf '}'; } >"$wrapped"
	add "$wrapped"
done
echo "make-corpus.sh: $(ls "$out" | wc -l) seeds in $out"
