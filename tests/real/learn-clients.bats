#!/usr/bin/env bats
# sharness-exec learn (DESIGN.md 4.7) on the real suites of
# tests/clients.bats (tests/clients/README): from the default base, with
# nothing but the command, learn drafts a policy for each suite; the suite
# then runs confined under the draft, pinned, and its verdicts equal
# bare's, test by test. Each draft keeps "network": "none" (its own
# loopback is all httptest's servers need), grants nothing of the caller's
# home, and was reached before the round limit.
# The suites are slow and learn reruns them once a round, so each runs a
# subset that keeps what it is there for (the tests left out, and why, are
# at each test); the Go test binaries are built once, outside, as go test
# -exec does, in a copy of the package's sources (its tests read them).
# ROUNDS_LOG=FILE appends each learn's round lines, with their times.
# not tested: the suites as nobody but httptest's (the cheapest: the
# rules do not depend on the uid, tests/learn.bats runs its job as both).
load ../helpers/load
load ../helpers/learn
load ../helpers/clients

setup_file() {
	go_env
}

setup() {
	setup_tmp
	unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
	setup_project
}

teardown() {
	teardown_project
	teardown_tmp
}

# plain MODE CMD...: CMD as MODE (root or nobody), HOME outside, no
# descriptor above 2 (bare's).
plain() {
	local pre=()
	[ "$1" = nobody ] && pre=(setpriv --reuid="$NOBODY_UID" --regid="$NOBODY_GID" --clear-groups --)
	shift
	bare "${pre[@]}" env HOME="$OUTSIDE" "$@"
}

# learned MODE CMD...: learn a draft for CMD in the cwd as MODE, check it,
# and run CMD under it, pinned: that run's output in $output. The rounds'
# lines (each with its time) go to the log.
learned() {
	local mode=$1 hash
	shift
	run -0 --separate-stderr plain "$mode" "$SHARNESS_EXEC" learn -o draft.json -- "$@"
	echo "$output"
	printf '%s\n' "$stderr" | grep ': learn: '
	[ -z "${ROUNDS_LOG:-}" ] || { echo "$BATS_TEST_DESCRIPTION"; printf "%s\n" "$stderr" | grep ": learn: round"; } >>"$ROUNDS_LOG"
	[[ $output != *"round limit"* ]]
	[[ $output != *"added "*"$OUTSIDE"* ]] && ! grep -q "$OUTSIDE" draft.json
	grep -q '"network": "none"' draft.json
	hash=$("$SHARNESS_EXEC" hash draft.json)
	[[ ${lines[0]} == *"draft.json $hash" ]]
	run -0 "$SHARNESS_EXEC" check draft.json
	run --separate-stderr plain "$mode" "$SHARNESS_EXEC" run -p draft.json -H "$hash" -- "$@"
}

# go_learn MODE PKG EXCLUDE [ONLY]: Go's own tests of PKG
# (golang-1.19-src), the top-level ones matching the regexp ONLY (all)
# but those matching EXCLUDE, bare and under the learned draft.
go_learn() {
	local mode=$1 pkg=$2 exclude=$3 only=${4:-.*} src tests
	need "$mode"
	require_feature tool:go
	require_feature tool:"$PYTHON"
	src="$(go env GOROOT 2>/dev/null)/src/$pkg"
	require_feature file:"$src"
	cp -R "$src/." "$PROJ/"
	cd "$PROJ"
	run -0 go test -vet=off -c -o suite.test "$pkg"
	run -0 ./suite.test -test.list .
	tests=$(printf '%s\n' "${lines[@]}" | grep -xE "$only" | go_run_regexp "$exclude")
	[ "$mode" = nobody ] && chown -R "$NOBODY_UID:$NOBODY_GID" "$PROJ"
	local cmd=(./suite.test -test.short -test.v -test.run "$tests")
	run plain "$mode" "${cmd[@]}"
	go tool test2json -p "$pkg" <<<"$output" | go_verdicts >"$TMP/bare"
	learned "$mode" "${cmd[@]}"
	go tool test2json -p "$pkg" <<<"$output" | go_verdicts >"$TMP/confined"
	diff -u "$TMP/bare" "$TMP/confined"
	! grep -q ' fail$' "$TMP/bare"
}

