#!/usr/bin/env bats
# launch's runtime, sharness-exec-launch (issue 29, DESIGN.md 4.8), as
# root: a session of two components, a TCP echo service (python3) and a
# key server that prints one line (its policy's network "none", which in a
# session is the session's loopback: it reaches the echo service too), and
# main, which reaches the first over the session's loopback, reads the
# second's line from SHARNESS_AI_READY_KMS, and finds its own name and
# home in the view's /etc/passwd; the certificates each role finds in its state
# directory verify under `openssl verify -x509_strict` against the
# session's CA and carry their SPIFFE URI (Go's crypto/x509 as well), and
# make a mutual-TLS exchange between two roles, where a client that expects
# another role refuses the server's valid certificate by its URI SAN; a role cannot read another's key or state directory,
# signal or ptrace another, or reach the host's network; after the launch
# returns, and after a SIGKILL to the launcher, nothing of the session is
# left (no process of a session uid, no lock held, no cgroup, no mount of
# its tmpfs); a component that is not ready makes the launch exit 126
# naming it; two launches at once get disjoint uids; a UNIX socket's
# readiness is probed in the component's view as the component, so a link
# it plants to a host socket leads nowhere; on a terminal ^Z stops main
# and the launch as one job of the shell, bg and fg resume it; a session of 64
# components, the most a manifest holds, runs and ends. Ports are fixed
# (7000): the session's network namespace is its own, so no other process
# on the machine can hold them. The roles' scripts wait on FIFOs the test
# writes, never on time.
# not tested here: freeze_when_ready (tests/launch-freeze.bats; its
# refusal without cgroup2 in tests/manifest.bats); a uid range that overlaps a passwd entry (the test
# would have to add a user above 65535).
load ../helpers/load
load ../helpers/svid
load ../helpers/launch

setup_file() { build_svid_check; }

# What main says of the echo service: "echo REPLY".
ECHO_PING='python3 -c "import socket; s = socket.create_connection((\"127.0.0.1\", 7000)); s.sendall(b\"ping\"); print(\"echo\", s.recv(64).decode())"'

setup() {
	launch_setup tool:python3 file:/usr/bin/python3
	lp=
	listener=
	printf '%s\n' 'import socket' 's = socket.socket()' \
		's.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)' \
		's.bind(("127.0.0.1", 7000))' 's.listen()' 'while True:' \
		'    c, _ = s.accept()' '    c.sendall(c.recv(64))' '    c.close()' >"$TMP/echo.py"
	# the key server's line: its uid, its certificate, and what the echo
	# service answers it: "none" is the session's loopback
	printf '%s\n' '#!/bin/sh' \
		"echo=\$($ECHO_PING)" \
		'printf "%s %s %s\n" "$(id -u)" "$(base64 -w0 "$SHARNESS_AI_CERT")" "$echo"' \
		'exec sleep infinity' >"$TMP/kms.sh"
	mkfifo -m 666 "$TMP/to-test" "$TMP/to-main"
	chmod 644 "$TMP/echo.py" "$TMP/kms.sh"
}

teardown() {
	[ -n "$lp" ] && kill -9 "$lp" 2>/dev/null
	[ -n "$listener" ] && kill "$listener" 2>/dev/null
	launch_unlock
	teardown_tmp
}

# manifest MAIN_SCRIPT [MAIN_NETWORK_PORTS] [MAIN_READ]: $TMP/m.json, the
# echo and kms components and main, which runs the script MAIN_SCRIPT
# (written to $TMP/main.sh); its hash in $H.
manifest() {
	printf '#!/bin/sh\n%s\n' "$1" >"$TMP/main.sh"
	chmod 755 "$TMP/main.sh"
	write_policy "$TMP/m.json" '{"launch":1,"id":"two","components":[
	 {"role":"echo","command":["/usr/bin/python3","'"$TMP"'/echo.py"],
	  "policy":{"pbp":1,"id":"echo","files":{"exec":['"$SYS"'],"read":["'"$TMP"'/echo.py"]},
	            "network":{"bind_tcp_ports":[7000]},"process":{"no_new_privs":true}},
	  "ready":{"tcp":7000},"identity":true},
	 {"role":"kms","command":["/bin/sh","'"$TMP"'/kms.sh"],
	  "policy":{"pbp":1,"id":"kms","files":{"exec":['"$SYS"'],
	            "read":["'"$TMP"'/kms.sh","'"$STATE"'/kms"]},
	            "network":"none","process":{"no_new_privs":true}},
	  "ready":{"stdout_line":true},"identity":true,"after":["echo"]}],
	 "main":{"role":"main","identity":true,
	  "policy":{"pbp":1,"id":"main","files":{"exec":['"$SYS"',"'"$TRYDIR"'","'"$TMP"'/main.sh"],
	            "read":["'"${3:-$STATE/main}"'"],
	            "write":["'"$TMP"'/to-test","'"$TMP"'/to-main"]},
	            "network":{"connect_tcp_ports":[7000'"${2:-}"']},"process":{"no_new_privs":true}}}}'
	H=$("$SHARNESS_EXEC" hash "$TMP/m.json")
}

