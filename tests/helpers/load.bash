# Shared setup for the bats tests: paths to the build-tree programs, a
# per-test temporary directory, and require_feature, which skips a test the
# machine cannot run, or fails it when SHARNESS_EXEC_MUST_WORK=1 (CI sets it).
bats_require_minimum_version 1.7.0

: "${top_srcdir:=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}"
# Without a "..": make check from a build tree configured as ../configure
# says top_srcdir=BUILD/.., which a step's path rule refuses.
top_srcdir=$(cd "$top_srcdir" && pwd)
: "${top_builddir:=$top_srcdir}"
: "${SHARNESS_EXEC:=$top_builddir/test-sharness-exec}"
: "${HELPERDIR:=$top_builddir}"
NETNS="$HELPERDIR/sharness-exec-netns"
SUPERVISE="$HELPERDIR/sharness-exec-supervise"
LIMITS="$HELPERDIR/sharness-exec-limits"
LANDLOCK="$HELPERDIR/sharness-exec-landlock"
LISTEN="$HELPERDIR/sharness-exec-listen"
: "${TRYDIR:=$top_builddir/tests/try}"
TRY="$TRYDIR/try-syscall"
CONFORMANCE="$top_srcdir/tests/conformance"
NOBODY_UID=65534
NOBODY_GID=65534
# The directories some teardown removes are the test's own, set by its own
# mktemp: never one the caller's environment named. bats runs teardown
# after a setup that failed or skipped before making its own, and a
# caller's TMP=/tmp or GOTMPDIR would then be removed.
unset TMP REACH WORK RUNNER_WORK SCRATCH_HOME PROJ OUTSIDE GOTMPDIR

setup_tmp() {
	# World-traversable so that tests run as nobody can use it too.
	TMP=$(mktemp -d "${BATS_TMPDIR:-/tmp}/sharness-exec-test.XXXXXX")
	chmod 755 "$TMP"
}

teardown_tmp() {
	[ -n "${TMP:-}" ] && rm -rf "$TMP"
	[ -n "${REACH:-}" ] && rm -rf "$REACH"
	return 0
}

# reach_programs: where uid 65534 cannot reach the build tree (a clone in a
# 0700 directory, as root's home is, or in a `mktemp -d`), the programs the
# tests run as another uid are put where it can: in this test's own 0755
# directory $REACH beneath /var/tmp (world-traversable, and outside /tmp,
# which some tests make read-only or a private tmpfs), else beneath
# ${BATS_TMPDIR:-/tmp}; and so they are where the build tree lies beneath
# /tmp, for any caller. teardown_tmp removes it. They are hard links where
# the file system allows, else copies, and $SHARNESS_EXEC, $HELPERDIR, the
# helpers' names, $TRYDIR and $TRY name them there. The test front end
# finds its helpers beside itself, so the whole chain runs from there.
reach_programs() {
	local base= f
	REACH=
	[ "$SHARNESS_EXEC" = "$top_builddir/test-sharness-exec" ] || return 0
	[ -d /var/tmp ] && [ -w /var/tmp ] && case $(realpath /var/tmp)/ in /tmp/*) ;; *) base=/var/tmp ;; esac
	if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
	   ! as_nobody test -x "$SHARNESS_EXEC" 2>/dev/null; then
		base=${base:-${BATS_TMPDIR:-/tmp}}
	else
		# A build tree beneath /tmp, which some tests hide: the copy
		# lies outside it, where there is such a place.
		case $(realpath "$top_builddir")/ in /tmp/*) ;; *) return 0 ;; esac
		[ -n "$base" ] || return 0
	fi
	REACH=$(mktemp -d "$base/sharness-exec-reach.XXXXXX")
	chmod 755 "$REACH"
	mkdir -m 755 "$REACH/tests" "$REACH/tests/try"
	for f in "$SHARNESS_EXEC" "$HELPERDIR"/sharness-exec-*; do
		[ -f "$f" ] && [ -x "$f" ] && reach_put "$f" "$REACH"
	done
	for f in "$top_builddir"/tests/try/*; do
		[ -f "$f" ] && [ -x "$f" ] && reach_put "$f" "$REACH/tests/try"
	done
	SHARNESS_EXEC=$REACH/${SHARNESS_EXEC##*/}
	HELPERDIR=$REACH
	NETNS="$HELPERDIR/sharness-exec-netns"
	SUPERVISE="$HELPERDIR/sharness-exec-supervise"
	LIMITS="$HELPERDIR/sharness-exec-limits"
	LANDLOCK="$HELPERDIR/sharness-exec-landlock"
	LISTEN="$HELPERDIR/sharness-exec-listen"
	# Exported, as make exports the others: a bats run inside a test
	# (walls.bats runs confine.bats) uses this copy too.
	export TRYDIR="$REACH/tests/try"
	TRY="$TRYDIR/try-syscall"
	# The tests run where the helpers are, as make check runs them in the
	# build tree: a working directory outside the policy is one that holds
	# a step the view binds, not an empty one the view warns of.
	cd "$REACH"
}

