#!/usr/bin/env bats
# The object form of "network" shares the host's network, and with it what
# lists or joins the host's sockets (issue 24 item 7): the landlock step's
# filter refuses setsockopt SO_REUSEPORT, which would join an outside
# listener's group on an allowed bind port and take a share of its
# connections, and netlink sockets of any protocol but NETLINK_ROUTE
# (sock_diag lists the host's sockets). /proc/net/unix still lists the
# host's UNIX sockets with /proc granted: a mount cannot mask it (each
# process reads it through its own /proc/PID/net), so the pages say to use
# "none", and the last test proves both. Each refusal is first shown to
# work bare. As root and as nobody.
# not tested: i386's socketcall, where setsockopt fails closed
# (tests/unit/test-seccomp covers the filter's rules).
load ../helpers/load

setup() {
	setup_tmp
	mkdir -p "$TMP/s" "$TMP/rw" "$TMP/out"
	chmod 777 "$TMP/rw" "$TMP/out"
	pids=()
	# The outside listener: SO_REUSEPORT on 127.0.0.1, port 0 (the kernel
	# picks one); publishes its pid and port, then logs a line for each
	# connection.
	cat >"$TMP/s/listener.py" <<'PY'
import os, socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
s.bind(("127.0.0.1", 0))
s.listen(128)
with open(sys.argv[1] + ".pid", "w") as f:
    f.write("%d\n" % os.getpid())
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d\n" % s.getsockname()[1])
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    c, _ = s.accept()
    with open(sys.argv[2], "a") as f:
        f.write("conn\n")
    c.close()
PY
	# Join the group on PORT, connect N times, count what landed here.
	cat >"$TMP/s/join.py" <<'PY'
import errno, socket, sys
port, n = int(sys.argv[1]), int(sys.argv[2])
s = socket.socket()
try:
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    print("reuseport ok")
except OSError as e:
    print("reuseport refused:", errno.errorcode[e.errno])
try:
    s.bind(("127.0.0.1", port))
    s.listen(128)
except OSError as e:
    print("bind refused:", errno.errorcode[e.errno])
    s = None
conns = [socket.create_connection(("127.0.0.1", port)) for _ in range(n)]
k = 0
if s is not None:
    s.setblocking(False)
    try:
        while True:
            s.accept()
            k += 1
    except BlockingIOError:
        pass
print("joined %d of %d" % (k, n))
PY
	cat >"$TMP/s/netlink.py" <<'PY'
import errno, socket
# NETLINK_SOCK_DIAG is 4 (<linux/netlink.h>); Python names only some
for name, proto in (("sock_diag", 4), ("route", socket.NETLINK_ROUTE)):
    try:
        socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, proto).close()
        print(name, "ok")
    except OSError as e:
        print(name, "refused:", errno.errorcode[e.errno])
