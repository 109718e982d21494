#!/usr/bin/env bats
# What a write path carries beyond files (issues 36, 37 and 38), through
# `sharness-exec run` as root, as nobody and as uid 1000: a listener
# outside the run whose socket lies beneath a write path (of the caller's
# network namespace or another's, a tmux server among them) takes no
# connection below Landlock ABI 9, while the run's own sockets there work
# and one named by -k stays reachable; VCS metadata of a checkout with a
# submodule and a worktree is read-only inside, git's reads work, and
# nothing planted runs outside; a directory the walk cannot list but the
# target can search holds no writable set-id file; /proc/key-users is
# masked; and the walk says, under -v, what it looked at. Each first
# shows, bare, that the same thing works.
load ../helpers/load

VIEW="$HELPERDIR/sharness-exec-view"
TRYV="$TRYDIR/try-view"
PY=/usr/bin/python3

setup() {
	setup_tmp
	mkdir -p "$TMP/w/a/b"
	pids=()
}

teardown() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	[ -z "${TMUX_SOCK:-}" ] || as_m "$TMUX_MODE" tmux -S "$TMUX_SOCK" kill-server 2>/dev/null || true
	teardown_tmp
}

wneed() {
	require_feature landlock
	case $1 in
	root) require_feature root ;;
	*) require_feature nobody; require_feature userns ;;
	esac
	# From ABI 9 on Landlock holds the sockets, and the view covers none.
	[ "$(landlock_abi)" -lt 9 ] || [ "${2:-}" != sockets ] ||
		not_here "landlock-abi:<9" "Landlock ABI 9 holds these sockets"
	return 0
}

# policy [READ-EXTRA]: write $TMP/w and /dev/null (git opens it to
# write), read /etc.
policy() {
	chain_policy writepath '"none"' '"/etc"'"${1:-}" '"'"$TMP"'/w","/dev/null"'
}

confined() {
	local m=$1
	shift
	as_m "$m" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$@"
}

CONNECT='import socket, sys
try:
    socket.socket(socket.AF_UNIX).connect(sys.argv[1])
    print("connected")
except OSError as e:
    print(e.strerror)
    sys.exit(1)'

# A server and a client of the run's own, on a socket it binds beneath
# the write path: the child connects and sends, the parent accepts.
OWN='import os, socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1)
if os.fork() == 0:
    c = socket.socket(socket.AF_UNIX); c.connect(sys.argv[1]); c.sendall(b"hello"); os._exit(0)
print(s.accept()[0].recv(5).decode()); os.wait()'

# A listener outside, beneath the write path two directories down, of
# the caller's network namespace and of another (unshare -n); after the
# confined tries, an unconfined connect to each is logged, so a log of
# exactly two lines (the bare one before, the control after) shows that
# nothing from inside arrived.
t_listener() {
	local m=$1 u nth
	local -a logs socks
	wneed "$m" sockets
	u=$(uid_of "$m")
	policy
	chown -R "$u:$u" "$TMP/w"
	listener unix "$TMP/w/a/b/sock"
	logs[0]=$log socks[0]=$TMP/w/a/b/sock
	mkdir -p "$TMP/w/n/s"
	chown -R "$u:$u" "$TMP/w/n"
	log=$(mktemp "$TMP/listen.netns.XXXXXX")
	mkfifo "$log.ready"
	unshare -n "$PY" "$top_srcdir/tests/helpers/listen.py" unix "$log.ready" "$log" "$TMP/w/n/s/sock" 3>&- &
	pids+=($!)
	await_line "$log.ready" >/dev/null
	logs[1]=$log socks[1]=$TMP/w/n/s/sock
	for nth in 0 1; do
		run -0 as_m "$m" "$PY" -c "$CONNECT" "${socks[$nth]}"
		logged "${logs[$nth]}" 1
		run -1 confined "$m" "$PY" -c "$CONNECT" "${socks[$nth]}"
		[ "$output" = "Connection refused" ]
		# Nor can it be removed, renamed or written from inside.
		run -1 confined "$m" "$TRY" unlink "${socks[$nth]}"
		[ "$output" = "refused: Device or resource busy" ]
		run -0 as_m "$m" "$PY" -c "$CONNECT" "${socks[$nth]}"
		logged "${logs[$nth]}" 2
		[ "$(wc -l <"${logs[$nth]}")" = 2 ]
		[ -S "${socks[$nth]}" ]
	done
	# The run's own server and client, beneath the same write path.
	run -0 confined "$m" "$PY" -c "$OWN" "$TMP/w/a/b/own"
	[ "$output" = hello ]
}

