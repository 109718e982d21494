#!/usr/bin/env bats
# Every example of examples/ builds and runs its test suite confined, the
# way its files say, with the sharness-exec of this build tree first in
# PATH; each pins the hash of its own policy (the GitHub Actions one pins
# the action, which writes its policy, by commit); each suite's canary (a test
# that tries to create a file in $HOME) passes only because it is confined.
# The GitHub Actions example runs through the action's script
# (action/run.sh) with the inputs its workflow gives the action, on a
# SIMULATED runner layout (tests/helpers/runner.bash).
# not tested: the GitHub Actions workflow on GitHub (not the action's
# install step, not the YAML as a whole);
# the examples as a user without a delegated cgroup (process limits then
# fall back to per-user rlimits); examples built outside /tmp/examples,
# which their policies do not allow.

load ../helpers/load
load ../helpers/runner

EXAMPLES="$top_srcdir/examples"

setup() {
	setup_tmp
	# Run the examples as from a fresh shell, not as part of the `make check`
	# that runs this file: its MAKEFLAGS would carry TESTS=... into theirs.
	unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
	# The policies of the examples allow writing beneath /tmp/examples
	# only, with a private /tmp: build there. $HOME, which the canaries try to write to, must lie
	# outside /tmp, and is a scratch directory so that a broken
	# confinement cannot touch the real one.
	# Another checkout's teardown removes /tmp/examples when it is empty:
	# it may go between the mkdir and the mktemp, so try again.
	local i
	for i in 1 2 3 4 5; do
		[ -d /tmp/examples ] || mkdir -m 1777 /tmp/examples 2>/dev/null || true
		WORK=$(mktemp -d /tmp/examples/sharness-exec.XXXXXX 2>/dev/null) && break
		WORK=
	done
	[ -n "$WORK" ]
	REAL_HOME=$HOME
	local base
	# The teardown removes SCRATCH_HOME, which only this mktemp sets: never
	# $HOME, which is the caller's until the line below.
	SCRATCH_HOME=
	for base in /var/tmp "$top_builddir"; do
		[ -d "$base" ] && [ -w "$base" ] || continue
		case $(realpath "$base")/ in /tmp/*) continue ;; esac
		SCRATCH_HOME=$(mktemp -d "$base/sharness-exec-home.XXXXXX")
		break
	done
	HOME=$SCRATCH_HOME
	export HOME TMPDIR=$WORK
	mkdir "$WORK/bin"
	ln -s "$SHARNESS_EXEC" "$WORK/bin/sharness-exec"
	# The wrappers of the Meson, Go and Cargo examples, outside /tmp.
	export PATH="$WORK/bin:$HOME/.local/bin:$PATH"
}

teardown() {
	[ -n "${WORK:-}" ] && rm -rf "$WORK"
	[ -n "${RUNNER_WORK:-}" ] && rm -rf "${RUNNER_WORK%/work}"
	rmdir /tmp/examples 2>/dev/null || true
	[ -n "${SCRATCH_HOME:-}" ] && rm -rf "$SCRATCH_HOME"
	teardown_tmp
}

# require_home: a $HOME outside /tmp was found.
require_home() {
	require_feature dir-outside-tmp
	[ -n "$HOME" ]
}

# example NAME: copy examples/NAME, and the C sources the examples share
# (examples/src), beneath $WORK and cd there.
example() {
	require_feature landlock
	require_home
	cp -R "$EXAMPLES/$1" "$EXAMPLES/src" "$WORK/"
	# make distcheck runs this from a read-only source tree.
	chmod -R u+w "$WORK"
	cd "$WORK/$1"
}

# pins DIR POLICY: every hash the files of DIR pin is that of POLICY.
pins() {
	local want pinned
	want=$("$SHARNESS_EXEC" hash "$2")
	[[ $want == sha256:* ]]
	pinned=$(grep -rhoE --exclude='*.json' 'sha256:[0-9a-f]{64}' "$1" | sort -u)
	echo "pinned: $pinned"$'\n'"policy: $want"
	[ "$pinned" = "$want" ]
}

# command_line FILE PREFIX: the command the comment line "PREFIX $ ..." of
# FILE documents.
command_line() {
	sed -n "s|^$2 \\\$ ||p" "$1"
}

# no_canary: the canaries left nothing in $HOME, which holds at most the
# wrappers an example wrote to ~/.local/bin.
no_canary() {
	local left
	left=$(find "$HOME" -mindepth 1 ! -path "$HOME/.local" ! -path "$HOME/.local/bin" \
		! -path "$HOME/.local/bin/sum-*-test")
	[ -z "$left" ] || { echo "left in \$HOME: $left"; return 1; }
}

# wrapper NAME: the wrapper ~/.local/bin/NAME that `sharness-exec wrap`
# wrote: 0755, the caller's, the example's policy by absolute path.
wrapper() {
	local w="$HOME/.local/bin/$1"
	[ "$(stat -c '%a %u' "$w")" = "755 $(id -u)" ]
	grep -qF "wrap --exec '$w' --policy '$PWD/policy.json' '--expect-hash' 'sha256:" "$w"
}

@test "every example's policy is valid and its hash is the one pinned" {
	local n=0 d p
	for d in "$EXAMPLES"/*/; do
		[ "$d" = "$EXAMPLES/src/" ] && continue
		# The action writes its own policy; the workflow pins the
		# action by commit instead.
		if [ "$d" = "$EXAMPLES/github-actions/" ]; then
			[ -z "$(find "$d" -name '*.json')" ]
			grep -qE '^        uses: OWNER/sharness-exec@[0-9a-f]{40} # pinned by commit$' \
				"$d/.github/workflows/test.yml"
			continue
		fi
		p=$(find "$d" -name policy.json)
		[ -f "$p" ]
		run -0 --separate-stderr "$SHARNESS_EXEC" check "$p"
		pins "$d" "$p"
		n=$((n + 1))
	done
	[ "$n" = 8 ]
}

