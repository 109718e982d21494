#!/usr/bin/env bats
# network.hosts through the whole chain (issue 40, DESIGN.md 4.9):
# `sharness-exec run` of a policy that names hosts puts the egress step
# between netns and supervise; the target keeps a network namespace of its
# own (a loopback, the step's listener on 127.0.0.1:3128 and nothing
# else), and the proxy variables name the listener. A fake internet of the
# test's own namespaces (helpers/egress.bash): the caller runs in H, whose
# resolver is the fake DNS server; W holds good.test and other.test.
# Refusals are checked from the outside: the DNS log (no query for a name
# not listed), the web log (no request), a listener on the step's own
# loopback (no connection) and the step's one line at the end. The issue's
# hostile requests go through the whole chain too, written by hand in the
# target (CLIENT): SOCKS4a, SOCKS5 BIND, UDP ASSOCIATE and address types,
# oversized heads, TLS hellos naming another server or no host name, a
# name that resolves inside the second time, and slow clients against the
# step's time and connection bounds; and the step's confinement tried from
# its own side (helpers/inject.py). As root, as nobody and as uid 1000.
# not tested here: each parser's cases one by one (egress.bats runs the
# step by hand for those, fuzz/ its readers); Node, Go, pip, npm and git
# through it (real/egresstools.bats).
load ../helpers/load
load ../helpers/egress

EGRESS="$HELPERDIR/sharness-exec-egress"

setup_file() { fakenet_file; }

teardown_file() { fakenet_down; }

setup() {
	fakenet_need
	cp "$EG/ca.pem" "$TMP/ca.pem"
	chmod 644 "$TMP/ca.pem"
	: >"$EG/dns.log"
	: >"$EG/web.log"
}

teardown() {
	fakenet_untrap
	teardown_tmp
}

# hosts JSON-LIST: the policy, naming those hosts.
hosts() {
	chain_policy egresschain '{"hosts":['"$1"']}' '"/etc","'"$TMP"'"' '' '' '' ',"tmpfs":["/tmp"]'
}

# confined MODE CMD...: `sharness-exec run` of the policy as MODE, from the
# caller's side H, whose /etc/resolv.conf names the fake DNS server.
confined() {
	local m=$1 as=()
	shift
	case $m in
	nobody) as=(setpriv --reuid="$NOBODY_UID" --regid="$NOBODY_UID" --clear-groups) ;;
	1000) as=(setpriv --reuid=1000 --regid=1000 --clear-groups) ;;
	esac
	ip netns exec "$NS-h" unshare -m sh -c \
		'mount --bind "$0/resolv.conf" /etc/resolv.conf && exec "$@"' "$EG" \
		"${as[@]}" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$@"
}

t_reach() {
	local m=$1
	hosts '"good.test:443"'
	run --separate-stderr confined "$m" sh -c '
		curl -sS --max-time 30 --cacert "$1" https://good.test/a &&
		curl -sS --max-time 30 --cacert "$1" -x "$all_proxy" https://good.test/b' sh "$TMP/ca.pem"
	[ "$status" = 0 ] || { echo "$status: $output / $stderr"; false; }
	[ "${lines[0]}" = "hello from good.test" ]
	[ "${lines[1]}" = "hello from good.test" ]
	[ -z "$stderr" ]
	# The world saw both, by name, through the step.
	grep -qx "good.test /a" "$EG/web.log"
	grep -qx "good.test /b" "$EG/web.log"
}

@test "network.hosts: curl reaches a listed name over HTTPS, by HTTP CONNECT and by SOCKS5 (root)" { t_reach root; }
@test "network.hosts: curl reaches a listed name over HTTPS, by HTTP CONNECT and by SOCKS5 (nobody)" { t_reach nobody; }
@test "network.hosts: curl reaches a listed name over HTTPS, by HTTP CONNECT and by SOCKS5 (1000)" { t_reach 1000; }

