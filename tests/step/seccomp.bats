#!/usr/bin/env bats
# The landlock step's seccomp filter (DESIGN.md 4.6, seccomp.h), from the
# attacker's side: each rule is tried from inside, through the landlock
# helper alone and through `sharness-exec run`, as root and as nobody; each
# test shows that the refusal came from the filter (an errno the kernel
# would not give, or the same call working bare), and that nothing outside
# changed. What must keep working is tried too.
# not tested: i386 and x32 calls where this kernel has no such ABI (the
#   test says so and skips that part; x32 is never configured here, and
#   int 0x80 faults in this virtual machine); socketcall(2), which only an
#   i386 build of the helpers meets; F_SETDELEG (Linux 6.19); SCTP where
#   the module cannot load (its refusal is still checked: EACCES where the
#   kernel would say EPROTONOSUPPORT); the listen() guard and UDP ports
#   (the ports engineer's, tests of their own).
load ../helpers/load

PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3 || echo python3)

setup() {
	setup_tmp
	pids=()
	mkdir -m 755 "$TMP/bin"
	mkdir -m 777 "$TMP/ro" "$TMP/rw" "$TMP/out" "$TMP/bare"
	cp "$TRY" "$TMP/bin/try-syscall"
	T="$TMP/bin/try-syscall"
	NET='"none"'
	USERNS=
	EXTRA_R=()
	nlisten=0
}

teardown() {
	local p
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
	[ -n "${CG:-}" ] && rmdir "$CG" 2>/dev/null || true
	teardown_tmp
}

EACCES="refused: Permission denied"
EPERM="refused: Operation not permitted"
ENOSYS="refused: Function not implemented"

# as_m MODE CMD...: CMD as root, nobody, or u4242 (uid 4242, a user of this
# test's own, for what would reach every process of a user bare).
as_m() {
	local m=$1
	shift
	case $m in
	nobody) as_nobody "$@" ;;
	u4242) setpriv --reuid=4242 --regid=4242 --clear-groups -- "$@" ;;
	*) "$@" ;;
	esac
}

# bg_m MODE CMD...: CMD in the background as MODE, its own pid (setpriv
# execs it) in BG and in pids for teardown. Its standard input is the
# caller's (bash would give a background command /dev/null).
bg_m() {
	local m=$1
	shift
	case $m in
	nobody) setpriv --reuid="$NOBODY_UID" --regid="$NOBODY_GID" --clear-groups -- "$@" <&0 & ;;
	u4242) setpriv --reuid=4242 --regid=4242 --clear-groups -- "$@" <&0 & ;;
	*) "$@" <&0 & ;;
	esac
	BG=$!
	pids+=("$BG")
}

# inside WAY MODE CMD...: CMD confined by the landlock helper alone
# (WAY=helper) or by the whole chain (WAY=run), as MODE (root or nobody).
# $NET is the policy's "network" ("none" or an object; for the helper an
# object means -H and one -c per connect port), $USERNS true adds -U /
# "user_namespaces": true, $EXTRA_R more read paths.
inside() {
	local way=$1 mode=$2 d args=() r=() x=() ports
	shift 2
	# The helper opens rule paths without following symlinks (the front
	# end resolves them): merged-/usr links are covered by /usr there.
	for d in /usr /bin /sbin /lib /lib64; do
		[ -e "$d" ] || continue
		[ "$way" = helper ] && [ -L "$d" ] && continue
		x+=("$d")
	done
	x+=("$TMP/bin")
	r=(/etc /proc "$TMP/ro" "${EXTRA_R[@]}")
	if [ "$way" = helper ]; then
		for d in "${x[@]}"; do args+=(-x "$d"); done
		for d in "${r[@]}"; do args+=(-r "$d"); done
		args+=(-w "$TMP/rw" -w /dev/null)
		if [ "$NET" != '"none"' ]; then
			args+=(-H)
			ports=$(printf '%s' "$NET" | "$PY" -c 'import json,sys; print(" ".join(map(str, json.load(sys.stdin).get("connect_tcp_ports", []))))')
			for d in $ports; do args+=(-c "$d"); done
		fi
		[ "$USERNS" = true ] && args+=(--userns)
		as_m "$mode" "$LANDLOCK" "${args[@]}" -- "$@"
	else
		write_policy "$TMP/p.json" "$("$PY" - "$NET" "${USERNS:-false}" "$TMP" "${r[*]}" "${x[*]}" <<-'EOF'
		import json, sys
		net, userns, tmp, r, x = sys.argv[1:]
		p = {"pbp": 1, "id": "seccomp-test",
		     "files": {"read": r.split(), "exec": x.split(), "write": [tmp + "/rw", "/dev/null"]},
		     "network": json.loads(net),
		     "process": {"no_new_privs": True}}
		if userns == "true":
		    p["process"]["user_namespaces"] = True
		print(json.dumps(p))
		EOF
		)"
		as_m "$mode" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$@"
	fi
}

