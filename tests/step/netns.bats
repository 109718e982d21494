#!/usr/bin/env bats
# sharness-exec-netns on its own (DESIGN.md 4.2): its command line and exit
# statuses; as root and as nobody, that nothing outside the new network
# namespace can be reached (TCP, UDP, abstract UNIX sockets) while loopback
# works inside (TCP and UDP on 127.0.0.1 and ::1, a pathname UNIX socket);
# -H, which keeps the host's network; in both forms a new IPC namespace and
# a new session keyring, so the caller's SysV segments, POSIX queues and
# session keys can be neither read nor changed; the ambient capabilities
# raised in a user namespace; and the seccomp fallback, forced with -S and
# reached for real under a filter that refuses unshare(2)
# (tests/try/deny-unshare).
# not tested: a kernel that really lacks user or network namespaces (a
#   filter refusing unshare(2) with EPERM stands in for it); ENOSPC from
#   user.max_user_namespaces=0 (a global sysctl would disturb the tests that
#   run beside these); a failure to write uid_map or to bring lo up (nothing
#   outside can provoke one); the i386 socketcall(2) arm of the seccomp
#   filter (no 32-bit toolchain here).
load ../helpers/load
load ../helpers/ipc

DENY="$TRYDIR/deny-unshare"
# The system python3: a pyenv shim under /root is out of nobody's reach.
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3 || echo python3)
WARNING="sharness-exec-netns: warning: no network namespace available (unshare: Operation not permitted): loopback is unavailable, sockets other than AF_UNIX are refused by a seccomp filter, and SysV and POSIX IPC objects are shared with the caller"
WARNING_H="sharness-exec-netns: warning: no IPC namespace available (unshare: Operation not permitted): SysV and POSIX IPC objects are shared with the caller"
IPC="$TRYDIR/try-ipc"
NET="$TRYDIR/try-net"
# CapAmb, CapEff and CapPrm in a user namespace: CAP_SYS_ADMIN (21),
# CAP_SYS_PTRACE (19) and CAP_SETPCAP (8).
AMBIENT=0000000000280100
# With -H, CAP_NET_ADMIN (12) too: the host's network is not the user
# namespace's, so it grants nothing there; the egress step, next in such a
# chain, brings up the lo of the network namespace it makes (issue 40).
AMBIENT_H=0000000000281100
NOAF="Address family not supported by protocol"

setup() {
	setup_tmp
	AS=
	WANT_STDERR=
	# Records every connection or datagram it gets, one a line, until the
	# sentinel, then whatever else is already queued.
	cat >"$TMP/listen.py" <<-'EOF'
	import os, socket, sys
	kind, addrfile = sys.argv[1], sys.argv[2]
	if kind == "abstract":
	    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
	    addr = "sharness-exec-netns-test-%d" % os.getpid()
	    s.bind("\0" + addr)
	else:
	    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM if kind == "udp" else socket.SOCK_STREAM)
	    s.bind(("127.0.0.1", 0))
	    addr = s.getsockname()[1]
	if kind != "udp":
	    s.listen(16)
	with open(addrfile, "w") as f:
	    f.write("%s\n" % addr)
	def one():
	    if kind == "udp":
	        return s.recv(64)
	    c = s.accept()[0]
	    c.setblocking(True)
	    data = c.recv(64)
	    c.close()
	    return data
	data = None
	while data != b"sentinel":
	    data = one()
	    print(data.decode().strip() or "(connected, sent nothing)", flush=True)
	s.setblocking(False)
	try:
	    while True:
	        print(one().decode().strip() or "(connected, sent nothing)", flush=True)
	except BlockingIOError:
	    pass
	EOF
	cat >"$TMP/send.py" <<-'EOF'
	import socket, sys
	kind, addr = sys.argv[1], sys.argv[2]
	if kind == "udp":
	    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"sentinel", ("127.0.0.1", int(addr)))
	elif kind == "tcp":
	    socket.create_connection(("127.0.0.1", int(addr))).sendall(b"sentinel")
	else:
	    c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
	    c.connect("\0" + addr)
	    c.sendall(b"sentinel")
	EOF
}