@test "every example is in examples/README.md, and every link there exists" {
	local d link n=0
	for d in "$EXAMPLES"/*/; do
		d=$(basename "$d")
		grep -q "]($d/" "$EXAMPLES/README.md" || { echo "not in README.md: $d"; return 1; }
	done
	for link in $(grep -oE '\]\([^)#]+\)' "$EXAMPLES/README.md" | sed 's/^](//; s/)$//'); do
		[ -e "$EXAMPLES/$link" ] || { echo "broken link: $link"; return 1; }
		n=$((n + 1))
	done
	[ "$n" -ge 9 ]
}

@test "make: make check runs the suite confined" {
	require_feature tool:make
	require_feature tool:cc
	example make
	run -0 --separate-stderr make check
	[[ $output == *"ok: sum"* ]]
	[[ $output == *"ok: cannot write to $HOME"* ]]
	no_canary
}

@test "make: the canary fails when the suite runs bare" {
	require_feature tool:make
	require_feature tool:cc
	example make
	run -0 make test-home
	run -1 --separate-stderr ./test-home
	[[ $stderr == *"this suite is not confined"* ]]
	no_canary
}

@test "make: a policy that no longer matches its pin runs nothing" {
	require_feature tool:make
	require_feature tool:cc
	example make
	run -0 make all
	sed -i 's|"write": \["/dev/null", "/tmp/examples"\]|"write": ["/dev/null", "/tmp/examples", "'"$HOME"'"]|' policy.json
	grep -q "$HOME" policy.json
	run -2 --separate-stderr make check
	[[ $stderr == *"refused: policy hash is sha256:"* ]]
	[[ $output != *"ok: sum"* ]]
	no_canary
}

@test "automake: LOG_COMPILER runs every test confined, AM_TESTS_ENVIRONMENT gets through" {
	require_feature tool:autoreconf
	require_feature tool:make
	require_feature tool:cc
	example automake
	pins . policy.json
	run -0 autoreconf -fi
	mkdir _build
	cd _build
	run -0 ../configure
	run -0 make check
	[[ $output == *"PASS: test-sum"* ]]
	[[ $output == *"PASS: test-home"* ]]
	[[ $output == *"# FAIL:  0"* ]]
	grep -q "ok: sum of 4 numbers" test-sum.log
	grep -q "ok: cannot write to $HOME" test-home.log
	no_canary
}

@test "automake: a variable the policy does not inherit does not reach the tests" {
	require_feature tool:autoreconf
	require_feature tool:make
	require_feature tool:cc
	example automake
	# Take SUM_DATA out of env.inherit, and pin the new hash.
	sed -i 's/"inherit": \["SUM_DATA"\]/"inherit": []/' policy.json
	run -0 "$SHARNESS_EXEC" hash policy.json
	sed -i "s/^POLICY_HASH = .*/POLICY_HASH = $output/" Makefile.am
	run -0 autoreconf -fi
	run -0 ./configure
	run -2 make check
	[[ $output == *"FAIL: test-sum"* ]]
	[[ $output == *"PASS: test-home"* ]]
	grep -q "SUM_DATA is not set" test-sum.log
}