@test "a listener outside, two directories beneath a write path, of this or another network namespace, takes no connection (root)" { t_listener root; }
@test "a listener outside, two directories beneath a write path, of this or another network namespace, takes no connection (nobody)" { t_listener nobody; }
@test "a listener outside, two directories beneath a write path, of this or another network namespace, takes no connection (1000)" { t_listener 1000; }

# A tmux server started outside, its socket beneath the write path: from
# inside it cannot be driven; bare, it runs a command as its owner.
t_tmux() {
	local m=$1 u
	wneed "$m" sockets
	require_feature tool:tmux
	u=$(uid_of "$m")
	policy ',"/usr/share/terminfo","/usr/lib/terminfo"'
	chown -R "$u:$u" "$TMP/w"
	TMUX_MODE=$m TMUX_SOCK=$TMP/w/a/b/tmux
	# Its window runs a command of its own: no shell's start-up as
	# another uid (HOME, rc files) decides whether the session lives.
	# SHELL is named: where it is unset (CI), tmux takes the passwd
	# entry's, nobody's /usr/sbin/nologin, and the window dies at once.
	as_m "$m" env -u TMUX SHELL=/bin/sh tmux -S "$TMUX_SOCK" new-session -d -s t "sleep 600"
	run -0 as_m "$m" tmux -S "$TMUX_SOCK" list-windows -t t
	[ "${#lines[@]}" = 1 ]
	run -1 confined "$m" tmux -S "$TMUX_SOCK" new-window -d -t t: "touch $TMP/outside"
	[ "$output" = "no server running on $TMUX_SOCK" ]
	run -0 as_m "$m" tmux -S "$TMUX_SOCK" list-windows -t t
	[ "${#lines[@]}" = 1 ]
	[ ! -e "$TMP/outside" ]
	# Bare, the same client opens a window: the server took it.
	run --separate-stderr as_m "$m" tmux -S "$TMUX_SOCK" new-window -d -t t: "sleep 600"
	[ "$status" = 0 ] || { echo "tmux new-window: $status: $stderr"; false; }
	run -0 --separate-stderr as_m "$m" tmux -S "$TMUX_SOCK" list-windows -t t
	[ "${#lines[@]}" = 2 ]
}

@test "a tmux server started outside, its socket beneath a write path, cannot be driven from inside (root)" { t_tmux root; }
@test "a tmux server started outside, its socket beneath a write path, cannot be driven from inside (nobody)" { t_tmux nobody; }
@test "a tmux server started outside, its socket beneath a write path, cannot be driven from inside (1000)" { t_tmux 1000; }

# The view step by hand (the front end's files.sockets gives it -s): a
# socket named by -k stays reachable, its sibling is covered.
t_keep() {
	local m=$1 keep other
	wneed "$m" sockets
	require_feature tool:unshare
	[ "$m" = root ] || chown -R "$NOBODY_UID:$NOBODY_GID" "$TMP/w"
	listener unix "$TMP/w/a/b/keep"
	keep=$log
	listener unix "$TMP/w/a/b/other"
	other=$log
	set -- -x /usr --symlink /bin=usr/bin --symlink /lib=usr/lib --symlink /lib64=usr/lib64 -r /etc -w "$TMP/w" \
		-s "$TMP/w/a/b/keep" --
	if [ "$m" = nobody ]; then
		set -- as_nobody unshare --user --map-current-user --keep-caps --pid --fork -- "$VIEW" "$@"
	else
		set -- "$VIEW" "$@"
	fi
	run -0 --separate-stderr "$@" "$PY" -c "$CONNECT" "$TMP/w/a/b/keep"
	[ "$output" = connected ]
	logged "$keep" 1
	run -1 --separate-stderr "$@" "$PY" -c "$CONNECT" "$TMP/w/a/b/other"
	[ "$output" = "Connection refused" ]
	run -0 "$PY" -c "$CONNECT" "$TMP/w/a/b/other"
	logged "$other" 1
	[ "$(wc -l <"$other")" = 1 ]
}

@test "view -k: the socket it names stays reachable beneath a write path, its sibling does not (root)" { t_keep root; }
@test "view -k: the socket it names stays reachable beneath a write path, its sibling does not (nobody)" { t_keep nobody; }

