#!/usr/bin/env bats
# What launch (issue 29; DESIGN.md 4.1, 4.2, 4.5, 4.8) gives each
# component's run: run --in-session keeps the caller's network namespace, a
# session's holding lo alone, and refuses any other; --passwd-fd and
# --group-fd make sealed memfds the view's /etc/passwd and /etc/group.
# Each test makes a session of its own: a network namespace with only lo
# (unshare -n), held by a process the test ends, entered with nsenter.
# not tested: the strict refusal below ABI 6 on a real old kernel (the test
# build's SHARNESS_EXEC_TEST_ABI stands in); older kernels' open_tree(2),
# which clones nothing from a detached mount (the view attaches its tmpfs
# first on every kernel, so this one takes the same path).
load ../helpers/load

TRYDIR="$TRYDIR"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

setup() {
	setup_tmp
	mkdir -m 777 "$TMP/w"
	pids=()
	holder=
}

teardown() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	[ -n "$holder" ] && kill "$holder" 2>/dev/null
	teardown_tmp
}

# session: a network namespace with lo alone, up; $holder keeps it.
session() {
	mkfifo "$TMP/held"
	unshare -n sh -c 'ip link set lo up && echo up >"$1" && exec sleep 600' sh "$TMP/held" &
	holder=$!
	[ "$(await_line "$TMP/held")" = up ]
}

# as_uid UID CMD...: CMD as UID (its gid the same, no groups); 0 as is.
as_uid() {
	local u=$1
	shift
	if [ "$u" = 0 ]; then "$@"; else setpriv --reuid="$u" --regid="$u" --clear-groups -- "$@"; fi
}

# in_ns CMD...: CMD in the session's network namespace; in_ns_as UID
# CMD...: there as UID.
in_ns() {
	nsenter -t "$holder" -n -- "$@"
}

in_ns_as() {
	local u=$1
	shift
	if [ "$u" = 0 ]; then in_ns "$@"; else in_ns setpriv --reuid="$u" --regid="$u" --clear-groups -- "$@"; fi
}

# need_session UID: root to make the session, Landlock's scopes (ABI 6,
# which strict --in-session needs), and UID able to run the programs.
need_session() {
	require_feature root
	require_feature netns
	require_feature tool:ip
	require_feature tool:nsenter
	require_feature landlock-abi:6
	[ "$1" = 0 ] || require_that "uid-$1" "uid $1 cannot reach $SHARNESS_EXEC" \
		as_uid "$1" test -x "$SHARNESS_EXEC"
	session
}

# session_listener KIND [NAME]: listener (load.bash) in the session.
session_listener() {
	local ready
	log=$(mktemp "$TMP/listen.$1.XXXXXX")
	chmod 666 "$log"
	ready=$log.ready
	mkfifo "$ready"
	# nsenter itself, not in_ns's subshell: $! is the listener (nsenter -n
	# execs it), which teardown kills.
	nsenter -t "$holder" -n -- python3 "$top_srcdir/tests/helpers/listen.py" "$1" "$ready" \
		"$log" "${2:-}" 3>&- &
	pids+=($!)
	port=$(await_line "$ready")
}

# The try programs to run, /proc to read, $TMP/w to write.
policy() {
	chain_policy session "${1:-\"none\"}" '"/proc","'"$TMP"'"' '"'"$TMP"'/w"'
}

t_reach() {
	local u=$1
	need_session "$u"
	policy
	session_listener tcp
	# Bare, in the session, the listener is there.
	run -0 in_ns_as "$u" "$TRY" connect "$port"
	run -0 --separate-stderr in_ns_as "$u" "$SHARNESS_EXEC" run --in-session \
		-p "$TMP/p.json" -- "$TRY" connect "$port"
	[ "$output" = ok ] && [ -z "$stderr" ]
	# A plain run has a network namespace of its own.
	run -1 in_ns_as "$u" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TRY" connect "$port"
	[ "${lines[-1]}" = "refused: Connection refused" ]
	run -0 in_ns_as "$u" "$TRY" connect "$port"
	logged "$log" 3
	[ "$(wc -l <"$log")" = 3 ]
}

