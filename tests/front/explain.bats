#!/usr/bin/env bats
# run --explain (DESIGN.md 4.7; explain.h): init traces the target and,
# when it ends, names every access the policy refused or hid, with its
# kind, errno, whether the path exists outside, and the policy change that
# would allow it. Each of issue 26's ten cases is tried as root and as
# nobody, through the full chain and under the seccomp fallback (a filter
# refusing unshare(2): no namespace, Landlock alone), and must be named
# with the right kind and suggestion and nothing else; the same thing is
# first shown to work bare (or, for the absent file, to fail bare too),
# the target's own answer is the same without --explain, and nothing
# outside changed. Then the observer is attacked: a second thread
# swapping the path under the kernel, signals and ptrace at init, init's
# memory and descriptors.
load ../helpers/load

DENY_UNSHARE="$TRYDIR/deny-unshare"
X="sharness-exec-explain: explain: "

setup() {
	setup_tmp
	mkdir -m 755 "$TMP/out" "$TMP/out/d" "$TMP/ro" "$TMP/home" "$TMP/in" "$TMP/ou"
	mkdir -m 777 "$TMP/rw"
	chmod 777 "$TMP/home"
	echo outside >"$TMP/out/f"
	echo inside >"$TMP/ro/f"
	chmod 666 "$TMP/ro/f"
	cp /bin/true "$TMP/ro/prog"
	chmod 755 "$TMP/ro/prog"
	echo decoy >"$TMP/in/f"
	echo secret >"$TMP/ou/f"
	pids=()
}

teardown() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	teardown_tmp
}

# policy [NETWORK]: read /etc and $TMP/ro, write $TMP/rw and /dev/null;
# nothing else of $TMP.
policy() {
	chain_policy explain "${1:-\"none\"}" '"/etc","'"$TMP"'/ro"' '"'"$TMP"'/rw","/dev/null"'
}

# confined MODE CHAIN [--explain] ARGS...: sharness-exec run as MODE (root
# or nobody), through the full chain or the fallback (no namespace: as
# root the view then needs --best-effort).
confined() {
	local m=$1 c=$2 pre=()
	shift 2
	if [ "$c" = fallback ]; then
		pre=("$DENY_UNSHARE")
		[ "$m" = root ] && set -- --best-effort "$@"
	fi
	as "$m" "${pre[@]}" "$SHARNESS_EXEC" run "$@"
}

# explained MODE CHAIN LINE CMD...: CMD confined with --explain gives the
# same stdout and status as without, and its explain lines are LINE alone.
explained() {
	local m=$1 c=$2 want=$3 out st
	shift 3
	run --separate-stderr confined "$m" "$c" -p "$TMP/p.json" -- "$@"
	out=$output st=$status
	run --separate-stderr confined "$m" "$c" --explain -p "$TMP/p.json" -- "$@"
	[ "$output" = "$out" ] && [ "$status" = "$st" ]
	printf '%s\n' "$stderr" | grep "^$X" >"$TMP/explained" || true
	cat "$TMP/explained"
	[ "$(cat "$TMP/explained")" = "$X$want" ]
}

# errno_of CHAIN VIEW LANDLOCK: what the target sees, with the view or
# with Landlock alone.
errno_of() {
	if [ "$1" = fallback ]; then echo "$3"; else echo "$2"; fi
}

ENOENT="ENOENT (No such file or directory)"
EACCES="EACCES (Permission denied)"
EROFS="EROFS (Read-only file system)"

t_read() {
	need "$1"; policy
	run -0 as "$1" "$TRY" read "$TMP/out/f"
	explained "$1" "$2" "read $TMP/out/f: $(errno_of "$2" "$ENOENT" "$EACCES"), hidden by the policy, 1 time; allow with \"files\": {\"read\": [\"$TMP/out\"]}" \
		"$TRY" read "$TMP/out/f"
}

