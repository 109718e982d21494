#!/usr/bin/env bats
# The policy-hash page (web/policy-hash.html) in headless Chromium, against
# `sharness-exec hash` and `sharness-exec check`; see tests/web/README. Each
# test starts the browser once and runs one section of
# tests/web/policy-hash.test.mjs, which lists every disagreement it finds.
#
# not tested: browsers other than Chromium (Firefox, Safari, WebKit); a drag
# from a real file manager (the drop is dispatched through DevTools); the
# page served over http(s) (it is opened as a file, as from a checkout); what
# a screen reader announces (the accessibility tree is checked instead);
# the screenshot is kept in $top_builddir/artifacts for a person to look at.
load ../helpers/load

web_test() {
	require_feature tool:node
	require_feature tool:chromium
	run --separate-stderr node "$top_srcdir/tests/web/policy-hash.test.mjs" "$@"
	printf '%s\n' "$output" "$stderr"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[[ "$output" == *$'\n'"all agree" ]]
}

@test "web: the page and sharness-exec hash agree on every shared policy-hash vector" {
	web_test shared
	[[ "$output" == *"conformance/policy-hash: 44 inputs compared"* ]]
}

@test "web: the page and sharness-exec hash agree on every JSONTestSuite case, raw and wrapped" {
	web_test suite
	[[ "$output" == *"conformance/json-test-suite: 636 inputs compared"* ]]
}

@test "web: the page and sharness-exec hash agree on the project's vectors and on inputs made here" {
	web_test vectors
}

@test "web: the page's pbp 1 verdict, messages and warnings are those of sharness-exec check" {
	web_test check
}

@test "web: typing, choosing a file, dropping a file and copying the hash show what sharness-exec computes" {
	rm -f "$top_builddir/artifacts/policy-hash.png"
	web_test ui
	[ "$(head -c 8 "$top_builddir/artifacts/policy-hash.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
}

@test "web: the hello policy and hash in the page are those of sharness-exec" {
	web_test hello
}

@test "web: the page fetches nothing, runs in a secure context, has labelled controls and a live result" {
	web_test page
}