# A checkout with a submodule and a worktree beneath the write path.
checkout() {
	local g=(git -c protocol.file.allow=always -c user.name=t -c user.email=t@t -c init.defaultBranch=main)
	"${g[@]}" init -q "$TMP/subsrc"
	"${g[@]}" -C "$TMP/subsrc" commit -q --allow-empty -m sub
	"${g[@]}" init -q "$TMP/w/repo"
	echo a >"$TMP/w/repo/file"
	"${g[@]}" -C "$TMP/w/repo" add file
	"${g[@]}" -C "$TMP/w/repo" submodule -q add "$TMP/subsrc" sub
	"${g[@]}" -C "$TMP/w/repo" commit -q -m one
	"${g[@]}" -C "$TMP/w/repo" tag -a -m v1 v1
	"${g[@]}" -C "$TMP/w/repo" worktree add -q "$TMP/w/wt"
	rm -rf "$TMP/subsrc"
}

# The writes from inside: each refused; what they would plant is absent.
VCS_WRITES='
r=$1/repo
echo "[core] fsmonitor = touch $2" >>"$r/.git/config" && echo config
echo x >"$r/.git/hooks/x" && echo hook
echo "gitdir: $1" >"$1/wt/.git" && echo wt-file
rm -f "$1/wt/.git" && echo wt-rm
mv "$r/.git" "$r/.git.old" && echo moved
echo x >"$r/sub/.git" && echo sub-file
echo x >>"$r/.git/modules/sub/config" && echo sub-config
echo x >"$r/.git/worktrees/wt/commondir" && echo wt-gitdir
true'

t_vcs() {
	local m=$1 u g
	wneed "$m"
	require_feature tool:git
	u=$(uid_of "$m")
	checkout
	chown -R "$u:$u" "$TMP/w"
	policy
	cp "$TMP/w/repo/.git/config" "$TMP/config.orig"
	g=(env HOME="$TMP" git -c safe.directory='*')
	run -0 --separate-stderr confined "$m" sh -c "$VCS_WRITES" sh "$TMP/w" "$TMP/w/pwned"
	[ -z "$output" ]
	cmp "$TMP/w/repo/.git/config" "$TMP/config.orig"
	[ ! -e "$TMP/w/repo/.git/hooks/x" ] && [ ! -e "$TMP/w/repo/.git.old" ]
	grep -q '^gitdir: .*worktrees/wt$' "$TMP/w/wt/.git"
	# Git's reads work inside, in the checkout and in the worktree.
	run -0 confined "$m" "${g[@]}" -C "$TMP/w/repo" status --short
	[ -z "$output" ]
	run -0 confined "$m" "${g[@]}" -C "$TMP/w/repo" describe
	[ "$output" = v1 ]
	run -0 confined "$m" "${g[@]}" -C "$TMP/w/repo" log --format=%s
	[ "$output" = one ]
	run -0 confined "$m" "${g[@]}" -C "$TMP/w/wt" status --short
	[ -z "$output" ]
	# The work tree itself stays writable.
	run -0 confined "$m" sh -c 'echo b >"$1/repo/file"' sh "$TMP/w"
	run -0 as_m "$m" "${g[@]}" -C "$TMP/w/repo" status --short
	[ "$output" = " M file" ] && [ ! -e "$TMP/w/pwned" ]
	# Bare, the same writes go through, and git status outside runs the
	# planted command.
	run -0 as_m "$m" sh -c 'echo "[core] fsmonitor = touch $2" >>"$1/repo/.git/config" &&
		echo x >"$1/repo/.git/hooks/x" && echo planted' sh "$TMP/w" "$TMP/w/pwned"
	[ "$output" = planted ]
	as_m "$m" "${g[@]}" -C "$TMP/w/repo" status >/dev/null 2>&1 || true
	[ -e "$TMP/w/pwned" ]
}

@test "VCS metadata of a checkout, its submodule and its worktree is read-only inside; git's reads work (root)" { t_vcs root; }
@test "VCS metadata of a checkout, its submodule and its worktree is read-only inside; git's reads work (nobody)" { t_vcs nobody; }
@test "VCS metadata of a checkout, its submodule and its worktree is read-only inside; git's reads work (1000)" { t_vcs 1000; }

# A .git file naming a gitdir elsewhere beneath the write path (git init
# --separate-git-dir): that gitdir is read-only too; one naming the write
# path itself, or a directory above it, holds nothing: the write path
# stays writable.
t_gitdir() {
	local m=$1 u
	wneed "$m"
	require_feature tool:git
	u=$(uid_of "$m")
	mkdir -p "$TMP/w/store"
	git init -q --separate-git-dir="$TMP/w/store/repo.git" "$TMP/w/sep"
	mkdir -p "$TMP/w/up" "$TMP/w/top"
	echo "gitdir: $TMP" >"$TMP/w/up/.git"
	echo "gitdir: ../../w" >"$TMP/w/top/.git"
	chown -R "$u:$u" "$TMP/w"
	policy
	run -0 --separate-stderr confined "$m" sh -c 'echo x >>"$1/store/repo.git/config" && echo config
		echo x >"$1/store/repo.git/hooks/x" && echo hook
		echo x >"$1/made" && echo made' sh "$TMP/w"
	[ "$output" = made ]
	[ "$(cat "$TMP/w/made")" = x ] && [ ! -e "$TMP/w/store/repo.git/hooks/x" ]
	! grep -qx x "$TMP/w/store/repo.git/config"
}

