#!/usr/bin/env bats
# Rights and walls (rights.c; DESIGN.md 4.7): strict mode holds on the
# Landlock ABIs users' kernels have, because the view and the namespaces
# hold what an older ABI lacks, and refuses only what no wall holds. The
# test front end's SHARNESS_EXEC_TEST_ABI=N has every step take ABI N: it
# simulates the ruleset, not the rest of an older kernel (the kernel
# matrix, tests/kernels, boots Debian 12's 6.1 for real). Each attack is
# tried from inside and refused, with nothing outside changed, after the
# same thing is shown to work bare.
load ../helpers/load

setup() {
	setup_tmp
	mkdir -m 777 "$TMP/rw" "$TMP/rw/a" "$TMP/rw/b" "$TMP/out"
	echo data >"$TMP/rw/a/f"
	chmod 666 "$TMP/rw/a/f"
	pids=()
}

teardown() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	teardown_tmp
}

# battery ABI [FILTER]: tests/confine.bats, strict, at simulated ABI ABI.
# Only the tests of what Landlock alone holds there may skip, and say so.
battery() {
	require_feature landlock
	run env SHARNESS_EXEC_TEST_ABI="$1" bats ${2:+--filter "$2"} "$top_srcdir/tests/attack/confine.bats"
	printf '%s\n' "$output" | grep -E '^not ok|# sk[i]p' || true
	[ "$status" = 0 ]
	[ "$(printf '%s\n' "$output" | grep -c '^ok ')" -ge 20 ]
	! printf '%s\n' "$output" | grep -E '# sk[i]p' | grep -vE '# sk[i]p needs Landlock ABI 6, this kernel has ABI '
}

@test "the confine battery holds strict at simulated Landlock ABI 1" { battery 1; }
@test "the confine battery holds strict at simulated Landlock ABI 2 (Debian 12's 6.1)" { battery 2; }
@test "the confine battery holds strict at simulated Landlock ABI 3" { battery 3; }
@test "the confine battery holds strict at simulated Landlock ABI 4 (Ubuntu 24.04's 6.8)" { battery 4; }
@test "the confine battery holds strict at simulated Landlock ABI 5 (6.11)" { battery 5; }
@test "the confine battery holds strict at simulated Landlock ABI 6" { battery 6; }
# Without Landlock the tests whose target has a file on 0-2 are left out:
# with /proc granted they are refused (the next tests).
@test "the confine battery holds strict without Landlock (ABI 0), on the view and the namespaces alone" {
	battery 0 '^(files: |truncate|rename|writing through|exec from|network none|an abstract|kill and ptrace|/proc/|the target holds|TIOCSTI|a memory cap|a pids cap)'
}

policy() { # NETWORK [READ-EXTRA]
	chain_policy walls "${1:-\"none\"}" '"/etc","/proc"'"${2:+,$2}" '"'"$TMP"'/rw","/dev/null"'
}

# at MODE ABI ARGS...: sharness-exec ARGS as MODE, every step at simulated
# ABI ABI. Without Landlock (0), with /proc granted, a file on 0-2 is
# refused: there stdin is /dev/null and stderr joins stdout, a pipe.
at() {
	local m=$1 abi=$2
	shift 2
	if [ "$abi" = 0 ]; then
		as "$m" env SHARNESS_EXEC_TEST_ABI=0 "$SHARNESS_EXEC" "$@" </dev/null 2>&1 | cat
		return "${PIPESTATUS[0]}"
	fi
	as "$m" env SHARNESS_EXEC_TEST_ABI="$abi" "$SHARNESS_EXEC" "$@"
}

