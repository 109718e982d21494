#!/usr/bin/env bats
# sharness-exec-explain, run --explain's step of its own (issue 39; DESIGN.md
# 1 and 4.7): in the chain only under --explain, right after supervise, and
# exec'd with the dry run's words; runnable by hand, with --help and a check
# mode; it names a denied open as before, as root and as nobody, by hand and
# in the report; the target's exit status and its signal pass through it
# (as root, nobody and uid 1000); and supervise no longer links the
# observer. What the observer lists is tests/explain.bats's, its holes
# tests/explainholes.bats's.
load ../helpers/load

EXPLAIN="$HELPERDIR/sharness-exec-explain"
X="sharness-exec-explain: explain: "
USAGE="usage: sharness-exec-explain [-Nt] [-D FD] [-E FD] [--as ROLE] [--proxy PORT] [-r PATH]... [-x PATH]... [-w PATH]... [-s PATH]... [--] PROGRAM [ARG...]"

setup() {
	setup_tmp
	mkdir -m 755 "$TMP/out" "$TMP/ro"
	mkdir -m 777 "$TMP/rw"
	mkdir -m 1777 "$TMP/r"   # the reports: sticky, as /tmp
	echo outside >"$TMP/out/f"
	chmod 644 "$TMP/out/f"
	pids=()
}

teardown() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	teardown_tmp
}

policy() {
	chain_policy explainstep '"none"' '"/etc","'"$TMP"'/ro"' '"'"$TMP"'/rw","/dev/null"' "" "${1:-}"
}

# step_of PID: the explain step among PID's descendants (its name, cut
# to 15 bytes: sharness-exec-e; its child has executed the next step).
step_of() {
	local p c
	for p in $(cat "/proc/$1/task/"*/children 2>/dev/null); do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = sharness-exec-e ] && echo "$p"
		step_of "$p"
	done
}

@test "explainstep: the step is in the chain only under --explain, right after supervise, before limits" {
	require_feature landlock
	policy ',"max_memory_mb":256'
	run -0 --separate-stderr "$SHARNESS_EXEC" run --dry-run -p "$TMP/p.json" -- true
	[[ "$output" != *sharness-exec-explain* ]]
	run -0 --separate-stderr "$SHARNESS_EXEC" run --dry-run --explain -p "$TMP/p.json" -- true
	[[ "${lines[1]}" == "$HELPERDIR/sharness-exec-supervise "* ]]
	[[ "${lines[1]}" != *" -X "* ]]
	[[ "${lines[2]}" == "$HELPERDIR/sharness-exec-explain -r /etc -r $TMP/ro -x /usr "*" -w $TMP/rw -w /dev/null --" ]]
	[[ "${lines[3]}" == "$HELPERDIR/sharness-exec-limits -W "*" -g "*" -m 256 --" ]]
	# --verbose names the step's fork, and --report gives it -D, the
	# same descriptor as supervise's.
	run -0 --separate-stderr "$SHARNESS_EXEC" run --dry-run --verbose --explain --report "$TMP/r.json" -p "$TMP/p.json" -- true
	printf '%s\n' "$stderr" | grep -qx "sharness-exec: fork: the traced child, by sharness-exec-explain: execs sharness-exec-limits, the rest of the chain, which the step traces"
	local d
	d=$(grep -o ' -D [0-9]*' <<<"${lines[1]}")
	[ -n "$d" ]
	[[ "${lines[2]}" == *"$d "* ]]
}

t_argv() {
	need "$1"; policy
	mkfifo "$TMP/rw/ready" "$TMP/rw/go"
	chmod 666 "$TMP/rw/ready" "$TMP/rw/go"
	local cmd=(/bin/sh -c 'echo up >"$0"; read x <"$1"' "$TMP/rw/ready" "$TMP/rw/go")
	run -0 --separate-stderr as "$1" "$SHARNESS_EXEC" run --dry-run --explain -p "$TMP/p.json" -- "${cmd[@]}"
	# The steps' lines from the explain step on, the target's aside.
	local want
	want=$(printf '%s\n' "${lines[@]:2}" | sed '$d' | tr '\n' ' ')
	[[ $want == "$HELPERDIR/sharness-exec-explain "* ]]
	as "$1" "$SHARNESS_EXEC" run --explain -p "$TMP/p.json" -- "${cmd[@]}" 2>"$TMP/err" &
	local sv=$! ex
	pids+=("$sv")
	[ "$(await_line "$TMP/rw/ready")" = up ]
	# Beneath the supervisor, init; beneath init, the explain step.
	ex=$(step_of "$sv")
	[ -n "$ex" ] && [ "$(wc -l <<<"$ex")" = 1 ]
	local got
	got=$(tr '\0' ' ' <"/proc/$ex/cmdline")
	echo "dry run: $want"$'\n'"exec'd:  $got"
	echo go >"$TMP/rw/go"
	wait "$sv"
	[[ $got == "$want"* ]]
	grep -qx "${X}nothing was refused or hidden" "$TMP/err"
}

@test "explainstep (root): the step is exec'd with the dry run's words" { t_argv root; }
@test "explainstep (nobody): the step is exec'd with the dry run's words" { t_argv nobody; }

