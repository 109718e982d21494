#!/usr/bin/env bats
# sharness-exec wrap (DESIGN.md 4.1): the one-word wrapper. It is written
# only for a policy that checks and whose hash or signature verifies, never
# beneath a files.write path, 0755 and the caller's, in one rename that
# never follows a symlink; it runs its arguments confined, and runs nothing
# once it or its policy could be changed by another user (tests/frontholes.bats:
# no PATH lookup; the directories above it).
# not tested: the wrapper under each build tool (tests/examples.bats runs
# the Go, Meson and Cargo examples through it).

load ../helpers/load

setup() {
	setup_tmp
	mkdir "$TMP/out" "$TMP/bin"
	chmod 755 "$TMP/out" "$TMP/bin"
	write_policy "$TMP/p.json" '{"pbp":1,"id":"wrap","files":{"read":["/etc"],"write":["'"$TMP"'/out"],"exec":["/usr","/bin","/lib","/lib64","'"$TRYDIR"'"]},"network":"none","process":{"no_new_privs":true}}'
	HASH=$("$SHARNESS_EXEC" hash "$TMP/p.json")
}

@test "wrap writes a 0755 script of the caller's that runs its arguments confined, with absolute paths" {
	require_feature landlock
	cd "$TMP"
	run -0 --separate-stderr "$SHARNESS_EXEC" wrap -o bin/confine -p p.json -H "$HASH" --timeout 60
	[ "$output" = "$TMP/bin/confine: runs its arguments confined by $TMP/p.json $HASH" ]
	[ "$(stat -c '%a %u %F' bin/confine)" = "755 $(id -u) regular file" ]
	[ "$(head -n 1 bin/confine)" = "#!/bin/sh" ]
	grep -qxF "exec '$SHARNESS_EXEC' wrap --exec '$TMP/bin/confine' --policy '$TMP/p.json' '--expect-hash' '$HASH' '--timeout' '60' -- \"\$@\"" bin/confine
	# its one command: the front end, by its absolute name
	[ "$(grep -vc '^#' bin/confine)" = 1 ]
	# Bare, the same command writes outside; through the wrapper it cannot,
	# and its status comes back.
	run -0 "$TRY" create "$TMP/bare"
	[ -e "$TMP/bare" ]
	cd /
	run -0 --separate-stderr "$TMP/bin/confine" "$TRY" create "$TMP/out/in"
	[ -e "$TMP/out/in" ]
	run -1 --separate-stderr "$TMP/bin/confine" "$TRY" create "$TMP/outside"
	[ ! -e "$TMP/outside" ]
	run -3 --separate-stderr "$TMP/bin/confine" sh -c 'exit 3'
}

@test "wrap refuses an -o beneath a files.write path, as written or through a symlink, and writes nothing" {
	run -125 --separate-stderr "$SHARNESS_EXEC" wrap -o "$TMP/out/confine" -p "$TMP/p.json" -H "$HASH"
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: refused: -o \"$TMP/out/confine\" lies beneath files.write[0] \"$TMP/out\": the confined command could rewrite the wrapper, which runs unconfined" ]
	[ "${stderr_lines[1]}" = "hint: put the wrapper where the policy does not let the command write" ]
	ln -s out "$TMP/link"
	run -125 --separate-stderr "$SHARNESS_EXEC" wrap -o "$TMP/link/confine" -p "$TMP/p.json" -H "$HASH"
	[[ ${stderr_lines[0]} == *"lies beneath files.write[0]"* ]]
	[ -z "$(ls -A "$TMP/out")" ]
	# A directory others may write to (not sticky) is refused too.
	mkdir -m 777 "$TMP/open"
	chmod 777 "$TMP/open"
	run -125 --separate-stderr "$SHARNESS_EXEC" wrap -o "$TMP/open/confine" -p "$TMP/p.json" -H "$HASH"
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: refused: -o \"$TMP/open/confine\": directory \"$TMP/open\" is writable by group or others, who could replace the wrapper" ]
	[ -z "$(ls -A "$TMP/open")" ]
}

