#!/usr/bin/env bats
# Issue 36, what a policy grants: the keys files.sockets (the host's UNIX
# sockets the target may connect to) and files.write_vcs (VCS metadata
# beneath write paths left writable) in check, the chain (-k, -V) and the
# landlock step (-k: FS_RESOLVE_UNIX on one socket, from ABI 9); a private
# /tmp over a project under /tmp; check's warning of a home directory in
# files.write; --explain naming a refused socket and files.sockets.
# not tested: RESOLVE_UNIX at ABI 9 for real where the kernel lacks it (the
# cases skip; tests/kernel-abi.bats has the helper's, for the kernel
# matrix); a socket that another network namespace's listener holds
# (tests/planted.bats has the scan's).
load ../helpers/load

TRYV="$TRYDIR/try-view"

setup() {
	setup_tmp
	pids=()
	PROJ=
}

teardown() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	[ -n "$PROJ" ] && rm -rf "$PROJ" /tmp/"${PROJ##*/}".elsewhere
	teardown_tmp
}

# as_user MODE CMD...: CMD as root, nobody or uid 1000 (no groups).
as_user() {
	local m=$1
	shift
	case $m in
	1000) setpriv --reuid=1000 --regid=1000 --clear-groups -- "$@" ;;
	*) as "$m" "$@" ;;
	esac
}

# need_user MODE: what running as MODE needs; uid 1000 as nobody does, and
# must reach the test programs.
need_user() {
	if [ "$1" = 1000 ]; then
		need nobody
		setpriv --reuid=1000 --regid=1000 --clear-groups -- test -x "$SHARNESS_EXEC" ||
			not_here uid-1000 "uid 1000 cannot reach $SHARNESS_EXEC"
	else
		need "$1"
	fi
}