# pem N FILE: the Nth certificate (from 1) in FILE.
pem() {
	awk -v n="$1" '/BEGIN CERTIFICATE/ { k++ } k == n { print } /END CERTIFICATE/ && k == n { exit }' "$2"
}

@test "a session of two: main reaches the echo service on the session's loopback and gets the key server's line" {
	manifest "echo \"kms \$SHARNESS_AI_READY_KMS\"; echo \"main \$(id -u)\"; $ECHO_PING; echo \"user \$(id -un) \$HOME \$USER\""
	run -0 --separate-stderr "$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$H" -- "$TMP/main.sh"
	[ "${lines[2]}" = "echo ping" ]
	# the view's /etc/passwd has main's own line: its name, its state directory
	[ "${lines[3]}" = "user main $STATE/main main" ]
	# the key server, whose policy's network is "none", reached it too
	[ "$(awk '$1 == "kms" { print $4, $5 }' <<<"$output")" = "echo ping" ]
	local kms main
	kms=$(awk '$1 == "kms" { print $2 }' <<<"$output")
	main=$(awk '$1 == "main" { print $2 }' <<<"$output")
	# each role a uid of its own, in the default range
	[ "$kms" -ge "$FIRST" ] && [ "$kms" -le "$LAST" ]
	[ "$main" -ge "$FIRST" ] && [ "$main" -le "$LAST" ]
	[ "$kms" != "$main" ]
	# the line is the key server's own: its uid and its certificate
	base64 -d <<<"$(awk '$1 == "kms" { print $3 }' <<<"$output")" >"$TMP/kms.pem"
	openssl x509 -in "$TMP/kms.pem" -noout
	nothing_left "$kms" "$main"
}