@test "the gitdir a .git file names beneath the write path is read-only; one naming the write path or above holds nothing (root)" { t_gitdir root; }
@test "the gitdir a .git file names beneath the write path is read-only; one naming the write path or above holds nothing (nobody)" { t_gitdir nobody; }

# Issue 37: another uid's 0711 directory, which the walk cannot list,
# holds the caller's set-uid file; the target knows its name.
t_unlisted() {
	local m=$1 u
	wneed "$m"
	u=$(uid_of "$m")
	mkdir "$TMP/w/vault"
	cp "$TRYV" "$TMP/w/vault/suid"
	chown -R "$u:$u" "$TMP/w"
	chmod 4755 "$TMP/w/vault/suid"
	chown 12345:12345 "$TMP/w/vault"
	chmod 711 "$TMP/w/vault"
	policy
	run -1 confined "$m" "$TRYV" mmap-write "$TMP/w/vault/suid"
	[ "$output" = "refused: Read-only file system" ]
	[ "$(head -c 3 "$TMP/w/vault/suid" | tail -c 2)" = EL ]
	[ "$(stat -c %a "$TMP/w/vault/suid")" = 4755 ]
	# Bare, the mapping rewrites it and the bit stays.
	run -0 as_m "$m" "$TRYV" mmap-write "$TMP/w/vault/suid"
	[ "$(head -c 4 "$TMP/w/vault/suid")" = evil ]
	[ "$(stat -c %a "$TMP/w/vault/suid")" = 4755 ]
}

@test "a set-uid file in a directory the walk cannot list but the target can search is not writable (nobody)" { t_unlisted nobody; }
@test "a set-uid file in a directory the walk cannot list but the target can search is not writable (1000)" { t_unlisted 1000; }

t_key_users() {
	local m=$1
	wneed "$m"
	chain_policy writepath '"none"' '"/proc"' '"'"$TMP"'/w"'
	run -0 as_m "$m" sh -c 'wc -c </proc/key-users'
	[ "$output" -gt 0 ]
	run -0 confined "$m" sh -c 'wc -c </proc/key-users'
	[ "$output" = 0 ]
}

@test "/proc granted: /proc/key-users reads empty (root)" { t_key_users root; }
@test "/proc granted: /proc/key-users reads empty (nobody)" { t_key_users nobody; }

# -v: one line a write path; on a tmpfs mounted nosuid (here only, in a
# mount namespace of the test's own) no file's mode is looked at, and a
# set-uid file there is left as it is: it runs set-uid nowhere.
@test "view -v: a write path on a nosuid file system is walked without a look at set-id; elsewhere set-id is looked for" {
	wneed root
	require_feature tool:unshare
	mkdir "$TMP/t"
	cp "$TRYV" "$TMP/w/suid"
	chmod 4755 "$TMP/w/suid"
	run -0 --separate-stderr unshare -m sh -c '
		mount --make-rprivate / && mount -t tmpfs -o nosuid tmpfs "$1/t" &&
		cp "$2" "$1/t/suid" && chmod 4755 "$1/t/suid" && mkdir "$1/t/.git" &&
		exec "$3" -v -x /usr -x "${2%/*}" --symlink /bin=usr/bin --symlink /lib=usr/lib --symlink /lib64=usr/lib64 \
			-w "$1/t" -w "$1/w" -- sh -c "echo x >\"\$1/t/.git/x\"; ls \"\$1/t/.git\"; \"\$2\" mmap-write \"\$1/t/suid\"" sh "$1" "$2"
	' sh "$TMP" "$TRYV" "$VIEW"
	[[ "$stderr" == *"$TMP/t/.git/x: Read-only file system"* ]]
	[[ "$stderr" == *"sharness-exec-view: write path $TMP/t: 2 entries walked in "*" ms, set-id not looked for (nosuid wherever its file system is mounted); held read-only: 0 set-id, 1 VCS, 0 unlisted; 0 sockets covered"* ]]
	[[ "$stderr" == *"sharness-exec-view: write path $TMP/w: 3 entries walked in "*" ms, set-id looked for; held read-only: 1 set-id, 0 VCS, 0 unlisted; 0 sockets covered"* ]]
}