teardown() {
	[ -n "${LISTENER:-}" ] && kill "$LISTENER" 2>/dev/null
	ipc_cleanup
	teardown_tmp
}

# run_as CMD...: CMD as the user under test ($AS: empty for the caller).
run_as() {
	if [ -n "$AS" ]; then "$AS" "$@"; else "$@"; fi
}

# listen KIND: start a listener outside, on 127.0.0.1 (tcp, udp) or on an
# abstract UNIX name (abstract); its port or name goes to ADDR.
# It says so on a FIFO, read with no polling; its timeout is only a safety
# net against a listener outliving its test.
listen() {
	mkfifo "$TMP/$1.addr"
	timeout 600 "$PY" "$TMP/listen.py" "$1" "$TMP/$1.addr" >"$TMP/$1.seen" 3>&- &
	LISTENER=$!
	ADDR=$(await_line "$TMP/$1.addr")
}

# seen KIND: send the sentinel from outside, wait for the listener to end,
# and leave what it saw in $output.
seen() {
	"$PY" "$TMP/send.py" "$1" "$ADDR"
	wait "$LISTENER" || true
	LISTENER=
	output=$(cat "$TMP/$1.seen")
}

# Inside, try-syscall OP on the outside listener of KIND and expect WANT;
# then the same from outside, as a control that the probe does reach it.
# The listener must have seen the control and nothing before it.
unreachable() {
	local kind=$1 op=$2 want=$3 helper
	shift 3
	helper=("$@")
	listen "$kind"
	run --separate-stderr run_as "${helper[@]}" "$TRY" "$op" "$ADDR"
	[ "$output" = "$want" ]
	[ "$stderr" = "$WANT_STDERR" ]
	run -0 run_as "$TRY" "$op" "$ADDR"
	[ "$output" = ok ]
	seen "$kind"
	local control="(connected, sent nothing)"
	[ "$kind" = udp ] && control=ping
	[ "$output" = "$control"$'\n'sentinel ]
}

# refused_inside WANT PROBE...: under the helper ($HELPER) try-syscall PROBE
# fails with WANT (and $WANT_STDERR on stderr), and outside, as the same
# user, it does not fail that way.
refused_inside() {
	local want=$1
	shift
	run -1 --separate-stderr run_as "${HELPER[@]}" "$TRY" "$@"
	[ "$output" = "refused: $want" ]
	[ "$stderr" = "$WANT_STDERR" ]
	run --separate-stderr run_as "$TRY" "$@"
	[ "$output" != "refused: $want" ]
}

# The whole fallback: every socket family but AF_UNIX refused, io_uring too,
# and this survives into a child; the outside listener sees nothing.
check_fallback() {
	local fam
	for fam in inet inet6 netlink packet; do
		refused_inside "$NOAF" socket "$fam"
	done
	refused_inside "Function not implemented" io-uring
	run -0 --separate-stderr run_as "${HELPER[@]}" "$TRY" socket unix
	[ "$output" = ok ]
	run -1 --separate-stderr run_as "${HELPER[@]}" sh -c '"$0" socket inet; exit $?' "$TRY"
	[ "$output" = "refused: $NOAF" ]
	run -0 --separate-stderr run_as "${HELPER[@]}" "$TRY" caps
	[[ "$output" == *"NoNewPrivs:	1"* ]]
	[[ "$output" == *"Seccomp:	2"* ]]
	unreachable tcp connect "refused: $NOAF" "${HELPER[@]}"
	unreachable udp udp-send "refused: $NOAF" "${HELPER[@]}"
}

# A server and a client on 127.0.0.1 inside the namespace.
LOOPBACK='import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
c = socket.create_connection(s.getsockname()); a = s.accept()[0]
c.sendall(b"over lo"); print(a.recv(16).decode())'