@test "each role's certificate verifies with openssl -x509_strict against the session's CA, with its SPIFFE URI" {
	manifest "echo \"kms \$SHARNESS_AI_READY_KMS\"; echo \"ca \$SHARNESS_AI_SESSION_CA\"; cat \"\$SHARNESS_AI_CA\" \"\$SHARNESS_AI_CERT\"; ls -ln \"\$(dirname \"\$SHARNESS_AI_KEY\")\""
	run -0 --separate-stderr "$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$H" -- "$TMP/main.sh"
	printf '%s\n' "$output" >"$TMP/out"
	pem 1 "$TMP/out" >"$TMP/ca.pem"
	pem 2 "$TMP/out" >"$TMP/main.pem"
	base64 -d <<<"$(awk '$1 == "kms" { print $3 }' <<<"$output")" >"$TMP/kms.pem"
	run -0 openssl verify -x509_strict -CAfile "$TMP/ca.pem" "$TMP/main.pem" "$TMP/kms.pem"
	[ "$output" = "$TMP/main.pem: OK
$TMP/kms.pem: OK" ]
	local session
	session=$(openssl x509 -in "$TMP/ca.pem" -noout -ext subjectAltName | sed -n 's/^ *URI:spiffe:\/\///p')
	[[ $session =~ ^[0-9a-f]{32}$ ]]
	# beside it, the role's host names and the loopback's addresses
	openssl x509 -in "$TMP/main.pem" -noout -ext subjectAltName |
		grep -qx " *URI:spiffe://$session/main, DNS:main, DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1"
	openssl x509 -in "$TMP/kms.pem" -noout -ext subjectAltName |
		grep -qx " *URI:spiffe://$session/kms, DNS:kms, DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1"
	# SHARNESS_AI_SESSION_CA is the CA certificate's SHA-256
	grep -qx "ca sha256:$(openssl x509 -in "$TMP/ca.pem" -outform DER | sha256sum | cut -c1-64)" "$TMP/out"
	# key, certificate and CA: the role's uid's, mode 0400, nothing else
	[ "$(grep -c '^-r-------- 1 \([0-9]*\) \1 ' "$TMP/out")" = 3 ]
	if [ -n "${SVID_CHECK:-}" ]; then
		run -0 "$SVID_CHECK" leaf "$TMP/ca.pem" "$TMP/kms.pem" "spiffe://$session/kms" 86400
		run -0 "$SVID_CHECK" leaf "$TMP/ca.pem" "$TMP/main.pem" "spiffe://$session/main" 86400
	fi
}

@test "mutual TLS between two roles with the files issued to them; a client that expects another role refuses the server's valid certificate" {
	require_feature tool:go
	cp "$SVID_CHECK" "$TMP/svid-check"
	chmod 755 "$TMP/svid-check"
	printf '#!/bin/sh\n%s\n' "$TMP/svid-check connect 7443 tls; echo \"rc \$?\"
		$TMP/svid-check connect 7443 kms 2>&1; echo \"rc \$?\"" >"$TMP/main.sh"
	chmod 755 "$TMP/main.sh"
	local exec='"exec":['"$SYS"',"'"$TMP"'/svid-check","'"$TMP"'/main.sh"]'
	write_policy "$TMP/t.json" '{"launch":1,"id":"tls","components":[
	 {"role":"tls","command":["'"$TMP"'/svid-check","serve","7443","main"],"identity":true,
	  "policy":{"pbp":1,"id":"t","files":{'"$exec"',"read":["'"$STATE"'/tls"]},
	            "network":{"bind_tcp_ports":[7443]},"process":{"no_new_privs":true}},
	  "ready":{"tcp":7443}}],
	 "main":{"role":"main","identity":true,
	  "policy":{"pbp":1,"id":"m","files":{'"$exec"',"read":["'"$STATE"'/main"]},
	            "network":{"connect_tcp_ports":[7443]},"process":{"no_new_privs":true}}}}'
	run -0 --separate-stderr "$SHARNESS_EXEC" launch -m "$TMP/t.json" -H "$("$SHARNESS_EXEC" hash "$TMP/t.json")" -- "$TMP/main.sh"
	local session
	session=$(sed -n 's|^ok: mutual TLS with spiffe://\([0-9a-f]*\)/tls: "pong to ping"$|\1|p' <<<"$output")
	[[ $session =~ ^[0-9a-f]{32}$ ]]
	[ "${lines[1]}" = "rc 0" ]
	[[ ${lines[2]} == *"URI SAN is [spiffe://$session/tls], want spiffe://$session/kms" ]]
	[ "${lines[3]}" = "rc 1" ]
}


@test "a role cannot read another's key or state directory, nor signal or ptrace another" {
	manifest "try=$TRYDIR/try-syscall; to=$TMP/to-test; from=$TMP/to-main
	echo \"own-key \$(\$try read \"\$SHARNESS_AI_KEY\")\"
	echo \"kms-key \$(\$try read $STATE/kms/key.pem)\"
	echo \"kms-dir \$(\$try list $STATE/kms)\"
	echo \"kms-new \$(\$try create $STATE/kms/planted)\"
	echo \"ready \$SHARNESS_AI_READY_KMS\" >\$to
	read -r pid <\$from
	sleep infinity & own=\$!
	echo \"kill-own \$(\$try kill \$own)\"
	echo \"kill-kms \$(\$try kill9 \$pid)\"
	echo \"ptrace-kms \$(\$try ptrace \$pid)\"
	kill \$own
	echo done >\$to
	read -r w <\$from" "" "$STATE"
	fifos
	"$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$H" -- "$TMP/main.sh" >"$TMP/out" 2>"$TMP/err" &
	lp=$!
	local word kms pid
	hear word kms _
	[ "$word" = ready ]
	# the key server's sleep, seen from outside: alive before and after
	pid=$(pgrep -u "$kms" -x sleep)
	kill -0 "$pid"
	echo "$pid" >&8
	hear word
	[ "$word" = done ]
	kill -0 "$pid"
	[ "$(stat -c %u "/proc/$pid")" = "$kms" ]
	echo end >&8
	wait "$lp"
	lp=
	cat "$TMP/out" "$TMP/err"
	grep -qx 'own-key ok' "$TMP/out"
	grep -qx 'kms-key refused: Permission denied' "$TMP/out"
	grep -qx 'kms-dir refused: Permission denied' "$TMP/out"
	grep -qx 'kms-new refused: Permission denied' "$TMP/out"
	grep -qx 'kill-own ok' "$TMP/out"
	# another role's processes are not in main's pid namespace at all
	grep -qx 'kill-kms refused: No such process' "$TMP/out"
	grep -qx 'ptrace-kms refused: No such process' "$TMP/out"
	nothing_left "$kms"
}

