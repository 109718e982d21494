#!/usr/bin/env bats
# not tested: a kernel that really lacks Landlock (simulated here by a
# seccomp filter that answers ENOSYS, try/deny-landlock); a machine without
# network namespaces or with delegated cgroup v2 (hello's caveats for those
# come from the same facts probe.bats checks); how long hello takes (see
# bench/hello.sh).
load ../helpers/load

HELLO_HASH=sha256:ce63861acaca388d965240fe54c656b9b3e8902d9a1d73731a6fc04b2ba8253f
HELLO_POLICY='{"pbp":1,"id":"sharness-exec-hello","files":{"read":["/etc"],"write":[],"exec":["/bin","/lib","/lib64","/sbin","/usr"]},"network":"none","process":{"no_new_privs":true,"max_memory_mb":256}}'
DENY_LANDLOCK="$TRYDIR/deny-landlock"

setup() {
	setup_tmp
	# hello's own temp dirs go here, so the test can see they are removed
	mkdir "$TMP/t" "$TMP/cwd"
	chmod 1777 "$TMP/t"
}

# Probe files hello would have left in /tmp had a write got through.
leftovers() {
	find /tmp "$TMP" -name 'sharness-exec-hello.*.tmp' -o -name 'sharness-exec-hello.*.cwd' \
		2>/dev/null
}

# assert_all_held: the report of a run where every expectation held
assert_all_held() {
	[ "${lines[1]}" = "$HELLO_POLICY" ]
	[ "${lines[2]}" = "hash $HELLO_HASH (the published hash)" ]
	printf '%s\n' "$output" | grep -qx '6/6 held'
	[ "$(printf '%s\n' "$output" | grep -cE '^(read|write|TCP|a local server|allocate|wrong).* held ')" = 7 ]
	! printf '%s\n' "$output" | grep -q 'NOT held'
	printf '%s\n' "$output" | grep -qE '^read /etc/(os-release|passwd) +allowed +held +allowed: '
	printf '%s\n' "$output" | grep -qE '^wrong --expect-hash +refused +held +refused \(exit 125\)'
	printf '%s\n' "$output" | grep -qE '^a local server works +allowed +held +allowed: a server and a client on 127\.0\.0\.1 inside exchanged a line each way$'
	[ "${lines[-1]}" = "hello: every expectation held" ]
	[ "${lines[3]}" = "Landlock ABI $("$TRY" landlock-abi) on kernel $(uname -r)" ]
	printf '%s\n' "$output" | grep -qx 'walls a run of this policy put up (run --check):'
	printf '%s\n' "$output" | grep -qx '  network     a network namespace of its own'
	printf '%s\n' "$output" | grep -qx '  pid         a pid namespace'
	printf '%s\n' "$output" | grep -qx "  mount       a mount namespace: only the policy's paths exist"
	printf '%s\n' "$output" | grep -qxE "  landlock    ABI $("$TRY" landlock-abi), scoped .*, seccomp filter on, capabilities none"
	[ -z "$(find "$TMP/t" "$TMP/cwd" -mindepth 1)" ]
	[ -z "$(leftovers)" ]
}

