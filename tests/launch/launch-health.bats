#!/usr/bin/env bats
# launch for daily use, continued (issue 41, DESIGN.md 4.8), as root:
# every role writes its own state directory without its policy listing it
# (run --state-dir), and no other role's; a component's health check (a
# TCP connect as its uid, an HTTP GET so, a command under its policy)
# that fails ends the session with 126 naming it and why (for HTTP: the
# status, no status line, a refused port, another uid's listener, no
# answer in time), and a healthy one (HTTP: 2xx, 3xx) leaves main alone;
# check validates health; --keep leaves the state directories and the status
# after a failure, until the next launch of the id; launch status shows
# each role's state.
# The roles' scripts wait on FIFOs, never on time: the test makes a
# component fail (it stops listening when told on a FIFO, a file appears)
# and waits on the launch's end; it looks at the session's tmpfs from
# outside, in the launcher's mount namespace, or where --keep mounted it.
# not tested: health checks of real services (postgres, redis: the
# issue's own tests); roles under --user as uid 1000 (launch runs as root,
# its roles under the session's uids, main's --user aside).
load ../helpers/load
load ../helpers/launch

setup() {
	launch_setup
	mkfifo -m 666 "$TMP/to-test" "$TMP/to-main"
}

teardown() {
	# a launch a failed test left: SIGTERM, which reaches main, ends it
	[ -z "${LAUNCHED:-}" ] || { kill -TERM "$LAUNCHED"; wait "$LAUNCHED"; } || true
	launch_unlock
	teardown_tmp
}

# role ROLE READ [FILES [REST]]: a component that runs $TMP/ROLE.sh, its
# policy's files.read that and READ (JSON strings), FILES more members of
# its files, REST more members of the component (JSON).
role() {
	printf '%s' '{"role":"'"$1"'","command":["/bin/sh","'"$TMP/$1"'.sh"],
	  "policy":{"pbp":1,"id":"'"$1"'","files":{"exec":['"$SYS"'],"read":["'"$TMP/$1"'.sh"'"${2:+,$2}"']'"${3:+,$3}"'},
	            "network":{"bind_tcp_ports":[7000,7001],"connect_tcp_ports":[7000,7001]},"process":{"no_new_privs":true}}'"${4:+,$4}"'}'
}

# manifest COMPONENTS: $TMP/m.json, COMPONENTS and main, which runs
# $TMP/main.sh and may write the test's FIFOs; its hash in $H.
manifest() {
	write_policy "$TMP/m.json" '{"launch":1,"id":"health","components":['"$1"'],
	 "main":{"role":"main","policy":{"pbp":1,"id":"main","files":{"exec":['"$SYS"'],
	  "read":["'"$TMP"'/main.sh"],"write":["'"$TMP"'/to-test","'"$TMP"'/to-main"]},
	  "network":{"connect_tcp_ports":[7000,7001]},"process":{"no_new_privs":true}}}}'
	H=$("$SHARNESS_EXEC" hash "$TMP/m.json")
}

