#!/usr/bin/env bats
# What the egress step refused and allowed, said (issue 40, DESIGN.md 4.9):
# `sharness-exec run` of a policy that names hosts, in the fake internet
# of helpers/egress.bash, as root and as nobody. --report's "egress" lists
# each refused host (port, count, reason) and each allowed one
# (connections, bytes each way: the bytes a client counted on its own
# socket, after its CONNECT, to the byte); --explain names each refused
# host with the network.hosts entry that allows it, and says of a tool
# that ignores the proxy variables (a direct connect, its own DNS query,
# Node's fetch) that the run has no route but the proxy (on main it was
# told to add connect_tcp_ports); without either, one line at the end
# names the refused hosts with their ports; learn --allow-network proposes
# the refused hosts. Each refusal is checked from the outside too: the
# world's request log. (On main, --report with network.hosts exited 125:
# the egress step took no -E.)
# not tested here: a report whose drain runs out (TALLY_DRAIN_MS: a
# destination that holds a connection open after the run ended), and
# more hosts than TALLY_MAX.
load ../helpers/load
load ../helpers/egress

setup_file() { fakenet_file; }

teardown_file() { fakenet_down; }

setup() {
	fakenet_need
	cp "$EG/ca.pem" "$TMP/ca.pem"
	chmod 644 "$TMP/ca.pem"
	mkdir -p "$TMP/r"
	chmod 1777 "$TMP/r"
	: >"$EG/dns.log"
	: >"$EG/web.log"
	chain_policy egressreport '{"hosts":["good.test:443"]}' '"/etc","'"$TMP"'"' '' '' '' \
		',"tmpfs":["/tmp"]'
}

teardown() { teardown_tmp; }

# confined MODE ARGS...: `sharness-exec run ARGS...` of the policy as MODE
# (root or nobody), from the caller's side H, whose resolver is the fake DNS.
confined() {
	local m=$1 as=()
	shift
	[ "$m" = nobody ] && as=(setpriv --reuid="$NOBODY_UID" --regid="$NOBODY_UID" --clear-groups)
	ip netns exec "$NS-h" unshare -m sh -c \
		'mount --bind "$0/resolv.conf" /etc/resolv.conf && exec "$@"' "$EG" \
		"${as[@]}" "$SHARNESS_EXEC" run -p "$TMP/p.json" "$@"
}

# COUNTED: a client of the proxy that counts its own bytes: CONNECT HOST:443,
# then TLS over its own socket through a memory BIO, GET PATH, read to the
# end; prints "SENT RECEIVED BODY", the raw bytes after the CONNECT head and
# its answer, and the body's length.
COUNTED='
import os, socket, ssl, sys
host, path, ca = sys.argv[1:4]
s = socket.create_connection(("127.0.0.1", 3128))
s.sendall(("CONNECT %s:443 HTTP/1.1\r\nHost: %s:443\r\n\r\n" % (host, host)).encode())
head = b""
while b"\r\n\r\n" not in head:
    b = s.recv(1)
    assert b, head
    head += b
assert head.startswith(b"HTTP/1.1 200"), head
ctx = ssl.create_default_context(cafile=ca)
inc, out = ssl.MemoryBIO(), ssl.MemoryBIO()
tls = ctx.wrap_bio(inc, out, server_hostname=host)
sent = received = 0
def flush():
    global sent
    data = out.read()
    if data:
        s.sendall(data)
        sent += len(data)
def fill():
    global received
    data = s.recv(65536)
    if not data:
        inc.write_eof()
    received += len(data)
    inc.write(data) if data else None
while True:
    try:
        tls.do_handshake()
        break
    except ssl.SSLWantReadError:
        flush()
        fill()
flush()
tls.write(("GET %s HTTP/1.0\r\nHost: %s\r\n\r\n" % (path, host)).encode())
flush()
reply = b""
while True:
    try:
        d = tls.read(65536)
        if not d:
            break
        reply += d
    except ssl.SSLWantReadError:
        fill()
    except (ssl.SSLEOFError, ssl.SSLZeroReturnError):
        break