@test "no arguments: one fatal line and the usage on stderr, 125" {
	run -125 --separate-stderr "$NETNS"
	[ "$output" = "" ]
	[ "${stderr_lines[0]}" = "sharness-exec-netns: fatal: no program given" ]
	[ "${stderr_lines[1]}" = "usage: sharness-exec-netns [-btX] [-A ABI] [-H | -I | -S] [-E FD] [-W FD] [--] PROGRAM [ARG...]" ]
	run -125 --separate-stderr "$NETNS" -S --
	[ "$stderr" = "sharness-exec-netns: fatal: no program given
usage: sharness-exec-netns [-btX] [-A ABI] [-H | -I | -S] [-E FD] [-W FD] [--] PROGRAM [ARG...]" ]
	run -125 --separate-stderr "$NETNS" -H
	[ "${stderr_lines[0]}" = "sharness-exec-netns: fatal: no program given" ]
}

@test "unknown option: one fatal line and the usage on stderr, 125, nothing runs" {
	run -125 --separate-stderr "$NETNS" -x touch "$TMP/ran"
	[ "$stderr" = "sharness-exec-netns: fatal: unknown option -x
usage: sharness-exec-netns [-btX] [-A ABI] [-H | -I | -S] [-E FD] [-W FD] [--] PROGRAM [ARG...]" ]
	run -125 --separate-stderr "$NETNS" --verbose touch "$TMP/ran"
	[ "${stderr_lines[0]}" = "sharness-exec-netns: fatal: unknown option --verbose" ]
	# -H keeps the host's network, -S has none: not both.
	run -125 --separate-stderr "$NETNS" -H -S touch "$TMP/ran"
	[ "$stderr" = "sharness-exec-netns: fatal: -H and -S exclude each other
usage: sharness-exec-netns [-btX] [-A ABI] [-H | -I | -S] [-E FD] [-W FD] [--] PROGRAM [ARG...]" ]
	run -125 --separate-stderr "$NETNS" -S -H touch "$TMP/ran"
	# -I keeps the caller's, a session's: neither with -H nor with -S.
	run -125 --separate-stderr "$NETNS" -H -I touch "$TMP/ran"
	[ "${stderr_lines[0]}" = "sharness-exec-netns: fatal: -H and -I exclude each other" ]
	run -125 --separate-stderr "$NETNS" -I -S touch "$TMP/ran"
	[ "${stderr_lines[0]}" = "sharness-exec-netns: fatal: -I and -S exclude each other" ]
	[ ! -e "$TMP/ran" ]
}

@test "-h and --help: usage on stdout, 0" {
	run -0 --separate-stderr "$NETNS" -h
	[ "$output" = "usage: sharness-exec-netns [-btX] [-A ABI] [-H | -I | -S] [-E FD] [-W FD] [--] PROGRAM [ARG...]" ]
	[ "$stderr" = "" ]
	run -0 --separate-stderr "$NETNS" --help
	[ "$output" = "usage: sharness-exec-netns [-btX] [-A ABI] [-H | -I | -S] [-E FD] [-W FD] [--] PROGRAM [ARG...]" ]
}

@test "a program that does not exist: 127" {
	run -127 --separate-stderr "$NETNS" -- "$TMP/nonexistent"
	[ "$stderr" = "sharness-exec-netns: fatal: unable to execute $TMP/nonexistent: No such file or directory" ]
	run -127 --separate-stderr "$NETNS" -S sharness-exec-no-such-program
}

@test "a file that is not executable: 126" {
	printf 'echo ran\n' >"$TMP/script"
	chmod 644 "$TMP/script"
	run -126 --separate-stderr "$NETNS" "$TMP/script"
	[ "$output" = "" ]
	[ "$stderr" = "sharness-exec-netns: fatal: unable to execute $TMP/script: Permission denied" ]
}

@test "the program's own status passes through" {
	run -0 "$NETNS" true
	run -1 "$NETNS" false
	run -42 "$NETNS" sh -c 'exit 42'
	run -42 "$NETNS" -S -- sh -c 'exit 42'
}

@test "-- ends the options; the program's own arguments are untouched" {
	run -0 --separate-stderr "$NETNS" -- sh -c 'echo "$@"' x -S -q
	[ "$output" = "-S -q" ]
	run -0 --separate-stderr "$NETNS" sh -c 'echo "$@"' x -S -- --help -h
	[ "$output" = "-S -- --help -h" ]
	run -0 --separate-stderr "$NETNS" -S sh -c 'echo "$@"' x -x
	[ "$output" = "-x" ]
	[ "$stderr" = "" ]
}

@test "as root: a network namespace of its own, in the same user namespace" {
	require_feature root
	require_feature netns
	run -0 --separate-stderr "$NETNS" readlink /proc/self/ns/net /proc/self/ns/user
	[ "$stderr" = "" ]
	[ "${lines[0]}" != "$(readlink /proc/self/ns/net)" ]
	[ "${lines[1]}" = "$(readlink /proc/self/ns/user)" ]
}

@test "as nobody: a user namespace that maps only nobody's own ids" {
	require_feature nobody
	require_feature userns
	run -0 --separate-stderr as_nobody "$NETNS" sh -c \
		'readlink /proc/self/ns/net /proc/self/ns/user; id -u; id -g; id -G
		 cat /proc/self/uid_map /proc/self/gid_map /proc/self/setgroups'
	[ "$stderr" = "" ]
	[ "${lines[0]}" != "$(readlink /proc/self/ns/net)" ]
	[ "${lines[1]}" != "$(readlink /proc/self/ns/user)" ]
	[ "${lines[2]}" = 65534 ]
	[ "${lines[3]}" = 65534 ]
	[ "${lines[4]}" = 65534 ]
	[ "$(echo ${lines[5]})" = "65534 65534 1" ]
	[ "$(echo ${lines[6]})" = "65534 65534 1" ]
	[ "${lines[7]}" = deny ]
	[ "${#lines[@]}" = 8 ]
}

@test "as another user: uid and gid inside are the caller's own, not the overflow ids" {
	require_feature nobody
	require_feature userns
	run -0 --separate-stderr setpriv --reuid=4242 --regid=4343 --clear-groups -- \
		"$NETNS" sh -c 'id -u; id -g; cat /proc/self/uid_map /proc/self/gid_map'
	[ "${lines[0]}" = 4242 ]
	[ "${lines[1]}" = 4343 ]
	[ "$(echo ${lines[2]})" = "4242 4242 1" ]
	[ "$(echo ${lines[3]})" = "4343 4343 1" ]
}

@test "as root: a TCP listener outside on 127.0.0.1 is unreachable" {
	require_feature root
	require_feature netns
	require_feature tool:python3
	unreachable tcp connect "refused: Connection refused" "$NETNS" --
}

@test "as nobody: a TCP listener outside on 127.0.0.1 is unreachable" {
	require_feature nobody
	require_feature userns
	require_feature tool:python3
	AS=as_nobody
	unreachable tcp connect "refused: Connection refused" "$NETNS" --
}

@test "as root: a UDP datagram to a listener outside never arrives" {
	require_feature root
	require_feature netns
	require_feature tool:python3
	# The datagram is sent, into the namespace's own lo.
	unreachable udp udp-send ok "$NETNS" --
}

@test "as nobody: a UDP datagram to a listener outside never arrives" {
	require_feature nobody
	require_feature userns
	require_feature tool:python3
	AS=as_nobody
	unreachable udp udp-send ok "$NETNS" --
}

@test "as root: an abstract UNIX socket outside is unreachable" {
	require_feature root
	require_feature netns
	require_feature tool:python3
	unreachable abstract abstract "refused: Connection refused" "$NETNS" --
}

@test "as nobody: an abstract UNIX socket outside is unreachable" {
	require_feature nobody
	require_feature userns
	require_feature tool:python3
	AS=as_nobody
	unreachable abstract abstract "refused: Connection refused" "$NETNS" --
}

# loopback MODE: TCP and UDP on 127.0.0.1 and ::1, and a pathname UNIX
# socket, each a server and a client exchanging a line inside.
loopback() {
	local kind
	for kind in tcp4 tcp6 udp4 udp6; do
		run -0 --separate-stderr as "$1" "$NETNS" "$NET" "$kind"
		[ "$output" = ok ]
		[ "$stderr" = "" ]
	done
	mkdir -m 777 "$TMP/sock"
	run -0 --separate-stderr as "$1" "$NETNS" "$NET" unix "$TMP/sock/s"
	[ "$output" = ok ]
	# The same through python's socket module, as a test suite would.
	run -0 --separate-stderr as "$1" "$NETNS" "$PY" -c "$LOOPBACK"
	[ "$output" = "over lo" ]
}

@test "as root: lo is up inside: TCP, UDP on 127.0.0.1 and ::1, a UNIX socket" {
	require_feature root
	require_feature netns
	require_feature tool:python3
	loopback root
}

@test "as nobody: lo is up inside: TCP, UDP on 127.0.0.1 and ::1, a UNIX socket" {
	require_feature nobody
	require_feature userns
	require_feature tool:python3
	loopback nobody
}

@test "-H as root: the host's network, a new IPC namespace, a new session keyring" {
	require_feature root
	require_feature netns
	run -0 --separate-stderr "$NETNS" -H sh -c \
		'readlink /proc/self/ns/net /proc/self/ns/ipc /proc/self/ns/user; "$0" key-session' "$IPC"
	[ "$stderr" = "" ]
	[ "${lines[0]}" = "$(readlink /proc/self/ns/net)" ]
	[ "${lines[1]}" != "$(readlink /proc/self/ns/ipc)" ]
	[ "${lines[2]}" = "$(readlink /proc/self/ns/user)" ]
	[[ "${lines[3]}" == *" keyring _ses" ]]
	[ "${lines[3]%% *}" != "$("$IPC" key-session | cut -d' ' -f1)" ]
	# No ambient capabilities for root: it holds its own.
	run -0 "$NETNS" -H grep CapAmb /proc/self/status
	[ "$output" = "CapAmb:	0000000000000000" ]
}

@test "-H as nobody: the host's network, new user and IPC namespaces, ambient caps" {
	require_feature nobody
	require_feature userns
	run -0 --separate-stderr as_nobody "$NETNS" -H sh -c \
		'readlink /proc/self/ns/net /proc/self/ns/ipc /proc/self/ns/user; id -u; grep -E "^Cap(Amb|Eff|Inh)" /proc/self/status'
	[ "$stderr" = "" ]
	[ "${lines[0]}" = "$(readlink /proc/self/ns/net)" ]
	[ "${lines[1]}" != "$(readlink /proc/self/ns/ipc)" ]
	[ "${lines[2]}" != "$(readlink /proc/self/ns/user)" ]
	[ "${lines[3]}" = 65534 ]
	[ "${lines[4]}" = "CapInh:	$AMBIENT_H" ]
	[ "${lines[5]}" = "CapEff:	$AMBIENT_H" ]
	[ "${lines[6]}" = "CapAmb:	$AMBIENT_H" ]
	# CAP_NET_ADMIN there is none over the host's network: lo stays as it is.
	run -2 --separate-stderr as_nobody "$NETNS" -H ip link set lo mtu 65000
	[[ "$stderr" == *"Operation not permitted"* ]]
	[ "$(cat /sys/class/net/lo/mtu)" = 65536 ]
	# The host's network: a listener outside is reachable.
	listen tcp
	run -0 as_nobody "$NETNS" -H "$TRY" connect "$ADDR"
	seen tcp
	[ "$output" = "(connected, sent nothing)"$'\n'sentinel ]
}

@test "as nobody: the ambient capabilities reach the next step, and only those" {
	require_feature nobody
	require_feature userns
	# Through exec into a second program (the next step of the chain).
	run -0 --separate-stderr as_nobody "$NETNS" sh -c 'exec grep -E "^Cap" /proc/self/status'
	[ "${lines[0]}" = "CapInh:	$AMBIENT" ]
	[ "${lines[1]}" = "CapPrm:	$AMBIENT" ]
	[ "${lines[2]}" = "CapEff:	$AMBIENT" ]
	[ "${lines[4]}" = "CapAmb:	$AMBIENT" ]
	# They hold in the user namespace only: outside nothing changed.
	run -0 as_nobody grep CapEff /proc/self/status
	[ "$output" = "CapEff:	0000000000000000" ]
	# As root no user namespace is made and nothing is raised.
	run -0 "$NETNS" grep CapAmb /proc/self/status
	[ "$output" = "CapAmb:	0000000000000000" ]
}

@test "a new anonymous session keyring, in both forms and in the fallback" {
	local outside
	outside=$("$IPC" key-run sharness-exec-outside "$IPC" key-session | head -1)
	for form in "" -H -S; do
		run -0 --separate-stderr "$IPC" key-run sharness-exec-outside "$NETNS" $form "$IPC" key-session
		[[ "${lines[0]}" == *" keyring _ses" ]]
		[ "${lines[0]%% *}" != "${outside%% *}" ]
		[ "${lines[2]}" = "after: outside secret" ]
	done
}

ipc_netns() { # MODE FORM...
	local m=$1
	shift
	[ "$m" = root ] && require_feature root && require_feature netns
	[ "$m" = nobody ] && require_feature nobody && require_feature userns
	INSIDE=("$NETNS" "$@" --)
	shm_check "$m"
	mq_check "$m"
	key_check "$m"
}

@test "as root: an outside SysV segment, POSIX queue and session key are out of reach" { ipc_netns root; }
@test "as nobody: an outside SysV segment, POSIX queue and session key are out of reach" { ipc_netns nobody; }
@test "-H as root: an outside SysV segment, POSIX queue and session key are out of reach" { ipc_netns root -H; }
@test "-H as nobody: an outside SysV segment, POSIX queue and session key are out of reach" { ipc_netns nobody -H; }

@test "-S: no namespace, no warning, the seccomp filter refuses sockets" {
	require_feature tool:python3
	run -0 --separate-stderr "$NETNS" -S readlink /proc/self/ns/net
	[ "$output" = "$(readlink /proc/self/ns/net)" ]
	[ "$stderr" = "" ]
	HELPER=("$NETNS" -S --)
	check_fallback
}

@test "-S as nobody: the seccomp filter refuses sockets" {
	require_feature nobody
	require_feature tool:python3
	AS=as_nobody
	HELPER=("$NETNS" -S --)
	check_fallback
}

@test "unshare(2) refused, as root: one warning, then the seccomp fallback" {
	require_feature root
	require_feature tool:python3
	run -1 --separate-stderr "$DENY" unshare --net true
	run -0 --separate-stderr "$DENY" "$NETNS" readlink /proc/self/ns/net
	[ "$output" = "$(readlink /proc/self/ns/net)" ]
	[ "$stderr" = "$WARNING" ]
	HELPER=("$DENY" "$NETNS" --)
	WANT_STDERR=$WARNING
	check_fallback
}

@test "unshare(2) refused, as nobody: one warning, then the seccomp fallback" {
	require_feature nobody
	require_feature tool:python3
	AS=as_nobody
	run -0 --separate-stderr as_nobody "$DENY" "$NETNS" id -u
	[ "$output" = 65534 ]
	[ "$stderr" = "$WARNING" ]
	HELPER=("$DENY" "$NETNS" --)
	WANT_STDERR=$WARNING
	check_fallback
}

@test "unshare(2) refused, -H: one warning, the host's network, no socket filter" {
	require_feature tool:python3
	run -0 --separate-stderr "$DENY" "$NETNS" -H sh -c 'readlink /proc/self/ns/net /proc/self/ns/ipc; grep ^Seccomp: /proc/self/status'
	[ "$stderr" = "$WARNING_H" ]
	[ "${lines[0]}" = "$(readlink /proc/self/ns/net)" ]
	[ "${lines[1]}" = "$(readlink /proc/self/ns/ipc)" ]
	run -0 --separate-stderr "$DENY" "$NETNS" -H "$NET" tcp4
	[ "$output" = ok ]
}

@test "no namespace and no seccomp filter either: 126, nothing runs" {
	run -126 --separate-stderr "$DENY" -s "$NETNS" touch "$TMP/ran"
	[ "$output" = "" ]
	[ "${stderr_lines[0]}" = "sharness-exec-netns: fatal: unable to install the seccomp socket filter: Invalid argument" ]
	[ "${stderr_lines[1]}" = "hint: the kernel lacks seccomp filters (CONFIG_SECCOMP_FILTER)" ]
	[ "${#stderr_lines[@]}" = 2 ]
	[ ! -e "$TMP/ran" ]
	run -126 --separate-stderr "$DENY" -s "$NETNS" -S touch "$TMP/ran"
	[ ! -e "$TMP/ran" ]
}