# Where no mount namespace stands nothing holds VCS metadata read-only:
# refused (126) in one line naming it; under --best-effort a warning, and
# the write goes through, as bare.
@test "no mount namespace: VCS metadata beneath a write path is refused (126), or warned of under --best-effort (nobody)" {
	wneed nobody
	mkdir -p "$TMP/w/repo/.git"
	echo orig >"$TMP/w/repo/.git/config"
	chown -R "$NOBODY_UID:$NOBODY_GID" "$TMP/w"
	policy
	run -126 --separate-stderr as_nobody "$TRYDIR/deny-unshare" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- \
		sh -c 'echo evil >"$1"' sh "$TMP/w/repo/.git/config"
	[ "${stderr_lines[-2]}" = "sharness-exec-view: fatal: refused: $TMP/w/repo/.git is VCS metadata (-V leaves it writable), beneath a write path, and without a mount namespace nothing holds it read-only" ]
	[ "${stderr_lines[-1]}" = "hint: -b (--best-effort) runs with them writable" ]
	[ "$(cat "$TMP/w/repo/.git/config")" = orig ]
	run -0 --separate-stderr as_nobody "$TRYDIR/deny-unshare" "$SHARNESS_EXEC" run --best-effort -p "$TMP/p.json" -- \
		sh -c 'echo evil >"$1"' sh "$TMP/w/repo/.git/config"
	[[ "$stderr" == *"sharness-exec-view: warning: best effort: $TMP/w/repo/.git is VCS metadata (-V leaves it writable), beneath a write path, and stays writable"* ]]
	[ "$(cat "$TMP/w/repo/.git/config")" = evil ]
}

# A write path that is a file of its own, executable and set-id free, is
# written inside as any write path is; its twin with the set-uid bit is
# held read-only. (The walk's look for file capabilities was refused on
# the file's O_PATH descriptor, and the refusal counted as capabilities.)
t_file_path() {
	local m=$1
	wneed "$m"
	printf '#!/bin/sh\n' >"$TMP/w/tool"
	cp "$TMP/w/tool" "$TMP/w/suid"
	chmod 0777 "$TMP/w/tool"
	chmod 04777 "$TMP/w/suid"
	chain_policy writepath '"none"' '"/etc"' '"'"$TMP"'/w/tool","'"$TMP"'/w/suid"'
	run -0 --separate-stderr confined "$m" sh -c 'echo "# more" >>"$1"' sh "$TMP/w/tool"
	[ "$(tail -1 "$TMP/w/tool")" = "# more" ]
	run -1 --separate-stderr confined "$m" "$PY" -c '
import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
m = mmap.mmap(fd, 0)
m[0:1] = b"X"' "$TMP/w/suid"
	[ "$(head -c 2 "$TMP/w/suid")" = "#!" ]
}

@test "a write path that is one executable file is writable; one set-uid file is held (root)" { t_file_path root; }
@test "a write path that is one executable file is writable; one set-uid file is held (nobody)" { t_file_path nobody; }

# A shared write path (/tmp) changes while the view walks it: a directory
# another process removes between the walk's open and its listing is
# nothing to hold, not a reason to refuse the run (CI saw 126, "unable to
# walk ...: No such file or directory"). A churner outside makes and
# removes nested directories beneath the write path all along; every run
# must start, and write what the policy lets it.
t_churn() {
	local m=$1 u k
	wneed "$m"
	u=$(uid_of "$m")
	policy
	chown "$u:$u" "$TMP/w"
	$PY -c 'import os, shutil, sys
d = sys.argv[1]
while not os.path.exists(d + "/stop"):
    for i in range(50):
        os.makedirs("%s/c%d/a/b/c" % (d, i), exist_ok=True)
        for j in range(3):
            open("%s/c%d/a/b/c/f%d" % (d, i, j), "w").close()
    for i in range(50):
        shutil.rmtree("%s/c%d" % (d, i), ignore_errors=True)' "$TMP/w" &
	pids+=($!)
	for k in $(seq 1 40); do
		run --separate-stderr confined "$m" /bin/sh -c 'echo "$1" >"$2"' sh "$k" "$TMP/w/out"
		[ "$status" = 0 ] || { echo "run $k: $status: $stderr"; false; }
		[ "$(cat "$TMP/w/out")" = "$k" ]
	done
	touch "$TMP/w/stop"
}

@test "a directory removed beneath a write path while the view walks it fails no run (root)" { t_churn root; }
@test "a directory removed beneath a write path while the view walks it fails no run (1000)" { t_churn 1000; }