# both MODE FN: FN WAY MODE for each way in.
both() {
	need "$1"
	"$2" helper "$1"
	"$2" run "$1"
}

# owner MODE FILE...: give FILEs to MODE's user.
owner() {
	local m=$1
	shift
	[ "$m" = nobody ] && chown "$NOBODY_UID:$NOBODY_GID" "$@"
	return 0
}

mode_of() { stat -c %a "$1"; }

# --- set-user-ID and set-group-ID bits ----------------------------------------

setid() {
	local way=$1 m=$2 op f
	for op in chmod fchmod fchmodat fchmodat2; do
		# Bare, the owner may set either bit on its own file.
		f=$TMP/bare/$op-$way
		: >"$f" && chmod 755 "$f" && owner "$m" "$f"
		run -0 as_m "$m" "$T" "$op" 4755 "$f"
		[ "$(mode_of "$f")" = 4755 ]
		f=$TMP/rw/$op-$way
		: >"$f" && chmod 755 "$f" && owner "$m" "$f"
		run -1 inside "$way" "$m" "$T" "$op" 4755 "$f"
		[ "$output" = "$EPERM" ]
		run -1 inside "$way" "$m" "$T" "$op" 2755 "$f"
		[ "$output" = "$EPERM" ]
		run -1 inside "$way" "$m" "$T" "$op" 6700 "$f"
		[ "$(mode_of "$f")" = 755 ]
		# Without a set-id bit it works, the sticky bit included.
		run -0 inside "$way" "$m" "$T" "$op" 1700 "$f"
		[ "$(mode_of "$f")" = 1700 ]
	done
	for op in mknod mknodat open openat creat; do
		run -0 as_m "$m" "$T" "$op" 4755 "$TMP/bare/$op-$way"
		[ "$(mode_of "$TMP/bare/$op-$way")" = 4755 ]
		run -1 inside "$way" "$m" "$T" "$op" 4755 "$TMP/rw/$op-$way"
		[ "$output" = "$EPERM" ]
		run -1 inside "$way" "$m" "$T" "$op" 2711 "$TMP/rw/$op-$way"
		[ "$output" = "$EPERM" ]
		[ ! -e "$TMP/rw/$op-$way" ]
		run -0 inside "$way" "$m" "$T" "$op" 0711 "$TMP/rw/$op-$way"
		[ "$(mode_of "$TMP/rw/$op-$way")" = 711 ]
	done
	# O_TMPFILE, then linked into the directory through /proc.
	mkdir -m 777 "$TMP/bare/t-$way" "$TMP/rw/t-$way"
	run -0 as_m "$m" "$T" tmpfile 4755 "$TMP/bare/t-$way"
	[ "$(mode_of "$TMP/bare/t-$way/tmpfile")" = 4755 ]
	run -1 inside "$way" "$m" "$T" tmpfile 4755 "$TMP/rw/t-$way"
	[ "$output" = "$EPERM" ]
	[ -z "$(ls -A "$TMP/rw/t-$way")" ]
	# A file in no list, owned by the target's user, keeps its mode too
	# (Landlock alone lets chmod through).
	f=$TMP/out/mine-$way
	: >"$f" && chmod 755 "$f" && owner "$m" "$f"
	run -1 inside "$way" "$m" "$T" chmod 4755 "$f"
	[ "$(mode_of "$f")" = 755 ]
	# And a root-owned one.
	: >"$TMP/out/root-$way" && chmod 755 "$TMP/out/root-$way"
	run -1 inside "$way" "$m" "$T" fchmodat2 6755 "$TMP/out/root-$way"
	[ "$(mode_of "$TMP/out/root-$way")" = 755 ]
}

