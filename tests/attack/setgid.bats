#!/usr/bin/env bats
# The setgid bit (issue 42), through `sharness-exec run` as root, as nobody
# and as uid 1000, with a policy writing $TMP/w: a directory the target owns
# gets it (install -d -m 2775, git init --shared=group; landlock/setgid.c's
# server sets it), checked from outside; a file gets neither S_ISGID nor
# S_ISUID, by chmod, fchmod or a racing swap of a directory and a file at
# one name (many rounds, no sleeps); a directory the target does not own,
# or one beneath a read path, keeps its mode; and --explain lists a file's
# refusal. Each of these failed on main for the directory (the filter
# refused the bit everywhere), and must keep failing for the rest.
# In the object form of "network" (the ports) the listen guard's server
# sets it (listen/setgidguard.c), with the caller's ids and groups: the
# same directory, file and race cases below, as root, nobody and uid 1000,
# and under root's --user 1000, where the server's ids are root's.
# Under run --explain and learn the servers run too, in both forms (on
# main the filter refused the bit there): the directories get it, and a
# file's g+s and u+s each get one explain line. Without namespaces the
# server uses the landlock step's own /proc; a pid namespace without a
# mount namespace, and the object form without one, have no server.
# not tested: a kernel without user notification
# (the bit refused everywhere, as in the object form without namespaces
# below: tests/step/seccomp.bats holds the filter's refusals), Yama's
# ptrace_scope 1 (not on this machine).
load ../helpers/load
load ../helpers/learn

PY=/usr/bin/python3

setup() {
	setup_tmp
	mkdir -p "$TMP/w" "$TMP/ro"
}

teardown() {
	teardown_project
	teardown_tmp
}

# sneed MODE: what running as MODE needs.
sneed() {
	require_feature landlock
	case $1 in
	root) require_feature root ;;
	*) require_feature nobody; require_feature userns ;;
	esac
	require_feature tool:python3
	return 0
}

# own MODE PATH...: PATH owned by MODE's user.
own() {
	local u
	u=$(uid_of "$1")
	shift
	chown "$u:$u" "$@"
}

# policy [READ-EXTRA]: write $TMP/w (and /dev/null, which git opens),
# read $TMP/ro.
NET='"none"'
OBJECT='{"connect_tcp_ports":[],"bind_tcp_ports":[]}'
policy() {
	chain_policy setgid "$NET" '"/etc","'"$TMP"'/ro"'"${1:-}" '"'"$TMP"'/w","/dev/null"'
}

# confined MODE CMD...: CMD in the run, from $TMP/w.
confined() {
	local m=$1
	shift
	(cd "$TMP/w" && as_m "$m" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$@")
}

# mode PATH: the octal mode of PATH, from outside.
mode() { stat -c %a "$1"; }

t_dir() {
	local m=$1
	sneed "$m"
	policy
	own "$m" "$TMP/w"
	run confined "$m" sh -c 'install -d -m 2775 inst && git init -q --shared=group repo'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(mode "$TMP/w/inst")" = 2775 ]
	[ -g "$TMP/w/repo/.git" ]
	[ -g "$TMP/w/repo/.git/objects" ]
	[ "$(stat -c %u "$TMP/w/inst")" = "$(uid_of "$m")" ]
}

@test "install -d -m 2775 and git init --shared=group set the bit on their directories: root" { t_dir root; }
@test "install -d -m 2775 and git init --shared=group set the bit on their directories: nobody" { t_dir nobody; }
@test "install -d -m 2775 and git init --shared=group set the bit on their directories: uid 1000" { t_dir 1000; }

# A file gets neither bit, by chmod by name or fchmod on a descriptor;
# a directory never gets S_ISUID; the directory itself, by fchmod, does
# get S_ISGID (the positive control of the same calls).
FILES='import os, sys
def tryit(what, f):
    try:
        f(); print(what, "ok")
    except OSError as e:
        print(what, e.strerror)
open("f", "w").close(); os.chmod("f", 0o755); os.mkdir("d")
tryit("chmod g+s file", lambda: os.chmod("f", 0o2755))
tryit("chmod u+s file", lambda: os.chmod("f", 0o4755))
fd = os.open("f", os.O_RDONLY)
tryit("fchmod g+s file", lambda: os.fchmod(fd, 0o2755))
tryit("chmod u+s dir", lambda: os.chmod("d", 0o4755))
tryit("chmod ug+s dir", lambda: os.chmod("d", 0o6755))
dfd = os.open("d", os.O_RDONLY | os.O_DIRECTORY)
tryit("fchmod g+s dir", lambda: os.fchmod(dfd, 0o2750))'

t_file() {
	local m=$1
	sneed "$m"
	policy
	own "$m" "$TMP/w"
	run confined "$m" "$PY" -c "$FILES"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"chmod g+s file Operation not permitted"* ]]
	[[ "$output" == *"chmod u+s file Operation not permitted"* ]]
	[[ "$output" == *"fchmod g+s file Operation not permitted"* ]]
	[[ "$output" == *"chmod u+s dir Operation not permitted"* ]]
	[[ "$output" == *"chmod ug+s dir Operation not permitted"* ]]
	[[ "$output" == *"fchmod g+s dir ok"* ]]
	[ "$(mode "$TMP/w/f")" = 755 ]
	[ "$(mode "$TMP/w/d")" = 2750 ]
}