@test "--in-session: \"none\" reaches a listener of the session on 127.0.0.1, a plain run does not (root)" { t_reach 0; }
@test "--in-session: \"none\" reaches a listener of the session on 127.0.0.1, a plain run does not (nobody)" { t_reach "$NOBODY_UID"; }
@test "--in-session: \"none\" reaches a listener of the session on 127.0.0.1, a plain run does not (uid 1000)" { t_reach 1000; }

@test "--in-session: the walls say who holds what: NETWORK the session, abstract sockets and signals Landlock's scopes" {
	need_session 0
	policy
	run -0 --separate-stderr in_ns "$SHARNESS_EXEC" run --in-session --check -p "$TMP/p.json"
	[ "${lines[0]}" = "sharness-exec-netns: network=session ipc=namespace user=none keyring=new" ]
	[[ "${lines[-1]}" == *" scoped=signal,abstract_unix "* ]]
	[[ "${lines[-1]}" == *",SCOPE_ABSTRACT_UNIX_SOCKET:landlock,SCOPE_SIGNAL:landlock,"* ]]
	[[ "${lines[-1]}" == *",NETWORK:session" ]]
	run -0 in_ns "$SHARNESS_EXEC" run --in-session --report "$TMP/r.json" -p "$TMP/p.json" -- true
	grep -q '"NETWORK":"session"' "$TMP/r.json"
	grep -q '"SCOPE_ABSTRACT_UNIX_SOCKET":"landlock"' "$TMP/r.json"
	# The dry run shows the netns step's -I.
	run -0 --separate-stderr in_ns "$SHARNESS_EXEC" run --in-session --dry-run -p "$TMP/p.json" -- true
	[[ "${lines[0]}" == */sharness-exec-netns\ -W\ [0-9]*\ -I\ -- ]]
	# --explain: a connection nothing in the session takes is none of the
	# policy's doing (its whole loopback is the run's); a port the object
	# form does not list is.
	run -1 --separate-stderr in_ns "$SHARNESS_EXEC" run --in-session --explain -p "$TMP/p.json" -- \
		"$TRY" connect 1
	[ "$output" = "refused: Connection refused" ]
	! grep -q 'explain: TCP' <<<"$stderr"
	# Another component's abstract socket: Landlock's scope holds it.
	session_listener abstract "sharness-exec-session-$$-$RANDOM"
	run -1 --separate-stderr in_ns "$SHARNESS_EXEC" run --in-session --explain -p "$TMP/p.json" -- \
		"$TRY" abstract "$port"
	grep -qx "sharness-exec-explain: explain: connect to abstract UNIX socket @$port: EPERM (Operation not permitted), refused by Landlock's scope, 1 time; no policy change allows it: it was made outside the run's Landlock domain: by the host, or by another run of the session (run --in-session)" <<<"$stderr"
	policy '{"connect_tcp_ports":[2]}'
	run -1 --separate-stderr in_ns "$SHARNESS_EXEC" run --in-session --explain -p "$TMP/p.json" -- \
		"$TRY" connect 1
	grep -qx 'sharness-exec-explain: explain: TCP connect 127.0.0.1:1: EACCES (Permission denied), refused by the policy, 1 time; allow with "network": {"connect_tcp_ports": \[1\]}' <<<"$stderr"
	policy
	# A session's lo is the launcher's to bring up: down, a warning.
	in_ns ip link set lo down
	run -0 --separate-stderr in_ns "$SHARNESS_EXEC" run --in-session -p "$TMP/p.json" -- true
	[ "$stderr" = "sharness-exec-netns: warning: the session's loopback lo is down: nothing answers on 127.0.0.1 or ::1 (bring it up before the run)" ]
}

t_ports() {
	local u=$1 allowed other
	need_session "$u"
	session_listener tcp
	allowed=$port
	log_allowed=$log
	session_listener tcp
	other=$port
	policy '{"connect_tcp_ports":['"$allowed"']}'
	run -0 in_ns_as "$u" "$SHARNESS_EXEC" run --in-session -p "$TMP/p.json" -- "$TRY" connect "$allowed"
	run -1 in_ns_as "$u" "$SHARNESS_EXEC" run --in-session -p "$TMP/p.json" -- "$TRY" connect "$other"
	[ "${lines[-1]}" = "refused: Permission denied" ]
	run -0 in_ns_as "$u" "$TRY" connect "$other"
	logged "$log" 1
	[ "$(cat "$log")" = accepted ]
	logged "$log_allowed" 1
	[ "$(cat "$log_allowed")" = accepted ]
}

