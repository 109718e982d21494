#!/usr/bin/env bats
# The object form of "network" through the whole chain (`sharness-exec
# run`), as root and as nobody, with listeners on 127.0.0.1 outside: the
# listen guard (no port by listen() on an unbound socket), TCP ports that
# still work, UNIX listeners, UDP (refused without keys; with keys refused
# below Landlock ABI 10 unless --best-effort), and the landlock step's ABI
# fall-through for ABIs 8 to 11 through -A. Each refusal is first shown to
# work bare, so the test can fail.
# not tested: UDP port rules for real (this kernel has Landlock ABI 7; the
# kernel matrix of tests/kernels runs newer ones); a kernel without the
# listen guard (its -b path is tested through the helper alone only for the
# message, since every kernel here has the guard).
load ../helpers/load

TP="$TRYDIR/try-ports"

setup() {
	setup_tmp
	mkdir -p "$TMP/rw"
	chmod 777 "$TMP/rw"
	pids=()
}

teardown() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	teardown_tmp
}

# policy NETWORK-OBJECT
policy() {
	chain_policy ports "$1" '"/etc"' '"'"$TMP"'/rw","/dev/null"'
}

confined() { # MODE [--best-effort] CMD...
	local mode=$1 be=
	shift
	[ "$1" = --best-effort ] && be=$1 && shift
	as "$mode" "$SHARNESS_EXEC" run $be -p "$TMP/p.json" -- "$@"
}

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# client READY: wait for a port in READY (up to 20 s), connect from outside
# and print what the server says.
client() {
	for _ in $(seq 400); do [ -e "$1" ] && break; sleep 0.05; done
	[ -e "$1" ] || { echo "no port published"; return 1; }
	timeout 10 python3 -c 'import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
print(s.recv(64).decode().strip())' "$(cat "$1")"
}

# --- listen() ----------------------------------------------------------------

t_listen_unbound() {
	local m=$1
	need "$m"
	policy '{"connect_tcp_ports":[],"bind_tcp_ports":[]}'
	# Bare, listen() with no bind takes a port on every address, and an
	# outside client is served.
	as "$m" "$TP" listen-unbound "$TMP/rw/bare.ready" >"$TMP/rw/bare.out" &
	local job=$!
	run -0 client "$TMP/rw/bare.ready"
	[ "$output" = served ]
	wait "$job"
	grep -qx served "$TMP/rw/bare.out"
	# Confined: refused, no port published, nothing to be served.
	run -1 confined "$m" "$TP" listen-unbound "$TMP/rw/ready"
	[ "$output" = "refused: Permission denied" ]
	[ ! -e "$TMP/rw/ready" ]
}

@test "listen() without bind takes no port and serves nobody (root)" { t_listen_unbound root; }
@test "listen() without bind takes no port and serves nobody (nobody)" { t_listen_unbound nobody; }