@test "meson: the default test setup's exe_wrapper, from sharness-exec wrap, runs every test confined" {
	require_feature tool:meson
	require_feature tool:ninja
	require_feature tool:cc
	example meson
	pins . policy.json
	local line
	line=$(command_line meson.build '#')
	[[ $line == "mkdir -p ~/.local/bin && sharness-exec wrap -o ~/.local/bin/sum-meson-test "*"meson test -C build" ]]
	grep -q "^add_test_setup('confined', is_default: true," meson.build
	run -0 sh -c "$line"
	wrapper sum-meson-test
	[[ $output =~ Ok:\ +2 ]]
	[[ $output =~ Fail:\ +0 ]]
	grep -q "ok: cannot write to $HOME" build/meson-logs/testlog*.txt
	no_canary
}

@test "go: GOFLAGS=-exec= and a wrapper from sharness-exec wrap run the test binary confined" {
	require_feature tool:go
	example go
	pins . policy.json
	local line
	line=$(command_line sum_test.go '//')
	[[ $line == "mkdir -p ~/.local/bin && sharness-exec wrap -o ~/.local/bin/sum-go-test "*" && GOFLAGS=-exec=\$HOME/.local/bin/sum-go-test go test -v ./..." ]]
	export GOCACHE="$WORK/gocache" GOPATH="$WORK/gopath" GOPROXY=off GOTOOLCHAIN=local
	run -0 sh -c "$line"
	wrapper sum-go-test
	[[ $output == *"--- PASS: TestSum"* ]]
	[[ $output == *"--- PASS: TestCannotWriteHome"* ]]
	# Its own HTTP servers on 127.0.0.1 and ::1 (httptest), inside.
	[[ $output == *"--- PASS: TestLocalServer"* ]]
	[[ $output == *"--- PASS: TestLocalServerIPv6"* ]]
	no_canary
}

@test "cargo: the runner of .cargo/config.toml, from sharness-exec wrap, runs cargo test confined" {
	require_feature tool:cargo
	# cargo from rustup finds its toolchains through the real home.
	[ -d "$REAL_HOME/.rustup" ] && export RUSTUP_HOME="${RUSTUP_HOME:-$REAL_HOME/.rustup}"
	example cargo
	# cargo's own home (its package cache, which Debian's cargo locks as it
	# writes Cargo.lock) is neither the scratch $HOME the canary watches
	# nor the caller's.
	export CARGO_HOME="$WORK/cargo-home"
	pins . policy.json
	grep -qx 'runner = "sum-cargo-test"' .cargo/config.toml
	run -0 sh -c "$(command_line .cargo/config.toml '#')"
	wrapper sum-cargo-test
	CARGO_NET_OFFLINE=true run -0 --separate-stderr cargo test
	[[ $output == *"test tests::sums ... ok"* ]]
	[[ $output == *"test tests::cannot_write_home ... ok"* ]]
	# The policy's path is absolute: the same from a subdirectory.
	cd src
	CARGO_NET_OFFLINE=true run -0 --separate-stderr cargo test
	[[ $output == *"test tests::cannot_write_home ... ok"* ]]
	no_canary
}

@test "cmake: ctest runs every test through the launcher, confined" {
	require_feature tool:cmake
	require_feature tool:ctest
	require_feature tool:cc
	example cmake
	pins . policy.json
	run -0 cmake -B build
	run -0 cmake --build build
	run -0 ctest --test-dir build -V
	[[ $output == *"100% tests passed, 0 tests failed out of 3"* ]]
	[[ $output == *'Test command: '*'sharness-exec "run" "--policy"'*'"--timeout" "5m" "--report" '* ]]
	[[ $output == *"ok: cannot write to $HOME"* ]]
	# each target's report, made again on the next run
	run -0 ctest --test-dir build
	run -0 python3 -c 'import json, sys; print(*(json.load(open(f))["outcome"] for f in sys.argv[1:]))' \
		build/test-sum.report.json build/test-home.report.json
	[ "$output" = "exited exited" ]
	no_canary
}

# workflow_with KEY: the value of KEY in the with: of the workflow's step
# that uses the action, with ${{ runner.temp }} as $RUNNER_TEMP.
workflow_with() {
	awk -v key="$1" '/^        uses: OWNER\/sharness-exec@/ { f = 1; next }
		f && /^        with:$/ { w = 1; next }
		f && w && /^          [a-z-]+: / { k = $1; sub(/:$/, "", k); if (k == key) { sub(/^ *[a-z-]+: /, ""); print } next }
		f && w { exit }' "$EXAMPLES/github-actions/.github/workflows/test.yml" |
		sed 's|\${{ runner\.temp }}|'"$RUNNER_TEMP"'|'
}