@test "a file gets neither set-id bit, by name or descriptor, and a directory no S_ISUID: root" { t_file root; }
@test "a file gets neither set-id bit, by name or descriptor, and a directory no S_ISUID: nobody" { t_file nobody; }
@test "a file gets neither set-id bit, by name or descriptor, and a directory no S_ISUID: uid 1000" { t_file 1000; }

# A directory of another user's (writable by all), and one the target owns
# beneath a read path: refused, unchanged.
t_other() {
	local m=$1 other=65534
	sneed "$m"
	[ "$m" = nobody ] && other=0
	policy
	own "$m" "$TMP/w"
	mkdir "$TMP/w/theirs" "$TMP/ro/mine"
	chown "$other:$other" "$TMP/w/theirs"
	chmod 777 "$TMP/w/theirs"
	own "$m" "$TMP/ro/mine"
	run confined "$m" sh -c 'chmod g+s theirs; echo "theirs $?"; chmod g+s "$0/ro/mine"; echo "mine $?"' "$TMP"
	echo "$output"
	[[ "$output" == *"theirs 1"* ]]
	[[ "$output" == *"mine 1"* ]]
	[[ "$output" == *"Read-only file system"* ]]
	[ "$(mode "$TMP/w/theirs")" = 777 ]
	[ "$(mode "$TMP/ro/mine")" = 755 ]
}

@test "a directory the target does not own, or beneath a read path, keeps its mode: root" { t_other root; }
@test "a directory the target does not own, or beneath a read path, keeps its mode: nobody" { t_other nobody; }
@test "a directory the target does not own, or beneath a read path, keeps its mode: uid 1000" { t_other 1000; }

# A child swaps a directory and a file at two names (renameat2
# RENAME_EXCHANGE, atomic: each name is always one of them) without end,
# while the parent sets 2775 on both names, round after round: the server
# acts on the inode it opened as a directory, so the file never gets the
# bit. The directory gets it some of the time, and the file is refused
# some of the time (printed: how many of each): the swaps ran all along.
RACE='import ctypes, os, signal, sys
libc = ctypes.CDLL(None, use_errno=True)
n = int(sys.argv[1])
os.mkdir("x"); open("y", "w").close(); os.chmod("y", 0o664)
pid = os.fork()
if pid == 0:
    while True:
        libc.renameat2(-100, b"x", -100, b"y", 2)
ok = refused = 0
for i in range(n):
    for name in ("x", "y"):
        try:
            os.chmod(name, 0o2775); ok += 1
        except OSError:
            refused += 1
os.kill(pid, signal.SIGKILL)
os.waitpid(pid, 0)
print("set", ok, "refused", refused)'

t_race() {
	local m=$1
	sneed "$m"
	policy
	own "$m" "$TMP/w"
	run confined "$m" "$PY" -c "$RACE" 3000
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" =~ set\ ([0-9]+)\ refused\ ([0-9]+) ]]
	[ "${BASH_REMATCH[1]}" -gt 0 ]
	[ "${BASH_REMATCH[2]}" -gt 0 ]
	[ -z "$(find "$TMP/w" -type f -perm /6000)" ]
	[ "$(find "$TMP/w" -type f | wc -l)" -eq 1 ]
	[ "$(mode "$(find "$TMP/w" -type f)")" = 664 ]
}

