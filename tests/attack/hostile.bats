#!/usr/bin/env bats
# The chain in a hostile environment: it still does the right thing, or it
# refuses clearly, with a documented status and one error line, and runs
# nothing. An enormous environment and argv near ARG_MAX, fds 0-2 closed,
# RLIMIT_NOFILE at its lowest, a read-only /tmp, a deleted working
# directory, a seccomp filter that refuses unshare(2) or Landlock, and an
# outer Landlock domain (nested sandboxes add a layer, never remove one).
# As root and, where it makes sense, as nobody.
# not tested: a read-only /tmp as nobody (mounting needs root here); a
# single string over MAX_ARG_STRLEN (execve refuses it before we run);
# RLIMIT_NOFILE below 3 (below the stdio the caller already holds);
# cgroup v2 (this machine has v1 memory and pids).
load ../helpers/load

DENY_UNSHARE="$TRYDIR/deny-unshare"
DENY_LANDLOCK="$TRYDIR/deny-landlock"
# Debian's, which nobody can run too (a python3 first on root's PATH may
# live in root's home).
PYTHON=/usr/bin/python3
[ -x "$PYTHON" ] || PYTHON=python3

setup() {
	setup_tmp
	mkdir -p "$TMP/rw" "$TMP/a" "$TMP/b" "$TMP/c" "$TMP/d"
	chmod 777 "$TMP/rw" "$TMP/a" "$TMP/b" "$TMP/c" "$TMP/d"
	pids=()
}

teardown() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	teardown_tmp
}

# policy [PROCESS-EXTRA [TOP-EXTRA [NETWORK]]]: $TMP/p.json
policy() {
	write_policy "$TMP/p.json" '{"pbp":1,"id":"hostile",
	  "files":{"read":["/etc","/proc"],
	           "write":["'"$TMP"'/rw","/dev/null"],
	           "exec":["/usr","/bin","/lib","/lib64","'"$TRYDIR"'"]},
	  "network":'"${3:-\"none\"}"','"${2:-}"'
	  "process":{"no_new_privs":true'"${1:-}"'}}'
}
CAPS=',"max_memory_mb":256,"max_pids":64'

# --- an enormous environment, argv near ARG_MAX ---

