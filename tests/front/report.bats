#!/usr/bin/env bats
# run --report FILE|fd:N (sharness-exec-report(5)): the report is one valid
# JSON object with every field, for each outcome, as root and as nobody
# (python3's json module, and jq where installed); the outcome tells a
# target that exits 124, 126 or 127 itself from a timeout and from a
# step's refusal, which the exit status alone cannot; memory and pids cap
# hits are counted; a signed policy's key is named; FILE's directory is
# opened before anything runs, FILE never replaces a symlink or another
# user's file and follows no planted symlink (tests/frontholes.bats: it is
# written by name once the run is over); fd:N reaches the supervisor alone.
#
# not tested: a report after the netns step failed or the supervisor was
# SIGKILLed (it is then empty, as sharness-exec-report(5) says); the
# counters on cgroup v2 (memory.peak, cpu.stat: no controllers here; the
# v1 files are read, as caphits.c reads both); openat2's absence (the
# O_NOFOLLOW fallback); a status pipe that overflows.
load ../helpers/load

DENY="$TRYDIR/deny-unshare"

setup() {
	setup_tmp
	ulimit -c 0
	# the marker: a file the target makes, to show it ran, or did not
	W=$TMP/w
	R=$TMP/r   # where the reports go: nobody writes them too
	mkdir -p "$W" "$R"
	chmod 777 "$W"
	chmod 1777 "$R"   # sticky, as /tmp: no other user can change the report
	chain_policy report '"none"' '"/etc","/proc"' '"'"$W"'","/dev/null"' '' "${PROCESS:-}"
}

# sx MODE ARGS...: `sharness-exec run ARGS...` as root or nobody.
sx() {
	local mode=$1
	shift
	as "$mode" "$SHARNESS_EXEC" run "$@"
}

# report FILE [PYTHON]: FILE holds one JSON object, and a newline, with
# every field of sharness-exec-report(5) of the right type; prints
# "OUTCOME WRAPPER TARGET" (a status as exit:N, signal:N or null), then
# what PYTHON, an expression of r, gives.
report() {
	python3 - "$1" "${2:-''}" <<'EOF'
import json, sys
text = open(sys.argv[1]).read()
assert text.endswith("}\n") and text.count("\n") == 1, repr(text)
r = json.loads(text)
keys = ["report", "policy", "outcome", "wrapper_status", "target", "fatal", "walls",
        "dropped", "memory", "pids", "cpu", "timeout", "wall_s", "warnings", "env_dropped",
        "egress", "denials", "write_paths"]
assert list(r) == keys, list(r)
assert sorted(r) == sorted(keys), sorted(r)
assert r["report"] == 1
assert r["outcome"] in ("exited", "signaled", "timed_out", "refused",
                        "could_not_confine", "not_found"), r["outcome"]
def status(s):
    if s is None:
        return "null"
    assert list(s) in (["exit_code"], ["signal"]), s
    k, v = next(iter(s.items()))
    assert isinstance(v, int)
    return ("exit:" if k == "exit_code" else "signal:") + str(v)
def obj(v, fields):
    assert v is None or sorted(v) == sorted(fields), v
obj(r["policy"], ["id", "hash", "key"])
obj(r["memory"], ["peak_bytes", "cap_bytes", "oom_kills", "source"])
obj(r["pids"], ["cap", "refused_forks"])
obj(r["cpu"], ["user_s", "system_s", "cap_percent", "source"])
obj(r["timeout"], ["after_s", "kill_after_s"])
assert r["wall_s"] is None or r["wall_s"] >= 0
assert all(isinstance(x, str) for x in r["dropped"] + r["warnings"] + (r["env_dropped"] or []))
assert r["walls"] is None or all(v is None or isinstance(v, str) for v in r["walls"].values())
assert r["egress"] is None or sorted(r["egress"]) == ["allowed", "complete", "more_allowed", "more_refused", "refused"]
assert r["denials"] is None or all(sorted(d) == ["allow", "count", "errno", "kind", "status", "what", "why"] for d in r["denials"])
print(r["outcome"], status(r["wrapper_status"]), status(r["target"]))
print(eval(sys.argv[2]))
EOF
	if command -v jq >/dev/null; then
		jq -e 'has("report") and has("outcome") and has("denials")' "$1" >/dev/null
	fi
}

