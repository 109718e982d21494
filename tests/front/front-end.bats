#!/usr/bin/env bats
# The front end `sharness-exec`: command line, the pinned hash, the
# environment the target gets (DESIGN.md 2.2), inherited descriptors.
# not tested: a policy on a filesystem that lies about permissions.
load ../helpers/load

# Read and exec what a shell and the probe program need, nothing else.
DENY='{"pbp":1,"id":"fe","files":{"exec":["/usr","/bin","/lib","/lib64","'"$TRYDIR"'"],"read":["/etc","/proc"]},"network":"none","process":{"no_new_privs":true}}'

@test "no arguments: 125, one fatal line and the usage on stderr" {
	run -125 --separate-stderr "$SHARNESS_EXEC"
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: no command given" ]
	[[ "${stderr_lines[1]}" == "usage: sharness-exec run "* ]]
	[ -z "$output" ]
}

@test "an unknown command or option: 125, one fatal line, then the usage" {
	run -125 --separate-stderr "$SHARNESS_EXEC" frobnicate
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: unknown command frobnicate" ]
	write_policy "$TMP/p.json" "$DENY"
	run -125 --separate-stderr "$SHARNESS_EXEC" run --frobnicate -p "$TMP/p.json" -- true
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: unknown option --frobnicate" ]
	[[ "${stderr_lines[1]}" == "usage: sharness-exec run "* ]]
	[ "${#stderr_lines[@]}" = 2 ]
	run -125 --separate-stderr "$SHARNESS_EXEC" run -p
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: option -p needs a value" ]
	run -125 --separate-stderr "$SHARNESS_EXEC" keygen -Z
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: unknown option -Z" ]
	[ "${stderr_lines[1]}" = "usage: sharness-exec keygen -o NAME" ]
}

@test "--help and --version go to stdout with status 0" {
	run -0 --separate-stderr "$SHARNESS_EXEC" --help
	[[ "$output" == "usage: sharness-exec run "* ]]
	[[ "$output" == *"exit status"* ]]
	run -0 --separate-stderr "$SHARNESS_EXEC" --version
	[[ "${lines[0]}" =~ ^sharness-exec\ [0-9]+\.[0-9]+\.[0-9]+$ ]]
	[ "${lines[1]}" = "License: MIT" ] && [ "${#lines[@]}" = 2 ]
	# The licence it names is the one the tree ships.
	grep -qx 'MIT License' "$top_srcdir/LICENSE"
	run -0 --separate-stderr "$SHARNESS_EXEC" run --help
	[[ "$output" == "usage: sharness-exec run "* ]]
}

@test "run without --policy or without a command: 125" {
	run -125 --separate-stderr "$SHARNESS_EXEC" run -- true
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: run needs --policy FILE" ]
	[[ "${stderr_lines[1]}" == "usage: sharness-exec run "* ]]
	write_policy "$TMP/p.json" "$DENY"
	run -125 --separate-stderr "$SHARNESS_EXEC" run -p "$TMP/p.json"
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: run needs a COMMAND after the options" ]
	run -125 --separate-stderr "$SHARNESS_EXEC" run -p "$TMP/p.json" --
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: run needs a COMMAND after the options" ]
}

