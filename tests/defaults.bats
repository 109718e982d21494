#!/usr/bin/env bats
# The defaults a new user meets first (issue 42): a /dev for a policy that
# names none; a command the policy hides refused with the list that would
# allow it; one short line, silenceable, where the caps are rlimits;
# durations as timeout(1) takes them; did-you-mean for options; a kill
# from outside not blamed on a cap; check's warnings for broad write
# paths; a host socket beneath /dev no reason to refuse a policy that
# names /dev whole. Each test fails on 6abb324.
#
# not tested: the default /dev where no mount namespace can be made (there
# is none: sharness-exec(1) says so); uid 1000 where setpriv is missing.
load helpers/load

setup() {
	setup_tmp
	LP= SOCK=
}

teardown() {
	[ -z "$LP" ] || kill "$LP" 2>/dev/null || true
	[ -z "$SOCK" ] || rm -f "$SOCK"
	teardown_tmp
}

# as_user MODE CMD...: CMD as root, nobody (65534) or uid 1000.
as_user() {
	local mode=$1
	shift
	case $mode in
	root) "$@" ;;
	nobody) as_nobody "$@" ;;
	u1000) setpriv --reuid=1000 --regid=1000 --clear-groups -- "$@" ;;
	esac
}

needs() {
	need "${1/u1000/nobody}"
	[ "$1" != u1000 ] || setpriv --reuid=1000 --regid=1000 --clear-groups -- test -x "$SHARNESS_EXEC" ||
		not_here uid1000 "uid 1000 cannot reach $SHARNESS_EXEC"
}

# plain [READ] [LISTS] [PROCESS]: $TMP/p.json, a policy that names no
# /dev: read /etc, /proc and READ's items, exec the system's directories,
# write $TMP/w; LISTS after them; PROCESS after no_new_privs.
plain() {
	mkdir -p "$TMP/w"
	chmod 777 "$TMP/w"
	write_policy "$TMP/p.json" '{"pbp":1,"id":"defaults","files":{"read":["/etc","/proc"'"${1:+,$1}"'],
	  "exec":["/usr","/bin","/lib","/lib64"],"write":["'"$TMP/w"'"]'"${2:-}"'},
	  "network":"none","process":{"no_new_privs":true'"${3:-}"'}}'
}

# --- /dev -------------------------------------------------------------------

t_dev_default() {
	local m=$1 shm
	needs "$m"
	plain
	shm=$(ls -A /dev/shm | sort)
	# dash sends a background command's stdin to /dev/null
	run -0 --separate-stderr as_user "$m" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- sh -c '
		echo x >/dev/null && true & wait $!
		ls /dev | tr "\n" " "; echo
		head -c 4 /dev/zero | od -An -tx1; head -c 4 /dev/urandom | wc -c
		echo y >/dev/full 2>/dev/null || echo full refused
		echo z >/dev/shm/defaults-$$ && cat /dev/shm/defaults-$$
		test -e /dev/tty || echo no tty; test -e /dev/ptmx || echo no ptmx
		test -e /dev/pts || echo no pts'
	[ -z "$stderr" ]
	[ "${lines[0]}" = "fd full null random shm stderr stdin stdout urandom zero " ]
	[ "$(echo ${lines[1]})" = "00 00 00 00" ]
	[ "${lines[2]}" = 4 ]
	[ "${lines[3]}" = "full refused" ]
	[ "${lines[4]}" = z ]
	[ "${lines[*]:5}" = "no tty no ptmx no pts" ]
	# /dev/shm was the run's own: nothing of it outside
	[ "$(ls -A /dev/shm | sort)" = "$shm" ]
	# and /dev itself is read-only: no node, file or link can be made
	run -2 --separate-stderr as_user "$m" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- sh -c 'echo >/dev/new'
	[[ "$stderr" == *"cannot create /dev/new: "* ]]
}

@test "a policy that names no /dev gets null, zero, full, random, urandom, the fd links and a private /dev/shm, no tty and no pty (root)" { t_dev_default root; }
@test "a policy that names no /dev gets null, zero, full, random, urandom, the fd links and a private /dev/shm, no tty and no pty (nobody)" { t_dev_default nobody; }
@test "a policy that names no /dev gets null, zero, full, random, urandom, the fd links and a private /dev/shm, no tty and no pty (uid 1000)" { t_dev_default u1000; }

@test "/dev named whole in files.read: /dev/null is written and /dev/shm is the run's own" {
	need root
	plain '"/dev"'
	run -0 --separate-stderr "$SHARNESS_EXEC" run -p "$TMP/p.json" -- sh -c \
		'echo x >/dev/null && echo y >/dev/shm/z && cat /dev/shm/z && test -c /dev/tty && test -L /dev/ptmx'
	[ "$output" = y ]
	[ ! -e /dev/shm/z ]
}

@test "the README's first policy runs a shell script that writes /dev/null" {
	need root
	local json
	json=$(awk '/^## A first policy/ { on = 1 } on && /^```json/ { p = 1; next } p && /^```/ { exit } p' \
		"$top_srcdir/README.md")
	[ -n "$json" ]
	mkdir -p "$TMP/build"
	write_policy "$TMP/readme.json" "$(sed "s|/home/ci/build|$TMP/build|g" <<<"$json")"
	cd "$TMP/build"
	run -0 --separate-stderr "$SHARNESS_EXEC" run -p "$TMP/readme.json" -- sh -c \
		'echo quiet >/dev/null; cat </dev/null & wait $!; echo ran'
	[ "$output" = ran ]
	[ -z "$stderr" ]
}

# A host socket beneath /dev, where another job listens (/dev/shm) or a
# syslog daemon does (/dev/log): the view builds /dev and shows none of
# the host's, so below Landlock ABI 9 it is no reason to refuse (it was,
# 126 now and then on a busy machine, realsuites.bats). A rule beneath
# /dev binds the host's, and there it still counts.
@test "a socket listening in the host's /dev is no refusal where /dev is built; beneath a rule below /dev it is" {
	need root
	local sock=/dev/shm/defaults-$$-$RANDOM.sock
	SOCK=$sock
	plain '"/dev"'
	python3 -c 'import socket, sys, signal
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen()
print("up", flush=True); signal.pause()' "$sock" >"$TMP/up" 2>&1 3>&- </dev/null &
	LP=$!
	for _ in $(seq 2000); do [ -s "$TMP/up" ] && break; sleep 0.05; done
	[ -S "$sock" ]
	run -0 --separate-stderr "$SHARNESS_EXEC" run -p "$TMP/p.json" -- ls /dev/pts
	[ "$output" = ptmx ]
	plain '"/dev/shm"'
	run -126 --separate-stderr "$SHARNESS_EXEC" run -p "$TMP/p.json" -- true
	[ "$(landlock_abi)" -lt 9 ] || skip "Landlock ABI 9 holds the socket itself"
	[[ "$stderr" == *"FS_RESOLVE_UNIX_READ"*"\"$sock\" beneath files.read[2] \"/dev/shm\""* ]]
}