# TRIES: each way out a target might try, one line each: "ok" or its
# failure. Direct: no route but the loopback; DNS: no server inside.
TRIES='
try() { if "$@" >/dev/null 2>&1; then echo "$1 ok"; else echo "$1 refused"; fi; }
c="curl -sS --max-time 20 --cacert $1"
try $c https://other.test/
try $c https://good.test:8443/
try $c https://203.0.113.10/
try $c --noproxy "*" --resolve good.test:443:203.0.113.10 https://good.test/
try python3 -c "import socket; socket.getaddrinfo(\"good.test\", 443)"
try $c -x "$all_proxy" https://other.test/
try $c https://loop.test/
try $c https://meta.test/
try $c https://private.test/
'

t_refused() {
	local m=$1
	hosts '"good.test:443","loop.test:443","meta.test:443","private.test:443"'
	# Bare, from H, the world answers for other.test: the name resolves and
	# the server is there.
	run -0 ip netns exec "$NS-h" curl -sS --max-time 20 --cacert "$TMP/ca.pem" \
		--resolve other.test:443:203.0.113.10 https://other.test/bare
	[ "$output" = "hello from other.test" ]
	: >"$EG/web.log"
	: >"$EG/dns.log"
	run --separate-stderr confined "$m" sh -c "$TRIES" sh "$TMP/ca.pem"
	[ "$status" = 0 ]
	[ "$(grep -c ' refused$' <<<"$output")" = 9 ] || { echo "$output"; false; }
	# Nothing reached the world, and no name not listed was asked of DNS.
	[ ! -s "$EG/web.log" ] || { cat "$EG/web.log"; false; }
	! grep -q other.test "$EG/dns.log"
	# One line at the end names each refused host, why, and the key.
	[[ "$stderr" == *"sharness-exec-egress: warning: refused: other.test:443 (not listed; 2 times), good.test:8443 (the name is listed, not this port), 203.0.113.10:443 (an IP address: only an address the policy lists, in its plain form), loop.test:443 (resolves to 127.0.0.1,"* ]] || { echo "$stderr"; false; }
	[[ "$stderr" == *"meta.test:443 (resolves to 169.254.169.254,"* ]]
	[[ "$stderr" == *"private.test:443 (resolves to 10.1.2.3,"* ]]
	[[ "$stderr" == *"; network.hosts lists the hosts a run may reach" ]]
	[ "$(grep -c . <<<"$stderr")" = 1 ]
}

@test "network.hosts: a name not listed, another port, an address, a direct connect, DNS, and names leading inside are refused; nothing reaches the world (root)" { t_refused root; }
@test "network.hosts: a name not listed, another port, an address, a direct connect, DNS, and names leading inside are refused; nothing reaches the world (nobody)" { t_refused nobody; }
@test "network.hosts: a name not listed, another port, an address, a direct connect, DNS, and names leading inside are refused; nothing reaches the world (1000)" { t_refused 1000; }