@test "check: files.sockets and files.write_vcs, their errors with positions, and did-you-mean" {
	write_policy "$TMP/p.json" '{"pbp":1,"id":"x","files":{"write":["/w"],"socket":["/run/a.sock"],"sockets":["run/a.sock","/run/b.sock","/run//b.sock/"],"write_vsc":true,"write_vcs":"yes"},"network":"none","process":{"no_new_privs":true}}'
	run -125 --separate-stderr "$SHARNESS_EXEC" check "$TMP/p.json"
	p="sharness-exec: $TMP/p.json"
	[ "$stderr" = "$p: files.socket: unknown key; did you mean files.sockets?
$p: files.sockets[0]: not an absolute path: \"run/a.sock\"
$p: files.sockets[2]: duplicate of files.sockets[1]: \"/run/b.sock\"
$p: files.write_vsc: unknown key; did you mean files.write_vcs?
$p: files.write_vcs: must be true or false" ]
	[ -z "$output" ]
	# run refuses it the same way, and nothing runs
	run -125 --separate-stderr "$SHARNESS_EXEC" run -p "$TMP/p.json" -- touch "$TMP/ran"
	[ "${stderr_lines[0]}" = "$p: files.socket: unknown key; did you mean files.sockets?" ]
	[ ! -e "$TMP/ran" ]
	# Both keys are hashed: false is not the same policy as no key.
	write_policy "$TMP/a.json" '{"pbp":1,"id":"x","files":{"sockets":["/run/b.sock"]},"network":"none","process":{"no_new_privs":true}}'
	write_policy "$TMP/b.json" '{"pbp":1,"id":"x","files":{"sockets":["/run/b.sock"],"write_vcs":false},"network":"none","process":{"no_new_privs":true}}'
	run -0 --separate-stderr "$SHARNESS_EXEC" check "$TMP/b.json"
	[ "$output" = "$TMP/b.json: valid pbp 1 policy \"x\"" ] && [ -z "$stderr" ]
	[ "$("$SHARNESS_EXEC" hash "$TMP/a.json")" != "$("$SHARNESS_EXEC" hash "$TMP/b.json")" ]
}

@test "check: a tmpfs may hold read, exec, write and socket paths; not an equal path, another tmpfs, or a protected path no write path beneath it holds" {
	write_policy "$TMP/p.json" '{"pbp":1,"id":"x","files":{"read":["/tmp/r"],"exec":["/tmp/x"],"write":["/tmp/w"],"sockets":["/tmp/s"],"protected":["/tmp/w/.env"],"tmpfs":["/tmp"]},"env":{"private":"/tmp/w/env"},"network":"none","process":{"no_new_privs":true}}'
	run -0 --separate-stderr "$SHARNESS_EXEC" check "$TMP/p.json"
	[ -z "$stderr" ]
	write_policy "$TMP/p.json" '{"pbp":1,"id":"x","files":{"write":["/home/u"],"protected":["/home/u/c/keep"],"tmpfs":["/home/u/c","/var/tmp","/var/tmp/x","/srv"],"read":["/srv"]},"network":"none","process":{"no_new_privs":true}}'
	run -125 --separate-stderr "$SHARNESS_EXEC" check "$TMP/p.json"
	p="sharness-exec: $TMP/p.json"
	[ "$stderr" = "$p: files.tmpfs[0]: would hide files.protected[0]: \"/home/u/c/keep\"
$p: files.tmpfs[1]: would hide files.tmpfs[2]: \"/var/tmp/x\"
$p: files.tmpfs[3]: also in files.read[0]: \"/srv\"" ]
}

@test "check: a write path that is a home directory draws one warning line, and the policy is valid" {
	mkdir "$TMP/home"
	write_policy "$TMP/p.json" '{"pbp":1,"id":"x","files":{"write":["'"$TMP"'/home","'"$TMP"'/home/proj"]},"network":"none","process":{"no_new_privs":true}}'
	HOME=$TMP/home run -0 --separate-stderr "$SHARNESS_EXEC" check "$TMP/p.json"
	[ "$output" = "$TMP/p.json: valid pbp 1 policy \"x\"" ]
	[ "$stderr" = "sharness-exec: $TMP/p.json: warning: files.write[0]: \"$TMP/home\" is a home directory, with agents' sockets (~/.ssh/agent, gpg-agent's) and shell start-up files: name the project beneath it instead" ]
	# a project beneath it draws nothing
	HOME=$TMP/home/elsewhere run -0 --separate-stderr "$SHARNESS_EXEC" check "$TMP/p.json"
	[ -z "$stderr" ]
	# /etc/passwd's homes too: root's
	write_policy "$TMP/p.json" '{"pbp":1,"id":"x","files":{"write":["/root"]},"network":"none","process":{"no_new_privs":true}}'
	[ "$(getent passwd root | cut -d: -f6)" = /root ] || not_here root-home "root's home is not /root"
	HOME= run -0 --separate-stderr "$SHARNESS_EXEC" check "$TMP/p.json"
	[[ "$stderr" == *'warning: files.write[0]: "/root" is a home directory'* ]]
	[ "${#stderr_lines[@]}" = 1 ]
}

golden() {
	cp "$top_srcdir/tests/golden/$1.json" "$TMP/p.json"
	chmod 644 "$TMP/p.json"
	run -0 --separate-stderr "$SHARNESS_EXEC" run --dry-run --policy "$TMP/p.json" -- make check
	sed "s|@HELPERDIR@|$HELPERDIR|g" "$top_srcdir/tests/golden/$1.chain" >"$TMP/want"
	printf '%s\n' "$output" >"$TMP/got"
	diff -u "$TMP/want" "$TMP/got"
	[ -z "$stderr" ]
}

@test "the chain: files.sockets is -k to the view and the landlock step (and -r to the view where no path holds it), write_vcs true is -V; neither otherwise" {
	golden sockets
	# --explain: the observer learns the sockets too
	run -0 --separate-stderr "$SHARNESS_EXEC" run --dry-run --explain --policy "$TMP/p.json" -- true
	[[ "${lines[2]}" == *"/sharness-exec-explain -r /etc -x /usr -w /home/ci/build -s /home/ci/build/db/.s.PGSQL.5432 -s /nonexistent/run/docker.sock --" ]]
	# no socket, no write_vcs (or false): no -k, no -V anywhere
	write_policy "$TMP/p.json" '{"pbp":1,"id":"x","files":{"write":["/w"],"write_vcs":false},"network":"none","process":{"no_new_privs":true}}'
	run -0 --separate-stderr "$SHARNESS_EXEC" run --dry-run --explain -p "$TMP/p.json" -- true
	[[ "$output" != *" -s "* ]] && [[ "$output" != *" -V"* ]]
}

# --- the landlock step: -k ---

@test "landlock -k: a missing socket is skipped as a missing path, one that is no socket with its own line; a socket runs" {
	need root
	: >"$TMP/file"
	python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$TMP/sock"
	run -0 --separate-stderr "$LANDLOCK" -x /usr -x "$TRYDIR" -s "$TMP/missing" -s "$TMP/file" -s "$TMP/sock" -- "$TRYV" stat /usr
	[ "$stderr" = "sharness-exec-landlock: warning: skipping missing path $TMP/missing
sharness-exec-landlock: warning: skipping $TMP/file (files.sockets, -s): not a socket" ]
	# -s is a rule path: never through a symlink
	ln -s "$TMP/sock" "$TMP/link"
	run -126 --separate-stderr "$LANDLOCK" -x /usr -x "$TRYDIR" -s "$TMP/link" -- "$TRYV" stat /usr
	[[ "${stderr_lines[0]}" == "sharness-exec-landlock: fatal: unable to open $TMP/link"* ]]
}

t_landlock_resolve_unix() {
	local m=$1 sys=(-x /usr -x "$TRYDIR")
	need "$m"
	[ "$(landlock_abi)" -ge 9 ] || not_here landlock-abi:9 "FS_RESOLVE_UNIX needs Landlock ABI 9, this kernel has ABI $(landlock_abi)"
	mkdir -m 777 "$TMP/w" "$TMP/w/a" "$TMP/w/a/b"
	listener unix "$TMP/w/a/b/sock"
	# Two directories beneath a write path: not granted.
	run -1 --separate-stderr as "$m" "$LANDLOCK" "${sys[@]}" -w "$TMP/w" -- "$TRYV" unix-connect "$TMP/w/a/b/sock"
	[ "$output" = "refused: Permission denied" ]
	# Named with -k: granted. The refused one never arrived before it.
	run -0 --separate-stderr as "$m" "$LANDLOCK" "${sys[@]}" -w "$TMP/w" -s "$TMP/w/a/b/sock" -- "$TRYV" unix-connect "$TMP/w/a/b/sock"
	logged "$log" 1
	[ "$(cat "$log")" = accepted ]
}

@test "ABI 9: a host socket beneath a write path is refused, one -k names is reached (root)" { t_landlock_resolve_unix root; }
@test "ABI 9: a host socket beneath a write path is refused, one -k names is reached (nobody)" { t_landlock_resolve_unix nobody; }

@test "below ABI 9 the view holds FS_RESOLVE_UNIX_WRITE where a write path is given, and run --check names it" {
	need root
	chain_policy grants '"none"' '"/etc"' '"'"$TMP"'"'
	SHARNESS_EXEC_TEST_ABI=7 run -0 --separate-stderr "$SHARNESS_EXEC" run --check -p "$TMP/p.json"
	[[ "${lines[-1]}" == *",FS_RESOLVE_UNIX:view,FS_RESOLVE_UNIX_WRITE:view,"* ]]
	# no write path: not relied on
	chain_policy grants '"none"' '"/etc"' ''
	SHARNESS_EXEC_TEST_ABI=7 run -0 --separate-stderr "$SHARNESS_EXEC" run --check -p "$TMP/p.json"
	[[ "${lines[-1]}" != *"FS_RESOLVE_UNIX_WRITE"* ]]
	run -0 "$LANDLOCK" --rights
	[[ "$output" == *$'FS_RESOLVE_UNIX_WRITE\t9\t7.1\trefused-for-root\tLandlock ABI 9 (Linux 7.1) or the view step\'s mount namespace'* ]]
}

# --- a private /tmp over a project under /tmp ---

t_private_tmp() {
	local m=$1 name
	need_user "$m"
	PROJ=$(mktemp -d /tmp/sharness-exec-grants.XXXXXX)
	chmod 777 "$PROJ"
	name=${PROJ##*/}
	chain_policy grants '"none"' '"/etc"' '"'"$PROJ"'"' '' '' ',"tmpfs":["/tmp"]'
	# Inside: the project is there and written through; /tmp is the run's
	# own, and the host's files in it are not there.
	: >"/tmp/$name.host"
	run -1 --separate-stderr as_user "$m" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- sh -c \
		'"$1" create "$2/in"; "$1" create "/tmp/$3.elsewhere"; "$4" stat "/tmp/$3.host"' \
		_ "$TRY" "$PROJ" "$name" "$TRYV"
	[ "$output" = "ok
ok
refused: No such file or directory" ] || { echo "$output $stderr"; false; }
	rm -f "/tmp/$name.host"
	# Outside, after: the project's file is there, the other is not.
	[ -f "$PROJ/in" ]
	[ ! -e "/tmp/$name.elsewhere" ]
}

@test "a project under /tmp runs with a private /tmp: its file stays, one elsewhere in /tmp is gone (root)" { t_private_tmp root; }
@test "a project under /tmp runs with a private /tmp: its file stays, one elsewhere in /tmp is gone (nobody)" { t_private_tmp nobody; }
@test "a project under /tmp runs with a private /tmp: its file stays, one elsewhere in /tmp is gone (uid 1000)" { t_private_tmp 1000; }

# --- --explain ---

t_explain_socket() {
	local m=$1
	need "$m"
	mkdir -m 777 "$TMP/w" "$TMP/out"
	listener unix "$TMP/out/sock"
	# A listener outside the policy: hidden; files.sockets would allow it.
	chain_policy grants '"none"' '"/etc"' '"'"$TMP"'/w"'
	run -1 --separate-stderr as "$m" "$SHARNESS_EXEC" run --explain -p "$TMP/p.json" -- "$TRYV" unix-connect "$TMP/out/sock"
	[ "$output" = "refused: No such file or directory" ]
	grep -qxF "sharness-exec-explain: explain: connect to UNIX socket $TMP/out/sock: ENOENT (No such file or directory), hidden by the policy, 1 time; allow with \"files\": {\"sockets\": [\"$TMP/out/sock\"]}" <<<"$stderr"
	# Control: the same user, bare, is served; nothing arrived before.
	run -0 as "$m" "$TRYV" unix-connect "$TMP/out/sock"
	logged "$log" 1
	[ "$(cat "$log")" = accepted ]
	# A listener two directories beneath a write path: below ABI 9 the
	# view covers it (ECONNREFUSED), from 9 Landlock refuses it (EACCES);
	# files.sockets would allow it. Checked from the listener's side below.
	mkdir -m 777 "$TMP/w/a" "$TMP/w/a/b"
	listener unix "$TMP/w/a/b/sock"
	run -1 --separate-stderr as "$m" "$SHARNESS_EXEC" run --explain -p "$TMP/p.json" -- "$TRYV" unix-connect "$TMP/w/a/b/sock"
	if [ "$(landlock_abi)" -lt 9 ]; then
		[ "$output" = "refused: Connection refused" ]
		grep -qxF "sharness-exec-explain: explain: connect to UNIX socket $TMP/w/a/b/sock: ECONNREFUSED (Connection refused), covered by the view (or nothing listens there), 1 time; allow with \"files\": {\"sockets\": [\"$TMP/w/a/b/sock\"]}" <<<"$stderr"
	else
		[ "$output" = "refused: Permission denied" ]
		grep -qxF "sharness-exec-explain: explain: connect to UNIX socket $TMP/w/a/b/sock: EACCES (Permission denied), refused by the policy, 1 time; allow with \"files\": {\"sockets\": [\"$TMP/w/a/b/sock\"]}" <<<"$stderr"
	fi
	run -0 as "$m" "$TRYV" unix-connect "$TMP/w/a/b/sock"
	logged "$log" 1
	[ "$(cat "$log")" = accepted ]
	# A socket beneath a write path where nothing listens: the same line
	# (below ABI 9; from 9 Landlock refuses it as the one above).
	[ "$(landlock_abi)" -lt 9 ] || return 0
	python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$TMP/w/dead"
	chmod 777 "$TMP/w/dead"
	run -1 --separate-stderr as "$m" "$SHARNESS_EXEC" run --explain -p "$TMP/p.json" -- "$TRYV" unix-connect "$TMP/w/dead"
	[ "$output" = "refused: Connection refused" ]
	grep -qxF "sharness-exec-explain: explain: connect to UNIX socket $TMP/w/dead: ECONNREFUSED (Connection refused), covered by the view (or nothing listens there), 1 time; allow with \"files\": {\"sockets\": [\"$TMP/w/dead\"]}" <<<"$stderr"
}

@test "--explain names a refused host socket and suggests files.sockets (root)" { t_explain_socket root; }
@test "--explain names a refused host socket and suggests files.sockets (nobody)" { t_explain_socket nobody; }

# --- through run, with branch walk's view ---

t_named_socket() {
	local m=$1
	need_user "$m"
	mkdir -m 777 "$TMP/w" "$TMP/w/a" "$TMP/w/a/b" "$TMP/srv"
	listener unix "$TMP/w/a/b/sock"
	local wlog=$log
	listener unix "$TMP/srv/named"
	# Unnamed, two directories beneath a write path: no connection.
	chain_policy grants '"none"' '"/etc"' '"'"$TMP"'/w"' '' '' ',"sockets":["'"$TMP"'/srv/named"]'
	run -1 --separate-stderr as_user "$m" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TRYV" unix-connect "$TMP/w/a/b/sock"
	[[ "$output" == "refused: "* ]]
	# Named, beneath no other path: reached.
	run -0 --separate-stderr as_user "$m" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TRYV" unix-connect "$TMP/srv/named"
	logged "$log" 1
	# Control after: the unnamed one is served bare, and only that once.
	run -0 as_user "$m" "$TRYV" unix-connect "$TMP/w/a/b/sock"
	logged "$wlog" 1
	[ "$(cat "$wlog")" = accepted ]
}

@test "through run: an unnamed host socket beneath a write path takes nothing, a named one is reached (root)" { t_named_socket root; }
@test "through run: an unnamed host socket beneath a write path takes nothing, a named one is reached (nobody)" { t_named_socket nobody; }
@test "through run: an unnamed host socket beneath a write path takes nothing, a named one is reached (uid 1000)" { t_named_socket 1000; }

@test "through run: files.write_vcs true leaves .git/config writable (root)" {
	need root
	mkdir -p "$TMP/w/.git"
	echo '[core]' >"$TMP/w/.git/config"
	chain_policy grants '"none"' '"/etc"' '"'"$TMP"'/w"' '' '' ',"write_vcs":true'
	run -0 --separate-stderr "$SHARNESS_EXEC" run -p "$TMP/p.json" -- sh -c 'echo x >>"$1"' _ "$TMP/w/.git/config"
	[ "$(tail -1 "$TMP/w/.git/config")" = x ]
}