t_list() {
	need "$1"; policy
	run -0 as "$1" "$TRY" list "$TMP/out/d"
	explained "$1" "$2" "list $TMP/out/d: $(errno_of "$2" "$ENOENT" "$EACCES"), hidden by the policy, 1 time; allow with \"files\": {\"read\": [\"$TMP/out/d\"]}" \
		"$TRY" list "$TMP/out/d"
}

t_write_read_path() {
	need "$1"; policy
	cp "$TMP/ro/f" "$TMP/f.bak"
	run -0 as "$1" "$TRY" write "$TMP/ro/f"
	cp "$TMP/f.bak" "$TMP/ro/f"
	explained "$1" "$2" "write $TMP/ro/f: $(errno_of "$2" "$EROFS" "$EACCES"), refused by the policy, 1 time; allow with \"files\": {\"write\": [\"$TMP/ro/f\"]}" \
		"$TRY" write "$TMP/ro/f"
	cmp "$TMP/f.bak" "$TMP/ro/f"
}

t_create_home() {
	need "$1"; policy
	run -0 as "$1" env HOME="$TMP/home" /bin/sh -c ': >"$HOME/new"'
	rm "$TMP/home/new"
	HOME="$TMP/home" explained "$1" "$2" "create $TMP/home/new: $(errno_of "$2" "$ENOENT" "$EACCES"), hidden by the policy, 1 time; allow with \"files\": {\"write\": [\"$TMP/home\"]}" \
		/bin/sh -c ': >"$HOME/new" 2>/dev/null'
	[ ! -e "$TMP/home/new" ]
}

t_exec_read_path() {
	need "$1"; policy
	run -0 as "$1" "$TRY" exec "$TMP/ro/prog"
	explained "$1" "$2" "exec $TMP/ro/prog: $EACCES, refused by the policy, 1 time; allow with \"files\": {\"exec\": [\"$TMP/ro\"]}" \
		"$TRY" exec "$TMP/ro/prog"
}

t_unix_socket() {
	need "$1"; policy
	listener unix "$TMP/out/sock"
	chmod 777 "$TMP/out/sock"
	run -0 as "$1" "$TRY" unix-connect "$TMP/out/sock"
	if [ "$2" = fallback ] && [ "$(landlock_abi)" -lt 9 ]; then
		# Landlock alone holds pathname sockets from ABI 9 only (the
		# view step's warning says so): nothing is refused, nothing named.
		explained "$1" "$2" "nothing was refused or hidden" "$TRY" unix-connect "$TMP/out/sock"
		return
	fi
	explained "$1" "$2" "connect to UNIX socket $TMP/out/sock: $(errno_of "$2" "$ENOENT" "$EACCES"), hidden by the policy, 1 time; allow with \"files\": {\"sockets\": [\"$TMP/out/sock\"]}" \
		"$TRY" unix-connect "$TMP/out/sock"
}

t_tcp_none() {
	need "$1"; policy
	listener tcp
	run -0 as "$1" "$TRY" connect "$port"
	if [ "$2" = fallback ]; then
		explained "$1" "$2" "TCP connect or bind AF_INET: EAFNOSUPPORT (Address family not supported by protocol), refused by the seccomp filter, 1 time; no policy change allows it: no network namespace could be made here, and the seccomp fallback refuses every socket but AF_UNIX (the object form of \"network\" keeps the host's network, with its ports)" \
			"$TRY" connect "$port"
		return
	fi
	explained "$1" "$2" "TCP connect 127.0.0.1:$port: ECONNREFUSED (Connection refused), hidden by the policy, 1 time; allow with \"network\": {\"connect_tcp_ports\": [$port]}" \
		"$TRY" connect "$port"
}

t_tcp_port() {
	need "$1"
	require_feature landlock-abi:4
	listener tcp
	policy '{"connect_tcp_ports":['"$((port == 65535 ? 1 : port + 1))"']}'
	run -0 as "$1" "$TRY" connect "$port"
	explained "$1" "$2" "TCP connect 127.0.0.1:$port: $EACCES, refused by the policy, 1 time; allow with \"network\": {\"connect_tcp_ports\": [$port]}" \
		"$TRY" connect "$port"
}