# reachable FILE: the path of FILE, or where uid 65534 cannot reach the
# build tree, of a copy of it in $REACH, which it can (a script of the
# source tree that a test runs as that uid).
reachable() {
	[ -n "${REACH:-}" ] || { echo "$1"; return; }
	cp "$1" "$REACH/" && chmod 755 "$REACH/${1##*/}" && echo "$REACH/${1##*/}"
}

# outside_tmp NAME: a new directory NAME.XXXXXX outside /tmp, beneath the
# build tree, or beneath $REACH where uid 65534 cannot reach that; its path.
outside_tmp() {
	mktemp -d "${REACH:-$top_builddir/tests}/$1.XXXXXX"
}

# reach_put FILE DIR: FILE in DIR, a hard link where others may already
# execute it, else a copy that they may.
reach_put() {
	[ -n "$(find "$1" -perm -005)" ] && ln "$1" "$2/" 2>/dev/null && return
	cp "$1" "$2/" && chmod 755 "$2/${1##*/}"
}

setup() { setup_tmp; }
teardown() { teardown_tmp; }

# landlock_abi: the running kernel's Landlock ABI, 0 without Landlock; or
# the ABI the test front end has every step take (SHARNESS_EXEC_TEST_ABI,
# tests/step/walls.bats), where that is lower.
landlock_abi() {
	local abi
	abi=$("$TRY" landlock-abi 2>/dev/null) || abi=0
	if [ -n "${SHARNESS_EXEC_TEST_ABI:-}" ] && [ "$SHARNESS_EXEC_TEST_ABI" -lt "$abi" ]; then
		abi=$SHARNESS_EXEC_TEST_ABI
	fi
	echo "$abi"
}

# script(1) for the terminal tests, with INT, QUIT and the job-control
# signals at their defaults: a `make check &` from a script starts the
# suite with INT and QUIT ignored, a shell may not trap a signal ignored
# at its start, and a ^C typed into the terminal would then never land.
SCRIPT=(env --default-signal=INT,QUIT,TSTP,TTIN,TTOU script)

# no_view_warning CALL_ERROR: the view step's warning where it can make no
# mount namespace; from Landlock ABI 9 on it no longer lists pathname UNIX
# sockets among what Landlock alone does not hold (RESOLVE_UNIX does).
no_view_warning() {
	local sockets="pathname UNIX sockets (beneath write paths too), "
	[ "$(landlock_abi)" -lt 9 ] || sockets=
	echo "sharness-exec-view: warning: no mount namespace available ($1): Landlock alone does not hold chmod, utime, xattrs, ${sockets}inotify or noexec outside the policy"
}

