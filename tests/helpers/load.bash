# Shared setup for the bats tests: paths to the build-tree programs, a
# per-test temporary directory, and require_feature, which skips a test the
# machine cannot run, or fails it when SHARNESS_EXEC_MUST_WORK=1 (CI sets it).
bats_require_minimum_version 1.7.0

: "${top_srcdir:=$(cd "$BATS_TEST_DIRNAME/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
: "${SHARNESS_EXEC:=$top_builddir/test-sharness-exec}"
: "${HELPERDIR:=$top_builddir}"
NETNS="$HELPERDIR/sharness-exec-netns"
SUPERVISE="$HELPERDIR/sharness-exec-supervise"
LIMITS="$HELPERDIR/sharness-exec-limits"
LANDLOCK="$HELPERDIR/sharness-exec-landlock"
TRY="$top_builddir/tests/try/try-syscall"
SHARED_DIR="$top_srcdir/../shared"
NOBODY_UID=65534
NOBODY_GID=65534

setup_tmp() {
	# World-traversable so that tests run as nobody can use it too.
	TMP=$(mktemp -d "${BATS_TMPDIR:-/tmp}/sharness-exec-test.XXXXXX")
	chmod 755 "$TMP"
}

teardown_tmp() {
	[ -n "${TMP:-}" ] && rm -rf "$TMP"
}

setup() { setup_tmp; }
teardown() { teardown_tmp; }

# require_feature landlock|userns|netns|cgroup1|root|nobody|pty|tool:NAME
require_feature() {
	local why=
	case "$1" in
	landlock)
		"$TRY" landlock-abi >/dev/null 2>&1 || why="Landlock is not available" ;;
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
			why="running as nobody needs root and setpriv" ;;
	pty)
		command -v script >/dev/null || why="script(1) is not installed" ;;
	tool:*)
		command -v "${1#tool:}" >/dev/null || why="${1#tool:} is not installed" ;;
	*)
		why="unknown feature $1" ;;
	esac
	if [ -n "$why" ]; then
		if [ "${SHARNESS_EXEC_MUST_WORK:-0}" = 1 ]; then
			echo "required feature missing: $why (SHARNESS_EXEC_MUST_WORK=1)" >&2
			return 1
		fi
		skip "$why"
	fi
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

# as MODE CMD...: run CMD as root or as nobody.
as() {
	local mode=$1
	shift
	if [ "$mode" = nobody ]; then as_nobody "$@"; else "$@"; fi
}

# need MODE: Landlock, and what running as MODE (root or nobody) needs.
need() {
	require_feature landlock
	[ "$1" = nobody ] && require_feature nobody
	[ "$1" = root ] && require_feature root
	return 0
}
