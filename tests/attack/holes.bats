#!/usr/bin/env bats
# Holes in the view, tried from the attacker's side (issue 24 items 1, 2,
# 6 and 8; issue 26's cwd line): a protected tree moved aside with its
# parent, a second name for a protected file, a set-id file rewritten
# through a shared writable mapping, /proc showing init and the caller's
# keys, an O_PATH descriptor on stdin. Each through `sharness-exec run`, as
# root and as nobody (bare: the netns step gives the view its user
# namespace), and each first shows, bare, that the same thing works. The
# victims belong to the user who attacks, so only the view refuses.
load ../helpers/load

TRYV="$TRYDIR/try-view"
DENY_UNSHARE="$TRYDIR/deny-unshare"

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

# The attack of issue 24.1: move the protected tree aside with its parent
# and make a new one, with a hook in it, in its place.
ATTACK='mv "$1/repo/.git" "$1/repo/.git.old" && mkdir -p "$1/repo/.git/hooks" &&
	echo evil >"$1/repo/.git/hooks/pre-commit"'

t_moved() {
	local m=$1
	hneed "$m"
	own "$m"
	policy ',"protected":["'"$TMP"'/w/repo/.git/hooks"]'
	run -1 --separate-stderr confined "$m" sh -c "$ATTACK" sh "$TMP/w"
	[ "$stderr" = "mv: cannot move '$TMP/w/repo/.git' to '$TMP/w/repo/.git.old': Device or resource busy" ]
	# Each directory between it and the write path, and itself; within
	# .git, read-only whole as VCS metadata is by default, the read-only
	# mount answers first.
	for d in repo repo/.git repo/.git/hooks; do
		run -1 --separate-stderr confined "$m" "$TRY" rename "$TMP/w/$d" "$TMP/w/$d.old"
		[ "$output" = "refused: Device or resource busy" ] ||
			{ [ "$d" = repo/.git/hooks ] && [ "$output" = "refused: Read-only file system" ]; }
	done
	[ "$(ls -A "$TMP/w")" = repo ] && [ "$(ls -A "$TMP/w/repo")" = .git ]
	[ "$(ls -A "$TMP/w/repo/.git/hooks")" = pre-commit ]
	[ "$(cat "$TMP/w/repo/.git/hooks/pre-commit")" = orig ]
	# Beside it the write path is as writable as ever.
	run -0 confined "$m" sh -c 'echo new >"$1/repo/file" && mv "$1/repo/file" "$1/repo/moved"' sh "$TMP/w"
	[ "$(cat "$TMP/w/repo/moved")" = new ]
	# Bare, the same user moves it and plants the hook.
	run -0 as "$m" sh -c "$ATTACK" sh "$TMP/w"
	[ "$(cat "$TMP/w/repo/.git/hooks/pre-commit")" = evil ]
	[ "$(cat "$TMP/w/repo/.git.old/hooks/pre-commit")" = orig ]
}

@test "files.protected: the tree cannot be moved aside with its parent and replaced (root)" { t_moved root; }
@test "files.protected: the tree cannot be moved aside with its parent and replaced (nobody)" { t_moved nobody; }

t_linked() {
	local m=$1 hook=$TMP/w/repo/.git/hooks/pre-commit
	hneed "$m"
	ln "$hook" "$TMP/w/other-name"
	own "$m"
	policy ',"protected":["'"$TMP"'/w/repo/.git"]'
	# Strict: refused, one line naming it, nothing ran.
	run -126 --separate-stderr confined "$m" sh -c 'echo ran >"$1/ran"' sh "$TMP/w"
	[ "$stderr" = "sharness-exec-view: fatal: refused: the protected file $hook has 2 links: another of them may lie beneath a write path, writable there; -b (--best-effort) runs anyway" ]
	[ ! -e "$TMP/w/ran" ] && [ "$(cat "$hook")" = orig ]
	# Best effort says so, and shows why: through the other name the
	# protected file is written.
	run -0 --separate-stderr as "$m" "$SHARNESS_EXEC" run --best-effort -p "$TMP/p.json" -- \
		sh -c 'echo evil >"$1/other-name"' sh "$TMP/w"
	[ "$stderr" = "sharness-exec-view: warning: best effort: the protected file $hook has 2 links: another of them may lie beneath a write path, writable there" ]
	[ "$(cat "$hook")" = evil ]
	# A file of one link runs as before.
	rm "$TMP/w/other-name"
	run -0 --separate-stderr confined "$m" true
	[ -z "$stderr" ]
}

@test "files.protected: a protected file with a second name is refused (126), or warned of under --best-effort (root)" { t_linked root; }
@test "files.protected: a protected file with a second name is refused (126), or warned of under --best-effort (nobody)" { t_linked nobody; }

# Issue 37: a protected path missing at the start was silent, and the
# target created it inside the write path (a .git/config that runs code
# at the next git command outside). Now refused (126), naming it; -b
# says so in one line and runs.
t_missing() {
	local m=$1 conf=$TMP/w/repo/.git/config
	hneed "$m"
	own "$m"
	policy ',"protected":["'"$conf"'"]'
	run -126 --separate-stderr confined "$m" sh -c 'echo evil >"$1"' sh "$conf"
	[ "${stderr_lines[0]}" = "sharness-exec-view: fatal: refused: the protected path $conf does not exist, so nothing holds it: the target could create it and write it" ]
	[ "${stderr_lines[1]}" = "hint: create it before the run, or -b (--best-effort) runs anyway" ]
	[ ! -e "$conf" ]
	run -0 --separate-stderr as "$m" "$SHARNESS_EXEC" run --best-effort -p "$TMP/p.json" -- true
	[ "$stderr" = "sharness-exec-view: warning: best effort: the protected path $conf does not exist: the target may create it and write it" ]
	# Once it exists, it holds.
	echo orig >"$conf"
	own "$m"
	run -2 --separate-stderr confined "$m" sh -c 'echo evil >"$1"' sh "$conf"
	[[ "$stderr" == *"Read-only file system"* ]]
	[ "$(cat "$conf")" = orig ]
}