while s.recv(65536):
    pass
body = reply.split(b"\r\n\r\n", 1)[1]
print(sent, received, len(body))
'

t_report() {
	local m=$1 size=123457 counted
	head -c "$size" /dev/urandom >"$EG/www/blob"
	chmod 644 "$EG/www/blob"
	run --separate-stderr confined "$m" --report "$TMP/r/r.json" -- sh -c '
		curl -sS --max-time 20 --cacert "$1" https://other.test/ && exit 9
		curl -sS --max-time 20 --cacert "$1" https://good.test:8443/ && exit 9
		python3 -c "$2" good.test /files/blob "$1"' sh "$TMP/ca.pem" "$COUNTED"
	[ "$status" = 0 ] || { echo "$status: $output / $stderr"; false; }
	counted=$output
	[ "${counted##* }" = "$size" ]
	# The world saw the allowed request alone, and DNS no unlisted name.
	[ "$(cat "$EG/web.log")" = "good.test /files/blob" ]
	! grep -q other.test "$EG/dns.log"
	# The one line at the end names the refused hosts with their ports.
	[[ $stderr == *"sharness-exec-egress: warning: refused: other.test:443 (not listed), good.test:8443 (the name is listed, not this port); network.hosts lists"* ]] ||
		{ echo "$stderr"; false; }
	run -0 python3 - "$TMP/r/r.json" <<-'EOF'
	import json, sys
	e = json.load(open(sys.argv[1]))["egress"]
	assert sorted(e) == ["allowed", "complete", "more_allowed", "more_refused", "refused"], e
	print(e["complete"], e["more_refused"], e["more_allowed"])
	for h in e["refused"]:
	    print("refused", h["host"], h["port"], h["count"], h["reason"])
	for h in e["allowed"]:
	    print("allowed", h["host"], h["port"], h["connections"], h["bytes_sent"], h["bytes_received"])
	EOF
	[ "${lines[0]}" = "True 0 0" ]
	[ "${lines[1]}" = "refused other.test 443 1 not listed" ]
	[ "${lines[2]}" = "refused good.test 8443 1 the name is listed, not this port" ]
	# the bytes each way, as the client counted them on its socket
	[ "${lines[3]}" = "allowed good.test 443 1 ${counted% *}" ] || { echo "$output / $counted"; false; }
	[ "${#lines[@]}" = 4 ]
	# The target holds neither end of the report's pipe: its descriptors
	# are those it has without --report.
	local fds='
import os
def open_(fd):
    try:
        os.fstat(fd)
        return True
    except OSError:
        return False
print([fd for fd in range(1024) if open_(fd)])' bare
	run -0 --separate-stderr confined "$m" -- python3 -c "$fds"
	bare=$output
	[[ $bare == "[0, 1, 2"* ]]
	run -0 --separate-stderr confined "$m" --report "$TMP/r/fd.json" -- python3 -c "$fds"
	[ "$output" = "$bare" ]
		# Without the egress step, the key is there and null.
	chain_policy egressreport '"none"' '"/etc"' '' '' ''
	run -0 confined "$m" --report "$TMP/r/n.json" -- true
	run -0 python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["egress"])' "$TMP/r/n.json"
	[ "$output" = None ]
}