@test "no set-user-ID or set-group-ID bit in any mode, by any syscall (root)" { both root setid; }
@test "no set-user-ID or set-group-ID bit in any mode, by any syscall (nobody)" { both nobody setid; }

# --- foreign ABIs --------------------------------------------------------------

foreign() {
	local way=$1 m=$2 f
	require_feature arch:x86_64
	f=$TMP/rw/abi-$way
	: >"$f" && chmod 644 "$f" && owner "$m" "$f"
	run -1 inside "$way" "$m" "$T" x32-chmod 4755 "$f"
	[ "$output" = "$ENOSYS" ]
	[ "$(mode_of "$f")" = 644 ]
	# int 0x80: i386 numbers (chmod is 15 there, not 90).
	run as_m "$m" "$T" i386-chmod 600 "$TMP/bare/abi-$way"
	if [ "$status" -gt 128 ]; then
		echo "# int 0x80 faults here (no i386 ABI in this kernel or VM)" >&3
		return 0
	fi
	run -1 inside "$way" "$m" "$T" i386-chmod 4755 "$f"
	[ "$output" = "$ENOSYS" ]
	[ "$(mode_of "$f")" = 644 ]
}

@test "syscalls of a foreign ABI (i386, x32) fail with ENOSYS (root)" { both root foreign; }
@test "syscalls of a foreign ABI (i386, x32) fail with ENOSYS (nobody)" { both nobody foreign; }

# --- openat2, clone3, io_uring ---------------------------------------------------

bypass() {
	local way=$1 m=$2
	echo data >"$TMP/ro/f"
	chmod 644 "$TMP/ro/f"
	for op in "openat2 $TMP/ro/f" clone3 io-uring; do
		run -0 as_m "$m" "$T" $op
		[ "$output" = ok ]
		run -1 inside "$way" "$m" "$T" $op
		[ "$output" = "$ENOSYS" ]
	done
	# What the C library does instead still works: open, fork, threads,
	# posix_spawn (glibc tries clone3 first for the last two), a shell
	# pipeline, python's subprocess.
	run -0 inside "$way" "$m" "$T" read "$TMP/ro/f"
	run -0 inside "$way" "$m" "$T" spawn
	[ "$output" = ok ]
	run -0 inside "$way" "$m" /bin/sh -c "cat $TMP/ro/f | tr a-z A-Z | { read l; echo \$l; }"
	[ "$output" = DATA ]
	run -0 inside "$way" "$m" "$PY" -c 'import subprocess, threading
t = threading.Thread(target=lambda: None); t.start(); t.join()
print(subprocess.run(["/bin/echo", "sub"], capture_output=True, check=True).stdout.decode().strip())'
	[ "$output" = sub ]
}

@test "openat2, clone3 and io_uring: ENOSYS; fork, threads, spawn, pipes still work (root)" { both root bypass; }
@test "openat2, clone3 and io_uring: ENOSYS; fork, threads, spawn, pipes still work (nobody)" { both nobody bypass; }

