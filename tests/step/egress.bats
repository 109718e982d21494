#!/usr/bin/env bats
# The egress step, sharness-exec-egress (issue 40), run by hand as a chain
# would run it: in the caller's network namespace, serving on a listener
# made in a run's own namespace and handed over a socket pair. A fake
# internet of the test's own namespaces (helpers/egress.bash): a DNS server
# whose log shows every query, and HTTPS servers under a test CA whose log
# shows every request. Nothing is sent to any address outside those
# namespaces. Each refusal is checked from the outside: the step's line,
# the DNS log (no query for a name not listed) and the web log (no
# request). The step runs as root and as nobody.
# not tested here: the policy form that names hosts and the chain that
# starts this step (egresschain.bats).
load ../helpers/load
load ../helpers/egress

EGRESS="$HELPERDIR/sharness-exec-egress"

# One fake internet for the file; a step of its own for each test.
setup_file() { fakenet_file; }

teardown_file() { fakenet_down; }

setup() {
	fakenet_need
	EGRESS="$HELPERDIR/sharness-exec-egress"
}

teardown() {
	egress_stop
	teardown_tmp
}

# as_uid MODE: the -u argument of egress_start for MODE.
as_uid() { [ "$1" = nobody ] && echo "-u $NOBODY_UID"; return 0; }

# proxy KIND URL [CURL-ARGS...]: curl in the run's namespace through the
# step (KIND http or socks5h), the test CA trusted.
proxy() {
	local kind=$1 url=$2
	shift 2
	in_run curl -sS --max-time 30 -x "$kind://127.0.0.1:$PORT" --cacert "$EG/ca.pem" "$@" "$url"
}

# raw HEX...: bytes to the step from the run's namespace; what it answers,
# in hex, once it closes.
raw() {
	in_run python3 -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
for h in sys.argv[2:]:
    s.sendall(bytes.fromhex(h))
out = b""
s.settimeout(30)
while True:
    d = s.recv(4096)
    if not d: break
    out += d
print(out.hex())' "$PORT" "$@"
}

# unhex: standard input's hex as bytes.
unhex() { python3 -c 'import sys; sys.stdout.buffer.write(bytes.fromhex(sys.stdin.read().strip()))'; }

# connect_raw HOST:PORT: an HTTP CONNECT sent by hand; the answer's first line.
connect_raw() {
	raw "$(printf 'CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n' "$1" "$1" | od -v -An -tx1 | tr -d ' \n')" |
		unhex | head -1 | tr -d '\r'
}

