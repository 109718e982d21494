#!/usr/bin/env bats
# Real suites confined as they run bare (issue 24, items 10-13), through
# `sharness-exec run`, as root and as nobody: `ls /` where the view stands
# (and never where it cannot), a pty with /dev only read, a private /tmp
# (files.tmpfs) with its bounds, and Go's own os tests with both. Each test
# shows first that the same thing works bare, or fails without the rule.
# not tested: the delegated cgroup of README.md (`systemd-run --user
#   --scope -p Delegate=yes`): this host's cgroup v2 has no controllers and
#   no user manager runs.
load ../helpers/load

DENY_UNSHARE="$TRYDIR/deny-unshare"
PYTHON=/usr/bin/python3
SYSTEM='"/usr","/bin","/lib","/lib64"'

# policy FILES [PROCESS]: $TMP/p.json, with FILES the members of "files"
# and PROCESS what follows no_new_privs.
policy() {
	write_policy "$TMP/p.json" '{"pbp":1,"id":"realsuites","files":{'"$1"'},
	  "network":"none","process":{"no_new_privs":true'"${2:-}"'}}'
}

# confined MODE ARGS...: sharness-exec run as MODE under $TMP/p.json.
confined() {
	local m=$1
	shift
	as "$m" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$@"
}

# first PATH: the first component of PATH.
first() {
	local p=${1#/}
	echo "${p%%/*}"
}

# links_into DIR: the names of the host's symlinks in / that lead into
# DIR, which the view recreates (merged /usr: bin, lib, sbin...).
links_into() {
	local l
	for l in /*; do
		[ -L "$l" ] || continue
		case $(realpath "$l") in "$1" | "$1"/*) echo "${l#/}" ;; esac
	done
}

# --- item 10: ls / ------------------------------------------------------------

t_ls_root() {
	local m=$1 want
	need "$m"
	mkdir -p "$TMP/data/sub"
	policy '"read":["/etc","'"$TMP"'/data"],"exec":["/usr","'"$HELPERDIR"'"]'
	# Bare: the host's whole root.
	run -0 as "$m" /usr/bin/ls /
	[[ " ${lines[*]} " == *" proc "* ]]
	# and the working directory's first component, made on the way to it,
	# and the default /dev (DESIGN.md 4.5)
	want=$({ echo dev; echo etc; echo usr; first "$TMP"; first "$HELPERDIR"; first "$PWD"; links_into /usr; } |
		LC_ALL=C sort -u)
	run -0 --separate-stderr confined "$m" /usr/bin/env LC_ALL=C /usr/bin/ls /
	[ "$output" = "$want" ]
	# The directories on the way hold the next component only.
	run -0 --separate-stderr confined "$m" /usr/bin/ls "$TMP"
	[ "$output" = data ]
	run -0 --separate-stderr confined "$m" /usr/bin/ls "$TMP/data"
	[ "$output" = sub ]
}

@test "ls / in the view: exactly the policy's top-level directories and the links into them (root)" { t_ls_root root; }
@test "ls / in the view: exactly the policy's top-level directories and the links into them (nobody)" { t_ls_root nobody; }

t_ls_no_view() {
	local m=$1
	need "$m"
	policy '"read":["/etc"],"exec":["/usr"]'
	run -0 as "$m" "$DENY_UNSHARE" /usr/bin/ls /
	[[ " ${lines[*]} " == *" proc "* ]]
	# No mount namespace: / is the host's, and it is not listed.
	run -2 --separate-stderr as "$m" "$DENY_UNSHARE" "$SHARNESS_EXEC" run --best-effort \
		-p "$TMP/p.json" -- /usr/bin/ls /
	[ "$output" = "" ]
	[[ "$stderr" == *"/usr/bin/ls: cannot open directory '/': Permission denied"* ]]
}

@test "ls / where the view cannot stand: refused, the host's root stays unlisted (root)" { t_ls_no_view root; }
@test "ls / where the view cannot stand: refused, the host's root stays unlisted (nobody)" { t_ls_no_view nobody; }

t_ls_nested() {
	local m=$1
	need "$m"
	write_policy "$TMP/inner.json" '{"pbp":1,"id":"inner","files":{"read":["/etc"],"exec":["/usr"]},"network":"none","process":{"no_new_privs":true}}'
	policy '"read":["/etc","'"$TMP"'"],"exec":["/usr","'"$HELPERDIR"'"]'
	# The outer run lists its root; the inner run's view cannot stand in
	# the outer Landlock domain, and its / is the outer's tmpfs, which the
	# inner run's walls record does not note: no READ_DIR for it.
	run -2 --separate-stderr confined "$m" /usr/bin/sh -c '
		/usr/bin/ls / | /usr/bin/grep -qx usr && echo outer listed
		/usr/bin/stat -f -c "outer root is %T" /
		exec "$1" run --best-effort -p "$2" -- /usr/bin/sh -c "
			/usr/bin/stat -f -c \"inner root is %T\" /; exec /usr/bin/ls /"' \
		_ "$SHARNESS_EXEC" "$TMP/inner.json"
	[ "${lines[0]}" = "outer listed" ]
	[ "${lines[1]}" = "outer root is tmpfs" ]
	[ "${lines[2]}" = "inner root is tmpfs" ]
	[ "${#lines[@]}" = 3 ]
	[[ "$stderr" == *"/usr/bin/ls: cannot open directory '/': Permission denied"* ]]
}

@test "ls / in a run nested in a run: the outer view's root is not the inner's, refused (root)" { t_ls_nested root; }
@test "ls / in a run nested in a run: the outer view's root is not the inner's, refused (nobody)" { t_ls_nested nobody; }

# --- item 11: a pty with /dev read --------------------------------------------

# A child on a pty, its output read back through the master.
PTY_TEST='import os, pty
pid, fd = pty.fork()
if pid == 0:
    print("child: stdin is a tty:", os.isatty(0), os.ttyname(0).startswith("/dev/pts/"), flush=True)
    os._exit(7)
out = b""
while True:
    try:
        b = os.read(fd, 1024)
    except OSError:
        break
    if not b:
        break
    out += b
_, st = os.waitpid(pid, 0)
print(out.decode().replace("\r\n", "\n"), end="")
print("exit", os.waitstatus_to_exitcode(st))'

t_pty_python() {
	local m=$1 bare
	need "$m"
	require_feature tool:"$PYTHON"
	policy '"read":["/etc","/dev"],"exec":['"$SYSTEM"']'
	run -0 as "$m" "$PYTHON" -c "$PTY_TEST"
	bare=$output
	[ "$bare" = $'child: stdin is a tty: True True\nexit 7' ]
	run -0 --separate-stderr confined "$m" "$PYTHON" -c "$PTY_TEST"
	[ "$output" = "$bare" ]
	# The same chain without -R: Landlock grants /dev read only, and
	# /dev/ptmx gives EACCES; -R is what makes it a pty.
	run -0 --separate-stderr "$SHARNESS_EXEC" run -n -p "$TMP/p.json" -- true
	run -1 --separate-stderr as "$m" sh -c "$(printf '%s ' "${lines[@]:0:${#lines[@]}-1}" |
		sed -e 's/ -e 3 / /' -e 's/ -W 4 / /g' -e 's/ -R / /') \"\$@\"" _ "$PYTHON" -c \
		'import os; os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY)'
	[[ "$stderr" == *"PermissionError: [Errno 13] Permission denied: '/dev/ptmx'"* ]]
}

@test "a Python pty (pty.fork) with /dev read: as bare, and refused without -R (root)" { t_pty_python root; }
@test "a Python pty (pty.fork) with /dev read: as bare, and refused without -R (nobody)" { t_pty_python nobody; }

t_pty_script() {
	local m=$1 bare cmd='echo hello; test -t 0 && echo on a tty; exit 3'
	need "$m"
	require_feature pty
	policy '"read":["/etc","/dev"],"exec":['"$SYSTEM"'],"tmpfs":["/tmp"]'
	mkdir "$TMP/bare"
	chmod 777 "$TMP/bare"
	run -3 as "$m" "${SCRIPT[@]}" -qec "$cmd" "$TMP/bare/typescript"
	bare=$(tr -d '\r' <<<"$output")
	[ "$bare" = $'hello\non a tty' ]
	run -3 --separate-stderr confined "$m" "${SCRIPT[@]}" -qec "$cmd" /tmp/typescript
	[ "$(tr -d '\r' <<<"$output")" = "$bare" ]
}

@test "script(1) with /dev read and its typescript in a private /tmp: as bare (root)" { t_pty_script root; }
@test "script(1) with /dev read and its typescript in a private /tmp: as bare (nobody)" { t_pty_script nobody; }

t_pty_private() {
	local m=$1
	need "$m"
	require_feature pty
	policy '"read":["/etc","/dev"],"exec":['"$SYSTEM"']'
	# Run under a pty of the host's: bare, its /dev/pts lists it; inside,
	# only the run's own devpts is there, and nothing of the host's.
	run -0 as "$m" "${SCRIPT[@]}" -qec "ls /dev/pts" /dev/null
	[[ "$(tr -d '\r' <<<"$output")" =~ (^|[[:space:]])[0-9]+($|[[:space:]]) ]]
	run -0 as "$m" "${SCRIPT[@]}" -qec "$SHARNESS_EXEC run -p $TMP/p.json -- /usr/bin/ls /dev/pts" /dev/null
	[ "$(tr -d '\r' <<<"$output")" = ptmx ]
}

@test "the pty rules reach the run's own devpts only: no host pty is there (root)" { t_pty_private root; }
@test "the pty rules reach the run's own devpts only: no host pty is there (nobody)" { t_pty_private nobody; }

@test "check refuses /dev/ptmx and /dev/pts as single entries, and says to name /dev" {
	policy '"read":["/dev/ptmx"],"write":["/dev/pts"]'
	run -125 --separate-stderr "$SHARNESS_EXEC" check "$TMP/p.json"
	[ "${#stderr_lines[@]}" = 2 ]
	[[ "${stderr_lines[0]}" == *"files.read[0]: the host's ptys: name /dev whole for a pty (the view makes it a private devpts): \"/dev/ptmx\"" ]]
	[[ "${stderr_lines[1]}" == *"files.write[0]: the host's ptys: name /dev whole"*'"/dev/pts"' ]]
	run -125 --separate-stderr "$SHARNESS_EXEC" run -p "$TMP/p.json" -- true
}

# --- item 12: files.tmpfs -----------------------------------------------------

t_tmpfs() {
	local m=$1 name
	need "$m"
	name=sharness-exec-realsuites-$$-$RANDOM
	policy '"read":["/etc"],"exec":['"$SYSTEM"'],"tmpfs":["/tmp"]'
	cd /
	# Bare: the host's /tmp, shared.
	echo before >"/tmp/$name.host"
	chmod 644 "/tmp/$name.host"
	run -0 as "$m" sh -c 'echo bare >"$1" && cat "$1" && rm "$1"' _ "/tmp/$name.bare"
	[ "$output" = bare ]
	run -0 --separate-stderr confined "$m" /usr/bin/sh -c '
		test -e "$1" && echo "the host file is visible"
		echo private >"$2" && cat "$2"
		/usr/bin/stat -c "%a %F" /tmp
		/usr/bin/ls -A /tmp' _ "/tmp/$name.host" "/tmp/$name"
	[ "${lines[0]}" = private ]
	[ "${lines[1]}" = "1777 directory" ]
	[ "${lines[2]}" = "$name" ]
	[ "${#lines[@]}" = 3 ]
	# Nothing of the run's on the host, and the host's file untouched.
	[ ! -e "/tmp/$name" ]
	[ "$(cat "/tmp/$name.host")" = before ]
	rm -f "/tmp/$name.host"
}

@test "files.tmpfs /tmp: written inside, nothing on the host, the host's files not seen (root)" { t_tmpfs root; }
@test "files.tmpfs /tmp: written inside, nothing on the host, the host's files not seen (nobody)" { t_tmpfs nobody; }

t_tmpfs_bounds() {
	local m=$1
	need "$m"
	mkdir "$TMP/big"
	chmod 777 "$TMP/big"
	# 64 MiB of memory: each tmpfs holds 32 MiB and 32 * 256 inodes.
	policy '"read":["/etc","/dev"],"exec":['"$SYSTEM"'],"tmpfs":["/tmp"]' ',"max_memory_mb":64'
	run -0 as "$m" dd if=/dev/zero of="$TMP/big/f" bs=1M count=40 status=none
	[ "$(stat -c %s "$TMP/big/f")" = $((40 << 20)) ]
	run -1 --separate-stderr confined "$m" dd if=/dev/zero of=/tmp/f bs=1M count=40 status=none
	[[ "$stderr" == *"dd: error writing '/tmp/f': No space left on device"* ]]
	run -0 --separate-stderr confined "$m" /usr/bin/sh -c \
		'dd if=/dev/zero of=/tmp/f bs=1M count=40 status=none; /usr/bin/stat -c %s /tmp/f'
	[ "$output" = $((32 << 20)) ]
	run -0 --separate-stderr confined "$m" "$PYTHON" -c '
import errno, os
v = os.statvfs("/tmp")
print(v.f_files, v.f_favail)
n = 0
try:
    while True:
        os.mkdir("/tmp/d%d" % n)
        n += 1
except OSError as e:
    print(n, errno.errorcode[e.errno])'
	[ "${lines[0]}" = "8192 ${lines[1]% *}" ]
	[ "${lines[1]#* }" = ENOSPC ]
	[ "${lines[1]% *}" -ge 8180 ]
}

@test "files.tmpfs bounds: half of max_memory_mb, then ENOSPC; 256 inodes per MiB (root)" { t_tmpfs_bounds root; }
@test "files.tmpfs bounds: half of max_memory_mb, then ENOSPC; 256 inodes per MiB (nobody)" { t_tmpfs_bounds nobody; }

t_tmpfs_no_view() {
	local m=$1 name=sharness-exec-realsuites-$$-$RANDOM
	need "$m"
	policy '"read":["/etc"],"exec":['"$SYSTEM"'],"tmpfs":["/tmp"]'
	run -0 as "$m" "$DENY_UNSHARE" sh -c 'echo bare >"$1" && rm "$1"' _ "/tmp/$name"
	run -126 --separate-stderr as "$m" "$DENY_UNSHARE" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- \
		/usr/bin/sh -c 'echo ran >"$1"' _ "/tmp/$name"
	[[ "$stderr" == *"sharness-exec-view: fatal: unable to make a mount namespace, which the private tmpfs paths (-T) need: Operation not permitted"* ]]
	[ ! -e "/tmp/$name" ]
	# Best effort: /tmp keeps what the lists grant, here nothing.
	run -2 --separate-stderr as "$m" "$DENY_UNSHARE" "$SHARNESS_EXEC" run --best-effort \
		-p "$TMP/p.json" -- /usr/bin/sh -c 'echo ran >"$1"' _ "/tmp/$name"
	[[ "$stderr" == *"sharness-exec-landlock: warning: no private tmpfs at /tmp (-T): it keeps only what the other rules grant"* ]]
	[ ! -e "/tmp/$name" ]
}

@test "files.tmpfs without a mount namespace: 126, or with --best-effort /tmp keeps only what the lists grant (root)" { t_tmpfs_no_view root; }
@test "files.tmpfs without a mount namespace: 126, or with --best-effort /tmp keeps only what the lists grant (nobody)" { t_tmpfs_no_view nobody; }

# (Not / whole: below Landlock ABI 9 a read path above /run is refused,
# since a read-only bind does not keep connect(2) from its sockets.)
@test "files.tmpfs beneath a read path hides that part of it: read /usr and a private /usr/local" {
	need root
	local name=sharness-exec-realsuites-$$-$RANDOM
	[ -n "$(ls -A /usr/local)" ]
	policy '"read":["/etc","/usr"],"exec":['"$SYSTEM"'],"tmpfs":["/usr/local"]'
	cd /
	run -0 --separate-stderr confined root /usr/bin/sh -c \
		'test -r /usr/share && ls -A /usr/local && echo x >"$1" && cat "$1"' _ "/usr/local/$name.new"
	[ "$output" = x ]
	[ ! -e "/usr/local/$name.new" ]
}

# --- Go's os tests ------------------------------------------------------------

# go_os MODE: Go's own tests of package os (golang-1.19-src), built once
# outside, run bare and then confined with /dev read and /tmp a private
# tmpfs, verdicts compared test by test. TestMkdirAllAtSlash is left out:
# it writes in / itself, which only a policy writing / would grant.
go_os() {
	local m=$1 bin goroot tests
	need "$m"
	require_feature tool:go
	require_feature builddir-outside-tmp
	goroot=$(go env GOROOT)
	require_feature file:"$goroot/src/os"
	[ "$m" = root ] || require_feature "nobody-reaches:$LANDLOCK"
	bin=$(outside_tmp realsuites-go)
	chmod 755 "$bin"
	GOCACHE="$TMP/gocache" GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local GOENV=off \
		go test -c -o "$bin/os.test" os
	tests=$("$bin/os.test" -test.list . | grep -E '^(Test|Example)' | grep -vx TestMkdirAllAtSlash |
		LC_ALL=C sort -u | paste -sd '|')
	mkdir "$TMP/gocache-bare"
	chmod 777 "$TMP/gocache-bare"
	cd "$goroot/src/os"
	run as "$m" env -u TMPDIR GOCACHE="$TMP/gocache-bare" "$bin/os.test" -test.short -test.v -test.run "^($tests)\$"
	grep -E '^--- ' <<<"$output" | sed 's/ (.*//' | LC_ALL=C sort >"$TMP/bare"
	write_policy "$TMP/p.json" '{"pbp":1,"id":"go-os","files":{"read":["/etc","/dev","/proc"],
	  "exec":['"$SYSTEM"',"'"$bin"'"],"write":["/dev/null"],"tmpfs":["/tmp"]},"network":"none",
	  "env":{"set":{"GOCACHE":"/tmp/go-cache"}},
	  "process":{"no_new_privs":true,"max_memory_mb":2048,"max_pids":512}}'
	run confined "$m" "$bin/os.test" -test.short -test.v -test.run "^($tests)\$"
	grep -E '^--- ' <<<"$output" | sed 's/ (.*//' | LC_ALL=C sort >"$TMP/confined"
	rm -rf "$bin"
	diff -u "$TMP/bare" "$TMP/confined"
	grep -qx -- '--- PASS: TestChdirAndGetwd' "$TMP/confined"
	grep -qx -- '--- PASS: TestMkdirTemp' "$TMP/confined"
	[ "$(grep -c '^--- PASS' "$TMP/bare")" -ge 100 ]
	! grep -q '^--- FAIL' "$TMP/bare"
}

