#!/usr/bin/env bats
# launch's shared directories (issue 41, DESIGN.md 4.8,
# sharness-exec-manifest(5) "share"), as root (launch is root's): the
# manifest's "share": {NAME: {"write": [ROLE...], "read": [ROLE...]}} makes
# /run/sharness-exec/session/share/NAME, its first writer's, of the session
# group share.NAME that every role it names has as a supplementary group,
# 2750 with readers, 2770 with writers alone; each role it names has it in
# its policy at run time (run --share, --share-read: files.write,
# files.read, and its sockets files.sockets, without which this machine's
# Landlock ABI 7 run of a reader is refused: a listener beneath a read
# path), its policy's hash unchanged. A reader reads what the writer made
# and connects to its socket (the socket's mode gives the group write),
# and makes and removes nothing; writers alone all write and connect. A
# role the share does not name reaches nothing in it, its own policy
# listing it; what main lists there is the writer's alone. check refuses
# bad forms; run --share and --share-read work alone, as root, nobody and
# uid 1000. PostgreSQL (where installed): main's psql over the socket in a
# share; and, issue 41's friction, not over one in db's state directory.
# not tested: Landlock ABI 9's RESOLVE_UNIX rule on the share's sockets
# (this machine's kernel has ABI 7).
load ../helpers/load
load ../helpers/launch

SHARE=$STATE/share/sock

setup() {
	launch_setup tool:python3 file:/usr/bin/python3
}

teardown() {
	launch_unlock
	teardown_tmp
}

# policy ID WRITE READ [FILES]: an inline policy that may run the system's
# programs and read $TMP/ID.sh, and READ (JSON strings), write WRITE;
# FILES more of "files" (starting with a comma).
policy() {
	printf '%s' '{"pbp":1,"id":"'"$1"'","files":{"exec":['"$SYS"'],"read":["'"$TMP/$1"'.sh"'"${3:+,$3}"']'"${2:+,\"write\":[$2]}"''"${4:-}"'},"network":"none","process":{"no_new_privs":true}}'
}

# share_manifest SHARE [MAIN_READ]: $TMP/m.json, a writer db (ready on
# its socket in the share), a role "other" whose policy lists the share
# (after db, ready with the line of what it could do), and main, which may
# read MAIN_READ (JSON strings); SHARE the manifest's "share". Its hash in
# $H.
share_manifest() {
	write_policy "$TMP/m.json" '{"launch":1,"id":"share","share":'"$1"',"components":[
	 {"role":"db","command":["/bin/sh","'"$TMP"'/db.sh"],"policy":'"$(policy db)"',
	  "ready":{"unix":"'"$SHARE"'/db.sock"}},
	 {"role":"other","command":["/bin/sh","'"$TMP"'/other.sh"],"after":["db"],
	  "policy":'"$(policy other "\"$SHARE\"" "\"$STATE\"")"',"ready":{"stdout_line":true}}],
	 "main":{"role":"main","policy":'"$(policy main "" "${2:-}")"'}}'
	H=$("$SHARNESS_EXEC" hash "$TMP/m.json")
}

