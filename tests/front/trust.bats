#!/usr/bin/env bats
# What the front end does before anything is confined, against another user
# of the machine (issue 12; DESIGN.md 2, 2.2, 4.1): the policy file check,
# env.private, rule paths through symlinks, the environment kept from the
# helpers, what 127 names, and messages that cannot be forged. Each attack
# is made by a real second uid and run with two callers: root (the other
# user 65534) and uid 1000 (the other 65534 again; inside a user namespace
# root's files show as 65534, which would hide an ownership check made
# there from a caller that is 65534 itself).
# not tested: a swap that races the walk between two of its steps (each
#   step is on a descriptor, and a directory where another user could swap
#   anything is refused as a whole). openat2's ENOSYS is made by a seccomp
#   filter (tests/try/no-openat2), not by an older kernel.
load ../helpers/load

# as_uid UID CMD...: CMD as UID (and gid UID), no supplementary groups.
as_uid() {
	local u=$1
	shift
	if [ "$u" = 0 ]; then "$@"; else setpriv --reuid="$u" --regid="$u" --clear-groups -- "$@"; fi
}

setup() {
	setup_tmp
	mkdir -m 755 "$TMP/pol"
	mkdir -m 777 "$TMP/out"
	# Like /tmp: anyone may create, nobody may rename another's entry.
	mkdir -m 1777 "$TMP/shared"
}

# linkdir ME: $TMP/links, a directory ME may not write (root's, or for
# root 65534's), where a link ME owns is followed (DESIGN.md 2).
linkdir() {
	mkdir -m 755 "$TMP/links"
	if [ "$1" = 0 ]; then chown 65534:65534 "$TMP/links"; fi
}

# as_uid_link ME TARGET NAME: ME's symlink NAME to TARGET.
as_uid_link() {
	ln -s "$2" "$3"
	chown -h "$1:$1" "$3"
}

# writer ME: how the refusal says ME may write $TMP/shared (root's 1777).
writer() {
	if [ "$1" = 0 ]; then echo "uid 0 owns"; else echo "everyone may write"; fi
}

# need_uids: the landlock step and root to become the two users.
need_uids() {
	require_feature landlock
	require_feature nobody
}

# policy FILE [EXTRA-WRITE [EXTRA-KEYS]]: a policy that may run try-syscall
# and write $TMP/out (and EXTRA-WRITE, a JSON list tail), owned by root.
policy() {
	write_policy "$1" '{"pbp":1,"id":"trust","files":{"exec":["/usr","/bin","/lib","/lib64","'"$TRYDIR"'"],"read":["/etc"],"write":["'"$TMP"'/out"'"${2:-}"']},"network":"none","process":{"no_new_privs":true}'"${3:-}"'}'
}

# --- the policy file (DESIGN.md 4.1) ---

t_policy_file() {
	local me=$1 other=$2 p="$TMP/pol/p.json" h
	need_uids
	policy "$p"
	h=$("$SHARNESS_EXEC" hash "$p")
	# Bare: root's file runs for either caller.
	run -0 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run -p "$p" -- "$TRY" create "$TMP/out/ran0"
	[ -e "$TMP/out/ran0" ]
	# Another user's file: refused before anything runs.
	chown "$other:$other" "$p"
	run -125 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run -p "$p" -- "$TRY" create "$TMP/out/ran1"
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: refused: policy file $p: it is owned by another user" ]
	[[ "${stderr_lines[1]}" == "hint: "* ]] && [ "${#stderr_lines[@]}" = 2 ]
	[ ! -e "$TMP/out/ran1" ]
	# ... also on standard input: the opened descriptor is what counts.
	run -125 --separate-stderr as_uid "$me" sh -c '"$1" run -p - -- "$2" create "$3" <"$4"' sh \
		"$SHARNESS_EXEC" "$TRY" "$TMP/out/ran1" "$p"
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: refused: policy file standard input: it is owned by another user" ]
	[ ! -e "$TMP/out/ran1" ]
	# Pinned, the hash guards the content: no ownership check.
	run -0 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run -p "$p" -H "$h" -- "$TRY" create "$TMP/out/ran2"
	[ -e "$TMP/out/ran2" ]
	# The caller's own, but writable by its group: refused.
	chown "$me:$me" "$p"
	chmod 664 "$p"
	run -125 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run -p "$p" -- "$TRY" create "$TMP/out/ran3"
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: refused: policy file $p: it is writable by group or others" ]
	[ ! -e "$TMP/out/ran3" ]
	chmod 644 "$p"
	run -0 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run -p "$p" -- "$TRY" create "$TMP/out/ran4"
	# A directory on the way that others may write (no sticky bit): the
	# other user could swap the file; refused, naming the directory.
	mkdir -m 777 "$TMP/open"
	cp -p "$p" "$TMP/open/p.json"
	run -125 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run -p "$TMP/open/p.json" -- "$TRY" create "$TMP/out/ran5"
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: refused: policy file $TMP/open/p.json: directory $TMP/open is writable by group or others" ]
	[ ! -e "$TMP/out/ran5" ]
	# A sticky one, like /tmp: the caller's own file there is safe...
	cp -p "$p" "$TMP/shared/mine.json"
	run -0 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run -p "$TMP/shared/mine.json" -- "$TRY" create "$TMP/out/ran6"
	[ -e "$TMP/out/ran6" ]
	# ... the other user's is not...
	as_uid "$other" cp "$p" "$TMP/shared/theirs.json"
	run -125 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run -p "$TMP/shared/theirs.json" -- "$TRY" create "$TMP/out/ran7"
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: refused: policy file $TMP/shared/theirs.json: it is owned by another user" ]
	# ... nor is a symlink the other user planted there, even to a file
	# the caller trusts (it chooses which of the caller's policies runs).
	as_uid "$other" ln -s "$p" "$TMP/shared/link.json"
	run -125 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run -p "$TMP/shared/link.json" -- "$TRY" create "$TMP/out/ran8"
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: refused: policy file $TMP/shared/link.json: symlink $TMP/shared/link.json is owned by another user" ]
	[ ! -e "$TMP/out/ran7" ] && [ ! -e "$TMP/out/ran8" ]
	# The caller's own symlink is followed.
	as_uid "$me" ln -s "$p" "$TMP/shared/mylink.json"
	run -0 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run -p "$TMP/shared/mylink.json" -- "$TRY" create "$TMP/out/ran9"
	[ -e "$TMP/out/ran9" ]
}

