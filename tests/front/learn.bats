#!/usr/bin/env bats
# sharness-exec learn (DESIGN.md 4.7): a draft policy from confined runs of
# a command. It never runs the command unconfined; it grants only from its
# allowlist (the system directories, the cwd's subtree, a tmpfs for /tmp,
# the run's own /proc and /dev), and lists the rest, such as a file in the
# caller's home, as a suggestion that never reaches the draft. The rules
# themselves are unit-tested (tests/unit/test-learn.c); here they run end
# to end through --explain and --report.
# not tested: learn where no wall holds --explain (ptrace_scope 3).

load ../helpers/load
load ../helpers/learn

setup() {
	setup_tmp
	setup_project
}

teardown() {
	teardown_project
	teardown_tmp
}

# job: a script that reads a system file, reads /proc, writes into the cwd
# and into /tmp, and prints what it saw.
job() {
	cat >"$PROJ/job.sh" <<'EOF'
#!/bin/sh
set -e
head -c 64 /usr/share/common-licenses/GPL-3 | md5sum
grep -c '^Name:' /proc/self/status
echo built >out.txt
d=$(mktemp -d /tmp/learn-job.XXXXXX)
echo x >"$d/f"
cat "$d/f"
rm -r "$d"
cat out.txt
EOF
	chmod 755 "$PROJ/job.sh"
}

@test "learn: a cwd of /, or of the caller's home, is refused and nothing runs" {
	require_feature landlock
	cd /
	run -125 --separate-stderr "$SHARNESS_EXEC" learn -o "$TMP/d.json" -- touch "$TMP/ran"
	[[ $stderr == *"fatal: refused: learn may grant the working directory's whole subtree"* ]]
	cd "$PROJ"
	run -125 --separate-stderr env HOME="$PROJ" "$SHARNESS_EXEC" learn -o "$TMP/d.json" -- \
		touch "$TMP/ran"
	[[ $stderr == *"the caller's home or above it"* ]]
	run -125 --separate-stderr env HOME="$PROJ/sub/home" "$SHARNESS_EXEC" learn -o "$TMP/d.json" -- \
		touch "$TMP/ran"
	[ ! -e "$TMP/ran" ] && [ ! -e "$TMP/d.json" ]
}

@test "learn: usage errors are one line and exit 125" {
	cd "$PROJ"
	run -125 --separate-stderr "$SHARNESS_EXEC" learn -- true
	[[ $stderr == *"learn needs -o DRAFT"* ]]
	run -125 --separate-stderr "$SHARNESS_EXEC" learn -o d.json --rounds 0 -- true
	[[ $stderr == *"--rounds 0: not a number from 1 to 20"* ]]
	run -125 --separate-stderr "$SHARNESS_EXEC" learn -o d.json
	[[ $stderr == *"learn needs a COMMAND"* ]]
	run -0 "$SHARNESS_EXEC" learn --help
	[[ $output == *"--allow-network"* ]]
}

learn_job() {
	local mode=$1
	need "$mode"
	require_feature tool:md5sum
	job
	[ "$mode" = nobody ] && chown -R "$NOBODY_UID:$NOBODY_GID" "$PROJ"
	cd "$PROJ"
	run -0 as "$mode" ./job.sh
	local bare=$output
	rm -f out.txt
	# HOME outside the project and not above it.
	run -0 --separate-stderr as "$mode" env HOME="$OUTSIDE" "$SHARNESS_EXEC" learn -o draft.json -- ./job.sh
	echo "$output"$'\n'"$stderr"
	[[ $stderr == *"each round runs the command again"* ]]
	[[ $output == *"added files.tmpfs \"/tmp\""* ]]
	# the run's own /proc: read in the default base
	grep -q '"read": \["/etc", "/proc"\]' draft.json
	# The hash printed is the draft's, and check takes the draft.
	local hash
	hash=$("$SHARNESS_EXEC" hash draft.json)
	[[ $output == "\"draft.json\" $hash"* || $output == "draft.json $hash"* ]]
	run -0 "$SHARNESS_EXEC" check draft.json
	# Under the draft, the command runs exactly as it ran bare.
	rm -f out.txt
	run -0 --separate-stderr as "$mode" "$SHARNESS_EXEC" run -p draft.json -H "$hash" -- ./job.sh
	[ "$output" = "$bare" ]
	# Nothing of /tmp's run was left on the host's /tmp.
	[ -z "$(find /tmp -maxdepth 1 -name 'learn-job.*' -print -quit)" ]
}

@test "learn: a draft under which the job runs as bare (root)" { learn_job root; }
@test "learn: a draft under which the job runs as bare (nobody)" { learn_job nobody; }