t_exdev() {
	local m=$1
	need "$m"
	policy
	# ABI 1 holds FS_REFER by refusing every move across directories,
	# inside a write path too; ABI 2 allows what the policy does.
	run -1 --separate-stderr at "$m" 1 run -p "$TMP/p.json" -- "$TRY" rename "$TMP/rw/a/f" "$TMP/rw/b/f"
	[ "$output" = "refused: Invalid cross-device link" ]
	run -1 --separate-stderr at "$m" 1 run -p "$TMP/p.json" -- "$TRY" link "$TMP/rw/a/f" "$TMP/rw/b/g"
	[ "$output" = "refused: Invalid cross-device link" ]
	[ -e "$TMP/rw/a/f" ] && [ ! -e "$TMP/rw/b/f" ] && [ ! -e "$TMP/rw/b/g" ]
	run -0 --separate-stderr at "$m" 1 run --check -p "$TMP/p.json"
	[[ "${lines[-1]}" == *" rights=FS:landlock,FS_REFER:landlock-exdev,"* ]]
	run -0 --separate-stderr at "$m" 2 run -p "$TMP/p.json" -- "$TRY" rename "$TMP/rw/a/f" "$TMP/rw/b/f"
	[ -e "$TMP/rw/b/f" ] && [ ! -e "$TMP/rw/a/f" ]
}

@test "ABI 1: a rename or link across directories fails with EXDEV, inside a write path too; ABI 2 allows it (root)" { t_exdev root; }
@test "ABI 1: a rename or link across directories fails with EXDEV, inside a write path too; ABI 2 allows it (nobody)" { t_exdev nobody; }

t_tcp_old() {
	local m=$1
	need "$m"
	policy '{"connect_tcp_ports":[80],"bind_tcp_ports":[8080]}'
	run -126 --separate-stderr at "$m" 3 run -p "$TMP/p.json" -- "$TRY" create "$TMP/rw/ran"
	[ ! -e "$TMP/rw/ran" ]
	# The object form keeps the host's network, whose abstract sockets
	# only Landlock's scope (ABI 6) keeps in: it is named too.
	[ "${stderr_lines[0]}" = "sharness-exec-landlock: fatal: unable to confine with Landlock ABI 3: no wall of this run holds SCOPE_ABSTRACT_UNIX_SOCKET, NET_BIND_TCP, NET_CONNECT_TCP" ]
	[ "${stderr_lines[1]}" = "hint: SCOPE_ABSTRACT_UNIX_SOCKET: Landlock ABI 6 (Linux 6.12) or a network namespace (\"network\": \"none\"); NET_BIND_TCP, NET_CONNECT_TCP: Landlock ABI 4 (Linux 6.7); -b (--best-effort) runs without them" ]
	[ "${#stderr_lines[@]}" = 2 ]
	run -0 --separate-stderr at "$m" 3 run -b -p "$TMP/p.json" -- "$TRY" create "$TMP/rw/ran"
	[ -e "$TMP/rw/ran" ]
	[ "$stderr" = "sharness-exec-landlock: warning: Landlock ABI 3: best effort: dropped SCOPE_ABSTRACT_UNIX_SOCKET, NET_BIND_TCP, NET_CONNECT_TCP" ]
	# At ABI 4 and 5 only the abstract sockets are left to refuse for.
	run -126 --separate-stderr at "$m" 5 run -p "$TMP/p.json" -- true
	[ "${stderr_lines[0]}" = "sharness-exec-landlock: fatal: unable to confine with Landlock ABI 5: no wall of this run holds SCOPE_ABSTRACT_UNIX_SOCKET" ]
}

@test "the object form with TCP ports below ABI 4: 126 naming NET_BIND_TCP and NET_CONNECT_TCP; -b runs and names them (root)" { t_tcp_old root; }
@test "the object form with TCP ports below ABI 4: 126 naming NET_BIND_TCP and NET_CONNECT_TCP; -b runs and names them (nobody)" { t_tcp_old nobody; }