# "$PYTHON" -c "$BIGENV" CMD...: exec CMD with 100000 more variables, which
# with CMD's arguments fill 90% of ARG_MAX, and a secret the target must
# not see.
BIGENV='
import os, sys
limit = os.sysconf("SC_ARG_MAX")
n = 100000
args = sum(len(a.encode()) + 1 + 8 for a in sys.argv[1:])
each = (limit * 9 // 10 - args) // n - 8   # bytes of one "NAME=VALUE\0" string
env = {"PATH": os.environ["PATH"], "SECRET_TOKEN": "s3cret"}
for i in range(n):
    name = "V%06d" % i
    env[name] = "x" * max(1, each - len(name) - 2)
os.execve(sys.argv[1], sys.argv[1:], env)'

t_bigenv() {
	need "$1"
	require_feature tool:"$PYTHON"
	policy "$CAPS"
	run -0 --separate-stderr as "$1" "$PYTHON" -c "$BIGENV" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- /usr/bin/env
	[[ "$output" == *"SHARNESS_AI_POLICY_HASH=sha256:"* ]]
	[[ "$output" == *"PATH="* ]]
	[[ "$output" != *"V000000="* && "$output" != *"V099999="* ]]
	[[ "$output" != *SECRET_TOKEN* ]]
	[ "${#lines[@]}" -le 12 ]
}

@test "100000 variables filling 90% of ARG_MAX, as root: the target gets only its own few" {
	t_bigenv root
}

@test "100000 variables filling 90% of ARG_MAX, as nobody: the target gets only its own few" {
	t_bigenv nobody
}

@test "a 100 KiB variable named in env.inherit reaches the target intact" {
	need root
	policy "" '"env":{"inherit":["BIG"]},'
	big=$(head -c 102400 /dev/zero | tr '\0' 'b')
	BIG=$big run -0 --separate-stderr "$SHARNESS_EXEC" run -p "$TMP/p.json" -- /usr/bin/printenv BIG
	[ "$output" = "$big" ]
}

# "$PYTHON" -c "$BIGARGV" SLACK CMD...: exec CMD with extra arguments that
# fill the argument space to SLACK bytes short of what execve(2) takes from
# this caller, as measured with /bin/true under the same strings (only the
# file name, which execve counts too, differs), in a minimal environment.
BIGARGV='
import os, subprocess, sys
slack, cmd = int(sys.argv[1]), sys.argv[2:]
env = {"PATH": "/usr/bin:/bin"}
def pad(total):
    out = []
    while total > 0:
        out.append("p" * min(total, 100000))
        total -= len(out[-1])
    return out
def fits(total):
    try:
        subprocess.run(cmd + pad(total), executable="/bin/true", env=env, check=True)
        return True
    except OSError:
        return False
lo, hi = 0, 4 << 20
while lo < hi:
    mid = (lo + hi + 1) // 2
    if fits(mid):
        lo = mid
    else:
        hi = mid - 1
os.execve(cmd[0], cmd + pad(lo - (len(cmd[0]) - len("/bin/true")) - slack), env)'

t_bigargv() {
	need "$1"
	require_feature tool:"$PYTHON"
	policy
	# The chain's argv is the caller's plus the helpers and their rules,
	# and its environment gains the policy's hash: execve refuses it. The
	# front end says so and runs nothing.
	run -125 --separate-stderr as "$1" "$PYTHON" -c "$BIGARGV" 16 "$SHARNESS_EXEC" run -p "$TMP/p.json" -- \
		"$TRY" create "$TMP/rw/ran"
	[ "${#stderr_lines[@]}" = 1 ]
	[[ "$stderr" == "sharness-exec: fatal: unable to execute helper "*"/sharness-exec-netns: Argument list too long" ]]
	[ ! -e "$TMP/rw/ran" ]
	# 8 KiB short of the limit, the target gets every argument.
	run -0 --separate-stderr as "$1" "$PYTHON" -c "$BIGARGV" 8192 "$SHARNESS_EXEC" run -p "$TMP/p.json" -- \
		/bin/sh -c 'echo "$#:$(printf %s "$@" | wc -c)"' sh
	n=${output%%:*} bytes=${output#*:}
	[ "$n" -ge 19 ] && [ "$bytes" -ge $((19 * 100000)) ]
}

@test "argv up to what execve(2) takes, as root: 125 and one line when the chain cannot fit, all of it when it can" {
	t_bigargv root
}

@test "argv up to what execve(2) takes, as nobody: 125 and one line when the chain cannot fit, all of it when it can" {
	t_bigargv nobody
}

# --- fds 0-2 closed ---

# fds_seen MODE REDIRECTIONS: run a tagged sleep as the target, with the
# chain's fds 0-2 on /dev/null, $TMP/fd1 and $TMP/fd2 and then REDIRECTIONS,
# and print what the target holds on each of its fds as "N=WHERE" words,
# seen from outside in /proc.
fds_seen() {
	local mode=$1 redir=$2 tag pid=
	tag=3.$RANDOM$RANDOM
	eval 'as "$mode" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- /bin/sleep "$tag" \
		</dev/null >"$TMP/fd1" 2>"$TMP/fd2" '"$redir"' &'
	pids+=($!)
	for _ in $(seq 200); do pid=$(pgrep -xf "/bin/sleep $tag") && break; sleep 0.02; done
	[ -n "$pid" ] || { echo "the target never started"; return 1; }
	# exec(2) shows the new argv a moment before it closes the
	# close-on-exec fds: look once sleep is asleep.
	for _ in $(seq 200); do
		[ "$(cut -d' ' -f3 /proc/"$pid"/stat 2>/dev/null)" = S ] && break
		sleep 0.02
	done
	for fd in $(ls /proc/"$pid"/fd); do
		printf '%s=%s ' "$fd" "$(readlink "/proc/$pid/fd/$fd")"
	done
	kill "$pid"
}

# same GOT WANT: compare, and say how they differ.
same() {
	[ "$1" = "$2" ] || { printf 'got:  %s\nwant: %s\n' "$1" "$2"; return 1; }
}

t_fds() {
	need "$1"
	local caps
	for caps in "" "$CAPS"; do
		policy "$caps"
		run -0 fds_seen "$1" '0<&- 1>&- 2>&-'
		same "$output" ""
		run -0 fds_seen "$1" '0<&-'
		same "$output" "1=$TMP/fd1 2=$TMP/fd2 "
		run -0 fds_seen "$1" '2>&-'
		same "$output" "0=/dev/null 1=$TMP/fd1 "
		run -0 fds_seen "$1" '1>&- 2>&-'
		same "$output" "0=/dev/null "
	done
}

@test "fds 0-2 closed, as root: the target holds none of the chain's files on them" {
	t_fds root
}

@test "fds 0-2 closed, as nobody: the target holds none of the chain's files on them" {
	t_fds nobody
}

@test "stderr closed: a refused policy still exits 125 and writes into nothing" {
	need root
	write_policy "$TMP/bad.json" '{"pbp":1,"id":"bad","files":{"write":["tmp"]},"network":"none","process":{"no_new_privs":true}}'
	cp "$TMP/bad.json" "$TMP/bad.orig"
	run -125 sh -c '"$1" run -p "$2" -- "$3" create "$4" 2>&-' sh \
		"$SHARNESS_EXEC" "$TMP/bad.json" "$TRY" "$TMP/rw/ran"
	cmp "$TMP/bad.json" "$TMP/bad.orig"
	[ ! -e "$TMP/rw/ran" ]
}

# --- RLIMIT_NOFILE ---

# "$PYTHON" -c "$ONLY012" CMD...: exec CMD with only fds 0-2 open (bats keeps
# a few more of its own open, which would count against the limit).
ONLY012='
import os, sys
os.closerange(3, 1 << 16)
os.execvp(sys.argv[1], sys.argv[1:])'

t_nofile() {
	need "$1"
	require_feature tool:prlimit
	# AddressSanitizer's runtime needs descriptors of its own at start and
	# when it reports: under these limits it aborts (134) before the front
	# end's own refusal, which is what is tested here.
	require_feature no-asan
	# Caps as root, where they take cgroup files; as nobody they would
	# only add the rlimit warning line.
	policy "$([ "$1" = root ] && echo "$CAPS")"
	# Four descriptors: the front end walks the policy's path holding a
	# directory and its entry open at once; it cannot, and refuses
	# before anything runs.
	run -125 --separate-stderr as "$1" "$PYTHON" -c "$ONLY012" prlimit --nofile=4 \
		"$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TRY" create "$TMP/rw/ran"
	# EMFILE in glibc's words or musl's (the front end is built with
	# either, as the helpers are)
	case $stderr in
	"sharness-exec: fatal: unable to read $TMP/p.json: Too many open files" | \
	"sharness-exec: fatal: unable to read $TMP/p.json: No file descriptors available") ;;
	*) echo "$stderr"; return 1 ;;
	esac
	[ ! -e "$TMP/rw/ran" ]
	# The landlock step on its own needs its ruleset and one path open at
	# once (the chain's environment memfd is closed by then): 126.
	run -126 --separate-stderr as "$1" "$PYTHON" -c "$ONLY012" prlimit --nofile=4 \
		"$LANDLOCK" -r /etc -x /usr -w "$TMP/rw" -- "$TRY" create "$TMP/rw/ran"
	[ "${#stderr_lines[@]}" = 1 ]
	# EMFILE in the words of the helper's libc: glibc's, or musl's.
	case $stderr in
	"sharness-exec-view: fatal: unable to mount a tmpfs for the new root: "*) ;;
	"sharness-exec-landlock: fatal: unable to open /etc: "*) ;;
	*) false ;;
	esac
	case $stderr in
	*": Too many open files" | *": No file descriptors available") ;;
	*) false ;;
	esac
	[ ! -e "$TMP/rw/ran" ]
	# Five and six: the supervise step holds stdio, the environment's
	# memfd and the walls record (fds 3 and 4, which travel to the
	# landlock step) and needs both ends of init's status pipe at once:
	# it cannot, and refuses before init. With caps (root here) it first
	# holds the descriptors the limits step's -g words name (5 to 8 for
	# memory and pids on cgroup v1: the hand-over, issue 39), then starts
	# the watcher that makes and removes the run's cgroup, over a socket
	# and a pipe to init, four ends at once, and init opens each cgroup for
	# the limits step: below fourteen it refuses at one of them.
	local n enough=7 step="init"
	if [ "$1" = root ]; then
		enough=14 step="the watcher"
	fi
	# Five: the netns step itself cannot open what it needs (lo's socket,
	# or the id maps), and says so rather than fall back.
	for ((n = 5; n < enough; n++)); do
		run -126 --separate-stderr as "$1" "$PYTHON" -c "$ONLY012" prlimit --nofile=$n \
			"$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TRY" create "$TMP/rw/ran"
		[ "${#stderr_lines[@]}" = 1 ]
		case $n:$stderr in
		5:"sharness-exec-netns: fatal: unable to "*) ;;
		*:"sharness-exec-supervise: fatal: unable to start $step: "*) ;;
		*:"sharness-exec-supervise: fatal: unable to hold descriptors 5 and 6 for the cgroup: "* | \
		*:"sharness-exec-supervise: fatal: unable to open cgroup "*)
			[ "$1" = root ] ;;
		*) false ;;
		esac
		case $stderr in
		*": Too many open files" | *": No file descriptors available") ;;
		*) false ;;
		esac
		[ ! -e "$TMP/rw/ran" ]
	done
	# Seven are enough (fourteen with the cgroup's), and the sandbox holds.
	run -0 --separate-stderr as "$1" "$PYTHON" -c "$ONLY012" prlimit --nofile=$enough \
		"$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TRY" create "$TMP/rw/ran"
	[ -e "$TMP/rw/ran" ]
	run -1 --separate-stderr as "$1" "$PYTHON" -c "$ONLY012" prlimit --nofile=$enough \
		"$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TRY" create "$TMP/d/out"
	[ "$output" = "refused: Permission denied" ] ||
		[ "$output" = "refused: No such file or directory" ]
	[ ! -e "$TMP/d/out" ]
}