@test "--in-session, the object form: the session's loopback, limited to the listed ports (root)" { t_ports 0; }
@test "--in-session, the object form: the session's loopback, limited to the listed ports (nobody)" { t_ports "$NOBODY_UID"; }

t_iface() {
	local u=$1
	need_session "$u"
	policy
	run -0 in_ns_as "$u" "$SHARNESS_EXEC" run --in-session -p "$TMP/p.json" -- "$TRY" create "$TMP/w/ran"
	rm "$TMP/w/ran"
	in_ns ip link add sxv0 type veth peer name sxv1
	run -126 --separate-stderr in_ns_as "$u" "$SHARNESS_EXEC" run --in-session -p "$TMP/p.json" -- \
		"$TRY" create "$TMP/w/ran"
	[ "$stderr" = 'sharness-exec-netns: fatal: refused: -I (run --in-session): this network namespace holds the interfaces sxv1, sxv0 besides its loopback, and a session'"'"'s holds lo alone' ]
	[ ! -e "$TMP/w/ran" ]
	# The host's namespace is refused the same way.
	run -126 --separate-stderr as_uid "$u" "$SHARNESS_EXEC" run --in-session -p "$TMP/p.json" -- \
		"$TRY" create "$TMP/w/ran"
	[[ "$stderr" == "sharness-exec-netns: fatal: refused: -I (run --in-session): this network namespace holds the interface"* ]]
	[ ! -e "$TMP/w/ran" ]
}

@test "--in-session: a namespace with an interface besides lo is refused, 126, nothing runs (root)" { t_iface 0; }
@test "--in-session: a namespace with an interface besides lo is refused, 126, nothing runs (nobody)" { t_iface "$NOBODY_UID"; }

@test "--in-session below Landlock ABI 6: strict refuses in one line, nothing runs; --best-effort runs and says what it dropped" {
	need_session 0
	policy
	run -126 --separate-stderr env SHARNESS_EXEC_TEST_ABI=5 nsenter -t "$holder" -n -- \
		"$SHARNESS_EXEC" run --in-session -p "$TMP/p.json" -- "$TRY" create "$TMP/w/ran"
	[ "$stderr" = "sharness-exec-netns: fatal: refused: -I (run --in-session) needs Landlock ABI 6 (Linux 6.12), not 5: below it the session's components would share its abstract UNIX sockets, which no uid check guards; -b (--best-effort) runs so" ]
	[ ! -e "$TMP/w/ran" ]
	run -0 --separate-stderr env SHARNESS_EXEC_TEST_ABI=5 nsenter -t "$holder" -n -- \
		"$SHARNESS_EXEC" run -b --in-session -p "$TMP/p.json" -- "$TRY" create "$TMP/w/ran"
	[ "$stderr" = "sharness-exec-landlock: warning: Landlock ABI 5: best effort: dropped SCOPE_ABSTRACT_UNIX_SOCKET" ]
	[ -e "$TMP/w/ran" ]
}

# Two components of one session, as launch starts them: A (uid 65534)
# listens on an abstract socket, B (uid 1000) tries it and kill(0) at the
# process group they share (a group of the test's own, setsid).
@test "--in-session: two runs under different --user uids reach neither each other's abstract socket nor each other with a signal" {
	need_session 0
	require_feature nobody
	local name=sharness-exec-session-$$-$RANDOM listen=$TMP/listen.py
	cp "$top_srcdir/tests/helpers/listen.py" "$listen"
	chmod 644 "$listen"
	policy
	mkfifo -m 666 "$TMP/w/ready"
	cat >"$TMP/pair.sh" <<-'EOF'
		se=$1 p=$2 try=$3 out=$4 name=$5 listen=$6 w=$7 py=$8
		"$se" run --in-session --user 65534:65534 -p "$p" -- "$py" "$listen" abstract "$w/ready" "$w/log" "$name" &
		a=$!
		read -r -t 600 _ <>"$w/ready"
		"$se" run --in-session --user 1000:1000 -p "$p" -- "$try" abstract "$name" >"$out" 2>&1
		echo "status $?" >>"$out"
		"$se" run --in-session --user 1000:1000 -p "$p" -- "$try" kill9 0 >>"$out" 2>&1
		echo "status $?" >>"$out"
		# Bare, from outside any run: the socket answers, A's process dies.
		"$try" abstract "$name" >>"$out"
		pid=$(pgrep -g 0 -U 65534)
		kill -0 "$a" && echo "A alive, its uid 65534 process $pid" >>"$out"
		"$try" kill "$pid" >>"$out"
		wait "$a"
		echo "A status $?" >>"$out"
	EOF
	in_ns setsid -w bash "$TMP/pair.sh" "$SHARNESS_EXEC" "$TMP/p.json" "$TRY" "$TMP/out" \
		"$name" "$listen" "$TMP/w" "$PY"
	cat "$TMP/out"
	run cat "$TMP/out"
	[ "${lines[0]}" = "refused: Operation not permitted" ]
	[ "${lines[1]}" = "status 1" ]
	# B's kill(0) reached its own domain alone: itself.
	[ "${lines[2]}" = "status 137" ]
	[ "${lines[3]}" = ok ]
	[[ "${lines[4]}" == "A alive, its uid 65534 process "[0-9]* ]]
	[ "${lines[5]}" = ok ]
	[ "${lines[6]}" = "A status 143" ]
	# Only the bare connection reached the listener.
	[ "$(cat "$TMP/w/log")" = accepted ]
}

