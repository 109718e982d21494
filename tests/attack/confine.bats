#!/usr/bin/env bats
# Confinement through the whole chain (`sharness-exec run`), as root and as
# an unprivileged user (nobody, so the user-namespace and rlimit paths run).
# Each test tries the forbidden thing from inside, checks it was refused,
# and checks from outside that nothing changed; positive controls show the
# refusals are not just everything failing. Files the target must not touch
# are writable by everyone, so a refusal comes from the sandbox, not from
# file permissions.
# not tested: the seccomp fallback through the whole chain (netns.bats
# covers it on the helper); cgroup v2 for real (this machine has v1 memory
# and pids; tests/unit/test-cgroup covers v2 against a fake tree).
load ../helpers/load

setup() {
	setup_tmp
	mkdir -p "$TMP/ro" "$TMP/rw" "$TMP/out" "$TMP/x"
	chmod 777 "$TMP/ro" "$TMP/rw" "$TMP/out" "$TMP/x"
	for d in ro rw out; do
		echo "original $d" >"$TMP/$d/file"
		chmod 666 "$TMP/$d/file"
	done
	pids=()
	# Strict at every Landlock ABI: below 6 the namespaces hold what the
	# scopes would (rights.c), and a test that needs a right only Landlock
	# holds says which ABI (the kernel matrix, tests/kernels, boots older
	# kernels; tests/walls.bats runs this battery at each simulated ABI).
	be=()
}

teardown() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	teardown_tmp
}

# prefix MODE: the words that run a command as MODE, for places where the
# shell function `as` cannot go (background jobs, script -c).
prefix() {
	if [ "$1" = nobody ]; then
		echo setpriv --reuid="$NOBODY_UID" --regid="$NOBODY_GID" --clear-groups --
	fi
}

# victim MODE [ENV...]: a process outside the sandbox, owned by MODE's user;
# sets $victim to the pid of the sleep itself.
victim() {
	local m=$1
	shift
	$(prefix "$m") env "$@" sleep 300 &
	victim=$!
	pids+=($victim)
	for _ in $(seq 400); do
		[ "$(readlink /proc/$victim/exe)" = "$(readlink -f "$(command -v sleep)")" ] && break
		sleep 0.05
	done
}

# policy NETWORK PROCESS-EXTRA
policy() {
	chain_policy confine "${1:-\"none\"}" '"/etc","/proc","'"$TMP"'/ro"' '"'"$TMP"'/rw"' '"'"$TMP"'/x"' "${2:-}"
}