@test "a role cannot reach the host's network: the session's loopback is its own" {
	python3 -c 'import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
open(sys.argv[1], "w").write("%d\n" % s.getsockname()[1])
log = open(sys.argv[2], "a")
while True:
    c, _ = s.accept(); d = c.recv(64); log.write(d.decode() + "\n"); log.flush(); c.sendall(d); c.close()' \
		"$TMP/to-test" "$TMP/log" &
	listener=$!
	local port
	fifos
	hear port
	# bare, from the host, the listener answers
	client() {
		python3 -c 'import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1]))); s.sendall(sys.argv[2].encode()); print(s.recv(64).decode())' "$@"
	}
	[ "$(client "$port" bare)" = bare ]
	manifest "echo \"host \$($TRYDIR/try-syscall connect $port)\"" ",$port"
	run -0 --separate-stderr "$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$H" -- "$TMP/main.sh"
	[ "$output" = "host refused: Connection refused" ]
	# the listener took connections in order: this one's answer means it
	# has seen every earlier one, and none came from the session
	[ "$(client "$port" last)" = last ]
	[ "$(cat "$TMP/log")" = "bare
last" ]
}

@test "after a SIGKILL to the launcher the watcher tears the session down: no process, lock, cgroup or tmpfs left" {
	manifest "echo \"main \$(id -u) \$SHARNESS_AI_READY_KMS\" >$TMP/to-test; read -r w <$TMP/to-main"
	fifos
	"$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$H" -- "$TMP/main.sh" >"$TMP/out" 2>"$TMP/err" &
	lp=$!
	local word main kms uid
	hear word main kms _
	[ "$word" = main ]
	# the session runs: its uids' processes, locks held, a cgroup
	[ -n "$(session_procs)" ]
	! flock -n "$UIDS/$kms" true
	[ -n "$(find /sys/fs/cgroup -maxdepth 6 -name 'sharness-exec-session-*')" ]
	kill -9 "$lp"
	local rc=0
	wait "$lp" || rc=$?
	lp=
	[ "$rc" = 137 ]
	# the watcher releases the locks last: once it has, all else is gone
	for uid in "$kms" "$main"; do
		flock "$UIDS/$uid" true
	done
	nothing_left "$kms" "$main"
}

@test "a component that is not ready in time, or ends before it is, makes the launch exit 126 naming it; main never runs" {
	write_policy "$TMP/never.json" '{"launch":1,"id":"never","components":[
	 {"role":"silent","command":["/bin/sleep","infinity"],
	  "policy":{"pbp":1,"id":"s","files":{"exec":['"$SYS"']},"network":"none","process":{"no_new_privs":true}},
	  "ready":{"stdout_line":true,"timeout_seconds":1}},
	 {"role":"late","command":["/bin/true"],"after":["silent"],
	  "policy":{"pbp":1,"id":"l","files":{"exec":['"$SYS"']},"network":"none","process":{"no_new_privs":true}}}],
	 "main":{"role":"main","policy":{"pbp":1,"id":"m","files":{"exec":['"$SYS"']},"network":"none","process":{"no_new_privs":true}}}}'
	run -126 --separate-stderr "$SHARNESS_EXEC" launch -m "$TMP/never.json" \
		-H "$("$SHARNESS_EXEC" hash "$TMP/never.json")" -- /bin/echo main ran
	[ -z "$output" ]
	[ "${stderr_lines[-1]}" = 'sharness-exec-launch: fatal: component "silent" is not ready within 1 s: no line on its stdout' ]
	sed -i 's|"/bin/sleep","infinity"|"/bin/false"|; s|"stdout_line":true|"tcp":7000|' "$TMP/never.json"
	run -126 --separate-stderr "$SHARNESS_EXEC" launch -m "$TMP/never.json" \
		-H "$("$SHARNESS_EXEC" hash "$TMP/never.json")" -- /bin/echo main ran
	[ -z "$output" ]
	# with its status, and its last lines after it (tests/launch-daily.bats):
	# none, now that it starts in its state directory, which it may use
	[ "$stderr" = 'sharness-exec-launch: fatal: component "silent" ended before it was ready: exit status 1; it wrote no line' ]
	nothing_left
}

