#!/usr/bin/env bats
# sharness-exec-listen, the object form's listen step (issue 39): it is in
# the chain only when "network" is an object, right before the landlock
# step; its --help and check mode; from inside, listen(2) takes no port no
# bind rule grants, and nothing outside reaches one, while a granted port
# serves, as root, as nobody and as uid 1000; the target holds no
# descriptor of the guard's seccomp listener, which the guard's server
# holds; and the landlock step links none of the guard's code. Each
# refusal is first shown to work without the step.
# not tested: a kernel without the guard (every kernel here has it; its -b
# path is ports.bats' nested guard).
load ../helpers/load

TP="$TRYDIR/try-ports"

setup() {
	setup_tmp
	mkdir -p "$TMP/rw"
	chmod 777 "$TMP/rw"
	job=
}

teardown() {
	[ -z "$job" ] || kill "$job" 2>/dev/null || true
	teardown_tmp
}

# policy NETWORK [READ]: the run's policy, $TMP/rw writable.
policy() {
	chain_policy listen "$1" "${2:-}" '"'"$TMP"'/rw","/dev/null"'
}

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# reach PORT: what an outside client gets from 127.0.0.1:PORT, a line.
reach() {
	timeout 10 python3 -c 'import socket, sys
try:
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
    print(s.recv(64).decode().strip())
except OSError as e:
    print("unreachable:", e.strerror)' "$1"
}

# wait_for FILE: up to 20 s for FILE to appear.
wait_for() {
	for _ in $(seq 400); do [ -e "$1" ] && return 0; sleep 0.05; done
	echo "no $1"
	return 1
}

@test "the listen step is in the chain only in the object form, right before landlock, with -W, -b and -t as the run asks" {
	policy '"none"'
	run -0 --separate-stderr "$SHARNESS_EXEC" run --dry-run -p "$TMP/p.json" -- true
	[[ $output != *sharness-exec-listen* ]]
	[[ ${lines[3]} == "$HELPERDIR/sharness-exec-landlock "* ]]
	policy '{"bind_tcp_ports":[8080]}'
	run -0 --separate-stderr "$SHARNESS_EXEC" run --dry-run -p "$TMP/p.json" -- true
	[[ ${lines[2]} == "$HELPERDIR/sharness-exec-view "* ]]
	[ "${lines[3]}" = "$HELPERDIR/sharness-exec-listen -W 4 --" ]
	[[ ${lines[4]} == "$HELPERDIR/sharness-exec-landlock "*" -H "*" -l 8080 -R --" ]]
	[ "$(grep -c sharness-exec-listen <<<"$output")" = 1 ]
	run -0 --separate-stderr "$SHARNESS_EXEC" run --dry-run --best-effort --check -p "$TMP/p.json" -- true
	[ "${lines[3]}" = "$HELPERDIR/sharness-exec-listen -t -W 4 -b --" ]
	# An empty object is the object form too.
	policy '{}'
	run -0 --separate-stderr "$SHARNESS_EXEC" run --dry-run -p "$TMP/p.json" -- true
	[ "${lines[3]}" = "$HELPERDIR/sharness-exec-listen -W 4 --" ]
}

@test "sharness-exec-listen: --help, usage errors (125), and check mode's line, which the landlock step repeats from the walls record" {
	run -0 --separate-stderr "$LISTEN" --help
	[ "${lines[0]}" = "usage: sharness-exec-listen [-bt] [-E FD] [-W FD] [--] PROGRAM [ARG...]" ]
	[ "$stderr" = "" ]
	run -125 --separate-stderr "$LISTEN"
	[ "${stderr_lines[0]}" = "sharness-exec-listen: fatal: no program given" ]
	run -125 --separate-stderr "$LISTEN" -q -- true
	[[ ${stderr_lines[0]} == "sharness-exec-listen: fatal: "* ]]
	run -125 --separate-stderr "$LISTEN" -W 1 -- true
	[ "${stderr_lines[0]}" = "sharness-exec-listen: fatal: unable to parse -W 1: not a descriptor above 2" ]
	require_feature landlock
	# -t alone: the line, and exit 0.
	run -0 --separate-stderr "$LISTEN" -t
	[ "$output" = "sharness-exec-listen: listen_guard=on" ]
	[ "$stderr" = "" ]
	# By hand with a walls record: the note, and landlock's line says it.
	: >"$TMP/walls"
	run -0 --separate-stderr "$LISTEN" -t -W 3 -- "$LANDLOCK" -t -W 3 -H -x /usr -x "$HELPERDIR" -- true 3<>"$TMP/walls"
	[ "${lines[0]}" = "sharness-exec-listen: listen_guard=on" ]
	[[ ${lines[1]} == "sharness-exec-landlock: abi="*" listen_guard=on rights="* ]]
	[ "$(cat "$TMP/walls")" = "listen=guard" ]
	# The landlock step given a record that notes no guard refuses the
	# object form; without -H it runs.
	: >"$TMP/walls"
	run -126 --separate-stderr "$LANDLOCK" -W 3 -H -x /usr -x "$HELPERDIR" -- "$TRY" create "$TMP/rw/ran" 3<>"$TMP/walls"
	[ "$stderr" = "sharness-exec-landlock: fatal: unable to confine the object form (-H): the walls record notes no listen guard (no sharness-exec-listen step before this one)" ]
	[ ! -e "$TMP/rw/ran" ]
	run -0 --separate-stderr "$LANDLOCK" -t -W 3 -x /usr -x "$HELPERDIR" -- true 3<>"$TMP/walls"
	[[ ${lines[0]} == *" listen_guard=none rights="* ]]
	# run --check: the listen step's line before landlock's.
	policy '{}'
	run -0 --separate-stderr "$SHARNESS_EXEC" run --check -p "$TMP/p.json"
	[ "${lines[3]}" = "sharness-exec-listen: listen_guard=on" ]
	[[ ${lines[4]} == "sharness-exec-landlock: "*" listen_guard=on rights="* ]]
}