@test "GitHub Actions: the action, with the workflow's inputs, runs the suite confined (simulated runner)" {
	local yml="$EXAMPLES/github-actions/.github/workflows/test.yml" user key keys
	# checkout persists no token, and the report is kept, whatever the
	# suite did.
	grep -A2 -- '- uses: actions/checkout@' "$yml" | grep -qx '          persist-credentials: false'
	grep -A2 -- '- name: Keep the run'"'"'s report' "$yml" | grep -qF 'if: always()'
	grep -qxF '          path: ${{ runner.temp }}/sharness-exec-report.json' "$yml"
	require_feature landlock
	require_feature root
	user=runner
	getent passwd runner >/dev/null || user=65534:65534
	runner_layout "$user"
	cp -R "$EXAMPLES/github-actions/." "$WS/"
	chmod -R u+w "$WS"
	chown -R "$user" "$WS"
	keys=$(awk '/^        uses: OWNER\/sharness-exec@/ { f = 1; next }
		f && /^          [a-z-]+: / { sub(/:$/, "", $1); print $1; next }
		f && !/^        with:$/ { exit }' "$yml")
	[ "$keys" = "run"$'\n'"timeout"$'\n'"report" ]
	[ "$(workflow_with report)" = "$RT/sharness-exec-report.json" ]
	for key in $keys; do
		action_input "$key" "$(workflow_with "$key")"
	done
	action_input user "$user"
	GITHUB_TOKEN=ghs_not_for_the_tests ACTIONS_RUNTIME_TOKEN=not_for_the_tests action_run
	echo "$status: $stderr"
	[ "$status" = 0 ]
	local home
	home=$(getent passwd "${user%%:*}" | cut -d: -f6)
	[[ $output == *"ok: write beneath /tmp"* ]]
	[[ $output == *"ok: no secret of the caller is visible"* ]]
	[[ $output == *"ok: cannot write to $home"* ]]
	[[ $output != *"not ok"* ]]
	run -0 python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(r["outcome"], r["target"]["exit_code"], r["timeout"]["after_s"])' "$RT/sharness-exec-report.json"
	[ "$output" = "exited 0 1800" ]
}

@test "shell: ci.sh runs its untrusted steps confined" {
	example shell
	pins . policy.json
	run -0 --separate-stderr ./ci.sh
	[[ $output == *"ok: no secret of the caller is visible"* ]]
	[[ $output == *"ok: cannot write to $HOME"* ]]
	[[ $output == *"ci.sh: all tests passed" ]]
	no_canary
}

@test "shell: run bare, the suite's canaries fail" {
	example shell
	CI_TOKEN=secret run -1 --separate-stderr sh tests.sh
	[[ $output == *"not ok: a secret of the caller is visible"* ]]
	[[ $output == *"not ok: wrote to $HOME: not confined"* ]]
	no_canary
}

# in_netns SCRIPT: run SCRIPT (sh) as root in a network and mount namespace
# this test made, lo up and the example's resolv.conf in /etc, with the
# example's resolver on 127.0.0.1 port 53, which only this namespace sees.
in_netns() {
	timeout 120 unshare --net --mount sh -c '
		set -e
		ip link set lo up
		mount --bind ./resolv.conf /etc/resolv.conf
		rm -f "$TMPDIR/dns.ready"
		python3 ./resolver.py 53 "$TMPDIR/dns.ready" build.example=192.0.2.7 &
		resolver=$!
		trap "kill $resolver" EXIT
		for i in $(seq 400); do [ -e "$TMPDIR/dns.ready" ] && break; sleep 0.05; done
		'"$1"
}

@test "dns: a pinned policy resolves a name through the test's own resolver, over TCP port 53" {
	require_feature root
	require_feature netns
	require_feature tool:ip
	require_feature tool:getent
	require_feature tool:python3
	example dns
	# Bare, the resolver answers; confined, through TCP port 53 only.
	run -0 --separate-stderr in_netns 'getent hosts build.example'
	[ "$output" = "192.0.2.7       build.example" ]
	run -0 --separate-stderr in_netns 'sh ./lookup.sh build.example'
	[ "$output" = "192.0.2.7       build.example" ]
	run -2 --separate-stderr in_netns 'sh ./lookup.sh nothing.example'
	[ "$output" = "" ]
	# Without use-vc glibc asks over UDP first, which the policy refuses:
	# no UDP key, so no UDP socket at all.
	sed -i '/^options/d' resolv.conf
	run -0 --separate-stderr in_netns 'getent hosts build.example'
	run -2 --separate-stderr in_netns 'sh ./lookup.sh build.example'
	[ "$output" = "" ]
	# The command line its comment documents is the one that works.
	[ "$(command_line lookup.sh '#  ')" = "sh lookup.sh NAME" ]
}
