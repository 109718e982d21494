#!/usr/bin/env bats
# freeze_when_ready (issue 29, DESIGN.md 4.8), as root, on the cgroup2
# hierarchy: /sys/fs/cgroup on a pure v2 machine (the kernel matrix's
# guests), /sys/fs/cgroup/unified, without controllers, on a hybrid one. A
# session of two components, a TCP echo service and a key server that
# prints one line and is frozen once it has, and main, which reaches the
# first over the session's loopback and reads the second's line from
# SHARNESS_AI_READY_KMS. While main runs the key server's cgroup, and each
# beneath it, says "frozen 1", its processes are in it, and a client of
# its listening socket hangs: the connection is made (the kernel puts it
# in the listener's backlog) but nothing accepts it or answers, where the
# echo service, the same program unfrozen, answers at once. After the
# launch nothing of the session is left, and after a SIGKILL to the
# launcher while the key server is frozen too: the watcher does not thaw
# it, the kernel's kill of the session's pid namespace ends frozen tasks
# on cgroup v2. Its uids are a range of their own. Both servers run one script (serve.py); ports are fixed
# (7000, 7001): the session's network namespace is its own. Main waits
# on a FIFO the test writes, never on time.
# Where no cgroup2 hierarchy is reachable, the refusal (126, before
# anything runs) is tests/manifest.bats's, in a mount namespace without
# one.
load ../helpers/load
load ../helpers/launch

# A uid range of its own, beside the default that tests/launch-run.bats
# uses: a launch of another test run on this machine is never taken for
# one of this file's sessions (nothing_left looks at the whole range).
FIRST=1879113728
LAST=1879179263

setup() {
	launch_setup tool:python3 file:/usr/bin/python3 tool:nsenter tool:ss
	lp=
	# serve.py PORT [LINE]: an echo service on PORT that, with LINE,
	# prints it and its uid once it listens
	printf '%s\n' 'import os, socket, sys' 's = socket.socket()' \
		's.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)' \
		's.bind(("127.0.0.1", int(sys.argv[1])))' 's.listen()' \
		'if len(sys.argv) > 2: print(sys.argv[2], os.getuid(), flush=True)' 'while True:' \
		'    c, _ = s.accept()' '    c.sendall(c.recv(64))' '    c.close()' >"$TMP/serve.py"
	# main: the line, the echo service's answer, a client of the key
	# server's socket; then, once the test has looked, what it answered
	printf '%s\n' 'import os, socket, sys' \
		'print("kms", os.environ["SHARNESS_AI_READY_KMS"], flush=True)' \
		'e = socket.create_connection(("127.0.0.1", 7000)); e.sendall(b"ping")' \
		'print("echo", e.recv(64).decode(), flush=True)' \
		'k = socket.create_connection(("127.0.0.1", 7001)); k.sendall(b"ping")' \
		'open(sys.argv[1], "w").write("connected %s\n" % os.environ["SHARNESS_AI_READY_KMS"])' \
		'open(sys.argv[2]).readline()' 'k.setblocking(False)' \
		'try: print("kms-answer", k.recv(64).decode())' \
		'except BlockingIOError: print("kms-answer none")' >"$TMP/main.py"
	mkfifo -m 666 "$TMP/to-test" "$TMP/to-main"
	chmod 644 "$TMP/serve.py" "$TMP/main.py"
	write_policy "$TMP/m.json" '{"launch":1,"id":"frozen","components":[
	 {"role":"echo","command":["/usr/bin/python3","'"$TMP"'/serve.py","7000"],
	  "policy":{"pbp":1,"id":"echo","files":{"exec":['"$SYS"'],"read":["'"$TMP"'/serve.py"]},
	            "network":{"bind_tcp_ports":[7000]},"process":{"no_new_privs":true}},
	  "ready":{"tcp":7000}},
	 {"role":"kms","command":["/usr/bin/python3","'"$TMP"'/serve.py","7001","key"],
	  "policy":{"pbp":1,"id":"kms","files":{"exec":['"$SYS"'],"read":["'"$TMP"'/serve.py"]},
	            "network":{"bind_tcp_ports":[7001]},"process":{"no_new_privs":true}},
	  "ready":{"stdout_line":true},"freeze_when_ready":true}],
	 "main":{"role":"main",
	  "policy":{"pbp":1,"id":"main","files":{"exec":['"$SYS"'],"read":["'"$TMP"'/main.py"],
	            "write":["'"$TMP"'/to-test","'"$TMP"'/to-main"]},
	            "network":{"connect_tcp_ports":[7000,7001]},"process":{"no_new_privs":true}}}}'
	H=$("$SHARNESS_EXEC" hash "$TMP/m.json")
}

teardown() {
	[ -n "$lp" ] && kill -9 "$lp" 2>/dev/null
	launch_unlock
	teardown_tmp
}

# launch_frozen: the launch in the background ($lp), until main has
# connected to the key server; then $kms is the key server's uid, $pid
# its python's pid, $cg its cgroup, each checked frozen.
launch_frozen() {
	fifos
	"$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$H" --uid-range "$FIRST-$LAST" -- /usr/bin/python3 "$TMP/main.py" \
		"$TMP/to-test" "$TMP/to-main" >"$TMP/out" 2>"$TMP/err" &
	lp=$!
	local word line
	hear word line kms
	[ "$word $line" = "connected key" ]
	[ "$kms" -ge "$FIRST" ] && [ "$kms" -le "$LAST" ]
	pid=$(pgrep -u "$kms" -x python3)
	cg=$(find /sys/fs/cgroup -maxdepth 6 -type d -path '*/sharness-exec-session-*/role-kms')
	echo "kms $kms pid $pid cg $cg"
	[ -n "$pid" ] && [ -d "$cg" ]
	# the key server is in its cgroup (its run's cgroup may be beneath),
	# and it and every cgroup beneath it say frozen
	local mine
	mine=$(sed -n 's|^0::\(.*/sharness-exec-session-[0-9a-f]*/role-kms\)\(/.*\)\{0,1\}$|\1|p' "/proc/$pid/cgroup")
	[ -n "$mine" ] && [[ $cg == *"$mine" ]]
	[ "$(cat "$cg/cgroup.freeze")" = 1 ]
	[ -z "$(find "$cg" -name cgroup.events -exec grep -L '^frozen 1$' {} +)" ]
	# main's connection waits in the frozen listener's backlog (Recv-Q
	# of a listening socket: connections not accepted); the echo
	# service's has none
	[ "$(nsenter -t "$pid" -n ss -Hltn 'sport = :7001' | awk '{ print $2 }')" = 1 ]
	[ "$(nsenter -t "$pid" -n ss -Hltn 'sport = :7000' | awk '{ print $2 }')" = 0 ]
}

@test "a frozen key server: main gets its line and the echo service's answer; its cgroup is frozen, its clients hang; nothing left" {
	launch_frozen
	echo end >&8
	wait "$lp"
	lp=
	cat "$TMP/out" "$TMP/err"
	[ "$(cat "$TMP/out")" = "kms key $kms
echo ping
kms-answer none" ]
	nothing_left "$kms"
}

@test "after a SIGKILL to the launcher while a component is frozen nothing of the session is left" {
	launch_frozen
	kill -9 "$lp"
	local rc=0
	wait "$lp" || rc=$?
	lp=
	[ "$rc" = 137 ]
	# the watcher releases the locks last: once it has, all else is gone
	flock "$UIDS/$kms" true
	! kill -0 "$pid" 2>/dev/null
	nothing_left "$kms"
}