t_allowed() {
	local m=$1
	egress_start $(as_uid "$m") good.test:443 '*.pkgs.test:443'
	run -0 proxy http https://good.test/a
	[ "$output" = "hello from good.test" ]
	run -0 proxy socks5h https://files.pkgs.test/b
	[ "$output" = "hello from files.pkgs.test" ]
	[ "$(cat "$EG/web.log")" = "good.test /a
files.pkgs.test /b" ]
	grep -q '^allowed "good.test":443 up=[1-9][0-9]* down=[1-9][0-9]*$' "$EG/egress.log"
	grep -q '^allowed "files.pkgs.test":443 up=' "$EG/egress.log"
}

@test "egress: a listed name, and one under a listed wildcard, are reached by HTTP CONNECT and SOCKS5 with names (root)" { t_allowed root; }
@test "egress: a listed name, and one under a listed wildcard, are reached by HTTP CONNECT and SOCKS5 with names (nobody)" { t_allowed nobody; }

t_refused() {
	local m=$1
	egress_start $(as_uid "$m") good.test:443 loop.test:443 private.test:443 meta.test:443 \
		mixed.test:443 '*.pkgs.test:443'
	# A name not listed: refused before any lookup.
	run -56 proxy http https://other.test/
	run -97 proxy socks5h https://other.test/
	# A listed name on a port not listed; the bare name of a wildcard.
	run -56 proxy http https://good.test:8443/
	run -56 proxy http https://pkgs.test/
	# IP literals, in any spelling (sent by hand: curl would rewrite them).
	for lit in 203.0.113.10 3405803786 0xcb.0.113.10 0313.0.0161.012 '[::ffff:203.0.113.10]'; do
		run -0 connect_raw "$lit:443"
		[ "$output" = "HTTP/1.1 403 Forbidden" ]
	done
	# Listed names that lead inside.
	for n in loop private meta mixed; do
		run -56 proxy http "https://$n.test/" -k
	done
	# Nothing reached the web server; no name outside the list was asked.
	[ ! -s "$EG/web.log" ]
	run -1 grep -E ' (other|pkgs)\.test$' "$EG/dns.log"
	[ "$(grep -c '^refused' "$EG/egress.log")" = 13 ]
	grep -qx 'refused "other.test":443: not listed' "$EG/egress.log"
	grep -qx 'refused "good.test":8443: the name is listed, not this port' "$EG/egress.log"
	grep -qx 'refused "3405803786":443: an IP address: only an address the policy lists, in its plain form' "$EG/egress.log"
	grep -qx 'refused "loop.test":443: resolves to 127.0.0.1, a loopback address (127.0.0.0/8)' "$EG/egress.log"
	grep -qx 'refused "private.test":443: resolves to 10.1.2.3, a private address (10.0.0.0/8)' "$EG/egress.log"
	grep -qx "refused \"meta.test\":443: resolves to 169.254.169.254, a cloud's metadata address (169.254.169.254)" "$EG/egress.log"
	grep -qx 'refused "mixed.test":443: resolves to 10.1.2.3, a private address (10.0.0.0/8)' "$EG/egress.log"
}

@test "egress: unlisted names, ports and IP literals, and listed names that lead inside, are refused; no lookup of an unlisted name (root)" { t_refused root; }
@test "egress: unlisted names, ports and IP literals, and listed names that lead inside, are refused; no lookup of an unlisted name (nobody)" { t_refused nobody; }

@test "egress: a listed address, in its plain form, is reached as an IP literal; its other spellings are not" {
	egress_start 203.0.113.10:443
	run -0 proxy http https://203.0.113.10/x -k
	[ "$output" = "hello from 203.0.113.10" ]
	run -0 connect_raw 3405803786:443
	[ "$output" = "HTTP/1.1 403 Forbidden" ]
	[ "$(cat "$EG/web.log")" = "203.0.113.10 /x" ]
}

@test "egress: a TLS hello naming another server than the CONNECT is refused, and the server gets no request" {
	egress_start good.test:443
	run -35 proxy http https://other.test/ --connect-to other.test:443:good.test:443
	[ ! -s "$EG/web.log" ]
	grep -qx 'refused "good.test":443: its TLS hello names "other.test"' "$EG/egress.log"
}

@test "egress: a name that resolves inside the second time is looked up once, and its first answer is the one connected to" {
	egress_start rebind.test:443
	run -0 proxy http https://rebind.test/ -k
	[ "$output" = "hello from rebind.test" ]
	[ "$(grep -c '^A rebind.test$' "$EG/dns.log")" = 1 ]
}

@test "egress: SOCKS4a, SOCKS5 BIND, UDP ASSOCIATE, an address type other than a name, and plain HTTP are refused" {
	egress_start good.test:443
	# SOCKS4a CONNECT good.test:443: request rejected (0x5b).
	run -0 raw 0401 01bb 00000001 00 676f6f642e7465737400
	[ "$output" = 005b000000000000 ]
	# SOCKS5 without authentication, then BIND, UDP ASSOCIATE, CONNECT to
	# an IPv4 and an IPv6 address: "command not supported" (7), "address
	# type not supported" (8).
	run -0 raw 050100 050200030967 6f6f642e74657374 01bb
	[ "$output" = 050005070001000000000000 ]
	run -0 raw 050100 0503000100000000 0000
	[ "$output" = 050005070001000000000000 ]
	run -0 raw 050100 05010001cb00710a 01bb
	[ "$output" = 050005080001000000000000 ]
	run -0 raw 050100 0501000400000000000000000000000000000001 01bb
	[ "$output" = 050005080001000000000000 ]
	# A SOCKS5 greeting that offers only a password: no method (0xff).
	run -0 raw 050102
	[ "$output" = 05ff ]
	# Plain HTTP: 405, not forwarded.
	run -0 in_run curl -sS -o /dev/null -w '%{http_code}' --max-time 30 -x http://127.0.0.1:$PORT http://good.test/
	[ "$output" = 405 ]
	[ ! -s "$EG/web.log" ]
	[ "$(grep -c '^refused' "$EG/egress.log")" = 7 ]
}

@test "egress: an oversized request head is refused (431), and a client that sends nothing is cut off" {
	egress_start -i 1 good.test:443
	run -0 raw "$(printf 'CONNECT good.test:443 HTTP/1.1\r\nX: %09000d\r\n\r\n' 0 | od -v -An -tx1 | tr -d ' \n')"
	[[ "$(echo "$output" | unhex)" == "HTTP/1.1 431 "* ]]
	# A silent client: the step closes it (within -i's second; the test
	# waits for the close, not for a time).
	run -0 raw
	[ -z "$output" ]
	grep -q '^refused - -: no request, resolution, connect and first bytes in time$' "$EG/egress.log"
	[ ! -s "$EG/web.log" ]
}

@test "egress: from the run's namespace a direct connection and a DNS query reach nothing" {
	egress_start good.test:443
	run -7 in_run curl -sS --max-time 10 --cacert "$EG/ca.pem" --resolve good.test:443:203.0.113.10 https://good.test/
	run -1 in_run python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(5)
try:
    s.sendto(b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x04good\x04test\x00\x00\x01\x00\x01", ("198.51.100.2", 53))
    s.recv(512)
except OSError as e:
    raise SystemExit(1)'
	[ ! -s "$EG/dns.log" ] && [ ! -s "$EG/web.log" ]
}

@test "egress: the step holds no capability, has no_new_privs and a seccomp filter, and refuses what its allow list cannot parse" {
	local pid st
	egress_start good.test:443
	pid=$(pgrep -f -n "^$EGRESS -d")
	st=$(cat "/proc/$pid/status")
	grep -qx 'NoNewPrivs:	1' <<<"$st"
	grep -qx 'Seccomp:	2' <<<"$st"
	grep -qx 'CapEff:	0000000000000000' <<<"$st"
	grep -qx 'CapPrm:	0000000000000000' <<<"$st"
	grep -qx 'CapBnd:	0000000000000000' <<<"$st"
	for a in '*:443' '*.test:443' 'a.*.test:443' Good.test:443 good.test good.test:0 good.test:65536 \
		'good.test:+1' 10.0.0.0/33:443 '::1:443' 'bad_name.test:443' '-a.test:443'; do
		run -125 --separate-stderr "$EGRESS" -t -a "$a" -f 0
		[[ "${stderr_lines[0]}" == "sharness-exec-egress: fatal: unable to parse -a "* ]]
	done
	run -125 --separate-stderr "$EGRESS" -t -f 3
	[ "${stderr_lines[0]}" = "sharness-exec-egress: fatal: no -a HOST:PORT: nothing to serve" ]
	# Check mode, on a listener of its own.
	run -0 python3 -c '
import os, socket, sys
l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen(1); l.set_inheritable(True)
os.execv(sys.argv[1], [sys.argv[1], "-t", "-a", "good.test:443", "-f", str(l.fileno())])' "$EGRESS"
	[[ "$output" == "sharness-exec-egress: would serve 1 allowed host on descriptor "*", confined" ]]
}