@test "a role that squats another's ready port first does not make that one ready: the launch exits 126 naming the port, main never runs" {
	# The attack of issue 37: "squat", whose "none" is the whole session
	# loopback, listens on db's ready port before db starts; db itself
	# never listens. The probe used to take squat's accept as db's.
	printf '%s\n' 'import socket, sys' 's = socket.socket()' \
		's.bind(("127.0.0.1", 7000))' 's.listen()' 'print("up", flush=True)' \
		'while True:' '    s.accept()[0].close()' >"$TMP/squat.py"
	chmod 644 "$TMP/squat.py"
	write_policy "$TMP/squat.json" '{"launch":1,"id":"squat","components":[
	 {"role":"squat","command":["/usr/bin/python3","'"$TMP"'/squat.py"],
	  "policy":{"pbp":1,"id":"s","files":{"exec":['"$SYS"'],"read":["'"$TMP"'/squat.py"]},
	            "network":"none","process":{"no_new_privs":true}},
	  "ready":{"stdout_line":true}},
	 {"role":"db","command":["/bin/sleep","infinity"],"after":["squat"],
	  "policy":{"pbp":1,"id":"d","files":{"exec":['"$SYS"']},
	            "network":{"bind_tcp_ports":[7000]},"process":{"no_new_privs":true}},
	  "ready":{"tcp":7000,"timeout_seconds":30}}],
	 "main":{"role":"main","policy":{"pbp":1,"id":"m","files":{"exec":['"$SYS"']},"network":"none","process":{"no_new_privs":true}}}}'
	run -126 --separate-stderr "$SHARNESS_EXEC" launch -m "$TMP/squat.json" \
		-H "$("$SHARNESS_EXEC" hash "$TMP/squat.json")" -- /bin/echo main ran
	[ -z "$output" ]
	printf '%s\n' "${stderr_lines[@]}" | grep -qxF 'sharness-exec-launch: fatal: component "db" is not ready: another uid listens on its TCP port 7000'
	nothing_left
}

@test "two launches at once get disjoint uids" {
	manifest "echo \"uids \$(id -u) \$SHARNESS_AI_READY_KMS\" >\$1; read -r w <\$2"
	mkfifo -m 666 "$TMP/b-to-test" "$TMP/b-to-main"
	sed -i "s|\"$TMP/to-test\",\"$TMP/to-main\"|&,\"$TMP/b-to-test\",\"$TMP/b-to-main\"|" "$TMP/m.json"
	H=$("$SHARNESS_EXEC" hash "$TMP/m.json")
	fifos
	exec 5<>"$TMP/b-to-test" 6<>"$TMP/b-to-main"
	"$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$H" -- "$TMP/main.sh" "$TMP/to-test" "$TMP/to-main" \
		>"$TMP/a.out" 2>"$TMP/a.err" &
	lp=$!
	local a1 a2 b1 b2 word lb
	hear word a1 a2 _
	"$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$H" -- "$TMP/main.sh" "$TMP/b-to-test" "$TMP/b-to-main" \
		>"$TMP/b.out" 2>"$TMP/b.err" &
	lb=$!
	read -r -t 60 -u 5 word b1 b2 _
	echo "a: $a1 $a2 b: $b1 $b2"
	[ -n "$a1" ] && [ -n "$a2" ] && [ -n "$b1" ] && [ -n "$b2" ]
	[ "$(printf '%s\n' "$a1" "$a2" "$b1" "$b2" | sort -u | wc -l)" = 4 ]
	echo end >&8
	echo end >&6
	wait "$lp"
	lp=
	wait "$lb"
	nothing_left "$a1" "$a2" "$b1" "$b2"
}

@test "a UNIX socket's readiness is probed in the component's view, as the component: a link it plants to a host socket is not followed" {
	local unix='{"pbp":1,"id":"u","files":{"exec":['"$SYS"'],"write":["'"$STATE"'/u"]},"network":"none","process":{"no_new_privs":true}}'
	printf '%s\n' 'import socket, sys' 's = socket.socket(socket.AF_UNIX)' 's.bind(sys.argv[1])' \
		's.listen()' 'while True:' '    s.accept()[0].close()' >"$TMP/unix.py"
	chmod 644 "$TMP/unix.py"
	unix_manifest() {
		write_policy "$TMP/u.json" '{"launch":1,"id":"u","components":[
		 {"role":"u","command":'"$1"',"policy":'"${unix/\"exec\":\[/\"read\":[\"$TMP/unix.py\"],\"exec\":[}"',
		  "ready":{"unix":"'"$STATE"'/u/s","timeout_seconds":'"$2"'}}],
		 "main":{"role":"main","policy":{"pbp":1,"id":"m","files":{"exec":['"$SYS"']},"network":"none","process":{"no_new_privs":true}}}}'
		H=$("$SHARNESS_EXEC" hash "$TMP/u.json")
	}
	unix_manifest '["/usr/bin/python3","'"$TMP"'/unix.py","'"$STATE"'/u/s"]' 20
	run -0 --separate-stderr "$SHARNESS_EXEC" launch -m "$TMP/u.json" -H "$H" -- /bin/echo main ran
	[ "$output" = "main ran" ]
	# A socket on the host that any uid may reach, and a component that
	# only plants a link to it where its ready socket should be.
	mkdir -m 777 "$TMP/h"
	python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen()
