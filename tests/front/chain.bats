#!/usr/bin/env bats
# The chain the front end compiles from a policy: `run --dry-run` output
# compared with golden files (tests/golden/NAME.json -> NAME.chain, where
# @HELPERDIR@ stands for the build tree's helper directory).
# not tested: nothing; dry-run needs no kernel feature.
load ../helpers/load

golden() {
	local name=$1
	shift
	cp "$top_srcdir/tests/golden/$name.json" "$TMP/p.json"
	chmod 644 "$TMP/p.json"
	run -0 --separate-stderr "$SHARNESS_EXEC" run --dry-run "$@" --policy "$TMP/p.json" -- make check
	sed "s|@HELPERDIR@|$HELPERDIR|g" "$top_srcdir/tests/golden/$name.chain" >"$TMP/want"
	printf '%s\n' "$output" >"$TMP/got"
	diff -u "$TMP/want" "$TMP/got"
	[ -z "$stderr" ]
}

@test "the DESIGN.md example compiles to its steps in the fixed order" {
	golden design-example
}

@test "a port-list network keeps the host's network (netns -H), and landlock must restrict TCP" {
	golden ports-no-caps
}

@test "a policy without caps has no limits step, and a supervise step all the same" {
	golden minimal
}

@test "paths are normalised and quoted for the shell; pids alone make a limits step" {
	golden pids-only-odd-paths
}

@test "files.protected reaches the view step only (-p), after the other lists" {
	golden protected
}

@test "files.tmpfs reaches the view (-m, -M half of max_memory_mb) and the landlock step (-T), which always gets -R" {
	golden tmpfs
}

@test "--best-effort reaches the supervise, limits (memory cap: TCP buffers), view and landlock steps and nothing else" {
	write_policy "$TMP/p.json" '{"pbp":1,"id":"x","network":"none","process":{"no_new_privs":true,"max_memory_mb":64}}'
	run -0 --separate-stderr "$SHARNESS_EXEC" run --best-effort --dry-run -p "$TMP/p.json" -- true
	[ "${lines[0]}" = "$HELPERDIR/sharness-exec-netns -W 4 --" ]
	[ "${lines[1]}" = "$HELPERDIR/sharness-exec-supervise -W 4 -b --" ]
	[ "${lines[2]}" = "$HELPERDIR/sharness-exec-limits -W 4 -g 5:6 -m 64 -b --" ]
	[ "${lines[3]}" = "$HELPERDIR/sharness-exec-view -W 4 -b --" ]
	[ "${lines[4]}" = "$HELPERDIR/sharness-exec-landlock -e 3 -W 4 -b -R --" ]
	[ "${lines[5]}" = "true" ]
	[ "${#lines[@]}" = 6 ]
	# a pids cap alone: limits has nothing to be best effort about
	write_policy "$TMP/p.json" '{"pbp":1,"id":"x","network":"none","process":{"no_new_privs":true,"max_pids":9}}'
	run -0 --separate-stderr "$SHARNESS_EXEC" run --best-effort --dry-run -p "$TMP/p.json" -- true
	[ "${lines[2]}" = "$HELPERDIR/sharness-exec-limits -W 4 -g 5:6 -p 9 --" ]
}

@test "the target's words are printed quoted, the last line of the chain" {
	write_policy "$TMP/p.json" '{"pbp":1,"id":"x","network":"none","process":{"no_new_privs":true}}'
	run -0 --separate-stderr "$SHARNESS_EXEC" run -n -p "$TMP/p.json" -- sh -c 'echo "$HOME" it'\''s' -- -x
	[ "${lines[-1]}" = "sh -c 'echo \"\$HOME\" it'\\''s' -- -x" ]
}