@test "policy file: another user's file, directory or symlink is refused (caller root, other 65534)" {
	t_policy_file 0 65534
}

@test "policy file: another user's file, directory or symlink is refused (caller 1000, other 65534)" {
	t_policy_file 1000 65534
}

@test "policy file: another user's file, directory or symlink is refused (caller 65534, other 1000)" {
	t_policy_file 65534 1000
}

# --- env.private (DESIGN.md 2.2) ---

# The target: print HOME, then create a file in it.
HOME_PROBE='printf "%s\n" "$HOME"; : >"$HOME/token"'

t_private_precreated() {
	local me=$1 other=$2 p="$TMP/pol/p.json" job="$TMP/shared/job"
	need_uids
	policy "$p" ',"'"$TMP"'/shared"' ',"env":{"private":"'"$job"'"}'
	# The other user gets there first: the directory and its home, 0777.
	as_uid "$other" mkdir -m 777 "$job" "$job/home"
	as_uid "$other" chmod 777 "$job" "$job/home"
	run -125 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run -p "$p" -- /bin/sh -c "$HOME_PROBE"
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: refused: env.private: $job is owned by another user" ]
	[[ "${stderr_lines[1]}" == "hint: "* ]] && [ "${#stderr_lines[@]}" = 2 ]
	[ -z "$output" ]
	# Nothing was created in it, and no token reached the other's home.
	[ "$(ls -A "$job")" = home ] && [ -z "$(ls -A "$job/home")" ]
	# The other user's, even 0700: not the caller's.
	as_uid "$other" rm -r "$job"
	as_uid "$other" mkdir -m 700 "$job"
	run -125 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run -p "$p" -- /bin/sh -c "$HOME_PROBE"
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: refused: env.private: $job is owned by another user" ]
	as_uid "$other" rm -r "$job"
	# The caller's own, but left writable by others: refused as well.
	as_uid "$me" mkdir -m 777 "$job"
	as_uid "$me" chmod 777 "$job"
	run -125 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run -p "$p" -- /bin/sh -c "$HOME_PROBE"
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: refused: env.private: $job is writable by group or others" ]
	[ -z "$(ls -A "$job")" ]
	as_uid "$me" chmod 700 "$job"
	# ... and a subdirectory of it that is: refused too.
	as_uid "$me" mkdir -m 700 "$job/cache"
	as_uid "$me" chmod 770 "$job/cache"
	run -125 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run -p "$p" -- /bin/sh -c "$HOME_PROBE"
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: refused: env.private: $job/cache is writable by group or others" ]
	as_uid "$me" chmod 700 "$job/cache"
	# Safe: every directory the caller's, 0700; HOME there; a second run
	# reuses them.
	for i in 1 2; do
		run -0 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run -p "$p" -- /bin/sh -c "$HOME_PROBE"
		[ "$output" = "$job/home" ]
	done
	for d in home tmp config cache data state; do
		[ "$(stat -c '%u %a' "$job/$d")" = "$me 700" ]
	done
	[ -e "$job/home/token" ]
}

@test "env.private made 0777 by another user first is refused (caller root, other 65534)" {
	t_private_precreated 0 65534
}

@test "env.private made 0777 by another user first is refused (caller 1000, other 65534)" {
	t_private_precreated 1000 65534
}