@test "RLIMIT_NOFILE 4 to 14, as root with caps (the watcher too): 125 or 126 and one line, or the chain runs confined" {
	t_nofile root
}

@test "RLIMIT_NOFILE 4 to 7, as nobody: 125 or 126 and one line, or the chain runs confined" {
	t_nofile nobody
}

# With RLIMIT_NOFILE 3 a dynamically linked front end dies in the loader
# before main ("error while loading shared libraries: ... Error 24") with
# ld.so's status 127, which the contract reserves for "the target was not
# found": so configure links it statically (--disable-static-link, and the
# sanitizer build, cannot keep this promise). Running, it cannot open the
# policy: 125.
@test "RLIMIT_NOFILE 3: refused with 125 and one line, never 127" {
	need root
	require_feature tool:prlimit
	require_feature static-front-end
	policy
	run -125 --separate-stderr "$PYTHON" -c "$ONLY012" prlimit --nofile=3 \
		"$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TRY" create "$TMP/rw/ran"
	[ "${#stderr_lines[@]}" = 1 ]
	[[ "$stderr" == "sharness-exec: "*"Too many open files" ||
	   "$stderr" == "sharness-exec: "*"No file descriptors available" ]]
	[ ! -e "$TMP/rw/ran" ]
}

# --- a read-only /tmp ---

