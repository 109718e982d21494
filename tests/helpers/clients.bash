# What tests/real/clients.bats and tests/real/learn-clients.bats both need to run
# suites this project did not write (tests/clients/README) bare and
# confined, and to compare their verdicts test by test. Loaded after
# helpers/load.
PYTHON=/usr/bin/python3

# Go's build settings for both files: no network, no toolchain download,
# no user go.env, one build cache for a file's tests.
go_env() {
	export GOCACHE="$BATS_FILE_TMPDIR/gocache" GOPATH="$BATS_FILE_TMPDIR/gopath" \
		GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local GOENV=off GO111MODULE=auto
}

# bare CMD...: CMD as a user's shell would run it, with no descriptor
# above 2 (bats and make leave some open; sharness-exec closes them, and
# suites check for leaks), and SIGINT and SIGQUIT at their defaults: a
# make check started in the background of a script ignores both, which
# every child inherits, and CPython's test_signal then fails, bare or not.
bare() {
	"$PYTHON" -c 'import os, signal, sys
for s in (signal.SIGINT, signal.SIGQUIT):
    signal.signal(s, signal.SIG_DFL)
os.closerange(3, 65536)
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
}

# go_verdicts: from go test -json, "PACKAGE TEST pass|fail|skip" a line,
# for each top-level test (a subtest's failure fails its parent; with -exec,
# go 1.19 reads the verdicts of subtests back from text, where a subtest
# that logs a child's own test output can lose its line).
go_verdicts() {
	"$PYTHON" -c '
import json, sys
for line in sys.stdin:
    try:
        e = json.loads(line)
    except ValueError:
        continue
    if e.get("Action") in ("pass", "fail", "skip") and "/" not in e.get("Test", ""):
        print(e.get("Package", "?"), e.get("Test", "(package)"), e["Action"])' |
		LC_ALL=C sort
}

# go_run_regexp EXCLUDE: from a test binary's -test.list on stdin, the
# anchored -run regexp of its top-level tests and examples but those
# matching the regexp EXCLUDE (go 1.19 has no -skip).
go_run_regexp() {
	local tests
	tests=$(grep -E '^(Test|Example)' | grep -vxE "$1" | LC_ALL=C sort -u | paste -sd '|')
	[ -n "$tests" ] && echo "^($tests)\$"
}

# py_verdicts XML: from python3 -m test --junit-xml, "TEST-ID
# ok|skipped|failure|error" a line.
py_verdicts() {
	"$PYTHON" -c '
import sys, xml.etree.ElementTree as ET
for case in ET.parse(sys.argv[1]).iter("testcase"):
    kids = [k.tag for k in case if k.tag in ("skipped", "failure", "error")]
    print(case.get("name"), kids[0] if kids else "ok")' "$1" |
		LC_ALL=C sort
}