t_listen() {
	local m=$1 p other
	need "$m"
	p=$(free_port)
	other=$(free_port)
	# Without the listen step, Landlock alone: listen(2) with no bind
	# takes a port no rule grants, and serves an outside client.
	as_m "$m" "$LANDLOCK" -H -l "$p" -x /usr -x "$TRYDIR" -w "$TMP/rw" -- \
		"$TP" listen-unbound "$TMP/rw/bare" >"$TMP/rw/bare.out" 3>&- &
	job=$!
	wait_for "$TMP/rw/bare"
	run -0 reach "$(cat "$TMP/rw/bare")"
	[ "$output" = served ]
	wait "$job"
	job=
	# The same in the chain: refused, nothing published.
	policy '{"bind_tcp_ports":['"$p"']}'
	run -1 as_m "$m" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TP" listen-unbound "$TMP/rw/unbound"
	[ "$output" = "refused: Permission denied" ]
	[ ! -e "$TMP/rw/unbound" ]
	# A port no rule grants: refused, and nothing outside reaches it.
	run -1 as_m "$m" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TP" listen-bound "$other" "$TMP/rw/other"
	[ "$output" = "refused: Permission denied" ]
	[ ! -e "$TMP/rw/other" ]
	run -0 reach "$other"
	[ "$output" = "unreachable: Connection refused" ]
	# The granted port listens and serves.
	as_m "$m" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TP" listen-bound "$p" "$TMP/rw/granted" \
		>"$TMP/rw/granted.out" 2>"$TMP/rw/granted.err" 3>&- &
	job=$!
	wait_for "$TMP/rw/granted"
	run -0 reach "$p"
	[ "$output" = served ]
	local status=0
	wait "$job" || status=$?
	job=
	[ "$status" = 0 ]
	[ "$(cat "$TMP/rw/granted.out")" = "LISTENING on $p
served" ]
}

@test "from inside, listen(2) takes no port the policy does not grant, and a granted one serves (root)" { t_listen root; }
@test "from inside, listen(2) takes no port the policy does not grant, and a granted one serves (nobody)" { t_listen nobody; }
@test "from inside, listen(2) takes no port the policy does not grant, and a granted one serves (1000)" { t_listen 1000; }

@test "under --explain, whose filters the landlock step adds after the guard's, listen(2) without bind and IP_LOCAL_PORT_RANGE stay refused" {
	need root
	policy '{"bind_tcp_ports":['"$(free_port)"']}'
	run -1 --separate-stderr "$SHARNESS_EXEC" run --explain -p "$TMP/p.json" -- "$TP" listen-unbound "$TMP/rw/ready"
	[ "$output" = "refused: Permission denied" ]
	[ ! -e "$TMP/rw/ready" ]
	run -0 "$TP" set-range 40000 40010
	[ "$output" = ok ]
	run -1 --separate-stderr "$SHARNESS_EXEC" run --explain -p "$TMP/p.json" -- "$TP" set-range 40000 40010
	[ "$output" = "refused: Operation not permitted" ]
}

# The notify descriptor's link, as /proc shows it.
NOTIFY='anon_inode:seccomp notify'

t_no_listener_fd() {
	local m=$1 pid guard=
	need "$m"
	policy '{}' '"/proc"'
	mkdir -m 777 "$TMP/rw/here"
	mkfifo -m 666 "$TMP/rw/go"
	cd "$TMP/rw/here"
	# The target lists its descriptors, then waits until told.
	as_m "$m" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- /bin/sh -c '
		for f in /proc/$$/fd/*; do echo "${f##*/} $(readlink "$f")"; done >"$1.tmp"
		mv "$1.tmp" "$1"
		read x <"$2"' sh "$TMP/rw/fds" "$TMP/rw/go" 2>"$TMP/err" 3>&- &
	job=$!
	wait_for "$TMP/rw/fds"
	cat "$TMP/rw/fds"
	[ "$(wc -l <"$TMP/rw/fds")" -ge 3 ]
	run -1 grep -F "$NOTIFY" "$TMP/rw/fds"
	# The guard's server, outside (its cwd is the run's), holds it.
	for pid in $(pgrep -x listen-guard); do
		[ "$(readlink "/proc/$pid/cwd")" = "$TMP/rw/here" ] && guard=$pid
	done
	[ -n "$guard" ]
	ls -l "/proc/$guard/fd" | grep -F "$NOTIFY"
	timeout 10 sh -c 'echo go >"$1"' sh "$TMP/rw/go"
	wait "$job"
	job=
}

@test "the target holds no descriptor of the guard's seccomp listener; the guard's server does (root)" { t_no_listener_fd root; }
@test "the target holds no descriptor of the guard's seccomp listener; the guard's server does (nobody)" { t_no_listener_fd nobody; }
@test "the target holds no descriptor of the guard's seccomp listener; the guard's server does (1000)" { t_no_listener_fd 1000; }

@test "the landlock step links none of the guard's code; the listen step does" {
	require_feature tool:nm
	run -0 nm "$LISTEN"
	grep -qE ' T listenguard_start$' <<<"$output"
	grep -qE ' T listenguard_possible$' <<<"$output"
	run -0 nm "$LANDLOCK"
	grep -qE ' T main$' <<<"$output"
	# (recv_fd and the rest of lib/notify.c it links: the setgid
	# server's, DESIGN.md 4.7.)
	run -1 grep -E 'listenguard|guarded_listen|blocker' <<<"$output"
}