PY
	# A UNIX socket bound at PATH, held until stdin ends; then MARKER.
	cat >"$TMP/s/unix.py" <<'PY'
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
open(sys.argv[2], "w").close()
sys.stdin.read()
PY
	chmod 644 "$TMP"/s/*.py
}

teardown() {
	# the listener we started (its pid from itself: $! is the subshell)
	[ -s "$TMP/rw/port.pid" ] && kill "$(cat "$TMP/rw/port.pid")" 2>/dev/null || true
	exec 5>&- # ends unix.py
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	teardown_tmp
}

# policy NETWORK [READ]: the scripts, /etc and READ read, $TMP/rw written.
policy() {
	chain_policy netholes "$1" '"/etc","'"$TMP"'/s"'"${2:+,$2}" '"'"$TMP"'/rw"'
}

confined() { # MODE CMD...
	local mode=$1
	shift
	as "$mode" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$@"
}

# wait_for FILE: up to 20 s for FILE to exist.
wait_for() {
	for _ in $(seq 400); do [ -e "$1" ] && return 0; sleep 0.05; done
	return 1
}

# conns_reach N: up to 20 s for the outside listener to log N connections.
conns_reach() {
	for _ in $(seq 400); do
		[ "$(cat "$TMP/rw/log" 2>/dev/null | wc -l)" -ge "$1" ] && return 0
		sleep 0.05
	done
	return 1
}

N=32
# Python from the system, which nobody may run (not a shim under /root).
PY=/usr/bin/python3

# listen_outside MODE: the outside listener as MODE; its port in $port.
listen_outside() {
	as "$1" "$PY" "$TMP/s/listener.py" "$TMP/rw/port" "$TMP/rw/log" </dev/null >/dev/null 2>&1 3>&- &
	pids+=($!)
	wait_for "$TMP/rw/port"
	port=$(cat "$TMP/rw/port")
}

t_reuseport() {
	local m=$1 k
	need "$m"
	require_feature file:/usr/bin/python3
	listen_outside "$m"
	# bare: a second socket of the same uid joins the group and takes a
	# share of the connections (the chance that 32 all hash to one of two
	# listeners is 2^-31)
	run -0 as "$m" "$PY" "$TMP/s/join.py" "$port" "$N"
	[ "${lines[0]}" = "reuseport ok" ]
	k=$(sed -n 's/^joined \([0-9]*\) of .*/\1/p' <<<"$output")
	[ "$k" -gt 0 ] && [ "$k" -lt "$N" ]
	conns_reach $((N - k))
	rm "$TMP/rw/log"
	# confined, with that port granted for bind and connect: the option
	# is refused, the bind finds the port taken, and the outside listener
	# gets every connection
	policy '{"bind_tcp_ports":['"$port"'],"connect_tcp_ports":['"$port"']}'
	run -0 confined "$m" "$PY" "$TMP/s/join.py" "$port" "$N"
	[ "${lines[0]}" = "reuseport refused: EACCES" ]
	[ "${lines[1]}" = "bind refused: EADDRINUSE" ]
	[ "${lines[2]}" = "joined 0 of $N" ]
	conns_reach "$N"
	[ "$(wc -l <"$TMP/rw/log")" = "$N" ]
}

@test "object form: SO_REUSEPORT cannot join an outside listener's group on a granted port (root)" { t_reuseport root; }
@test "object form: SO_REUSEPORT cannot join an outside listener's group on a granted port (nobody)" { t_reuseport nobody; }

t_netlink() {
	local m=$1
	need "$m"
	require_feature file:/usr/bin/python3
	require_feature tool:ip
	run -0 as "$m" "$PY" "$TMP/s/netlink.py"
	[ "$output" = "sock_diag ok
route ok" ]
	policy '{}'
	run -0 confined "$m" "$PY" "$TMP/s/netlink.py"
	[ "$output" = "sock_diag refused: EACCES
route ok" ]
	# NETLINK_ROUTE is what ip(8) and getifaddrs(3) use
	run -0 confined "$m" "$(command -v ip)" -o addr show dev lo
	[[ "$output" == *" inet 127.0.0.1/8 "* ]]
	# "none" has a network of its own: sock_diag lists only its sockets
	policy '"none"'
	run -0 confined "$m" "$PY" "$TMP/s/netlink.py"
	[ "$output" = "sock_diag ok
route ok" ]
}

@test "object form: netlink sock_diag is refused, NETLINK_ROUTE (ip addr) works (root)" { t_netlink root; }
@test "object form: netlink sock_diag is refused, NETLINK_ROUTE (ip addr) works (nobody)" { t_netlink nobody; }

t_proc_net_unix() {
	local m=$1 sock
	need "$m"
	require_feature file:/usr/bin/python3
	# outside the policy: the view does not hold it
	sock="$TMP/out/outside-$$-$RANDOM.sock"
	mkfifo "$TMP/hold"
	as "$m" "$PY" "$TMP/s/unix.py" "$sock" "$TMP/rw/bound" <"$TMP/hold" >/dev/null 2>&1 3>&- &
	pids+=($!)
	exec 5>"$TMP/hold"
	wait_for "$TMP/rw/bound"
	run -0 grep -c -F "$sock" /proc/net/unix
	# "none": the run's own network lists none of the host's sockets
	policy '"none"' '"/proc"'
	run -1 confined "$m" grep -F "$sock" /proc/net/unix
	# the object form: the host's, through each process's /proc/PID/net,
	# which no mount in the view can cover for processes yet to come
	# (the pages say so)
	policy '{}' '"/proc"'
	run -0 confined "$m" sh -c "grep -c -F '$sock' /proc/net/unix"
	exec 5>&-
}

@test "/proc/net/unix: \"none\" lists none of the host's UNIX sockets, the object form does, as documented (root)" { t_proc_net_unix root; }
@test "/proc/net/unix: \"none\" lists none of the host's UNIX sockets, the object form does, as documented (nobody)" { t_proc_net_unix nobody; }
