#!/usr/bin/env bats
# "network": "none" through the whole chain (`sharness-exec run`), as root
# and as nobody: everything local works inside the run's own network
# namespace (TCP and UDP on 127.0.0.1 and ::1: bind, listen, connect and a
# line each way; a pathname UNIX socket in a write path), the way a test
# suite starts its own servers; while a listener outside on the host's
# 127.0.0.1 stays unreachable. The object form keeps Landlock's TCP rules.
# not tested: the seccomp fallback through the whole chain (netns.bats
#   covers it on the helper, where loopback is refused with the rest).
load ../helpers/load

NET="$TRYDIR/try-net"
# The system python3: a pyenv shim under /root is out of nobody's reach.
PY=/usr/bin/python3
FORKED='import os, socket
for host in ("127.0.0.1", "::1"):
    s = socket.create_server((host, 0), family=socket.AF_INET6 if ":" in host else socket.AF_INET)
    port = s.getsockname()[1]
    pid = os.fork()
    if pid == 0:
        c = socket.create_connection((host, port))
        c.sendall(b"hello")
        print(host, c.recv(5).decode(), flush=True)
        os._exit(0)
    a = s.accept()[0]
    a.sendall(a.recv(5).upper())
    _, status = os.waitpid(pid, 0)
    assert status == 0'

setup() {
	setup_tmp
	mkdir -m 777 "$TMP/rw"
	pids=()
}

teardown() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	teardown_tmp
}

policy() { # NETWORK
	write_policy "$TMP/p.json" '{"pbp":1,"id":"loopback",
	  "files":{"read":["/etc","/proc"],"write":["'"$TMP"'/rw"],
	           "exec":["/usr","/bin","/lib","/lib64","'"$TRYDIR"'"]},
	  "network":'"${1:-\"none\"}"',
	  "process":{"no_new_privs":true}}'
}

confined() { # MODE CMD...
	local mode=$1
	shift
	as "$mode" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$@"
}

t_local() {
	local m=$1 kind
	need "$m"
	require_feature tool:"$PY"
	[ "$m" = nobody ] && require_feature userns
	[ "$m" = root ] && require_feature netns
	policy
	for kind in tcp4 tcp6 udp4 udp6; do
		run -0 --separate-stderr confined "$m" "$NET" "$kind"
		[ "$output" = ok ]
		[ "$stderr" = "" ]
	done
	run -0 --separate-stderr confined "$m" "$NET" unix "$TMP/rw/server.sock"
	[ "$output" = ok ]
	[ ! -e "$TMP/rw/server.sock" ]
	# A server in one process, its clients in others (a suite's server
	# and its tests), as a scripting language's socket module does it.
	run -0 --separate-stderr confined "$m" "$PY" -c "$FORKED"
	[ "$output" = "127.0.0.1 HELLO
::1 HELLO" ]
	[ "$stderr" = "" ]
}

@test "network none: TCP, UDP on 127.0.0.1 and ::1 and a UNIX socket work inside (root)" { t_local root; }
@test "network none: TCP, UDP on 127.0.0.1 and ::1 and a UNIX socket work inside (nobody)" { t_local nobody; }