@test "each role writes its own state directory unlisted, and no other role's, seen from outside the session" {
	require_feature tool:nsenter
	# a lists nothing of the session's; b reads the whole session dir
	script a 'echo a >mine; echo x >/run/sharness-exec/session/b/theirs || echo a-refused >&2' \
		'echo ready' 'exec sleep infinity'
	script b 'echo b >mine; ls /run/sharness-exec/session/a >/dev/null && echo b-sees-a >&2' \
		'echo x >/run/sharness-exec/session/a/theirs || echo b-refused >&2' 'echo ready' 'exec sleep infinity'
	script main 'echo m >/run/sharness-exec/session/main/mine && echo main-wrote' \
		"echo x >/run/sharness-exec/session/a/theirs || echo main-refused" \
		"echo go >$TMP/to-test; read x <$TMP/to-main"
	manifest "$(role a '' '' '"ready":{"stdout_line":true}'),
		$(role b '' '' '"ready":{"stdout_line":true}' | sed 's|"read":\[|&"'"$STATE"'",|')"
	grep -q '"read":\["'"$STATE"'",' "$TMP/m.json"
	exec 7<>"$TMP/to-test"
	"$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$H" -- /bin/sh "$TMP/main.sh" >"$TMP/out" 2>"$TMP/err" &
	LAUNCHED=$!
	read -r -t 60 -u 7 word
	[ "$word" = go ]
	# from outside: the launcher's mount namespace, the session's tmpfs
	run -0 nsenter -t "$LAUNCHED" -m find "$STATE" -mindepth 1 -printf '%P %u %m\n'
	[ "$(printf '%s\n' "$output" | sort | awk '{ print $1, $3 }')" = "$(printf '%s\n' 'a 700' 'a/mine 644' \
		'b 700' 'b/mine 644' 'main 700' 'main/mine 644' 'session.status 644')" ]
	# each file its role's uid's, and the roles' uids all different
	[ "$(printf '%s\n' "$output" | awk '{ split($1, p, "/"); if (o[p[1]] == "") o[p[1]] = $2; else if (o[p[1]] != $2) print "bad", $1 }
		END { print o["a"] != o["b"] && o["b"] != o["main"] && o["a"] != o["main"] }')" = 1 ]
	exec 8<>"$TMP/to-main"
	echo done >&8
	wait "$LAUNCHED"
	LAUNCHED=
	[ "$(cat "$TMP/out")" = "$(printf '%s\n' main-wrote main-refused)" ]
	grep -Fxq 'a| a-refused' "$TMP/err"
	grep -Fxq 'b| b-refused' "$TMP/err"
	[ -z "$(grep -F 'b-sees-a' "$TMP/err")" ]
	nothing_left
}

# $TMP/srv.py PORT FIFO: listens on PORT, accepting and closing each
# connection, until a line comes on FIFO (opened read-write, so that the
# open waits for no writer): then it stops listening, and waits for ever.
serve_until() {
	printf '%s\n' 'import os, select, signal, socket, sys' 's = socket.socket()' \
		's.bind(("127.0.0.1", int(sys.argv[1])))' 's.listen()' 'f = os.open(sys.argv[2], os.O_RDWR)' \
		'print("listening", flush=True)' \
		'while True:' '    r, _, _ = select.select([s, f], [], [])' \
		'    if f in r:' '        s.close()' '        break' '    c, _ = s.accept()' '    c.close()' \
		'while True:' '    signal.pause()' >"$TMP/srv.py"
}

# sicken: launch $TMP/m.json with a main that says go and waits for
# ever, then write "stop" to $TMP/stop (which makes the component sick):
# the launch ends 126 with nothing on stdout, its stderr in $TMP/err.
sicken() {
	local word rc=0
	script main "echo go >$TMP/to-test" 'exec sleep infinity'
	exec 7<>"$TMP/to-test"
	"$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$H" -- /bin/sh "$TMP/main.sh" >"$TMP/out" 2>"$TMP/err" &
	LAUNCHED=$!
	read -r -t 60 -u 7 word
	[ "$word" = go ]
	echo stop >"$TMP/stop"
	wait "$LAUNCHED" || rc=$?
	LAUNCHED=
	[ "$rc" = 126 ]
	[ ! -s "$TMP/out" ]
}

@test "a component that stops listening while main runs ends the session with 126 naming it; so does a failing health command" {
	require_feature tool:python3
	require_feature file:/usr/bin/python3
	serve_until
	mkfifo -m 666 "$TMP/stop"
	manifest "$(role srv '"'"$TMP"'/srv.py"' '"write":["'"$TMP"'/stop"]' \
		'"ready":{"stdout_line":true},"health":{"tcp":7000,"interval_ms":20,"fails":2}' |
		sed 's|"/bin/sh","'"$TMP"'/srv.sh"|"/usr/bin/python3","'"$TMP"'/srv.py","7000","'"$TMP"'/stop"|')"
	sicken
	[ "$(tail -n 1 "$TMP/err")" = 'sharness-exec-launch: fatal: component "srv" is unhealthy: TCP port 7000 accepts no connection, 2 checks in a row' ]
	# a health command, under the component's policy, that fails once
	# $TMP/sick is there
	mkdir -m 755 "$TMP/flags"
	script cmd 'echo up' 'exec sleep infinity'
	manifest "$(role cmd '"'"$TMP"'/flags"' '' \
		'"ready":{"stdout_line":true},"health":{"command":["/bin/sh","-c","test ! -e '"$TMP"'/flags/sick"],"interval_ms":20,"fails":1}')"
	"$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$H" -- /bin/sh "$TMP/main.sh" >"$TMP/out" 2>"$TMP/err" &
	LAUNCHED=$!
	read -r -t 60 -u 7 word
	[ "$word" = go ]
	touch "$TMP/flags/sick"
	rc=0
	wait "$LAUNCHED" || rc=$?
	LAUNCHED=
	[ "$rc" = 126 ]
	[ "$(tail -n 1 "$TMP/err")" = 'sharness-exec-launch: fatal: component "cmd" is unhealthy: its health command exited 1, 1 check in a row' ]
	nothing_left
}