# ro_tmp CMD...: CMD in a private mount namespace whose /tmp is a read-only
# tmpfs; the policy comes on stdin, since $TMP is hidden there.
ro_tmp() {
	unshare -m sh -c 'mount --make-rprivate / && mount -t tmpfs -o ro tmpfs /tmp && exec "$@"' sh "$@"
}

@test "a read-only /tmp, as root: the chain needs none of it; the target sees EROFS" {
	need root
	require_feature tool:unshare
	require_feature builddir-outside-tmp
	policy "$CAPS"
	sed -i 's#"write":\[#"write":["/tmp",#' "$TMP/p.json"
	run -0 --separate-stderr ro_tmp "$SHARNESS_EXEC" run -p - -- "$TRY" read /etc/hostname <"$TMP/p.json"
	[ "$output" = ok ]
	run -1 --separate-stderr ro_tmp "$SHARNESS_EXEC" run -p - -- "$TRY" create /tmp/x <"$TMP/p.json"
	[ "$output" = "refused: Read-only file system" ]
}

@test "a read-only /tmp, as root: env.private there is refused with 125 and one line" {
	need root
	require_feature tool:unshare
	require_feature builddir-outside-tmp
	policy "" '"env":{"private":"/tmp/job"},'
	sed -i 's#"write":\[#"write":["/tmp",#' "$TMP/p.json"
	run -125 --separate-stderr ro_tmp "$SHARNESS_EXEC" run -p - -- "$TRY" create "$TMP/rw/ran" <"$TMP/p.json"
	[ "$stderr" = "sharness-exec: fatal: unable to create private directory /tmp/job: Read-only file system" ]
	[ ! -e "$TMP/rw/ran" ]
}

