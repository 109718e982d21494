#!/usr/bin/env bats
# Issue 37's holes in --explain, from the attacker's side, and issue 42's
# refusals that held nothing. A process of the target that the observer
# does not trace (clone(CLONE_UNTRACED), then PTRACE_TRACEME to its own
# parent) must not run a call the filter refuses without --explain: the
# filter refuses with SECCOMP_RET_TRAP, so the kernel never runs it, and
# ptrace(2) and CLONE_UNTRACED are refused under --explain. The timeout
# is kept under a flood of traced calls. The setgid bit on a directory is
# allowed (it grants nothing), and on what may be a file refused.
load ../helpers/load
load ../helpers/learn

UNTRACED="$TRYDIR/try-untraced"
X="sharness-exec-explain: explain: "

setup() {
	setup_tmp
	mkdir -m 755 "$TMP/ro"
	mkdir -m 777 "$TMP/rw"
	echo inside >"$TMP/ro/f"
	chmod 644 "$TMP/ro/f"
	desc=sharness-exec-explainholes-$$-$BATS_TEST_NUMBER
}

teardown() {
	"$TRY" key-drop "$desc" >/dev/null 2>&1 || true
	# A flood left behind where the timeout failed: this test's own, by
	# the path only it names.
	pkill -KILL -f "try-flood 64 $TMP/ro/f" 2>/dev/null || true
	teardown_tmp
}

policy() {
	chain_policy explainholes "${1:-\"none\"}" '"/etc","'"$TMP"'/ro"' '"'"$TMP"'/rw","/dev/null"'
}

# --- issue 37, High: a tracer of the target's own under --explain --------------

t_untraced_child() {
	need "$1"; policy
	# Bare, the attack program works: the key lands in the caller's @u.
	run -0 as "$1" "$UNTRACED" "$TRY" key-add "$desc"
	[ "$output" = ok ]
	run -0 as "$1" "$TRY" key-drop "$desc"
	# Confined without --explain the filter refuses the call.
	run -1 --separate-stderr as "$1" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$UNTRACED" "$TRY" key-add "$desc"
	[ "$output" = "refused: Operation not permitted" ]
	# Under --explain the child cannot be made (CLONE_UNTRACED), and
	# the explain line says so; the caller's keyring is checked from
	# outside.
	run -1 --separate-stderr as "$1" "$SHARNESS_EXEC" run --explain -p "$TMP/p.json" -- "$UNTRACED" "$TRY" key-add "$desc"
	[ "$output" = "refused: Operation not permitted" ]
	[[ "$stderr" == *"try-untraced: clone(CLONE_UNTRACED): Operation not permitted"* ]]
	[ "$(printf '%s\n' "$stderr" | grep "^$X")" = "${X}ptrace clone with CLONE_UNTRACED: EPERM (Operation not permitted), refused by the seccomp filter, 1 time; no policy change allows it: under --explain only, the filter refuses ptrace and CLONE_UNTRACED: the observer must be every process's only tracer" ]
	run -1 as "$1" "$TRY" key-find "$desc"
	[ "$output" = "refused: Required key not available" ]
}

@test "explain (root): an untraced child traced by the target adds no key to the caller's user keyring" { t_untraced_child root; }
@test "explain (nobody): an untraced child traced by the target adds no key to the caller's user keyring" { t_untraced_child nobody; }

t_hostile_tracer() {
	need "$1"
	local L=("$LANDLOCK" -b -r /etc -x /usr -x "$TRYDIR")
	# The filter of -X under a tracer it did not choose, which runs every
	# TRACE rule's call and drops every SIGSYS: the refused call still
	# does not run (a trap: the kernel never runs it). try-syscall says
	# "ok" for the number left in the register; the keyring, read from
	# outside, has no key.
	run -1 --separate-stderr as "$1" "$UNTRACED" "${L[@]}" -- "$TRY" key-add "$desc"
	[ "$output" = "refused: Operation not permitted" ]
	run --separate-stderr as "$1" "$UNTRACED" "${L[@]}" -X -- "$TRY" key-add "$desc"
	run -1 as "$1" "$TRY" key-find "$desc"
	[ "$output" = "refused: Required key not available" ]
}

@test "explain (root): under -X a tracer of the target's own cannot make a refused call run" { t_hostile_tracer root; }
@test "explain (nobody): under -X a tracer of the target's own cannot make a refused call run" { t_hostile_tracer nobody; }