@test "a healthy component does not disturb main: its checks run as its uid, under its policy, while main runs" {
	require_feature tool:python3
	require_feature file:/usr/bin/python3
	serve_until
	mkfifo -m 666 "$TMP/stop" "$TMP/ticks"
	# each check connects to 7000, then its command writes a tick (and its
	# uid) on $TMP/ticks, which main reads three times. The test holds the
	# FIFO open both ways all along: a check whose open found main's read
	# end about to close would otherwise write to no reader, and fail.
	exec 8<>"$TMP/ticks"
	manifest "$(role srv '"'"$TMP"'/srv.py"' '"write":["'"$TMP"'/stop","'"$TMP"'/ticks"]' \
		'"ready":{"stdout_line":true},"health":{"tcp":7000,"command":["/bin/sh","-c","echo tick $(id -u) >'"$TMP"'/ticks"],"interval_ms":20,"fails":1}' |
		sed 's|"/bin/sh","'"$TMP"'/srv.sh"|"/usr/bin/python3","'"$TMP"'/srv.py","7000","'"$TMP"'/stop"|')"
	sed -i 's|"read":\["'"$TMP"'/main.sh"|&,"'"$TMP"'/ticks"|' "$TMP/m.json"
	H=$("$SHARNESS_EXEC" hash "$TMP/m.json")
	run -0 --separate-stderr "$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$H" -- /bin/sh -c \
		"for i in 1 2 3; do read x <$TMP/ticks; echo \"\$x\"; done; echo main \$(id -u)"
	exec 8>&-
	[ "${#lines[@]}" = 4 ]
	[[ ${lines[3]} =~ ^main\ ([0-9]+)$ ]]
	local main_uid=${BASH_REMATCH[1]} uid
	for i in 0 1 2; do
		[[ ${lines[i]} =~ ^tick\ ([0-9]+)$ ]]
		uid=${BASH_REMATCH[1]}
		[ "$uid" -ge "$FIRST" ] && [ "$uid" -le "$LAST" ] && [ "$uid" != "$main_uid" ]
	done
	[ -z "$(grep unhealthy <<<"$stderr")" ]
	nothing_left
}

# $TMP/http.py PORT STATUS FIFO [TICKS]: an HTTP server on PORT that
# answers each request with STATUS (200, 302, ...; "garbage": a line that
# is no status line; "silent": nothing, holding the connection), and 503
# once a line comes on FIFO; with TICKS, it writes there, for each request,
# "STATUS PATH UID", UID the client socket's (/proc/net/tcp).
http_serve() {
	cat >"$TMP/http.py" <<'EOF'
import os, select, socket, sys
port, status, held = int(sys.argv[1]), sys.argv[2], []
s = socket.socket()
s.bind(("127.0.0.1", port))
s.listen()
f = os.open(sys.argv[3], os.O_RDWR)
t = os.open(sys.argv[4], os.O_RDWR) if len(sys.argv) > 4 else None
def uid(peer):
    for line in open("/proc/net/tcp").readlines()[1:]:
        w = line.split()
        if int(w[1].split(":")[1], 16) == peer and int(w[2].split(":")[1], 16) == port:
            return w[7]
print("listening", flush=True)
while True:
    r, _, _ = select.select([s, f], [], [])
    if f in r:
        os.read(f, 64)
        status = "503"
        continue
    c, a = s.accept()
    req = b""
    while b"\r\n\r\n" not in req:
        d = c.recv(1024)
        if not d:
            break
        req += d
    if status == "silent":
        held.append(c)
        continue
    c.sendall(b"hello\r\n" if status == "garbage" else b"HTTP/1.0 " + status.encode() + b" X\r\n\r\n")
    if t is not None:
        os.write(t, ("%s %s %s\n" % (status, req.split()[1].decode(), uid(a[1]))).encode())
    c.close()
EOF
}