@test "run --check names the wall holding each right at ABI 3: the view, the namespaces, the filter" {
	need root
	policy
	run -0 --separate-stderr at root 3 run --check -p "$TMP/p.json"
	[[ "${lines[-1]}" == *" rights=FS:landlock,FS_REFER:landlock,FS_TRUNCATE:landlock,FS_METADATA:view,FS_IOCTL_DEV:view,FS_RESOLVE_UNIX:view,FS_RESOLVE_UNIX_WRITE:view,SCOPE_ABSTRACT_UNIX_SOCKET:netns,SCOPE_SIGNAL:pidns+seccomp,PTRACE:landlock,IPC:ipcns,NETWORK:netns" ]]
	run -0 --separate-stderr at root 2 run --check -p "$TMP/p.json"
	[[ "${lines[-1]}" == *",FS_TRUNCATE:view,"* ]]
	run -0 --separate-stderr at root 0 run --check -p "$TMP/p.json"
	[[ "${lines[-1]}" == *" abi=0 "*" rights=FS:view,FS_REFER:view,FS_TRUNCATE:view,"*",PTRACE:pidns+seccomp,"* ]]
}

t_device() {
	local m=$1
	need "$m"
	[ -c /dev/kmsg ] || not_here file:/dev/kmsg "no /dev/kmsg to name"
	# A node of its own in a read path: below ABI 5 its ioctls are held
	# by nothing (the view binds it so it can be opened).
	policy '"none"' '"/dev/kmsg"'
	run -126 --separate-stderr at "$m" 4 run -p "$TMP/p.json" -- "$TRY" create "$TMP/rw/ran"
	[ "${stderr_lines[0]}" = "sharness-exec-landlock: fatal: unable to confine with Landlock ABI 4: no wall of this run holds FS_IOCTL_DEV" ]
	[ ! -e "$TMP/rw/ran" ]
	run -0 --separate-stderr at "$m" 5 run -p "$TMP/p.json" -- "$TRY" create "$TMP/rw/ran"
	# /dev named whole is the minimal /dev, whose nodes reach no hardware.
	policy '"none"' '"/dev"'
	run -0 --separate-stderr at "$m" 4 run -p "$TMP/p.json" -- "$TRY" create "$TMP/rw/ran2"
	[ -e "$TMP/rw/ran2" ] && [ -z "$stderr" ]
}

@test "below ABI 5 a device node named in a read path is refused (FS_IOCTL_DEV); the minimal /dev runs (root)" { t_device root; }
@test "below ABI 5 a device node named in a read path is refused (FS_IOCTL_DEV); the minimal /dev runs (nobody)" { t_device nobody; }

t_socket_dirs() {
	local m=$1
	need "$m"
	[ "$(landlock_abi)" -lt 9 ] || not_here landlock-below-9 "this kernel has RESOLVE_UNIX (ABI $(landlock_abi))"
	# Why: a read-only bind does not refuse connect(2). A listener beneath
	# a read path is reached from inside below ABI 9.
	python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1); print("up", flush=True)
c, _ = s.accept(); open(sys.argv[2], "w").write("connected\n")' "$TMP/out/sock" "$TMP/out/log" >"$TMP/up" &
	pids+=($!)
	for _ in $(seq 200); do [ -s "$TMP/up" ] && break; sleep 0.05; done
	chmod 777 "$TMP/out/sock"
	policy '"none"' '"'"$TMP"'/out"'
	# (Strict mode finds it listening at the start and refuses, naming
	# it: tests/planted.bats. Best effort runs, and it is reached.)
	run -0 --separate-stderr at "$m" 7 run -b -p "$TMP/p.json" -- python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).connect(sys.argv[1])' "$TMP/out/sock"
	[[ "$stderr" == *"dropped FS_RESOLVE_UNIX_READ; connect(2) reaches \"$TMP/out/sock\" beneath files.read[2] \"$TMP/out\"" ]]
	for _ in $(seq 200); do [ -s "$TMP/out/log" ] && break; sleep 0.05; done
	[ "$(cat "$TMP/out/log")" = connected ]
	# So a read or exec path that holds a daemon's sockets (/run, or
	# / above it) is refused: the system bus, docker.sock.
	for path in /run /var; do
		policy '"none"' '"'"$path"'"'
		run -126 --separate-stderr at "$m" 7 run -p "$TMP/p.json" -- "$TRY" create "$TMP/rw/ran"
		[ "${stderr_lines[0]}" = "sharness-exec-landlock: fatal: unable to confine with Landlock ABI $(landlock_abi): no wall of this run holds FS_RESOLVE_UNIX_READ" ]
		[ "${stderr_lines[1]}" = "hint: FS_RESOLVE_UNIX_READ: Landlock ABI 9 (Linux 7.1), or read paths (files.read, -r) narrower than $path, which holds daemons' sockets (/run, /var/lib/docker); -b (--best-effort) runs without them" ]
		[ ! -e "$TMP/rw/ran" ]
	done
}