@test "learn: a path the command only probes (stat, access) is learned as its read" {
	require_feature landlock
	cd "$PROJ"
	local probe='[ -d /tmp ] && echo tmp; [ -r /dev/zero ] && echo zero; [ -e "$0/x" ] || echo none'
	run -0 sh -c "$probe" "$OUTSIDE/gone"
	local bare=$output
	[ "$bare" = $'tmp\nzero\nnone' ]
	run -0 --separate-stderr env HOME="$OUTSIDE" "$SHARNESS_EXEC" learn -o draft.json -- \
		sh -c "$probe" "$OUTSIDE/gone"
	echo "$output"$'\n'"$stderr"
	[[ $output == *"added files.tmpfs \"/tmp\": list /tmp"* ]]
	# the default /dev has /dev/zero: nothing to learn (DESIGN.md 4.5)
	[[ $output != *"/dev/zero"* ]]
	[[ $output != *gone* ]]
	run -0 --separate-stderr "$SHARNESS_EXEC" run -p draft.json -H "$("$SHARNESS_EXEC" hash draft.json)" -- \
		sh -c "$probe" "$OUTSIDE/gone"
	[ "$output" = "$bare" ]
}

@test "learn: a file in the caller's home is suggested, never granted, and never read" {
	require_feature landlock
	mkdir "$OUTSIDE/home"
	echo secret >"$OUTSIDE/home/.token"
	cd "$PROJ"
	run -0 cat "$OUTSIDE/home/.token"
	run --separate-stderr env HOME="$OUTSIDE/home" "$SHARNESS_EXEC" learn -o draft.json -- \
		sh -c 'cat "$1"; echo done' sh "$OUTSIDE/home/.token"
	echo "$output"$'\n'"$stderr"
	[ "$status" = 0 ]
	[[ $output == *"suggest files.read \"$OUTSIDE/home\": read $OUTSIDE/home/.token"* ]]
	[[ $output != *"added"*"$OUTSIDE"* ]]
	! grep -q "$OUTSIDE" draft.json
	# No round printed it: each round ran confined.
	[[ $output != *secret* ]]
}

@test "learn: the command never runs unconfined: a write outside is refused in every round" {
	require_feature landlock
	cd "$PROJ"
	run --separate-stderr env HOME="$OUTSIDE" "$SHARNESS_EXEC" learn -o draft.json -- \
		sh -c 'echo x >"$1/marker"; echo done' sh "$OUTSIDE"
	echo "$output"$'\n'"$stderr"
	[ "$status" = 0 ]
	[ ! -e "$OUTSIDE/marker" ]
	[[ $output == *"suggest "*": create $OUTSIDE/marker"* ]]
	! grep -q "$OUTSIDE" draft.json
}

@test "learn: a TCP connect under \"none\" stays a suggestion without --allow-network" {
	require_feature landlock
	require_feature tool:python3
	cd "$PROJ"
	run --separate-stderr "$SHARNESS_EXEC" learn -o draft.json -- python3 -c '
import socket
s = socket.socket()
s.settimeout(2)
try:
    s.connect(("192.0.2.1", 9))
except OSError as e:
    print("refused", e.errno)'
	echo "$output"$'\n'"$stderr"
	[ "$status" = 0 ]
	[[ $output == *"suggest network.connect_tcp_ports \"9\": needs the host's network"* ]]
	grep -q '"network": "none"' draft.json
}

@test "learn: the make example's test runs under the draft exactly as bare" {
	require_feature landlock
	require_feature tool:make
	require_feature tool:cc
	cp -R "$top_srcdir/examples/make" "$top_srcdir/examples/src" "$PROJ/"
	chmod -R u+w "$PROJ"
	cd "$PROJ/make"
	run -0 make test-sum
	run -0 ./test-sum
	local bare=$output
	run -0 --separate-stderr env HOME="$OUTSIDE" "$SHARNESS_EXEC" learn -o draft.json -- ./test-sum
	local hash
	hash=$("$SHARNESS_EXEC" hash draft.json)
	run -0 --separate-stderr "$SHARNESS_EXEC" run -p draft.json -H "$hash" -- ./test-sum
	[ "$output" = "$bare" ]
}

# go_test_lines / cargo_test_lines: each test's name and verdict, without
# the times, from a test binary's verbose output.
verdicts() {
	grep -E '^(--- (PASS|FAIL): [A-Za-z0-9_]+|test [a-z0-9_:]+ \.\.\. (ok|FAILED))' | sed 's/ (.*//' | sort
}