open(sys.argv[2], "w").write("up\n")
log = open(sys.argv[3], "a")
while True:
    c, _ = s.accept(); log.write(c.recv(64).decode() + "\n"); log.flush(); c.sendall(b"x"); c.close()' \
		"$TMP/h/host.sock" "$TMP/to-test" "$TMP/log" &
	listener=$!
	local up
	fifos
	hear up
	chmod 777 "$TMP/h/host.sock"
	uclient() {
		python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(sys.argv[2].encode()); s.recv(1)' "$@"
	}
	# bare, even uid 65534 reaches it
	as_nobody /usr/bin/python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"bare"); s.recv(1)' "$TMP/h/host.sock"
	unix_manifest '["/bin/sh","-c","ln -s '"$TMP"'/h/host.sock '"$STATE"'/u/s && exec sleep infinity"]' 1
	run -126 --separate-stderr "$SHARNESS_EXEC" launch -m "$TMP/u.json" -H "$H" -- /bin/echo main ran
	[ -z "$output" ]
	[ "${stderr_lines[-1]}" = "sharness-exec-launch: fatal: component \"u\" is not ready within 1 s: \"$STATE/u/s\" accepts no connection" ]
	uclient "$TMP/h/host.sock" last
	[ "$(cat "$TMP/log")" = "bare
last" ]
	nothing_left
}

@test "a SIGTERM to the launch reaches main, and the launch ends as main did: by SIGTERM, nothing left" {
	manifest "echo \"up \$(id -u)\" >$TMP/to-test; exec sleep infinity"
	fifos
	"$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$H" -- "$TMP/main.sh" >"$TMP/out" 2>"$TMP/err" &
	lp=$!
	local word main rc=0
	hear word main
	[ "$word" = up ]
	kill -TERM "$lp"
	wait "$lp" || rc=$?
	lp=
	[ "$rc" = 143 ]
	nothing_left "$main"
}

@test "a component that ends while main runs gets main a SIGTERM and the launch 126, naming it" {
	write_policy "$TMP/short.json" '{"launch":1,"id":"short","components":[
	 {"role":"short","command":["/bin/sh","-c","echo ready; read -r w <'"$TMP"'/to-main; exit 3"],
	  "policy":{"pbp":1,"id":"s","files":{"exec":['"$SYS"'],"read":["'"$TMP"'/to-main"]},"network":"none","process":{"no_new_privs":true}},
	  "ready":{"stdout_line":true}}],
	 "main":{"role":"main","policy":{"pbp":1,"id":"m","files":{"exec":['"$SYS"'],"write":["'"$TMP"'/to-main","'"$TMP"'/to-test"]},
	  "network":"none","process":{"no_new_privs":true}}}}'
	# main lets the component end, then waits for ever: the SIGTERM ends it
	run -126 --separate-stderr "$SHARNESS_EXEC" launch -m "$TMP/short.json" \
		-H "$("$SHARNESS_EXEC" hash "$TMP/short.json")" -- /bin/sh -c "echo go >$TMP/to-main; exec sleep infinity"
	# (its last lines after it: tests/launch-daily.bats)
	[[ $stderr == *'sharness-exec-launch: fatal: component "short" ended (exit 3) while main ran'* ]]
	nothing_left
}