# --- --passwd-fd, --group-fd ---

# MEMFD: with_db SEALS PASSWD GROUP CMD...: CMD with PASSWD and GROUP
# (\n escapes) in memfds sealed with SEALS (all, none, or "noseal": all
# but F_SEAL_SEAL); @PW@ and @GR@ in CMD's words are their numbers.
MEMFD='
import fcntl, os, subprocess, sys
seals, texts, cmd = sys.argv[1], sys.argv[2:4], sys.argv[4:]
fds = []
for t in texts:
    fd = os.memfd_create("db", os.MFD_ALLOW_SEALING)
    os.write(fd, t.encode().decode("unicode_escape").encode())
    s = {"all": fcntl.F_SEAL_WRITE | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_SEAL,
         "noseal": fcntl.F_SEAL_WRITE | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SHRINK, "none": 0}[seals]
    if s:
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, s)
    os.set_inheritable(fd, True)
    fds.append(fd)
cmd = [w.replace("@PW@", str(fds[0])).replace("@GR@", str(fds[1])) for w in cmd]
sys.exit(subprocess.run(cmd, pass_fds=fds).returncode)
'
with_db() {
	"$PY" -c "$MEMFD" "$@"
}

PASSWD='root:x:0:0:root:/root:/bin/sh\ncomp:x:70000:70000:a component:/state:/bin/sh\n'
GROUP='root:x:0:\ncomp:x:70000:\n'

# db_policy READ: $TMP/p.json, READ (JSON strings) to read beside /proc.
db_policy() {
	chain_policy passwd '"none"' '"/proc"'"${1:+,$1}" '"'"$TMP"'/w"'
}

t_db() {
	local etc=$1 sum
	require_feature root
	require_feature landlock
	db_policy "$etc"
	sum=$(sha256sum /etc/passwd /etc/group)
	run -0 --separate-stderr with_db all "$PASSWD" "$GROUP" "$SHARNESS_EXEC" run \
		--passwd-fd @PW@ --group-fd @GR@ --user 70000 -p "$TMP/p.json" -- sh -c '
		id -un; id -gn; getent passwd 70000; getent group comp; echo "$HOME $USER"
		"$1" create "$2/w/x"; "$1" write /etc/passwd; "$1" write /etc/group
		"$1" fd "$3"; "$1" fd "$4"; true' sh "$TRY" "$TMP" @PW@ @GR@
	printf '%s\n' "$output"
	[ "${lines[0]}" = comp ] && [ "${lines[1]}" = comp ]
	[ "${lines[2]}" = "comp:x:70000:70000:a component:/state:/bin/sh" ]
	[ "${lines[3]}" = "comp:x:70000:" ]
	[ "${lines[4]}" = "/state comp" ]
	# The write primitive works; the files cannot be written, and the
	# memfds are not the target's.
	[ "${lines[5]}" = ok ]
	[[ "${lines[6]}" == "refused: "* ]] && [[ "${lines[7]}" == "refused: "* ]]
	[[ "${lines[8]}" == "refused: "* ]] && [[ "${lines[9]}" == "refused: "* ]]
	[ "$(stat -c %u "$TMP/w/x")" = 70000 ]
	[ "$(sha256sum /etc/passwd /etc/group)" = "$sum" ]
}