@test "learn: Go's net/http/httptest (local HTTP and TLS servers) runs under its draft as bare (root)" {
	go_learn root net/http/httptest ''
	[ "$(grep -c ' pass$' "$TMP/bare")" -ge 10 ]
}

@test "learn: Go's net/http/httptest runs under its draft as bare (nobody)" {
	go_learn nobody net/http/httptest ''
	[ "$(grep -c ' pass$' "$TMP/bare")" -ge 10 ]
}

@test "learn: Go's os/exec (helper processes, pipes, exit statuses) runs under its draft as bare" {
	# TestExtraFiles builds read3.go, which imports internal packages that
	# only GOROOT's own tree may: in the copy it fails bare too.
	go_learn root os/exec 'TestExtraFiles'
	grep -qx 'os/exec TestExtraFilesRace pass' "$TMP/confined"
	grep -qx 'os/exec TestContextCancel pass' "$TMP/confined"
}

@test "learn: Go's os/signal (TestTerminalSignal on a pty among them) runs under its draft as bare" {
	# Left out: TestReset, TestTime, TestStress and TestNohup, which spend
	# most of the suite's time sleeping between signals that TestSignal
	# and TestStop already send (TestDetectNohup runs its child under
	# nohup).
	go_learn root os/signal 'TestReset|TestTime|TestStress|TestNohup'
	grep -qx 'os/signal TestTerminalSignal pass' "$TMP/confined"
	grep -qx 'os/signal TestDetectNohup pass' "$TMP/confined"
	# the pty: /dev whole, the run's own minimal /dev
	grep -q '"/dev"' draft.json
}

@test "learn: Go's os (files in /tmp, a tmpfs of the run's own) runs under its draft as bare" {
	# Files, directories and links in /tmp and TMPDIR, chdir, /proc, a
	# child process. Left out: TestMkdirAllAtSlash, which writes in /
	# itself (bare as root it passes, confined it skips), and the rest of
	# the package, which exercises nothing more of the sandbox.
	go_learn root os '' 'TestMkdirTemp|TestCreateTemp|TestHardLink|TestSymlink|TestRename|TestChmod|TestRemoveAll|TestChdirAndGetwd|TestMkdirAll|TestReadDir|TestDevNullFile|TestStatStdin|TestUserHomeDir|TestReadFileProc|TestStartProcess|TestPipeThreads'
	grep -qx 'os TestMkdirTemp pass' "$TMP/confined"
	grep -qx 'os TestChdirAndGetwd pass' "$TMP/confined"
	grep -q '"tmpfs": \["/tmp"\]' draft.json
}

@test "learn: CPython's test_socketserver and test_signal run under their draft as bare" {
	require_feature landlock
	require_feature tool:"$PYTHON"
	require_feature file:/usr/lib/python3.11/test/test_socketserver.py
	cd "$PROJ"
	# Left out: test_interprocess_signal and test_wakeup_fd_early and
	# _during, three quarters of the time, mostly sleeps; signals to and
	# from a child stay (test_keyboard_interrupt_exit_code, ForkingServers).
	local args=(-m test -u network test_socketserver test_signal
		-m SocketServerTest -m ErrorHandlerTest -m SocketWriterTest -m MiscTestCase
		-m PosixTests -m WakeupSignalTests -m RaiseSignalTest -m GenericTests
		-i test_interprocess_signal -i test_wakeup_fd_early -i test_wakeup_fd_during)
	run plain root "$PYTHON" "${args[@]}" --junit-xml bare.xml
	[ "$status" = 0 ]
	py_verdicts bare.xml >"$TMP/bare"
	learned root "$PYTHON" "${args[@]}" --junit-xml confined.xml
	[ "$status" = 0 ]
	py_verdicts confined.xml >"$TMP/confined"
	diff -u "$TMP/bare" "$TMP/confined"
	grep -qx 'test.test_socketserver.SocketServerTest.test_UnixStreamServer ok' "$TMP/bare"
	grep -qx 'test.test_signal.WakeupSignalTests.test_signum ok' "$TMP/bare"
	[ "$(grep -c ' ok$' "$TMP/bare")" -ge 20 ]
}