@test "files.protected: a path missing at the start is refused (126), or warned of under --best-effort (root)" { t_missing root; }
@test "files.protected: a path missing at the start is refused (126), or warned of under --best-effort (nobody)" { t_missing nobody; }

# Set-id files in a write path: a 04755 and a 02755 file, one with file
# capabilities (root only: setcap), and a 02644 one (set-group-id without
# group execute: no set-id at all), each a copy of try-view.
t_setid() {
	local m=$1 f
	hneed "$m"
	mkdir "$TMP/w/bin"
	for f in suid sgid caps plain lock; do
		cp "$TRYV" "$TMP/w/bin/$f"
	done
	own "$m"
	chmod 4755 "$TMP/w/bin/suid"
	chmod 2755 "$TMP/w/bin/sgid"
	chmod 2644 "$TMP/w/bin/lock"
	local held="suid sgid"
	if command -v setcap >/dev/null && setcap cap_net_raw+ep "$TMP/w/bin/caps"; then
		held="$held caps"
	fi
	policy
	for f in $held; do
		run -1 confined "$m" "$TRYV" mmap-write "$TMP/w/bin/$f"
		[ "$output" = "refused: Read-only file system" ]
		[ "$(head -c 3 "$TMP/w/bin/$f" | tail -c 2)" = EL ]
	done
	[ "$(stat -c %a "$TMP/w/bin/suid")" = 4755 ]
	# The rest of the write path, writable.
	for f in plain lock; do
		run -0 confined "$m" "$TRYV" mmap-write "$TMP/w/bin/$f"
		[ "$(head -c 4 "$TMP/w/bin/$f")" = evil ]
	done
	# Bare, the mapping rewrites the set-id file and its bits stay.
	run -0 as "$m" "$TRYV" mmap-write "$TMP/w/bin/suid"
	[ "$(head -c 4 "$TMP/w/bin/suid")" = evil ]
	[ "$(stat -c %a "$TMP/w/bin/suid")" = 4755 ]
}

@test "a set-id file in a write path cannot be rewritten through a shared writable mapping (root)" { t_setid root; }
@test "a set-id file in a write path cannot be rewritten through a shared writable mapping (nobody)" { t_setid nobody; }

# Where no mount namespace stands: refused, but a root caller is refused
# for that alone first; under --best-effort a warning names the file and
# the mapping rewrites it, as bare.
t_setid_no_view() {
	local m=$1
	need "$m"
	cp "$TRYV" "$TMP/w/suid"
	cp "$TRYV" "$TMP/w/sgid"
	own "$m"
	chmod 4755 "$TMP/w/suid"
	chmod 2755 "$TMP/w/sgid"
	policy
	if [ "$m" = nobody ]; then
		run -126 --separate-stderr as_nobody "$DENY_UNSHARE" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TRYV" mmap-write "$TMP/w/suid"
		# (after the network step's own warning)
		[ "$(grep -c '^sharness-exec-view: ' <<<"$stderr")" = 1 ]
		[[ "${stderr_lines[-2]}" == "sharness-exec-view: fatal: refused: $TMP/w/s"?"id (and 1 more) is set-id or has file capabilities, beneath a write path, and without a mount namespace nothing holds it read-only" ]]
		[ "${stderr_lines[-1]}" = "hint: -b (--best-effort) runs with them writable" ]
		[ "$(head -c 4 "$TMP/w/suid" | tail -c 3)" = ELF ]
	fi
	rm "$TMP/w/sgid"
	run -0 --separate-stderr as "$m" "$DENY_UNSHARE" "$SHARNESS_EXEC" run --best-effort -p "$TMP/p.json" -- "$TRYV" mmap-write "$TMP/w/suid"
	[[ "$stderr" == *"sharness-exec-view: warning: best effort: $TMP/w/suid is set-id or has file capabilities, beneath a write path, and stays writable"* ]]
	[ "$(head -c 4 "$TMP/w/suid")" = evil ]
}

@test "set-id files in a write path, no mount namespace: warned of under --best-effort (root)" { t_setid_no_view root; }
@test "set-id files in a write path, no mount namespace: refused (126), or warned of under --best-effort (nobody)" { t_setid_no_view nobody; }

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

t_cwd() {
	local m=$1
	hneed "$m"
	own "$m"
	policy
	# Bare, the directory holds its file; confined it is empty, and one
	# line says why.
	cd "$TMP/out"
	run -0 as "$m" ls
	[ "$output" = secret ]
	run -0 --separate-stderr confined "$m" pwd
	[ "$output" = "$TMP/out" ]
	[ "$stderr" = "sharness-exec-view: warning: the working directory $TMP/out lies outside the policy: it is an empty directory here; add it to files.read (or files.write) to see it" ]
	# Inside the policy, or on the way to a policy path: no line.
	cd "$TMP/w"
	run -0 --separate-stderr confined "$m" ls
	[ "$output" = repo ] && [ -z "$stderr" ]
	cd "$TMP"
	run -0 --separate-stderr confined "$m" "$TRY" read w/repo/.git/hooks/pre-commit
	[ -z "$stderr" ]
	cd /
}

@test "a working directory outside the policy draws one line naming it and the list (root)" { t_cwd root; }
@test "a working directory outside the policy draws one line naming it and the list (nobody)" { t_cwd nobody; }