@test "a directory swapped for a file at its name while chmod g+s runs never makes a setgid file: root" { t_race root; }
@test "a directory swapped for a file at its name while chmod g+s runs never makes a setgid file: nobody" { t_race nobody; }
@test "a directory swapped for a file at its name while chmod g+s runs never makes a setgid file: uid 1000" { t_race 1000; }

# Under --explain the server runs too (on main the filter refused the bit
# there, and install and git failed): the directories get the bit, and
# nothing is listed as refused.
t_explain_dir() {
	local m=$1
	sneed "$m"
	require_feature tool:git
	policy
	own "$m" "$TMP/w"
	run --separate-stderr as_m "$m" sh -c 'cd "$0/w" && "$1" run --explain -p "$0/p.json" -- sh -c "install -d -m 2775 inst && git init -q --shared=group repo"' "$TMP" "$SHARNESS_EXEC"
	echo "$output"$'\n'"$stderr"
	[ "$status" -eq 0 ]
	[ "$(mode "$TMP/w/inst")" = 2775 ]
	[ -g "$TMP/w/repo/.git" ]
	[ -g "$TMP/w/repo/.git/objects" ]
	[[ "$stderr" != *"set-id"* ]]
}

@test "--explain: install -d -m 2775 and git init --shared=group set the bit: root" { t_explain_dir root; }
@test "--explain: install -d -m 2775 and git init --shared=group set the bit: nobody" { t_explain_dir nobody; }
@test "--explain: install -d -m 2775 and git init --shared=group set the bit: uid 1000" { t_explain_dir 1000; }

# A file's g+s (the server's refusal, which it tells the observer) and u+s
# (the filter's): refused, the file unchanged, one explain line each.
WHYF="no policy change allows it: no target makes a set-id file: a file's set-id bit hands its owner or group to whoever runs it, and the filter refuses S_ISUID in every mode, and S_ISGID on everything but a directory the target owns"
t_explain() {
	local m=$1 lines
	sneed "$m"
	policy
	own "$m" "$TMP/w"
	run --separate-stderr as_m "$m" sh -c 'cd "$0/w" && "$1" run --explain -p "$0/p.json" -- sh -c "touch f && chmod 755 f && { chmod g+s f; echo g \$?; chmod u+s f; echo u \$?; }"' "$TMP" "$SHARNESS_EXEC"
	echo "$output"$'\n'"$stderr"
	[ "$status" -eq 0 ]
	[[ "$output" == *"g 1"* ]]
	[[ "$output" == *"u 1"* ]]
	[ "$(mode "$TMP/w/f")" = 755 ]
	lines=$(grep 'set-id bit' <<<"$stderr")
	[ "$(wc -l <<<"$lines")" = 2 ]
	grep -qxF "sharness-exec-explain: explain: set-id bit $TMP/w/f, mode 2755: EPERM (Operation not permitted), refused by the setgid server, 1 time; $WHYF" <<<"$lines"
	grep -qxF "sharness-exec-explain: explain: set-id bit $TMP/w/f, mode 4755: EPERM (Operation not permitted), refused by the seccomp filter, 1 time; $WHYF" <<<"$lines"
}

@test "--explain lists a file's refused setgid and setuid bits, one line each: root" { t_explain root; }
@test "--explain lists a file's refused setgid and setuid bits, one line each: nobody" { t_explain nobody; }
@test "--explain lists a file's refused setgid and setuid bits, one line each: uid 1000" { t_explain 1000; }

# learn runs the command under --explain, round after round: install and
# git init --shared=group succeed in its first round (on main they failed
# in every round, and learn could not say why).
t_learn() {
	local m=$1
	sneed "$m"
	require_feature tool:git
	setup_project
	own "$m" "$PROJ"
	run --separate-stderr as_m "$m" sh -c 'cd "$0" && HOME="$1" "$2" learn -o draft.json -- sh -c "install -d -m 2775 inst && git init -q --shared=group repo"' "$PROJ" "$OUTSIDE" "$SHARNESS_EXEC"
	echo "$output"$'\n'"$stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"round 1: exit 0"* ]]
	[ "$(mode "$PROJ/inst")" = 2775 ]
	[ -g "$PROJ/repo/.git" ]
	[ "$(stat -c %u "$PROJ/inst")" = "$(uid_of "$m")" ]
	[ -s "$PROJ/draft.json" ]
}

