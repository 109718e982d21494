#!/usr/bin/env bats
# main reads the live logs of the roles the manifest lets it (issue 41,
# sharness-exec-manifest(5) "read_logs"), as root (launch is root's):
# main's "read_logs": [ROLE...] has the launcher append each line of those
# components, as it comes, to /run/sharness-exec/session/logs/ROLE.log
# (the launcher's, main's group's, 0640; the directory 0750), which main
# gets read-only (run --share-read) and names in SHARNESS_AI_LOGS. Main,
# under a uid of the session's, under --user 1000:1000 and under --user
# nobody, reads a line db wrote after main started (db writes it once main
# has written to a FIFO; main polls the log, a bounded loop), and cannot
# write, append to, truncate, unlink, rename, chmod it or create beside
# it; the log is byte for byte the --logs copy; an unlisted role has no
# log there; another component cannot read the directory, its policy
# listing it. check refuses a role that is no component's (with a did you
# mean), main's own, one named twice, a component's read_logs, a role
# named logs beside it, and SHARNESS_AI_LOGS in a policy's env; the vector
# tests/vectors/manifest-read-logs.json is valid, its plan names the logs
# main reads, and --dry-run shows main's chain reading the directory.
# not tested: a full session tmpfs (the logs are not capped; the tmpfs's
# size is the kernel's default).
load ../helpers/load
load ../helpers/launch

LOGS=$STATE/logs

setup() {
	launch_setup
	mkfifo -m 666 "$TMP/go"
	install -m 666 /dev/null "$TMP/live"
}

teardown() {
	launch_unlock
	teardown_tmp
}

# component ROLE READ: a component that runs $TMP/ROLE.sh, ready on its
# first stdout line, that may read READ (JSON strings) besides.
component() {
	printf '%s' '{"role":"'"$1"'","command":["/bin/sh","'"$TMP/$1"'.sh"],"ready":{"stdout_line":true},
	  "policy":{"pbp":1,"id":"'"$1"'","files":{"exec":['"$SYS"'],"read":["'"$TMP/$1"'.sh",'"$2"']},
	            "network":"none","process":{"no_new_privs":true}}}'
}

# logs_manifest MAIN [READ]: $TMP/m.json, db and other (whose policy
# lists the logs directory), and main, with MAIN more of its keys (ending
# in a comma), who may read $TMP/main.sh and READ (JSON strings, after a
# comma) and write $TMP/go and $TMP/live; its hash in $H.
logs_manifest() {
	write_policy "$TMP/m.json" '{"launch":1,"id":"logs","components":[
	 '"$(component db "\"$TMP/go\"")"', '"$(component other "\"$LOGS\"")"'],
	 "main":{"role":"main",'"$1"'"policy":{"pbp":1,"id":"main","files":{"exec":['"$SYS"'],
	  "read":["'"$TMP"'/main.sh"'"${2:-}"'],"write":["'"$TMP"'/go","'"$TMP"'/live"]},"network":"none","process":{"no_new_privs":true}}}}'
	H=$("$SHARNESS_EXEC" hash "$TMP/m.json")
}

# The roles: db writes a line before main starts, and one once main
# writes to $TMP/go; other, what it could do with the logs; main, all it
# tries, and a copy of the log in $TMP/live.
scripts() {
	script db 'echo "db before main" >&2' 'echo "db ready"' "printf 'db \\\\ \\033[2J\\n'" \
		"read x <$TMP/go" 'echo "db after $x"' 'exec sleep infinity'
	script other "l=\$(ls $LOGS 2>/dev/null || echo no)" "c=\$(cat $LOGS/db.log 2>/dev/null || echo no)" \
		'echo "ls=$l cat=$c"' 'exec sleep infinity'
	cat >"$TMP/main.sh" <<EOF
#!/bin/sh
L=\$SHARNESS_AI_LOGS
echo "logs=\$L other: \$SHARNESS_AI_READY_OTHER"
echo main >$TMP/go
i=0
until grep -qx 'db after main' "\$L/db.log" && grep -qx 'db before main' "\$L/db.log"; do
	i=\$((i + 1))
	[ \$i -le 1200 ] || { echo "no line after main's"; exit 1; }
	sleep 0.05
done
try() { if (eval "\$2") 2>/dev/null; then printf ' %s=yes' "\$1"; else printf ' %s=no' "\$1"; fi; }
printf tries:
try write 'printf x 1<>"\$L/db.log"'
try append 'echo x >>"\$L/db.log"'
try truncate 'truncate -s 0 "\$L/db.log"'
try unlink 'unlink "\$L/db.log"'
try rename 'mv "\$L/db.log" "\$L/moved.log"'
try create ': >"\$L/new.log"'
try mkdir 'mkdir "\$L/d"'
try link 'ln "\$L/db.log" "\$L/link.log"'
try chmod 'chmod 666 "\$L/db.log"'
try chmod-dir 'chmod 777 "\$L"'
echo
ls -A "\$L"
stat -c '%a %u %g' "\$L" "\$L/db.log"
id -g
cat "\$L/db.log" >$TMP/live
EOF
	chmod 755 "$TMP/main.sh"
}