@test "wrap refuses an unpinned policy, a wrong hash, an invalid policy, and writes nothing" {
	run -125 --separate-stderr "$SHARNESS_EXEC" wrap -o "$TMP/bin/w" -p "$TMP/p.json"
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: wrap needs --expect-hash or --trust-key: a wrapper runs only a pinned or signed policy" ]
	[[ ${stderr_lines[1]} == "usage: sharness-exec wrap "* ]]
	run -125 --separate-stderr "$SHARNESS_EXEC" wrap -o "$TMP/bin/w" -p "$TMP/p.json" -H "sha256:$(printf '0%.0s' {1..64})"
	[[ ${stderr_lines[0]} == "sharness-exec: fatal: refused: policy hash is $HASH, expected sha256:000"* ]]
	write_policy "$TMP/bad.json" '{"pbp":1,"id":"b","files":{"wirte":[]},"network":"none","process":{"no_new_privs":true}}'
	run -125 --separate-stderr "$SHARNESS_EXEC" wrap -o "$TMP/bin/w" -p "$TMP/bad.json" -H "$HASH"
	run -125 --separate-stderr "$SHARNESS_EXEC" wrap -o "$TMP/bin/w" -p "$TMP/p.json" -H "$HASH" extra
	[[ ${stderr_lines[0]} == "sharness-exec: fatal: wrap takes no operand"* ]]
	[ -z "$(ls -A "$TMP/bin")" ]
}

@test "wrap replaces a symlink at -o and never writes through it" {
	require_feature landlock
	echo keep >"$TMP/victim"
	ln -s "$TMP/victim" "$TMP/bin/confine"
	run -0 --separate-stderr "$SHARNESS_EXEC" wrap -o "$TMP/bin/confine" -p "$TMP/p.json" -H "$HASH"
	[ "$(cat "$TMP/victim")" = keep ]
	[ ! -L "$TMP/bin/confine" ] && [ -f "$TMP/bin/confine" ]
	# An existing wrapper is replaced whole, and no temporary file is left.
	run -0 --separate-stderr "$SHARNESS_EXEC" wrap -o "$TMP/bin/confine" -p "$TMP/p.json" -H "$HASH" --best-effort
	grep -q "'--best-effort' -- \"\$@\"" "$TMP/bin/confine"
	[ "$(ls -A "$TMP/bin")" = confine ]
	run -0 "$TMP/bin/confine" true
}

@test "the wrapper runs nothing once it or its policy could be changed by another user" {
	require_feature landlock
	run -0 --separate-stderr "$SHARNESS_EXEC" wrap -o "$TMP/bin/confine" -p "$TMP/p.json" -H "$HASH"
	run -0 "$TMP/bin/confine" "$TRY" create "$TMP/out/ok"
	local f
	for f in "$TMP/bin/confine" "$TMP/p.json"; do
		chmod g+w "$f"
		run -125 --separate-stderr "$TMP/bin/confine" "$TRY" create "$TMP/out/ran"
		[[ ${stderr_lines[0]} == "sharness-exec: fatal: refused: "*" $f: it is writable by group or others" ]]
		[ ! -e "$TMP/out/ran" ]
		chmod g-w,o+w "$f"
		run -125 --separate-stderr "$TMP/bin/confine" "$TRY" create "$TMP/out/ran"
		[ ! -e "$TMP/out/ran" ]
		chmod o-w "$f"
	done
	run -0 "$TMP/bin/confine" "$TRY" create "$TMP/out/again"
	# Another user's file.
	require_feature root
	chown "$NOBODY_UID" "$TMP/p.json"
	run -125 --separate-stderr "$TMP/bin/confine" "$TRY" create "$TMP/out/ran"
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: refused: wrapper's policy $TMP/p.json: it is owned by another user" ]
	[ ! -e "$TMP/out/ran" ]
}

@test "a signed policy: wrap verifies the signature, and the wrapper runs with the key" {
	require_feature landlock
	run -0 --separate-stderr "$SHARNESS_EXEC" keygen -o "$TMP/k"
	run -0 --separate-stderr "$SHARNESS_EXEC" sign -k "$TMP/k.key" "$TMP/p.json"
	cd "$TMP"
	run -0 --separate-stderr "$SHARNESS_EXEC" wrap -o bin/confine -p p.json --trust-key k.pub
	[[ $output == "$TMP/bin/confine: runs its arguments confined by $TMP/p.json $HASH, signed by sha256:"* ]]
	grep -qF "'--trust-key' '$TMP/k.pub' -- \"\$@\"" bin/confine
	run -0 bin/confine "$TRY" create "$TMP/out/signed"
	# A policy whose signature does not verify gets no wrapper.
	write_policy "$TMP/q.json" '{"pbp":1,"id":"q","network":"none","process":{"no_new_privs":true}}'
	run -125 --separate-stderr "$SHARNESS_EXEC" wrap -o bin/other -p q.json --trust-key k.pub
	[ ! -e bin/other ]
}

@test "wrap --help lists its options; wrap is in sharness-exec --help" {
	run -0 --separate-stderr "$SHARNESS_EXEC" wrap --help
	[[ ${lines[0]} == "usage: sharness-exec wrap -o FILE --policy FILE "* ]]
	[[ $output == *"  -o FILE "* ]]
	run -0 --separate-stderr "$SHARNESS_EXEC" --help
	[[ $output == *"  wrap    write FILE, a one-word wrapper"* ]]
}