@test "a hash mismatch is refused with both hashes and nothing runs" {
	require_feature landlock
	write_policy "$TMP/p.json" '{"pbp":1,"id":"w","files":{"exec":["/usr","/bin","/lib","/lib64"],"write":["'"$TMP"'"]},"network":"none","process":{"no_new_privs":true}}'
	have=$("$SHARNESS_EXEC" hash "$TMP/p.json")
	zero=sha256:$(printf '0%.0s' {1..64})
	run -125 --separate-stderr "$SHARNESS_EXEC" run -p "$TMP/p.json" -H "$zero" -- touch "$TMP/ran"
	[ "$stderr" = "sharness-exec: fatal: refused: policy hash is $have, expected $zero. Nothing ran." ]
	[ ! -e "$TMP/ran" ]
	# The same policy with its own hash runs (a positive control).
	run -0 --separate-stderr "$SHARNESS_EXEC" run -p "$TMP/p.json" -H "$have" -- touch "$TMP/ran"
	[ -e "$TMP/ran" ]
	# Upper-case hex is the same hash.
	rm "$TMP/ran"
	run -0 "$SHARNESS_EXEC" run -p "$TMP/p.json" -H "sha256:$(echo "${have#sha256:}" | tr a-f A-F)" -- touch "$TMP/ran"
	[ -e "$TMP/ran" ]
}

@test "a malformed --expect-hash is a usage error" {
	write_policy "$TMP/p.json" "$DENY"
	for h in sha256: sha256:abc md5:0123 "sha256:$(printf 'g%.0s' {1..64})" "$(printf '0%.0s' {1..64})"; do
		run -125 --separate-stderr "$SHARNESS_EXEC" run -p "$TMP/p.json" -H "$h" -- true
		[[ "$stderr" == *"--expect-hash must be sha256: and 64 hex digits"* ]]
	done
}

@test "an invalid policy is refused with the key named, and nothing runs" {
	write_policy "$TMP/p.json" '{"pbp":1,"id":"bad","files":{"write":["tmp"]},"network":"none","process":{"no_new_privs":true}}'
	run -125 --separate-stderr "$SHARNESS_EXEC" run -p "$TMP/p.json" -- touch "$TMP/ran"
	[[ "$stderr" == *'files.write[0]: not an absolute path: "tmp"'* ]]
	[ ! -e "$TMP/ran" ]
}

@test "a missing, unreadable or non-JSON policy is refused" {
	run -125 --separate-stderr "$SHARNESS_EXEC" run -p "$TMP/nope.json" -- true
	[ "${#stderr_lines[@]}" = 1 ]
	printf '{"pbp":1,' >"$TMP/trunc.json"
	run -125 --separate-stderr "$SHARNESS_EXEC" run -p "$TMP/trunc.json" -- true
	[ "${#stderr_lines[@]}" = 1 ]
}

@test "a policy file writable by others is refused" {
	write_policy "$TMP/p.json" "$DENY"
	chmod 666 "$TMP/p.json"
	run -125 --separate-stderr "$SHARNESS_EXEC" run -p "$TMP/p.json" -- true
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: refused: policy file $TMP/p.json: it is writable by group or others" ]
	[[ "${stderr_lines[1]}" == "hint: "* ]]
}

@test "a missing helper is 125 before anything runs" {
	write_policy "$TMP/p.json" "$DENY"
	run -125 --separate-stderr "$top_builddir/test-sharness-exec-nohelpers" run -p "$TMP/p.json" -- touch "$TMP/ran"
	[[ "${stderr_lines[0]}" == "sharness-exec: fatal: unable to find helper /nonexistent/sharness-exec/sharness-exec-netns: No such file or directory" ]]
	[[ "${stderr_lines[1]}" == "hint: "* ]]
	[ ! -e "$TMP/ran" ]
}

@test "the target sees only the allow-listed environment" {
	require_feature landlock
	write_policy "$TMP/p.json" "$DENY"
	run -0 --separate-stderr env -i PATH=/usr/bin:/bin HOME=/home/x USER=x LANG=C.UTF-8 TERM=dumb TZ=UTC \
		CI_SECRET_TOKEN=hunter2 AWS_SECRET_ACCESS_KEY=k LD_PRELOAD=/x.so MAKEFLAGS=-j9 \
		"$SHARNESS_EXEC" run -p "$TMP/p.json" -- /usr/bin/env
	hash=$("$SHARNESS_EXEC" hash "$TMP/p.json")
	[[ "$output" != *hunter2* ]]
	[[ "$output" != *AWS_SECRET* ]]
	[[ "$output" != *LD_PRELOAD* ]]
	[[ "$output" != *MAKEFLAGS* ]]
	want=$(printf '%s\n' PATH=/usr/bin:/bin LANG=C.UTF-8 TZ=UTC TERM=dumb HOME=/home/x USER=x \
		"SHARNESS_AI_POLICY_HASH=$hash" SHARNESS_AI_POLICY_ID=fe | sort)
	[ "$(printf '%s\n' "$output" | sort)" = "$want" ]
}

@test "env.inherit adds names, env.set sets values and wins" {
	require_feature landlock
	write_policy "$TMP/p.json" '{"pbp":1,"id":"env","files":{"exec":["/usr","/bin","/lib","/lib64"]},"network":"none","process":{"no_new_privs":true},"env":{"inherit":["MAKEFLAGS","CC"],"set":{"CI":"true","CC":"clang"}}}'
	run -0 --separate-stderr env -i PATH=/usr/bin:/bin MAKEFLAGS=-j9 CC=gcc SECRET=s \
		"$SHARNESS_EXEC" run -p "$TMP/p.json" -- /usr/bin/env
	[[ "$output" == *"MAKEFLAGS=-j9"* ]]
	[[ "$output" == *"CC=clang"* ]]
	[[ "$output" != *"CC=gcc"* ]]
	[[ "$output" == *"CI=true"* ]]
	[[ "$output" != *SECRET=* ]]
}

@test "env.private points HOME, TMPDIR and XDG_* at fresh directories under it" {
	require_feature landlock
	write_policy "$TMP/p.json" '{"pbp":1,"id":"priv","files":{"exec":["/usr","/bin","/lib","/lib64"],"write":["'"$TMP"'/w"]},"network":"none","process":{"no_new_privs":true},"env":{"private":"'"$TMP"'/w/job-42"}}'
	mkdir "$TMP/w"
	run -0 --separate-stderr env -i PATH=/usr/bin:/bin HOME=/root USER=root \
		"$SHARNESS_EXEC" run -p "$TMP/p.json" -- sh -c 'env; echo hi >"$HOME/f"; echo t >"$TMPDIR/t"'
	p=$TMP/w/job-42
	[[ "$output" == *"HOME=$p/home"* ]]
	[[ "$output" == *"TMPDIR=$p/tmp"* ]]
	[[ "$output" == *"XDG_CONFIG_HOME=$p/config"* ]]
	[[ "$output" == *"XDG_CACHE_HOME=$p/cache"* ]]
	[[ "$output" == *"XDG_DATA_HOME=$p/data"* ]]
	[[ "$output" == *"XDG_STATE_HOME=$p/state"* ]]
	[[ "$output" != *"USER="* ]]
	[ "$(cat "$p/home/f")" = hi ]
	[ "$(stat -c %a "$p/home")" = 700 ]
}

@test "a descriptor opened by the caller is closed before the target runs" {
	require_feature landlock
	write_policy "$TMP/p.json" "$DENY"
	echo secret >"$TMP/secret"
	run -1 --separate-stderr "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TRY" fd 9 9<"$TMP/secret"
	[[ "$output" == "refused: Bad file descriptor" ]]
	# Control: the same probe sees fd 9 when run bare.
	run -0 "$TRY" fd 9 9<"$TMP/secret"
}

@test "stdin and stdout pass through the whole chain" {
	require_feature landlock
	write_policy "$TMP/p.json" '{"pbp":1,"id":"io","files":{"exec":["/usr","/bin","/lib","/lib64"]},"network":"none","process":{"no_new_privs":true,"max_memory_mb":256,"max_pids":64}}'
	run -0 --separate-stderr sh -c "printf 'one\ntwo\n' | '$SHARNESS_EXEC' run -p '$TMP/p.json' -- tr a-z A-Z"
	[ "$output" = "$(printf 'ONE\nTWO')" ]
}

@test "the target runs with no_new_privs set" {
	require_feature landlock
	write_policy "$TMP/p.json" "$DENY"
	run -0 --separate-stderr "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TRY" caps
	[[ "$output" == *"NoNewPrivs:	1"* ]]
}