# --- a deleted working directory ---

t_deleted_cwd() {
	need "$1"
	policy "$CAPS"
	mkdir "$TMP/d/gone"
	chmod 777 "$TMP/d/gone"
	run -0 --separate-stderr as "$1" sh -c 'cd "$1" && rmdir "$1" && shift && exec "$@"' sh \
		"$TMP/d/gone" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TRY" create "$TMP/rw/ran"
	[ "$output" = ok ] && [ -e "$TMP/rw/ran" ]
	# A policy named relative to it cannot be found: 125, one line.
	mkdir "$TMP/d/gone"
	chmod 777 "$TMP/d/gone"
	cp "$TMP/p.json" "$TMP/d/gone/p.json"
	run -125 --separate-stderr as "$1" sh -c 'cd "$1" && rm -r "$1" && shift && exec "$@"' sh \
		"$TMP/d/gone" "$SHARNESS_EXEC" run -p p.json -- "$TRY" create "$TMP/rw/ran2"
	[ "${#stderr_lines[@]}" = 1 ]
	[[ "$stderr" == "sharness-exec: "*"unable to read p.json: No such file or directory" ]]
	[ ! -e "$TMP/rw/ran2" ]
}

@test "a deleted working directory, as root: the chain runs; a relative policy is 125" {
	t_deleted_cwd root
}

@test "a deleted working directory, as nobody: the chain runs; a relative policy is 125" {
	t_deleted_cwd nobody
}

# Every error line carries "fatal:"; `run` once left it out here.
@test "an unreadable policy: run says it in the same fatal line as hash and check" {
	need root
	run -125 --separate-stderr "$SHARNESS_EXEC" hash "$TMP/nope.json"
	want=$stderr
	[ "$want" = "sharness-exec: fatal: unable to read $TMP/nope.json: No such file or directory" ]
	run -125 --separate-stderr "$SHARNESS_EXEC" check "$TMP/nope.json"
	[ "$stderr" = "$want" ]
	run -125 --separate-stderr "$SHARNESS_EXEC" run -p "$TMP/nope.json" -- true
	[ "$stderr" = "$want" ]
}

# --- an existing seccomp filter ---