# clone3(CLONE_INTO_CGROUP) with a read-only directory descriptor would move
# a child into any cgroup v2 the caller may write to.
into_cgroup() {
	local way=$1 m=$2 base
	base=$(sed -n 's/^0:://p' /proc/self/cgroup)
	require_feature cgroup2-unified
	CG=/sys/fs/cgroup/unified${base%/}/sharness-exec-seccomp-$$-$way
	mkdir "$CG"
	run -0 "$T" clone3-cgroup "$CG"
	[ "$output" = "ok in DIR" ]
	EXTRA_R=("$CG")
	run -1 inside "$way" "$m" "$T" clone3-cgroup "$CG"
	[ "$output" = "$ENOSYS" ]
	[ -z "$(cat "$CG/cgroup.procs")" ]
	rmdir "$CG"
	CG=
}

@test "clone3 into a cgroup v2 is refused and the cgroup stays empty (root)" { both root into_cgroup; }

# --- keyrings ---------------------------------------------------------------------

keys() {
	local way=$1 m=$2 desc=sharness-exec-test-$$-$way
	# Bare, the user keyring takes and gives keys.
	run -0 as_m "$m" "$T" key-add "$desc-bare"
	run -0 as_m "$m" "$T" key-find "$desc-bare"
	# Inside: no key added, none read, none dropped.
	run -1 inside "$way" "$m" "$T" key-add "$desc"
	[ "$output" = "$EPERM" ]
	run -1 as_m "$m" "$T" key-find "$desc"
	[ "$output" = "refused: Required key not available" ]
	run -1 inside "$way" "$m" "$T" key-find "$desc-bare"
	[ "$output" = "$EPERM" ]
	run -1 inside "$way" "$m" "$T" key-drop "$desc-bare"
	[ "$output" = "$EPERM" ]
	run -0 as_m "$m" "$T" key-drop "$desc-bare"
}

@test "no keyctl, add_key or request_key: the user keyring is untouched (root)" { both root keys; }
@test "no keyctl, add_key or request_key: the user keyring is untouched (nobody)" { both nobody keys; }

# --- user namespaces --------------------------------------------------------------

userns() {
	local way=$1 m=$2 op
	require_feature userns
	for op in unshare-user clone-user; do
		run -0 as_m "$m" "$T" "$op"
		run -1 inside "$way" "$m" "$T" "$op"
		[ "$output" = "$EPERM" ]
		USERNS=true
		run -0 inside "$way" "$m" "$T" "$op"
		[ "$output" = ok ]
		USERNS=
	done
}

@test "no new user namespace unless -U / process.user_namespaces (root)" { both root userns; }
@test "no new user namespace unless -U / process.user_namespaces (nobody)" { both nobody userns; }

@test "run passes process.user_namespaces on as -U, and only then" {
	write_policy "$TMP/p.json" '{"pbp":1,"id":"u","network":"none","process":{"no_new_privs":true,"user_namespaces":true}}'
	run -0 "$SHARNESS_EXEC" run --dry-run -p "$TMP/p.json" -- true
	[[ "$output" == *sharness-exec-landlock*" --userns "* ]]
	for v in false; do
		write_policy "$TMP/p.json" '{"pbp":1,"id":"u","network":"none","process":{"no_new_privs":true,"user_namespaces":'$v'}}'
		run -0 "$SHARNESS_EXEC" run --dry-run -p "$TMP/p.json" -- true
		[[ "$output" != *" --userns "* ]]
	done
	write_policy "$TMP/p.json" '{"pbp":1,"id":"u","network":"none","process":{"no_new_privs":true}}'
	run -0 "$SHARNESS_EXEC" run --dry-run -p "$TMP/p.json" -- true
	[[ "$output" != *" --userns "* ]]
}

# --- vsock, leases ------------------------------------------------------------------