# main_reads [--user USER]: the launch, and what main and other could do.
main_reads() {
	scripts
	logs_manifest '"read_logs":["db"],'
	run --separate-stderr "$SHARNESS_EXEC" launch "$@" --logs "$TMP/logs" -m "$TMP/m.json" -H "$H" -- /bin/sh "$TMP/main.sh"
	echo "$stderr"; echo "$output"; [ "$status" = 0 ]
	[ "${lines[0]}" = "logs=$LOGS other: ls=no cat=no" ]
	[ "${lines[1]}" = "tries: write=no append=no truncate=no unlink=no rename=no create=no mkdir=no link=no chmod=no chmod-dir=no" ]
	# other's log is not there; the directory and the log are the launcher's, main's group's
	[ "${lines[2]}" = db.log ]
	[ "${lines[3]}" = "750 0 ${lines[5]}" ]
	[ "${lines[4]}" = "640 0 ${lines[5]}" ]
	[ "${#lines[@]}" = 6 ]
	# what main read is what --logs kept, byte for byte, and db's lines
	cmp "$TMP/live" "$TMP/logs/db.log"
	[ "$(sort "$TMP/live")" = "$(printf '%s\n' 'db before main' 'db \\ \x1b[2J' 'db after main' | sort)" ]
	nothing_left
}

@test "main under a uid of the session's reads db's line written after it started, read-only; the log is the --logs copy; other's is absent; other cannot read the directory, its policy listing it" {
	main_reads
	[ "${lines[5]}" -ge "$FIRST" ] && [ "${lines[5]}" -le "$LAST" ]
}

@test "main under --user 1000:1000 reads db's live log, read-only, as the --logs copy" {
	main_reads --user 1000:1000
	[ "${lines[5]}" = 1000 ]
}

@test "main under --user nobody reads db's live log, read-only, as the --logs copy" {
	main_reads --user nobody
	[ "${lines[5]}" = "$(id -g nobody)" ]
}

@test "without read_logs, or with an empty one, there is no logs directory and no SHARNESS_AI_LOGS" {
	script db 'echo "db ready"' 'exec sleep infinity'
	script other 'echo "other ready"' 'exec sleep infinity'
	script main "ls -A $STATE" 'echo "logs=${SHARNESS_AI_LOGS-unset}"'
	for keys in '' '"read_logs":[],'; do
		logs_manifest "$keys" ",\"$STATE\""
		run -0 --separate-stderr "$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$H" -- /bin/sh "$TMP/main.sh"
		echo "$stderr"; echo "$output"
		[ "$output" = "db
main
other
session.status
logs=unset" ]
	done
	nothing_left
}

@test "check refuses a role that is no component's, main's own, one named twice, read_logs in a component, a role named logs beside it, SHARNESS_AI_LOGS in a policy; the vector is valid and --dry-run shows main reading the logs" {
	local v="$top_srcdir/tests/vectors/manifest-read-logs.json"
	run -0 --separate-stderr "$SHARNESS_EXEC" check "$v"
	[ -z "$stderr" ]
	[[ "${lines[3]}" == "main \"main\": policy \"make-check\" sha256:"*"; reads the logs of: db, cache" ]]
	sed 's/"read_logs": \["db", "cache"\]/"read_logs": ["db", "main", "dbb", "db", 3]/' "$v" >"$TMP/m.json"
	run -125 --separate-stderr "$SHARNESS_EXEC" check "$TMP/m.json"
	echo "$stderr"
	[ "$stderr" = "sharness-exec: $TMP/m.json: main \"main\": read_logs[1]: main's own role: main has no log: \"main\"
sharness-exec: $TMP/m.json: main \"main\": read_logs[2]: no component's role: \"dbb\"; did you mean \"db\"?
sharness-exec: $TMP/m.json: main \"main\": read_logs[3]: named twice: \"db\"
sharness-exec: $TMP/m.json: main \"main\": read_logs[4]: must be a string" ]
	sed 's/"role": "db", "command"/"role": "db", "read_logs": ["cache"], "command"/; s/"read_logs": \["db", "cache"\]/"read_log": []/' "$v" >"$TMP/m.json"
	run -125 --separate-stderr "$SHARNESS_EXEC" check "$TMP/m.json"
	echo "$stderr"
	[ "$stderr" = "sharness-exec: $TMP/m.json: components[0] \"db\": read_logs: unknown key: main's alone, which reads the logs
sharness-exec: $TMP/m.json: main \"main\": read_log: unknown key; did you mean read_logs?" ]
	sed 's/"role": "cache"/"role": "logs"/; s/"read_logs": \["db", "cache"\]/"read_logs": "db"/' "$v" >"$TMP/m.json"
	run -125 --separate-stderr "$SHARNESS_EXEC" check "$TMP/m.json"
	echo "$stderr"
	[ "$stderr" = "sharness-exec: $TMP/m.json: main \"main\": read_logs: must be an array of the roles of components
sharness-exec: $TMP/m.json: main \"main\": read_logs: no role may be named \"logs\" with it: $LOGS is the logs' place" ]
	sed 's/"process": {"no_new_privs": true}}}}/"process": {"no_new_privs": true}, "env": {"set": {"SHARNESS_AI_LOGS": "\/x"}}}}}/' "$v" >"$TMP/m.json"
	run -125 --separate-stderr "$SHARNESS_EXEC" check "$TMP/m.json"
	echo "$stderr"
	[ "$stderr" = "sharness-exec: $TMP/m.json: main \"main\": policy.env.set.SHARNESS_AI_LOGS: set by sharness-exec launch itself" ]
	# main's chain reads the logs directory, as the launch gives it
	run -0 --separate-stderr "$SHARNESS_EXEC" launch --dry-run -m "$v" -- /bin/true
	[[ "$output" == *"-view "*" -r $LOGS "*"/bin/true" ]]
}