t_deny_unshare() {
	need "$1"
	policy
	local best=
	# No mount namespace: for root the view step refuses (126) unless
	# --best-effort; for nobody it says in one line what is not covered.
	if [ "$1" = root ]; then
		run -126 --separate-stderr as "$1" "$DENY_UNSHARE" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TRY" create "$TMP/rw/ran"
		[ "${#stderr_lines[@]}" = 3 ]
		[ "${stderr_lines[1]}" = "sharness-exec-view: fatal: unable to make a mount namespace: Operation not permitted" ]
		[[ "${stderr_lines[2]}" == "hint: "*"--best-effort"* ]]
		[ "${stderr_lines[2]}" = "$(no_view_root_hint)" ]
		[ ! -e "$TMP/rw/ran" ]
		best=--best-effort
	fi
	run -1 --separate-stderr as "$1" "$DENY_UNSHARE" "$SHARNESS_EXEC" run $best -p "$TMP/p.json" -- "$TRY" socket inet
	[ "$output" = "refused: Address family not supported by protocol" ]
	[ "${#stderr_lines[@]}" = 2 ]
	[[ "${stderr_lines[0]}" == "sharness-exec-netns: warning: no network namespace available (unshare: Operation not permitted)"* ]]
	[[ "${stderr_lines[1]}" == "sharness-exec-view: warning: no mount namespace available (unshare: Operation not permitted): Landlock alone does not hold chmod,"* ]]
	run -0 --separate-stderr as "$1" "$DENY_UNSHARE" "$SHARNESS_EXEC" run $best -p "$TMP/p.json" -- "$TRY" socket unix
	[ "$output" = ok ]
	run -1 --separate-stderr as "$1" "$DENY_UNSHARE" "$SHARNESS_EXEC" run $best -p "$TMP/p.json" -- "$TRY" create "$TMP/d/out"
	[ ! -e "$TMP/d/out" ]
	# Neither a namespace nor a seccomp filter: nothing runs.
	run -126 --separate-stderr as "$1" "$DENY_UNSHARE" -s "$SHARNESS_EXEC" run $best -p "$TMP/p.json" -- "$TRY" create "$TMP/rw/ran"
	[ "${stderr_lines[0]}" = "sharness-exec-netns: fatal: unable to install the seccomp socket filter: Invalid argument" ]
	[[ "${stderr_lines[1]}" == "hint: "* ]] && [ "${#stderr_lines[@]}" = 2 ]
	[ ! -e "$TMP/rw/ran" ]
}

@test "under a seccomp filter that refuses unshare(2), as root: the socket filter instead, or 126" {
	t_deny_unshare root
}

@test "under a seccomp filter that refuses unshare(2), as nobody: the socket filter instead, or 126" {
	t_deny_unshare nobody
}

t_deny_landlock() {
	need "$1"
	local best
	# ENOSYS, as on a kernel built without Landlock: a "none" policy runs
	# strict where the other walls hold every right (rights.c), confined
	# by the view and the namespaces alone.
	write_policy "$TMP/p.json" '{"pbp":1,"id":"no-landlock",
	  "files":{"read":["/etc"],"write":["'"$TMP"'/rw","/dev/null"],
	           "exec":["/usr","/bin","/lib","/lib64","'"$TRYDIR"'"]},
	  "network":"none","process":{"no_new_privs":true}}'
	run -0 --separate-stderr as "$1" "$DENY_LANDLOCK" 38 \
		"$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TRY" create "$TMP/rw/ran"
	[ -e "$TMP/rw/ran" ] && [ -z "$stderr" ]
	run -1 --separate-stderr as "$1" "$DENY_LANDLOCK" 38 \
		"$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TRY" create "$TMP/d/out"
	[ ! -e "$TMP/d/out" ]
	run -0 --separate-stderr as "$1" "$DENY_LANDLOCK" 38 \
		"$SHARNESS_EXEC" run --check -p "$TMP/p.json"
	[[ "$output" == *" abi=0 "*"rights=FS:view,FS_REFER:view,FS_TRUNCATE:view,"* ]]
	[[ "$output" == *",SCOPE_SIGNAL:pidns+seccomp,PTRACE:pidns+seccomp,"* ]]
	# With /proc granted, a file on 0-2 would be reopened through
	# /proc/self/fd with no ruleset to check the open: refused (bats keeps
	# stderr in a file), and -b runs and says so.
	policy
	run -126 --separate-stderr as "$1" "$DENY_LANDLOCK" 38 \
		"$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TRY" create "$TMP/rw/ran2"
	[ "${stderr_lines[0]}" = "sharness-exec-landlock: fatal: refused: descriptor 2 is a file that /proc/self/fd would reopen, and no Landlock ruleset checks that open" ]
	[ ! -e "$TMP/rw/ran2" ]
	# EPERM, a filter's and no kernel's answer: 126 even with -b.
	for best in "" --best-effort; do
		run -126 --separate-stderr as "$1" "$DENY_LANDLOCK" 1 \
			"$SHARNESS_EXEC" run $best -p "$TMP/p.json" -- "$TRY" create "$TMP/rw/ran3"
		[[ "${stderr_lines[0]}" == "sharness-exec-landlock: fatal: unable to query the Landlock ABI: "* ]]
		[ "${#stderr_lines[@]}" -le 2 ]
		[ ! -e "$TMP/rw/ran3" ]
	done
	# A filter that kills instead: the step dies of SIGSYS, before the target.
	run -159 --separate-stderr as "$1" "$DENY_LANDLOCK" kill \
		"$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TRY" create "$TMP/rw/ran3"
	[ ! -e "$TMP/rw/ran3" ]
}