t_ptrace_refused() {
	need "$1"; policy
	run -0 --separate-stderr as "$1" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TRY" trace-child
	[ "$output" = ok ]
	run -1 --separate-stderr as "$1" "$SHARNESS_EXEC" run --explain -p "$TMP/p.json" -- "$TRY" trace-child
	[ "$output" = "refused: Operation not permitted" ]
	[ "$(printf '%s\n' "$stderr" | grep "^$X")" = "${X}ptrace ptrace: EPERM (Operation not permitted), refused by the seccomp filter, 1 time; no policy change allows it: under --explain only, the filter refuses ptrace and CLONE_UNTRACED: the observer must be every process's only tracer" ]
}

@test "explain (root): ptrace inside is refused under --explain only, and said" { t_ptrace_refused root; }
@test "explain (nobody): ptrace inside is refused under --explain only, and said" { t_ptrace_refused nobody; }

t_own_trap() {
	need "$1"; policy
	# The target's own filter traps getppid (110), which ours allows, and
	# keyctl (250), which ours traps too (the newest filter's data wins
	# the tie): its handler takes the SIGSYS, as without --explain, and
	# the observer lists nothing.
	local a
	for a in "110 0" "110 0x8001" "250 5"; do
		run -0 --separate-stderr as "$1" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TRYDIR/try-owntrap" $a
		[ "$output" = handler ]
		run -0 --separate-stderr as "$1" "$SHARNESS_EXEC" run --explain -p "$TMP/p.json" -- "$TRYDIR/try-owntrap" $a
		[ "$output" = handler ]
		printf '%s\n' "$stderr" | grep -qx "${X}nothing was refused or hidden"
	done
}

@test "explain (root): a trap of the target's own filter reaches its own handler" { t_own_trap root; }
@test "explain (nobody): a trap of the target's own filter reaches its own handler" { t_own_trap nobody; }

@test "learn (root): a hostile command's untraced child adds no key to the caller's user keyring" {
	need root
	setup_project
	cp "$UNTRACED" "$TRY" "$PROJ/"
	cd "$PROJ"
	run -0 ./try-untraced ./try-syscall key-add "$desc"
	run -0 ./try-syscall key-drop "$desc"
	# learn runs every round with --explain, as the caller, here root.
	run --separate-stderr env HOME="$OUTSIDE" "$SHARNESS_EXEC" learn -o draft.json -- ./try-untraced ./try-syscall key-add "$desc"
	teardown_project
	[[ "$stderr" == *"clone(CLONE_UNTRACED): Operation not permitted"* ]]
	run -1 "$TRY" key-find "$desc"
	[ "$output" = "refused: Required key not available" ]
}

# --- issue 37, Medium: the timeout under a flood of traced calls ----------------

t_timeout_flood() {
	need "$1"; policy
	# 64 threads stat() in a loop, each call two stops for init, and
	# SIGTERM is ignored: the run still ends at --timeout 2 plus
	# --kill-after 1, with 124. init takes the timeout's signal at most
	# 64 stops late (sharness-exec(1)); 15 s is a generous bound for a
	# loaded machine (a liveness check, not a benchmark). Without the
	# bound the run went on until killed.
	local start=$SECONDS
	run -124 --separate-stderr as "$1" timeout -s KILL 60 "$SHARNESS_EXEC" run --explain \
		--timeout 2 --kill-after 1 -p "$TMP/p.json" -- "$TRYDIR/try-flood" 64 "$TMP/ro/f"
	[ "$output" = flooding ]
	[ $((SECONDS - start)) -le 15 ]
	[[ "$stderr" == *"the command timed out after 2 s (--timeout 2s), and was killed 1 s later (--kill-after 1s)"* ]]
	! pgrep -f "try-flood 64 $TMP/ro/f"
}

@test "explain (root): --timeout and --kill-after hold under a 64-thread flood of traced calls" { t_timeout_flood root; }
@test "explain (nobody): --timeout and --kill-after hold under a 64-thread flood of traced calls" { t_timeout_flood nobody; }

# --- issue 42: the setgid bit on a directory ------------------------------------