t_openat2() {
	need "$1"; policy
	run -0 as "$1" "$TRY" openat2 "$TMP/ro/f"
	explained "$1" "$2" "read $TMP/ro/f: ENOSYS (Function not implemented), refused by the seccomp filter, 1 time; no policy change allows it: the filter refuses openat2 always (its flags and mode lie behind a pointer); libc falls back to openat" \
		"$TRY" openat2 "$TMP/ro/f"
}

t_absent() {
	need "$1"; policy
	run -1 as "$1" "$TRY" read "$TMP/gone/x"
	explained "$1" "$2" "read $TMP/gone/x: $ENOENT, absent, 1 time; no policy change allows it: it exists nowhere, outside the run either" \
		"$TRY" read "$TMP/gone/x"
}

@test "explain (root, full chain): a file read outside the policy" { t_read root chain; }
@test "explain (root, full chain): a directory listed outside the policy" { t_list root chain; }
@test "explain (root, full chain): a write into a read path" { t_write_read_path root chain; }
@test "explain (root, full chain): a create in HOME outside the policy" { t_create_home root chain; }
@test "explain (root, full chain): an exec of a program only in a read path" { t_exec_read_path root chain; }
@test "explain (root, full chain): a connect to a pathname socket outside the policy" { t_unix_socket root chain; }
@test "explain (root, full chain): a TCP connect under none" { t_tcp_none root chain; }
@test "explain (root, full chain): a TCP connect to a port the object form does not list" { t_tcp_port root chain; }
@test "explain (root, full chain): an openat2 the filter refused" { t_openat2 root chain; }
@test "explain (root, full chain): a file that exists nowhere, named absent" { t_absent root chain; }
@test "explain (nobody, full chain): a file read outside the policy" { t_read nobody chain; }
@test "explain (nobody, full chain): a directory listed outside the policy" { t_list nobody chain; }
@test "explain (nobody, full chain): a write into a read path" { t_write_read_path nobody chain; }
@test "explain (nobody, full chain): a create in HOME outside the policy" { t_create_home nobody chain; }
@test "explain (nobody, full chain): an exec of a program only in a read path" { t_exec_read_path nobody chain; }
@test "explain (nobody, full chain): a connect to a pathname socket outside the policy" { t_unix_socket nobody chain; }
@test "explain (nobody, full chain): a TCP connect under none" { t_tcp_none nobody chain; }
@test "explain (nobody, full chain): a TCP connect to a port the object form does not list" { t_tcp_port nobody chain; }
@test "explain (nobody, full chain): an openat2 the filter refused" { t_openat2 nobody chain; }
@test "explain (nobody, full chain): a file that exists nowhere, named absent" { t_absent nobody chain; }
@test "explain (root, seccomp fallback): a file read outside the policy" { t_read root fallback; }
@test "explain (root, seccomp fallback): a directory listed outside the policy" { t_list root fallback; }
@test "explain (root, seccomp fallback): a write into a read path" { t_write_read_path root fallback; }
@test "explain (root, seccomp fallback): a create in HOME outside the policy" { t_create_home root fallback; }
@test "explain (root, seccomp fallback): an exec of a program only in a read path" { t_exec_read_path root fallback; }
@test "explain (root, seccomp fallback): a connect to a pathname socket outside the policy" { t_unix_socket root fallback; }
@test "explain (root, seccomp fallback): a TCP connect under none" { t_tcp_none root fallback; }
@test "explain (root, seccomp fallback): a TCP connect to a port the object form does not list" { t_tcp_port root fallback; }
@test "explain (root, seccomp fallback): an openat2 the filter refused" { t_openat2 root fallback; }
@test "explain (root, seccomp fallback): a file that exists nowhere, named absent" { t_absent root fallback; }
@test "explain (nobody, seccomp fallback): a file read outside the policy" { t_read nobody fallback; }
@test "explain (nobody, seccomp fallback): a directory listed outside the policy" { t_list nobody fallback; }
@test "explain (nobody, seccomp fallback): a write into a read path" { t_write_read_path nobody fallback; }
@test "explain (nobody, seccomp fallback): a create in HOME outside the policy" { t_create_home nobody fallback; }
@test "explain (nobody, seccomp fallback): an exec of a program only in a read path" { t_exec_read_path nobody fallback; }
@test "explain (nobody, seccomp fallback): a connect to a pathname socket outside the policy" { t_unix_socket nobody fallback; }
@test "explain (nobody, seccomp fallback): a TCP connect under none" { t_tcp_none nobody fallback; }
@test "explain (nobody, seccomp fallback): a TCP connect to a port the object form does not list" { t_tcp_port nobody fallback; }
@test "explain (nobody, seccomp fallback): an openat2 the filter refused" { t_openat2 nobody fallback; }
@test "explain (nobody, seccomp fallback): a file that exists nowhere, named absent" { t_absent nobody fallback; }