@test "learn: install -d -m 2775 and git init --shared=group work in its rounds: root" { t_learn root; }
@test "learn: install -d -m 2775 and git init --shared=group work in its rounds: nobody" { t_learn nobody; }
@test "learn: install -d -m 2775 and git init --shared=group work in its rounds: uid 1000" { t_learn 1000; }

# The server holds the view's procfs and the filter's listener; the target
# holds neither (only 0-2 and ls's own), and does not see the server in
# its /proc (not dumpable: hidepid=invisible hides it), while the bit is
# set all the same; and the server follows no magic link of /proc.
t_nothing_held() {
	local m=$1
	sneed "$m"
	policy ',"/proc"'
	own "$m" "$TMP/w"
	run confined "$m" sh -c 'mkdir d && chmod g+s d && ls -l /proc/self/fd/ && cat /proc/[0-9]*/comm'
	echo "$output"
	[ "$status" -eq 0 ]
	[ -g "$TMP/w/d" ]
	[ "$(grep -c ' -> ' <<<"$output")" = 4 ]
	grep -q ' 3 -> /proc/[0-9]*/fd$' <<<"$output"
	! grep -q 'seccomp\|setgid-server\| -> /$' <<<"$output"
	# /proc's magic links would be the server's own there ("self", its
	# working directory, $TMP/w): refused (ELOOP), $TMP/w unchanged.
	run confined "$m" sh -c 'mkdir x && cd x && chmod g+s /proc/self/cwd'
	[[ "$output" == *"Too many levels of symbolic links"* ]]
	[ ! -g "$TMP/w" ]
	[ ! -g "$TMP/w/x" ]
}

@test "the target holds neither the server's procfs nor its listener, and does not see it: root" { t_nothing_held root; }
@test "the target holds neither the server's procfs nor its listener, and does not see it: nobody" { t_nothing_held nobody; }

# Where no namespace can be made there is no view, and the server uses the
# landlock step's own /proc, a procfs whose "self" is the step (on main
# there was no server, and the bit was refused on a directory too). The
# run is --best-effort, as without a view it must be. Under --explain a
# file's g+s is the server's refusal, listed. The object form has no
# server there (its guard needs the view's procfs): refused, and listed
# as a directory's bit that no server could set.
t_nons() {
	local m=$1
	sneed "$m"
	policy
	own "$m" "$TMP/w"
	run --separate-stderr as_m "$m" sh -c 'cd "$1/w" && "$2" "$3" run -b -p "$1/p.json" -- sh -c "install -d -m 2775 inst; echo \$?"' \
		sh "$TMP" "$TRYDIR/deny-unshare" "$SHARNESS_EXEC"
	echo "$output"
	[ "$output" = 0 ]
	[ "$(mode "$TMP/w/inst")" = 2775 ]
	run --separate-stderr as_m "$m" sh -c 'cd "$1/w" && "$2" "$3" run -b --explain -p "$1/p.json" -- sh -c "install -d -m 2775 inst2; echo \$?; touch f; chmod g+s f; echo \$?"' \
		sh "$TMP" "$TRYDIR/deny-unshare" "$SHARNESS_EXEC"
	echo "$output"$'\n'"$stderr"
	[ "$output" = $'0\n1' ]
	[ "$(mode "$TMP/w/inst2")" = 2775 ]
	[ "$(mode "$TMP/w/f")" = 644 ]
	[ "$(grep -c 'set-id bit' <<<"$stderr")" = 1 ]
	grep -qF "set-id bit $TMP/w/f, mode 2644: EPERM (Operation not permitted), refused by the setgid server" <<<"$stderr"
	NET=$OBJECT policy
	run --separate-stderr as_m "$m" sh -c 'cd "$1/w" && "$2" "$3" run -b --explain -p "$1/p.json" -- sh -c "mkdir d; chmod g+s d; echo \$?"' \
		sh "$TMP" "$TRYDIR/deny-unshare" "$SHARNESS_EXEC"
	echo "$output"$'\n'"$stderr"
	[ "$output" = 1 ]
	[ ! -g "$TMP/w/d" ]
	[ "$(grep -c 'set-id bit' <<<"$stderr")" = 1 ]
	grep -qF "set-id bit $TMP/w/d, mode 2755: EPERM (Operation not permitted), refused by the seccomp filter, 1 time; no policy change allows it: this run has no setgid server" <<<"$stderr"
}