vsock() {
	local way=$1 m=$2 f
	for f in "sock vsock stream" "sock vsock dgram" "socketpair vsock stream"; do
		# The kernel itself would say EAFNOSUPPORT or ENODEV, or succeed.
		run -1 inside "$way" "$m" "$T" $f
		[ "$output" = "$EACCES" ]
	done
}

@test "no AF_VSOCK socket, in either network form (root)" { both root vsock; NET='{"connect_tcp_ports":[]}'; vsock helper root; vsock run root; }
@test "no AF_VSOCK socket, in either network form (nobody)" { both nobody vsock; NET='{"connect_tcp_ports":[]}'; vsock helper nobody; vsock run nobody; }

# hold_lease MODE FILE: a read lease on FILE, taken bare by MODE, held until
# fd 8 is closed.
hold_lease() {
	mkfifo "$TMP/fifo"
	exec 8<>"$TMP/fifo"
	bg_m "$1" "$T" lease "$2" <"$TMP/fifo" >"$TMP/lease.out" 2>&1 3>&- 8>&-
	for _ in $(seq 400); do
		[ -s "$TMP/lease.out" ] && break
		sleep 0.05
	done
	[ "$(cat "$TMP/lease.out")" = ok ]
}

lease() {
	local way=$1 m=$2 f=$TMP/ro/leased
	echo data >"$f"
	chmod 644 "$f"
	owner "$m" "$f"
	# Bare, the owner's lease makes an outside writer wait.
	hold_lease "$m" "$f"
	run -1 "$T" open-nb "$f"
	[ "$output" = "refused: Resource temporarily unavailable" ]
	exec 8>&-
	wait "$BG" || true
	# Inside, no lease: the outside writer goes straight through.
	run -1 inside "$way" "$m" "$T" lease "$f" </dev/null
	[ "$output" = "$EACCES" ]
	run -0 "$T" open-nb "$f"
	rm -f "$TMP/fifo" "$TMP/lease.out"
}

@test "no lease on a read-only file, outside writers never wait (root)" { both root lease; }
@test "no lease on a read-only file, outside writers never wait (nobody)" { both nobody lease; }

# --- processes outside --------------------------------------------------------------

# victim MODE: a sleep outside, owned by MODE's user; its pid in $victim.
victim() {
	bg_m "$1" sleep 300 </dev/null >/dev/null 2>&1 3>&-
	victim=$BG
	for _ in $(seq 400); do
		[ "$(readlink /proc/$victim/exe)" = "$(readlink -f "$(command -v sleep)")" ] && break
		sleep 0.05
	done
}

nofile() { awk '/^Max open files/ { print $4 }' "/proc/$1/limits"; }

outside() {
	local way=$1 m=$2 before
	victim "$m"
	# kill(-1, 0) asks whether anything at all could be signalled; bare
	# yes. Inside, a child in the same domain could be, so only the filter
	# makes it fail.
	run -0 as_m "$m" "$T" kill-all
	run -0 inside "$way" "$m" /bin/sh -c "sleep 100 & $T kill-all; kill \$!"
	[ "$output" = "$EPERM" ]
	# prlimit64 on the victim: bare it works (Landlock does not scope it).
	run -0 as_m "$m" "$T" prlimit "$victim" 77
	[ "$(nofile "$victim")" = 77 ]
	run -1 inside "$way" "$m" "$T" prlimit "$victim" 66
	# through the whole chain the victim is also outside the run's pid
	# namespace (the supervise step): not even found
	[ "$output" = "$EPERM" ] || { [ "$way" = run ] && [ "$output" = "refused: No such process" ]; }
	[ "$(nofile "$victim")" = 77 ]
	# Its own limits (pid 0) it may set, as setrlimit and ulimit do;
	# reading others' changes nothing.
	run -0 inside "$way" "$m" "$T" prlimit 0 64
	run -0 inside "$way" "$m" /bin/sh -c 'ulimit -n 50 && ulimit -n'
	[ "$output" = 50 ]
	if [ "$way" = helper ]; then
		run -0 inside "$way" "$m" "$T" prlimit "$victim"
		[ "$output" = 77 ]
	fi
	kill -0 "$victim"
}

