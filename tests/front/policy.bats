#!/usr/bin/env bats
# `sharness-exec check` over the pbp 1 fixtures (DESIGN.md 2, 2.2).
# tests/fixtures/policy/good/*.json must be accepted; each bad/NAME.json
# must be refused with exactly the lines in bad/NAME.expect, each of which
# the front end prints as `sharness-exec: FILE: LINE`.
# not tested: running out of memory while checking (policy.c dies with 125);
# a PATH_MAX other than Linux's 4096 (the too-long fixture assumes it).
load ../helpers/load
load ../helpers/fixtures

FIXTURES="$top_srcdir/tests/fixtures/policy"

@test "every good fixture is valid: status 0, one line on stdout, nothing on stderr" {
	good_fixtures "$FIXTURES" 8 "pbp 1 policy" 1
}

@test "every bad fixture is refused with 125 and exactly its expected lines" {
	bad_fixtures "$FIXTURES" 40
}

@test "the DESIGN.md example is valid and named by its id" {
	f="$FIXTURES/good/design-example.json"
	run -0 --separate-stderr "$SHARNESS_EXEC" check "$f"
	[ "$output" = "$f: valid pbp 1 policy \"make-check\"" ]
	[ "$stderr" = "sharness-exec: $f: warning: files.write[0]: \"/tmp\": it is shared with every job, and each run walks all of it for set-id files: \"tmpfs\": [\"/tmp\"] gives the run a private one" ]
}

@test "a policy with many problems reports every one of them, one line each" {
	f="$FIXTURES/bad/many-problems.json"
	run -125 --separate-stderr "$SHARNESS_EXEC" check "$f"
	[ "${#stderr_lines[@]}" -eq 12 ]
	[ "${stderr_lines[0]}" = "sharness-exec: $f: pbp: must be 1, not 3" ]
	[ "${stderr_lines[1]}" = "sharness-exec: $f: id: contains a control character: \"two\\nlines\"" ]
	[ "${stderr_lines[11]}" = "sharness-exec: $f: env.private: not beneath any files.write path: \"/home/me\"" ]
	[ -z "$output" ]
}

@test "problems in a policy written here: every one, in file order, then missing keys" {
	write_policy "$TMP/p.json" '{"id":"x","files":{"read":["/a","a"],"write":["/w/"],"exec":["/a/../b"]},"env":{"set":{"1X":"v"},"private":"/w//p/"},"network":{"bind_tcp_ports":[22,22,0]},"ppb":1}'
	run -125 --separate-stderr "$SHARNESS_EXEC" check "$TMP/p.json"
	p="sharness-exec: $TMP/p.json"
	[ "$stderr" = "$p: files.read[1]: not an absolute path: \"a\"
$p: files.exec[0]: has a \"..\" component: \"/a/../b\"
$p: env.set: not a variable name: \"1X\"
$p: network.bind_tcp_ports[2]: must be 1-65535, not 0
$p: network.bind_tcp_ports[1]: duplicate of network.bind_tcp_ports[0]: 22
$p: ppb: unknown key; did you mean pbp?
$p: pbp: missing required key
$p: process: missing required key" ]
	[ -z "$output" ]
}

@test "an unknown key that one key is near: did you mean, in check and in run; a tie or a far key: none" {
	# bind_ucp_ports is one edit from both bind_udp_ports and bind_tcp_ports.
	write_policy "$TMP/p.json" '{"pbp":1,"id":"x","files":{"wirte":[]},"network":{"bind_ucp_ports":[1]},"process":{"no_new_privs":true,"max_open_files":1,"Max_pids":1}}'
	run -125 --separate-stderr "$SHARNESS_EXEC" check "$TMP/p.json"
	p="sharness-exec: $TMP/p.json"
	[ "$stderr" = "$p: files.wirte: unknown key; did you mean files.write?
$p: network.bind_ucp_ports: unknown key
$p: process.max_open_files: unknown key
$p: process.Max_pids: unknown key; did you mean process.max_pids?" ]
	run -125 --separate-stderr "$SHARNESS_EXEC" run -p "$TMP/p.json" -- touch "$TMP/ran"
	[ "${stderr_lines[0]}" = "$p: files.wirte: unknown key; did you mean files.write?" ]
	[ ! -e "$TMP/ran" ]
}

@test "an id or key with control characters cannot forge extra lines" {
	write_policy "$TMP/p.json" '{"pbp":1,"id":"ok\nsharness-exec: p.json: valid","network":"none","process":{"no_new_privs":true},"\u001b]0;x\u0007\r":1}'
	run -125 --separate-stderr "$SHARNESS_EXEC" check "$TMP/p.json"
	[ "${#stderr_lines[@]}" -eq 2 ]
	[ "${stderr_lines[0]}" = "sharness-exec: $TMP/p.json: id: contains a control character: \"ok\\nsharness-exec: p.json: valid\"" ]
	[ "${stderr_lines[1]}" = "sharness-exec: $TMP/p.json: \"\\033]0;x\\007\\r\": unknown key" ]
	# no raw control byte reached the terminal
	! printf '%s' "$stderr" | LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]'
}

@test "a file that is not JSON: 125 and one line naming the file" {
	for text in 'not json' '{"pbp": 1,' '["pbp", 1]' '{"pbp":1,"pbp":1}' '{"pbp":1.0}' ''; do
		printf '%s' "$text" >"$TMP/p.json"
		run -125 --separate-stderr "$SHARNESS_EXEC" check "$TMP/p.json"
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "$stderr" == "sharness-exec: fatal: $TMP/p.json: "?* ]]
		[ -z "$output" ]
	done
}