# The writer: a file, then a listener that says hello to each connection
# (the readiness probe's among them, gone at once),
# its socket's mode 0770 (umask 007).
db_script() {
	script db "umask 007" "echo fixture >$SHARE/data" "id -u >$SHARE/uid" \
		"exec /usr/bin/python3 -c 'import socket
s = socket.socket(socket.AF_UNIX)
s.bind(\"$SHARE/db.sock\")
s.listen(8)
while True:
    c = s.accept()[0]
    try:
        c.sendall(b\"hello from db\\n\")
    except OSError:
        pass
    c.close()'"
}

# try WHO: $TMP/WHO's lines, what WHO could do in the share: read its file,
# connect to its socket, make a file, remove the writer's file.
CONNECT='import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
print(s.recv(64).decode().strip())'
try_lines() {
	printf '%s\n' "r=\$(cat $SHARE/data 2>/dev/null || echo no)" \
		"c=\$(/usr/bin/python3 -c '$CONNECT' $SHARE/db.sock 2>/dev/null || echo no)" \
		"w=\$( (echo x >$SHARE/$1) 2>/dev/null && echo yes || echo no)" \
		"d=\$(unlink $SHARE/data 2>/dev/null && echo yes || echo no)" \
		"m=\$(stat -c %a $SHARE 2>/dev/null || echo no)" \
		'echo "read=$r connect=$c make=$w remove=$d groups=$(id -G | wc -w) mode=$m"'
}

@test "a reader reads the writer's file and connects to its socket, and makes nothing there; a role the share does not name cannot reach it, its own policy listing it" {
	db_script
	script other "$(try_lines other)" "exec sleep infinity"
	script main "$(try_lines main)" 'echo "other: $SHARNESS_AI_READY_OTHER"' \
		"stat -c '%a %G' $SHARE" "[ \$(stat -c %u $SHARE) = \$(cat $SHARE/uid) ] && echo owner db" "ls $SHARE"
	share_manifest '{"sock":{"write":["db"],"read":["main"]}}'
	run --separate-stderr "$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$H" -- /bin/sh "$TMP/main.sh"
	echo "$stderr"; echo "$output"; [ "$status" = 0 ]
	[ "${lines[0]}" = "read=fixture connect=hello from db make=no remove=no groups=2 mode=2750" ]
	[ "${lines[1]}" = "other: read=no connect=no make=no remove=no groups=1 mode=2750" ]
	# the writer's, the session group's, set-group-ID; nothing but the writer's
	[ "${lines[2]}" = "2750 share.sock" ]
	[ "${lines[3]}" = "owner db" ]
	[ "${lines[*]:4}" = "data db.sock uid" ]
	nothing_left
}

@test "check refuses a share naming no role, a role both writing and reading, a key that is none, readers of more than one writer, a bad name, a role named share; and a ready.unix in a share the component does not write; it warns of a path beneath no share; --dry-run shows the shares" {
	db_script
	script other 'echo other' 'exec sleep infinity'
	script main 'true'
	share_manifest '{"sock":{"write":["db","dbb"],"read":["main","db","mian"],"reed":[]}}'
	run -125 --separate-stderr "$SHARNESS_EXEC" check "$TMP/m.json"
	echo "$stderr"
	[ "$stderr" = "sharness-exec: $TMP/m.json: share.sock.write[1]: no role is \"dbb\"; did you mean \"db\"?
sharness-exec: $TMP/m.json: share.sock.read[1]: \"db\" is named already: a role either writes or reads a share
sharness-exec: $TMP/m.json: share.sock.read[2]: no role is \"mian\"; did you mean \"main\"?
sharness-exec: $TMP/m.json: share.sock.reed: unknown key; did you mean share.sock.read?" ]
	share_manifest '{"sock":{"write":["db","other"],"read":["main"]},"Bad_":{"write":["db"]},"x":{"read":["main"]}}'
	run -125 --separate-stderr "$SHARNESS_EXEC" check "$TMP/m.json"
	echo "$stderr"
	[ "$stderr" = "sharness-exec: $TMP/m.json: share.sock: one role writes a directory that others read (it owns it, mode 2750), not 2
sharness-exec: $TMP/m.json: share: a directory's name must be 1-26 of a-z 0-9 -, not beginning or ending with -: \"Bad_\"
sharness-exec: $TMP/m.json: share.x: needs write, the roles that write it" ]
	# db's ready.unix is in the share: it must write it
	share_manifest '{"sock":{"write":["other"],"read":["db","main"]}}'
	run -125 --separate-stderr "$SHARNESS_EXEC" check "$TMP/m.json"
	[ "$stderr" = "sharness-exec: $TMP/m.json: components[0] \"db\": ready.unix: beneath no files.write or files.tmpfs path of policy, nor a share it writes: \"$SHARE/db.sock\"" ]
	share_manifest '{"sock":{"write":["db"],"read":["main"]}}'
	run -0 "$SHARNESS_EXEC" check "$TMP/m.json"
	[[ "$output" != *warning* ]]
	# a path beneath share/ that is no share's is warned of, as a state directory's
	sed "s|\"$SHARE\"|\"$STATE/share/sick\"|" "$TMP/m.json" >"$TMP/w.json"
	run -0 --separate-stderr "$SHARNESS_EXEC" check "$TMP/w.json"
	[ "$stderr" = "sharness-exec: warning: components[1] \"other\": policy.files.write[0]: \"$STATE/share/sick\" is beneath $STATE/share/sick, the directory of no share" ]
	# launch --dry-run's chains show the share as the launch gives it
	run -0 --separate-stderr "$SHARNESS_EXEC" launch --dry-run -m "$TMP/m.json" -- /bin/true
	[[ "$output" == *"-view "*" -w $SHARE "*"/bin/sh $TMP/db.sh"* ]]
	[[ "$output" == *"-view "*" -r $SHARE "*"/bin/true" ]]
	sed 's/"role":"other"/"role":"share"/; s/"after":\["db"\],//' "$TMP/m.json" >"$TMP/s.json"
	run -125 --separate-stderr "$SHARNESS_EXEC" check "$TMP/s.json"
	[ "$stderr" = "sharness-exec: $TMP/s.json: share: no role may be named \"share\" with it: $STATE/share is the shared directories' place" ]
}

@test "writers alone: the directory is 2770, each writer reads, writes and connects in it; main, which it does not name, gets nothing" {
	db_script
	script other "$(try_lines other)" "exec sleep infinity"
	script main "$(try_lines main)" 'echo "other: $SHARNESS_AI_READY_OTHER"'
	share_manifest '{"sock":{"write":["db","other"]}}'
	run --separate-stderr "$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$H" -- /bin/sh "$TMP/main.sh"
	echo "$stderr"; echo "$output"; [ "$status" = 0 ]
	[ "${lines[0]}" = "read=no connect=no make=no remove=no groups=1 mode=no" ]
	[ "${lines[1]}" = "other: read=fixture connect=hello from db make=yes remove=yes groups=2 mode=2770" ]
	[ "${#lines[@]}" = 2 ]
	nothing_left
}

@test "launch --user refuses a share that names main, before anything runs" {
	db_script
	script other 'echo other' 'exec sleep infinity'
	share_manifest '{"sock":{"write":["db"],"read":["main"]}}'
	run -125 --separate-stderr "$SHARNESS_EXEC" launch --user 65534 -m "$TMP/m.json" -H "$H" -- /bin/true
	[ -z "$output" ]
	echo "$stderr"
	[ "$stderr" = "sharness-exec-launch: fatal: refused: main under --user 65534 cannot share $SHARE: the session's groups are its own uids'. Nothing ran." ]
	nothing_left
}

@test "run --share-read DIR reads and --share DIR writes a directory its policy does not list, as root, nobody and uid 1000; a relative DIR is refused with one line" {
	mkdir -m 777 "$TMP/d"
	echo fixture >"$TMP/d/f"
	chmod 666 "$TMP/d/f"
	write_policy "$TMP/p.json" "$(policy p)"
	for who in root nobody 1000; do
		run -0 --separate-stderr as_m "$who" "$SHARNESS_EXEC" run --share-read "$TMP/d" --policy "$TMP/p.json" -- \
			/bin/sh -c "cat $TMP/d/f; echo $who >$TMP/d/f || echo refused"
		[ "$output" = $'fixture\nrefused' ]
		[ "$(cat "$TMP/d/f")" = fixture ]
		# unshared, the policy's view has no such directory
		run -1 --separate-stderr as_m "$who" "$SHARNESS_EXEC" run --policy "$TMP/p.json" -- /bin/cat "$TMP/d/f"
		run -0 --separate-stderr as_m "$who" "$SHARNESS_EXEC" run --share "$TMP/d" --policy "$TMP/p.json" -- \
			/bin/sh -c "echo $who >$TMP/d/f"
		[ "$(cat "$TMP/d/f")" = "$who" ]
		echo fixture >"$TMP/d/f"
		run -125 --separate-stderr as_m "$who" "$SHARNESS_EXEC" run --share d --policy "$TMP/p.json" -- /bin/true
		[ "${stderr_lines[0]}" = 'sharness-exec: fatal: --share needs an absolute path without . or .., not "d"' ]
	done
}

# pg_manifest SOCKDIR MAIN_FILES [SHARE]: $TMP/m.json, PostgreSQL as db
# (initdb in its state directory, then postgres with its socket in
# SOCKDIR, unix_socket_permissions 0770) and main, which runs psql, with
# MAIN_FILES more of its "files"; SHARE the manifest's "share", if any.
pg_manifest() {
	script db "$PGBIN/initdb -D $STATE/db/data -U postgres --auth=trust >/dev/null || exit 1" \
		"exec $PGBIN/postgres -D $STATE/db/data -k $1 -c listen_addresses= -c unix_socket_permissions=0770"
	script main "psql -h $1 -U postgres -Atc 'select 40 + 2'"
	write_policy "$TMP/m.json" '{"launch":1,"id":"pg",'"${3:+\"share\":$3,}"'"components":[
	 {"role":"db","command":["/bin/sh","'"$TMP"'/db.sh"],"policy":'"$(policy db "\"$STATE/db\"")"',
	  "ready":{"unix":"'"$1"'/.s.PGSQL.5432"}}],
	 "main":{"role":"main","policy":'"$(policy main "" "" "$2")"'}}'
	H=$("$SHARNESS_EXEC" hash "$TMP/m.json")
}

@test "PostgreSQL: main's psql reaches db over a socket in a share it reads; over one in db's state directory, which its policy names, it does not" {
	PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | tail -n 1)
	require_feature "file:$PGBIN/postgres"
	require_feature tool:psql
	# issue 41's friction: main's policy lists db's socket, whose
	# directory is db's alone
	pg_manifest "$STATE/db" ',"sockets":["'"$STATE"'/db/.s.PGSQL.5432"]'
	run --separate-stderr "$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$H" -- /bin/sh "$TMP/main.sh"
	[ "$status" = 2 ]
	[ -z "$output" ]
	[[ "$(grep -v '^db|' <<<"$stderr")" == *'.s.PGSQL.5432" failed: Permission denied'* ]]
	pg_manifest "$STATE/share/pg" "" '{"pg":{"write":["db"],"read":["main"]}}'
	run --separate-stderr "$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$H" -- /bin/sh "$TMP/main.sh"
	echo "$stderr" | tail -n 5; echo "$output"; [ "$status" = 0 ]
	[ "$output" = 42 ]
	nothing_left
}