@test "kill(-1) and prlimit on another process are refused, the victim keeps its limits (root)" { both root outside; }
@test "kill(-1) and prlimit on another process are refused, the victim keeps its limits (nobody)" { both nobody outside; }

# setpriority on a process group or a whole uid. Tried as uid 4242, a user
# of this test's own, so that the bare control renices nothing but this
# test's processes.
priority() {
	local way=$1
	bg_m u4242 sleep 300 </dev/null >/dev/null 2>&1 3>&-
	victim=$BG
	run -0 as_m u4242 "$T" priority user 7
	[ "$(ps -o ni= -p "$victim" | tr -d ' ')" = 7 ]
	run -1 inside "$way" u4242 "$T" priority user 9
	[ "$output" = "$EPERM" ]
	run -1 inside "$way" u4242 "$T" priority pgrp 9
	[ "$output" = "$EPERM" ]
	[ "$(ps -o ni= -p "$victim" | tr -d ' ')" = 7 ]
	run -0 inside "$way" u4242 "$T" priority which 3
}

@test "setpriority on a process group or a user is refused, one process may renice itself (uid 4242)" {
	need root
	require_feature nobody
	priority helper
	priority run
}

# --- the object form of "network" -------------------------------------------------

# listen: a new TCP listener outside on 127.0.0.1; $port, and $log (one
# line a connection accepted). listen.py quits after 30 s, so each phase of
# a test starts its own.
listen() {
	log=$TMP/listen.$((++nlisten)).log
	: >"$log"
	rm -f "$TMP/ready"
	"$PY" "$top_srcdir/tests/helpers/listen.py" tcp "$TMP/ready" "$log" 3>&- &
	pids+=($!)
	for _ in $(seq 400); do [ -e "$TMP/ready" ] && break; sleep 0.05; done
	port=$(cat "$TMP/ready")
}

# logged N: the listener has logged exactly N connections. An unconfined
# connect made last is awaited first: a refused attempt that got through
# anyway would have been logged before it.
logged() {
	local n=0
	run -0 "$T" connect "$port"
	for _ in $(seq 400); do
		n=$(wc -l <"$log")
		[ "$n" -ge "$1" ] && break
		sleep 0.05
	done
	[ "$n" = "$1" ]
}

sockets() {
	local way=$1 m=$2 s
	require_feature tool:"$PY"
	NET='{"connect_tcp_ports":[],"bind_tcp_ports":[]}'
	# Bare, each way in reaches the listener.
	listen
	for s in "connect $port mptcp" "tfo-sendto $port" "tfo-sendmsg $port" \
	         "tfo-sendmmsg $port" "io-uring-connect $port"; do
		run -0 as_m "$m" "$T" $s
		[ "$output" = ok ]
	done
	logged 6
	# Inside, none does, though it is the same user on the same network.
	listen
	for s in "connect $port mptcp" "tfo-sendto $port" "tfo-sendmsg $port" \
	         "tfo-sendmmsg $port"; do
		run -1 inside "$way" "$m" "$T" $s
		[ "$output" = "$EACCES" ]
	done
	run -1 inside "$way" "$m" "$T" io-uring-connect "$port"
	[ "$output" = "$ENOSYS" ]
	# Plain TCP to a port not granted: Landlock's own refusal.
	run -1 inside "$way" "$m" "$T" connect "$port"
	[ "$output" = "$EACCES" ]
	# TCP_FASTOPEN_CONNECT still goes through connect(2), and Landlock.
	run -1 inside "$way" "$m" "$T" tfo-connect "$port"
	[ "$output" = "$EACCES" ]
	logged 1
	# Granted, plain TCP and TCP_FASTOPEN_CONNECT reach it ...
	listen
	NET='{"connect_tcp_ports":['"$port"'],"bind_tcp_ports":[]}'
	run -0 inside "$way" "$m" "$T" connect "$port"
	[ "$output" = ok ]
	run -0 inside "$way" "$m" "$T" tfo-connect "$port"
	[ "$output" = ok ]
	# ... and MPTCP and Fast Open still do not, granted port or not.
	run -1 inside "$way" "$m" "$T" connect "$port" mptcp
	run -1 inside "$way" "$m" "$T" tfo-sendto "$port"
	logged 3
}