# Each outcome, a report with every field: the status the caller sees,
# the target's, and (for a refusal by a step) its fatal line.
t_outcomes() {
	local mode=$1
	need "$mode"
	run -3 sx "$mode" --report "$R/1.json" -p "$TMP/p.json" -- sh -c 'touch '"$W"'/ran; exit 3'
	[ -e "$W/ran" ]
	run -0 report "$R/1.json" 'r["policy"]["id"], r["walls"]["FS"], r["fatal"]'
	[ "$output" = $'exited exit:3 exit:3\n(\'report\', \'landlock\', None)' ]

	run -143 sx "$mode" --report "$R/2.json" -p "$TMP/p.json" -- sh -c 'kill -TERM $$'
	run -0 report "$R/2.json"
	[ "${lines[0]}" = "signaled signal:15 signal:15" ]

	run -124 sx "$mode" --report "$R/3.json" --timeout 1 --kill-after 1 -p "$TMP/p.json" -- \
		sh -c "trap '' TERM; exec sleep 1000"
	run -0 report "$R/3.json" 'r["timeout"]'
	[ "$output" = $'timed_out exit:124 signal:9\n{\'after_s\': 1, \'kill_after_s\': 1}' ]

	# refused before the supervisor exists: the front end's report
	rm -f "$W/ran"
	run -125 sx "$mode" --report "$R/4.json" -p "$TMP/p.json" \
		-H sha256:0000000000000000000000000000000000000000000000000000000000000000 -- touch "$W/ran"
	[ ! -e "$W/ran" ]
	run -0 report "$R/4.json" 'r["memory"], r["wall_s"], r["walls"], "policy hash is sha256:" in r["fatal"]'
	[ "$output" = $'refused exit:125 null\n(None, None, None, True)' ]

	# a step's refusal: the view's of a directory on descriptor 0
	run -126 sx "$mode" --report "$R/5.json" -p "$TMP/p.json" -- touch "$W/ran" 0<"$TMP"
	[ ! -e "$W/ran" ]
	run -0 report "$R/5.json" 'r["fatal"]'
	[ "$output" = $'could_not_confine exit:126 null\nsharness-exec-view: fatal: refused: descriptor 0 is an open directory, a way out of the view' ]

	run -127 sx "$mode" --report "$R/6.json" -p "$TMP/p.json" -- /nonexistent/cmd
	run -0 report "$R/6.json" 'r["fatal"].startswith("sharness-exec-landlock: fatal: unable to execute")'
	[ "$output" = $'not_found exit:127 null\nTrue' ]
}

@test "root: a valid report with every field for each outcome" { t_outcomes root; }

# --explain's denials are in the report, as its lines on stderr say them;
# a path that is not UTF-8 leaves the report valid JSON.
t_denials() {
	local mode=$1
	need "$mode"
	mkdir "$TMP/hidden"
	echo secret >"$TMP/hidden/f"
	chmod 755 "$TMP/hidden"
	chmod 644 "$TMP/hidden/f"
	run -0 as "$mode" cat "$TMP/hidden/f"
	run -0 --separate-stderr sx "$mode" --explain --report "$R/d.json" -p "$TMP/p.json" -- \
		sh -c 'cat "$1" "$2" 2>/dev/null; exit 0' sh "$TMP/hidden/f" $'/nonexistent-\xff'
	[[ $output != *secret* ]]
	[[ $stderr == *"explain: read $TMP/hidden/f: ENOENT"*"hidden by the policy"* ]]
	run -0 report "$R/d.json" 'ascii([(d["kind"], d["what"], d["errno"], d["status"], d["count"], d["allow"]) for d in r["denials"]])'
	[ "${lines[0]}" = "exited exit:0 exit:0" ]
	[ "${lines[1]}" = "[('read', '$TMP/hidden/f', 'ENOENT', 'hidden by the policy', 1, {'files': {'read': ['$TMP/hidden']}}), ('read', '/nonexistent-\ufffd', 'ENOENT', 'absent', 1, None)]" ]
	# without --explain, null
	run -0 sx "$mode" --report "$R/n.json" -p "$TMP/p.json" -- true
	run -0 report "$R/n.json" 'r["denials"]'
	[ "${lines[1]}" = None ]
}