t_listen_bound() {
	local m=$1 p other
	need "$m"
	p=$(free_port)
	other=$(free_port)
	policy '{"bind_tcp_ports":['"$p"']}'
	confined "$m" "$TP" listen-bound "$p" "$TMP/rw/ready" >"$TMP/out" 2>"$TMP/err" &
	local job=$!
	run -0 client "$TMP/rw/ready"
	[ "$output" = served ]
	# wait in this shell, not in run's subshell, which can wait for its
	# parent's job only once the parent has reaped it
	local status=0
	wait "$job" || status=$?
	[ "$status" = 0 ]
	[ "$(cat "$TMP/out")" = "LISTENING on $p
served" ]
	[ ! -s "$TMP/err" ]
	# A port no rule grants cannot even be bound (Landlock).
	run -1 confined "$m" "$TP" listen-bound "$other" "$TMP/rw/ready.other"
	[ "$output" = "refused: Permission denied" ]
	[ ! -e "$TMP/rw/ready.other" ]
}

@test "listen() on a bound, granted port works and serves (root)" { t_listen_bound root; }
@test "listen() on a bound, granted port works and serves (nobody)" { t_listen_bound nobody; }

t_listen_unix() {
	local m=$1
	need "$m"
	policy '{}'
	run -0 confined "$m" "$TP" listen-unix "$TMP/rw/sock"
	[ "$output" = ok ]
}

t_no_range() {
	local m=$1
	need "$m"
	policy '{}'
	# The guard's pin on a socket's ephemeral range cannot be undone.
	run -0 as "$m" "$TP" set-range 40000 40010
	[ "$output" = ok ]
	run -1 confined "$m" "$TP" set-range 40000 40010
	[ "$output" = "refused: Operation not permitted" ]
}

@test "setsockopt IP_LOCAL_PORT_RANGE is refused (root)" { t_no_range root; }
@test "setsockopt IP_LOCAL_PORT_RANGE is refused (nobody)" { t_no_range nobody; }

@test "listen() on a UNIX socket works (root)" { t_listen_unix root; }
@test "listen() on a UNIX socket works (nobody)" { t_listen_unix nobody; }

t_connect() {
	local m=$1 other
	need "$m"
	listener tcp
	other=$(free_port)
	policy '{"connect_tcp_ports":['"$port"']}'
	run -0 confined "$m" "$TP" connect "$port"
	[ "$output" = ok ]
	logged "$log" 1
	policy '{"connect_tcp_ports":['"$other"']}'
	run -1 confined "$m" "$TP" connect "$port"
	[ "$output" = "refused: Permission denied" ]
	# Outside, unconfined, a control connection made after it is logged
	# second only if the refused one never arrived.
	run -0 as "$m" "$TP" connect "$port"
	logged "$log" 2
	[ "$(wc -l <"$log")" = 2 ]
}

@test "a plain connect() to a granted port works, to another one not (root)" { t_connect root; }
@test "a plain connect() to a granted port works, to another one not (nobody)" { t_connect nobody; }

t_guard_server() {
	local m=$1
	need "$m"
	policy '{}'
	# The target has no child of its own: a wait(-1) there cannot hang
	# on the guard's server.
	mkdir -m 777 "$TMP/rw/here"
	cd "$TMP/rw/here"
	run -0 confined "$m" "$TP" no-children
	[ "$output" = "no child" ]
	# The server goes when the run ends: it keeps the cwd of the run,
	# and once the target is gone no process is left there (it waits
	# for the last user of its filter; 10 s at most on a loaded machine).
	local left=
	for _ in $(seq 200); do
		left=$(guards_in "$TMP/rw/here")
		[ -z "$left" ] && break
		sleep 0.05
	done
	[ -z "$left" ]
}

# guards_in DIR: live listen-guard processes whose cwd is DIR.
guards_in() {
	local p
	for p in $(pgrep -x listen-guard); do
		[ "$(readlink "/proc/$p/cwd")" = "$1" ] || continue
		[ "$(awk '/^State:/ { print $2 }' "/proc/$p/status")" = Z ] || echo "$p"
	done
}

@test "the guard's server is no child of the target, and goes with the run (root)" { t_guard_server root; }
@test "the guard's server is no child of the target, and goes with the run (nobody)" { t_guard_server nobody; }

@test "a guard inside another: 126 with a hint, or with -b listen() refused outright" {
	require_feature landlock
	run -126 --separate-stderr "$LISTEN" -- "$LANDLOCK" -H -x /usr -x "$HELPERDIR" -- "$LISTEN" -- "$LANDLOCK" -H -x /usr -x "$HELPERDIR" -- true
	[ "${stderr_lines[0]}" = "sharness-exec-listen: fatal: unable to install the listen guard's seccomp filter: Device or resource busy" ] ||
	[ "${stderr_lines[0]}" = "sharness-exec-listen: fatal: unable to install the listen guard's seccomp filter: Resource busy" ]
	[[ "${stderr_lines[1]}" == "hint: a filter above already has a seccomp listener"* ]]
	run -1 --separate-stderr "$LISTEN" -- "$LANDLOCK" -H -x /usr -x "$HELPERDIR" -- "$LISTEN" -b -- "$LANDLOCK" -b -H -x /usr -x "$HELPERDIR" -w "$TMP/rw" -- "$TP" listen-unix "$TMP/rw/sock"
	[ "$output" = "refused: Permission denied" ]
	[ "$stderr" = "sharness-exec-listen: warning: no listen guard (a seccomp listener is already in place): best effort: listen() is refused on every socket" ]
}

# --- UDP ---------------------------------------------------------------------

abi() { "$TRYDIR/try-syscall" landlock-abi; }

t_udp_no_keys() {
	local m=$1
	need "$m"
	listener udp
	# Bare, the datagram arrives.
	run -0 as "$m" "$TP" udp-send "$port" bare
	logged "$log" 1
	policy '{"connect_tcp_ports":[53]}'
	run -1 confined "$m" "$TP" udp-send "$port" confined
	[[ "$output" == "refused: "* ]]
	run -0 as "$m" "$TP" udp-send "$port" control
	logged "$log" 2
	[ "$(cat "$log")" = "datagram bare
datagram control" ]
}

@test "UDP without UDP keys is refused (root)" { t_udp_no_keys root; }
@test "UDP without UDP keys is refused (nobody)" { t_udp_no_keys nobody; }

t_udp_keys_old_abi() {
	local m=$1
	need "$m"
	[ "$(abi)" -lt 10 ] || not_here landlock-below-10 "this kernel has Landlock UDP rules (ABI $(abi))"
	listener udp
	policy '{"connect_udp_ports":['"$port"'],"bind_udp_ports":[0]}'
	run -126 --separate-stderr confined "$m" "$TP" udp-send "$port" strict
	[ "$output" = "" ]
	[ "${#stderr_lines[@]}" = 2 ]
	[ "${stderr_lines[0]}" = "sharness-exec-landlock: fatal: unable to confine with Landlock ABI $(abi): no wall of this run holds NET_BIND_UDP, NET_CONNECT_SEND_UDP" ]
	[ "${stderr_lines[1]}" = "hint: NET_BIND_UDP, NET_CONNECT_SEND_UDP: Landlock ABI 10 (Linux 7.2) or listing no UDP port (the socket allowlist then refuses UDP); -b (--best-effort) runs with UDP unrestricted" ]
	run -0 --separate-stderr confined "$m" --best-effort "$TP" udp-send "$port" best-effort
	[ "$output" = ok ]
	[ "$stderr" = "sharness-exec-landlock: warning: Landlock ABI $(abi): best effort: dropped NET_BIND_UDP, NET_CONNECT_SEND_UDP: UDP is unrestricted" ]
	logged "$log" 1
	[ "$(cat "$log")" = "datagram best-effort" ]
}

@test "UDP keys below Landlock ABI 10: 126, or --best-effort says UDP is unrestricted (root)" { t_udp_keys_old_abi root; }
@test "UDP keys below Landlock ABI 10: 126, or --best-effort says UDP is unrestricted (nobody)" { t_udp_keys_old_abi nobody; }

@test "run emits -C and -L for the UDP keys" {
	policy '{"connect_tcp_ports":[53],"connect_udp_ports":[53,123],"bind_udp_ports":[0]}'
	run -0 --separate-stderr "$SHARNESS_EXEC" run --dry-run -p "$TMP/p.json" -- true
	[[ "$output" == *"sharness-exec-landlock -e 3 -W 4 -H "*"-c 53 -C 53 -C 123 -L 0 -R --"* ]]
}

# --- the ABI fall-through, with -A ------------------------------------------

@test "-C and -L: ports 1-65535, and 0 only for -L" {
	run -125 --separate-stderr "$LANDLOCK" -C 0 -- true
	[ "${stderr_lines[0]}" = "sharness-exec-landlock: fatal: unable to parse -C 0: not a UDP port (1-65535)" ]
	run -125 --separate-stderr "$LANDLOCK" -L 65536 -- true
	[ "${stderr_lines[0]}" = "sharness-exec-landlock: fatal: unable to parse -L 65536: not a UDP port (0-65535)" ]
}

@test "-A: every ABI from 1 up still creates its ruleset, and TCP rules hold from ABI 4" {
	require_feature landlock
	listener tcp
	local a n=0
	for a in 1 2 3 4 5 6 7 8 9 10 11; do
		run -0 --separate-stderr "$LANDLOCK" -A "$a" -b -H -c "$port" -x /usr -x "$HELPERDIR" -- "$TP" connect "$port"
		[ "$output" = ok ]
		n=$((n + 1))
		logged "$log" "$n"
		if [ "$a" -ge 4 ]; then
			run -1 --separate-stderr "$LANDLOCK" -A "$a" -b -H -x /usr -x "$HELPERDIR" -- "$TP" connect "$port"
			[ "$output" = "refused: Permission denied" ]
		fi
	done
}

@test "-A: what each ABI lacks is named, UDP last, with the ABI that has it" {
	require_feature landlock
	require_feature landlock-abi:7
	run -126 --separate-stderr "$LANDLOCK" -A 3 -H -C 53 -L 0 -- true
	[ "${stderr_lines[0]}" = "sharness-exec-landlock: fatal: unable to confine with Landlock ABI 3: no wall of this run holds FS_IOCTL_DEV, SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL, NET_BIND_TCP, NET_CONNECT_TCP, NET_BIND_UDP, NET_CONNECT_SEND_UDP" ]
	[[ "${stderr_lines[1]}" == "hint: FS_IOCTL_DEV: "*"; NET_BIND_TCP, NET_CONNECT_TCP: Landlock ABI 4 (Linux 6.7); NET_BIND_UDP, NET_CONNECT_SEND_UDP: Landlock ABI 10 (Linux 7.2) or listing no UDP port"*"-b (--best-effort) runs with UDP unrestricted" ]]
	# No UDP port: UDP is no reason to refuse, whatever the ABI.
	run -126 --separate-stderr "$LANDLOCK" -A 5 -H -- true
	[ "${stderr_lines[0]}" = "sharness-exec-landlock: fatal: unable to confine with Landlock ABI 5: no wall of this run holds SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL" ]
	[ "${stderr_lines[1]}" = "hint: SCOPE_ABSTRACT_UNIX_SOCKET: Landlock ABI 6 (Linux 6.12) or a network namespace (\"network\": \"none\"); SCOPE_SIGNAL: Landlock ABI 6 (Linux 6.12) or a pid namespace; -b (--best-effort) runs without them" ]
	run -0 --separate-stderr "$LANDLOCK" -A 6 -b -C 53 -x /usr -x "$HELPERDIR" -- true
	[ "$stderr" = "sharness-exec-landlock: warning: Landlock ABI 6: best effort: dropped NET_BIND_UDP, NET_CONNECT_SEND_UDP: UDP is unrestricted" ]
	# RESOLVE_UNIX (ABI 9) is used where the kernel has it, never required:
	# ABIs 6 to 8 without UDP run without a word.
	for a in 6 7 8; do
		run -0 --separate-stderr "$LANDLOCK" -A "$a" -H -x /usr -x "$HELPERDIR" -- true
		[ "$stderr" = "" ]
	done
	# An ABI above the kernel's changes nothing.
	run -126 --separate-stderr "$LANDLOCK" -A 1000 -C 53 -- true
	[ "${stderr_lines[0]}" = "sharness-exec-landlock: fatal: unable to confine with Landlock ABI $(abi): no wall of this run holds NET_BIND_UDP, NET_CONNECT_SEND_UDP" ]
}