t_setgid_dir() {
	need "$1"; policy
	require_feature tool:git
	local whyf="no policy change allows it: no target makes a set-id file: a file's set-id bit hands its owner or group to whoever runs it, and the filter refuses S_ISUID in every mode, and S_ISGID on everything but a directory the target owns"
	# Bare, both set the bit on a directory.
	run -0 as "$1" install -d -m 2775 "$TMP/rw/bare"
	[ -g "$TMP/rw/bare" ]
	# Inside, without --explain, the setgid server sets it too
	# (tests/attack/setgid.bats has the rest).
	run -0 --separate-stderr as "$1" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- install -d -m 2775 "$TMP/rw/d"
	[ -g "$TMP/rw/d" ]
	rmdir "$TMP/rw/d"
	# Under --explain too (the server runs there, and its answer
	# outranks the observer's TRACE), and nothing set-id is listed.
	run -0 --separate-stderr as "$1" "$SHARNESS_EXEC" run --explain -p "$TMP/p.json" -- install -d -m 2775 "$TMP/rw/d"
	[ -g "$TMP/rw/d" ]
	[[ "$stderr" != *"set-id"* ]]
	run -0 --separate-stderr as "$1" "$SHARNESS_EXEC" run --explain -p "$TMP/p.json" -- \
		/bin/sh -c 'cd "$1" && HOME="$1" git init -q --shared r' sh "$TMP/rw"
	[ -g "$TMP/rw/r/.git" ]
	[[ "$stderr" != *"set-id"* ]]
	# A set-uid bit on a file (the filter's) and a set-gid bit on one
	# (the server's, which tells the observer): refused and listed as a
	# file's; nothing set-id outside but the directories.
	: >"$TMP/rw/f"
	chmod 666 "$TMP/rw/f"
	[ "$1" = root ] || chown "$NOBODY_UID" "$TMP/rw/f"
	run -1 --separate-stderr as "$1" "$SHARNESS_EXEC" run --explain -p "$TMP/p.json" -- "$TRY" chmod 4755 "$TMP/rw/f"
	[ "$output" = "refused: Operation not permitted" ]
	[ "$(printf '%s\n' "$stderr" | grep "^$X")" = "${X}set-id bit $TMP/rw/f, mode 4755: EPERM (Operation not permitted), refused by the seccomp filter, 1 time; $whyf" ]
	run -1 --separate-stderr as "$1" "$SHARNESS_EXEC" run --explain -p "$TMP/p.json" -- "$TRY" chmod 2755 "$TMP/rw/f"
	[ "$output" = "refused: Operation not permitted" ]
	[ "$(printf '%s\n' "$stderr" | grep "^$X")" = "${X}set-id bit $TMP/rw/f, mode 2755: EPERM (Operation not permitted), refused by the setgid server, 1 time; $whyf" ]
	[ -z "$(find "$TMP/rw" -type f -perm /6000)" ]
}

@test "explain (root): the setgid bit on a directory (install -d -m 2775, git init --shared) is set with --explain too, a file's listed with its path and mode" { t_setgid_dir root; }
@test "explain (nobody): the setgid bit on a directory (install -d -m 2775, git init --shared) is set with --explain too, a file's listed with its path and mode" { t_setgid_dir nobody; }

# --- issue 42: suggestions that check accepts and that make the access work ----

# policyx EXTRA_EXEC EXTRA_READ: the policy, with more exec and read paths.
policyx() {
	chain_policy explainholes '"none"' '"/etc","'"$TMP"'/ro"'"${2:+,$2}" '"'"$TMP"'/rw","/dev/null"' "${1:-}"
}

t_exec_link() {
	need "$1"
	mkdir -m 755 "$TMP/lnk" "$TMP/real"
	cp /bin/true "$TMP/real/tool"
	chmod 755 "$TMP/real/tool"
	ln -s ../real/tool "$TMP/lnk/tool"
	# Neither directory: both are named (the link must be in the view,
	# and the right counts where it leads).
	policyx
	run -1 --separate-stderr as "$1" "$SHARNESS_EXEC" run --explain -p "$TMP/p.json" -- "$TRY" exec "$TMP/lnk/tool"
	[ "$(printf '%s\n' "$stderr" | grep "^$X")" = "${X}exec $TMP/lnk/tool: ENOENT (No such file or directory), hidden by the policy, 1 time; allow with \"files\": {\"exec\": [\"$TMP/lnk\", \"$TMP/real\"]}" ]
	# The link's directory alone (the old suggestion): the exec still
	# fails, and explain now names where the link leads.
	policyx "\"$TMP/lnk\""
	run -1 --separate-stderr as "$1" "$SHARNESS_EXEC" run --explain -p "$TMP/p.json" -- "$TRY" exec "$TMP/lnk/tool"
	[ "$(printf '%s\n' "$stderr" | grep "^$X")" = "${X}exec $TMP/lnk/tool: ENOENT (No such file or directory), hidden by the policy, 1 time; allow with \"files\": {\"exec\": [\"$TMP/real\"]}" ]
	# Both: check accepts it, and the exec works.
	policyx "\"$TMP/lnk\",\"$TMP/real\""
	run -0 as "$1" "$SHARNESS_EXEC" check "$TMP/p.json"
	run -0 --separate-stderr as "$1" "$SHARNESS_EXEC" run --explain -p "$TMP/p.json" -- "$TRY" exec "$TMP/lnk/tool"
	printf '%s\n' "$stderr" | grep -qx "${X}nothing was refused or hidden"
}

