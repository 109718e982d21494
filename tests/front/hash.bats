#!/usr/bin/env bats
# sharness-exec hash: the canonical hash against the reference's verdicts
# (tests/conformance), against this project's own vectors, and the
# command line: output format, exit statuses, one-line refusals, and bounded
# memory on adversarial input.
#
# not tested: read errors other than EACCES/ENOENT/EISDIR (EIO and the like
# cannot be caused here); a file that grows while it is read (the 1 MiB + 1
# read bound is unit-tested); memory bounds under AddressSanitizer, which
# reserves terabytes of address space (the test says so and skips).
load ../helpers/load

VECTORS="$top_srcdir/tests/vectors"

# verdicts EXPECTED.TSV CASE-DIR MIN: every case of the table, in one plain
# bash process (tests/helpers/hash-verdicts.bash); lists each disagreement.
verdicts() {
	run bash "$BATS_TEST_DIRNAME/../helpers/hash-verdicts.bash" "$SHARNESS_EXEC" "$1" "$2" "$TMP"
	printf '%s\n' "$output"
	[ "$status" = 0 ]
	[ "${lines[-1]%% *}" -ge "$3" ]
}

@test "conformance: the 44 policy-hash vectors of the reference" {
	local dir="$CONFORMANCE/policy-hash"
	[ "$(wc -l <"$dir/expected.tsv")" = 44 ]
	verdicts "$dir/expected.tsv" "$dir/vectors" 44
}

@test "conformance: the JSONTestSuite cases, raw and wrapped as {\"v\":...} (636 verdicts)" {
	local dir="$CONFORMANCE/json-test-suite"
	[ "$(wc -l <"$dir/expected.tsv")" = 636 ]
	verdicts "$dir/expected.tsv" "$dir/test_parsing" 636
}

@test "own vectors: tests/vectors/expected.tsv, produced by the reference" {
	verdicts "$VECTORS/expected.tsv" "$VECTORS" 30
	# Every vector has a verdict.
	[ "$(wc -l <"$VECTORS/expected.tsv")" = "$(ls "$VECTORS"/*.json | wc -l)" ]
}

@test "own vectors: one policy written five ways has one hash; port order counts" {
	local h
	h=$(grep '^policy-full.json' "$VECTORS/expected.tsv" | cut -f2)
	[ "$(grep -c "$h" "$VECTORS/expected.tsv")" = 5 ]
	run -0 --separate-stderr "$SHARNESS_EXEC" hash "$VECTORS/policy-ports-order-matters.json"
	[ "$output" != "$h" ]
}

@test "hash prints sha256:<64 lowercase hex> and a newline, exit 0, nothing on stderr" {
	printf '{"pbp":1,"id":"x","network":"none","process":{"no_new_privs":true}}\n' >"$TMP/p.json"
	"$SHARNESS_EXEC" hash "$TMP/p.json" >"$TMP/out" 2>"$TMP/err"
	[ "$(cat "$TMP/out")" = "$(grep '^policy-minimal.json' "$VECTORS/expected.tsv" | cut -f2)" ]
	[ "$(wc -c <"$TMP/out")" = 72 ]
	grep -Eqx 'sha256:[0-9a-f]{64}' "$TMP/out"
	[ ! -s "$TMP/err" ]
}

@test "hash -: reads standard input, from a file or a pipe, and gives the same hash" {
	local want
	want=$(grep '^policy-full.json' "$VECTORS/expected.tsv" | cut -f2)
	run -0 --separate-stderr "$SHARNESS_EXEC" hash - <"$VECTORS/policy-full.json"
	[ "$output" = "$want" ]
	run -0 --separate-stderr bash -c 'cat "$1" | "$2" hash -' _ "$VECTORS/policy-full.json" "$SHARNESS_EXEC"
	[ "$output" = "$want" ]
}

@test "hash of a named FIFO waits for its writer" {
	mkfifo "$TMP/fifo"
	( sleep 0.2; printf '{"b":1,' ; sleep 0.1; printf '"a":2}' ) >"$TMP/fifo" &
	run -0 --separate-stderr timeout 20 "$SHARNESS_EXEC" hash "$TMP/fifo"
	wait
	printf '{"a":2,"b":1}' >"$TMP/same.json"
	[ "$output" = "$("$SHARNESS_EXEC" hash "$TMP/same.json")" ]
}