@test "under a seccomp filter that refuses Landlock, as root: ENOSYS runs on the other walls, EPERM is 126 even with --best-effort" {
	t_deny_landlock root
}

@test "under a seccomp filter that refuses Landlock, as nobody: ENOSYS runs on the other walls, EPERM is 126 even with --best-effort" {
	t_deny_landlock nobody
}

# --- an existing Landlock domain ---

# $OUTER CMD...: CMD in an outer Landlock domain that reads and executes
# everything but writes only to $TMP/a and $TMP/c.
outer_domain() {
	outer_x
	OUTER=("$LANDLOCK" "${OUTER_X[@]}" -w "$TMP/a" -w "$TMP/c" -w /dev/null --)
}

# What an outer domain reads and executes: everything the chain needs, but
# not / whole, which holds /run: below Landlock ABI 9 only the view, which
# a nested run cannot make, would keep a daemon's socket there from being
# connected to, and strict mode refuses it (FS_RESOLVE_UNIX_READ).
outer_x() {
	OUTER_X=(-x /usr -x /etc -x /proc -x /sys -x /dev -x "$TMP" -x "$HELPERDIR")
	# The source tree too, but where uid 65534 could not open it: the
	# programs then run from their copy (reach_programs). Resolved: a
	# build in _b names it _b/.., and the landlock step refuses a ..
	# component (lib/rules.c).
	[ -n "${REACH:-}" ] || OUTER_X+=(-x "$(realpath "$top_srcdir")")
}

# The inner policy writes to $TMP/b and $TMP/c; its network is the object
# form, which needs no namespace (see the next test for "none").
inner_policy() {
	write_policy "$TMP/p.json" '{"pbp":1,"id":"nested",
	  "files":{"read":["/etc","/proc"],"write":["'"$TMP"'/b","'"$TMP"'/c","/dev/null"],
	           "exec":["/usr","/bin","/lib","/lib64","'"$TRYDIR"'"]},
	  "network":{"connect_tcp_ports":[]},"process":{"no_new_privs":true}}'
}