# no_view_root_hint: the hint under the view step's refusal of a root
# caller where it can make no mount namespace; pathname sockets are named
# below Landlock ABI 9 only, as in no_view_warning.
no_view_root_hint() {
	local what="chmod and pathname sockets" verb=are
	[ "$(landlock_abi)" -lt 9 ] || { what=chmod; verb=is; }
	echo "hint: for a root caller $what outside the policy $verb critical; -b (--best-effort) runs with Landlock alone"
}

# require_feature FEATURE: the one way a test skips. Skips the test when
# this machine or build lacks FEATURE, or fails it when
# SHARNESS_EXEC_MUST_WORK=1 (CI sets it), unless FEATURE is named in
# SHARNESS_EXEC_MAY_LACK (space-separated): what a build lacks by design,
# such as the sanitizer build's dynamic, ASan-instrumented front end.
#   landlock userns netns cgroup1 root nobody pty tool:NAME
#   landlock-abi:N         the kernel's Landlock ABI is N or later; in the
#                          kernel matrix's guests (SHARNESS_EXEC_KERNEL_MATRIX
#                          set, tests/kernels) it skips even under
#                          SHARNESS_EXEC_MUST_WORK=1: the kernel's, not the
#                          machine's setup
#   file:PATH              PATH exists (a script another package installs)
#   zsh-zpty               zsh's zpty module
#   nobody-reaches:PATH    uid 65534 may execute PATH (the build tree)
#   dir-outside-tmp        a writable directory outside /tmp (/var/tmp or
#                          the build tree)
#   builddir-outside-tmp   the programs the tests run (the build tree, or
#                          its copy, reach_programs) do not lie beneath /tmp
#   static-front-end       $SHARNESS_EXEC has no ELF interpreter
#   no-asan                $SHARNESS_EXEC is not built with AddressSanitizer
#   tiocsti                TIOCSTI is not disabled (dev.tty.legacy_tiocsti)
#   kernel-config-gz       /proc/config.gz and gzip
#   arch:NAME              the machine is NAME (uname -m)
#   cgroup2-unified        a cgroup v2 hierarchy at /sys/fs/cgroup/unified,
#                          this process's cgroup there writable
require_feature() {
	local why= d abi soft=
	case "$1" in
	landlock)
		"$TRY" landlock-abi >/dev/null 2>&1 || why="Landlock is not available" ;;
	landlock-abi:*)
		abi=$(landlock_abi)
		[ "$abi" -ge "${1#landlock-abi:}" ] ||
			why="needs Landlock ABI ${1#landlock-abi:}, this kernel has ABI $abi"
		# In the kernel matrix's guests an old ABI is what is tested,
		# and so it is under a simulated one.
		[ -n "$why" ] && [ -n "${SHARNESS_EXEC_KERNEL_MATRIX:-}${SHARNESS_EXEC_TEST_ABI:-}" ] && soft=1 ;;
	userns)
		unshare --user --net true 2>/dev/null || why="user namespaces cannot be created" ;;
	netns)
		unshare --net true 2>/dev/null || why="network namespaces cannot be created" ;;
	cgroup1)
		[ -w /sys/fs/cgroup/memory ] && [ -w /sys/fs/cgroup/pids ] ||
			why="cgroup v1 memory and pids hierarchies are not writable" ;;
	root)
		[ "$(id -u)" = 0 ] || why="needs root" ;;
	nobody)
		[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null ||
			why="running as nobody needs root and setpriv"
		[ -n "$why" ] || as_nobody test -x "$SHARNESS_EXEC" ||
			why="uid $NOBODY_UID cannot reach $SHARNESS_EXEC" ;;
	pty)
		command -v script >/dev/null || why="script(1) is not installed" ;;
	tool:*)
		command -v "${1#tool:}" >/dev/null || why="${1#tool:} is not installed" ;;
	file:*)
		[ -e "${1#file:}" ] || why="${1#file:} does not exist" ;;
	zsh-zpty)
		zsh -f -c 'zmodload zsh/zpty' 2>/dev/null || why="zsh has no zpty module" ;;
	nobody-reaches:*)
		setpriv --reuid="$NOBODY_UID" --regid="$NOBODY_GID" --clear-groups -- \
			test -x "${1#nobody-reaches:}" 2>/dev/null ||
			why="${1#nobody-reaches:} is not reachable by nobody" ;;
	dir-outside-tmp)
		why="no writable directory outside /tmp"
		for d in /var/tmp "$top_builddir"; do
			[ -d "$d" ] && [ -w "$d" ] || continue
			case $(realpath "$d")/ in /tmp/*) continue ;; esac
			why=
			break
		done ;;
	builddir-outside-tmp)
		case $(realpath "$HELPERDIR")/ in /tmp/*) why="the build tree is under /tmp" ;; esac ;;
	static-front-end)
		! readelf -l "$SHARNESS_EXEC" 2>/dev/null | grep -q INTERP ||
			why="this front end is linked dynamically (sanitizers or --disable-static-link)" ;;
	no-asan)
		! grep -qa __asan_init "$SHARNESS_EXEC" ||
			why="this front end is built with AddressSanitizer" ;;
	tiocsti)
		[ "$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null || echo 1)" = 1 ] ||
			why="TIOCSTI is disabled system-wide here (dev.tty.legacy_tiocsti=0)" ;;
	kernel-config-gz)
		[ -r /proc/config.gz ] && command -v gzip >/dev/null || why="no /proc/config.gz" ;;
	arch:*)
		[ "$(uname -m)" = "${1#arch:}" ] || why="${1#arch:} only" ;;
	cgroup2-unified)
		d=/sys/fs/cgroup/unified$(sed -n 's/^0:://p' /proc/self/cgroup)
		if [ ! -d /sys/fs/cgroup/unified ]; then
			why="no cgroup v2 hierarchy here"
		elif [ ! -w "${d%/}" ]; then
			why="this process's cgroup v2 cgroup ${d%/} is not writable (a read-only mount, as on a hybrid host)"
		fi ;;
	*)
		why="unknown feature $1" ;;
	esac
	[ -z "$why" ] || feature_missing "$1" "$why" "$soft"
}

# feature_missing NAME WHY [SOFT]: the one place a test skips. Under
# SHARNESS_EXEC_MUST_WORK=1 a missing feature fails the test, unless
# SHARNESS_EXEC_MAY_LACK names it or SOFT is set: a case that cannot
# apply on this machine by design (a refusal only older kernels make, a
# test only the kernel matrix's guests can run).
feature_missing() {
	if [ "${SHARNESS_EXEC_MUST_WORK:-0}" = 1 ] && [ -z "${3:-}" ] &&
	   [[ " ${SHARNESS_EXEC_MAY_LACK:-} " != *" $1 "* ]]; then
		echo "required feature missing: $2 (SHARNESS_EXEC_MUST_WORK=1)" >&2
		return 1
	fi
	skip "$2"
}

# require_that NAME WHY CMD...: CMD must succeed, as require_feature NAME.
require_that() {
	local name=$1 why=$2
	shift 2
	"$@" || feature_missing "$name" "$why"
}

# not_here NAME WHY: this case cannot apply on this machine by design; it
# skips even under SHARNESS_EXEC_MUST_WORK=1.
not_here() {
	feature_missing "$1" "$2" soft
}

# await_line FIFO: the one line a background process writes to FIFO (made
# with mkfifo before it starts) once it is ready, such as the port it
# listens on. Blocks until then, with no polling: the timeout is only a
# safety net for a process that died first. O_RDWR, so that opening does
# not block as well.
await_line() {
	local fd line=
	exec {fd}<>"$1"
	read -r -t 600 -u "$fd" line || true
	exec {fd}<&-
	printf '%s\n' "$line"
	[ -n "$line" ]
}

# listener KIND [NAME]: a listener outside the sandbox (tests/helpers/
# listen.py: tcp or udp on 127.0.0.1, the abstract UNIX socket @NAME, or the
# pathname UNIX socket NAME); once it is ready, sets $port to the port (or
# name) it announced and $log to the file where it logs each connection or
# datagram, one line each, in arrival order. Each call starts a new one;
# its pid joins the test's $pids, which the test's teardown kills.
listener() {
	local ready
	log=$(mktemp "$TMP/listen.$1.XXXXXX")
	ready=$log.ready
	mkfifo "$ready"
	python3 "$top_srcdir/tests/helpers/listen.py" "$1" "$ready" "$log" "${2:-}" 3>&- &
	pids+=($!)
	port=$(await_line "$ready")
}

# logged LOG N: wait until LOG has N lines (up to 10 minutes, a safety net
# on a loaded machine). A listener logs in arrival order, so once an
# unconfined control attempt made AFTER a confined one is logged, the
# confined one would have been logged before it.
logged() {
	for _ in $(seq 12000); do
		[ "$(wc -l <"$1")" -ge "$2" ] && return 0
		sleep 0.05
	done
	return 1
}

# as_nobody CMD...: run CMD as uid/gid 65534 with no supplementary groups.
as_nobody() {
	setpriv --reuid="$NOBODY_UID" --regid="$NOBODY_GID" --clear-groups -- "$@"
}

# write_policy FILE JSON: a policy file the front end will accept (not
# writable by others).
write_policy() {
	printf '%s\n' "$2" >"$1"
	chmod 644 "$1"
}

# chain_policy ID NETWORK READ WRITE [EXEC] [PROCESS] [FILES]: $TMP/p.json,
# a policy of the shape the chain's tests share. READ, WRITE and EXEC are
# the items of those lists (JSON strings, comma-separated; EXEC's come
# after the system's directories and the try programs, which every test
# runs); NETWORK is the value of "network"; PROCESS follows no_new_privs in
# "process" and FILES the lists in "files" (each starting with a comma).
chain_policy() {
	write_policy "$TMP/p.json" '{"pbp":1,"id":"'"$1"'",
	  "files":{"read":['"$3"'],"write":['"$4"'],
	           "exec":["/usr","/bin","/lib","/lib64","'"$TRYDIR"'"'"${5:+,$5}"']'"${7:-}"'},
	  "network":'"$2"',"process":{"no_new_privs":true'"${6:-}"'}}'
}

# FORKS, a python3 program for the process caps (timeout.bats, report.bats):
# forks 12 times, the children waiting for the parent to be done; prints
# how many forks were refused.
FORKS="
import os
r, w = os.pipe()
refused = 0
for i in range(12):
    try:
        if os.fork() == 0:
            os.close(w)
            os.read(r, 1)
            os._exit(0)
    except OSError:
        refused += 1
os.close(w)
try:
    while True:
        os.wait()
except ChildProcessError:
    pass
print(refused)
"

# as MODE CMD...: run CMD as root or as nobody.
as() {
	local mode=$1
	shift
	if [ "$mode" = nobody ]; then as_nobody "$@"; else "$@"; fi
}

# as_m MODE CMD...: CMD as root, nobody or uid 1000 (no other groups);
# uid_of MODE: that uid. (seccomp.bats has an as_m of its own, with a user
# of its own.)
as_m() {
	local m=$1
	shift
	case $m in
	root) "$@" ;;
	nobody) as_nobody "$@" ;;
	1000) setpriv --reuid=1000 --regid=1000 --clear-groups -- "$@" ;;
	esac
}

uid_of() {
	case $1 in root) echo 0 ;; nobody) echo "$NOBODY_UID" ;; 1000) echo 1000 ;; esac
}

# need MODE: Landlock, and what running as MODE (root or nobody) needs.
need() {
	require_feature landlock
	[ "$1" = nobody ] && require_feature nobody
	[ "$1" = root ] && require_feature root
	return 0
}

# Each test's own copy, made as its file is loaded (bats loads it again for
# each test; not for setup_file, which runs as root): the names above are
# read by the test files' own first lines.
[ -z "${BATS_TEST_NAME:-}" ] || reach_programs