@test "root: --explain's denials are in the report" { t_denials root; }
@test "nobody: --explain's denials are in the report" { t_denials nobody; }
@test "nobody: a valid report with every field for each outcome" { t_outcomes nobody; }

# The target's own 124, 126 and 127, and its forged fatal line on stderr,
# are the target's: "exited", with its status.
t_own_status() {
	local mode=$1 code
	need "$mode"
	for code in 124 125 126 127; do
		run -"$code" sx "$mode" --report "$R/$code.json" -p "$TMP/p.json" -- \
			sh -c 'echo "sharness-exec-view: fatal: forged" >&2; exit '"$code"
		run -0 report "$R/$code.json" 'r["fatal"]'
		[ "$output" = "exited exit:$code exit:$code"$'\nNone' ]
	done
	# and the view's 126 and landlock's 127 are not (above: could_not_confine, not_found)
}

@test "root: a target exiting 124, 125, 126 or 127 itself is told from a timeout and a step's refusal" { t_own_status root; }
@test "nobody: a target exiting 124, 125, 126 or 127 itself is told from a timeout and a step's refusal" { t_own_status nobody; }

# The 512 MiB really allocated (written), as in tests/timeout.bats; and
# $FORKS (helpers/load.bash).
ALLOC="b = b'x' * (512 << 20)"

@test "root: memory and pids cap hits are in the report, from the cgroup's counters" {
	need root
	require_feature cgroup1
	chain_policy report '"none"' '"/etc","/proc"' '"/dev/null"' '' ',"max_memory_mb":64,"max_pids":8'
	# bare, both work
	run -0 python3 -c "$ALLOC"
	run -0 python3 -c "$FORKS"
	[ "$output" = 0 ]
	run -137 sx root --report "$R/m.json" -p "$TMP/p.json" -- python3 -c "$ALLOC"
	run -0 report "$R/m.json" 'r["memory"]["oom_kills"] >= 1, r["memory"]["cap_bytes"], r["memory"]["source"], r["memory"]["peak_bytes"] > 32 << 20'
	[ "$output" = $'signaled signal:9 signal:9\n(True, 67108864, \'memory.max_usage_in_bytes\', True)' ]
	# (python, the landlock step's setgid server and 6 children: 6 refused)
	run -0 --separate-stderr sx root --report "$R/p8.json" -p "$TMP/p.json" -- python3 -c "$FORKS"
	[ "$output" = 6 ]
	run -0 report "$R/p8.json" 'r["pids"], r["memory"]["oom_kills"], r["cpu"]["source"], r["cpu"]["cap_percent"]'
	[ "$output" = $'exited exit:0 exit:0\n({\'cap\': 8, \'refused_forks\': 6}, 0, \'rusage\', None)' ]
}

@test "nobody (rlimits, no cgroup): pids is null, memory comes from rusage with no counter" {
	need nobody
	chain_policy report '"none"' '"/etc","/proc"' '"/dev/null"' '' ',"max_memory_mb":64'
	run -0 sx nobody --report "$R/r.json" -p "$TMP/p.json" -- python3 -c "b = b'x' * (8 << 20)"
	run -0 report "$R/r.json" 'r["pids"], r["memory"]["source"], r["memory"]["oom_kills"], r["memory"]["cap_bytes"], r["memory"]["peak_bytes"] >= 8 << 20'
	[ "$output" = $'exited exit:0 exit:0\n(None, \'rusage\', None, 67108864, True)' ]
}

