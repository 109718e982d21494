#!/usr/bin/env bats
# The chain the front end compiles from a policy: `run --dry-run` output
# compared with golden files (tests/golden/NAME.json -> NAME.chain, where
# @HELPERDIR@ stands for the build tree's helper directory).
# not tested: nothing; dry-run needs no kernel feature.
load helpers/load

golden() {
	local name=$1
	shift
	cp "$top_srcdir/tests/golden/$name.json" "$TMP/p.json"
	chmod 644 "$TMP/p.json"
	run -0 --separate-stderr "$SHARNESS_EXEC" run --dry-run "$@" --policy "$TMP/p.json" -- make check
	sed "s|@HELPERDIR@|$HELPERDIR|g" "$top_srcdir/tests/golden/$name.chain" >"$TMP/want"
	printf '%s\n' "$output" >"$TMP/got"
	diff -u "$TMP/want" "$TMP/got"
	[ -z "$stderr" ]
}

@test "the DESIGN.md example compiles to its steps in the fixed order" {
	golden design-example
}

@test "a port-list network keeps the host's network (netns -H), and landlock must restrict TCP" {
	golden ports-no-caps
}

@test "a policy without caps has no limits step, and a supervise step all the same" {
	golden minimal
}

@test "paths are normalised and quoted for the shell; pids alone make a limits step" {
	golden pids-only-odd-paths
}

@test "files.protected reaches the view step only (-p), after the other lists" {
	golden protected
}

@test "files.tmpfs reaches the view (-m, -M half of max_memory_mb) and the landlock step (-T), which always gets -R" {
	golden tmpfs
}

@test "--best-effort reaches the supervise, limits (memory cap: TCP buffers), view and landlock steps and nothing else" {
	write_policy "$TMP/p.json" '{"pbp":1,"id":"x","network":"none","process":{"no_new_privs":true,"max_memory_mb":64}}'
	run -0 --separate-stderr "$SHARNESS_EXEC" run --best-effort --dry-run -p "$TMP/p.json" -- true
	[ "${lines[0]}" = "$HELPERDIR/sharness-exec-netns -W 4 --" ]
	[ "${lines[1]}" = "$HELPERDIR/sharness-exec-supervise -W 4 -b -c memory -m 64 --" ]
	[ "${lines[2]}" = "$HELPERDIR/sharness-exec-limits -m 64 -b --" ]
	[ "${lines[3]}" = "$HELPERDIR/sharness-exec-view -W 4 -b --" ]
	[ "${lines[4]}" = "$HELPERDIR/sharness-exec-landlock -e 3 -W 4 -b -R --" ]
	[ "${lines[5]}" = "true" ]
	[ "${#lines[@]}" = 6 ]
	# a pids cap alone: limits has nothing to be best effort about
	write_policy "$TMP/p.json" '{"pbp":1,"id":"x","network":"none","process":{"no_new_privs":true,"max_pids":9}}'
	run -0 --separate-stderr "$SHARNESS_EXEC" run --best-effort --dry-run -p "$TMP/p.json" -- true
	[ "${lines[2]}" = "$HELPERDIR/sharness-exec-limits -p 9 --" ]
}

@test "the target's words are printed quoted, the last line of the chain" {
	write_policy "$TMP/p.json" '{"pbp":1,"id":"x","network":"none","process":{"no_new_privs":true}}'
	run -0 --separate-stderr "$SHARNESS_EXEC" run -n -p "$TMP/p.json" -- sh -c 'echo "$HOME" it'\''s' -- -x
	[ "${lines[-1]}" = "sh -c 'echo \"\$HOME\" it'\\''s' -- -x" ]
}

@test "the dry-run view is the argv that really runs" {
	require_feature landlock
	write_policy "$TMP/p.json" '{"pbp":1,"id":"x","files":{"exec":["/usr","/bin","/lib","/lib64"]},"network":"none","process":{"no_new_privs":true}}'
	run -0 --separate-stderr "$SHARNESS_EXEC" run -n -p "$TMP/p.json" -- /bin/echo a 'b c'
	chain=$(printf '%s\n' "${lines[@]}" | head -n -1 | tr '\n' ' ')
	# -e 3 is the sealed memfd of the target's environment, and -W 4 the
	# walls record (rights.h), which only the front end makes: by hand the
	# target keeps the shell's environment, and each step stands alone.
	[[ "$chain" == *"/sharness-exec-landlock -e 3 -W 4 "* ]]
	chain=${chain/" -e 3 "/" "}
	chain=${chain//" -W 4 "/" "}
	# Run the printed chain by hand, as an auditor would.
	run -0 --separate-stderr sh -c "$chain /bin/echo a 'b c'"
	[ "$output" = "a b c" ]
}

@test "--verbose prints the hash and the chain on stderr, nothing on stdout" {
	write_policy "$TMP/p.json" '{"pbp":1,"id":"verbose","network":"none","process":{"no_new_privs":true}}'
	hash=$("$SHARNESS_EXEC" hash "$TMP/p.json")
	run -0 --separate-stderr "$SHARNESS_EXEC" run -v -n -p "$TMP/p.json" -- true
	[[ "$stderr" == *"policy \"verbose\" $hash (not pinned)"* ]]
	[[ "$stderr" == *"sharness-exec-landlock -e 3 -W 4 -R --"* ]]
}