t_nested() {
	need "$1"
	inner_policy
	outer_domain
	# Positive controls: each sandbox alone allows its own path.
	run -0 --separate-stderr as "$1" "${OUTER[@]}" "$TRY" create "$TMP/a/outer-alone"
	run -0 --separate-stderr as "$1" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TRY" create "$TMP/b/inner-alone"
	# The outer domain forbids the id maps a user namespace needs (and has
	# dropped root's capabilities): no IPC namespace, and the netns step
	# says so first. Nor can the view step make a mount namespace: for
	# root that is 126 unless --best-effort, for nobody a warning.
	local ipc="sharness-exec-netns: warning: no IPC namespace available (unable to write /proc/self/uid_map: Permission denied): SysV and POSIX IPC objects are shared with the caller"
	local best=
	if [ "$1" = root ]; then
		run -126 --separate-stderr as "$1" "${OUTER[@]}" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TRY" create "$TMP/c/both"
		[ "${stderr_lines[0]}" = "$ipc" ]
		[ "${stderr_lines[1]}" = "sharness-exec-view: fatal: unable to make a mount namespace: Operation not permitted" ]
		[ "${#stderr_lines[@]}" = 3 ] && [ "${stderr_lines[2]#hint: }" != "${stderr_lines[2]}" ]
		[ ! -e "$TMP/c/both" ]
		best=--best-effort
	fi
	# Nested: only what both allow.
	run -0 --separate-stderr as "$1" "${OUTER[@]}" "$SHARNESS_EXEC" run $best -p "$TMP/p.json" -- "$TRY" create "$TMP/c/both"
	[ -e "$TMP/c/both" ]
	[ "$stderr" = "$ipc
$(no_view_warning "unshare: Operation not permitted")" ]
	# The outer allows $TMP/a, the inner does not: refused.
	run -1 --separate-stderr as "$1" "${OUTER[@]}" "$SHARNESS_EXEC" run $best -p "$TMP/p.json" -- "$TRY" create "$TMP/a/new"
	[ "$output" = "refused: Permission denied" ]
	# The inner allows $TMP/b, the outer does not: refused.
	run -1 --separate-stderr as "$1" "${OUTER[@]}" "$SHARNESS_EXEC" run $best -p "$TMP/p.json" -- "$TRY" create "$TMP/b/new"
	[ "$output" = "refused: Permission denied" ]
	[ ! -e "$TMP/a/new" ] && [ ! -e "$TMP/b/new" ]
	[ "$(ls "$TMP/a")" = outer-alone ] && [ "$(ls "$TMP/b")" = inner-alone ]
}

@test "inside a Landlock domain, as root: the chain adds a layer, never removes one" {
	t_nested root
}

@test "inside a Landlock domain, as nobody: the chain adds a layer, never removes one" {
	t_nested nobody
}

t_nested_netns() {
	need "$1"
	policy
	# The outer domain may not write /proc/self/uid_map, which a user
	# namespace needs (the outer domain dropped every capability, root's
	# too): no namespace can be made, so "none" falls back to the seccomp
	# filter, says so, and loopback is refused with every other socket.
	# -U: without it the outer filter refuses the user namespace itself
	# (EPERM from unshare) before uid_map is ever reached.
	# No mount namespace either: the view step warns (for root that needs
	# --best-effort, without which it refuses, as the test above shows).
	local best=
	[ "$1" = root ] && best=--best-effort
	outer_x
	run -0 --separate-stderr as "$1" "$LANDLOCK" --userns "${OUTER_X[@]}" -w "$TMP/rw" -w /dev/null -- \
		"$SHARNESS_EXEC" run $best -p "$TMP/p.json" -- "$TRY" create "$TMP/rw/ran"
	[ "$stderr" = "sharness-exec-netns: warning: no network namespace available (unable to write /proc/self/uid_map: Permission denied): loopback is unavailable, sockets other than AF_UNIX are refused by a seccomp filter, and SysV and POSIX IPC objects are shared with the caller
$(no_view_warning "unshare: Operation not permitted")" ]
	[ -e "$TMP/rw/ran" ]
	run -1 --separate-stderr as "$1" "$LANDLOCK" "${OUTER_X[@]}" -w "$TMP/rw" -w /dev/null -- \
		"$SHARNESS_EXEC" run $best -p "$TMP/p.json" -- "$TRYDIR/try-net" tcp4
	[ "$output" = "refused: socket: Address family not supported by protocol" ]
}

@test "inside a Landlock domain that forbids /proc writes, as root: \"network\": \"none\" falls back to seccomp, and says so" {
	t_nested_netns root
}

@test "inside a Landlock domain that forbids /proc writes, as nobody: \"network\": \"none\" falls back to seccomp, and says so" {
	t_nested_netns nobody
}