t_private_symlink() {
	local me=$1 other=$2 p="$TMP/pol/p.json"
	need_uids
	policy "$p" ',"'"$TMP"'/shared","'"$TMP"'/open"' ',"env":{"private":"'"$TMP"'/shared/ci/job"}'
	# A first run makes ci/job/... the caller's, 0700.
	run -0 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run -p "$p" -- /bin/sh -c "$HOME_PROBE"
	[ "$output" = "$TMP/shared/ci/job/home" ]
	[ "$(stat -c '%u %a' "$TMP/shared/ci")" = "$me 700" ]
	# Between two runs the caller's tree is gone, and the other user puts
	# a symlink where "ci" was, to a directory of the caller's (the runs'
	# tokens would land there, or anything the job writes in HOME).
	rm -r "$TMP/shared/ci"
	mkdir -m 700 "$TMP/victim"
	chown "$me:$me" "$TMP/victim"
	as_uid "$other" ln -s "$TMP/victim" "$TMP/shared/ci"
	run -125 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run -p "$p" -- /bin/sh -c "$HOME_PROBE"
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: refused: env.private: $TMP/shared/ci is a symlink" ]
	[ -z "$(ls -A "$TMP/victim")" ]
	[ -z "$output" ]
	# In a directory others may write without the sticky bit, they could
	# swap a component at any time: refused, and nothing created there.
	mkdir -m 777 "$TMP/open"
	policy "$p" ',"'"$TMP"'/open"' ',"env":{"private":"'"$TMP"'/open/ci/job"}'
	run -125 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run -p "$p" -- /bin/sh -c "$HOME_PROBE"
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: refused: env.private: $TMP/open is writable by group or others" ]
	[ -z "$(ls -A "$TMP/open")" ]
}

@test "env.private: a component swapped for another user's symlink is refused (caller root, other 65534)" {
	t_private_symlink 0 65534
}

@test "env.private: a component swapped for another user's symlink is refused (caller 1000, other 65534)" {
	t_private_symlink 1000 65534
}

# --- rule paths (DESIGN.md 2) ---

t_rule_symlink() {
	local me=$1 other=$2 p="$TMP/pol/p.json" mine="$TMP/mine"
	need_uids
	# The caller's own files, which the policy never names.
	mkdir -m 700 "$mine"
	echo secret >"$mine/key"
	chown -R "$me:$me" "$mine"
	policy "$p" ',"'"$TMP"'/shared/cache"'
	# The other user plants the policy's write path as a symlink to them.
	as_uid "$other" ln -s "$mine" "$TMP/shared/cache"
	run -125 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run -p "$p" -- "$TRY" create "$mine/planted"
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: refused: files.write[1] \"$TMP/shared/cache\": symlink \"$TMP/shared/cache\" is owned by uid $other, not by root or the caller" ]
	[[ "${stderr_lines[1]}" == "hint: "* ]] && [ "${#stderr_lines[@]}" = 2 ]
	[ ! -e "$mine/planted" ] && [ "$(cat "$mine/key")" = secret ]
	run -125 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run --dry-run -p "$p" -- true
	[ -z "$output" ]
	# The caller's own symlink, where the caller may write (a sticky
	# directory lets it make new entries): an earlier run as the caller
	# could have planted it, so it is refused too.
	rm "$TMP/shared/cache"
	as_uid "$me" ln -s "$mine" "$TMP/shared/cache"
	run -125 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run -p "$p" -- "$TRY" create "$mine/planted"
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: refused: files.write[1] \"$TMP/shared/cache\": symlink \"$TMP/shared/cache\" (to \"$mine\") lies in \"$TMP/shared\", which $(writer "$me"): an earlier run as uid $me could have planted it" ]
	[ ! -e "$mine/planted" ]
	# The caller's own symlink, in a directory it may not write, is
	# followed; the run says where it leads (--verbose or not), and the
	# chain holds the resolved path.
	linkdir "$me"
	as_uid_link "$me" "$mine" "$TMP/links/cache"
	policy "$p" ',"'"$TMP"'/links/cache"'
	run -0 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run --dry-run -p "$p" -- true
	[[ "$stderr" == *"sharness-exec: files.write[1]: \"$TMP/links/cache\" resolves to \"$mine\""* ]]
	[[ "${lines[-2]}" == *" -w $TMP/out -w $mine -R --" ]]
	run -0 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run -p "$p" -- "$TRY" create "$mine/made"
	[ "$stderr" = "sharness-exec: files.write[1]: \"$TMP/links/cache\" resolves to \"$mine\"" ]
	[ -e "$mine/made" ]
	# The landlock step itself follows no symlink: one put there after
	# the front end looked is refused, and nothing runs.
	run -126 --separate-stderr as_uid "$me" "$LANDLOCK" -x /usr -w "$TMP/links/cache" -- "$TRY" create "$mine/late"
	# (ELOOP in the words of glibc, or of musl)
	case ${stderr_lines[0]} in
	"sharness-exec-landlock: fatal: unable to open $TMP/links/cache: Too many levels of symbolic links") ;;
	"sharness-exec-landlock: fatal: unable to open $TMP/links/cache: Symbolic link loop") ;;
	*) false ;;
	esac
	[ ! -e "$mine/late" ]
}