t_probe() {
	need "$1"; policy
	# A stat and an access (test -e, test -r) of a hidden file fail as
	# its open would: named as its read. Of a file that exists nowhere:
	# nothing (most probes are). Landlock alone hides nothing from stat.
	run -0 as "$1" /bin/sh -c '[ -e "$1" ] && [ -r "$1" ]' sh "$TMP/out/f"
	explained "$1" chain "read $TMP/out/f: $ENOENT, hidden by the policy, 2 times; allow with \"files\": {\"read\": [\"$TMP/out\"]}" \
		/bin/sh -c '[ -e "$1" ] || [ -r "$1" ] || [ -e "$2" ] || echo none' sh "$TMP/out/f" "$TMP/gone/x"
	[ "$output" = none ]
}

@test "explain (root, full chain): a stat or access probe of a hidden file is named, of an absent one not" { t_probe root; }
@test "explain (nobody, full chain): a stat or access probe of a hidden file is named, of an absent one not" { t_probe nobody; }

# --- without --explain, nothing; with it, netns and landlock get -X and the explain step is there ---

@test "explain: only --explain adds -X (the TRACE rules) to netns and landlock, and the explain step after supervise" {
	require_feature landlock
	policy
	run -0 --separate-stderr "$SHARNESS_EXEC" run --dry-run -p "$TMP/p.json" -- "$TRY" read /etc/hostname
	! printf '%s\n' "$output" | grep -e ' -X '
	run -0 --separate-stderr "$SHARNESS_EXEC" run --dry-run --explain -p "$TMP/p.json" -- "$TRY" read /etc/hostname
	[ "$(printf '%s\n' "$output" | grep -c ' -X ')" = 2 ]
	[[ "${lines[1]}" == *"/sharness-exec-supervise "* ]]
	[[ "${lines[2]}" == *"/sharness-exec-explain -r /etc -r $TMP/ro -x /usr "*" -w $TMP/rw -w /dev/null --" ]]
	[[ "${lines[4]}" == *"/sharness-exec-landlock "*" -X "* ]]
	run -0 --separate-stderr "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TRY" read /etc/hostname
	[ -z "$stderr" ]
}

# --- the observer, attacked ---

t_swap() {
	need "$1"
	chain_policy explain '"none"' '"/etc","'"$TMP"'/in"' '"'"$TMP"'/rw","/dev/null"'
	run -0 as "$1" "$TRY" read "$TMP/ou/f"
	# A second thread rewrites the path between an allowed file and one
	# outside while the first opens it: what the observer reads may be
	# either, what the kernel opens is never the outside one.
	for e in "" --explain; do
		run --separate-stderr confined "$1" "$2" $e -p "$TMP/p.json" -- "$TRY" swap "$TMP/in/f" "$TMP/ou/f"
		# Shown only if the case fails: all that the run said.
		printf '%s\n' "${e:-bare}: status $status, stdout: $output" "$stderr"
		[ "$status" = 0 ] && [ "$output" = ok ]
	done
	! printf '%s\n' "$stderr" | grep "^$X" | grep -v "^${X}read $TMP/[a-z]*/f: "
}