@test "object form: MPTCP, Fast Open and io_uring never reach an outside listener; TCP does where granted (root)" { both root sockets; }
@test "object form: MPTCP, Fast Open and io_uring never reach an outside listener; TCP does where granted (nobody)" { both nobody sockets; }

# serve WAY MODE PORT PROTO: an MPTCP (or other) server, bare or inside;
# $served is what it printed once an outside client tried it.
serve_mptcp() {
	local way=$1 m=$2 p
	p=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	NET='{"connect_tcp_ports":[],"bind_tcp_ports":[]}'
	# Bare: MPTCP binds and listens on any port, and serves.
	bg_m "$m" "$T" serve "$p" mptcp </dev/null >"$TMP/serve.out" 2>&1 3>&-
	for _ in $(seq 400); do [ -s "$TMP/serve.out" ] && break; sleep 0.05; done
	[ "$(head -1 "$TMP/serve.out")" = ok ]
	run -0 "$T" connect "$p"
	wait "$BG"
	[ "$(cat "$TMP/serve.out")" = ok$'\n'accepted ]
	# Inside: refused at socket(2), and nothing listens on the port.
	run -1 inside "$way" "$m" "$T" serve "$p" mptcp
	[ "$output" = "$EACCES" ]
	run -1 "$T" connect "$p"
	[ "$output" = "refused: Connection refused" ]
}

@test "object form: MPTCP bind and listen on a port not granted is refused (root)" { both root serve_mptcp; }
@test "object form: MPTCP bind and listen on a port not granted is refused (nobody)" { both nobody serve_mptcp; }

allowlist() {
	local way=$1 m=$2 s
	NET='{"connect_tcp_ports":[],"bind_tcp_ports":[]}'
	# SCTP: where the module loads, bare it works.
	run as_m "$m" "$T" sock inet stream sctp
	[ "$output" = ok ] || echo "# SCTP bare: $output" >&3
	for s in "sock inet stream sctp" "sock inet seqpacket sctp" "sock inet stream mptcp" \
	         "sock inet6 stream mptcp" "sock inet stream 256" "sock smc stream" \
	         "sock inet raw 1" "sock inet dgram 1" "sock inet6 dgram 58" "sock packet raw" \
	         "sock inet dgram" "sock inet6 dgram 17" "sock inet dgram 136" "sock vsock stream" \
	         "socketpair packet raw"; do
		run -1 inside "$way" "$m" "$T" $s
		[ "$output" = "$EACCES" ]
	done
	for s in "sock inet stream" "sock inet stream 6" "sock inet6 stream" \
	         "sock unix stream" "sock unix dgram" "sock netlink raw" "sock netlink dgram" \
	         "socketpair unix stream" "socketpair unix seqpacket"; do
		run -0 inside "$way" "$m" "$T" $s
		[ "$output" = ok ]
	done
	# "none" has a network namespace instead: no allowlist there.
	NET='"none"'
	for s in "sock inet dgram" "sock inet stream mptcp"; do
		run -0 inside "$way" "$m" "$T" $s
		[ "$output" = ok ]
	done
}

@test "object form: socket() is an allowlist (AF_UNIX, AF_NETLINK, TCP) (root)" { both root allowlist; }
@test "object form: socket() is an allowlist (AF_UNIX, AF_NETLINK, TCP) (nobody)" { both nobody allowlist; }
