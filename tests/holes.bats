#!/usr/bin/env bats
# Holes in the view, tried from the attacker's side (issue 24 items 1, 2,
# 6 and 8; issue 26's cwd line): a protected tree moved aside with its
# parent, a second name for a protected file, a set-id file rewritten
# through a shared writable mapping, /proc showing init and the caller's
# keys, an O_PATH descriptor on stdin. Each through `sharness-exec run`, as
# root and as nobody (bare: the netns step gives the view its user
# namespace), and each first shows, bare, that the same thing works. The
# victims belong to the user who attacks, so only the view refuses.
load helpers/load

TRYV="$top_builddir/tests/try/try-view"
DENY_UNSHARE="$top_builddir/tests/try/deny-unshare"

setup() {
	setup_tmp
	mkdir -p "$TMP/w/repo/.git/hooks" "$TMP/out"
	echo orig >"$TMP/w/repo/.git/hooks/pre-commit"
	echo secret >"$TMP/out/secret"
}

# own MODE: the test's tree belongs to MODE's uid.
own() {
	[ "$1" = nobody ] && chown -R "$NOBODY_UID:$NOBODY_GID" "$TMP/w" "$TMP/out"
	return 0
}

# policy [FILES-EXTRA] [READ-EXTRA]: write $TMP/w, read /etc; FILES-EXTRA
# is spliced into "files", READ-EXTRA into its read list.
policy() {
	chain_policy holes '"none"' '"/etc"'"${2:-}" '"'"$TMP"'/w"' '' '' "${1:-}"
}

# confined MODE CMD...: CMD through `sharness-exec run`, as MODE.
confined() {
	local m=$1
	shift
	as "$m" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$@"
}

hneed() {
	need "$1"
	require_feature userns
}

t_proc() {
	local m=$1 desc=sharness-exec-holes-$$-$1
	hneed "$m"
	policy "" ',"/proc"'
	# Bare: the caller's key is listed, init is there and readable.
	run -0 as "$m" "$TRY" key-add "$desc"
	run -0 as "$m" grep -c "$desc" /proc/keys
	[ "$output" = 1 ]
	run -0 as "$m" sh -c 'test -r /proc/1/status && ls /proc'
	[[ " $(echo $output) " == *" 1 "* ]]
	run -0 confined "$m" sh -c 'wc -c </proc/keys; ls /proc | grep -x 1 || echo none; cat /proc/1/status || echo unreadable'
	as "$m" "$TRY" key-drop "$desc"
	[ "${lines[0]}" = 0 ]
	[ "${lines[1]}" = none ]
	[[ "$output" == *"/proc/1/status: No such file or directory"* ]] && [ "${lines[-1]}" = unreadable ]
	# The target's own processes, and the masks: each reads empty,
	# where bare timer_list does not.
	[ ! -r /proc/timer_list ] || [ "$(head -c 1 /proc/timer_list | wc -c)" = 1 ]
	run -0 confined "$m" sh -c 'grep -c "^Name:" /proc/self/status
		for f in keys kcore timer_list sched_debug latency_stats; do
			[ ! -e /proc/$f ] || [ "$(head -c 1 /proc/$f | wc -c)" = 0 ] || echo $f
		done
		[ ! -e /proc/acpi ] || ls -A /proc/acpi'
	[ "$output" = 1 ]
	run -0 confined "$m" sh -c 'grep " /proc " /proc/self/mountinfo'
	[[ "$output" == *"hidepid=invisible"* ]]
}

@test "/proc granted: hidepid=invisible hides init, /proc/keys and the kernel-wide files read empty (root)" { t_proc root; }
@test "/proc granted: hidepid=invisible hides init, /proc/keys and the kernel-wide files read empty (nobody)" { t_proc nobody; }

# python3 -c "$OPATH" SRC CMD...: CMD with stdin an O_PATH descriptor of SRC.
OPATH='import os, sys
fd = os.open(sys.argv[1], os.O_PATH)
os.dup2(fd, 0)
os.execvp(sys.argv[2], sys.argv[2:])'


t_opath() {
	local m=$1
	hneed "$m"
	# The system's: nobody may not reach the caller's own (pyenv in ~).
	require_feature file:/usr/bin/python3
	own "$m"
	policy
	# Bare, /proc/self/fd/0 reopens what the descriptor names.
	run -0 as "$m" /usr/bin/python3 -c "$OPATH" "$TMP/out/secret" sh -c 'cat /proc/self/fd/0'
	[ "$output" = secret ]
	run -126 --separate-stderr as "$m" /usr/bin/python3 -c "$OPATH" "$TMP/out/secret" \
		"$SHARNESS_EXEC" run -p "$TMP/p.json" -- sh -c 'echo ran >"$1/ran"' sh "$TMP/w"
	[ "$stderr" = "sharness-exec-view: fatal: refused: descriptor 0 is an O_PATH descriptor, a way out of the view" ]
	[ ! -e "$TMP/w/ran" ]
	# A plain descriptor of the same file is the caller's to give.
	run -0 as "$m" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- cat <"$TMP/out/secret"
	[ "$output" = secret ]
}

@test "an O_PATH descriptor on fd 0 is refused (126) and nothing runs (root)" { t_opath root; }
@test "an O_PATH descriptor on fd 0 is refused (126) and nothing runs (nobody)" { t_opath nobody; }
