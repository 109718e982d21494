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

@test "a test whose setup skips removes nothing the caller's environment named" {
	# bats runs teardown after a setup that skipped or failed before it
	# made its own directories: each variable some teardown of the suite
	# removes (load.bash unsets them), and HOME, which examples.bats once
	# removed that way, name a canary of the caller's here.
	local vars="TMP REACH WORK RUNNER_WORK SCRATCH_HOME PROJ OUTSIDE GOTMPDIR HOME" v
	local inner=$BATS_TEST_TMPDIR/inner canaries=$BATS_TEST_TMPDIR/canaries
	mkdir -p "$inner" "$canaries"
	{
		printf 'load %q\n' "$top_srcdir/tests/helpers/load"
		printf 'load %q\n' "$top_srcdir/tests/helpers/learn"
		printf 'setup() { not_here canary "this setup goes no further"; }\n'
		printf 'teardown() {\n'
		printf '\tteardown_tmp\n\tteardown_project\n'
		for v in WORK RUNNER_WORK SCRATCH_HOME GOTMPDIR; do
			printf '\t[ -n "${%s:-}" ] && rm -rf "$%s"\n' "$v" "$v"
		done
		printf '\treturn 0\n}\n'
		printf '@''test "inner" { true; }\n'
	} >"$inner/canary.bats"
	local envs=()
	for v in $vars; do
		mkdir "$canaries/$v"
		envs+=("$v=$canaries/$v")
	done
	run env -i PATH=/usr/local/bin:/usr/bin:/bin "${envs[@]}" \
		top_srcdir="$top_srcdir" top_builddir="$top_builddir" \
		bats --tap "$inner/canary.bats"
	printf '%s\n' "$output"
	[[ $output == *"ok 1 inner # skip"* ]]
	local gone=0
	for v in $vars; do
		[ -d "$canaries/$v" ] || { echo "removed: \$$v"; gone=$((gone + 1)); }
	done
	[ "$gone" = 0 ]
}
