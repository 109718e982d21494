#!/usr/bin/env bats
# Real test suites this project did not write, from Debian packages, each
# run bare and then confined the way examples/ shows (go test -exec, a
# command prefix), under tests/clients/policy.json ("network": "none",
# writes beneath /tmp only), or policy-pty-tmpfs.json (/dev read, /tmp a
# private tmpfs) for a suite that needs a pty and one that writes /tmp: the
# confined run must give the same verdict as the bare one, test by test.
# What each suite exercises, and the tests left out, are in
# tests/clients/README.
# not tested: the suites as nobody (the time is better spent on
#   tests/loopback.bats and tests/ipc.bats, which run as both).
load ../helpers/load
load ../helpers/clients

POLICY="$top_srcdir/tests/clients/policy.json"
PIN=sha256:927e453c137196516ac453f46a153c07f0c10680ec7018a822d7f9578a94be26
# /dev read and /tmp a private tmpfs: the suites that need a pty, or
# write the host's /tmp where every other job's files are.
PTY_POLICY="$top_srcdir/tests/clients/policy-pty-tmpfs.json"
PTY_PIN=sha256:a11866814057206ca3af9f766cd53fe7073fa7b02c56df74c9c8f3bc233f4afa

setup_file() {
	# One Go build cache for the bare and the confined run: the test
	# binaries are built once, outside the confinement, as go test -exec
	# does it. The policy lets these through to the suites that run go.
	go_env
}

setup() {
	setup_tmp
	unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
	CONFINED=("$SHARNESS_EXEC" run --policy "$POLICY" --expect-hash "$PIN" --)
}

teardown() {
	[ -z "${GOTMPDIR:-}" ] || rm -rf "$GOTMPDIR"
	teardown_tmp
}

# pty_tmpfs: the suites run under PTY_POLICY; go test -exec builds its
# test binaries beneath /var/tmp, which that policy may run, since its
# /tmp inside is not the host's.
pty_tmpfs() {
	require_feature file:/var/tmp
	CONFINED=("$SHARNESS_EXEC" run --policy "$PTY_POLICY" --expect-hash "$PTY_PIN" --)
	GOTMPDIR=$(mktemp -d /var/tmp/sharness-exec-clients.XXXXXX)
	export GOTMPDIR
}

# go_suite EXCLUDE PKG...: Go's own tests of PKG (golang-1.19-src), every
# top-level test but those matching the regexp EXCLUDE, bare and then
# through go test -exec.
go_suite() {
	local exclude=$1 tests
	shift
	require_feature tool:go
	require_feature tool:"$PYTHON"
	require_feature file:"$(go env GOROOT 2>/dev/null)/src/$1"
	cd "$TMP"
	run -0 go test -list . "$@"
	tests=$(printf '%s\n' "${lines[@]}" | go_run_regexp "$exclude")
	run bare go test -short -json -run "$tests" "$@"
	go_verdicts <<<"$output" >"$TMP/bare"
	run go test -short -json -run "$tests" -exec "$(printf '%q ' "${CONFINED[@]}")" "$@"
	go_verdicts <<<"$output" >"$TMP/confined"
	diff -u "$TMP/bare" "$TMP/confined"
	[ "$(grep -c ' pass$' "$TMP/bare")" -ge 10 ]
	! grep -q ' fail$' "$TMP/bare"
}

@test "policy: valid, and the hash pinned here" {
	run -0 "$SHARNESS_EXEC" check "$POLICY"
	run -0 "$SHARNESS_EXEC" hash "$POLICY"
	[ "$output" = "$PIN" ]
	run -0 "$SHARNESS_EXEC" check "$PTY_POLICY"
	run -0 "$SHARNESS_EXEC" hash "$PTY_POLICY"
	[ "$output" = "$PTY_PIN" ]
}

@test "Go's net/http/httptest: local HTTP servers, bare and through go test -exec alike" {
	go_suite '' net/http/httptest
}

@test "Go's os/exec and os/signal: subprocesses and signals, bare and through go test -exec alike" {
	go_suite TestTerminalSignal os/exec os/signal
}

@test "Go's os/signal TestTerminalSignal: a shell on a pty, with /dev read, bare and through go test -exec alike" {
	pty_tmpfs
	go_suite '' os/signal
	grep -qx 'os/signal TestTerminalSignal pass' "$TMP/confined"
}

@test "Go's os: files in /tmp, a private tmpfs, bare and through go test -exec alike" {
	pty_tmpfs
	go_suite TestMkdirAllAtSlash os
	grep -qx 'os TestMkdirTemp pass' "$TMP/confined"
	grep -qx 'os TestChdirAndGetwd pass' "$TMP/confined"
}

@test "CPython's test_socketserver and test_signal: UNIX sockets in its temp dir, bare and prefixed alike" {
	require_feature tool:"$PYTHON"
	require_feature file:/usr/lib/python3.11/test/test_socketserver.py
	cd "$TMP"
	local args=(-m test -u network test_socketserver test_signal
		-m SocketServerTest -m ErrorHandlerTest -m SocketWriterTest -m MiscTestCase
		-m PosixTests -m WakeupSignalTests -m RaiseSignalTest -m GenericTests)
	# Its sockets go to a temp dir of its own, beneath a write path.
	mkdir "$TMP/bare-tmp" "$TMP/confined-tmp"
	# On a failure, regrtest's own account of it: which test, and why.
	run bare env TMPDIR="$TMP/bare-tmp" "$PYTHON" "${args[@]}" --junit-xml "$TMP/bare.xml"
	[ "$status" = 0 ] || { echo "status $status"; printf '%s\n' "${lines[@]: -40}"; false; }
	py_verdicts "$TMP/bare.xml" >"$TMP/bare"
	run bare env TMPDIR="$TMP/confined-tmp" "${CONFINED[@]}" "$PYTHON" "${args[@]}" --junit-xml "$TMP/confined.xml"
	[ "$status" = 0 ] || { echo "status $status"; printf '%s\n' "${lines[@]: -40}"; false; }
	py_verdicts "$TMP/confined.xml" >"$TMP/confined"
	diff -u "$TMP/bare" "$TMP/confined"
	grep -qx 'test.test_socketserver.SocketServerTest.test_UnixStreamServer ok' "$TMP/bare"
	grep -qx 'test.test_signal.WakeupSignalTests.test_signum ok' "$TMP/bare"
	[ "$(grep -c ' ok$' "$TMP/bare")" -ge 20 ]
}