@test "rule path: another user's symlink is refused, naming the rule (caller root, other 65534)" {
	t_rule_symlink 0 65534
}

@test "rule path: another user's symlink is refused, naming the rule (caller 1000, other 65534)" {
	t_rule_symlink 1000 65534
}

# The view step gets what the front end resolved: the resolved paths to
# bind, and --symlink ORIG=RESOLVED to recreate each link. files.protected is
# resolved under the same rule. A link swapped in after the front end
# looked cannot redirect a grant: the view opens the resolved path
# following no symlink, and refuses (126).
t_view_resolved() {
	local me=$1 other=$2 p="$TMP/pol/p.json" mine="$TMP/mine" view line
	need_uids
	require_feature userns
	mkdir -m 755 "$mine" "$mine/w" "$mine/w/git" "$TMP/victim"
	chown -R "$me:$me" "$mine"
	chown "$other:$other" "$TMP/victim"
	chmod 777 "$TMP/victim"
	linkdir "$me"
	as_uid_link "$me" "$mine/w" "$TMP/links/cache"
	as_uid_link "$me" "$mine/w/git" "$TMP/links/git"
	write_policy "$p" '{"pbp":1,"id":"trust","files":{"exec":["/usr","/bin","/lib","/lib64","'"$TRYDIR"'"],"read":["/etc"],"write":["'"$TMP"'/out","'"$TMP"'/links/cache"],"protected":["'"$TMP"'/links/cache/git"]},"network":"none","process":{"no_new_privs":true}}'
	run -0 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run --dry-run -p "$p" -- true
	[[ "$stderr" == *"files.write[1]: \"$TMP/links/cache\" resolves to \"$mine/w\""* ]]
	[[ "$stderr" == *"files.protected[0]: \"$TMP/links/cache/git\" resolves to \"$mine/w/git\""* ]]
	view=$(grep "^$HELPERDIR/sharness-exec-view " <<<"$output")
	[[ "$view" == *" -w $mine/w -P $mine/w/git "* ]]
	[[ "$view" == *" --symlink $TMP/links/cache=$mine/w --symlink $TMP/links/cache/git=$mine/w/git --" ]]
	[[ "$view" != *" -w $TMP/links/cache "* ]]
	# Through the link, confined: writable, and the protected tree not.
	run -0 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run -p "$p" -- "$TRY" create "$TMP/links/cache/made"
	[ -e "$mine/w/made" ]
	run -1 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run -p "$p" -- "$TRY" create "$TMP/links/cache/git/made"
	[ ! -e "$mine/w/git/made" ]
	# The resolved path becomes a symlink to the other user's directory
	# after the front end looked: the view step, run with the very words
	# the front end gave it, refuses and binds nothing.
	mv "$mine/w" "$mine/w.real"
	ln -s "$TMP/victim" "$mine/w"
	chown -h "$me:$me" "$mine/w"
	line=${view% --}
	eval "set -- $line"
	if [ "$me" = 0 ]; then
		run -126 --separate-stderr "$@" -- "$TRY" create "$mine/w/planted"
	else
		run -126 --separate-stderr as_uid "$me" unshare --user --map-current-user --keep-caps -- \
			"$@" -- "$TRY" create "$mine/w/planted"
	fi
	case ${stderr_lines[0]} in
	"sharness-exec-view: fatal: unable to open $mine/w: Too many levels of symbolic links") ;;
	"sharness-exec-view: fatal: unable to open $mine/w: Symbolic link loop") ;;
	*) false ;;
	esac
	[[ "${stderr_lines[1]}" == "hint: "*"changed since the front end resolved"* ]]
	[ ! -e "$TMP/victim/planted" ]
	# The other user's symlink as a protected path: refused, naming it.
	rm "$mine/w" && mv "$mine/w.real" "$mine/w"
	as_uid "$other" ln -s "$mine/w/git" "$TMP/shared/git"
	write_policy "$p" '{"pbp":1,"id":"trust","files":{"exec":["/usr"],"write":["'"$TMP"'/shared"],"protected":["'"$TMP"'/shared/git"]},"network":"none","process":{"no_new_privs":true}}'
	run -125 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run -p "$p" -- "$TRY" create "$mine/w/git/made"
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: refused: files.protected[0] \"$TMP/shared/git\": symlink \"$TMP/shared/git\" is owned by uid $other, not by root or the caller" ]
	[ "${#stderr_lines[@]}" = 2 ]
	[ ! -e "$mine/w/git/made" ]
	# The caller's own, leading out of every write path: refused too.
	rm "$TMP/links/git"
	as_uid_link "$me" /etc "$TMP/links/git"
	write_policy "$p" '{"pbp":1,"id":"trust","files":{"exec":["/usr"],"write":["'"$TMP"'/links"],"protected":["'"$TMP"'/links/git"]},"network":"none","process":{"no_new_privs":true}}'
	run -125 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run -p "$p" -- true
	[ "${stderr_lines[0]}" = "sharness-exec: files.protected[0]: \"$TMP/links/git\" resolves to \"/etc\"" ]
	[ "${stderr_lines[1]}" = "sharness-exec: fatal: refused: files.protected[0] \"$TMP/links/git\" resolves to \"/etc\", which lies beneath no files.write path" ]
}