@test "--passwd-fd, --group-fd: --user UID has the memfd's entry in the view (id, getent), read-only, with /etc in the policy" { t_db '"/etc"'; }
@test "--passwd-fd, --group-fd: with no /etc in the policy just those files appear there" {
	t_db ''
	run -0 with_db all "$PASSWD" "$GROUP" "$SHARNESS_EXEC" run --passwd-fd @PW@ --group-fd @GR@ \
		-p "$TMP/p.json" -- ls -A /etc
	[ "$output" = $'group\npasswd' ]
	# The dry run shows the view's --file and the landlock step's read rules.
	run -0 --separate-stderr with_db all "$PASSWD" "$GROUP" "$SHARNESS_EXEC" run --dry-run --passwd-fd @PW@ \
		--group-fd @GR@ -p "$TMP/p.json" -- true
	[[ "${lines[2]}" == */sharness-exec-view\ *\ --file\ /etc/passwd=[0-9]*\ --file\ /etc/group=[0-9]*\ -- ]]
	[[ "${lines[3]}" == *" -r /etc/passwd -r /etc/group -R --" ]]
}

@test "--passwd-fd, --group-fd: where /etc is a private tmpfs, and where the view is a clone of /" {
	require_feature root
	require_feature landlock
	chain_policy passwd '"none"' '"/proc"' '"'"$TMP"'/w"' '' '' ',"tmpfs":["/etc"]'
	run -0 --separate-stderr with_db all "$PASSWD" "$GROUP" "$SHARNESS_EXEC" run --passwd-fd @PW@ \
		--group-fd @GR@ --user 70000 -p "$TMP/p.json" -- sh -c 'id -un; "$1" create /etc/new; ls /etc; "$1" write /etc/passwd; true' sh "$TRY"
	[ "$output" = $'comp\nok\ngroup\nnew\npasswd\nrefused: Permission denied' ]
	# / read whole: the host's /etc, with the memfd's files over its own.
	chain_policy passwd '"none"' '"/"' '"'"$TMP"'/w"'
	run -0 --separate-stderr with_db all "$PASSWD" "$GROUP" "$SHARNESS_EXEC" run -b --passwd-fd @PW@ \
		--group-fd @GR@ --user 70000 -p "$TMP/p.json" -- sh -c 'getent passwd 70000; getent passwd 0; "$1" read /etc/hostname' sh "$TRY"
	[ "$output" = $'comp:x:70000:70000:a component:/state:/bin/sh\nroot:x:0:0:root:/root:/bin/sh\nok' ]
}

@test "--passwd-fd as uid 1000: the caller's own uid gets the memfd's name in the view" {
	require_feature root
	require_feature landlock
	require_that uid-1000 "uid 1000 cannot reach $SHARNESS_EXEC" as_uid 1000 test -x "$SHARNESS_EXEC"
	db_policy
	run -0 --separate-stderr as_uid 1000 "$PY" -c "$MEMFD" all 'builder:x:1000:1000::/b:/bin/sh\n' \
		'builder:x:1000:\n' "$SHARNESS_EXEC" run --passwd-fd @PW@ --group-fd @GR@ -p "$TMP/p.json" -- \
		sh -c 'id -un; id -gn; getent passwd 1000'
	[ "$output" = $'builder\nbuilder\nbuilder:x:1000:1000::/b:/bin/sh' ]
}