@test "Go's os tests with /dev read and a private /tmp: as bare, TestChdirAndGetwd included (root)" { go_os root; }
@test "Go's os tests with /dev read and a private /tmp: as bare, TestChdirAndGetwd included (nobody)" { go_os nobody; }

# --- the walls record: what the landlock step trusts --------------------------

# -T and -R grant only what the view step noted in the walls record
# (rights.h) as its own. On its own, with no record, the landlock step
# grants nothing for them, even on a real tmpfs the caller mounted there.
t_no_record() {
	local m=$1
	need "$m"
	mkdir -p "$TMP/own"
	run -0 --separate-stderr unshare -m sh -c '
		m=$1 landlock=$2 d=$3
		mount -t tmpfs -o mode=0777 tmpfs "$d/own" || exit 99
		as() { if [ "$m" = nobody ]; then setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"; else "$@"; fi; }
		as "$landlock" -x /usr -R -T "$d/own" -- /usr/bin/sh -c "echo x >\"$d/own/f\"; ls / >/dev/null 2>&1 && echo listed" 2>"$d/err"
		[ -e "$d/own/f" ] && echo written
		cat "$d/err"' _ "$m" "$LANDLOCK" "$TMP"
	[[ "$output" == "sharness-exec-landlock: warning: no private tmpfs at $TMP/own (-T): it keeps only what the other rules grant"* ]]
	[[ "$output" != *written* ]] && [[ "$output" != *listed* ]]
}

@test "without the view's notes -T and -R grant nothing, even on a real tmpfs (root)" { t_no_record root; }
@test "without the view's notes -T and -R grant nothing, even on a real tmpfs (nobody)" { t_no_record nobody; }