confined() { # MODE CMD...
	local mode=$1 st=0
	shift
	if [ ${#be[@]} = 0 ]; then
		as "$mode" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$@"
		return
	fi
	as "$mode" "$SHARNESS_EXEC" run "${be[@]}" -p "$TMP/p.json" -- "$@" 2>"$TMP/be.err" || st=$?
	# all but the one line that says what best effort dropped
	grep -v '^sharness-exec-landlock: warning: Landlock ABI [0-9]*: best effort: dropped ' "$TMP/be.err" >&2 || true
	return "$st"
}

# gone PID: wait (bounded) until PID has exited, a zombie counting as gone.
gone() {
	for _ in $(seq 400); do
		[ -e "/proc/$1" ] && [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" != Z ] || return 0
		sleep 0.05
	done
	return 1
}

files_unchanged() {
	[ "$(cat "$TMP/ro/file")" = "original ro" ]
	[ "$(cat "$TMP/out/file")" = "original out" ]
	[ -z "$(ls -A "$TMP/out" | grep -vx file)" ]
	[ -z "$(ls -A "$TMP/ro" | grep -vx file)" ]
}

t_files() {
	local m=$1
	need "$m"
	policy
	# Positive controls: a read path is readable, a write path writable.
	run -0 confined "$m" "$TRY" read "$TMP/ro/file"
	run -0 confined "$m" "$TRY" write "$TMP/rw/file"
	run -0 confined "$m" "$TRY" create "$TMP/rw/new"
	run -0 confined "$m" "$TRY" mkdir "$TMP/rw/newdir"
	[ -e "$TMP/rw/new" ] && [ -d "$TMP/rw/newdir" ]
	# Outside the policy: nothing at all.
	run -1 confined "$m" "$TRY" read "$TMP/out/file"
	for op in write unlink; do
		run -1 confined "$m" "$TRY" "$op" "$TMP/out/file"
		# Landlock refuses it; in the view it does not even exist. The
		# last line: the view step may warn first that it has no mount
		# namespace (nobody without one).
		[[ "${lines[-1]}" == "refused: Permission denied" ||
		   "${lines[-1]}" == "refused: No such file or directory" ]]
	done
	run -1 confined "$m" "$TRY" create "$TMP/out/new"
	run -1 confined "$m" "$TRY" mkdir "$TMP/out/dir"
	# A read-only path: read, nothing else.
	for op in write unlink; do
		run -1 confined "$m" "$TRY" "$op" "$TMP/ro/file"
	done
	run -1 confined "$m" "$TRY" create "$TMP/ro/new"
	run -1 confined "$m" "$TRY" mkdir "$TMP/ro/dir"
	run -1 confined "$m" "$TRY" read /root/.profile
	files_unchanged
	# The same user, unconfined, could have done it (so the sandbox refused).
	run -0 as "$m" "$TRY" write "$TMP/out/file"
}

@test "files: read, write, create, unlink, mkdir outside and in a read-only dir (root)" { t_files root; }
@test "files: read, write, create, unlink, mkdir outside and in a read-only dir (nobody)" { t_files nobody; }

t_truncate() {
	local m=$1
	need "$m"
	policy
	run -1 confined "$m" "$TRY" truncate "$TMP/out/file"
	# the view step hides it (ENOENT); Landlock alone refuses it (EACCES)
	[[ "$output" == "refused: Permission denied" || "$output" == "refused: No such file or directory" ]]
	run -1 confined "$m" "$TRY" truncate "$TMP/ro/file"
	ln -s "$TMP/out/file" "$TMP/rw/link"
	run -1 confined "$m" "$TRY" truncate "$TMP/rw/link"
	files_unchanged
	run -0 confined "$m" "$TRY" truncate "$TMP/rw/file"
}

@test "truncate outside, in a read-only dir and through a symlink is refused (root)" { t_truncate root; }
@test "truncate outside, in a read-only dir and through a symlink is refused (nobody)" { t_truncate nobody; }

t_rename_link() {
	local m=$1
	need "$m"
	policy
	run -1 confined "$m" "$TRY" rename "$TMP/ro/file" "$TMP/rw/moved"
	run -1 confined "$m" "$TRY" link "$TMP/ro/file" "$TMP/rw/linked"
	run -1 confined "$m" "$TRY" rename "$TMP/rw/file" "$TMP/ro/moved"
	run -1 confined "$m" "$TRY" link "$TMP/rw/file" "$TMP/ro/linked"
	run -1 confined "$m" "$TRY" rename "$TMP/out/file" "$TMP/rw/moved"
	files_unchanged
	[ ! -e "$TMP/rw/moved" ] && [ ! -e "$TMP/rw/linked" ]
	# Inside the writable tree both work.
	run -0 confined "$m" "$TRY" rename "$TMP/rw/file" "$TMP/rw/renamed"
	run -0 confined "$m" "$TRY" link "$TMP/rw/renamed" "$TMP/rw/hard"
}

@test "rename and hard-link between a read-only and a writable dir are refused (root)" { t_rename_link root; }
@test "rename and hard-link between a read-only and a writable dir are refused (nobody)" { t_rename_link nobody; }

t_symlink() {
	local m=$1
	need "$m"
	policy
	ln -s "$TMP/out/file" "$TMP/rw/link"
	ln -s "$TMP/ro/file" "$TMP/rw/link-ro"
	run -1 confined "$m" "$TRY" write "$TMP/rw/link"
	run -1 confined "$m" "$TRY" write "$TMP/rw/link-ro"
	files_unchanged
}

@test "writing through a symlink that points outside is refused (root)" { t_symlink root; }
@test "writing through a symlink that points outside is refused (nobody)" { t_symlink nobody; }

t_exec() {
	local m=$1
	need "$m"
	policy
	cp "$TRY" "$TMP/ro/try" && cp "$TRY" "$TMP/rw/try" && cp "$TRY" "$TMP/x/try"
	chmod 755 "$TMP/ro/try" "$TMP/rw/try" "$TMP/x/try"
	run -0 confined "$m" "$TMP/x/try" fd 0
	run -126 confined "$m" "$TMP/ro/try" fd 0
	# Exec from inside the target too, not only as the chain's last exec.
	run -126 confined "$m" sh -c "exec '$TMP/ro/try' fd 0"
	# Through a directory outside the policy: refused by Landlock (126),
	# or not there at all in the view (127).
	run confined "$m" sh -c "exec '$TMP/out/../ro/try' fd 0"
	[ "$status" = 126 ] || [ "$status" = 127 ]
}

@test "exec from a dir that is not in files.exec is refused (root)" { t_exec root; }
@test "exec from a dir that is not in files.exec is refused (nobody)" { t_exec nobody; }

t_tcp_none() {
	local m=$1
	need "$m"
	policy
	listener tcp
	run -1 confined "$m" "$TRY" connect "$port"
	# Control: the listener is there for an unconfined client.
	run -0 as "$m" "$TRY" connect "$port"
	logged "$log" 1
	[ "$(cat "$log")" = accepted ]
}

@test "network none: a TCP connect to a listener outside is refused (root)" { t_tcp_none root; }
@test "network none: a TCP connect to a listener outside is refused (nobody)" { t_tcp_none nobody; }

t_tcp_ports() {
	local m=$1
	need "$m"
	# The object form keeps the host's network, whose abstract sockets
	# only Landlock's scope (ABI 6) holds.
	require_feature landlock-abi:6
	listener tcp
	listen_port=$port
	log_allowed=$log
	# A second listener on another port, not in the list.
	listener tcp
	other=$port
	policy '{"connect_tcp_ports":['"$listen_port"']}'
	run -0 confined "$m" "$TRY" connect "$listen_port"
	run -1 confined "$m" "$TRY" connect "$other"
	[[ "${lines[-1]}" == "refused: Permission denied" ]]
	run -1 confined "$m" "$TRY" bind "$((other + 1))"
	logged "$log_allowed" 1
	[ "$(cat "$log_allowed")" = accepted ]
	run -0 as "$m" "$TRY" connect "$other"
	logged "$log" 1
	[ "$(cat "$log")" = accepted ]
}

@test "a port list allows exactly the listed TCP ports (root)" { t_tcp_ports root; }
@test "a port list allows exactly the listed TCP ports (nobody)" { t_tcp_ports nobody; }

t_udp() {
	local m=$1
	need "$m"
	policy
	listener udp
	run confined "$m" "$TRY" udp-send "$port"
	run -0 as "$m" "$TRY" udp-send "$port"
	logged "$log" 1
	[ "$(cat "$log")" = "datagram ping" ]
}

@test "network none: a UDP datagram never reaches a listener outside (root)" { t_udp root; }
@test "network none: a UDP datagram never reaches a listener outside (nobody)" { t_udp nobody; }

t_abstract() {
	local m=$1 name=sharness-exec-test-$$-$RANDOM
	need "$m"
	policy
	listener abstract "$name"
	run -1 confined "$m" "$TRY" abstract "$name"
	# Also with the host's network (no netns step): the Landlock scope holds.
	require_feature landlock-abi:6
	policy '{}'
	run -1 confined "$m" "$TRY" abstract "$name"
	run -0 as "$m" "$TRY" abstract "$name"
	logged "$log" 1
	[ "$(cat "$log")" = accepted ]
}

@test "an abstract UNIX socket outside cannot be reached (root)" { t_abstract root; }
@test "an abstract UNIX socket outside cannot be reached (nobody)" { t_abstract nobody; }

t_signals() {
	local m=$1
	need "$m"
	policy
	victim "$m"
	run -1 confined "$m" "$TRY" kill "$victim"
	run -1 confined "$m" "$TRY" ptrace "$victim"
	kill -0 "$victim"
	[ "$(ps -o stat= -p "$victim" | cut -c1)" != T ]
}

@test "kill and ptrace of a process outside are refused (root)" { t_signals root; }
@test "kill and ptrace of a process outside are refused (nobody)" { t_signals nobody; }

# The target stays in the caller's process group (job control), which the
# pid namespace cannot hide: kill(0, SIGKILL) from inside must not reach a
# sibling there, nor the caller's shell. A group of the test's own
# (setsid) stands for the caller's.
t_group_kill() {
	local m=$1 pid
	need "$m"
	policy
	mkdir -m 777 "$TMP/g"
	# Bare, it takes the whole group down: the shell and its sibling.
	setsid $(prefix "$m") bash -c 'sleep 300 & echo $! >"$1"; "$2" kill9 0; echo alive >"$3"' \
		_ "$TMP/g/bare.pid" "$TRY" "$TMP/g/bare.out" || true
	pid=$(cat "$TMP/g/bare.pid")
	pids+=("$pid")
	gone "$pid"
	[ ! -e "$TMP/g/bare.out" ]
	# Confined, kill(0) and kill(-PGID) (killpg) at the group are
	# refused, and the shell and its sibling both live on.
	cat >"$TMP/g/group.sh" <<-'EOF'
		sleep 300 & echo $! >"$1"
		pgid=$(ps -o pgid= $$ | tr -d ' ')
		"$2" run -p "$3" -- "$4" kill9 0 >"$5" 2>&1; echo "status $?" >>"$5"
		"$2" run -p "$3" -- "$4" kill9 "-$pgid" >>"$5" 2>&1; echo "status $?" >>"$5"
		echo alive >>"$5"
	EOF
	setsid $(prefix "$m") bash "$TMP/g/group.sh" "$TMP/g/conf.pid" "$SHARNESS_EXEC" \
		"$TMP/p.json" "$TRY" "$TMP/g/conf.out"
	pid=$(cat "$TMP/g/conf.pid")
	pids+=("$pid")
	kill -0 "$pid"
	# Below ABI 6 the filter refuses kill(0) (EPERM); from 6 on the
	# scope lets it reach only the target's own domain: itself. The
	# group's number names nothing in the pid namespace (ESRCH).
	if [ "$(landlock_abi)" -lt 6 ]; then
		[ "$(sed -n 1p "$TMP/g/conf.out")" = "refused: Operation not permitted" ]
		[ "$(grep -c '^status 1$' "$TMP/g/conf.out")" = 2 ]
	else
		[ "$(grep '^status' "$TMP/g/conf.out" | tr '\n' ' ')" = "status 137 status 1 " ]
	fi
	[ "$(tail -1 "$TMP/g/conf.out")" = alive ]
}

@test "kill(0, SIGKILL) from inside spares the caller's process group (root)" { t_group_kill root; }
@test "kill(0, SIGKILL) from inside spares the caller's process group (nobody)" { t_group_kill nobody; }

t_environ() {
	local m=$1
	need "$m"
	policy
	victim "$m" SHARNESS_TEST_SECRET=hunter2
	grep -q hunter2 /proc/"$victim"/environ
	run -1 confined "$m" "$TRY" read /proc/"$victim"/environ
	run confined "$m" cat /proc/"$victim"/environ
	[[ "$output" != *hunter2* ]]
}

@test "/proc/<outside pid>/environ cannot be read (root)" { t_environ root; }
@test "/proc/<outside pid>/environ cannot be read (nobody)" { t_environ nobody; }

@test "the target holds no capabilities even when the caller is root" {
	need root
	policy
	run -0 confined root "$TRY" caps
	[[ "$output" == *"CapInh:	0000000000000000"* ]]
	[[ "$output" == *"CapPrm:	0000000000000000"* ]]
	[[ "$output" == *"CapEff:	0000000000000000"* ]]
	[[ "$output" == *"CapBnd:	0000000000000000"* ]]
	[[ "$output" == *"CapAmb:	0000000000000000"* ]]
	[[ "$output" == *"NoNewPrivs:	1"* ]]
	# ... and regains none by exec'ing a set-uid program.
	run confined root sh -c "grep CapEff /proc/self/status; su -c true nobody"
	[[ "$output" == *"CapEff:	0000000000000000"* ]]
}

t_tiocsti() {
	local m=$1
	need "$m"
	require_feature pty
	policy
	chmod 755 "$TMP"
	run "${SCRIPT[@]}" -qec "exec $(printf '%q ' $(prefix "$m") "$SHARNESS_EXEC" run "${be[@]}" -p "$TMP/p.json" -- "$TRY" tiocsti)" /dev/null
	[[ "$output" == *"refused: Operation not permitted"* ]]
	[[ "$output" != *ok* ]]
}

@test "TIOCSTI on the caller's terminal is refused (root)" { t_tiocsti root; }
@test "TIOCSTI on the caller's terminal is refused (nobody)" { t_tiocsti nobody; }

t_memory() {
	local m=$1
	need "$m"
	policy '"none"' ',"max_memory_mb":64'
	run -0 confined "$m" "$TRY" alloc 16
	run confined "$m" "$TRY" alloc 128
	[ "$status" != 0 ]
	[[ "$output" != ok ]]
	# The caller is unharmed.
	run -0 "$TRY" alloc 128
}

@test "a memory cap: allocating twice the cap fails, the caller is unharmed (root)" { t_memory root; }
@test "a memory cap: allocating twice the cap fails, the caller is unharmed (nobody)" { t_memory nobody; }

t_pids() {
	local m=$1
	need "$m"
	policy '"none"' ',"max_pids":16'
	local marker=sharness-exec-forks-$$-$RANDOM
	run -0 confined "$m" "$TRY" fork 100 "$marker"
	n=$(echo "$output" | sed -n 's/^forked \([0-9]*\) of 100$/\1/p')
	[ -n "$n" ] && [ "$n" -lt 16 ]
	[ -z "$(pgrep -f "$marker" || true)" ]
}

@test "a pids cap bounds a fork loop and nothing is left behind (root)" { t_pids root; }
@test "a pids cap bounds a fork loop and nothing is left behind (nobody)" { t_pids nobody; }

t_sigterm() {
	local m=$1 marker=sharness-exec-sigterm-$$-$RANDOM
	need "$m"
	policy '"none"' ',"max_pids":64'
	$(prefix "$m") "$SHARNESS_EXEC" run "${be[@]}" -p "$TMP/p.json" -- sh -c \
		"trap 'echo got-term >$TMP/rw/term; exit 3' TERM; touch $TMP/rw/ready; while :; do sleep 0.1; done; : $marker" &
	wrapper=$!
	for _ in $(seq 400); do [ -e "$TMP/rw/ready" ] && break; sleep 0.05; done
	[ -e "$TMP/rw/ready" ]
	kill -TERM "$wrapper"
	st=0
	wait "$wrapper" || st=$?
	[ "$st" = 3 ]
	[ "$(cat "$TMP/rw/term")" = got-term ]
	sleep 0.2
	[ -z "$(pgrep -f "$marker" || true)" ]
}

@test "SIGTERM to the wrapper reaches the target and leaves nothing behind (root)" { t_sigterm root; }
@test "SIGTERM to the wrapper reaches the target and leaves nothing behind (nobody)" { t_sigterm nobody; }