# The server parses what the target sends; it holds the listener, its
# lines to the step and, under --report, the report's pipe, and nothing
# else of the chain: not the environment's or the walls' memfd, not the
# report's directory, not the status pipe. (Before, it held them all.)
t_server_fds() {
	local m=$1 pid server= links
	chain_policy egressreport '{"hosts":["good.test:443"]}' '"/etc","'"$TMP"'"' \
		'"'"$TMP/r"'"' '' '' ',"tmpfs":["/tmp"]'
	# both FIFOs held open both ways here: no open blocks if the run fails
	mkfifo -m 666 "$TMP/r/up" "$TMP/r/go"
	exec 8<>"$TMP/r/up" 9<>"$TMP/r/go"
	confined "$m" --report "$TMP/r/fd.json" -- \
		/bin/sh -c "echo up >$TMP/r/up; read x <$TMP/r/go" 2>"$TMP/err" 8>&- 9>&- &
	read -r -t 60 x <&8 || { cat "$TMP/err"; false; }
	[ "$x" = up ]
	# the server: of the job's descendants, the egress process whose
	# parent is one too (the step)
	local todo=$! parent
	while [ -n "$todo" ]; do
		set -- $todo
		parent=$1 todo=${todo#"$1"}
		for pid in $(cat /proc/"$parent"/task/*/children 2>/dev/null); do
			todo="$todo $pid"
			[ "$(cat "/proc/$pid/comm")" = sharness-exec-e ] &&
				[ "$(cat "/proc/$parent/comm")" = sharness-exec-e ] && server=$pid
		done
		todo=${todo# }
	done
	# what it holds above the standard three
	links=$(for f in /proc/"$server"/fd/*; do
		[ "${f##*/}" -gt 2 ] && readlink "$f"
	done | sed 's/:\[[0-9]*\]//' | sort)
	echo go >&9
	wait $!
	exec 8>&- 9>&-
	[ -n "$server" ]
	# the listener, and two pipes: its lines to the step, and the report's
	[ "$links" = "pipe
pipe
socket" ] || { echo "$links"; false; }
}

@test "the egress server holds the listener and its lines, nothing else of the chain (root)" { t_server_fds root; }
@test "the egress server holds the listener and its lines, nothing else of the chain (nobody)" { t_server_fds nobody; }

@test "--report lists each refused host with its port, count and reason, and the allowed one with its bytes each way (root)" { t_report root; }
@test "--report lists each refused host with its port, count and reason, and the allowed one with its bytes each way (nobody)" { t_report nobody; }

t_explain() {
	local m=$1
	run --separate-stderr confined "$m" --explain -- sh -c '
		curl -sS --max-time 20 --cacert "$1" https://other.test/ && exit 9
		curl -sS --max-time 20 --cacert "$1" https://other.test/again && exit 9
		curl -sS --max-time 20 --cacert "$1" https://good.test:8443/ && exit 9
		python3 -c "import socket; socket.create_connection((\"203.0.113.10\", 443), 10)" && exit 9
		exit 0' sh "$TMP/ca.pem"
	[ "$status" = 0 ] || { echo "$status: $output / $stderr"; false; }
	[ ! -s "$EG/web.log" ]
	local x=sharness-exec-egress e=sharness-exec-explain
	grep -Fqx "$x: explain: proxy connect other.test:443: not listed, refused by the policy, 2 times; allow with \"network\": {\"hosts\": [\"other.test:443\"]}" <<<"$stderr" ||
		{ echo "$stderr"; false; }
	grep -Fqx "$x: explain: proxy connect good.test:8443: the name is listed, not this port, refused by the policy, 1 time; allow with \"network\": {\"hosts\": [\"good.test:8443\"]}" <<<"$stderr"
	grep -Eq "^$e: explain: TCP connect 203\.0\.113\.10:443: ENETUNREACH \([^)]*\), hidden by the policy, 1 time; no policy change allows it: the run has no route but the proxy at 127\.0\.0\.1:3128: this tool connected directly" <<<"$stderr" ||
		{ echo "$stderr"; false; }
	grep -Fq "(it ignored HTTPS_PROXY;" <<<"$stderr"
	# in place of the one line
	! grep -q 'warning: refused:' <<<"$stderr"
	# no port to add: a hosts policy has none
	! grep -q connect_tcp_ports <<<"$stderr"
}

@test "--explain names each refused host, its port and count, and the entry of network.hosts that allows it; a direct connect has no route but the proxy (root)" { t_explain root; }
@test "--explain names each refused host, its port and count, and the entry of network.hosts that allows it; a direct connect has no route but the proxy (nobody)" { t_explain nobody; }

t_node() {
	local m=$1
	require_feature tool:node
	chain_policy egressreport '{"hosts":["good.test:443"]}' '"/etc","'"$TMP"'"' '' '' '' \
		',"tmpfs":["/tmp"]'
	# Node's fetch ignores the proxy variables: it fails closed.
	run --separate-stderr confined "$m" --explain --report "$TMP/r/node.json" -- env \
		NODE_EXTRA_CA_CERTS="$TMP/ca.pem" node -e '
		fetch("https://good.test/").then(() => process.exit(0),
			e => { console.log("failed", e.cause && e.cause.code); process.exit(3); })'
	[ "$status" = 3 ] || { echo "$status: $output / $stderr"; false; }
	[[ $output == "failed "* ]]
	[ ! -s "$EG/web.log" ]
	# It asked DNS itself (the fake server saw nothing: no route), or
	# connected directly: explain says the run has no route but the proxy.
	grep -Eq "^sharness-exec-explain: explain: (UDP|TCP) connect [^ ]+: E[A-Z]+ \([^)]*\), hidden by the policy, [0-9]+ times?; no policy change allows it: the run has no route but the proxy at 127.0.0.1:3128: this tool (asked a DNS server itself|connected directly) instead of asking the proxy" <<<"$stderr" ||
		{ echo "$stderr"; false; }
	! grep -q good.test "$EG/dns.log"
	run -0 python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(r["egress"]["allowed"], r["egress"]["refused"], any("no route but the proxy" in (d["why"] or "") for d in r["denials"]))' "$TMP/r/node.json"
	[ "$output" = "[] [] True" ]
}

@test "Node's fetch, which ignores the proxy variables, fails closed, and --explain says why (root)" { t_node root; }
@test "Node's fetch, which ignores the proxy variables, fails closed, and --explain says why (nobody)" { t_node nobody; }

# learn --allow-network, from a base that names hosts: each host a round's
# egress step refused (not listed, or on another port) is proposed for
# network.hosts, and never added; without --allow-network, none is.
t_learn() {
	local m=$1 as=()
	[ "$m" = nobody ] && as=(setpriv --reuid="$NOBODY_UID" --regid="$NOBODY_UID" --clear-groups)
	mkdir -p "$TMP/proj"
	cp "$TMP/p.json" "$TMP/proj/base.json"
	printf '#!/bin/sh\ncurl -sS --max-time 20 --cacert %s https://good.test/ok\ncurl -sS --max-time 20 --cacert %s https://other.test/ || true\ncurl -sS --max-time 20 --cacert %s https://good.test:8443/ || true\n' \
		"$TMP/ca.pem" "$TMP/ca.pem" "$TMP/ca.pem" >"$TMP/proj/job.sh"
	chmod 755 "$TMP/proj/job.sh"
	[ "$m" = nobody ] && chown -R "$NOBODY_UID" "$TMP/proj"
	learn() {
		ip netns exec "$NS-h" unshare -m sh -c \
			'mount --bind "$0/resolv.conf" /etc/resolv.conf && cd "$1" && shift && exec "$@"' \
			"$EG" "$TMP/proj" "${as[@]}" env HOME=/nonexistent "$SHARNESS_EXEC" learn \
			-o draft.json --base base.json "$@" -- sh job.sh
	}
	run --separate-stderr learn --allow-network
	[ "$status" = 0 ] || { echo "$status: $output / $stderr"; false; }
	[[ $output == *'suggest network.hosts "other.test:443": proxy connect other.test:443: not listed'* ]]
	[[ $output == *'suggest network.hosts "good.test:8443": proxy connect good.test:8443: the name is listed, not this port'* ]]
	! grep -q 'other.test\|8443' "$TMP/proj/draft.json"
	grep -q '"good.test:443"' "$TMP/proj/draft.json"
	rm -f "$TMP/proj/draft.json"
	run -0 --separate-stderr learn
	! grep -q 'network.hosts' <<<"$output"
}

@test "learn --allow-network proposes the hosts the egress step refused, as suggestions (root)" { t_learn root; }
@test "learn --allow-network proposes the hosts the egress step refused, as suggestions (nobody)" { t_learn nobody; }