@test "root under --best-effort without namespaces: dropped names the rights no wall held" {
	need root
	run -0 sx root --report "$R/s.json" -p "$TMP/p.json" -- true
	run -0 report "$R/s.json" 'r["dropped"], r["walls"]["NETWORK"]'
	[ "${lines[1]}" = "([], 'netns')" ]
	run -0 "$DENY" "$SHARNESS_EXEC" run --best-effort --report "$R/b.json" -p "$TMP/p.json" -- true
	run -0 report "$R/b.json" '"FS_METADATA" in r["dropped"], r["walls"]["FS_METADATA"], r["walls"]["NETWORK"], any("no network namespace" in w for w in r["warnings"])'
	[ "${lines[1]}" = "(True, None, 'seccomp', True)" ]
}

# A planted symlink at FILE, or in its directory, is not followed; an
# existing FILE of another user's is refused; nothing runs either way.
t_planted() {
	local mode=$1 d=$TMP/d
	need "$mode"
	mkdir -p "$d/real" "$d/other"
	chmod 1777 "$d/real" "$d/other"
	# bare: a report through a symlink that the target's uid could not
	# have planted (root's, in a directory it cannot write: nobody's
	# runs); for root, every root-owned directory but / counts as
	# writable (policy(5)), so root's own link is refused
	chmod 755 "$d"
	ln -s real "$d/mine"
	if [ "$mode" = nobody ]; then
		run -0 sx "$mode" --report "$d/mine/r.json" -p "$TMP/p.json" -- true
		[ -s "$d/real/r.json" ]
	else
		run -125 --separate-stderr sx "$mode" --report "$d/mine/r.json" -p "$TMP/p.json" -- true
		[[ $stderr == *"an earlier run as uid 0 could have planted it"* ]]
		[ ! -e "$d/real/r.json" ]
	fi
	chmod 1777 "$d"
	# a symlink at FILE: refused, never followed
	ln -s "$d/other/planted.json" "$d/real/link.json"
	run -125 --separate-stderr sx "$mode" --report "$d/real/link.json" -p "$TMP/p.json" -- touch "$W/ran"
	[[ $stderr == *'fatal: refused: --report "'"$d"'/real/link.json" is a symlink: a report replaces only a regular file of the caller'"'s" ]]
	[ ! -e "$d/other/planted.json" ]
	# a symlink in its directory that another user planted
	ln -s other "$d/theirs"
	chown -h 1000:1000 "$d/theirs"
	run -125 --separate-stderr sx "$mode" --report "$d/theirs/r.json" -p "$TMP/p.json" -- touch "$W/ran"
	[[ $stderr == *"fatal: refused: --report \"$d/theirs/r.json\": symlink \"$d/theirs\" is owned by uid 1000"* ]]
	[ -z "$(ls -A "$d/other")" ]
	# another user's FILE, kept as it was
	echo keep >"$d/real/old.json"
	chown 1000:1000 "$d/real/old.json"
	run -125 sx "$mode" --report "$d/real/old.json" -p "$TMP/p.json" -- touch "$W/ran"
	[ "$(cat "$d/real/old.json")" = keep ]
	[ ! -e "$W/ran" ]
	# a dry run makes nothing, and refuses the same
	run -0 sx "$mode" --dry-run --report "$d/real/dry.json" -p "$TMP/p.json" -- true
	[ ! -e "$d/real/dry.json" ]
	run -125 sx "$mode" --dry-run --report "$d/real/old.json" -p "$TMP/p.json" -- true
}

@test "root: a symlink planted at FILE or in its directory is not followed, another user's FILE is refused" { t_planted root; }
@test "nobody: a symlink planted at FILE or in its directory is not followed, another user's FILE is refused" { t_planted nobody; }