@test "explain (root): a second thread swapping the path string gets nothing outside" { t_swap root chain; }
@test "explain (nobody): a second thread swapping the path string gets nothing outside" { t_swap nobody chain; }
@test "explain (nobody, seccomp fallback): a second thread swapping the path string gets nothing outside" { t_swap nobody fallback; }

t_init() {
	need "$1"; policy
	# Signals, ptrace and process_vm_readv at init (the target's parent)
	# and at pid 1, and the descriptors above 2: refused and closed as
	# without --explain.
	local probe='for op in kill kill9 ptrace vmread; do "$0" $op $PPID; "$0" $op 1; done
	for fd in 3 4 5 6 7 8 9 10 11 12; do "$0" fd $fd; done; true'
	run -0 --separate-stderr confined "$1" "$2" -p "$TMP/p.json" -- /bin/sh -c "$probe" "$TRY"
	local bare=$output
	run -0 --separate-stderr confined "$1" "$2" --explain -p "$TMP/p.json" -- /bin/sh -c "$probe" "$TRY"
	[ "$output" = "$bare" ]
	! printf '%s\n' "$output" | grep -vx -e 'refused: Operation not permitted' -e 'refused: Bad file descriptor' -e 'refused: No such process'
	[ "$(printf '%s\n' "$output" | grep -c 'Bad file descriptor')" = 10 ]
	# Under --explain the filter refuses ptrace itself (the observer is
	# the only tracer), and says so; nothing else is listed.
	[ "$(printf '%s\n' "$stderr" | grep "^$X")" = "${X}ptrace ptrace: EPERM (Operation not permitted), refused by the seccomp filter, 2 times; no policy change allows it: under --explain only, the filter refuses ptrace and CLONE_UNTRACED: the observer must be every process's only tracer" ]
}

@test "explain (root): signals, ptrace and memory reads at init are refused, no descriptor leaks" { t_init root chain; }
@test "explain (nobody): signals, ptrace and memory reads at init are refused, no descriptor leaks" { t_init nobody chain; }
@test "explain (nobody, seccomp fallback): signals, ptrace and memory reads at init are refused, no descriptor leaks" { t_init nobody fallback; }

@test "explain: a traced target cannot trace its own child (gdb, strace, LeakSanitizer)" {
	need nobody; policy
	run -0 --separate-stderr as nobody "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TRY" trace-child
	[ "$output" = ok ]
	run -1 --separate-stderr as nobody "$SHARNESS_EXEC" run --explain -p "$TMP/p.json" -- "$TRY" trace-child
	[ "$output" = "refused: Operation not permitted" ]
}

@test "explain: endless distinct paths are counted, not kept: the list stops at 4096" {
	need nobody; policy
	run -0 --separate-stderr as nobody "$SHARNESS_EXEC" run --explain -p "$TMP/p.json" -- \
		/bin/sh -c 'i=0; while [ $i -lt 4200 ]; do true 2>/dev/null <"$0/x$i"; i=$((i + 1)); done' "$TMP/gone"
	[ "$(printf '%s\n' "$stderr" | grep -c "^${X}read $TMP/gone/x[0-9]*: $ENOENT, absent, 1 time; ")" = 4096 ]
	[ "${stderr_lines[-1]}" = "${X}104 more refusals not listed (after 4096 distinct ones)" ]
}

@test "explain: Yama's ptrace_scope 3 refuses --explain (126) and says why" {
	require_feature landlock
	[ "$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)" = 3 ] ||
		not_here yama-3 "kernel.yama.ptrace_scope is not 3 here (it cannot be set back from 3)"
	policy
	run -126 --separate-stderr "$SHARNESS_EXEC" run --explain -p "$TMP/p.json" -- "$TRY" create "$TMP/rw/ran"
	[ "${stderr_lines[0]}" = "sharness-exec-explain: fatal: refused: --explain traces the command, and Yama's kernel.yama.ptrace_scope is 3, which forbids every ptrace attach" ]
	[ ! -e "$TMP/rw/ran" ]
}

