#!/usr/bin/env bats
# launch --explain (issue 41, item 4; DESIGN.md 4.7 and 4.8): each role
# runs as `run --explain-as ROLE`, whose explain step (--as ROLE) names the
# role in each line it prints when the role ends. A component whose policy
# hides a read gets one line naming it, the path and the entry that would
# allow it (among its lines, "ROLE| "); main's name main; a role with
# nothing refused says so in its one line; the launch exits as it does
# without --explain (main's 3), and nothing is left. Launch is root's: its
# sessions run with main under a uid of the session's, under --user nobody
# and under --user 1000:1000. --dry-run --explain shows the explain step in
# each role's chain, as root, nobody and uid 1000. A launch role cannot
# name network.hosts (run --in-session refuses it), so no egress step's
# line needs a role.
# not tested: that health checks are not traced (their runs' stdio is
# /dev/null: an explain step there would print nowhere to be seen).
load ../helpers/load
load ../helpers/launch

X="sharness-exec-explain: explain: "

setup() {
	setup_tmp
	mkdir -m 755 "$TMP/out"
	echo outside >"$TMP/out/f"
	echo outside >"$TMP/out/m"
	chmod 644 "$TMP/out/f" "$TMP/out/m"
	# db's read of $TMP/out/f is hidden; quiet is refused nothing; main's
	# read of $TMP/out/m is hidden, and it exits 3
	script db "cat $TMP/out/f || echo db-refused >&2" 'echo ready' 'exec sleep infinity'
	script quiet 'echo ready' 'exec sleep infinity'
	script main "cat $TMP/out/m || echo main-refused" 'exit 3'
	write_policy "$TMP/m.json" '{"launch":1,"id":"explain","components":[
	 {"role":"db","command":["/bin/sh","'"$TMP"'/db.sh"],"ready":{"stdout_line":true},"policy":'"$(policy db)"'},
	 {"role":"quiet","command":["/bin/sh","'"$TMP"'/quiet.sh"],"ready":{"stdout_line":true},"policy":'"$(policy quiet)"'}],
	 "main":{"role":"main","policy":'"$(policy main)"'}}'
	H=$("$SHARNESS_EXEC" hash "$TMP/m.json")
}

teardown() {
	launch_unlock
	teardown_tmp
}

# policy ID: may run the system's programs, read /etc and $TMP/ID.sh.
policy() {
	printf '%s' '{"pbp":1,"id":"'"$1"'","files":{"exec":['"$SYS"'],"read":["/etc","'"$TMP/$1"'.sh"]},"network":"none","process":{"no_new_privs":true}}'
}

# t_session WHO: the session with main a session uid (session), under
# --user nobody (nobody) or --user 1000:1000 (1000), without --explain
# and with it.
t_session() {
	require_feature root
	require_feature landlock
	launch_lock
	local user=() allow="\"files\": {\"read\": [\"$TMP/out\"]}" rc=0
	case $1 in
	nobody) require_feature nobody; user=(--user nobody) ;;
	1000) user=(--user 1000:1000) ;;
	esac
	"$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$H" "${user[@]}" -- /bin/sh "$TMP/main.sh" \
		>"$TMP/out0" 2>"$TMP/err0" || rc=$?
	cat "$TMP/err0"
	[ "$rc" = 3 ]
	[ "$(cat "$TMP/out0")" = main-refused ]
	grep -Fxq 'db| db-refused' "$TMP/err0"
	[ -z "$(grep -F "$X" "$TMP/err0")" ]
	nothing_left
	rc=0
	"$SHARNESS_EXEC" launch --explain -m "$TMP/m.json" -H "$H" "${user[@]}" -- /bin/sh "$TMP/main.sh" \
		>"$TMP/out1" 2>"$TMP/err1" || rc=$?
	cat "$TMP/err1"
	# the same status, and the same answers
	[ "$rc" = 3 ]
	[ "$(cat "$TMP/out1")" = main-refused ]
	grep -Fxq 'db| db-refused' "$TMP/err1"
	# one line for each role, naming it
	[ "$(grep -F "$X" "$TMP/err1" | LC_ALL=C sort)" = "$(printf '%s\n' \
		"db| ${X}db: read $TMP/out/f: ENOENT (No such file or directory), hidden by the policy, 1 time; allow with $allow" \
		"quiet| ${X}quiet: nothing was refused or hidden" \
		"${X}main: read $TMP/out/m: ENOENT (No such file or directory), hidden by the policy, 1 time; allow with $allow" |
		LC_ALL=C sort)" ]
	# nothing outside changed
	[ "$(cat "$TMP/out/f" "$TMP/out/m")" = $'outside\noutside' ]
	nothing_left
}

@test "launch --explain (main a session uid): each role's refusals named with the role, its status unchanged" { t_session session; }
@test "launch --explain (main --user nobody): each role's refusals named with the role, its status unchanged" { t_session nobody; }
@test "launch --explain (main --user 1000:1000): each role's refusals named with the role, its status unchanged" { t_session 1000; }

# t_dry WHO: launch --dry-run, as WHO, without --explain and with it.
t_dry() {
	require_feature landlock
	[ "$1" = root ] && require_feature root
	[ "$1" = nobody ] && require_feature nobody
	[ "$1" = 1000 ] && { require_feature root; require_that uid-1000 "uid 1000 cannot reach $SHARNESS_EXEC" \
		as_m 1000 test -x "$SHARNESS_EXEC"; }
	run -0 --separate-stderr as_m "$1" "$SHARNESS_EXEC" launch --dry-run -m "$TMP/m.json" -H "$H" \
		--user nobody -- /bin/sh "$TMP/main.sh"
	[[ $output != *sharness-exec-explain* ]]
	run -0 --separate-stderr as_m "$1" "$SHARNESS_EXEC" launch --dry-run --explain -m "$TMP/m.json" -H "$H" \
		--user nobody -- /bin/sh "$TMP/main.sh"
	# right after supervise, in each role's chain, naming it
	[ "$(grep -A1 "^$HELPERDIR/sharness-exec-supervise " <<<"$output" | grep -o "^$HELPERDIR/sharness-exec-explain --as [a-z]* ")" = \
		"$(printf '%s\n' "$HELPERDIR/sharness-exec-explain --as "{db,quiet,main}" ")" ]
	[ "$(grep -c "^$HELPERDIR/sharness-exec-explain " <<<"$output")" = 3 ]
}

@test "launch --dry-run --explain (root) shows the explain step in each role's chain" { t_dry root; }
@test "launch --dry-run --explain (nobody) shows the explain step in each role's chain" { t_dry nobody; }
@test "launch --dry-run --explain (uid 1000) shows the explain step in each role's chain" { t_dry 1000; }

@test "run --explain-as refuses an empty ROLE or one that looks like an option (125, one line)" {
	write_policy "$TMP/p.json" "$(policy p)"
	run -125 --separate-stderr "$SHARNESS_EXEC" run --explain-as -x -p "$TMP/p.json" -- true
	[ "${stderr_lines[0]}" = 'sharness-exec: fatal: --explain-as needs a ROLE, not "-x"' ]
	run -125 --separate-stderr "$SHARNESS_EXEC" run --explain-as '' -p "$TMP/p.json" -- true
	[ "${stderr_lines[0]}" = 'sharness-exec: fatal: --explain-as needs a ROLE, not ""' ]
}