@test "hash that cannot write its output: 125 and one line, never a silent success" {
	run -125 --separate-stderr bash -c '"$1" hash "$2" >/dev/full' _ "$SHARNESS_EXEC" "$VECTORS/policy-minimal.json"
	[ "$stderr" = "sharness-exec: fatal: unable to write standard output: No space left on device" ]
	run -125 --separate-stderr bash -c '"$1" hash "$2" >&-' _ "$SHARNESS_EXEC" "$VECTORS/policy-minimal.json"
	[ "$stderr" = "sharness-exec: fatal: unable to write standard output: Bad file descriptor" ]
}

@test "hash with no argument or two: usage, 125" {
	local want="sharness-exec: fatal: hash takes one FILE"$'\n'"usage: sharness-exec hash [--canonical] FILE"
	run -125 --separate-stderr "$SHARNESS_EXEC" hash
	[ "$output" = "" ]
	[ "$stderr" = "$want" ]
	run -125 --separate-stderr "$SHARNESS_EXEC" hash a b
	[ "$stderr" = "$want" ]
	run -125 --separate-stderr "$SHARNESS_EXEC" hash --canonical
	[ "$stderr" = "$want" ]
	run -125 --separate-stderr "$SHARNESS_EXEC" hash --canonical a b
	[ "$stderr" = "$want" ]
}

# refused FILE MESSAGE: exit 125, nothing on stdout, exactly MESSAGE on stderr.
refused() {
	run -125 --separate-stderr "$SHARNESS_EXEC" hash "$1"
	[ "$output" = "" ]
	if [ "$stderr" != "$2" ]; then
		echo "want: $2"
		echo "got:  $stderr"
		return 1
	fi
}

@test "refused: a file over 1 MiB, and exactly 1 MiB is accepted" {
	head -c $((1024 * 1024 + 1)) "$VECTORS/big-exactly-1mib.json" >"$TMP/big.json"
	printf ' ' >>"$TMP/big.json"
	refused "$TMP/big.json" "sharness-exec: fatal: unable to read $TMP/big.json: larger than 1 MiB"
	run -0 --separate-stderr "$SHARNESS_EXEC" hash "$VECTORS/big-exactly-1mib.json"
	# Through a pipe, where no size is known before reading.
	run -125 --separate-stderr bash -c 'cat "$1" | "$2" hash -' _ "$TMP/big.json" "$SHARNESS_EXEC"
	[ "$stderr" = "sharness-exec: fatal: unable to read standard input: larger than 1 MiB" ]
}

@test "refused: 100,000 nested brackets, inside the object and at the top" {
	{ printf '{"a":'; head -c 100000 /dev/zero | tr '\0' '['; head -c 100000 /dev/zero | tr '\0' ']'; printf '}'; } >"$TMP/deep.json"
	refused "$TMP/deep.json" "sharness-exec: fatal: $TMP/deep.json: nested deeper than 64 at line 1, column 69"
	head -c 100000 /dev/zero | tr '\0' '[' >"$TMP/top.json"
	refused "$TMP/top.json" "sharness-exec: fatal: $TMP/top.json: top level is not an object at line 1, column 1"
}

@test "refused: a directory, /dev/zero (at once, without reading it), a missing file" {
	refused "$TMP" "sharness-exec: fatal: unable to read $TMP: Is a directory"
	run -125 --separate-stderr timeout 20 "$SHARNESS_EXEC" hash /dev/zero
	[ "$stderr" = "sharness-exec: fatal: unable to read /dev/zero: not a regular file or a pipe" ]
	run -125 --separate-stderr timeout 20 "$SHARNESS_EXEC" hash - </dev/zero
	[ "$stderr" = "sharness-exec: fatal: unable to read standard input: not a regular file or a pipe" ]
	refused "$TMP/none.json" "sharness-exec: fatal: unable to read $TMP/none.json: No such file or directory"
}

