#!/usr/bin/env bats
# sharness-exec-landlock on its own (DESIGN.md 4.4): its command line and exit
# statuses; as root and as nobody, that the target cannot touch files outside
# its rules, reparent files, exec from a read-only dir, use TCP ports it was
# not given, reach an abstract UNIX socket, signal, ptrace or read the environ
# of a process outside, push keystrokes into its terminal, or keep any
# capability; and the strict / best-effort behaviour on older ABIs (-A).
# not tested: a kernel without Landlock (ENOSYS) or with Landlock disabled at
#   boot (EOPNOTSUPP): this one has ABI 7 enabled, and neither can be faked
#   from user space; a kernel whose real ABI is below 7 (-A stands in for
#   it); an architecture without a seccomp filter (x86_64 only here);
#   securebits that are already locked the other way, or a root caller
#   without CAP_SETPCAP (nothing here runs like that); the audit log
#   (LANDLOCK_RESTRICT_SELF_LOG_SAME_EXEC_OFF has nothing to observe
#   without auditd).
load ../helpers/load

# The system python3: a pyenv shim under /root is out of nobody's reach.
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3 || echo python3)

setup() {
	setup_tmp
	AS=
	PIDS=()
	BASE=()
	# What the loader and the shell need; only what exists here, so that no
	# "skipping missing path" line disturbs the stderr checks.
	for d in /usr /lib /lib64 /lib32 /libx32 /bin /sbin; do
		# Rule paths are opened without following symlinks: merged-/usr
		# links are covered by /usr itself.
		[ -e "$d" ] && [ ! -L "$d" ] && BASE+=(-x "$d")
	done
	BASE+=(-r /etc -r /proc -w /dev/null -x "$TMP/bin")
	# Everything is world-writable, so for nobody too only Landlock can be
	# what refuses; a copy of try-syscall nobody can surely reach.
	mkdir -m 755 "$TMP/bin"
	mkdir -m 777 "$TMP/ro" "$TMP/rw" "$TMP/rw2" "$TMP/out"
	cp "$TRY" "$TMP/bin/try-syscall"
	T="$TMP/bin/try-syscall"
	for d in ro rw rw2 out; do
		printf '%s\n' "$d data" >"$TMP/$d/data"
		chmod 666 "$TMP/$d/data"
	done
}

teardown() {
	local p
	for p in "${PIDS[@]}"; do
		kill -9 "$p" 2>/dev/null || true
	done
	teardown_tmp
}

# run_as CMD...: CMD as the user under test ($AS: empty for the caller).
run_as() {
	if [ -n "$AS" ]; then "$AS" "$@"; else "$@"; fi
}

# ll OPTS... -- PROGRAM ARGS: the helper, as the user under test, with the
# base rules in front of OPTS.
ll() {
	run_as "$LANDLOCK" "${BASE[@]}" "$@"
}

EACCES="Permission denied"
EPERM="Operation not permitted"
EXDEV="Invalid cross-device link"

# refused ERRNO-TEXT OPTS... -- PROGRAM ARGS: try-syscall under the helper
# reports exactly that refusal, and the helper itself said nothing.
refused() {
	local want=$1
	shift
	run -1 --separate-stderr ll "$@"
	[ "$output" = "refused: $want" ]
	[ "$stderr" = "" ]
}

allowed() {
	run -0 --separate-stderr ll "$@"
	[ "$output" = ok ]
	[ "$stderr" = "" ]
}

# spawn CMD...: start CMD in the background as the user under test (setpriv
# execs it, so $! is CMD's own pid); its pid goes to PID.
spawn() {
	if [ -n "$AS" ]; then
		setpriv --reuid="$NOBODY_UID" --regid="$NOBODY_GID" --clear-groups -- "$@" \
			</dev/null >/dev/null 2>&1 3>&- &
	else
		"$@" </dev/null >/dev/null 2>&1 3>&- &
	fi
	PID=$!
	PIDS+=("$PID")
}

