#!/usr/bin/env bash
# hash-verdicts.bash SHARNESS-EXEC EXPECTED.TSV CASE-DIR TMP-DIR
#
# Runs `SHARNESS-EXEC hash` over every case of EXPECTED.TSV, whose lines are
#   NAME <TAB> VERDICT                       (policy-hash, tests/vectors)
#   NAME <TAB> raw|wrapped <TAB> VERDICT     (json-test-suite)
# where VERDICT is sha256:HEX or refused, and "wrapped" means the bytes
# {"v": + the file + }. An accepted case must print exactly VERDICT and
# nothing on stderr, exit 0; a refused one nothing on stdout and exactly one
# line on stderr, exit 125. Prints every disagreement, then
# "N verdicts, M disagreements"; exits 1 if there is any.
#
# A plain script, not a loop inside a bats test: bats' per-command traps make
# 700 iterations take tens of seconds instead of one or two.
set -u
exe=$1 tsv=$2 dir=$3 tmp=$4
n=0 bad=0

while IFS=$'\t' read -r name a b; do
	if [ -n "$b" ]; then form=$a want=$b; else form=raw want=$a; fi
	file=$dir/$name
	if [ "$form" = wrapped ]; then
		{ printf '{"v":'; cat "$file"; printf '}'; } >"$tmp/wrapped"
		file=$tmp/wrapped
	fi
	"$exe" hash "$file" >"$tmp/out" 2>"$tmp/err" && rc=0 || rc=$?
	mapfile -t out <"$tmp/out"
	mapfile -t err <"$tmp/err"
	n=$((n + 1))
	if [ "$want" = refused ]; then
		[ "$rc" = 125 ] && [ ${#out[@]} = 0 ] && [ ${#err[@]} = 1 ] && continue
		echo "$name ($form): want refused (125, one stderr line); got $rc, stdout '${out[*]}', ${#err[@]} stderr line(s): ${err[*]}"
	else
		[ "$rc" = 0 ] && [ ${#out[@]} = 1 ] && [ "${out[0]}" = "$want" ] && [ ${#err[@]} = 0 ] && continue
		echo "$name ($form): want $want; got $rc, stdout '${out[*]}', stderr: ${err[*]}"
	fi
	bad=$((bad + 1))
done <"$tsv"

echo "$n verdicts, $bad disagreements"
[ "$bad" = 0 ]