# web ROLE PORT STATUS HEALTH [WRITE]: a component that runs http.py on
# PORT answering STATUS, its stop FIFO $TMP/stop, HEALTH its "health"
# (JSON); WRITE, one more path it writes, is its ticks FIFO.
web() {
	role "$1" '"'"$TMP"'/http.py","/proc"' '"write":["'"$TMP"'/stop"'"${5:+,\"$5\"}"']' \
		'"ready":{"stdout_line":true},"health":'"$4" |
		sed 's|"/bin/sh","'"$TMP/$1"'.sh"|"/usr/bin/python3","'"$TMP"'/http.py","'"$2"'","'"$3"'","'"$TMP"'/stop"'"${5:+,\"$5\"}"'|'
}

@test "health.http: a GET that turns 503 ends the session with 126 and a line naming the status; no status line, a refused port, another uid's listener and no answer in time do too" {
	require_feature tool:python3
	require_feature file:/usr/bin/python3
	http_serve
	mkfifo -m 666 "$TMP/stop"
	manifest "$(web web 7000 200 '{"http":{"port":7000,"path":"/health"},"interval_ms":20,"fails":2}')"
	sicken
	[ "$(tail -n 1 "$TMP/err")" = 'sharness-exec-launch: fatal: component "web" is unhealthy: HTTP GET /health on port 7000 answered 503, 2 checks in a row' ]
	# each from the first check on, main waiting for ever: a status line
	# that is none; a port with no listener; another role's uid listening
	# on it (and answering 200); the connection held without a word past
	# timeout_ms
	local http='{"http":{"port":7000,"path":"/health"},"interval_ms":20,"fails":1}' other
	local slow='{"http":{"port":7000,"path":"/health"},"interval_ms":20,"timeout_ms":50,"fails":1}'
	other=$(web other 7001 200 '{"tcp":7001}' | tr -d '\n')
	script main 'exec sleep infinity'
	for case in "garbage|$http|on port 7000 answered no status line" \
		"200|${http/7000/7001}|on port 7001: the port accepts no connection" \
		"200|${http/7000/7001}|on port 7001: another uid listens on the port|$other" \
		"silent|$slow|on port 7000 did not end within 50 ms"; do
		IFS='|' read -r status health why more <<<"$case"
		manifest "$(web web 7000 "$status" "$health")${more:+,$more}"
		run -126 --separate-stderr "$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$H" -- /bin/sh "$TMP/main.sh"
		[ -z "$output" ]
		[ "${stderr_lines[-1]}" = "sharness-exec-launch: fatal: component \"web\" is unhealthy: HTTP GET /health $why, 1 check in a row" ]
	done
	nothing_left
}

@test "health.http: 2xx and 3xx are healthy; each GET comes from the component's uid while main runs" {
	require_feature tool:python3
	require_feature file:/usr/bin/python3
	http_serve
	mkfifo -m 666 "$TMP/stop" "$TMP/ticks"
	# the test holds the ticks FIFO open both ways, as the TCP test does
	exec 8<>"$TMP/ticks"
	manifest "$(web ok 7000 200 '{"http":{"port":7000,"path":"/health"},"interval_ms":20,"fails":1}' "$TMP/ticks"),
		$(web moved 7001 302 '{"http":{"port":7001,"path":"/up?x=1"},"interval_ms":20,"fails":1}' "$TMP/ticks")"
	sed -i 's|"read":\["'"$TMP"'/main.sh"|&,"'"$TMP"'/ticks"|' "$TMP/m.json"
	H=$("$SHARNESS_EXEC" hash "$TMP/m.json")
	# main reads the ticks until it has two of each server's
	run -0 --separate-stderr "$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$H" -- /bin/sh -c \
		"a=0 b=0; exec 3<$TMP/ticks; while [ \$a -lt 2 ] || [ \$b -lt 2 ]; do read -r x <&3; case \$x in
		 '200 /health '*) a=\$((a + 1)) ;; '302 /up?x=1 '*) b=\$((b + 1)) ;; esac; echo \"\$x\"; done"
	exec 8>&-
	[ -z "$(grep unhealthy <<<"$stderr")" ]
	# each server's GETs from one uid of the session's, not main's, each
	# its own
	local seen
	seen=$(awk '{ print $1, $3 }' <<<"$output" | sort -u)
	[ "$(cut -d' ' -f1 <<<"$seen" | tr '\n' ' ')" = "200 302 " ]
	for uid in $(cut -d' ' -f2 <<<"$seen"); do
		[ "$uid" -ge "$FIRST" ] && [ "$uid" -le "$LAST" ]
	done
	[ "$(cut -d' ' -f2 <<<"$seen" | sort -u | wc -l)" = 2 ]
	nothing_left
}

