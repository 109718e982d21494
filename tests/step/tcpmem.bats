#!/usr/bin/env bats
# TCP socket buffers under the memory cap (DESIGN.md 4.4, issue 24 item 5):
# cgroup v1 counts them apart from memory.limit_in_bytes, and only once
# memory.kmem.tcp.limit_in_bytes is written, which sharness-exec-limits
# does before the target runs. The target fills unread loopback TCP pairs
# in its own network namespace ("none"), with non-blocking writes until
# EAGAIN, and prints the bytes queued.
#
# Measured here (kernel 6.18, net.core.wmem_max 4 MiB, net.ipv4.tcp_mem
# 287892 383858 575784 pages, so about 2.2 GiB host-wide): with SO_SNDBUF
# 4 MiB each pair queues about 8 MiB, so 40 pairs queue about 316 MiB bare,
# and about 62 MiB under max_memory_mb 64; with the write of the file taken
# out of limits, the capped run queued the same 316 MiB as bare. A kernel without the file is stood in
# for by a plain directory laid out as a v1 memory cgroup.
# not tested: cgroup v2, which charges socket memory to memory.current (no
# v2 controllers here; tests/unit/test-cgroup covers that nothing is
# written there); UDP, which cgroup v1 does not count (documented).
load ../helpers/load

PAIRS=40
CAP_MIB=64

setup() {
	setup_tmp
	cat >"$TMP/fill.py" <<'PY'
import socket, sys
pairs, total, keep = int(sys.argv[1]), 0, []
chunk = b"x" * 65536
try:
    for _ in range(pairs):
        l = socket.socket()
        l.bind(("127.0.0.1", 0))
        l.listen(1)
        c = socket.socket()
        c.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
        c.connect(l.getsockname())
        s, _ = l.accept()
        keep += [l, c, s]
        c.setblocking(False)
        while True:
            try:
                total += c.send(chunk)
            except (BlockingIOError, InterruptedError):
                break
except OSError as e:
    print("stopped:", e, file=sys.stderr)
print(total)
PY
	chmod 644 "$TMP/fill.py"
}

t_fill() { # PROCESS: the bytes the target queued, in $queued
	chain_policy tcpmem '"none"' '"/etc","'"$TMP"'"' '' '' "$1"
	run -0 --separate-stderr "$SHARNESS_EXEC" run -p "$TMP/p.json" -- /usr/bin/python3 "$TMP/fill.py" "$PAIRS"
	queued=$output
	[[ "$queued" =~ ^[0-9]+$ ]]
}

@test "root, cgroup v1: unread TCP buffers stay within the memory cap, bare they go far past it" {
	require_feature root
	require_feature landlock
	require_feature cgroup1
	require_feature file:/usr/bin/python3
	own=$(sed -n 's/^[0-9]*:memory:\(.*\)$/\1/p' /proc/self/cgroup)
	before=$(cat "/sys/fs/cgroup/memory$own/memory.kmem.tcp.limit_in_bytes")
	# bare, no cap: the same program queues more than 3 times the cap,
	# or this machine's TCP limits leave nothing to test
	t_fill ''
	echo "bare: $queued bytes queued" >&3
	[ "$queued" -gt $((3 * CAP_MIB << 20)) ]
	# capped: less than twice the cap (the kernel overshoots a little)
	t_fill ',"max_memory_mb":'"$CAP_MIB"
	echo "capped at $CAP_MIB MiB: $queued bytes queued" >&3
	[ "$queued" -lt $((2 * CAP_MIB << 20)) ]
	# the caller's own cgroup is as it was
	[ "$(cat "/sys/fs/cgroup/memory$own/memory.kmem.tcp.limit_in_bytes")" = "$before" ]
}

@test "a v1 cgroup without memory.kmem.tcp.limit_in_bytes: refused (126) naming max_memory_mb and TCP buffers, or under -b a warning, and the caps written" {
	# a directory laid out as a v1 memory cgroup of a kernel without the
	# file (plain files: limits writes them as cgroupfs would take them)
	mkdir "$TMP/cg"
	: >"$TMP/cg/cgroup.procs"
	: >"$TMP/cg/memory.limit_in_bytes"
	run -126 --separate-stderr "$LIMITS" -g "$TMP/cg" -m 64 -- touch "$TMP/ran"
	[ "$stderr" = "sharness-exec-limits: fatal: unable to cap memory (max_memory_mb 64): cgroup v1 $TMP/cg has no memory.kmem.tcp.limit_in_bytes, so TCP buffers would escape the cap" ]
	[ ! -e "$TMP/ran" ]
	[ -z "$(cat "$TMP/cg/cgroup.procs")" ]
	run -0 --separate-stderr "$LIMITS" -b -g "$TMP/cg" -m 64 -- touch "$TMP/ran"
	[ "$stderr" = "sharness-exec-limits: warning: best effort: cgroup v1 $TMP/cg has no memory.kmem.tcp.limit_in_bytes: TCP buffers are not capped (max_memory_mb 64)" ]
	[ -e "$TMP/ran" ]
	[ "$(cat "$TMP/cg/memory.limit_in_bytes")" = 67108864 ]
	# with the file, it gets the cap too, and no line
	: >"$TMP/cg/memory.kmem.tcp.limit_in_bytes"
	run -0 --separate-stderr "$LIMITS" -g "$TMP/cg" -m 64 -- true
	[ -z "$stderr" ]
	[ "$(cat "$TMP/cg/memory.kmem.tcp.limit_in_bytes")" = 67108864 ]
}
