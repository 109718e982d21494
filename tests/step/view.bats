#!/usr/bin/env bats
# The view step (sharness-exec-view): in a mount namespace only the policy's
# paths exist, so what Landlock cannot stop holds too. Through `sharness-exec
# run` and on its own, as root and as nobody. Each test tries the forbidden
# thing from inside, checks it was refused and that nothing outside changed,
# and shows that the same user, bare, could have done it. The victims belong
# to nobody, so nobody's refusals come from the view, not from permissions.
# Until the netns step raises CAP_SYS_ADMIN for it, nobody's runs go through
# `unshare --user --map-current-user --keep-caps --pid --fork`, which gives
# the chain what that step will; one test runs nobody bare and accepts either.
# not tested: a masked /proc (as in Docker: needs a container here); kernels
# without mount_setattr (before 5.12, which lack Landlock ABI 1's fixes too).
load ../helpers/load

VIEW="$HELPERDIR/sharness-exec-view"
TRYV="$TRYDIR/try-view"
DENY_UNSHARE="$TRYDIR/deny-unshare"

setup() {
	setup_tmp
	mkdir -p "$TMP/ro" "$TMP/rw/prot" "$TMP/out" "$TMP/x"
	for f in ro/file out/file rw/prot/file rw/file; do
		echo "original" >"$TMP/$f"
	done
	cp "$TRYV" "$TMP/ro/try-view"
	cp "$TRYV" "$TMP/x/try-view"
	chown -R "$NOBODY_UID:$NOBODY_GID" "$TMP/ro" "$TMP/rw" "$TMP/out" "$TMP/x"
	# Writable by all: root in the chain holds no capability, so it must
	# not depend on owning them.
	chmod 777 "$TMP/ro" "$TMP/rw" "$TMP/rw/prot" "$TMP/out" "$TMP/x"
	chmod 666 "$TMP/ro/file" "$TMP/out/file" "$TMP/rw/prot/file" "$TMP/rw/file"
	pids=()
	mounts=()
}

teardown() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for m in "${mounts[@]}"; do umount "$m" 2>/dev/null || true; done
	teardown_tmp
}

# policy [READ] [WRITE] [FILES-EXTRA]: read $TMP/ro and READ, write $TMP/rw
# and WRITE, exec $TMP/x and the system; FILES-EXTRA is spliced into
# "files" (e.g. ,"protected":[...]).
policy() {
	chain_policy view '"none"' '"/etc","'"$TMP"'/ro"'"${1:-}" '"'"$TMP"'/rw"'"${2:-}" '"'"$TMP"'/x"' '' "${3:-}"
}

# viewed MODE CMD...: CMD confined by the policy, as MODE. For nobody the
# front end runs bare (the netns step makes the user namespace the view
# needs): inside one of its own mapping only 65534, root's files would show
# as the overflow uid, 65534 too, and root's / as the caller's own, where
# the symlink rule refuses the merged-/usr links (sharness-exec(1)).
viewed() {
	local mode=$1
	shift
	if [ "$mode" = nobody ]; then
		as_nobody "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$@"
	else
		"$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$@"
	fi
}

# alone MODE ARGS...: the helper by hand, as MODE (for nobody with the
# capability the netns step gives it).
alone() {
	local mode=$1
	shift
	if [ "$mode" = nobody ]; then
		as_nobody unshare --user --map-current-user --keep-caps --pid --fork -- "$VIEW" "$@"
	else
		"$VIEW" "$@"
	fi
}

vneed() {
	need "$1"
	require_feature userns
	require_feature tool:unshare
}

# Mode, owner, mtime and ctime: chmod, utime and setxattr each change ctime.
meta() { stat -c '%a %u %Y %Z' "$1"; }