@test "below ABI 9 a read path holding a daemon's sockets is refused, since connect(2) goes through a read-only bind (root)" { t_socket_dirs root; }
@test "below ABI 9 a read path holding a daemon's sockets is refused, since connect(2) goes through a read-only bind (nobody)" { t_socket_dirs nobody; }

t_no_landlock_init() {
	local m=$1
	need "$m"
	policy
	# Without Landlock, what the target can address in its pid namespace
	# (init, pid 1) keeps capabilities the target lacks: no ptrace, no
	# /proc/1/root (the host's root), /proc/1/fd or process_vm_readv.
	run -1 --separate-stderr at "$m" 0 run -p "$TMP/p.json" -- "$TRY" ptrace 1
	[ "$output" = "refused: Operation not permitted" ]
	run -1 --separate-stderr at "$m" 0 run -p "$TMP/p.json" -- "$TRY" vmread 1
	[ "$output" = "refused: Operation not permitted" ]
	run -1 --separate-stderr at "$m" 0 run -p "$TMP/p.json" -- "$TRY" read /proc/1/root/etc/hostname
	[[ "$output" == "refused: "* ]]
	run --separate-stderr at "$m" 0 run -p "$TMP/p.json" -- ls /proc/1/fd
	[ "$status" != 0 ]
	! printf '%s\n' "$output" | grep -qxE '[0-9]+' 
	# A sibling of its own it may trace (the control).
	run -0 --separate-stderr at "$m" 0 run -p "$TMP/p.json" -- sh -c 'sleep 30 & "$1" vmread $!; kill $!' _ "$TRY"
	[ "$output" = "refused: Bad address" ] || [ "$output" = ok ]
}

@test "without Landlock, init survives ptrace, /proc/1/root, /proc/1/fd and process_vm_readv (root)" { t_no_landlock_init root; }
@test "without Landlock, init survives ptrace, /proc/1/root, /proc/1/fd and process_vm_readv (nobody)" { t_no_landlock_init nobody; }

@test "without Landlock and with /proc granted, a file on 0-2 is refused (it would be reopened); -b says so and runs" {
	need root
	policy
	echo secret >"$TMP/out/in"
	SHARNESS_EXEC_TEST_ABI=0 run -126 --separate-stderr "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TRY" create "$TMP/rw/ran" <"$TMP/out/in"
	[ "${stderr_lines[0]}" = "sharness-exec-landlock: fatal: refused: descriptor 0 is a file that /proc/self/fd would reopen, and no Landlock ruleset checks that open" ]
	[ ! -e "$TMP/rw/ran" ]
	SHARNESS_EXEC_TEST_ABI=0 run -0 --separate-stderr "$SHARNESS_EXEC" run -b -p "$TMP/p.json" -- "$TRY" create "$TMP/rw/ran" <"$TMP/out/in"
	[[ "$stderr" == *"warning: best effort: descriptor 0 is a file that /proc/self/fd would reopen with any mode its inode allows"* ]]
	# With Landlock the open through /proc/self/fd is checked: it runs.
	run -0 --separate-stderr "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TRY" create "$TMP/rw/ran3" <"$TMP/out/in"
}