@test "hello: usage errors exit 125, one fatal line and the usage" {
	run -125 --separate-stderr "$SHARNESS_EXEC" hello extra
	[ "$stderr" = "sharness-exec-probe: fatal: unknown option extra
usage: sharness-exec hello" ]
	[ -z "$output" ]
	run -0 --separate-stderr "$SHARNESS_EXEC" hello --help
	[ "${lines[0]}" = "usage: sharness-exec hello" ]
}

@test "hello as root: 6/6 held, the published hash, nothing left behind" {
	require_feature root
	require_feature landlock
	cd "$TMP/cwd"
	run -0 --separate-stderr env TMPDIR="$TMP/t" "$SHARNESS_EXEC" hello
	assert_all_held
	printf '%s\n' "$output" | grep -qE '^write in the current directory +refused +held '
	printf '%s\n' "$output" | grep -qE '^write in /tmp +refused +held +refused .*no file appeared'
	printf '%s\n' "$output" | grep -qE '^TCP to 127\.0\.0\.1:[0-9]+ +refused +held .*listener accepted nothing'
	printf '%s\n' "$output" | grep -qE '^allocate 512 MiB \(cap 256 MiB\) +refused +held '
}

@test "hello as nobody: 6/6 held, nothing left behind" {
	require_feature nobody
	require_feature landlock
	chown "$NOBODY_UID:$NOBODY_GID" "$TMP/cwd"
	cd "$TMP/cwd"
	run -0 --separate-stderr as_nobody env TMPDIR="$TMP/t" "$SHARNESS_EXEC" hello
	assert_all_held
	printf '%s\n' "$output" | grep -qE '^write in the current directory +refused +held '
	# nobody has no writable memory cgroup here unless v2 is delegated to it
	if ! as_nobody "$SHARNESS_EXEC" probe --json | grep -q '"memory":"cgroup'; then
		printf '%s\n' "$output" | grep -q 'memory is capped by RLIMIT_AS'
	fi
}

@test "hello as nobody in a directory it cannot write: says so, tests its temp dir instead" {
	require_feature nobody
	require_feature landlock
	cd "$TMP"
	! as_nobody test -w .
	run -0 --separate-stderr as_nobody env TMPDIR="$TMP/t" "$SHARNESS_EXEC" hello
	assert_all_held
	printf '%s\n' "$output" | grep -qE "^write in hello's temp dir +refused +held "
	printf '%s\n' "$output" | grep -qx '  - the current directory is not writable by you even unconfined, so a refusal there would prove nothing: hello'"'"'s temp dir stood in'
}

@test "hello reports a loosened policy: the write in /tmp is NOT held, exit 126" {
	require_feature landlock
	local loose=$TMP/loose.json want
	write_policy "$loose" '{"pbp":1,"id":"loosened","files":{"read":["/etc"],"write":["/tmp"],"exec":["/bin","/lib","/lib64","/sbin","/usr"]},"network":"none","process":{"no_new_privs":true,"max_memory_mb":256}}'
	want=$("$SHARNESS_EXEC" hash "$loose")
	# a current directory outside /tmp, so only the /tmp probe breaks (the
	# build tree itself may lie beneath /tmp)
	local cwd
	cwd=$(mktemp -d /var/tmp/sharness-exec-hello-test.XXXXXX)
	cd "$cwd"
	run -126 --separate-stderr env TMPDIR="$TMP/t" SHARNESS_EXEC_HELLO_POLICY="$loose" \
		"$SHARNESS_EXEC" hello
	cd /
	rmdir "$cwd"
	printf '%s\n' "$output" "$stderr"
	[ "${lines[2]}" = "hash $want (a test policy)" ]
	printf '%s\n' "$output" | grep -qE '^write in /tmp +refused +NOT held +the file /tmp/sharness-exec-hello\.[0-9]+\.[A-Za-z0-9]{6}\.tmp was created'
	printf '%s\n' "$output" | grep -qE '^write in the current directory +refused +held '
	printf '%s\n' "$output" | grep -qx '5/6 held'
	[ "${lines[-1]}" = "hello: 1 expectation did NOT hold" ]
	# hello removed what the loosened probe created
	[ -z "$(leftovers)" ]
	[ -z "$(find "$TMP/t" -mindepth 1)" ]
}

@test "hello where no namespace can be made: the local server is NOT held, and it says why" {
	# As nobody: for a root caller without a mount namespace the view
	# step's strict mode refuses every probe (the next test).
	require_feature landlock
	require_feature nobody
	cd "$TMP/cwd"
	run -126 --separate-stderr as_nobody env TMPDIR="$TMP/t" "$TRYDIR/deny-unshare" "$SHARNESS_EXEC" hello
	printf '%s\n' "$output" | grep -qE '^a local server works +allowed +NOT held +refused \(exit [0-9]+\): listen: Address family not supported by protocol$'
	printf '%s\n' "$output" | grep -qE '^TCP to 127\.0\.0\.1:[0-9]+ +refused +held '
	printf '%s\n' "$output" | grep -qF 'so loopback is unavailable and no local server works'
	printf '%s\n' "$output" | grep -qx '5/6 held'
	[ "${lines[-1]}" = "hello: 1 expectation did NOT hold" ]
	# which walls stood: no namespace of any kind, Landlock alone
	printf '%s\n' "$output" | grep -qx '  network     NO namespace: a seccomp filter refuses sockets but AF_UNIX'
	printf '%s\n' "$output" | grep -qx '  pid         NO namespace: a subreaper'
	printf '%s\n' "$output" | grep -qx '  mount       NO mount namespace (unshare: Operation not permitted): Landlock alone'
	# and what a container needs, in one line (issue 42)
	[ "$(printf '%s\n' "$output" | grep -c -- "--security-opt seccomp=unconfined --security-opt apparmor=unconfined")" = 1 ]
}

@test "hello as root where no namespace can be made: nothing runs half-confined (126), and it says why" {
	require_feature landlock
	require_feature root
	cd "$TMP/cwd"
	run -126 --separate-stderr env TMPDIR="$TMP/t" "$TRYDIR/deny-unshare" "$SHARNESS_EXEC" hello
	printf '%s\n' "$output" | grep -qx '0/6 held'
	printf '%s\n' "$output" | grep -qE '^read /etc/os-release +allowed +NOT held +did not run: sharness-exec exit 126: hint: for a root caller chmod '
	[ "${lines[-1]}" = "hello: 6 expectations did NOT hold" ]
	printf '%s\n' "$output" | grep -qx '  landlock    the run did not go through: sharness-exec-view: fatal: unable to make a mount namespace: Operation not permitted'
}

@test "hello's walls are probe's: the same chain, asked the same way" {
	require_feature landlock
	require_feature tool:python3
	cd "$TMP/cwd"
	run -0 --separate-stderr env TMPDIR="$TMP/t" "$SHARNESS_EXEC" hello
	local hello=$output
	run -0 --separate-stderr "$SHARNESS_EXEC" probe --json
	run -0 python3 -c 'import json, sys
d = json.loads(sys.argv[1]); w = d["walls"]
print("network", w["network"]); print("pid", w["pid"]); print("mount", w["mount"])
print("abi", w["landlock_abi"]); print("memory", d["cgroup"]["memory"])' "$output"
	[[ "$output" == *"network namespace"* ]] && grep -qx '  network     a network namespace of its own' <<<"$hello"
	[[ "$output" == *"pid namespace"* ]] && grep -qx '  pid         a pid namespace' <<<"$hello"
	[[ "$output" == *"mount namespace"* ]] && grep -qx "  mount       a mount namespace: only the policy's paths exist" <<<"$hello"
	grep -qE "^  landlock    ABI $(sed -n 's/^abi //p' <<<"$output")," <<<"$hello"
	if [[ "$output" == *"memory cgroup1"* ]]; then
		grep -qE '^  memory      cgroup v1, beneath /' <<<"$hello"
	fi
}

@test "the test hook exists only in the test build" {
	grep -q SHARNESS_EXEC_HELLO_POLICY "$SHARNESS_EXEC"
	! grep -q SHARNESS_EXEC_HELLO_POLICY "$top_builddir/sharness-exec"
}

@test "hello without Landlock says so plainly, and the view and the namespaces hold its probes" {
	cd "$TMP/cwd"
	run -0 --separate-stderr env TMPDIR="$TMP/t" "$DENY_LANDLOCK" 38 "$SHARNESS_EXEC" hello
	printf '%s\n' "$output" | grep -q '^Landlock is NOT available here (blocked by a seccomp filter): only the view and the namespaces can hold the files'
	printf '%s\n' "$output" | grep -qx '6/6 held'
	printf '%s\n' "$output" | grep -qE '^  FS +view$'
	printf '%s\n' "$output" | grep -qE '^  SCOPE_SIGNAL +pidns\+seccomp$'
	printf '%s\n' "$output" | grep -qE '^wrong --expect-hash +refused +held '
	[ "${lines[-1]}" = "hello: every expectation held" ]
	[ -z "$(find "$TMP/t" "$TMP/cwd" -mindepth 1)" ]
}

@test "hello at a simulated Landlock ABI 2 (Debian 12's kernel): strict, every probe held, each right's wall named" {
	cd "$TMP/cwd"
	run -0 --separate-stderr env TMPDIR="$TMP/t" SHARNESS_EXEC_TEST_ABI=2 "$SHARNESS_EXEC" hello
	printf '%s\n' "$output" | grep -qx '6/6 held'
	printf '%s\n' "$output" | grep -qE '^  landlock    ABI 2,'
	printf '%s\n' "$output" | grep -qE '^  FS_TRUNCATE +view$'
	printf '%s\n' "$output" | grep -qE '^  SCOPE_ABSTRACT_UNIX_SOCKET +netns$'
	printf '%s\n' "$output" | grep -qE '^  SCOPE_SIGNAL +pidns\+seccomp$'
	! printf '%s\n' "$output" | grep -qE ':none|  none$'
	[ "${lines[-1]}" = "hello: every expectation held" ]
}

@test "hello prints the policy it publishes, and it hashes to the published hash" {
	run -0 --separate-stderr env TMPDIR="$TMP/t" "$SHARNESS_EXEC" hello
	[ "${lines[1]}" = "$HELLO_POLICY" ]
	printf '%s' "${lines[1]}" >"$TMP/hello.json"
	run -0 --separate-stderr "$SHARNESS_EXEC" hash "$TMP/hello.json"
	[ "$output" = "$HELLO_HASH" ]
}

@test "the README, sharness-exec-policy(5) and the web page show the hello policy and hash" {
	local f
	for f in README.md man/sharness-exec-policy.5 web/policy-hash.html; do
		grep -qF 'sharness-exec-hello' "$top_srcdir/$f" || { echo "$f: no hello policy"; return 1; }
		grep -qF "${HELLO_HASH#sha256:}" "$top_srcdir/$f" || { echo "$f: no hello hash"; return 1; }
	done
}

@test "the docs that show the hello policy or its hash agree with hello" {
	local f
	for f in "$top_srcdir"/README.md "$top_srcdir"/man/*.[1-9] "$top_srcdir"/web/*.html; do
		[ -f "$f" ] && grep -q 'sharness-exec-hello' "$f" || continue
		# the policy, wherever written compactly, byte for byte
		grep -oE '\{"pbp":1,"id":"sharness-exec-hello"[^}]*\}[^}]*\}\}' "$f" |
			while IFS= read -r shown; do
				[ "$shown" = "$HELLO_POLICY" ] || { echo "$f: $shown"; exit 1; }
			done
		# a hash that starts like the published one is the published one
		grep -oE 'ce63861a[0-9a-fA-F]*' "$f" | while IFS= read -r shown; do
			[ "sha256:$shown" = "$HELLO_HASH" ] || { echo "$f: $shown"; exit 1; }
		done
	done
}