t_metadata() {
	local m=$1 f before_ro before_out op
	vneed "$m"
	policy
	before_ro=$(meta "$TMP/ro/file")
	before_out=$(meta "$TMP/out/file")
	# User xattrs on tmpfs came in Linux 6.6: where $TMP cannot hold one
	# bare (Debian 12's 6.1), there is nothing to refuse.
	local ops=("chmod 777" utime setxattr)
	python3 -c 'import os, sys; os.setxattr(sys.argv[1], "user.probe", b"1"); os.removexattr(sys.argv[1], "user.probe")' \
		"$TMP/out/file" 2>/dev/null || ops=("chmod 777" utime)
	before_out=$(meta "$TMP/out/file")
	for op in "${ops[@]}"; do
		# A read-only file: there, but read-only.
		run -1 viewed "$m" "$TRYV" ${op%% *} "$TMP/ro/file" ${op#* }
		[ "$output" = "refused: Read-only file system" ]
		# A file in no list: not there at all.
		run -1 viewed "$m" "$TRYV" ${op%% *} "$TMP/out/file" ${op#* }
		[ "$output" = "refused: No such file or directory" ]
	done
	[ "$(meta "$TMP/ro/file")" = "$before_ro" ]
	[ "$(meta "$TMP/out/file")" = "$before_out" ]
	! getfattr -n user.sharness "$TMP/ro/file" 2>/dev/null
	# The same user, bare, could have done each of them.
	cp -p "$TMP/out/file" "$TMP/out/control"
	for op in "${ops[@]}"; do
		run -0 as "$m" "$TRYV" ${op%% *} "$TMP/out/control" ${op#* }
	done
}

@test "chmod, utime, setxattr on a read-only file and on one in no list: EROFS, ENOENT, nothing changed (root)" { t_metadata root; }
@test "chmod, utime, setxattr on a read-only file and on one in no list: EROFS, ENOENT, nothing changed (nobody)" { t_metadata nobody; }

t_unix_socket() {
	local m=$1
	vneed "$m"
	policy
	listener unix "$TMP/out/sock"
	run -1 viewed "$m" "$TRYV" unix-connect "$TMP/out/sock"
	[ "$output" = "refused: No such file or directory" ]
	# Control, after it: the listener logs in arrival order, so once this
	# one is logged, the confined one would have been logged before it.
	run -0 as "$m" "$TRYV" unix-connect "$TMP/out/sock"
	logged "$log" 1
	[ "$(cat "$log")" = accepted ]
}

@test "a listening pathname UNIX socket outside the policy cannot be reached and logs nothing (root)" { t_unix_socket root; }
@test "a listening pathname UNIX socket outside the policy cannot be reached and logs nothing (nobody)" { t_unix_socket nobody; }

t_unlisted_dir() {
	local m=$1
	vneed "$m"
	policy
	run -1 viewed "$m" "$TRYV" inotify "$TMP/out"
	[ "$output" = "refused: No such file or directory" ]
	run -1 viewed "$m" "$TRYV" stat "$TMP/out/file"
	[ "$output" = "refused: No such file or directory" ]
	run -0 as "$m" "$TRYV" inotify "$TMP/out"
	run -0 as "$m" "$TRYV" stat "$TMP/out/file"
}

@test "inotify and stat on a directory in no list fail (root)" { t_unlisted_dir root; }
@test "inotify and stat on a directory in no list fail (nobody)" { t_unlisted_dir nobody; }

t_noexec() {
	local m=$1 ldso
	vneed "$m"
	policy
	for ldso in /lib64/ld-linux-x86-64.so.2 /lib/ld-linux-aarch64.so.1 /lib/ld-linux.so.2; do
		[ -x "$ldso" ] && break
	done
	require_that ldso "no dynamic loader found" test -x "$ldso"
	# The loader maps a binary it is handed: not from a read-only path.
	run -127 viewed "$m" "$ldso" "$TMP/ro/try-view" stat /
	[[ "$output" == *"failed to map segment"* ]]
	run -1 viewed "$m" "$TRYV" mmap-exec "$TMP/ro/try-view"
	[ "$output" = "refused: Operation not permitted" ]
	# From an exec path it may.
	run -0 viewed "$m" "$ldso" "$TMP/x/try-view" stat /
	[ "$output" = ok ]
	run -0 viewed "$m" "$TRYV" mmap-exec "$TMP/x/try-view"
}

@test "ld.so cannot map and run a binary in a read-only path (root)" { t_noexec root; }
@test "ld.so cannot map and run a binary in a read-only path (nobody)" { t_noexec nobody; }

t_submount() {
	local m=$1
	vneed "$m"
	mkdir "$TMP/ro/sub"
	mount -t tmpfs -o mode=777 sharness-view-test "$TMP/ro/sub"
	mounts+=("$TMP/ro/sub")
	echo original >"$TMP/ro/sub/file"
	chmod 666 "$TMP/ro/sub/file"
	chown "$NOBODY_UID:$NOBODY_GID" "$TMP/ro/sub/file"
	policy
	run -1 viewed "$m" "$TRY" write "$TMP/ro/sub/file"
	run -1 viewed "$m" "$TRYV" chmod "$TMP/ro/sub/file" 777
	[ "$output" = "refused: Read-only file system" ]
	run -1 viewed "$m" "$TRY" create "$TMP/ro/sub/new"
	[ "$(cat "$TMP/ro/sub/file")" = original ] && [ "$(stat -c %a "$TMP/ro/sub/file")" = 666 ]
	[ ! -e "$TMP/ro/sub/new" ]
	run -0 as "$m" "$TRYV" chmod "$TMP/ro/sub/file" 666
}

@test "a write into a submount of a read path is refused (root)" { t_submount root; }
@test "a write into a submount of a read path is refused (nobody)" { t_submount nobody; }

# Paths in an order where plain byte order misleads ("/t/a-b" sorts
# between "/t/a" and "/t/a/b"), and siblings by the score: each path gets
# the rights of its own ancestors, each sibling is bound, and an unlisted
# one beside them is not there.
t_tree_order() {
	local m=$1 i k reads=
	vneed "$m"
	mkdir -p "$TMP/t/a/b" "$TMP/t/a-b" "$TMP/s/other"
	for i in $(seq 20); do
		mkdir "$TMP/s/$i"
		echo "$i" >"$TMP/s/$i/file"
		reads="$reads,\"$TMP/s/$i\""
	done
	echo original >"$TMP/s/other/file"
	chown -R "$NOBODY_UID:$NOBODY_GID" "$TMP/t" "$TMP/s"
	chmod -R 777 "$TMP/t"
	policy ',"'"$TMP"'/t/a-b","'"$TMP"'/t/a/b"'"$reads" ',"'"$TMP"'/t/a"'
	# beneath the write path, though listed to read: writable
	run -0 viewed "$m" "$TRY" create "$TMP/t/a/b/new"
	[ -e "$TMP/t/a/b/new" ]
	# its sibling in byte order, read-only
	run -1 viewed "$m" "$TRY" create "$TMP/t/a-b/new"
	[ "$output" = "refused: Read-only file system" ]
	[ ! -e "$TMP/t/a-b/new" ]
	# the same user, bare, could have
	run -0 as "$m" "$TRY" create "$TMP/t/a-b/bare"
	for k in 1 7 20; do
		run -0 --separate-stderr viewed "$m" cat "$TMP/s/$k/file"
		[ "$output" = "$k" ] || { echo "$TMP/s/$k/file: $output"; return 1; }
	done
	run -1 viewed "$m" "$TRYV" stat "$TMP/s/other/file"
	[ "$output" = "refused: No such file or directory" ]
	run -0 as "$m" cat "$TMP/s/other/file"
}

@test "rules in tree order: a read path beneath a write path is writable, its byte-order sibling not; 20 sibling rules each there, an unlisted one not (root)" { t_tree_order root; }

t_protected() {
	local m=$1 before
	vneed "$m"
	policy "" "" ',"protected":["'"$TMP"'/rw/prot"]'
	before=$(meta "$TMP/rw/prot/file")
	run -1 viewed "$m" "$TRY" create "$TMP/rw/prot/new"
	[ "$output" = "refused: Read-only file system" ]
	run -1 viewed "$m" "$TRY" write "$TMP/rw/prot/file"
	run -1 viewed "$m" "$TRYV" chmod "$TMP/rw/prot/file" 777
	[ "$output" = "refused: Read-only file system" ]
	run -1 viewed "$m" "$TRY" unlink "$TMP/rw/prot/file"
	[ ! -e "$TMP/rw/prot/new" ] && [ "$(cat "$TMP/rw/prot/file")" = original ]
	[ "$(meta "$TMP/rw/prot/file")" = "$before" ]
	# Beside it, the write path is writable.
	run -0 viewed "$m" "$TRY" create "$TMP/rw/new"
	run -0 viewed "$m" "$TRY" write "$TMP/rw/file"
	[ -e "$TMP/rw/new" ]
	# Readable still.
	run -0 viewed "$m" "$TRY" read "$TMP/rw/prot/file"
}

@test "files.protected: a write inside the protected tree is refused, beside it it succeeds (root)" { t_protected root; }
@test "files.protected: a write inside the protected tree is refused, beside it it succeeds (nobody)" { t_protected nobody; }

t_cwd() {
	local m=$1
	vneed "$m"
	policy
	# Inside the policy: the same directory.
	cd "$TMP/rw"
	run -0 viewed "$m" sh -c 'pwd && echo hi >here'
	[ "$output" = "$TMP/rw" ] && [ "$(cat "$TMP/rw/here")" = hi ]
	# Outside it: an empty read-only directory at the same path, and a
	# line that says so (tests/holes.bats holds its words).
	cd "$TMP/out"
	run -0 --separate-stderr viewed "$m" sh -c 'pwd'
	[ "$output" = "$TMP/out" ] && [ "${#stderr_lines[@]}" = 1 ]
	run -0 viewed "$m" "$TRYV" stat "$TMP/out"
	run -1 viewed "$m" "$TRYV" stat "$TMP/out/file"
	run -1 viewed "$m" "$TRY" create here
	run -1 --separate-stderr viewed "$m" "$TRYV" chmod . 777
	[ "$output" = "refused: Read-only file system" ]
	cd /
	[ "$(ls -A "$TMP/out")" = file ]
}

@test "the working directory keeps its path, inside the policy and outside it (root)" { t_cwd root; }
@test "the working directory keeps its path, inside the policy and outside it (nobody)" { t_cwd nobody; }

t_proc() {
	local m=$1
	vneed "$m"
	policy
	run -1 viewed "$m" "$TRYV" stat /proc/self/status
	[ "$output" = "refused: No such file or directory" ]
	policy ',"/proc"'
	run -0 viewed "$m" "$TRYV" stat /proc/self/status
	run -0 viewed "$m" sh -c 'grep " /proc/sys " /proc/self/mountinfo'
	[[ "$output" == *" /proc/sys ro,"* ]]
	# Even where the policy writes /proc, its sysctls stay read-only.
	policy "" ',"/proc"'
	run -1 viewed "$m" "$TRY" write /proc/sys/kernel/ns_last_pid
	[ "$output" = "refused: Read-only file system" ]
	run -0 viewed "$m" "$TRYV" stat /proc/self/status
}

@test "/proc exists only when granted, a fresh procfs; /proc/sys read-only (root)" { t_proc root; }
@test "/proc exists only when granted, a fresh procfs; /proc/sys read-only (nobody)" { t_proc nobody; }

t_dev() {
	local m=$1
	vneed "$m"
	policy "" ',"/dev/null"'
	run -0 viewed "$m" sh -c 'echo x >/dev/null'
	run -0 viewed "$m" "$TRYV" stat /dev/null
	# beside it the default /dev (DESIGN.md 4.5): no terminal, no pty
	run -0 viewed "$m" "$TRYV" stat /dev/zero
	run -1 viewed "$m" "$TRYV" stat /dev/tty
	[ "$output" = "refused: No such file or directory" ]
	run -1 viewed "$m" "$TRYV" stat /dev/ptmx
	run -1 viewed "$m" "$TRYV" stat /dev/vda
	run -1 viewed "$m" "$TRYV" chmod /dev/null 600
	policy ',"/dev"'
	run -0 viewed "$m" sh -c 'ls /dev | tr "\n" " "; echo; head -c 4 /dev/zero | od -An -tx1'
	[ "${lines[0]}" = "fd full null ptmx pts random shm stderr stdin stdout tty urandom zero " ]
	[ "$(echo ${lines[1]})" = "00 00 00 00" ]
	run -1 viewed "$m" "$TRYV" stat /dev/vda
	# Read-only /dev: no node can be made or changed there.
	run -1 viewed "$m" "$TRYV" chmod /dev/null 600
	[ "$output" = "refused: Read-only file system" ]
	[ "$(stat -c %a /dev/null)" = 666 ]
}

@test "/dev: nodes named one by one over the default /dev, or a minimal /dev when named whole (root)" { t_dev root; }
@test "/dev: nodes named one by one over the default /dev, or a minimal /dev when named whole (nobody)" { t_dev nobody; }

# /dev named in files.write: still the minimal /dev of bwrap's --dev, never
# the host's bound read-write. No host node is there (/dev/kmsg, a block
# device); none can be made (mknod needs CAP_MKNOD, which no target holds,
# and the tmpfs is nodev); a plain file made there stays in the view.
t_dev_write() {
	local m=$1 blk maj min
	vneed "$m"
	blk=$(find /dev -maxdepth 1 -type b | head -1)
	require_that block-device "no block device in /dev" test -n "$blk"
	maj=$((0x$(stat -c %t "$blk"))) min=$((0x$(stat -c %T "$blk")))
	policy ',"/proc"' ',"/dev"'
	run -0 viewed "$m" sh -c 'ls /dev | tr "\n" " "; echo; grep " /dev " /proc/self/mountinfo'
	[ "${lines[0]}" = "fd full null ptmx pts random shm stderr stdin stdout tty urandom zero " ]
	[[ "${lines[1]}" == *" /dev rw,nosuid,nodev,noexec"*" - tmpfs "* ]]
	run -1 viewed "$m" "$TRYV" stat /dev/kmsg
	[ "$output" = "refused: No such file or directory" ]
	run -1 viewed "$m" "$TRYV" stat "$blk"
	[ "$output" = "refused: No such file or directory" ]
	run -1 viewed "$m" "$TRYV" mknod /dev/sneak b "$maj" "$min"
	[ "$output" = "refused: Operation not permitted" ]
	run -1 viewed "$m" "$TRYV" mknod /dev/sneak-kmsg c 1 11
	[ "$output" = "refused: Operation not permitted" ]
	run -0 viewed "$m" sh -c 'echo x >/dev/null && echo made >/dev/plain && cat /dev/plain'
	[ "$output" = made ]
	[ ! -e /dev/sneak ] && [ ! -e /dev/sneak-kmsg ] && [ ! -e /dev/plain ]
	# Bare, the same user reaches both nodes, and root may make one.
	run -0 as "$m" "$TRYV" stat /dev/kmsg
	run -0 as "$m" "$TRYV" stat "$blk"
	if [ "$m" = root ]; then
		run -0 "$TRYV" mknod "$TMP/out/node" c 1 3
	fi
}

@test "/dev in files.write is still the minimal /dev: no host node, none can be made (root)" { t_dev_write root; }
@test "/dev in files.write is still the minimal /dev: no host node, none can be made (nobody)" { t_dev_write nobody; }

# Executable memfds (DESIGN.md 4.6): for a root caller on 6.6 or later the
# supervise step's init sets vm.memfd_noexec=2 in the run's own pid
# namespace, so a memfd made without MFD_NOEXEC_SEAL is refused (EACCES)
# and nothing can be fexecve'd from one; the host's value stays. Without a
# pid namespace (no unshare) it is not set: the host's would change.
t_memfd() {
	local m=$1 host
	vneed "$m"
	require_that kernel-6.6 "vm.memfd_noexec is per pid namespace from 6.6 on" \
		test -e /proc/sys/vm/memfd_noexec
	host=$(cat /proc/sys/vm/memfd_noexec)
	not_here_if_closed "$host"
	policy ',"/proc"'
	# Bare, the same user runs code from a memfd.
	run -0 as "$m" "$TRYV" memfd-exec "$TRYV"
	[ "$output" = ok ]
	if [ "$m" = root ]; then
		run -0 viewed root cat /proc/sys/vm/memfd_noexec
		[ "$output" = 2 ]
		run -1 viewed root "$TRYV" memfd-exec "$TRYV"
		[ "$output" = "refused: Permission denied" ]
		# No pid namespace: supervise leaves the sysctl alone (it
		# would be the host's), and says nothing weakened the view.
		run -0 --separate-stderr "$DENY_UNSHARE" "$SHARNESS_EXEC" run --best-effort -p "$TMP/p.json" -- "$TRYV" memfd-exec "$TRYV"
		[ "$output" = ok ]
	else
		# Not root: the sysctl cannot be written; the documented gap.
		run -0 viewed "$m" cat /proc/sys/vm/memfd_noexec
		[ "$output" = "$host" ]
		run -0 viewed "$m" "$TRYV" memfd-exec "$TRYV"
	fi
	[ "$(cat /proc/sys/vm/memfd_noexec)" = "$host" ]
}

# not_here_if_closed VALUE: the host already refuses executable memfds.
not_here_if_closed() {
	[ "$1" -lt 2 ] || not_here memfd-noexec-host "vm.memfd_noexec is already 2 on this host"
}

@test "a memfd cannot be exec'd: vm.memfd_noexec=2 in the run's pid namespace, the host's value kept (root)" { t_memfd root; }
@test "memfd exec as nobody: the documented gap (the sysctl is not the caller's), the host's value kept" { t_memfd nobody; }

t_no_namespace() {
	local m=$1
	need "$m"
	policy "" "" ',"protected":["'"$TMP"'/rw/prot"]'
	# Protected paths need the view: 126, nothing runs, unless best effort.
	run -126 --separate-stderr as "$m" "$DENY_UNSHARE" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TRY" create "$TMP/rw/ran"
	[[ "$stderr" == *"sharness-exec-view: fatal: unable to make a mount namespace, which the protected paths (-P) need: Operation not permitted"* ]]
	[ ! -e "$TMP/rw/ran" ]
	run -0 --separate-stderr as "$m" "$DENY_UNSHARE" "$SHARNESS_EXEC" run --best-effort -p "$TMP/p.json" -- "$TRY" create "$TMP/rw/ran"
	[[ "$stderr" == *"$(no_view_warning "unshare: Operation not permitted"); protected paths dropped"* ]]
	[ -e "$TMP/rw/ran" ]
}

@test "no mount namespace: a policy with files.protected is refused unless --best-effort (root)" { t_no_namespace root; }
@test "no mount namespace: a policy with files.protected is refused unless --best-effort (nobody)" { t_no_namespace nobody; }

@test "no mount namespace, as nobody: the run goes on, and one line says what is not covered" {
	need nobody
	policy
	run -0 --separate-stderr as_nobody "$DENY_UNSHARE" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TRY" create "$TMP/rw/ran"
	[ "$(grep -c '^sharness-exec-view: ' <<<"$stderr")" = 1 ]
	[[ "$stderr" == *"sharness-exec-view: warning: no mount namespace available (unshare: Operation not permitted)"* ]]
}

@test "nobody through a bare run: the view holds, or one line says it does not" {
	need nobody
	policy
	run --separate-stderr as_nobody "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TRYV" chmod "$TMP/out/file" 777
	if [ -z "$stderr" ]; then
		[ "$status" = 1 ] && [ "$output" = "refused: No such file or directory" ]
		[ "$(stat -c %a "$TMP/out/file")" = 666 ]
	else
		# Landlock alone: the gap the line names.
		[ "${#stderr_lines[@]}" = 1 ]
		[[ "$stderr" == "sharness-exec-view: warning: no mount namespace available"*"chmod"* ]]
	fi
}

# --- the helper on its own ---

@test "sharness-exec-view: usage errors are 125, --help 0, a missing program 127" {
	run -125 --separate-stderr "$VIEW"
	[[ "$stderr" == *"usage: sharness-exec-view "* ]]
	run -125 --separate-stderr "$VIEW" -q -- true
	run -125 --separate-stderr "$VIEW" -r relative -- true
	[[ "$stderr" == "sharness-exec-view: fatal: unable to parse -r relative: not an absolute path"* ]]
	run -125 --separate-stderr "$VIEW" -r /usr/../etc -- true
	run -125 --separate-stderr "$VIEW" --symlink /x -- true
	run -125 --separate-stderr "$VIEW" -w /tmp -P /etc -- true
	[[ "$stderr" == "sharness-exec-view: fatal: unable to protect /etc: it lies beneath no -w path"* ]]
	run -0 "$VIEW" --help
	[[ "$output" == "usage: sharness-exec-view "* ]]
	need root
	run -127 --separate-stderr "$VIEW" -x /usr -- /nonexistent/program
}

t_alone() {
	local m=$1
	vneed "$m"
	# Only the paths given, each as its list says; -s makes a link.
	run -0 --separate-stderr alone "$m" -x /usr --symlink /bin=usr/bin -r "$TMP/ro" -w "$TMP/rw" -- \
		/bin/sh -c 'ls -A / | tr "\n" " "; echo; readlink /bin; echo new >"$1/rw/new"; echo x >"$1/ro/new" || true' sh "$TMP"
	[[ " ${lines[0]}" == *" bin "*" tmp usr " ]] && [[ " ${lines[0]}" != *" etc "* ]]
	[ "${lines[1]}" = usr/bin ]
	[ -e "$TMP/rw/new" ] && [ ! -e "$TMP/ro/new" ]
	[[ "$stderr" == *"Read-only file system"* ]]
	# A directory on fd 0 would lead out of the view.
	run -126 --separate-stderr alone "$m" -x /usr -- /usr/bin/true <"$TMP"
	[[ "$stderr" == *"refused: descriptor 0 is an open directory"* ]]
}

@test "sharness-exec-view alone: only the paths given, -s links, a directory on fd 0 refused (root)" { t_alone root; }
@test "sharness-exec-view alone: only the paths given, -s links, a directory on fd 0 refused (nobody)" { t_alone nobody; }

# The host's links in a directory above a bound path: those that lead into
# the view are made there, through a chain of links too; those that lead
# out of it or nowhere are not. In a sticky directory anyone may write (as
# /tmp) none is: anyone may have put it there, and the host's
# fs.protected_symlinks would not let the caller follow it.
t_host_links() {
	local m=$1 d
	vneed "$m"
	mkdir -p "$TMP/plain/sub" "$TMP/sticky/sub"
	chmod 1777 "$TMP/sticky"
	for d in plain sticky; do
		ln -s sub "$TMP/$d/in"
		ln -s in "$TMP/$d/chain"
		ln -s "$TMP/out" "$TMP/$d/outside"
		ln -s "$TMP/none" "$TMP/$d/dangling"
	done
	local show='cd "$1" && for d in plain sticky; do LC_ALL=C ls -A $d | tr "\n" " "; echo; done; readlink plain/chain'
	# Bare: all four in each.
	run -0 as "$m" /usr/bin/sh -c "$show" sh "$TMP"
	[ "${lines[0]}" = "chain dangling in outside sub " ] && [ "${lines[1]}" = "${lines[0]}" ]
	run -0 --separate-stderr alone "$m" -x /usr -w "$TMP/plain/sub" -w "$TMP/sticky/sub" -- \
		/usr/bin/sh -c "$show" sh "$TMP"
	[ "${lines[0]}" = "chain in sub " ]
	[ "${lines[1]}" = "sub " ]
	[ "${lines[2]}" = in ]
}

@test "sharness-exec-view alone: the host's links into the view above a bound path, none from a sticky world-writable directory (root)" { t_host_links root; }
@test "sharness-exec-view alone: the host's links into the view above a bound path, none from a sticky world-writable directory (nobody)" { t_host_links nobody; }

# Issue 27: from its second rule in a directory on, the view clones a rule
# by its name beneath that directory, opened once (viewfs.c's clone_rule).
# A sibling swapped for a symlink after the front end resolved it, here
# to a directory outside every list, is refused as a path opened from the
# root is (ELOOP, 126), and nothing is written where the link leads.
t_sibling_swap() {
	local m=$1
	vneed "$m"
	mkdir -p "$TMP/sib/a" "$TMP/sib/b"
	chown -R "$NOBODY_UID:$NOBODY_GID" "$TMP/sib"
	chmod 777 "$TMP/sib" "$TMP/sib/a" "$TMP/sib/b"
	# Both real: the second sibling is bound, and writable.
	run -0 --separate-stderr alone "$m" -x /usr -w "$TMP/sib/a" -w "$TMP/sib/b" -- \
		/usr/bin/touch "$TMP/sib/b/made"
	[ -e "$TMP/sib/b/made" ]
	mv "$TMP/sib/b" "$TMP/sib/b.real"
	ln -s "$TMP/out" "$TMP/sib/b"
	run -126 --separate-stderr alone "$m" -x /usr -w "$TMP/sib/a" -w "$TMP/sib/b" -- \
		/usr/bin/touch "$TMP/sib/b/planted"
	case ${stderr_lines[0]} in
	"sharness-exec-view: fatal: unable to open $TMP/sib/b: Too many levels of symbolic links") ;;
	"sharness-exec-view: fatal: unable to open $TMP/sib/b: Symbolic link loop") ;;
	*) false ;;
	esac
	[[ "${stderr_lines[1]}" == "hint: "*"changed since the front end resolved"* ]]
	[ ! -e "$TMP/out/planted" ] && [ ! -e "$TMP/sib/b.real/planted" ]
	[ "$(ls -A "$TMP/out")" = file ]
}

@test "sharness-exec-view alone: a sibling rule swapped for a symlink after resolution is refused (126), nothing written through it (root)" { t_sibling_swap root; }
@test "sharness-exec-view alone: a sibling rule swapped for a symlink after resolution is refused (126), nothing written through it (nobody)" { t_sibling_swap nobody; }