@test "refused: a file its reader may not read (as nobody)" {
	require_feature nobody
	printf '{}' >"$TMP/secret.json"
	chmod 600 "$TMP/secret.json"
	# The same binary, run by nobody: it must be able to reach it.
	require_feature nobody-reaches:"$SHARNESS_EXEC"
	run -125 --separate-stderr as_nobody "$SHARNESS_EXEC" hash "$TMP/secret.json"
	[ "$output" = "" ]
	[ "$stderr" = "sharness-exec: fatal: unable to read $TMP/secret.json: Permission denied" ]
	chmod 644 "$TMP/secret.json"
	run -0 --separate-stderr as_nobody "$SHARNESS_EXEC" hash "$TMP/secret.json"
}

@test "refused: invalid UTF-8, a truncated file, an empty file, trailing data; each where, by line and column" {
	printf '{"a":"caf\xc3"}' >"$TMP/utf8.json"
	refused "$TMP/utf8.json" "sharness-exec: fatal: $TMP/utf8.json: invalid UTF-8 at line 1, column 10"
	head -c 60 "$VECTORS/policy-full.json" >"$TMP/trunc.json"
	refused "$TMP/trunc.json" "sharness-exec: fatal: $TMP/trunc.json: unexpected end of input at line 5, column 12"
	: >"$TMP/empty.json"
	refused "$TMP/empty.json" "sharness-exec: fatal: $TMP/empty.json: empty document"
	printf '{"a":1}\n{"b":2}\n' >"$TMP/two.json"
	refused "$TMP/two.json" "sharness-exec: fatal: $TMP/two.json: unexpected '{' at line 2, column 1 (after the top-level object)"
}

@test "refused: messages stay on one line even when the key holds a newline" {
	printf '{"a\\nb":1,"a\\u000ab":2}' >"$TMP/dup.json"
	refused "$TMP/dup.json" "sharness-exec: fatal: $TMP/dup.json: duplicate key \"a\\nb\" at line 1, column 11"
}

# A 1 MiB document that is as costly as a valid one can be: the most tokens
# (one per two bytes), or the most keys in one object. Measured: about 13 MiB
# resident, and each passes under a 20 MiB address-space limit; 32 MiB leaves
# room for the C library and still catches a doubling.
@test "memory stays bounded: 1 MiB adversarial documents under a 32 MiB address-space limit" {
	require_feature tool:prlimit
	# AddressSanitizer reserves terabytes of address space.
	require_feature no-asan
	awk 'BEGIN { printf "{\"a\":[0"; for (i = 0; i < 524000; i++) printf ",0"; printf "]}" }' >"$TMP/tokens.json"
	[ "$(wc -c <"$TMP/tokens.json")" -le $((1024 * 1024)) ]
	awk 'BEGIN { printf "{"; for (i = 0; i < 95000; i++) printf "%s\"%05x\":0", i ? "," : "", (i * 7919) % 95000; printf "}" }' >"$TMP/keys.json"
	[ "$(wc -c <"$TMP/keys.json")" -le $((1024 * 1024)) ]
	# The hashes are canon.py's for these exact bytes.
	run -0 --separate-stderr prlimit --as=$((32 << 20)) "$SHARNESS_EXEC" hash "$TMP/tokens.json"
	[ "$output" = sha256:46ede3d890b7471a7211fae51d85d2a3c1490088293a516bfaa33da966467fbe ]
	run -0 --separate-stderr prlimit --as=$((32 << 20)) "$SHARNESS_EXEC" hash "$TMP/keys.json"
	[ "$output" = sha256:32deb23f40180acbd11213fdf31d192de1bad1ece7523e7c5edad7ef66836a00 ]
	{ printf '{"a":'; head -c $((1024 * 1024 - 5)) /dev/zero | tr '\0' '['; } >"$TMP/open.json"
	run -125 --separate-stderr prlimit --as=$((32 << 20)) "$SHARNESS_EXEC" hash "$TMP/open.json"
	[ "$stderr" = "sharness-exec: fatal: $TMP/open.json: nested deeper than 64 at line 1, column 69" ]
}
