#!/usr/bin/env bats
# network.hosts through the whole chain (issue 40, DESIGN.md 4.9):
# `sharness-exec run` of a policy that names hosts puts the egress step
# between netns and supervise; the target keeps a network namespace of its
# own (a loopback, the step's listener on 127.0.0.1:3128 and nothing
# else), and the proxy variables name the listener. A fake internet of the
# test's own namespaces (helpers/egress.bash): the caller runs in H, whose
# resolver is the fake DNS server; W holds good.test and other.test.
# Refusals are checked from the outside: the DNS log (no query for a name
# not listed), the web log (no request) and the step's one line at the end.
# As root, as nobody and as uid 1000.
# not tested here: the step's parsers and limits one by one (egress.bats
# runs it by hand for those); Node, Go, pip, npm and git through it.
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

teardown() { teardown_tmp; }

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