@test "check reads a policy from standard input with -" {
	run -0 --separate-stderr "$SHARNESS_EXEC" check - <"$FIXTURES/good/required-only.json"
	[ "$output" = '-: valid pbp 1 policy "required-only"' ]
	run -125 --separate-stderr "$SHARNESS_EXEC" check - <"$FIXTURES/bad/pbp-2.json"
	[ "$stderr" = "sharness-exec: -: pbp: must be 1, not 2" ]
}

@test "check: no file, two files, or a missing file: 125" {
	local want="sharness-exec: fatal: check takes one FILE"$'\n'"usage: sharness-exec check FILE"
	run -125 --separate-stderr "$SHARNESS_EXEC" check
	[ "$stderr" = "$want" ]
	run -125 --separate-stderr "$SHARNESS_EXEC" check a b
	[ "$stderr" = "$want" ]
	run -125 --separate-stderr "$SHARNESS_EXEC" check "$TMP/missing.json"
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == "sharness-exec: fatal: "*"$TMP/missing.json"* ]]
	[ -z "$output" ]
}

@test "run refuses a bad policy with the same lines, and nothing runs" {
	# A copy: run checks who could have changed the file, and a checkout
	# may belong to another user than the one running the tests.
	cp "$FIXTURES/bad/private-prefix.json" "$FIXTURES/bad/private-prefix.expect" "$TMP/"
	f="$TMP/private-prefix.json"
	want=$(expected_stderr "$f" "${f%.json}.expect")
	run -125 --separate-stderr "$SHARNESS_EXEC" run --policy "$f" -- touch "$TMP/ran"
	[ "$stderr" = "$want" ]
	[ ! -e "$TMP/ran" ]
	run -125 --separate-stderr "$SHARNESS_EXEC" run --dry-run --policy "$f" -- true
	[ "$stderr" = "$want" ]
	[ -z "$output" ]
}

@test "the chain gets the normalised paths" {
	cp "$FIXTURES/good/paths-normalised.json" "$TMP/"
	f="$TMP/paths-normalised.json"
	run -0 --separate-stderr "$SHARNESS_EXEC" run --dry-run --policy "$f" -- true
	landlock=$(printf '%s\n' "${lines[@]}" | grep -- '-landlock ')
	[[ "$landlock" == *" -r /usr/lib -r / -r /etc -x /opt/tool/bin -w /tmp -R --" ]]
	[[ "$landlock" != *//* ]]
}

@test "every warn fixture is valid (status 0) and warns with exactly its expected lines" {
	local f n=0 bad= want
	for f in "$FIXTURES"/warn/*.json; do
		n=$((n + 1))
		want=$(expected_stderr "$f" "${f%.json}.expect")
		run --separate-stderr "$SHARNESS_EXEC" check "$f"
		if [ "$status" -ne 0 ] || [ "$stderr" != "$want" ] ||
		   [[ "$output" != "$f: valid pbp 1 policy \""*\" ]]; then
			printf '%s: status %s\nwant:\n%s\ngot:\n%s\n' "$f" "$status" "$want" "$stderr" >&3
			bad=1
		fi
	done
	[ -z "$bad" ]
	[ "$n" -ge 1 ]
}