@test "view: resolved paths and -s links; a link swapped in later is refused (126); protected resolved too (caller root, other 65534)" {
	t_view_resolved 0 65534
}

@test "view: resolved paths and -s links; a link swapped in later is refused (126); protected resolved too (caller 1000, other 65534)" {
	t_view_resolved 1000 65534
}

@test "view: resolved paths and -s links; a link swapped in later is refused (126); protected resolved too (caller 65534, other 1000)" {
	t_view_resolved 65534 1000
}

@test "view: a symlinked rule whose name holds '=' cannot be said with -s: one warning, its target bound all the same" {
	need_uids
	local p="$TMP/pol/p.json"
	mkdir -m 755 "$TMP/real"
	echo in >"$TMP/real/f"
	linkdir 0
	ln -s "$TMP/real" "$TMP/links/a=b"
	write_policy "$p" '{"pbp":1,"id":"trust","files":{"exec":["/usr","/bin","/lib","/lib64"],"read":["'"$TMP"'/links/a=b"]},"network":"none","process":{"no_new_privs":true}}'
	run -0 --separate-stderr "$SHARNESS_EXEC" run --dry-run -p "$p" -- true
	[[ "$stderr" == *"sharness-exec: warning: files.read[0] \"$TMP/links/a=b\": a name with '=' is not recreated as a symlink in the view; \"$TMP/real\" is"* ]]
	[[ "$output" == *"-r $TMP/real "* ]] && [[ "$output" != *" --symlink $TMP/links/a=b"* ]]
	run -0 --separate-stderr "$SHARNESS_EXEC" run -p "$p" -- /bin/cat "$TMP/real/f"
	[ "$output" = in ]
	run -1 --separate-stderr "$SHARNESS_EXEC" run -p "$p" -- /bin/cat "$TMP/links/a=b/f"
}

t_merged_usr() {
	local me=$1 p="$TMP/pol/p.json"
	need_uids
	require_that merged-usr "/lib is no symlink here" test -L /lib
	policy "$p"
	# Root's links, read before any namespace exists: as uid 1000, root's
	# files would show as 65534 inside one.
	run -0 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run -v -p "$p" -- /bin/sh -c 'exit 0'
	[[ "$stderr" == *"sharness-exec: files.exec[2]: \"/lib\" resolves to \"$(realpath /lib)\""* ]]
	run -0 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run -p "$p" -- "$TRY" create "$TMP/out/ran"
	[ -e "$TMP/out/ran" ]
}

@test "merged /usr: /lib -> usr/lib keeps working (root)" {
	t_merged_usr 0
}

@test "merged /usr: /lib -> usr/lib keeps working (1000)" {
	t_merged_usr 1000
}

# bench/chain.sh's policy, whose exec list names the merged-/usr links
# themselves. A run of it once failed with "sharness-exec-landlock: fatal:
# unable to open /bin: Symbolic link loop" (126): the landlock step follows
# no symlink, so a link must reach it resolved, in every list and every
# step. t_merged_usr ran the same links as root and 1000, but never with
# /bin run as the target, as nobody, or with the chain's lists checked.
t_bench_policy() {
	local me=$1 p="$TMP/pol/bench.json" outside l
	need_uids
	require_that merged-usr "/bin is no symlink here" test -L /bin
	require_feature builddir-outside-tmp
	write_policy "$p" '{"pbp":1,"id":"bench","files":{"read":["/etc"],"exec":["/usr","/bin","/lib","/lib64"],"write":["/tmp"]},"network":"none","process":{"no_new_privs":true}}'
	outside=$(outside_tmp outside)
	chmod 777 "$outside"
	run -0 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run -p "$p" -- /bin/true
	[ -z "$stderr" ]
	# Every link resolved, for the view and the landlock step alike.
	run -0 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run --dry-run -p "$p" -- /bin/true
	for l in /bin /lib /lib64; do
		[ -e "$l" ] || continue
		[[ "$stderr" == *"\"$l\" resolves to \"$(realpath "$l")\""* ]]
		[[ "$output" != *" $l "* ]]
		[[ "$output" == *" -x $(realpath "$l") "* ]]
	done
	# The target runs /bin/sh, writes where the policy says, nowhere else.
	run -0 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run -p "$p" -- /bin/sh -c 'echo in >"$1"' sh "$TMP/out/in"
	[ "$(cat "$TMP/out/in")" = in ]
	run --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run -p "$p" -- /bin/sh -c 'echo out >"$1"' sh "$outside/escaped"
	[ "$status" != 0 ] && [ ! -e "$outside/escaped" ]
	# The same caller, bare, could have.
	as_uid "$me" /bin/sh -c 'echo out >"$1"' sh "$outside/control"
	[ -e "$outside/control" ]
	rm -rf "$outside"
}

