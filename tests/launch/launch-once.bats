#!/usr/bin/env bats
# launch reads its manifest once, in the launcher (issue 39, DESIGN.md 4.8):
# `sharness-exec launch` execs sharness-exec-launch with its words, and
# only then is the manifest opened (open_trusted's walk unpinned, one open
# pinned), and read once; no memfd of it passes from the front end. A
# manifest's `check`: the front end reads the file once, and the launcher
# checks those bytes, handed over in a sealed memfd, never the file. Read
# from strace -f's record of execve, openat and memfd_create, in the order
# the calls were made.
# not tested here: what launch does with the manifest (tests/manifest.bats,
# tests/launch-run.bats, tests/launch-daily.bats).
load ../helpers/load

setup() {
	require_feature tool:strace
	setup_tmp
	local p='{"pbp":1,"id":"%s","files":{"exec":["/usr","/bin","/lib"]},"network":"none","process":{"no_new_privs":true}}'
	# shellcheck disable=SC2059
	printf '{"launch":1,"id":"once","components":[{"role":"a","command":["/bin/true"],"policy":%s}],"main":{"role":"main","policy":%s}}\n' \
		"$(printf "$p" a)" "$(printf "$p" main)" >"$TMP/m.json"
	chmod 644 "$TMP/m.json"
}

teardown() { teardown_tmp; }

# traced WORDS...: strace -f's record of the front end run with WORDS, in
# $TMP/st; the status is the front end's.
# (LeakSanitizer cannot run under a tracer: the sanitizer build's leak
# check at exit would abort the launcher, which exits, unlike run's chain.)
traced() {
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -s 4096 -o "$TMP/st" -e trace=execve,openat,memfd_create "$SHARNESS_EXEC" "$@"
}

# line_of PATTERN: the number of the first line of $TMP/st that matches
# PATTERN (grep -E), or nothing.
line_of() { grep -nE -- "$1" "$TMP/st" | head -n 1 | cut -d: -f1; }

# Each call that opens the manifest: by its path, or by its name at the
# end of open_trusted's walk of the directories above it.
OPENS='openat\([^,]*, "([^"]*/)?m\.json"'

@test "launch opens its manifest only in the launcher, once to read it, and passes no memfd of it; pinned or not" {
	local h pin how exec first reads
	h=$("$SHARNESS_EXEC" hash "$TMP/m.json")
	for pin in "" "-H $h"; do
		how="not pinned"
		[ -z "$pin" ] || how=pinned
		# shellcheck disable=SC2086
		run -0 --separate-stderr traced launch -m "$TMP/m.json" $pin -n --user nobody -- /bin/true
		[ "${lines[0]}" = "manifest \"once\" $h ($how)" ]
		exec=$(line_of 'execve\("[^"]*/sharness-exec-launch"')
		first=$(line_of "$OPENS")
		echo "launcher exec'd at line $exec, the manifest first opened at line $first"
		[ -n "$exec" ]
		[ -n "$first" ]
		[ "$first" -gt "$exec" ]
		# one open to read it (open_trusted's walk opens it O_PATH first)
		reads=$(grep -E -- "$OPENS" "$TMP/st" | grep -vc O_PATH)
		[ "$reads" = 1 ]
		! grep -q 'memfd_create("sharness-exec-manifest"' "$TMP/st"
	done
}

@test "check of a manifest: the front end reads the file once, the launcher checks those bytes from a sealed memfd" {
	run -0 --separate-stderr traced check "$TMP/m.json"
	[ "${lines[0]}" = "$TMP/m.json: valid launch 1 manifest \"once\"" ]
	local exec memfd
	exec=$(line_of 'execve\("[^"]*/sharness-exec-launch", \["[^"]*", "--manifest-fd", "[0-9]+", "check"')
	memfd=$(line_of 'memfd_create\("sharness-exec-manifest"')
	[ -n "$exec" ]
	[ -n "$memfd" ]
	[ "$memfd" -lt "$exec" ]
	[ "$(grep -cE -- "$OPENS" "$TMP/st")" = 1 ]
	[ "$(line_of "$OPENS")" -lt "$exec" ]
}