@test "without namespaces (unshare refused) the server uses the step's /proc, and --explain lists a file's refusal: nobody" { t_nons nobody; }
@test "without namespaces (unshare refused) the server uses the step's /proc, and --explain lists a file's refusal: uid 1000" { t_nons 1000; }

# A pid namespace without a mount namespace: /proc is not of the step's
# pid namespace (its "self" is another number), so no server: the bit is
# refused on a directory, and under --explain listed as such; so it is
# where the walls record notes the pid namespace. With --mount-proc it is
# the step's again, and the bit is set. (The landlock and explain steps
# by hand, as root, with a walls record of their own, -W: unshare(1)
# makes the namespaces. Without a record, by hand, there is no server.)
@test "a pid namespace without a mount namespace: no server, the bit refused and listed; with its own /proc, set" {
	sneed root
	local sh='mkdir "$0"; chmod g+s "$0"; echo $?' R=(-b -x /usr -w "$TMP/w") L
	L=(-W 3 "${R[@]}")
	: >"$TMP/walls"
	printf 'pid=namespace\n' >"$TMP/walls-pid"
	cd "$TMP/w"
	run --separate-stderr "$LANDLOCK" "${L[@]}" -- /usr/bin/sh -c "$sh" none 3<"$TMP/walls"
	[ "$output" = 0 ]
	[ -g "$TMP/w/none" ]
	run --separate-stderr "$LANDLOCK" "${R[@]}" -- /usr/bin/sh -c "$sh" norecord
	[ "$output" = 1 ]
	[ ! -g "$TMP/w/norecord" ]
	run --separate-stderr unshare --pid --fork "$LANDLOCK" "${L[@]}" -- /usr/bin/sh -c "$sh" pid 3<"$TMP/walls"
	[ "$output" = 1 ]
	[ ! -g "$TMP/w/pid" ]
	run --separate-stderr unshare --pid --fork --mount-proc "$LANDLOCK" "${L[@]}" -- /usr/bin/sh -c "$sh" both 3<"$TMP/walls"
	[ "$output" = 0 ]
	[ -g "$TMP/w/both" ]
	run --separate-stderr unshare --pid --fork --mount-proc "$LANDLOCK" "${L[@]}" -- /usr/bin/sh -c "$sh" noted 3<"$TMP/walls-pid"
	[ "$output" = 1 ]
	[ ! -g "$TMP/w/noted" ]
	[[ "$(uname -m)" == x86_64 ]] || return 0 # SECCOMP_EXPLAIN's traps
	run --separate-stderr unshare --pid --fork "$HELPERDIR/sharness-exec-explain" -x /usr -w "$TMP/w" -- "$LANDLOCK" -X "${L[@]}" -- /usr/bin/sh -c "$sh" pidx 3<"$TMP/walls"
	echo "$output"$'\n'"$stderr"
	[ "$output" = 1 ]
	[ ! -g "$TMP/w/pidx" ]
	grep -qF "set-id bit $TMP/w/pidx, mode 2755: EPERM (Operation not permitted), refused by the seccomp filter, 1 time; no policy change allows it: this run has no setgid server" <<<"$stderr"
}

# The object form: the listen guard holds the chain's one listener, and its
# server takes the setgid calls too (on main the bit was refused there).

t_object_dir() {
	local m=$1
	sneed "$m"
	NET=$OBJECT policy
	own "$m" "$TMP/w"
	run confined "$m" sh -c 'install -d -m 2775 inst && touch f && chmod 755 f && { chmod g+s f; echo "file $?"; chmod u+s inst; echo "suid $?"; }'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"file 1"* ]]
	[[ "$output" == *"suid 1"* ]]
	[ "$(mode "$TMP/w/inst")" = 2775 ]
	[ "$(stat -c %u "$TMP/w/inst")" = "$(uid_of "$m")" ]
	[ "$(mode "$TMP/w/f")" = 755 ]
}

@test "object form: install -d -m 2775 sets the bit, a file's g+s and a directory's u+s are refused: root" { t_object_dir root; }
@test "object form: install -d -m 2775 sets the bit, a file's g+s and a directory's u+s are refused: nobody" { t_object_dir nobody; }
@test "object form: install -d -m 2775 sets the bit, a file's g+s and a directory's u+s are refused: uid 1000" { t_object_dir 1000; }