# listen tcp|abstract: a listener outside that logs one line per connection
# it accepts to $TMP/KIND.log; its port or name goes to ADDR.
listen() {
	"$PY" - "$1" "$TMP/$1" >/dev/null 2>&1 3>&- <<-'EOF' &
	import os, socket, sys
	kind, base = sys.argv[1], sys.argv[2]
	if kind == "abstract":
	    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
	    addr = "sharness-exec-landlock-test-%d" % os.getpid()
	    s.bind("\0" + addr)
	else:
	    s = socket.socket()
	    s.bind(("127.0.0.1", 0))
	    addr = s.getsockname()[1]
	s.listen(16)
	with open(base + ".new", "w") as f:
	    f.write("%s\n" % addr)
	os.rename(base + ".new", base + ".addr")
	with open(base + ".log", "a", buffering=1) as log:
	    while True:
	        c = s.accept()[0]
	        log.write("connection\n")
	        c.close()
	EOF
	PIDS+=("$!")
	# Up to 10 minutes: a safety net on a loaded machine, not a deadline.
	for _ in $(seq 12000); do
		[ -e "$TMP/$1.addr" ] && break
		sleep 0.05
	done
	ADDR=$(cat "$TMP/$1.addr")
}

# connections KIND N: wait until the listener has logged N connections,
# then check it logged exactly N. A refused probe that got through anyway
# was queued before the control that makes the count reach N.
connections() {
	local n=0
	for _ in $(seq 12000); do
		[ -e "$TMP/$1.log" ] && n=$(wc -l <"$TMP/$1.log")
		[ "$n" -ge "$2" ] && break
		sleep 0.05
	done
	[ "$n" = "$2" ]
}