# fd:N: the report on an inherited descriptor, which only the supervisor
# holds: the target has the descriptors it has without --report.
t_fd() {
	local mode=$1 bare
	need "$mode"
	local fds='import os; print(sorted(os.listdir("/proc/self/fd")))'
	bare=$(sx "$mode" -p "$TMP/p.json" -- python3 -c "$fds" 2>/dev/null)
	run -0 --separate-stderr sx "$mode" --report fd:3 -p "$TMP/p.json" -- python3 -c "$fds" 3>"$R/fd.json"
	[ "$output" = "$bare" ]
	run -0 report "$R/fd.json"
	[ "${lines[0]}" = "exited exit:0 exit:0" ]
	run -0 --separate-stderr sx "$mode" --report "$R/file.json" -p "$TMP/p.json" -- python3 -c "$fds"
	[ "$output" = "$bare" ]
	# the report lands on a pipe too
	local out
	out=$(as "$mode" "$SHARNESS_EXEC" run --report fd:3 -p "$TMP/p.json" -- \
		sh -c 'echo not the report' 3>&1 >/dev/null 2>/dev/null)
	[[ $out == '{"report":1,'*'"denials":null,"write_paths":['*']}' ]]
	# not open, not writable, or 0-2: a usage error
	run -125 sx "$mode" --report fd:9 -p "$TMP/p.json" -- true
	run -125 sx "$mode" --report fd:3 -p "$TMP/p.json" -- true 3</dev/null
	run -125 sx "$mode" --report fd:1 -p "$TMP/p.json" -- true
	run -125 sx "$mode" --report fd:x -p "$TMP/p.json" -- true
}

@test "root: --report fd:N writes to an inherited descriptor, which the target does not hold" { t_fd root; }
@test "nobody: --report fd:N writes to an inherited descriptor, which the target does not hold" { t_fd nobody; }

@test "--dry-run shows the report's descriptor on the supervise step alone, the status pipe on every step; without --report, neither" {
	need root
	run -0 --separate-stderr "$SHARNESS_EXEC" run --dry-run -p "$TMP/p.json" -- true
	! grep -qE -- ' -[EOR] [0-9]' <<<"$output"
	run -0 --separate-stderr "$SHARNESS_EXEC" run --dry-run --report "$R/r.json" -p "$TMP/p.json" -- true
	[ "$(grep -c -- ' -E [0-9]' <<<"$output")" = 4 ]
	[ "$(grep -c -- ' -O [0-9]' <<<"$output")" = 1 ]
	grep -q -- '^[^ ]*/sharness-exec-supervise -E [0-9]* -W [0-9]* -O [0-9]* --report-path '"$R"'/r.json --status-in [0-9]* --policy-id report --policy-hash sha256:' <<<"$output"
	[ ! -e "$R/r.json" ]
}

@test "a signed policy: the report names its key; a bad signature is refused in the report, with the policy" {
	need root
	mkdir -p "$TMP/keys"
	run -0 --separate-stderr "$SHARNESS_EXEC" keygen -o "$TMP/keys/k"
	local fp=$output
	run -0 --separate-stderr "$SHARNESS_EXEC" sign -k "$TMP/keys/k.key" "$TMP/p.json"
	run -0 sx root --report "$R/k.json" --trust-key "$TMP/keys/k.pub" -p "$TMP/p.json" -- true
	run -0 report "$R/k.json" 'r["policy"]["key"] == "'"$fp"'", r["policy"]["hash"] == "'"$("$SHARNESS_EXEC" hash "$TMP/p.json")"'"'
	[ "$output" = $'exited exit:0 exit:0\n(True, True)' ]
	# another key: refused before anything runs, the policy read
	run -0 --separate-stderr "$SHARNESS_EXEC" keygen -o "$TMP/keys/other"
	run -125 sx root --report "$R/o.json" --trust-key "$TMP/keys/other.pub" -p "$TMP/p.json" -- touch "$W/ran"
	[ ! -e "$W/ran" ]
	run -0 report "$R/o.json" 'r["policy"]["id"], r["policy"]["key"], r["fatal"] is not None'
	[ "$output" = $'refused exit:125 null\n(\'report\', None, True)' ]
}