@test "check validates health, http too, names the key a typo is near, and says what it does" {
	write_policy "$TMP/h.json" '{"launch":1,"id":"h","components":[
	 {"role":"db","command":["/bin/true"],"helth":{},
	  "policy":{"pbp":1,"id":"db","files":{"exec":['"$SYS"']},"network":{"bind_tcp_ports":[5432]},"process":{"no_new_privs":true}}},
	 {"role":"kv","command":["/bin/true"],"health":{"tcp":6379,"intervall_ms":5,"fails":0,"command":[]},
	  "policy":{"pbp":1,"id":"kv","files":{"exec":['"$SYS"']},"network":{"bind_tcp_ports":[5432]},"process":{"no_new_privs":true}}},
	 {"role":"fz","command":["/bin/true"],"health":{},"freeze_when_ready":true,"ready":{"stdout_line":true},
	  "policy":{"pbp":1,"id":"fz","files":{"exec":['"$SYS"']},"network":"none","process":{"no_new_privs":true}}},
	 {"role":"web","command":["/bin/true"],"health":{"htp":{},"http":{"prot":80,"path":"health"}},
	  "policy":{"pbp":1,"id":"web","files":{"exec":['"$SYS"']},"network":{"bind_tcp_ports":[80]},"process":{"no_new_privs":true}}},
	 {"role":"web2","command":["/bin/true"],"health":{"http":{"port":8080,"path":"/a b"}},
	  "policy":{"pbp":1,"id":"web2","files":{"exec":['"$SYS"']},"network":{"bind_tcp_ports":[80]},"process":{"no_new_privs":true}}},
	 {"role":"web3","command":["/bin/true"],"health":{"http":"/health"},
	  "policy":{"pbp":1,"id":"web3","files":{"exec":['"$SYS"']},"network":"none","process":{"no_new_privs":true}}}],
	 "main":{"role":"main","health":{"tcp":1},"policy":{"pbp":1,"id":"m","files":{"exec":['"$SYS"']},"network":"none","process":{"no_new_privs":true}}}}'
	run -125 --separate-stderr "$SHARNESS_EXEC" check "$TMP/h.json"
	[ "$stderr" = "sharness-exec: $TMP/h.json: components[0] \"db\": helth: unknown key; did you mean health?
sharness-exec: $TMP/h.json: components[1] \"kv\": health.intervall_ms: unknown key; did you mean health.interval_ms?
sharness-exec: $TMP/h.json: components[1] \"kv\": health.fails: must be 1-100, not 0
sharness-exec: $TMP/h.json: components[1] \"kv\": health.command: must be an array of at least one string
sharness-exec: $TMP/h.json: components[1] \"kv\": health.tcp: port 6379 is not in policy.network.bind_tcp_ports
sharness-exec: $TMP/h.json: components[2] \"fz\": health: needs one or more of tcp, http and command
sharness-exec: $TMP/h.json: components[2] \"fz\": health: a component frozen when ready answers no health check
sharness-exec: $TMP/h.json: components[3] \"web\": health.htp: unknown key; did you mean health.http?
sharness-exec: $TMP/h.json: components[3] \"web\": health.http.prot: unknown key; did you mean health.http.port?
sharness-exec: $TMP/h.json: components[3] \"web\": health.http.path: must be 1-64 bytes of printable ASCII without spaces, starting with /: \"health\"
sharness-exec: $TMP/h.json: components[3] \"web\": health.http: needs port and path
sharness-exec: $TMP/h.json: components[4] \"web2\": health.http.path: must be 1-64 bytes of printable ASCII without spaces, starting with /: \"/a b\"
sharness-exec: $TMP/h.json: components[4] \"web2\": health.http.port: port 8080 is not in policy.network.bind_tcp_ports
sharness-exec: $TMP/h.json: components[5] \"web3\": health.http: must be an object
sharness-exec: $TMP/h.json: main \"main\": health: unknown key" ]
	write_policy "$TMP/h.json" '{"launch":1,"id":"h","components":[
	 {"role":"kv","command":["/bin/true"],"health":{"tcp":6379,"command":["/bin/true"],"interval_ms":500},
	  "policy":{"pbp":1,"id":"kv","files":{"exec":['"$SYS"']},"network":{"bind_tcp_ports":[6379]},"process":{"no_new_privs":true}}},
	 {"role":"web","command":["/bin/true"],"health":{"http":{"path":"/health?full=1","port":8080},"tcp":8080,"command":["/bin/true"]},
	  "policy":{"pbp":1,"id":"web","files":{"exec":['"$SYS"']},"network":{"bind_tcp_ports":[8080]},"process":{"no_new_privs":true}}},
	 {"role":"web2","command":["/bin/true"],"health":{"http":{"port":8081,"path":"/"}},
	  "policy":{"pbp":1,"id":"web2","files":{"exec":['"$SYS"']},"network":"none","process":{"no_new_privs":true}}}],
	 "main":{"role":"main","policy":{"pbp":1,"id":"m","files":{"exec":['"$SYS"']},"network":"none","process":{"no_new_privs":true}}}}'
	run -0 --separate-stderr "$SHARNESS_EXEC" check "$TMP/h.json"
	[[ ${lines[1]} == 'components[0] "kv": '*'; health: TCP port 6379 and its command every 500 ms, each within 10000 ms, 3 failed in a row end the session' ]]
	[[ ${lines[2]} == 'components[1] "web": '*'; health: TCP port 8080, HTTP GET /health?full=1 on port 8080 and its command every 5000 ms, each within 10000 ms, 3 failed in a row end the session' ]]
	[[ ${lines[3]} == 'components[2] "web2": '*'; health: HTTP GET / on port 8081 every 5000 ms, each within 10000 ms, 3 failed in a row end the session' ]]
}

