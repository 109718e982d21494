#!/usr/bin/env bats
# launch for daily use, continued (issue 41, DESIGN.md 4.8), as root:
# every role writes its own state directory without its policy listing it
# (run --state-dir), and no other role's.
# The roles' scripts wait on FIFOs, never on time; the test looks at the
# session's tmpfs from outside, in the launcher's mount namespace.
load ../helpers/load
load ../helpers/launch

setup() {
	require_feature root
	require_feature landlock
	launch_lock
	setup_tmp
	reach_programs
	mkfifo -m 666 "$TMP/to-test" "$TMP/to-main"
}

teardown() {
	[ -z "${LAUNCHED:-}" ] || { exec 8<>"$TMP/to-main"; echo done >&8; wait "$LAUNCHED"; } || true
	launch_unlock
	teardown_tmp
}

# script NAME LINE...: $TMP/NAME.sh, a /bin/sh script of LINEs.
script() {
	local name=$1
	shift
	printf '%s\n' '#!/bin/sh' "$@" >"$TMP/$name.sh"
	chmod 755 "$TMP/$name.sh"
}

# role ROLE FILES [REST]: a component that runs $TMP/ROLE.sh, its
# policy's files FILES (JSON members after exec and read), REST more
# members of the component (JSON).
role() {
	printf '%s' '{"role":"'"$1"'","command":["/bin/sh","'"$TMP/$1"'.sh"],
	  "policy":{"pbp":1,"id":"'"$1"'","files":{"exec":['"$SYS"'],"read":["'"$TMP/$1"'.sh"]'"${2:+,$2}"'},
	            "network":{"bind_tcp_ports":[7000,7001],"connect_tcp_ports":[7000,7001]},"process":{"no_new_privs":true}}'"${3:+,$3}"'}'
}

# manifest COMPONENTS: $TMP/m.json, COMPONENTS and main, which runs
# $TMP/main.sh and may write the test's FIFOs; its hash in $H.
manifest() {
	write_policy "$TMP/m.json" '{"launch":1,"id":"health","components":['"$1"'],
	 "main":{"role":"main","policy":{"pbp":1,"id":"main","files":{"exec":['"$SYS"'],
	  "read":["'"$TMP"'/main.sh"],"write":["'"$TMP"'/to-test","'"$TMP"'/to-main"]},
	  "network":{"connect_tcp_ports":[7000,7001]},"process":{"no_new_privs":true}}}}'
	H=$("$SHARNESS_EXEC" hash "$TMP/m.json")
}

@test "each role writes its own state directory unlisted, and no other role's, seen from outside the session" {
	require_feature tool:nsenter
	# a lists nothing of the session's; b reads the whole session dir
	script a 'echo a >mine; echo x >/run/sharness-exec/session/b/theirs || echo a-refused >&2' \
		'echo ready' 'exec sleep infinity'
	script b 'echo b >mine; ls /run/sharness-exec/session/a >/dev/null && echo b-sees-a >&2' \
		'echo x >/run/sharness-exec/session/a/theirs || echo b-refused >&2' 'echo ready' 'exec sleep infinity'
	script main 'echo m >/run/sharness-exec/session/main/mine && echo main-wrote' \
		"echo x >/run/sharness-exec/session/a/theirs || echo main-refused" \
		"echo go >$TMP/to-test; read x <$TMP/to-main"
	manifest "$(role a '' '"ready":{"stdout_line":true}'),
		$(role b '' '"ready":{"stdout_line":true}' | sed 's|"read":\[|&"'"$STATE"'",|')"
	grep -q '"read":\["'"$STATE"'",' "$TMP/m.json"
	exec 7<>"$TMP/to-test"
	"$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$H" -- /bin/sh "$TMP/main.sh" >"$TMP/out" 2>"$TMP/err" &
	LAUNCHED=$!
	read -r -t 60 -u 7 word
	[ "$word" = go ]
	# from outside: the launcher's mount namespace, the session's tmpfs
	run -0 nsenter -t "$LAUNCHED" -m find "$STATE" -mindepth 1 -printf '%P %u %m\n'
	[ "$(printf '%s\n' "$output" | sort | awk '{ print $1, $3 }')" = "$(printf '%s\n' 'a 700' 'a/mine 644' \
		'b 700' 'b/mine 644' 'main 700' 'main/mine 644')" ]
	# each file its role's uid's, and the roles' uids all different
	[ "$(printf '%s\n' "$output" | awk '{ split($1, p, "/"); if (o[p[1]] == "") o[p[1]] = $2; else if (o[p[1]] != $2) print "bad", $1 }
		END { print o["a"] != o["b"] && o["b"] != o["main"] && o["a"] != o["main"] }')" = 1 ]
	exec 8<>"$TMP/to-main"
	echo done >&8
	wait "$LAUNCHED"
	LAUNCHED=
	[ "$(cat "$TMP/out")" = "$(printf '%s\n' main-wrote main-refused)" ]
	grep -Fxq 'a| a-refused' "$TMP/err"
	grep -Fxq 'b| b-refused' "$TMP/err"
	[ -z "$(grep -F 'b-sees-a' "$TMP/err")" ]
	nothing_left
}