@test "learn: the Go example's test binary runs under the draft exactly as bare" {
	require_feature landlock
	require_feature tool:go
	cp -R "$top_srcdir/examples/go" "$PROJ/"
	chmod -R u+w "$PROJ"
	cd "$PROJ/go"
	export GOCACHE="$OUTSIDE/gocache" GOPATH="$OUTSIDE/gopath" GOPROXY=off GOTOOLCHAIN=local GOFLAGS=
	run -0 go test -c -o sum.test .
	# bare, the canary (a file in $HOME) fails: HOME is writable here
	run env HOME="$OUTSIDE" ./sum.test -test.v
	local bare
	bare=$(verdicts <<<"$output")
	[[ $bare == *"--- PASS: TestSum"* ]]
	run -0 --separate-stderr env HOME="$OUTSIDE" "$SHARNESS_EXEC" learn -o draft.json -- ./sum.test -test.v
	echo "$output"
	local hash
	hash=$("$SHARNESS_EXEC" hash draft.json)
	# learn's private env gives the binary a HOME of its own, writable
	run --separate-stderr env HOME="$OUTSIDE" "$SHARNESS_EXEC" run -p draft.json -H "$hash" -- ./sum.test -test.v
	[ "$(verdicts <<<"$output")" = "$bare" ]
	[ ! -e "$OUTSIDE/.sharness-exec-canary" ]
}

@test "learn: the cargo example's test binary runs under the draft exactly as bare" {
	require_feature landlock
	require_feature tool:cargo
	cp -R "$top_srcdir/examples/cargo" "$PROJ/"
	chmod -R u+w "$PROJ"
	rm -rf "$PROJ/cargo/.cargo"   # its runner is the example's wrapper
	cd "$PROJ/cargo"
	# cargo gets a CARGO_HOME of its own, so that nothing of the caller's
	# (a package cache another test's cargo holds, a home some earlier
	# run left) decides this test; rustup's proxies find their toolchains
	# through RUSTUP_HOME, which stays the caller's.
	export CARGO_HOME="$TMP/cargo-home"
	run cargo test --offline --no-run
	echo "$output"
	[ "$status" -eq 0 ]
	local bin
	bin=$(find target/debug/deps -maxdepth 1 -type f -perm -u+x -name 'sum-*' | head -1)
	[ -n "$bin" ]
	run env HOME="$OUTSIDE" "$bin"
	local bare
	bare=$(verdicts <<<"$output")
	[[ $bare == *"test tests::sums ... ok"* ]]
	run -0 --separate-stderr env HOME="$OUTSIDE" "$SHARNESS_EXEC" learn -o draft.json -- "$bin"
	echo "$output"
	local hash
	hash=$("$SHARNESS_EXEC" hash draft.json)
	run --separate-stderr env HOME="$OUTSIDE" "$SHARNESS_EXEC" run -p draft.json -H "$hash" -- "$bin"
	[ "$(verdicts <<<"$output")" = "$bare" ]
}

@test "learn: meson's example suite runs under the draft exactly as bare" {
	require_feature landlock
	require_feature tool:meson
	require_feature tool:ninja
	require_feature tool:cc
	cp -R "$top_srcdir/examples/meson" "$top_srcdir/examples/src" "$PROJ/"
	chmod -R u+w "$PROJ"
	cd "$PROJ/meson"
	# The example's exe_wrapper confines each test with the example's
	# policy; here the learned draft confines the whole of meson test, so
	# the wrapper only passes the test on. It is found in ~/.local/bin at
	# setup: a HOME in the project for that, outside it for the runs (a
	# file in the caller's home is never granted).
	mkdir -p wrapper-home/.local/bin
	printf '#!/bin/sh\nexec "$@"\n' >wrapper-home/.local/bin/sum-meson-test
	chmod 755 wrapper-home/.local/bin/sum-meson-test
	run -0 env HOME="$PWD/wrapper-home" meson setup build
	run -0 ninja -C build
	export HOME="$OUTSIDE"
	run meson test -C build --no-rebuild
	local bare
	bare=$(grep -E '^(Ok|Fail|Expected Fail|Unexpected Pass|Skipped|Timeout): ' <<<"$output")
	[[ $bare == *"Ok:"* ]]
	run -0 --separate-stderr "$SHARNESS_EXEC" learn -o draft.json -- meson test -C build --no-rebuild
	echo "$output"
	local hash
	hash=$("$SHARNESS_EXEC" hash draft.json)
	run "$SHARNESS_EXEC" run -p draft.json -H "$hash" -- meson test -C build --no-rebuild
	echo "$output"
	[ "$(grep -E '^(Ok|Fail|Expected Fail|Unexpected Pass|Skipped|Timeout): ' <<<"$output")" = "$bare" ]
}
