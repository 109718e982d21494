#!/usr/bin/env bats
# The test suite's own rules, checked over its files: every skip goes
# through require_feature (tests/helpers/load.bash), so that
# SHARNESS_EXEC_MUST_WORK=1 turns each into a failure; the conformance
# references are all there, in this tree, for every user's `make check`.
load ../helpers/load

@test "every skip goes through require_feature" {
	# Code lines only: comments and test names may speak of skips.
	run bash -c 'grep -Hn -E "(^|[;&|({[:space:]])skip([[:space:]]|\$)" "$@" |
		grep -v -E "^[^:]+:[0-9]+:[[:space:]]*(#|@test )"' _ \
		"$top_srcdir"/tests/*/*.bats "$top_srcdir"/tests/helpers/*.bash
	# The one allowed: inside feature_missing, which require_feature uses.
	printf '%s\n' "$output"
	[ "$status" = 0 ]
	[ "${#lines[@]}" = 1 ]
	[[ "${lines[0]}" == "$top_srcdir/tests/helpers/load.bash:"*'skip "$2"' ]]
}

@test "the conformance references are in the tree: 44 + 636 verdicts and the licence" {
	local c="$top_srcdir/tests/conformance"
	[ "$(wc -l <"$c/policy-hash/expected.tsv")" = 44 ]
	[ "$(ls "$c/policy-hash/vectors" | wc -l)" = 44 ]
	[ "$(wc -l <"$c/json-test-suite/expected.tsv")" = 636 ]
	[ "$(ls "$c/json-test-suite/test_parsing" | wc -l)" = 318 ]
	grep -q '^Copyright (c) 2016 Nicolas Seriot$' "$c/json-test-suite/LICENSE"
	grep -q '^MIT License$' "$c/json-test-suite/LICENSE"
}