t_own_trace() {
	need "$1"; policy
	# The target's own filter returns SECCOMP_RET_TRACE for the calls the
	# filter refuses: the newest filter's data is what the stop carries,
	# so an observer trusting it would let them run. Each is refused as
	# without --explain (and a call only the target's filter stops fails
	# with ENOSYS, as where nobody traces).
	local calls=("openat2 $TMP/ro/f" "key-add explain-test" "socket inet") c
	for c in "${calls[@]}"; do
		run --separate-stderr confined "$1" "$2" -p "$TMP/p.json" -- "$TRY" own-trace "$TRY" $c
		local bare=$output
		[[ "$bare" == "refused: "* ]]
		run --separate-stderr confined "$1" "$2" --explain -p "$TMP/p.json" -- "$TRY" own-trace "$TRY" $c
		[ "$output" = "$bare" ]
	done
}

@test "explain (root): the target's own TRACE rules cannot make the observer let a refused call run" { t_own_trace root chain; }
@test "explain (nobody): the target's own TRACE rules cannot make the observer let a refused call run" { t_own_trace nobody chain; }
@test "explain (nobody, seccomp fallback): the target's own TRACE rules cannot make the observer let a refused call run" { t_own_trace nobody fallback; }

@test "explain: a relative path counts from the target's cwd, followed through chdir" {
	need nobody; policy
	run -1 --separate-stderr as nobody "$SHARNESS_EXEC" run --explain -p "$TMP/p.json" -- \
		/bin/sh -c 'cd "$1" && "$0" read ../out/f' "$TRY" "$TMP/ro"
	[ "$output" = "refused: No such file or directory" ]
	[ "$(printf '%s\n' "$stderr" | grep "^$X")" = "${X}read $TMP/out/f: $ENOENT, hidden by the policy, 1 time; allow with \"files\": {\"read\": [\"$TMP/out\"]}" ]
}

@test "explain: a symlink beneath a write path is not followed: the path is unknown" {
	need nobody; policy
	ln -s "$TMP/out/f" "$TMP/rw/link"
	run -0 as nobody "$TRY" read "$TMP/rw/link"
	run -1 --separate-stderr as nobody "$SHARNESS_EXEC" run --explain -p "$TMP/p.json" -- "$TRY" read "$TMP/rw/link"
	[ "$output" = "refused: No such file or directory" ]
	[ "$(printf '%s\n' "$stderr" | grep "^$X")" = "${X}read $TMP/rw/link: $ENOENT, unknown, 1 time; no change to suggest: the path goes through a symlink beneath a write path, which the observer does not follow" ]
}

@test "explain: job control inside (a stopped and continued child) and a signal from outside pass through the observer" {
	need nobody; policy
	run -0 --separate-stderr as nobody "$SHARNESS_EXEC" run --explain -p "$TMP/p.json" -- \
		/bin/sh -c 'sleep 5 & p=$!; kill -STOP $p; kill -CONT $p; kill -TERM $p; wait $p; echo "done $?"'
	[ "$output" = "done 143" ]
	# SIGTERM to the wrapper once the command is up: the caller sees the
	# command killed by it, as without --explain.
	mkfifo "$TMP/rw/ready"
	chmod 666 "$TMP/rw/ready"
	# setpriv executes the wrapper in place: $! is the wrapper.
	setpriv --reuid="$NOBODY_UID" --regid="$NOBODY_GID" --clear-groups -- \
		"$SHARNESS_EXEC" run --explain -p "$TMP/p.json" -- \
		/bin/sh -c 'echo up >"$0"; exec sleep 60' "$TMP/rw/ready" 2>"$TMP/err" &
	local pid=$!
	pids+=("$pid")
	[ "$(await_line "$TMP/rw/ready")" = up ]
	kill -TERM "$pid"
	local st=0
	wait "$pid" || st=$?
	[ "$st" = 143 ]
	grep -qx "${X}nothing was refused or hidden" "$TMP/err"
}