@test "explainstep: --help, the check mode, and its refusals of bad words (125, one line)" {
	run -0 --separate-stderr "$EXPLAIN" --help
	[ "${lines[0]}" = "$USAGE" ]
	[ -z "$stderr" ]
	run -0 --separate-stderr "$EXPLAIN" -t
	[[ $output =~ ^sharness-exec-explain:\ tracer=ptrace\ yama_ptrace_scope=[0-9]+\ network=own\ denials=none$ ]]
	run -0 --separate-stderr "$EXPLAIN" -t -N -D 3 -- true 3>"$TMP/d.json"
	[[ $output == *" network=caller denials=fd" ]]
	run -125 --separate-stderr "$EXPLAIN"
	[ "${stderr_lines[0]}" = "sharness-exec-explain: fatal: no program given" ]
	run -125 --separate-stderr "$EXPLAIN" -r etc -- true
	[ "${stderr_lines[0]}" = "sharness-exec-explain: fatal: -r needs an absolute path, not \"etc\"" ]
	run -125 --separate-stderr "$EXPLAIN" -D 99 -- true
	[ "${stderr_lines[0]}" = "sharness-exec-explain: fatal: unable to use -D 99: not an open descriptor" ]
	# supervise's -X is gone: one line.
	run -125 --separate-stderr "$SUPERVISE" -X -- true
	[ "${stderr_lines[0]}" = "sharness-exec-supervise: fatal: unknown option -X" ]
}

t_named() {
	need "$1"; policy
	# Bare, the file is there to read.
	run -0 as "$1" "$TRY" read "$TMP/out/f"
	# Through the chain: named as before, in the report too.
	run -1 --separate-stderr as "$1" "$SHARNESS_EXEC" run --explain --report "$TMP/r/r.json" -p "$TMP/p.json" -- "$TRY" read "$TMP/out/f"
	[ "$output" = "refused: No such file or directory" ]
	[ "$(printf '%s\n' "$stderr" | grep "^$X")" = "${X}read $TMP/out/f: ENOENT (No such file or directory), hidden by the policy, 1 time; allow with \"files\": {\"read\": [\"$TMP/out\"]}" ]
	run -0 python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))["denials"]; print(len(d), d[0]["kind"], d[0]["what"], d[0]["errno"], json.dumps(d[0]["allow"]))' "$TMP/r/r.json"
	[ "$output" = "1 read $TMP/out/f ENOENT {\"files\": {\"read\": [\"$TMP/out\"]}}" ]
	# By hand, before the landlock step alone (Landlock: EACCES), the
	# list also to -D's descriptor.
	local L=(-r /etc -r "$TMP/ro" -x /usr -x "$TRYDIR" -w "$TMP/rw")
	run -1 --separate-stderr as "$1" "$EXPLAIN" "${L[@]}" -D 3 -- "$LANDLOCK" -b -X "${L[@]}" -- "$TRY" read "$TMP/out/f" 3>"$TMP/d.json"
	[ "$output" = "refused: Permission denied" ]
	[ "$(printf '%s\n' "$stderr" | grep "^$X")" = "${X}read $TMP/out/f: EACCES (Permission denied), hidden by the policy, 1 time; allow with \"files\": {\"read\": [\"$TMP/out\"]}" ]
	run -0 python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(len(d), d[0]["what"], d[0]["errno"])' "$TMP/d.json"
	[ "$output" = "1 $TMP/out/f EACCES" ]
	# Nothing outside changed.
	[ "$(cat "$TMP/out/f")" = outside ]
}

@test "explainstep (root): a denied open is named, on stderr, in the report and by hand" { t_named root; }
@test "explainstep (nobody): a denied open is named, on stderr, in the report and by hand" { t_named nobody; }

t_status() {
	need "$1"; policy
	# The command's exit status, and its death by a signal, reach the
	# caller through the step as without it.
	run -7 --separate-stderr as_m "$1" "$SHARNESS_EXEC" run --explain -p "$TMP/p.json" -- /bin/sh -c 'exit 7'
	run -143 --separate-stderr as_m "$1" "$SHARNESS_EXEC" run --explain -p "$TMP/p.json" -- /bin/sh -c 'kill -TERM $$'
	printf '%s\n' "$stderr" | grep -qx "${X}nothing was refused or hidden"
	run -138 --separate-stderr as_m "$1" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- /bin/sh -c 'kill -USR1 $$'
	run -138 --separate-stderr as_m "$1" "$SHARNESS_EXEC" run --explain -p "$TMP/p.json" -- /bin/sh -c 'kill -USR1 $$'
	# By hand: the step exits as its child did.
	run -3 as_m "$1" "$EXPLAIN" -- /bin/sh -c 'exit 3'
	run -137 as_m "$1" "$EXPLAIN" -- /bin/sh -c 'kill -KILL $$'
}

@test "explainstep (root): the command's exit status and its signal pass through the step" { t_status root; }
@test "explainstep (nobody): the command's exit status and its signal pass through the step" { t_status nobody; }
@test "explainstep (uid 1000): the command's exit status and its signal pass through the step" { t_status 1000; }

@test "explainstep: supervise links no observer: no observe_, denials_ or explain_ symbol, no file of explain/" {
	require_feature tool:nm
	run -0 nm "$SUPERVISE"
	[ "${#lines[@]}" -gt 100 ]   # a binary with its symbols, as built
	! grep -E ' (observe_[a-z]*|denials_[a-z]*|explain_[a-z]*|fd_copy|process_vm_readv)$' <<<"$output"
	run -0 nm "$EXPLAIN"
	grep -q ' observe_start$' <<<"$output"
	grep -q ' denials_json$' <<<"$output"
	run -0 bash "$top_srcdir/tests/helpers/shape.sh" "$top_srcdir" files sharness-exec-supervise
	[[ $output == *supervise/supervise.c* ]]
	[[ $output != *explain/* ]]
}