# kept_gone: no state kept for the manifest "health", no mount of it left.
kept_gone() {
	while umount "$KEPT/health" 2>/dev/null; do :; done
	rmdir "$KEPT/health" 2>/dev/null || true
}
KEPT=/run/sharness-exec/kept

@test "--keep leaves the state directories and the status after a failure, says where in one line; the next launch of the id removes them" {
	kept_gone
	script a 'echo a-note >note' 'echo up' 'exec sleep infinity'
	manifest "$(role a '' '' '"ready":{"stdout_line":true}')"
	# main writes its state directory, then fails
	run -3 --separate-stderr "$SHARNESS_EXEC" launch --keep -m "$TMP/m.json" -H "$H" -- \
		/bin/sh -c 'echo m-note >/run/sharness-exec/session/main/note; exit 3'
	[ "${stderr_lines[-1]}" = "sharness-exec-launch: the session's state directories and status are kept in $KEPT/health until the next launch of this manifest's id, or umount $KEPT/health" ]
	[ "$(stat -c '%a %u' "$KEPT")" = "700 0" ]
	[ "$(cat "$KEPT/health/a/note" "$KEPT/health/main/note")" = "$(printf '%s\n' a-note m-note)" ]
	[ "$(stat -c %u "$KEPT/health/a/note")" = "$(stat -c %u "$KEPT/health/a")" ]
	[ "$(tail -n 2 "$KEPT/health/session.status")" = 'component a ended: killed by signal 15
main main ended: exit status 3' ]
	# launch status shows it, kept
	run -0 --separate-stderr "$SHARNESS_EXEC" launch status
	grep -Fxq "kept in $KEPT/health" <<<"$output"
	grep -Fxq 'main main ended: exit status 3' <<<"$output"
	# the next launch of the id removes it; one that ends with 0 keeps nothing
	run -0 --separate-stderr "$SHARNESS_EXEC" launch --keep -m "$TMP/m.json" -H "$H" -- /bin/true
	[ ! -e "$KEPT/health" ]
	[ -z "$(grep " $KEPT/health " /proc/self/mountinfo)" ]
	[ -z "$(grep kept <<<"$stderr")" ]
	nothing_left
}

@test "--keep keeps the state too when the launcher is killed: the watcher, last, mounts it" {
	require_feature tool:tail
	kept_gone
	manifest "$(role a '' '' '"ready":{"stdout_line":true}')"
	script a 'echo up' 'exec sleep infinity'
	script main 'echo m-note >/run/sharness-exec/session/main/note' "echo go >$TMP/to-test" 'exec sleep infinity'
	exec 7<>"$TMP/to-test"
	"$SHARNESS_EXEC" launch --keep -m "$TMP/m.json" -H "$H" -- /bin/sh "$TMP/main.sh" >"$TMP/out" 2>"$TMP/err" &
	LAUNCHED=$!
	read -r -t 60 -u 7 word
	[ "$word" = go ]
	# the watcher: the launcher's child outside the session's pid namespace
	local p watcher=
	for p in $(cat /proc/"$LAUNCHED"/task/*/children); do
		[ "$(grep -c '^NSpid:.*[[:space:]][0-9]*[[:space:]][0-9]' "/proc/$p/status")" = 0 ] && watcher=$p
	done
	[ -n "$watcher" ]
	kill -KILL "$LAUNCHED"
	wait "$LAUNCHED" || true
	LAUNCHED=
	tail --pid="$watcher" -f /dev/null
	[ "$(cat "$KEPT/health/main/note")" = m-note ]
	grep -Fq "kept in $KEPT/health until" "$TMP/err"
	kept_gone
	nothing_left
}

@test "launch status shows each role's state while main runs: ready, healthy, running; the kept status says which turned unhealthy" {
	require_feature tool:python3
	require_feature file:/usr/bin/python3
	kept_gone
	serve_until
	mkfifo -m 666 "$TMP/stop" "$TMP/ticks"
	script idle 'echo up' 'exec sleep infinity'
	manifest "$(role srv '"'"$TMP"'/srv.py"' '"write":["'"$TMP"'/stop","'"$TMP"'/ticks"]' \
		'"ready":{"stdout_line":true},"health":{"tcp":7000,"command":["/bin/sh","-c","echo tick >'"$TMP"'/ticks"],"interval_ms":20,"fails":1}' |
		sed 's|"/bin/sh","'"$TMP"'/srv.sh"|"/usr/bin/python3","'"$TMP"'/srv.py","7000","'"$TMP"'/stop"|'),
		$(role idle '' '' '"ready":{"stdout_line":true}')"
	script main "echo go >$TMP/to-test" "read x <$TMP/to-main"
	exec 7<>"$TMP/to-test" 6<>"$TMP/ticks"
	"$SHARNESS_EXEC" launch --keep -m "$TMP/m.json" -H "$H" -- /bin/sh "$TMP/main.sh" >"$TMP/out" 2>"$TMP/err" &
	LAUNCHED=$!
	read -r -t 60 -u 7 word
	[ "$word" = go ]
	# two ticks: the first check has ended, and its end is written
	read -r -t 60 -u 6 word
	read -r -t 60 -u 6 word
	run -0 --separate-stderr "$SHARNESS_EXEC" launch status
	grep -q '^session [0-9a-f]\{32\} manifest "health"$' <<<"$output"
	grep -Fxq 'component srv healthy' <<<"$output"
	grep -Fxq 'component idle ready' <<<"$output"
	grep -Fxq 'main main running' <<<"$output"
	# another uid sees no session: neither the launcher's root nor the kept
	run -0 --separate-stderr as_nobody "$SHARNESS_EXEC" launch status
	[ "$output" = "no session running or kept" ]
	echo stop >"$TMP/stop"
	rc=0
	wait "$LAUNCHED" || rc=$?
	LAUNCHED=
	[ "$rc" = 126 ]
	grep -Fxq 'component srv unhealthy: TCP port 7000 accepts no connection, 1 check in a row; then ended: killed by signal 15' "$KEPT/health/session.status"
	grep -Fxq 'main main ended: killed by signal 15' "$KEPT/health/session.status"
	kept_gone
	nothing_left
}