@test "network.hosts: the dry run shows the egress step, its forks, and the proxy variables the target gets" {
	hosts '"good.test:443","*.pkgs.test:443"'
	run -0 --separate-stderr "$SHARNESS_EXEC" run --dry-run --verbose -p "$TMP/p.json" -- /bin/true
	[[ "${lines[0]}" == */sharness-exec-netns" -W "[0-9]*" -H --" ]]
	[[ "${lines[1]}" == */sharness-exec-egress" -W "[0-9]*" -l 3128 -a good.test:443 -a '*.pkgs.test:443' --" ]]
	[[ "${lines[2]}" == */sharness-exec-supervise" "* ]]
	# The landlock step keeps no host network: the namespace holds it.
	[[ "${lines[4]}" == */sharness-exec-landlock" "* ]]
	[[ "${lines[4]}" != *" -H "* ]]
	[[ "$stderr" == *"fork: the run, by sharness-exec-egress: makes the run's network namespace"* ]]
	[[ "$stderr" == *"fork: the egress server, by sharness-exec-egress: serves the listener, confined"* ]]
	# The variables, over a policy's own env.set.
	chain_policy egresschain '{"hosts":["good.test:443"]}' '"/etc"' '' '' '' \
		',"tmpfs":["/tmp"]},"env":{"set":{"https_proxy":"http://elsewhere:1"}' 
	run -0 --separate-stderr confined root sh -c 'env | grep -i _proxy= | sort'
	[ "$output" = "ALL_PROXY=socks5h://127.0.0.1:3128
HTTPS_PROXY=http://127.0.0.1:3128
HTTP_PROXY=http://127.0.0.1:3128
NO_PROXY=localhost,127.0.0.1,::1
all_proxy=socks5h://127.0.0.1:3128
http_proxy=http://127.0.0.1:3128
https_proxy=http://127.0.0.1:3128
no_proxy=localhost,127.0.0.1,::1" ]
}

@test "network.hosts: the target's exit status and its death by a signal pass through the egress step; kill(1) at the run reaches the target" {
	chain_policy egresschain '{"hosts":["good.test:443"]}' '"/etc"' '"'"$TMP"'"' '' '' ',"tmpfs":["/tmp"]'
	run confined root sh -c 'exit 7'
	[ "$status" = 7 ]
	run confined root sh -c 'kill -KILL $$'
	[ "$status" = 137 ]
	# TERM at the process the caller started (the egress step) reaches
	# the target, which says so and exits 3.
	mkfifo "$TMP/up"
	chmod 666 "$TMP/up"
	# Each program here execs the next in place: $! is the front end's
	# pid, then the egress step's.
	ip netns exec "$NS-h" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- sh -c \
		'trap "echo got-term >\"\$1/term\"; exit 3" TERM; echo up >"$1/up"; while :; do sleep 1 & wait; done' \
		sh "$TMP" &
	local pid=$!
	read -r -t 60 _ <"$TMP/up"
	[ "$(cat /proc/$pid/comm)" = sharness-exec-e ]
	kill -TERM "$pid"
	wait "$pid" || [ "$?" = 3 ]
	[ "$(cat "$TMP/term")" = got-term ]
}

@test "network.hosts: the step by hand: -t in the chain says what it would serve, and a PROGRAM with -f or -d is refused" {
	run -125 "$EGRESS" -a good.test:443 -f 3 -- /bin/true
	[[ "$output" == *"-f FD serves a listener it is given; with a PROGRAM the step makes its own"* ]]
	run -0 "$EGRESS" -t -a good.test:443 -a other.test:443 -- /bin/true
	[ "$output" = "sharness-exec-egress: would serve 2 allowed hosts on 127.0.0.1:3128 in the run's network namespace, confined" ]
}

# Where no network namespace can be made (a seccomp filter refuses
# unshare(2): Docker's default profile, Ubuntu's AppArmor rule for
# unprivileged user namespaces), a policy that names hosts runs nothing:
# the target would have the host's network. 126, one line, under
# --best-effort too.
t_no_ns() {
	local m=$1 as=()
	[ "$m" = nobody ] && as=(setpriv --reuid="$NOBODY_UID" --regid="$NOBODY_UID" --clear-groups)
	mkdir -m 777 "$TMP/w"
	chain_policy egresschain '{"hosts":["good.test:443"]}' '"/etc"' '"'"$TMP/w"'"' '' '' ',"tmpfs":["/tmp"]'
	for best in "" --best-effort; do
		run -126 --separate-stderr "${as[@]}" "$TRYDIR/deny-unshare" "$SHARNESS_EXEC" run \
			$best -p "$TMP/p.json" -- sh -c 'touch "$1/ran"' sh "$TMP/w"
		[[ "$stderr" == *"sharness-exec-egress: fatal: unable to make the run's network namespace, which a policy naming hosts needs: Operation not permitted"* ]] ||
			{ echo "$stderr"; false; }
		[ ! -e "$TMP/w/ran" ]
	done
	# The same filter, bare: the command runs.
	"${as[@]}" "$TRYDIR/deny-unshare" sh -c 'touch "$1/ran"' sh "$TMP/w"
	[ -e "$TMP/w/ran" ]
}

@test "network.hosts: where no network namespace can be made, nothing runs, --best-effort or not (root)" { t_no_ns root; }
@test "network.hosts: where no network namespace can be made, nothing runs, --best-effort or not (nobody)" { t_no_ns nobody; }

# CLIENT, a python3 program the target runs: requests to the step's
# listener (the port in $https_proxy) written by hand, as a hostile target
# would send them.
#   raw HEX...       sends the bytes, prints what came back (hex) once the
#                    step closes
#   head KIND        an HTTP CONNECT head: to good.test:443 over a limit
#                    (big: 9,000 bytes in lines of 1,000; line: one line of
#                    1,100; lines: 101 lines), or to the host:port KIND;
#                    prints the answer's status
#   hello NAME       CONNECT good.test:443, then a TLS 1.2 ClientHello whose
#                    server_name is NAME (dot: "."; long: 254 bytes, no
#                    trailing dot); prints "relayed XX" and the first byte
#                    the server sent, or "closed"
#   hold N CMD...    N SOCKS5 clients, each greeted, then silent; CMD runs,
#                    and its status is printed with how many of the N the
#                    step had cut off by then; then waits for the step to
#                    cut all N off
CLIENT='
import os, select, socket, struct, subprocess, sys
port = int(os.environ["https_proxy"].rsplit(":", 1)[1])
def conn():
    return socket.create_connection(("127.0.0.1", port), timeout=60)
def drain(s):
    out = b""
    while True:
        d = s.recv(65536)
        if not d:
            return out
        out += d
def clienthello(sni):
    entry = b"\x00" + struct.pack("!H", len(sni)) + sni
    names = struct.pack("!H", len(entry)) + entry
    ext = struct.pack("!HH", 0, len(names)) + names
    ext += struct.pack("!HHHH", 10, 4, 2, 23)
    ext += struct.pack("!HHBB", 11, 2, 1, 0)
    ext += struct.pack("!HHHH", 13, 4, 2, 0x0403)
    body = b"\x03\x03" + os.urandom(32) + b"\x00" + struct.pack("!HH", 2, 0xc02b) + b"\x01\x00"
    body += struct.pack("!H", len(ext)) + ext
    hs = b"\x01" + struct.pack("!I", len(body))[1:] + body
    return b"\x16\x03\x01" + struct.pack("!H", len(hs)) + hs
mode = sys.argv[1]
if mode == "raw":
    s = conn()
    for h in sys.argv[2:]:
        s.sendall(bytes.fromhex(h))
    print(drain(s).hex())
elif mode == "head":
    over = {"big": "".join("X-%d: %s\r\n" % (i, "a" * 994) for i in range(9)),
            "line": "X: %s\r\n" % ("a" * 1100), "lines": "X: a\r\n" * 101}
    to = "good.test:443" if sys.argv[2] in over else sys.argv[2]
    head = "CONNECT %s HTTP/1.1\r\nHost: %s\r\n%s\r\n" % (to, to, over.get(sys.argv[2], ""))
    s = conn()
    s.sendall(head.encode())
    print(drain(s).split(b" ")[1].decode())
elif mode == "hello":
    sni = {"dot": ".", "long": ".".join(["a" * 63] * 3 + ["a" * 62])}.get(sys.argv[2], sys.argv[2])
    s = conn()
    s.sendall(b"CONNECT good.test:443 HTTP/1.1\r\nHost: good.test:443\r\n\r\n")
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        head += s.recv(1)
    assert head.startswith(b"HTTP/1.1 200 "), head
    s.sendall(clienthello(sni.encode()))
    d = s.recv(1)
    print("relayed %02x" % d[0] if d else "closed")
elif mode == "hold":
    held = []
    for i in range(int(sys.argv[2])):
        s = conn()
        s.sendall(b"\x05\x01\x00")
        assert s.recv(2) == b"\x05\x00"
        held.append(s)
    rc = subprocess.run(sys.argv[3:]).returncode
    cut = [s for s in held if s in select.select(held, [], [], 0)[0] and s.recv(1) == b""]
    print("status %d, %s cut off before" % (rc, "some" if cut else "none"))
    for s in held:
        if s not in cut:
            assert drain(s) == b""
    print("all %d cut off" % len(held))
'

t_socks_limits() {
	local m=$1
	hosts '"good.test:443"'
	# SOCKS4a, SOCKS5 BIND, UDP ASSOCIATE, CONNECT to an IPv4 and to an
	# IPv6 address, each answered with its protocol's refusal; an IP
	# literal in another spelling and request heads over their limits.
	run --separate-stderr confined "$m" sh -c '
		python3 -c "$0" raw 0401 01bb 00000001 00 676f6f642e7465737400
		python3 -c "$0" raw 050100 050200030967 6f6f642e74657374 01bb
		python3 -c "$0" raw 050100 0503000100000000 0000
		python3 -c "$0" raw 050100 05010001cb00710a 01bb
		python3 -c "$0" raw 050100 0501000400000000000000000000000000000001 01bb
		for k in 3405803786:443 big line lines; do python3 -c "$0" head $k; done' "$CLIENT"
	[ "$status" = 0 ] || { echo "$status: $output / $stderr"; false; }
	[ "$output" = "005b000000000000
050005070001000000000000
050005070001000000000000
050005080001000000000000
050005080001000000000000
403
431
431
431" ] || { echo "$output"; false; }
	# Nothing was resolved, nothing reached the world. The one line at the
	# end names each refusal, with its reason: those that named no host
	# too, each reason apart (before, only the IP literal was named).
	[ ! -s "$EG/dns.log" ] || { cat "$EG/dns.log"; false; }
	[ ! -s "$EG/web.log" ] || { cat "$EG/web.log"; false; }
	[ "$stderr" = "sharness-exec-egress: warning: refused: a request naming no host (SOCKS4 is not served: SOCKS5 with a name (socks5h://)), a request naming no host (SOCKS5 BIND is not served), a request naming no host (SOCKS5 UDP ASSOCIATE is not served), a request naming no host (a SOCKS5 address that is no name: the step resolves names itself (socks5h://); 2 times), 3405803786:443 (an IP address: only an address the policy lists, in its plain form), a request naming no host (a request head over 8192 bytes), a request naming no host (a line of the request over 1024 bytes), a request naming no host (over 100 header lines); network.hosts lists the hosts a run may reach" ] || { echo "$stderr"; false; }
}

@test "network.hosts: SOCKS4a, SOCKS5 BIND, UDP ASSOCIATE and address types, an IP literal's other spelling and oversized request heads are refused; nothing is resolved or sent (root)" { t_socks_limits root; }
@test "network.hosts: SOCKS4a, SOCKS5 BIND, UDP ASSOCIATE and address types, an IP literal's other spelling and oversized request heads are refused; nothing is resolved or sent (nobody)" { t_socks_limits nobody; }

t_sni() {
	local m=$1 long
	hosts '"good.test:443"'
	# curl asks for good.test and says other.test in its TLS hello (the
	# same server answers for both): refused before a byte reaches it.
	run --separate-stderr confined "$m" curl -sS --max-time 30 --cacert "$TMP/ca.pem" \
		--connect-to other.test:443:good.test:443 https://other.test/
	[ "$status" = 35 ] || { echo "$status: $output / $stderr"; false; }
	[ ! -s "$EG/web.log" ] || { cat "$EG/web.log"; false; }
	[[ "$stderr" == *"sharness-exec-egress: warning: refused: good.test:443 (its TLS hello names \"other.test\"); network.hosts lists the hosts a run may reach" ]] ||
		{ echo "$stderr"; false; }
	# Hellos written by hand: the same hello naming good.test is relayed
	# (the server answers it); naming "." or 254 bytes with no trailing dot,
	# no host name at all, it is refused for its length.
	run --separate-stderr confined "$m" sh -c '
		for n in good.test dot long; do python3 -c "$0" hello $n; done' "$CLIENT"
	[ "$status" = 0 ] || { echo "$status: $output / $stderr"; false; }
	[[ "${lines[0]}" == "relayed 1"[56] ]] || { echo "$output"; false; }
	[ "${lines[1]}" = closed ]
	[ "${lines[2]}" = closed ]
	[ ! -s "$EG/web.log" ] || { cat "$EG/web.log"; false; }
	[ "$stderr" = "sharness-exec-egress: warning: refused: good.test:443 (a server name of a length no host name has; 2 times); network.hosts lists the hosts a run may reach" ] ||
		{ echo "$stderr"; false; }
}

@test "network.hosts: a TLS hello naming another server than the CONNECT, \".\" or 254 bytes is refused and the server gets no request (root)" { t_sni root; }
@test "network.hosts: a TLS hello naming another server than the CONNECT, \".\" or 254 bytes is refused and the server gets no request (nobody)" { t_sni nobody; }

t_rebind() {
	local m=$1 n=rebind-$1.test
	# A name of this test's own, which answers 203.0.113.10 the first
	# time and 127.0.0.1 after; a listener on 127.0.0.1:443 on the step's
	# side, where a second lookup would lead.
	echo "$n 203.0.113.10|127.0.0.1" >>"$EG/zone"
	fakenet_trap 127.0.0.1 443
	hosts '"'"$n"':443"'
	run --separate-stderr confined "$m" sh -c '
		curl -sS --max-time 30 -k "https://$0/first"; echo " $?"
		curl -sS --max-time 30 -k "https://$0/second"; echo " $?"' "$n"
	[ "$status" = 0 ] || { echo "$status: $output / $stderr"; false; }
	[ "${lines[0]}" = "hello from $n" ]
	[ "${lines[1]}" = " 0" ]
	[[ "${lines[2]}" == *" 56" ]]
	# The first connection went where the first answer said, the second
	# was refused on its answer: nothing came to the loopback listener.
	[ "$(cat "$EG/web.log")" = "$n /first" ]
	[ ! -s "$EG/trap.log" ] || { cat "$EG/trap.log"; false; }
	[ "$(grep -c "^A $n\$" "$EG/dns.log")" -ge 2 ]
	[ "${stderr_lines[1]}" = "sharness-exec-egress: warning: refused: $n:443 (resolves to 127.0.0.1, a loopback address (127.0.0.0/8)); network.hosts lists the hosts a run may reach" ] ||
		{ echo "$stderr"; false; }
	# Bare, from the step's side, the name now leads to that listener.
	run ip netns exec "$NS-h" unshare -m sh -c \
		'mount --bind "$0/resolv.conf" /etc/resolv.conf && exec "$@"' "$EG" \
		curl -sS --max-time 30 -k "https://$n/bare"
	[ "$(cut -d' ' -f1 "$EG/trap.log")" = 127.0.0.1 ]
}

@test "network.hosts: a name that resolves inside the second time: the first connection goes where the check said, the second is refused (root)" { t_rebind root; }
@test "network.hosts: a name that resolves inside the second time: the first connection goes where the check said, the second is refused (nobody)" { t_rebind nobody; }

# The step's bounds in the chain: --max 128 connections at once, and each
# within -i's 10 s from its first byte to its first flight.
t_slow() {
	local m=$1
	hosts '"good.test:443"'
	# 128 clients greeted and silent hold every connection the step
	# serves at once; curl's request waits until the step cuts one off,
	# then goes through. The step cuts all 128 off, none reaching the world.
	run --separate-stderr confined "$m" python3 -c "$CLIENT" hold 128 \
		curl -sS --max-time 60 --cacert "$TMP/ca.pem" -o /dev/null https://good.test/after
	[ "$status" = 0 ] || { echo "$status: $output / $stderr"; false; }
	[ "$output" = "status 0, some cut off before
all 128 cut off" ]
	[ "$(cat "$EG/web.log")" = "good.test /after" ]
	[ ! -s "$EG/dns.log" ] || [ "$(cut -d' ' -f2 "$EG/dns.log" | sort -u)" = good.test ]
	# the line at the end says the step cut them off
	[ "$stderr" = "sharness-exec-egress: warning: refused: a request naming no host (no request, resolution, connect and first bytes in time; 128 times); network.hosts lists the hosts a run may reach" ] || { echo "$stderr"; false; }
}

@test "network.hosts: slow clients hold at most 128 connections, each cut off within its time; a request after them goes through (root)" { t_slow root; }
@test "network.hosts: slow clients hold at most 128 connections, each cut off within its time; a request after them goes through (nobody)" { t_slow nobody; }

# The step's confinement tried from its own side: tests/helpers/inject.py
# makes the egress server, idle in accept(2) while a run waits, call what a
# flaw in its parsers could: open files, create one, exec, connect to a
# port not listed. Bare, a process of the caller's may do each.

# blocked PID [confined]: waits until PID sleeps in a system call (and,
# with "confined", has its seccomp filter, the last of its confinement):
# polls /proc/PID, for the outcome, not a time.
blocked() {
	local nr= st=
	until [[ "$nr" =~ ^[0-9]+$ && "$st" == *"State:	S "* &&
		( -z "${2:-}" || "$st" == *"Seccomp:	2"* ) ]]; do
		read -r nr _ <"/proc/$1/syscall" || return 1
		st=$(<"/proc/$1/status") || return 1
	done
}

t_own_side() {
	local m=$1 pid server
	require_feature arch:x86_64
	require_feature tool:pgrep
	require_feature landlock-abi:4
	mkdir -m 777 "$TMP/w"
	chain_policy egresschain '{"hosts":["good.test:443"]}' '"/etc","'"$TMP"'"' '"'"$TMP/w"'"' '' '' ',"tmpfs":["/tmp"]'
	mkfifo -m 666 "$TMP/w/up" "$TMP/w/go"
	local calls=(open:/etc/resolv.conf open:/etc/passwd open:/proc/self/environ
		create:"$TMP/own-side" exec:/bin/true connect:203.0.113.10:443 connect:203.0.113.10:80)
	# Bare: a process of the caller's, blocked opening a FIFO, does them.
	sh -c 'read x <"$0"' "$TMP/w/go" &
	pid=$!
	blocked "$pid"
	run -0 python3 "$top_srcdir/tests/helpers/inject.py" "$pid" open:/etc/passwd create:"$TMP/own-side"
	[ "$output" = "open:/etc/passwd ok
create:$TMP/own-side ok" ]
	rm "$TMP/own-side"
	echo >"$TMP/w/go"
	wait "$pid"
	# The run waits for the word, then fetches through the step.
	confined "$m" sh -c 'echo up >"$1/w/up"; read x <"$1/w/go"
		curl -sS --max-time 30 --cacert "$1/ca.pem" https://good.test/after' sh "$TMP" \
		>"$TMP/out" 2>"$TMP/err" &
	pid=$!
	read -r -t 60 _ <"$TMP/w/up"
	# $! is the shell of confined, the step its child (each program execs
	# the next), and the server the step's child of the same name.
	server=$(pgrep -P "$(pgrep -P "$pid" -x sharness-exec-e)" -x sharness-exec-e)
	[ -n "$server" ]
	blocked "$server" confined
	run python3 "$top_srcdir/tests/helpers/inject.py" "$server" "${calls[@]}"
	echo >"$TMP/w/go"
	wait "$pid"
	[ "$output" = "open:/etc/resolv.conf ok
open:/etc/passwd EACCES
open:/proc/self/environ EACCES
create:$TMP/own-side EACCES
exec:/bin/true EACCES
connect:203.0.113.10:443 ok
connect:203.0.113.10:80 EACCES" ] || { echo "$output"; false; }
	[ ! -e "$TMP/own-side" ]
	# The server went on serving: the run's fetch after it went through.
	[ "$(cat "$TMP/out")" = "hello from good.test" ]
	[ "$(cat "$EG/web.log")" = "good.test /after" ]
}

@test "network.hosts: the egress server, made to call them from its own side, opens no file but its resolver's, creates none, execs nothing and connects to no port not listed (root)" { t_own_side root; }
@test "network.hosts: the egress server, made to call them from its own side, opens no file but its resolver's, creates none, execs nothing and connects to no port not listed (nobody)" { t_own_side nobody; }