@test "explain (root): an exec through a symlink suggests where it leads too" { t_exec_link root; }
@test "explain (nobody): an exec through a symlink suggests where it leads too" { t_exec_link nobody; }

t_ptmx() {
	need "$1"
	require_feature file:/dev/ptmx
	policyx
	run -1 --separate-stderr as "$1" "$SHARNESS_EXEC" run --explain -p "$TMP/p.json" -- "$TRY" ioctl /dev/ptmx
	[ "$(printf '%s\n' "$stderr" | grep "^$X")" = "${X}read /dev/ptmx: ENOENT (No such file or directory), hidden by the policy, 1 time; allow with \"files\": {\"read\": [\"/dev\"]}" ]
	# What it suggests, check accepts, and the open works (the run's
	# own devpts). --best-effort: another program's socket beneath
	# /dev/shm would stop a strict run below Landlock ABI 9.
	policyx "" '"/dev"'
	run -0 as "$1" "$SHARNESS_EXEC" check "$TMP/p.json"
	run -0 --separate-stderr as "$1" "$SHARNESS_EXEC" run --best-effort -p "$TMP/p.json" -- "$TRY" ioctl /dev/ptmx
}

@test "explain (root): /dev/ptmx suggests /dev whole, which check accepts" { t_ptmx root; }
@test "explain (nobody): /dev/ptmx suggests /dev whole, which check accepts" { t_ptmx nobody; }

@test "explain: many hidden names beneath one directory are folded into one line after eight" {
	need nobody; policyx
	mkdir -m 755 "$TMP/hid"
	for i in $(seq 0 11); do echo x >"$TMP/hid/f$i"; done
	chmod 644 "$TMP"/hid/*
	run -0 --separate-stderr as nobody "$SHARNESS_EXEC" run --explain -p "$TMP/p.json" -- \
		/bin/sh -c 'for i in 0 1 2 3 4 5 6 7 8 9 10 11; do "$0" read "$1/f$i"; done; true' "$TRY" "$TMP/hid"
	printf '%s\n' "$stderr" | grep "^$X" >"$TMP/lines"
	[ "$(grep -c "^${X}read $TMP/hid/f[0-9]*: ENOENT" "$TMP/lines")" = 8 ]
	grep -qx "${X}read $TMP/hid/\*: ENOENT (No such file or directory), hidden by the policy, 4 times; allow with \"files\": {\"read\": \[\"$TMP/hid\"\]}" "$TMP/lines"
	[ "$(wc -l <"$TMP/lines")" = 9 ]
}

# --- issue 37, Medium: the CPU cap under --explain -------------------------------

@test "explain (root, cgroup v1): max_cpu_percent 20 holds the traced flood and the observer together to at most 30 % of one CPU" {
	need root
	local cg=/sys/fs/cgroup/cpu own
	own=$(awk -F: '$2 ~ /(^|,)cpu(,|$)/ { print $3 }' /proc/self/cgroup)
	[ "$own" != / ] || own=
	require_that cgroup1 "no writable cgroup v1 cpu hierarchy at $cg" test -w "$cg$own/cgroup.procs"
	chain_policy explainholes '"none"' '"/etc","'"$TMP"'/ro"' '"'"$TMP"'/rw","/dev/null"' "" ',"max_cpu_percent":20'
	# The flood ends at the timeout, every process of it reaped by its
	# parent, so bash's `time` counts the target's CPU and init's (the
	# observer's) alike, as tests/cpu.bats measures a cap. Without init
	# in the run's cpu cgroup this was about 40 %.
	local TIMEFORMAT='%3R %3U %3S' t ratio
	t=$({ time "$SHARNESS_EXEC" run --explain --timeout 3 --kill-after 1 -p "$TMP/p.json" -- \
		"$TRYDIR/try-flood" 64 "$TMP/ro/f" >/dev/null 2>"$TMP/err"; echo $? >"$TMP/rc"; } 2>&1)
	ratio=$(echo "$t" | awk '{ printf "%d", ($2 + $3) * 100 / $1 }')
	echo "wall, user, sys: $t; $ratio % of one CPU"
	[ "$(cat "$TMP/rc")" = 124 ]
	[ "$ratio" -le 30 ]
}