@test "bench/chain.sh's policy (exec /bin /lib /lib64 themselves) runs /bin/true, writes nothing outside (root)" {
	t_bench_policy 0
}

@test "bench/chain.sh's policy (exec /bin /lib /lib64 themselves) runs /bin/true, writes nothing outside (nobody)" {
	t_bench_policy 65534
}

@test "bench/chain.sh's policy (exec /bin /lib /lib64 themselves) runs /bin/true, writes nothing outside (1000)" {
	t_bench_policy 1000
}

@test "without openat2 (ENOSYS) the landlock step walks each path with O_NOFOLLOW: same rules, same refusals" {
	require_feature landlock
	local NO2="$TRYDIR/no-openat2"
	mkdir -m 755 "$TMP/real" "$TMP/real/sub" "$TMP/outside"
	echo in >"$TMP/real/sub/f"
	echo out >"$TMP/outside/f"
	ln -s "$TMP/outside" "$TMP/real/link"
	# A real directory, a file, and a missing path: as with openat2.
	run -0 --separate-stderr "$NO2" "$LANDLOCK" -x /usr -x "$TRYDIR" -r "$TMP/real/sub" -r "$TMP/real/sub/f" \
		-r "$TMP/real/nope" -- "$TRY" read "$TMP/real/sub/f"
	[ "$output" = ok ]
	[ "$stderr" = "sharness-exec-landlock: warning: skipping missing path $TMP/real/nope" ]
	run -1 --separate-stderr "$NO2" "$LANDLOCK" -x /usr -x "$TRYDIR" -r "$TMP/real/sub" -- "$TRY" read "$TMP/outside/f"
	[ "$output" = "refused: Permission denied" ]
	# A symlink, last or in the middle: refused, nothing runs.
	for p in "$TMP/real/link" "$TMP/real/link/f"; do
		run -126 --separate-stderr "$NO2" "$LANDLOCK" -x /usr -x "$TRYDIR" -r "$p" -- "$TRY" create "$TMP/real/ran"
		case ${stderr_lines[0]} in
		"sharness-exec-landlock: fatal: unable to open $p: Too many levels of symbolic links") ;;
		"sharness-exec-landlock: fatal: unable to open $p: Symbolic link loop") ;;
		*) false ;;
		esac
	done
	[ ! -e "$TMP/real/ran" ]
}

# --- the environment (DESIGN.md 1, 2.2) ---

t_env() {
	local me=$1 p="$TMP/pol/p.json" secret="hunter2-$$-$RANDOM"
	need_uids
	require_feature tool:strace
	policy "$p" "" ',"env":{"inherit":["SECRET_TOKEN"],"set":{"LD_LIBRARY_PATH":"/nonexistent-ld"}}'
	run -0 --separate-stderr env SECRET_TOKEN="$secret" strace -f -qq -e trace=execve -v -s 65536 \
		-o "$TMP/trace" setpriv --reuid="$me" --regid="$me" --clear-groups -- \
		"$SHARNESS_EXEC" run -p "$p" -- /bin/sh -c 'env; [ -e /proc/self/fd/3 ] && echo fd 3 open || echo fd 3 closed'
	# The target has its variables, and not the memfd they came in.
	[[ " ${lines[*]} " == *" SECRET_TOKEN=$secret "* ]]
	[[ " ${lines[*]} " == *" LD_LIBRARY_PATH=/nonexistent-ld "* ]]
	[ "${lines[-1]}" = "fd 3 closed" ]
	# Every step before it ran with no environment at all (what its
	# /proc/PID/environ shows), and no argv (its world-readable
	# /proc/PID/cmdline) holds the secret: only the caller's own exec of
	# the front end and the target's have it in their environment.
	local steps=0 target=0 line
	while IFS= read -r line; do
		[[ "$line" == *execve* ]] || continue
		# Never in an argv.
		[[ "${line%%"], ["*}" != *"$secret"* ]] || { echo "argv: $line"; return 1; }
		case $line in
		*'execve("'"$HELPERDIR"/sharness-exec-*)
			steps=$((steps + 1))
			# A sanitizer build's test front end hands on its
			# *SAN_OPTIONS (compiled into test-sharness-exec only).
			[[ "$line" == *'], []) = 0' ]] ||
				[[ "$line" == *'], ["UBSAN_OPTIONS='*'", "ASAN_OPTIONS='*'"]) = 0' &&
				   "${line##*"], ["}" != *"$secret"* ]] ||
				{ echo "not empty: $line"; return 1; } ;;
		*'execve("/bin/sh", ["/bin/sh", "-c", '*"SECRET_TOKEN=$secret"*)
			target=1 ;;
		esac
	done <"$TMP/trace"
	[ "$target" = 1 ]
	[ "$steps" -ge 2 ]
}