# free_port: a TCP port on 127.0.0.1 that nothing listens on.
free_port() {
	"$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# --- command line and exit statuses -----------------------------------------

@test "no program: one fatal line and the usage, 125" {
	run -125 --separate-stderr "$LANDLOCK"
	[ "$output" = "" ]
	[ "${#stderr_lines[@]}" = 2 ]
	[ "${stderr_lines[0]}" = "sharness-exec-landlock: fatal: no program given" ]
	[[ "${stderr_lines[1]}" == "usage: sharness-exec-landlock [-bHRtX] [-A ABI] "* ]]
	run -125 --separate-stderr "$LANDLOCK" -r /usr --
	[ "${stderr_lines[0]}" = "sharness-exec-landlock: fatal: no program given" ]
}

@test "-h and --help print the usage on stdout and exit 0" {
	run -0 --separate-stderr "$LANDLOCK" -h
	[ "$output" = "usage: sharness-exec-landlock [-bHRtX] [-A ABI] [-e FD] [-E FD] [-W FD] [--scan FD] [--user UID:GID [-G GIDS]] [--userns] [-r PATH]... [-x PATH]... [-w PATH]... [-s PATH]... [-T PATH]... [-c PORT]... [-l PORT]... [-C PORT]... [-L PORT]... [--] PROGRAM [ARG...]" ]
	[ "$stderr" = "" ]
	run -0 --separate-stderr "$LANDLOCK" --help
	[[ "$output" == "usage: sharness-exec-landlock "* ]]
}

@test "unknown options, missing arguments, bad ports and ABIs: 125, nothing runs" {
	run -125 --separate-stderr "$LANDLOCK" -z -- "$T" create "$TMP/rw/ran"
	[ "${stderr_lines[0]}" = "sharness-exec-landlock: fatal: unknown option -z" ]
	[[ "${stderr_lines[1]}" == "usage: "* ]]
	run -125 --separate-stderr "$LANDLOCK" --read /usr -- "$T" create "$TMP/rw/ran"
	[ "${stderr_lines[0]}" = "sharness-exec-landlock: fatal: unknown option --read" ]
	run -125 --separate-stderr "$LANDLOCK" -r
	[ "${stderr_lines[0]}" = "sharness-exec-landlock: fatal: option -r needs a value" ]
	for port in 0 65536 -1 +80 08 abc 80x ""; do
		run -125 --separate-stderr "$LANDLOCK" -c "$port" -- "$T" create "$TMP/rw/ran"
		[ "${stderr_lines[0]}" = "sharness-exec-landlock: fatal: unable to parse -c $port: not a TCP port (1-65535)" ]
		[ "${#stderr_lines[@]}" = 2 ]
		run -125 --separate-stderr "$LANDLOCK" -l "$port" -- "$T" create "$TMP/rw/ran"
		[ "${stderr_lines[0]}" = "sharness-exec-landlock: fatal: unable to parse -l $port: not a TCP port (1-65535)" ]
	done
	run -125 --separate-stderr "$LANDLOCK" -A x -- "$T" create "$TMP/rw/ran"
	[ "${stderr_lines[0]}" = "sharness-exec-landlock: fatal: unable to parse -A x: not an ABI number" ]
	[ ! -e "$TMP/rw/ran" ]
}

# Issue 27: -S FD, the front end's socket scan run beside the chain
# (sockscan.h). The step reads FD before it weighs the walls: the
# scanner's "y" lets the program run (and FD is closed before it), EOF or
# anything else refuses, since then nothing says what listens beneath the
# read paths.
@test "-S FD: the program runs after the scan's \"y\" on FD, without FD; EOF or another word is 126 and it never runs" {
	require_feature landlock
	run -0 --separate-stderr ll -w "$TMP/rw" --scan 5 -- /bin/sh -c 'if cat <&5; then echo open; else echo closed; fi; : >"$1/ran"' sh "$TMP/rw" 5< <(printf y)
	[ "$output" = closed ]
	[ -e "$TMP/rw/ran" ]
	rm "$TMP/rw/ran"
	for word in "" n; do
		run -126 --separate-stderr ll -w "$TMP/rw" --scan 5 -- "$T" create "$TMP/rw/ran" 5< <(printf %s "$word")
		[ "$stderr" = "sharness-exec-landlock: fatal: unable to confine: the front end's socket scan did not finish, so nothing says what listens beneath the read and exec paths" ]
		[ ! -e "$TMP/rw/ran" ]
	done
	run -126 --separate-stderr ll -w "$TMP/rw" --scan 9 -- "$T" create "$TMP/rw/ran"
	[ "$stderr" = "sharness-exec-landlock: fatal: unable to read the socket scan's pipe (--scan 9): Bad file descriptor" ]
	[ ! -e "$TMP/rw/ran" ]
	for fd in 2 x 3x -1; do
		run -125 --separate-stderr "$LANDLOCK" --scan "$fd" -- "$T" create "$TMP/rw/ran"
		[ "${stderr_lines[0]}" = "sharness-exec-landlock: fatal: unable to parse --scan $fd: not a descriptor above 2" ]
	done
	[ ! -e "$TMP/rw/ran" ]
}

@test "parsing stops at the program: its own options are left alone" {
	require_feature landlock
	run -0 --separate-stderr ll -- /bin/echo -r -x -- -w
	[ "$output" = "-r -x -- -w" ]
	run -0 --separate-stderr ll /bin/echo -n x
	[ "$output" = "x" ]
}

@test "missing program 127, not executable 126, status passed through" {
	require_feature landlock
	run -127 --separate-stderr ll -- "$TMP/bin/nope"
	[ "$stderr" = "sharness-exec-landlock: fatal: unable to execute $TMP/bin/nope: No such file or directory" ]
	run -127 --separate-stderr ll -- sharness-exec-no-such-program
	printf '#!/bin/sh\n' >"$TMP/bin/plain"
	chmod 644 "$TMP/bin/plain"
	run -126 --separate-stderr ll -- "$TMP/bin/plain"
	[ "$stderr" = "sharness-exec-landlock: fatal: unable to execute $TMP/bin/plain: Permission denied" ]
	run -126 --separate-stderr ll -- "$TMP/bin"
	for status in 0 1 42; do
		run -"$status" --separate-stderr ll -- sh -c "exit $status"
		[ "$stderr" = "" ]
	done
}

# --- the filesystem ----------------------------------------------------------

fs_outside() {
	# Outside every rule: nothing at all.
	refused "$EACCES" -w "$TMP/rw" -- "$T" read "$TMP/out/data"
	refused "$EACCES" -w "$TMP/rw" -- "$T" write "$TMP/out/data"
	refused "$EACCES" -w "$TMP/rw" -- "$T" create "$TMP/out/new"
	refused "$EACCES" -w "$TMP/rw" -- "$T" unlink "$TMP/out/data"
	refused "$EACCES" -w "$TMP/rw" -- "$T" truncate "$TMP/out/data"
	refused "$EACCES" -w "$TMP/rw" -- "$T" mkdir "$TMP/out/dir"
	[ "$(cat "$TMP/out/data")" = "out data" ]
	[ ! -e "$TMP/out/new" ]
	[ ! -e "$TMP/out/dir" ]
	# The same, done outside by the same user: it is Landlock that refused.
	run -0 run_as "$T" read "$TMP/out/data"
	run -0 run_as "$T" create "$TMP/out/new"
	run -0 run_as "$T" mkdir "$TMP/out/dir"
	run -0 run_as "$T" truncate "$TMP/out/data"
}

fs_read_only() {
	allowed -r "$TMP/ro" -w "$TMP/rw" -- "$T" read "$TMP/ro/data"
	run -0 --separate-stderr ll -r "$TMP/ro" -- /bin/ls "$TMP/ro"
	[ "$output" = data ]
	refused "$EACCES" -r "$TMP/ro" -w "$TMP/rw" -- "$T" write "$TMP/ro/data"
	refused "$EACCES" -r "$TMP/ro" -w "$TMP/rw" -- "$T" create "$TMP/ro/new"
	refused "$EACCES" -r "$TMP/ro" -w "$TMP/rw" -- "$T" unlink "$TMP/ro/data"
	refused "$EACCES" -r "$TMP/ro" -w "$TMP/rw" -- "$T" truncate "$TMP/ro/data"
	refused "$EACCES" -r "$TMP/ro" -w "$TMP/rw" -- "$T" mkdir "$TMP/ro/dir"
	[ "$(cat "$TMP/ro/data")" = "ro data" ]
	[ ! -e "$TMP/ro/new" ]
	[ ! -e "$TMP/ro/dir" ]
}

fs_writable() {
	allowed -w "$TMP/rw" -- "$T" write "$TMP/rw/data"
	[ "$(cat "$TMP/rw/data")" = $'rw data\nx' ]
	allowed -w "$TMP/rw" -- "$T" create "$TMP/rw/new"
	[ -f "$TMP/rw/new" ]
	allowed -w "$TMP/rw" -- "$T" mkdir "$TMP/rw/dir"
	[ -d "$TMP/rw/dir" ]
	allowed -w "$TMP/rw" -- "$T" truncate "$TMP/rw/data"
	[ ! -s "$TMP/rw/data" ]
	allowed -w "$TMP/rw" -- "$T" unlink "$TMP/rw/new"
	[ ! -e "$TMP/rw/new" ]
}

fs_refer() {
	local rules=(-r "$TMP/ro" -w "$TMP/rw" -w "$TMP/rw2")
	refused "$EACCES" "${rules[@]}" -- "$T" rename "$TMP/ro/data" "$TMP/rw/moved"
	refused "$EXDEV" "${rules[@]}" -- "$T" link "$TMP/ro/data" "$TMP/rw/linked"
	refused "$EACCES" "${rules[@]}" -- "$T" rename "$TMP/rw/data" "$TMP/ro/moved"
	refused "$EACCES" "${rules[@]}" -- "$T" link "$TMP/rw/data" "$TMP/ro/linked"
	[ "$(cat "$TMP/ro/data")" = "ro data" ]
	[ "$(cat "$TMP/rw/data")" = "rw data" ]
	[ ! -e "$TMP/rw/moved" ]
	[ ! -e "$TMP/rw/linked" ]
	[ ! -e "$TMP/ro/moved" ]
	[ ! -e "$TMP/ro/linked" ]
	# Between two writable dirs reparenting is allowed (REFER is granted).
	allowed "${rules[@]}" -- "$T" link "$TMP/rw/data" "$TMP/rw2/linked"
	allowed "${rules[@]}" -- "$T" rename "$TMP/rw2/data" "$TMP/rw/moved"
	[ "$(cat "$TMP/rw2/linked")" = "rw data" ]
	[ "$(cat "$TMP/rw/moved")" = "rw2 data" ]
}

fs_symlink() {
	ln -s "$TMP/out/data" "$TMP/rw/escape"
	refused "$EACCES" -w "$TMP/rw" -- "$T" write "$TMP/rw/escape"
	refused "$EACCES" -w "$TMP/rw" -- "$T" read "$TMP/rw/escape"
	refused "$EACCES" -w "$TMP/rw" -- "$T" truncate "$TMP/rw/escape"
	[ "$(cat "$TMP/out/data")" = "out data" ]
}

fs_exec() {
	cp "$T" "$TMP/ro/try-syscall"
	run -126 --separate-stderr ll -r "$TMP/ro" -w "$TMP/rw" -- "$TMP/ro/try-syscall" create "$TMP/rw/ran"
	[ "$stderr" = "sharness-exec-landlock: fatal: unable to execute $TMP/ro/try-syscall: Permission denied" ]
	[ ! -e "$TMP/rw/ran" ]
	allowed -x "$TMP/ro" -w "$TMP/rw" -- "$TMP/ro/try-syscall" create "$TMP/rw/ran"
	[ -e "$TMP/rw/ran" ]
}

fs_files() {
	# A rule on a plain file covers that file alone.
	allowed -w "$TMP/out/data" -- "$T" write "$TMP/out/data"
	refused "$EACCES" -w "$TMP/out/data" -- "$T" create "$TMP/out/new"
	allowed -r "$TMP/rw/data" -- "$T" read "$TMP/rw/data"
	refused "$EACCES" -r "$TMP/rw/data" -- "$T" write "$TMP/rw/data"
	refused "$EACCES" -r "$TMP/rw/data" -- "$T" read "$TMP/rw2/data"
	[ "$(cat "$TMP/out/data")" = $'out data\nx' ]
	[ "$(cat "$TMP/rw/data")" = "rw data" ]
	[ ! -e "$TMP/out/new" ]
}

fs_ioctl() {
	# /dev/zero has no TCGETS: ENOTTY from the driver, unless Landlock
	# answers first.
	refused "$EACCES" -r /dev/zero -- "$T" ioctl /dev/zero
	refused "Inappropriate ioctl for device" -w /dev/zero -- "$T" ioctl /dev/zero
	run -1 run_as "$T" ioctl /dev/zero
	[ "$output" = "refused: Inappropriate ioctl for device" ]
	# And with ABI 4, which lacks IOCTL_DEV, -b really drops it.
	run -1 --separate-stderr ll -A 4 -b -r /dev/zero -- "$T" ioctl /dev/zero
	[ "$output" = "refused: Inappropriate ioctl for device" ]
}

@test "filesystem outside the rules: nothing (root)" { require_feature landlock; fs_outside; }
@test "filesystem outside the rules: nothing (nobody)" { require_feature landlock; require_feature nobody; AS=as_nobody; fs_outside; }
@test "filesystem: -r reads but changes nothing (root)" { require_feature landlock; fs_read_only; }
@test "filesystem: -r reads but changes nothing (nobody)" { require_feature landlock; require_feature nobody; AS=as_nobody; fs_read_only; }
@test "filesystem: -w really is writable (root)" { require_feature landlock; fs_writable; }
@test "filesystem: -w really is writable (nobody)" { require_feature landlock; require_feature nobody; AS=as_nobody; fs_writable; }
@test "filesystem: no rename or link out of or into -r (REFER) (root)" { require_feature landlock; fs_refer; }
@test "filesystem: no rename or link out of or into -r (REFER) (nobody)" { require_feature landlock; require_feature nobody; AS=as_nobody; fs_refer; }
@test "filesystem: a symlink in -w does not lead outside (root)" { require_feature landlock; fs_symlink; }
@test "filesystem: a symlink in -w does not lead outside (nobody)" { require_feature landlock; require_feature nobody; AS=as_nobody; fs_symlink; }
@test "filesystem: no exec from -r, exec from -x (root)" { require_feature landlock; fs_exec; }
@test "filesystem: no exec from -r, exec from -x (nobody)" { require_feature landlock; require_feature nobody; AS=as_nobody; fs_exec; }
@test "filesystem: a rule on a plain file covers that file only (root)" { require_feature landlock; fs_files; }
@test "filesystem: a rule on a plain file covers that file only (nobody)" { require_feature landlock; require_feature nobody; AS=as_nobody; fs_files; }

@test "filesystem: device ioctls only where -w grants them (IOCTL_DEV) (root)" { require_feature landlock; fs_ioctl; }
@test "filesystem: device ioctls only where -w grants them (IOCTL_DEV) (nobody)" { require_feature landlock; require_feature nobody; AS=as_nobody; fs_ioctl; }

@test "a missing path is skipped with one warning line" {
	require_feature landlock
	run -0 --separate-stderr ll -r "$TMP/nope" -w "$TMP/rw/nope/deeper" -w "$TMP/rw/data/x" -w "$TMP/rw" -- "$T" create "$TMP/rw/ran"
	[ "$output" = ok ]
	[ "${#stderr_lines[@]}" = 3 ]
	[ "${stderr_lines[0]}" = "sharness-exec-landlock: warning: skipping missing path $TMP/nope" ]
	[ "${stderr_lines[1]}" = "sharness-exec-landlock: warning: skipping missing path $TMP/rw/nope/deeper" ]
	[ "${stderr_lines[2]}" = "sharness-exec-landlock: warning: skipping missing path $TMP/rw/data/x" ]
}

@test "a missing path in -r, -x and -w is one warning line, not one a list" {
	require_feature landlock
	run -0 --separate-stderr ll -r "$TMP/nope" -x "$TMP/nope" -w "$TMP/nope" -r "$TMP/nope2" -w "$TMP/rw" -- "$T" create "$TMP/rw/ran"
	[ "$output" = ok ]
	[ "$stderr" = "sharness-exec-landlock: warning: skipping missing path $TMP/nope"$'\n'"sharness-exec-landlock: warning: skipping missing path $TMP/nope2" ]
}

@test "run: a missing path in every list of the policy is said once, by the landlock step; the view step says nothing of it" {
	require_feature landlock
	chain_policy missing '"none"' '"/etc","'"$TMP/nope"'"' '"'"$TMP/nope"'","'"$TMP/rw"'"' '"'"$TMP/nope"'"'
	run -0 --separate-stderr "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TRY" create "$TMP/rw/ran"
	[ "$output" = ok ]
	[ -f "$TMP/rw/ran" ]
	# (Where it can make no mount namespace the view step says that, and only that.)
	[ "$(grep -v '^sharness-exec-view: warning: no mount namespace available ' <<<"$stderr")" = \
		"sharness-exec-landlock: warning: skipping missing path $TMP/nope" ]
}

@test "a path that exists but cannot be opened: 126, nothing runs (nobody)" {
	require_feature landlock
	require_feature nobody
	AS=as_nobody
	mkdir -m 700 "$TMP/locked"
	mkdir "$TMP/locked/sub"
	run -126 --separate-stderr ll -r "$TMP/locked/sub" -w "$TMP/rw" -- "$T" create "$TMP/rw/ran"
	[ "$stderr" = "sharness-exec-landlock: fatal: unable to open $TMP/locked/sub: Permission denied" ]
	[ "$output" = "" ]
	[ ! -e "$TMP/rw/ran" ]
}

# --- TCP -------------------------------------------------------------------

tcp() {
	require_feature landlock
	require_feature tool:"$PY"
	listen tcp
	local port=$ADDR other
	other=$(free_port)
	# TCP is handled only in the object form (-n, -c or -l): under
	# "network": "none" the netns step is the isolation, and loopback
	# inside it must work, so without them nothing is refused here.
	allowed -- "$T" connect "$port"
	connections tcp 1
	refused "$EACCES" -H -- "$T" connect "$port"
	refused "$EACCES" -c "$other" -- "$T" connect "$port"
	refused "$EACCES" -l "$port" -- "$T" connect "$port"
	allowed -H -c "$port" -- "$T" connect "$port"
	connections tcp 2
	# On an ABI without TCP rules, best effort names what it dropped and
	# TCP is not among them unless -n asks for it: then it must refuse.
	run -0 --separate-stderr ll -A 3 -b -- "$T" connect "$port"
	[ "$output" = ok ]
	[[ "$stderr" != *TCP* ]]
	connections tcp 3
	run -126 --separate-stderr ll -A 3 -H -- "$T" connect "$port"
	[[ "$stderr" == *NET_BIND_TCP*NET_CONNECT_TCP* ]]
	allowed -- "$T" bind "$other"
	refused "$EACCES" -H -- "$T" bind "$other"
	refused "$EACCES" -c "$other" -- "$T" bind "$other"
	allowed -H -l "$other" -- "$T" bind "$other"
	refused "$EACCES" -l "$other" -- "$T" bind "$(free_port)"
	# The refusals are Landlock's: outside, the same user may bind.
	run -0 run_as "$T" bind "$other"
}

@test "TCP: connect and bind only to the ports given, when asked (root)" { tcp; }
@test "TCP: connect and bind only to the ports given, when asked (nobody)" { require_feature nobody; AS=as_nobody; tcp; }

# --- processes outside -----------------------------------------------------

scoped() {
	require_feature landlock
	require_feature tool:"$PY"
	listen abstract
	run -0 run_as "$T" abstract "$ADDR"
	connections abstract 1
	refused "$EPERM" -- "$T" abstract "$ADDR"
	run -0 run_as "$T" abstract "$ADDR"
	connections abstract 2

	spawn env SHARNESS_TEST_SECRET=hunter2 sleep 1000
	refused "$EPERM" -- "$T" kill "$PID"
	refused "$EPERM" -- "$T" ptrace "$PID"
	refused "$EACCES" -- "$T" read "/proc/$PID/environ"
	run -1 --separate-stderr ll -- /bin/cat "/proc/$PID/environ"
	[[ "$output$stderr" != *hunter2* ]]
	kill -0 "$PID"
	[ "$(ps -o stat= -p "$PID" | cut -c1)" = S ]
	# Outside, the same user may read it; inside, a process of the same
	# domain may be signalled and traced.
	run -0 run_as /bin/cat "/proc/$PID/environ"
	[[ "$output" == *SHARNESS_TEST_SECRET=hunter2* ]]
	run -0 --separate-stderr ll -- /bin/sh -c \
		"sleep 1000 & p=\$!; $T ptrace \$p; kill -9 \$p; sleep 1000 & $T kill \$!"
	[ "$output" = ok$'\n'ok ]
	[ "$stderr" = "" ]
}

@test "no abstract socket, signal, ptrace or environ outside the domain (root)" { scoped; }
@test "no abstract socket, signal, ptrace or environ outside the domain (nobody)" { require_feature nobody; AS=as_nobody; scoped; }

@test "the target holds no capability, as root, and no_new_privs is set" {
	require_feature landlock
	require_feature root
	run -0 --separate-stderr ll -- "$T" caps
	[ "$stderr" = "" ]
	for set in CapInh CapPrm CapEff CapBnd CapAmb; do
		[[ "$output" == *"$set:"$'\t'"0000000000000000"* ]]
	done
	[[ "$output" == *"NoNewPrivs:"$'\t'"1"* ]]
	# ... where the caller had them.
	run -0 "$T" caps
	[[ "$output" != *"CapEff:"$'\t'"0000000000000000"* ]]
	# Gone for good: root in the target cannot take back what it lacks.
	refused "$EACCES" -w "$TMP/rw" -- "$T" read /proc/1/environ
}

@test "the target holds no capability, and no_new_privs is set (nobody)" {
	require_feature landlock
	require_feature nobody
	AS=as_nobody
	run -0 --separate-stderr ll -- "$T" caps
	for set in CapInh CapPrm CapEff CapAmb; do
		[[ "$output" == *"$set:"$'\t'"0000000000000000"* ]]
	done
	[[ "$output" == *"NoNewPrivs:"$'\t'"1"* ]]
}

# --- the terminal ------------------------------------------------------------

tiocsti() {
	require_feature landlock
	require_feature pty
	local cmd
	# Control: without the helper the probe does push X into the pty, which
	# echoes it back.
	require_feature tiocsti
	run -0 run_as "${SCRIPT[@]}" -qec "exec $(printf '%q ' "$T" tiocsti)" /dev/null </dev/null
	[[ "$output" == *X* ]]
	cmd=$(printf '%q ' "$LANDLOCK" "${BASE[@]}" -- "$T" tiocsti)
	run -1 run_as "${SCRIPT[@]}" -qec "exec $cmd" /dev/null </dev/null
	[ "$output" = $'refused: Operation not permitted\r' ]
	[[ "$output" != *X* ]]
}

# ctrl_c CMD: run CMD under script, and type ^C once $TMP/rw/ready exists.
# script(1) runs "$SHELL -c CMD" ($SHELL unset: /bin/sh); dash does not exec
# that last command, and would stay in the foreground process group and die
# of the ^C itself: hence "exec" in front of every command given to script.
ctrl_c() {
	{
		for _ in $(seq 400); do
			[ -e "$TMP/rw/ready" ] && break
			sleep 0.05
		done
		printf '\003'
	} | run_as "${SCRIPT[@]}" -qec "exec $1" /dev/null
}

interrupt() {
	require_feature landlock
	require_feature pty
	local cmd
	cmd=$(printf '%q ' "$LANDLOCK" "${BASE[@]}" -w "$TMP/rw" -- /bin/sh -c \
		"trap 'echo caught INT; exit 3' INT; : >$TMP/rw/ready; while :; do sleep 0.1; done")
	run -3 ctrl_c "$cmd"
	[[ "$output" == *"caught INT"* ]]
}

@test "no keystrokes pushed into the terminal (TIOCSTI) (root)" { tiocsti; }
@test "no keystrokes pushed into the terminal (TIOCSTI) (nobody)" { require_feature nobody; AS=as_nobody; tiocsti; }
@test "Ctrl-C still reaches the target on its terminal (root)" { interrupt; }
@test "Ctrl-C still reaches the target on its terminal (nobody)" { require_feature nobody; AS=as_nobody; interrupt; }

# --- older ABIs: strict by default, best effort by name ----------------------

@test "-A 3: refused with a hint naming what is missing, nothing runs" {
	require_feature landlock
	run -126 --separate-stderr ll -A 3 -w "$TMP/rw" -- "$T" create "$TMP/rw/ran"
	[ "$output" = "" ]
	[ "${#stderr_lines[@]}" = 2 ]
	# On its own the step has no other wall: each right names the walls
	# that would hold it (rights.c).
	[ "${stderr_lines[0]}" = "sharness-exec-landlock: fatal: unable to confine with Landlock ABI 3: no wall of this run holds FS_IOCTL_DEV, SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL" ]
	[ "${stderr_lines[1]}" = "hint: FS_IOCTL_DEV: Landlock ABI 5 (Linux 6.10) or the view step's mount namespace with no device node named in a read or exec path; SCOPE_ABSTRACT_UNIX_SOCKET: Landlock ABI 6 (Linux 6.12) or a network namespace (\"network\": \"none\"); SCOPE_SIGNAL: Landlock ABI 6 (Linux 6.12) or a pid namespace; -b (--best-effort) runs without them" ]
	[ ! -e "$TMP/rw/ran" ]
}

@test "-A 3 -b: runs, says exactly what was dropped, still confines the rest" {
	require_feature landlock
	run -0 --separate-stderr ll -A 3 -b -w "$TMP/rw" -- "$T" create "$TMP/rw/ran"
	[ "$output" = ok ]
	[ "$stderr" = "sharness-exec-landlock: warning: Landlock ABI 3: best effort: dropped FS_IOCTL_DEV, SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL" ]
	[ -e "$TMP/rw/ran" ]
	run -1 --separate-stderr ll -A 3 -b -w "$TMP/rw" -- "$T" write "$TMP/out/data"
	[ "$output" = "refused: Permission denied" ]
	[ "$(cat "$TMP/out/data")" = "out data" ]
	# What was dropped really is gone: a signal leaves the domain.
	spawn sleep 1000
	run -0 --separate-stderr ll -A 3 -b -- "$T" kill "$PID"
	[ "$output" = ok ]
}

@test "-A 3 with -H or -c: TCP needs ABI 4, refused unless -b" {
	require_feature landlock
	run -126 --separate-stderr ll -A 3 -c 80 -- "$T" create "$TMP/rw/ran"
	[ "${stderr_lines[0]}" = "sharness-exec-landlock: fatal: unable to confine with Landlock ABI 3: no wall of this run holds FS_IOCTL_DEV, SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL, NET_BIND_TCP, NET_CONNECT_TCP" ]
	run -126 --separate-stderr ll -A 3 -H -- "$T" create "$TMP/rw/ran"
	[ ! -e "$TMP/rw/ran" ]
	run -0 --separate-stderr ll -A 3 -b -H -w "$TMP/rw" -- "$T" create "$TMP/rw/ran"
	[ "$stderr" = "sharness-exec-landlock: warning: Landlock ABI 3: best effort: dropped FS_IOCTL_DEV, SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL, NET_BIND_TCP, NET_CONNECT_TCP" ]
}

@test "-A 1, -A 2, -A 5, -A 6: each names its own missing rights (FS_REFER is held at 1, by refusal)" {
	require_feature landlock
	run -126 --separate-stderr ll -A 1 -- true
	[ "${stderr_lines[0]}" = "sharness-exec-landlock: fatal: unable to confine with Landlock ABI 1: no wall of this run holds FS_TRUNCATE, FS_IOCTL_DEV, SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL" ]
	run -126 --separate-stderr ll -A 2 -- true
	[ "${stderr_lines[0]}" = "sharness-exec-landlock: fatal: unable to confine with Landlock ABI 2: no wall of this run holds FS_TRUNCATE, FS_IOCTL_DEV, SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL" ]
	run -126 --separate-stderr ll -A 5 -H -- true
	[ "${stderr_lines[0]}" = "sharness-exec-landlock: fatal: unable to confine with Landlock ABI 5: no wall of this run holds SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL" ]
	run -0 --separate-stderr ll -A 6 -H -- true
	[ "$stderr" = "" ]
	run -0 --separate-stderr ll -A 99 -H -- true
	[ "$stderr" = "" ]
}

@test "-A 0 on its own: nothing else holds the files, 126 even with -b" {
	require_feature landlock
	run -126 --separate-stderr ll -A 0 -w "$TMP/rw" -- "$T" create "$TMP/rw/ran"
	[ "${stderr_lines[0]}" = "sharness-exec-landlock: fatal: unable to confine without Landlock: no wall of this run holds FS, FS_REFER, FS_TRUNCATE, FS_IOCTL_DEV, SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL, PTRACE" ]
	[[ "${stderr_lines[1]}" == "hint: -A 0: as without Landlock; FS, FS_REFER: Landlock ABI 1 (Linux 5.13) or the view step's mount namespace; "* ]]
	run -126 --separate-stderr ll -A 0 -b -w "$TMP/rw" -- "$T" create "$TMP/rw/ran"
	[ "$stderr" = "sharness-exec-landlock: fatal: unable to confine without Landlock: no wall of this run holds FS, and best effort never drops the whole sandbox" ]
	[ ! -e "$TMP/rw/ran" ]
}