@test "the dry-run view is the argv that really runs" {
	require_feature landlock
	write_policy "$TMP/p.json" '{"pbp":1,"id":"x","files":{"exec":["/usr","/bin","/lib","/lib64"]},"network":"none","process":{"no_new_privs":true}}'
	run -0 --separate-stderr "$SHARNESS_EXEC" run -n -p "$TMP/p.json" -- /bin/echo a 'b c'
	chain=$(printf '%s\n' "${lines[@]}" | head -n -1 | tr '\n' ' ')
	# -e 3 is the sealed memfd of the target's environment, and -W 4 the
	# walls record (rights.h), which only the front end makes: by hand the
	# target keeps the shell's environment, and each step stands alone.
	[[ "$chain" == *"/sharness-exec-landlock -e 3 -W 4 "* ]]
	chain=${chain/" -e 3 "/" "}
	chain=${chain//" -W 4 "/" "}
	# Run the printed chain by hand, as an auditor would.
	run -0 --separate-stderr sh -c "$chain /bin/echo a 'b c'"
	[ "$output" = "a b c" ]
}

# strace_matches DRY STRACE...: each step of the dry run DRY (one a line,
# the target's words last) was exec'd with exactly the words the dry run
# shows, its own and those of the steps after it, as the strace -ff files
# STRACE... record each execve (no step rewrites another's words: the
# cgroup reaches the limits step at the descriptors of its -g).
strace_matches() {
	python3 - "$@" <<'PY'
import codecs, re, shlex, sys
dry = [shlex.split(l) for l in open(sys.argv[1]).read().splitlines()]
call = re.compile(r'^execve\("((?:[^"\\]|\\.)*)", \[((?:"(?:[^"\\]|\\.)*"(?:, )?)*)\], .*\) = 0$')
word = re.compile(r'"((?:[^"\\]|\\.)*)"')
unq = lambda s: codecs.decode(s, 'unicode_escape')
execs = {}
for f in sys.argv[2:]:
    for line in open(f):
        m = call.match(line.rstrip('\n'))
        if m:
            execs.setdefault(unq(m.group(1)), []).append([unq(w) for w in word.findall(m.group(2))])
def match(want, got):
    j = 0
    for w in want:
        assert got[j:j + 1] == [w], (w, got[j:j + 3])
        j += 1
    assert j == len(got), ('more words ran', got[j:])
for i, step in enumerate(dry):
    want = sum(dry[i:], [])
    got = execs.get(step[0], [])
    assert len(got) == 1, (step[0], 'exec\'d %d times' % len(got))
    match(want, got[0])
    print('ran as shown:', step[0], len(got[0]), 'words')
PY
}

# forks_match VERBOSE NOPIDNS STRACE...: the processes the run forked, as
# the strace -ff files STRACE... record each fork, vfork, clone and clone3
# (with --decode-pids=pidns: a pid inside the run's pid namespace is also
# given as strace sees it) are the "fork:" lines of --dry-run --verbose's
# stderr VERBOSE, "CHILD, by PARENT", each once; one "(only without a pid
# namespace)" is expected only when NOPIDNS is 1. A process is named by the
# last program it executed, or, before it executes one, by what it is to
# its parent: supervise's child that forks is init, the other the watcher;
# init's child is init's child; the listen step's the listen guard, whose
# child is the listen guard's child; the landlock step's the setgid server,
# whose child is the setgid server's child, expected "not with a pid
# namespace but no mount namespace", so here always (with both, or where
# NOPIDNS is 1 with neither: unshare(2) refused); the front end's the
# socket scan. And init's child executes the step its line names.
forks_match() {
	python3 - "$@" <<'PY'
import os, re, sys
line = re.compile(r'^sharness-exec: fork(?: \((.*)\))?: (.*?), by (.*?): (.*)$')
want, execs_next = [], None
for l in open(sys.argv[1]).read().splitlines():
    m = line.match(l)
    if not m:
        continue
    cond, child, parent, what = m.groups()
    assert cond in (None, 'only without a pid namespace',
                    'not with a pid namespace but no mount namespace'), cond
    if cond == 'only without a pid namespace' and sys.argv[2] != '1':
        continue
    want.append(child + ', by ' + parent)
    if child == "init's child":
        execs_next = re.match(r'execs (\S+),', what).group(1)
fork = re.compile(r'^(?:fork|vfork|clone|clone3)\(.*\)\s+= (\d+)(?: /\* (\d+) in strace\'s PID NS \*/)?$')
execve = re.compile(r'^execve\("((?:[^"\\]|\\.)*)", .*\)\s+= 0$')
events = {}
for f in sys.argv[3:]:
    ev = events.setdefault(int(f.rsplit('.', 1)[1]), [])
    for l in open(f):
        l = l.rstrip('\n')
        if (m := fork.match(l)):
            ev.append(('fork', int(m.group(2) or m.group(1))))
        elif (m := execve.match(l)):
            ev.append(('exec', os.path.basename(m.group(1))))
children = {c for ev in events.values() for k, c in ev if k == 'fork'}
root, = [p for p in events if p not in children]
got, first_exec = [], {}
def walk(pid, name):
    for kind, x in events[pid]:
        if kind == 'exec':
            name = x
            continue
        forks = any(k == 'fork' for k, _ in events[x])
        role = {'sharness-exec-supervise': 'init' if forks else 'the watcher',
                'init': "init's child", 'sharness-exec-listen': 'the listen guard',
                'the listen guard': "the listen guard's child",
                'sharness-exec-landlock': 'the setgid server',
                'the setgid server': "the setgid server's child",
                'test-sharness-exec': 'the socket scan'}.get(name, 'a child of ' + name)
        got.append(role + ', by ' + name.replace('test-sharness-exec', 'sharness-exec'))
        first_exec[role] = next((y for k, y in events[x] if k == 'exec'), None)
        walk(x, role)
walk(root, None)
print('forked:', *got, sep='\n  ')
assert sorted(got) == sorted(want), ('--verbose names', want)
assert first_exec.get("init's child") == execs_next, (first_exec, execs_next)
PY
}

@test "--dry-run is what runs: every step's execve and every fork as strace -f records them, caps and the object form included" {
	require_feature landlock
	require_feature tool:strace
	require_feature tool:python3
	write_policy "$TMP/p.json" '{"pbp":1,"id":"x","files":{"read":["'"$TMP"'"],"exec":["/usr","/bin","/lib","/lib64"]},"network":{"connect_tcp_ports":[80]},"process":{"no_new_privs":true,"max_memory_mb":256,"max_pids":64}}'
	cd "$TMP"
	run -0 --separate-stderr "$SHARNESS_EXEC" run -n -v -p "$TMP/p.json" -- /bin/echo a 'b c'
	printf '%s\n' "${lines[@]}" >"$TMP/dry"
	printf '%s\n' "${stderr_lines[@]}" >"$TMP/verbose"
	[[ ${lines[2]} == */sharness-exec-limits" -W 4 -g 5:6 -g 7:8 -m 256 -p 64 --" ]]
	[[ ${lines[4]} == */sharness-exec-listen" -W 4 --" ]]
	[[ ${lines[5]} == */sharness-exec-landlock" "*" -H "*" -c 80 "* ]]
	run -0 --separate-stderr strace -f -ff -v -s 65536 --decode-pids=pidns \
		-e trace=execve,fork,vfork,clone,clone3 -o "$TMP/st" \
		"$SHARNESS_EXEC" run -v -p "$TMP/p.json" -- /bin/echo a 'b c'
	[ "$output" = "a b c" ]
	run -0 strace_matches "$TMP/dry" "$TMP"/st.*
	echo "$output"
	[ "${#lines[@]}" = 7 ]
	run -0 forks_match "$TMP/verbose" 0 "$TMP"/st.*
	echo "$output"
	[ "${#lines[@]}" = 6 ]
	# The comparisons see a word that differs, and a fork not named.
	sed -i '3s/ -m 256 / -m 255 /' "$TMP/dry"
	run -1 strace_matches "$TMP/dry" "$TMP"/st.*
	sed -i '/the listen guard.s child/d' "$TMP/verbose"
	run -1 forks_match "$TMP/verbose" 0 "$TMP"/st.*
}

@test "--dry-run --verbose: without caps the watcher is forked only where no pid namespace can be made, as strace -f records it" {
	require_feature landlock
	require_feature tool:strace
	require_feature tool:python3
	write_policy "$TMP/p.json" '{"pbp":1,"id":"x","files":{"exec":["/usr","/bin","/lib","/lib64"]},"network":"none","process":{"no_new_privs":true}}'
	cd "$TMP"
	run -0 --separate-stderr "$SHARNESS_EXEC" run -b -n -v -p "$TMP/p.json" -- /bin/true
	printf '%s\n' "${stderr_lines[@]}" >"$TMP/verbose"
	grep -q '^sharness-exec: fork (only without a pid namespace): the watcher, by sharness-exec-supervise: ' "$TMP/verbose"
	# With a pid namespace: init and its child alone.
	run -0 --separate-stderr strace -f -ff --decode-pids=pidns \
		-e trace=execve,fork,vfork,clone,clone3 -o "$TMP/st" \
		"$SHARNESS_EXEC" run -b -p "$TMP/p.json" -- /bin/true
	run -0 forks_match "$TMP/verbose" 0 "$TMP"/st.*
	[ "${#lines[@]}" = 5 ]
	# Where unshare(2) is refused: the watcher too, and the setgid
	# server with the step's own /proc.
	rm "$TMP"/st.*
	run -0 --separate-stderr "$TRYDIR/deny-unshare" strace -f -ff --decode-pids=pidns \
		-e trace=execve,fork,vfork,clone,clone3 -o "$TMP/st" \
		"$SHARNESS_EXEC" run -b -p "$TMP/p.json" -- /bin/true
	run -0 forks_match "$TMP/verbose" 1 "$TMP"/st.*
	[ "${#lines[@]}" = 6 ]
}

# Issue 27: below Landlock ABI 9, with 64 directories to read (the test
# front end's SHARNESS_EXEC_TEST_SCAN_BESIDE=1 with fewer), the front end
# forks the socket scan beside the chain, and the landlock step waits for
# it (-S): --verbose names that fork, and strace records it and no other
# of the front end's.
@test "--dry-run --verbose: the socket scan beside the chain is the front end's one fork, as strace -f records it" {
	require_feature landlock
	require_feature tool:strace
	require_feature tool:python3
	export SHARNESS_EXEC_TEST_ABI=7	# below 9 wherever this runs
	write_policy "$TMP/p.json" '{"pbp":1,"id":"x","files":{"read":["'"$TMP"'"],"exec":["/usr","/bin","/lib","/lib64"]},"network":"none","process":{"no_new_privs":true}}'
	cd "$TMP"
	run -0 --separate-stderr "$SHARNESS_EXEC" run -n -v -p "$TMP/p.json" -- /bin/true
	! grep -q 'the socket scan' <<<"$stderr"
	[[ "$output" != *" --scan "* ]]
	export SHARNESS_EXEC_TEST_SCAN_BESIDE=1
	run -0 --separate-stderr "$SHARNESS_EXEC" run -n -v -p "$TMP/p.json" -- /bin/true
	printf '%s\n' "${stderr_lines[@]}" >"$TMP/verbose"
	grep -q '^sharness-exec: fork: the socket scan, by sharness-exec: ' "$TMP/verbose"
	[[ "$output" == *"sharness-exec-landlock -e "[0-9]*" -W "[0-9]*" --scan "[0-9]* ]]
	run -0 --separate-stderr strace -f -ff --decode-pids=pidns \
		-e trace=execve,fork,vfork,clone,clone3 -o "$TMP/st" \
		"$SHARNESS_EXEC" run -p "$TMP/p.json" -- /bin/true
	run -0 forks_match "$TMP/verbose" 0 "$TMP"/st.*
	echo "$output"
	[ "${#lines[@]}" = 6 ]
	# Not named, it is a fork too many.
	sed -i '/the socket scan/d' "$TMP/verbose"
	run -1 forks_match "$TMP/verbose" 0 "$TMP"/st.*
}

@test "--verbose prints the hash and the chain on stderr, nothing on stdout" {
	write_policy "$TMP/p.json" '{"pbp":1,"id":"verbose","network":"none","process":{"no_new_privs":true}}'
	hash=$("$SHARNESS_EXEC" hash "$TMP/p.json")
	run -0 --separate-stderr "$SHARNESS_EXEC" run -v -n -p "$TMP/p.json" -- true
	[[ "$stderr" == *"policy \"verbose\" $hash (not pinned)"* ]]
	[[ "$stderr" == *"sharness-exec-landlock -e 3 -W 4 -R --"* ]]
}