@test "a bad --passwd-fd or --group-fd is refused with 125 and one line, before anything runs" {
	require_feature root
	require_feature landlock
	local p
	db_policy
	p=(-p "$TMP/p.json" -- "$TRY" create "$TMP/w/ran")
	# Not a memfd: a file.
	run -125 --separate-stderr "$SHARNESS_EXEC" run --passwd-fd 7 "${p[@]}" 7</etc/passwd
	[ "$stderr" = "sharness-exec: fatal: refused: --passwd-fd 7: not a memfd sealed with F_SEAL_WRITE, F_SEAL_GROW, F_SEAL_SHRINK and F_SEAL_SEAL" ]
	# Not sealed, or not against more seals.
	run -125 --separate-stderr with_db none "$PASSWD" "$GROUP" "$SHARNESS_EXEC" run --passwd-fd @PW@ "${p[@]}"
	[[ "$stderr" == "sharness-exec: fatal: refused: --passwd-fd "[0-9]*": not a memfd sealed with "* ]]
	run -125 --separate-stderr with_db noseal "$PASSWD" "$GROUP" "$SHARNESS_EXEC" run --group-fd @GR@ "${p[@]}"
	[[ "$stderr" == "sharness-exec: fatal: refused: --group-fd "[0-9]*": not a memfd sealed with "* ]]
	# Malformed lines, a second uid 0, a name twice, a gid 0 group.
	run -125 --separate-stderr with_db all 'comp:x:70000:70000:/state:/bin/sh\n' "$GROUP" \
		"$SHARNESS_EXEC" run --passwd-fd @PW@ "${p[@]}"
	[[ "$stderr" == "sharness-exec: fatal: refused: --passwd-fd "[0-9]*": line 1: not the 7 fields NAME:PASSWORD:UID:GID:GECOS:HOME:SHELL" ]]
	run -125 --separate-stderr with_db all "$PASSWD"'toor:x:0:0::/root:/bin/sh\n' "$GROUP" \
		"$SHARNESS_EXEC" run --passwd-fd @PW@ "${p[@]}"
	[[ "$stderr" == *": line 3: uid 0 and the name root are root's own standard line alone, root:x:0:0:GECOS:/root:SHELL" ]]
	run -125 --separate-stderr with_db all "$PASSWD"'comp:x:70001:70001::/:/bin/sh\n' "$GROUP" \
		"$SHARNESS_EXEC" run --passwd-fd @PW@ "${p[@]}"
	[[ "$stderr" == *': line 3: the name "comp" is on line 2 too' ]]
	run -125 --separate-stderr with_db all "$PASSWD" 'wheel:x:0:comp\n' \
		"$SHARNESS_EXEC" run --group-fd @GR@ "${p[@]}"
	[[ "$stderr" == *": line 1: gid 0 and the name root are root's own standard line alone, root:x:0:" ]]
	# Names of 32 bytes at most, as the man page says (and launch gives a
	# role of 32 bytes its own name): 33 is refused, 32 runs.
	local n32=cccccccccccccccccccccccccccccccc
	run -125 --separate-stderr with_db all "$PASSWD${n32}c:x:70001:70001::/:/bin/sh\n" "$GROUP" \
		"$SHARNESS_EXEC" run --passwd-fd @PW@ "${p[@]}"
	[[ "$stderr" == *": line 3: the name is not [A-Za-z0-9_.][A-Za-z0-9_.-]*, 1 to 32 bytes" ]]
	[ ! -e "$TMP/w/ran" ]
	run -0 with_db all "$PASSWD$n32:x:70001:70001::/:/bin/sh\n" "$GROUP" \
		"$SHARNESS_EXEC" run --passwd-fd @PW@ -p "$TMP/p.json" -- "$TRY" create "$TMP/w/ran32"
	[ -e "$TMP/w/ran32" ]
	run -125 --separate-stderr with_db all 'comp:x:7O000:70000::/:/bin/sh' "$GROUP" \
		"$SHARNESS_EXEC" run --passwd-fd @PW@ "${p[@]}"
	[[ "$stderr" == *": not lines of text, each ending in a newline" ]]
	[ ! -e "$TMP/w/ran" ]
	# The view step alone refuses FD that is no sealed memfd, and -F
	# where no mount namespace can be made.
	run -125 --separate-stderr "$HELPERDIR/sharness-exec-view" -x /usr --file /etc/passwd=7 -- true 7</etc/passwd
	[[ "$stderr" == "sharness-exec-view: fatal: unable to read --file /etc/passwd=7: Operation not permitted"* ]]
	run -126 --separate-stderr with_db all "$PASSWD" "$GROUP" "$TRYDIR/deny-unshare" \
		"$HELPERDIR/sharness-exec-view" -x /usr --file /etc/passwd=@PW@ -- "$TRY" create "$TMP/w/ran"
	[ "$stderr" = "sharness-exec-view: fatal: unable to make a mount namespace, which the files of --file (run --passwd-fd, --group-fd) need: Operation not permitted" ]
	[ ! -e "$TMP/w/ran" ]
}