@test "the helpers run with an empty environment; the target gets its own; no secret in argv (root)" {
	t_env 0
}

@test "the helpers run with an empty environment; the target gets its own; no secret in argv (1000)" {
	t_env 1000
}

@test "the landlock step refuses an environment fd that is not a sealed memfd" {
	require_feature landlock
	echo "A=1" >"$TMP/env"
	run -126 --separate-stderr sh -c 'exec 3<"$1"; shift; exec "$@"' sh "$TMP/env" \
		"$LANDLOCK" -e 3 -x /usr -- /usr/bin/env
	[ "$stderr" = "sharness-exec-landlock: fatal: unable to read the environment from fd 3: not a sealed memfd" ]
	[ -z "$output" ]
	run -125 --separate-stderr "$LANDLOCK" -e 2 -x /usr -- true
	[[ "${stderr_lines[0]}" == *"not a descriptor above 2" ]]
}

# --- 127 names what is missing (DESIGN.md 3) ---

t_missing_piece() {
	local me=$1 p="$TMP/pol/p.json" x="$TMP/x"
	need_uids
	mkdir -m 755 "$x" "$TMP/y"
	policy "$p"
	sed -i 's#"exec":\[#"exec":["'"$x"'",#' "$p"
	printf '#!/nonexistent/python9\n' >"$x/no-interp"
	printf '#!%s\n' "$x/gone" >"$x/gone-interp"
	cp /bin/sh "$TMP/y/sh"
	printf '#!%s\n' "$TMP/y/sh" >"$x/outside-interp"
	# An ELF whose loader is missing: try-syscall with another PT_INTERP.
	python3 - "$TRY" "$x/no-loader" <<-'EOF'
	import sys
	d = open(sys.argv[1], 'rb').read()
	old = b'/lib64/ld-linux-x86-64.so.2'
	assert old in d, 'no PT_INTERP to change'
	open(sys.argv[2], 'wb').write(d.replace(old, b'/lib64/ld-nothere-x86-64.so', 1))
	EOF
	chmod 755 "$x"/*
	local L="sharness-exec-landlock: fatal: unable to execute"
	run -127 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run -p "$p" -- "$x/no-interp"
	[ "$stderr" = "$L $x/no-interp: its interpreter \"/nonexistent/python9\" was not found (it lies outside the policy's exec and write paths)" ]
	run -127 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run -p "$p" -- "$x/gone-interp"
	[ "$stderr" = "$L $x/gone-interp: its interpreter \"$x/gone\" was not found" ]
	run -127 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run -p "$p" -- "$x/no-loader" create "$TMP/out/ran"
	[ "$stderr" = "$L $x/no-loader: its ELF loader \"/lib64/ld-nothere-x86-64.so\" was not found" ]
	# Found by PATH lookup too, named as the caller named it.
	run -127 --separate-stderr as_uid "$me" env PATH="$x:/usr/bin" "$SHARNESS_EXEC" run -p "$p" -- no-interp
	[ "$stderr" = "$L no-interp: its interpreter \"/nonexistent/python9\" was not found (it lies outside the policy's exec and write paths)" ]
	# There on the host, outside the policy: the view step hides it, so
	# it is not found (127), and the line says it lies outside the policy.
	run -127 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run -p "$p" -- "$x/outside-interp"
	[ "$stderr" = "$L $x/outside-interp: its interpreter \"$TMP/y/sh\" was not found (it lies outside the policy's exec and write paths)" ]
	# The target itself missing: its own name.
	run -127 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run -p "$p" -- "$x/none"
	[ "$stderr" = "$L $x/none: No such file or directory" ]
	[ ! -e "$TMP/out/ran" ]
}

@test "127 names the missing interpreter or ELF loader, never the target that is there (root)" {
	t_missing_piece 0
}

@test "127 names the missing interpreter or ELF loader, never the target that is there (1000)" {
	t_missing_piece 1000
}

# --- one line is one line ---

@test "a newline or escape in a policy file name, rule path or command cannot forge lines" {
	need_uids
	local f="$TMP/pol/p"$'\n'"sharness-exec: fatal: forged"$'\e'"[2K.json"
	local shown="\"$TMP/pol/p\\nsharness-exec: fatal: forged\\033[2K.json\""
	policy "$f"
	# check: the name on each line, quoted.
	run -0 --separate-stderr "$SHARNESS_EXEC" check "$f"
	[ "$output" = "$shown: valid pbp 1 policy \"trust\"" ]
	# run: refused as writable by others, in one line and a hint.
	chmod 666 "$f"
	run -125 --separate-stderr "$SHARNESS_EXEC" run -p "$f" -- "$TRY" create "$TMP/out/ran"
	[ "${#stderr_lines[@]}" = 2 ]
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: refused: policy file $shown: it is writable by group or others" ]
	# A rule path: another user's symlink with a newline in its name.
	chmod 644 "$f"
	local link="$TMP/shared/l"$'\n'"x"
	as_uid 65534 ln -s /etc "$link"
	sed -i 's#"read":\["/etc"\]#"read":["'"$TMP"'/shared/l\\nx"]#' "$f"
	run -125 --separate-stderr "$SHARNESS_EXEC" run -p "$f" -- "$TRY" create "$TMP/out/ran"
	[ "${#stderr_lines[@]}" = 2 ]
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: refused: files.read[0] \"$TMP/shared/l\\nx\": symlink \"$TMP/shared/l\\nx\" is owned by uid 65534, not by root or the caller" ]
	# A command that is not there.
	policy "$TMP/pol/q.json"
	run -127 --separate-stderr "$SHARNESS_EXEC" run -p "$TMP/pol/q.json" -- "no"$'\n'"such"
	[ "$stderr" = "sharness-exec-landlock: fatal: unable to execute \"no\\nsuch\": No such file or directory" ]
	[ ! -e "$TMP/out/ran" ]
}

# --- key files (DESIGN.md 2.3: a key file gets the policy file's check) ---

t_key_file() {
	local me=$1 other=$2 p="$TMP/pol/p.json" k="$TMP/pol/k"
	need_uids
	policy "$p"
	"$SHARNESS_EXEC" keygen -o "$k" >/dev/null
	"$SHARNESS_EXEC" sign -k "$k.key" "$p" >/dev/null
	chmod 644 "$p.sig"
	# Root's key in root's directory: trusted by either caller.
	run -0 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run --trust-key "$k.pub" -p "$p" -- "$TRY" create "$TMP/out/ran0"
	[ -e "$TMP/out/ran0" ]
	run -0 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" verify -K "$k.pub" "$p"
	# In a directory the other user may write (no sticky bit): they
	# could swap the key. Refused by run and by verify, naming it.
	mkdir -m 777 "$TMP/open"
	cp -p "$k.pub" "$TMP/open/k.pub"
	run -125 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run --trust-key "$TMP/open/k.pub" -p "$p" -- "$TRY" create "$TMP/out/ran1"
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: refused: key file $TMP/open/k.pub: directory $TMP/open is writable by group or others" ]
	[ "${stderr_lines[1]}" = "hint: only root and the caller may be able to change it (chmod go-w; chown)" ]
	[ ! -e "$TMP/out/ran1" ]
	run -125 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" verify -K "$TMP/open/k.pub" "$p"
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: refused: key file $TMP/open/k.pub: directory $TMP/open is writable by group or others" ]
	[ -z "$output" ]
	# Owned by the other user: refused by both (verify checked nothing).
	mkdir -m 755 "$TMP/keys"
	cp "$k.pub" "$TMP/keys/k.pub"
	chown "$other:$other" "$TMP/keys/k.pub"
	run -125 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run --trust-key "$TMP/keys/k.pub" -p "$p" -- "$TRY" create "$TMP/out/ran2"
	[[ "$stderr" == *"owned by another user"* ]]
	[ ! -e "$TMP/out/ran2" ]
	run -125 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" verify -K "$TMP/keys/k.pub" "$p"
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: refused: key file $TMP/keys/k.pub: it is owned by another user" ]
	# Through the other user's symlink in a sticky directory: refused.
	as_uid "$other" ln -s "$k.pub" "$TMP/shared/k.pub"
	run -125 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" verify -K "$TMP/shared/k.pub" "$p"
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: refused: key file $TMP/shared/k.pub: symlink $TMP/shared/k.pub is owned by another user" ]
	run -125 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run --trust-key "$TMP/shared/k.pub" -p "$p" -- "$TRY" create "$TMP/out/ran3"
	[ ! -e "$TMP/out/ran3" ]
	# The caller's own key, in the sticky directory: trusted.
	chown "$me:$me" "$TMP/keys/k.pub"
	cp -p "$TMP/keys/k.pub" "$TMP/shared/mine.pub"
	run -0 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" verify -K "$TMP/shared/mine.pub" "$p"
	run -0 --separate-stderr as_uid "$me" "$SHARNESS_EXEC" run --trust-key "$TMP/shared/mine.pub" -p "$p" -- "$TRY" create "$TMP/out/ran4"
	[ -e "$TMP/out/ran4" ]
}

@test "key files: run --trust-key and verify -K refuse a key another user could change (caller root, other 65534)" {
	t_key_file 0 65534
}

@test "key files: run --trust-key and verify -K refuse a key another user could change (caller 1000, other 65534)" {
	t_key_file 1000 65534
}

@test "key files: run --trust-key and verify -K refuse a key another user could change (caller 65534, other 1000)" {
	t_key_file 65534 1000
}