@test "the launcher refuses a caller who is not root, a uid range over systemd's or too small, a directory to write outside the session" {
	require_feature nobody
	run -125 --separate-stderr as_nobody "$HELPERDIR/sharness-exec-launch" -F 3 --manifest /dev/null \
		--expect-hash "sha256:$(printf '0%.0s' {1..64})" -- true 3</dev/null
	[ "$stderr" = "sharness-exec-launch: fatal: launch needs root: it makes a uid for each component. Nothing ran.
hint: run it as root (sudo)" ]
	manifest "true"
	run -125 --separate-stderr "$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$H" --uid-range 600000-600100 -- true
	[ "$stderr" = "sharness-exec-launch: fatal: the uid range 600000-600100 overlaps systemd's container range 524288-1879048191. Nothing ran.
hint: choose another range with --uid-range FIRST-LAST" ]
	run -125 --separate-stderr "$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$H" --uid-range 65000-70000 -- true
	[[ $stderr == "sharness-exec-launch: fatal: --uid-range \"65000-70000\": not FIRST-LAST with 65536 <= FIRST"* ]]
	# a directory to write outside the session's tmpfs: what the role's
	# uid left there would outlive the session, owned by a uid that a later
	# one gets
	mkdir -m 777 "$TMP/w"
	sed 's|"'"$TMP"'/to-test"|"'"$TMP"'/w"|' "$TMP/m.json" >"$TMP/w.json"
	chmod 644 "$TMP/w.json"
	run -125 --separate-stderr "$SHARNESS_EXEC" launch -m "$TMP/w.json" -H "$("$SHARNESS_EXEC" hash "$TMP/w.json")" -- true
	[ "$stderr" = "sharness-exec-launch: fatal: main \"main\": files.write[0] \"$TMP/w\" is a directory outside the session's tmpfs: what a uid of the session's leaves there would outlive it. Nothing ran.
hint: write beneath /run/sharness-exec/session/ROLE, the role's state directory, or use files.tmpfs" ]
	[ -z "$(ls -A "$TMP/w")" ]
	# a range of two uids is too few for three roles: 126, nothing ran
	run -126 --separate-stderr "$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$H" \
		--uid-range 2000000000-2000000001 -- true
	[ "${stderr_lines[0]}" = 'sharness-exec-launch: fatal: no free uid left in 2000000000-2000000001 for "main"' ]
	[ -z "$(session_procs)" ]
	flock -n "$UIDS/2000000000" true
}

@test "on a terminal main is in the foreground: it reads the terminal, and a ^C there ends it and the launch (130), nothing left" {
	require_feature pty
	manifest "read -r x; echo \"got \$x\"; echo \"up \$(id -u)\" >$TMP/to-test; exec sleep infinity"
	mkfifo "$TMP/tty-in"
	fifos
	exec 9<>"$TMP/tty-in"
	"${SCRIPT[@]}" -qefc "'$SHARNESS_EXEC' launch -m '$TMP/m.json' -H '$H' -- '$TMP/main.sh'; echo status=\$?" \
		/dev/null <"$TMP/tty-in" >"$TMP/tty-out" 2>&1 &
	lp=$!
	local word main rc=0
	printf 'hello\n' >&9
	hear word main
	[ "$word" = up ]
	printf '\003' >&9
	wait "$lp" || rc=$?
	lp=
	exec 9>&-
	cat "$TMP/tty-out"
	grep -q '^got hello' "$TMP/tty-out"
	grep -q 'status=130' "$TMP/tty-out"
	nothing_left "$main"
}

# tty_shell MAIN_SCRIPT [&]: an interactive bash on a terminal of its own
# ($lp, script(1); 9 types on it) starts the launch of MAIN_SCRIPT, in
# the background with "&"; MAIN_SCRIPT first says "up UID" ($main); then
# $launcher is the launcher's pid.
tty_shell() {
	manifest "echo \"up \$(id -u)\" >$TMP/to-test; $1"
	mkfifo "$TMP/tty-in"
	fifos
	exec 9<>"$TMP/tty-in"
	"${SCRIPT[@]}" -qec "exec bash --norc --noprofile -i" /dev/null <"$TMP/tty-in" >"$TMP/tty-out" 2>&1 &
	lp=$!
	local word
	printf "'%s' launch -m '%s' -H '%s' -- '%s' %s\n" "$SHARNESS_EXEC" "$TMP/m.json" "$H" "$TMP/main.sh" "${2:-}" >&9
	hear word main
	[ "$word" = up ]
	launcher=$(pgrep -P "$(pgrep -P "$lp")")
}

# tty_stopped_shell_reads: the launcher stops (main read the terminal from
# the background), and the shell keeps the terminal: it still reads it.
tty_stopped_shell_reads() {
	local i word
	for i in $(seq 400); do
		[[ $(ps -o stat= -p "$launcher") == T* ]] && break
		sleep 0.05
	done
	[[ $(ps -o stat= -p "$launcher") == T* ]]
	printf 'echo alive >%s/to-test\n' "$TMP" >&9
	hear word
	[ "$word" = alive ]
}

# tty_fg_read_interrupt: fg gives main the terminal, it reads a line
# there, and a ^C there ends it and the launch, 130; nothing left.
tty_fg_read_interrupt() {
	local word x st
	printf 'fg\n' >&9
	printf 'typed\n' >&9
	hear word x
	[ "$word $x" = "read typed" ]
	printf '\003' >&9
	printf 'echo "status $?" >%s/to-test\n' "$TMP" >&9
	hear word st
	[ "$word $st" = "status 130" ]
	printf 'exit\n' >&9
	wait "$lp"
	lp=
	exec 9>&-
	nothing_left "$main"
}

@test "on a terminal ^Z stops main and the launch as a job of the shell (the components go on); bg and fg resume it, the terminal theirs as told; ^C ends it (130), nothing left" {
	require_feature pty
	local main launcher word x p
	tty_shell "read -r x <$TMP/to-main; echo \"resumed \$x\" >$TMP/to-test; read -r y; echo \"read \$y\" >$TMP/to-test; exec sleep infinity"
	# ^Z, then a line that the shell reads only once it has the terminal
	# back, which it has only once the launch stopped
	printf '\032' >&9
	printf 'jobs -l >%s/jobs; echo stopped >%s/to-test\n' "$TMP" "$TMP" >&9
	hear word
	[ "$word" = stopped ]
	cat "$TMP/jobs"
	grep -q 'Stopped' "$TMP/jobs"
	# main's processes are stopped, the echo service's (its chain too) not
	[ -n "$(ps -o stat= -u "$main")" ]
	[ -z "$(ps -o stat= -u "$main" | grep -v '^T')" ]
	p=$(pgrep -f -- "$TMP/echo.py" | paste -sd,)
	[ -n "$p" ] && [ -z "$(ps -o stat= -p "$p" | grep '^T')" ]
	# bg: main goes on without the terminal (what it reads from the FIFO
	# waited for it); its read of the terminal then stops it and the
	# launch again
	printf 'go\n' >&8
	printf 'bg\n' >&9
	hear word x
	[ "$word $x" = "resumed go" ]
	tty_stopped_shell_reads
	tty_fg_read_interrupt
}

@test "on a terminal a launch begun in the background leaves the shell the terminal; fg gives it main, ^C then ends it (130), nothing left" {
	require_feature pty
	local main launcher
	tty_shell "read -r y; echo \"read \$y\" >$TMP/to-test; exec sleep infinity" "&"
	# main's read of the terminal, from the background, stops it and the
	# launch
	tty_stopped_shell_reads
	tty_fg_read_interrupt
}

@test "a session of 64 components, the most a manifest holds, starts each, and main's end ends them all (its status): nothing left" {
	local c=() i main
	for ((i = 0; i < 64; i++)); do
		c+=('{"role":"c'"$i"'","command":["/bin/sh","-c","echo up; exec sleep infinity"],"ready":{"stdout_line":true},
		  "policy":{"pbp":1,"id":"c'"$i"'","files":{"exec":['"$SYS"']},"network":"none","process":{"no_new_privs":true}}}')
	done
	write_policy "$TMP/m.json" '{"launch":1,"id":"many","components":['"$(IFS=,; echo "${c[*]}")"'],
	 "main":{"role":"main","policy":{"pbp":1,"id":"main","files":{"exec":['"$SYS"'],
	  "write":["'"$TMP"'/to-test","'"$TMP"'/to-main"]},"network":"none","process":{"no_new_privs":true}}}}'
	H=$("$SHARNESS_EXEC" hash "$TMP/m.json")
	fifos
	# main says its uid, then waits while the test counts the components
	"$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$H" -- \
		/bin/sh -c 'id -u >"$0"; read -r x <"$1"; exit 7' "$TMP/to-test" "$TMP/to-main" 2>"$TMP/err" &
	lp=$!
	hear main
	# each component was ready (its line) before the next started: 64
	# uids besides main's run
	[ "$(session_procs | awk -v m="$main" '$1 != m { print $1 }' | sort -u | wc -l)" = 64 ]
	echo go >&8
	local rc=0
	wait "$lp" || rc=$?
	lp=
	[ "$rc" = 7 ]
	nothing_left "$main"
}

@test "a uid of the range that a process already runs as is passed over" {
	setpriv --reuid="$FIRST" --regid="$FIRST" --clear-groups -- sleep 1000 &
	listener=$!
	manifest "echo \"\$(id -u) \$SHARNESS_AI_READY_KMS\""
	run -0 --separate-stderr "$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$H" -- "$TMP/main.sh"
	local main kms
	read -r main kms _ <<<"$output"
	# uids go in manifest order, the lowest free first: echo, then kms
	# above it, then main; so echo's is above FIRST when kms's is FIRST + 2
	[ "$kms" -ge $((FIRST + 2)) ] && [ "$main" -gt "$kms" ]
	kill "$listener"
	wait "$listener" || true
	listener=
	nothing_left "$main" "$kms"
}