# Root's chain with --user 1000: the guard's server has root's ids (it is
# forked before the user switch), the target 1000's. The bit is set on the
# target's directory (install's fchmod: the server takes the descriptor,
# as /proc/TID/fd is not root's to search) and refused on one of root's,
# writable by all, which a chmod with root's ids (even without CAP_FOWNER)
# would change, and on a file.
@test "object form, root's chain under --user 1000: the bit with the target's ids, not the server's" {
	sneed root
	NET=$OBJECT policy
	own 1000 "$TMP/w"
	mkdir "$TMP/w/theirs"
	chmod 777 "$TMP/w/theirs"
	run sh -c 'cd "$1/w" && "$2" run --user 1000:1000 -p "$1/p.json" -- sh -c "install -d -m 2775 inst; echo inst \$?; chmod g+s theirs; echo theirs \$?; touch f; chmod g+s f; echo file \$?"' \
		sh "$TMP" "$SHARNESS_EXEC"
	echo "$output"
	[[ "$output" == *"inst 0"* ]]
	[[ "$output" == *"theirs 1"* ]]
	[ "$(mode "$TMP/w/inst")" = 2775 ]
	[ "$(stat -c %u "$TMP/w/inst")" = 1000 ]
	[ "$(mode "$TMP/w/theirs")" = 777 ]
	[[ "$output" == *"file 1"* ]]
	[ ! -g "$TMP/w/f" ]
}

t_object_race() {
	NET=$OBJECT t_race "$1"
	grep -q connect_tcp_ports "$TMP/p.json"
}

@test "object form: a directory swapped for a file while chmod g+s runs never makes a setgid file: root" { t_object_race root; }
@test "object form: a directory swapped for a file while chmod g+s runs never makes a setgid file: nobody" { t_object_race nobody; }
@test "object form: a directory swapped for a file while chmod g+s runs never makes a setgid file: uid 1000" { t_object_race 1000; }

t_object_file() {
	NET=$OBJECT t_file "$1"
	grep -q connect_tcp_ports "$TMP/p.json"
}

@test "object form: a file gets neither set-id bit, by name or descriptor, and a directory no S_ISUID: root" { t_object_file root; }
@test "object form: a file gets neither set-id bit, by name or descriptor, and a directory no S_ISUID: nobody" { t_object_file nobody; }
@test "object form: a file gets neither set-id bit, by name or descriptor, and a directory no S_ISUID: uid 1000" { t_object_file 1000; }

# The race with the server's ids root's and the target's 1000's.
@test "object form, root's chain under --user 1000: the swap never makes a setgid file" {
	sneed root
	NET=$OBJECT policy
	own 1000 "$TMP/w"
	run sh -c 'cd "$1/w" && "$2" run --user 1000:1000 -p "$1/p.json" -- "$3" -c "$4" 3000' \
		sh "$TMP" "$SHARNESS_EXEC" "$PY" "$RACE"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" =~ set\ ([0-9]+)\ refused\ ([0-9]+) ]]
	[ "${BASH_REMATCH[1]}" -gt 0 ]
	[ "${BASH_REMATCH[2]}" -gt 0 ]
	[ -z "$(find "$TMP/w" -type f -perm /6000)" ]
	[ "$(find "$TMP/w" -type f | wc -l)" -eq 1 ]
	[ "$(mode "$(find "$TMP/w" -type f)")" = 664 ]
}

# The object form under --explain: the guard's server sets the bit (on
# main the landlock step's filter trapped it there), and tells the
# observer of a file's g+s, which it refuses.
@test "object form, --explain: install -d -m 2775 and git init --shared=group set the bit: root" { NET=$OBJECT t_explain_dir root; }
@test "object form, --explain: install -d -m 2775 and git init --shared=group set the bit: nobody" { NET=$OBJECT t_explain_dir nobody; }
@test "object form, --explain: install -d -m 2775 and git init --shared=group set the bit: uid 1000" { NET=$OBJECT t_explain_dir 1000; }
@test "object form, --explain lists a file's refused setgid and setuid bits, one line each: root" { NET=$OBJECT t_explain root; }
@test "object form, --explain lists a file's refused setgid and setuid bits, one line each: nobody" { NET=$OBJECT t_explain nobody; }
@test "object form, --explain lists a file's refused setgid and setuid bits, one line each: uid 1000" { NET=$OBJECT t_explain 1000; }
