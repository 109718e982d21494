#!/usr/bin/env bats
# The dry run is the truth (issue 39): every argv that a real run execs
# is the one `run --dry-run` prints, line for line, whatever steps the
# chain holds (netns, supervise, the optional ones, view, landlock, the
# target), for a default run, one with caps (memory, pids and CPU), one
# with --user, one with --explain and one in the object form of the
# network policy; as root, and the default run as nobody too. Nothing is
# normalised: the descriptor numbers in the words (the environment, the
# walls record, the cgroup's) are fixed by the front end, the same in
# both. No value appears twice in the chain: a cap is the limits step's
# word alone (supervise reads it there), and so is each of the cgroup's
# descriptors; the caps run's target really is in the cgroups made for
# it, and holds none of their descriptors.
#
# The execs are recorded by strace -f (execve, -s 4096); --explain's own
# steps trace the run, and a process has one tracer, so that run is
# recorded without ptrace by tests/try/execlog (a seccomp filter that
# sends each execve to it, which reads the argv and lets the call go on;
# it cannot watch the object form, whose listen guard needs the one
# listener a filter chain may have).
# not tested: --report and the session options (their descriptors are
# the caller's or the front end's, fixed the same way).
load ../helpers/load

setup() {
	setup_tmp
}

teardown() {
	teardown_tmp
}

# chain_lines DRY EXECS: the exec'd chain, one step a line as the dry run
# DRY prints it, against DRY. EXECS holds the successful execve calls of
# the run, one a line: strace's ("execve(PATH, [WORDS], ...) = 0") or
# execlog's (a JSON array). The front end's own is left out; each later
# step's argv is the tail of the one before (each step execs the next
# with the words after its own "--"), so each line is what an argv holds
# beyond the next one's; the target's exec is the last (its own children
# are not the chain's). Prints both on a difference.
chain_lines() {
	python3 - "$@" <<'PY'
import codecs, json, re, shlex, sys
dry = [shlex.split(l) for l in open(sys.argv[1]).read().splitlines()]
head = re.compile(r'^(\d+) +(.*)$')
call = re.compile(r'^execve\("(?:[^"\\]|\\.)*", \[((?:"(?:[^"\\]|\\.)*"(?:, )?)*)\], .*\) = 0$')
word = re.compile(r'"((?:[^"\\]|\\.)*)"')
unq = lambda s: codecs.decode(s, 'unicode_escape')
execs, pending = [], {}
for l in open(sys.argv[2]).read().splitlines():
    if l.startswith('['):             # execlog's
        execs.append(json.loads(l))
        continue
    m = head.match(l)                 # strace -f -o's: PID, then the call
    pid, l = (m.group(1), m.group(2)) if m else (None, l)
    if l.endswith('<unfinished ...>'):
        pending[pid] = l[:-len(' <unfinished ...>')]
        continue
    if l.startswith('<... execve resumed>'):
        l = pending.pop(pid, '') + l[len('<... execve resumed>'):]
    m = call.match(l)
    if m:
        execs.append([unq(w) for w in word.findall(m.group(1))])
assert len(execs) > 1 and execs[0][1] == 'run', ('the front end first', execs[:1])
got = [execs[1]]
for v in execs[2:]:
    prev = got[-1]
    if not (len(v) < len(prev) and prev[len(prev) - len(v):] == v):
        break
    got.append(v)
lines = [a[:len(a) - len(b)] for a, b in zip(got, got[1:])] + got[-1:]
for n in range(max(len(dry), len(lines))):
    w = dry[n] if n < len(dry) else None
    g = lines[n] if n < len(lines) else None
    print('%s %d: %s' % ('same' if w == g else 'DIFFERS', n, ' '.join(map(shlex.quote, g or []))))
    if w != g:
        print('  dry run: %s' % ' '.join(map(shlex.quote, w or [])))
assert dry == lines, 'the exec\'d chain is not the dry run'
print('%d lines, the same' % len(dry))
PY
}

# once DRY WORD...: each WORD appears once in the steps' lines of the dry
# run DRY (the target's line left out), as an option's value.
once() {
	local dry=$1 w n
	shift
	for w in "$@"; do
		n=$(head -n -1 "$dry" | tr ' ' '\n' | grep -cx -- "$w" || true)
		echo "$w: $n"
		[ "$n" = 1 ]
	done
}

# truth MODE OUT RUN-OPTION... -- COMMAND...: the dry run of `run
# RUN-OPTION... -p $TMP/p.json -- COMMAND` into $TMP/rec/OUT.dry, then the run
# itself, as MODE (root or nobody), its execs recorded by strace -f (or by
# execlog under --explain) into OUT.execs, its stdout in OUT.out; and the
# two chains compared.
truth() {
	local mode=$1 out=$TMP/rec/$2 as=() rec
	shift 2
	local opts=() cmd=()
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	cmd=("$@")
	[ "$mode" = nobody ] && as=(as_nobody)
	run -0 --separate-stderr "${as[@]}" "$SHARNESS_EXEC" run --dry-run "${opts[@]}" -p "$TMP/p.json" -- "${cmd[@]}"
	printf '%s\n' "${lines[@]}" >"$out.dry"
	! grep -q '@' "$out.dry"
	if [[ " ${opts[*]} " == *" --explain "* ]]; then
		rec=("$TRYDIR/execlog" "$out.execs")
	else
		rec=(strace -f -v -s 4096 -e trace=execve -o "$out.execs")
	fi
	run -0 --separate-stderr "${as[@]}" "${rec[@]}" "$SHARNESS_EXEC" run "${opts[@]}" -p "$TMP/p.json" -- "${cmd[@]}"
	printf '%s\n' "$output" >"$out.out"
	run -0 chain_lines "$out.dry" "$out.execs"
	echo "$output"
}

policy() { # PROCESS-EXTRA NETWORK
	write_policy "$TMP/p.json" '{"pbp":1,"id":"drytruth","files":{"read":["/etc","/proc"],"exec":["/usr","/bin","/lib","/lib64"],"write":["'"$TMP"'/w"]},"network":'"${2:-\"none\"}"',"process":{"no_new_privs":true'"$1"'}}'
	mkdir -p -m 777 "$TMP/w" "$TMP/rec"
}

@test "a default run (root): every exec'd argv is the dry run's, line for line" {
	need root
	require_feature tool:strace
	require_feature tool:python3
	policy ''
	truth root d -- /bin/echo a 'b c'
	[ "$(cat "$TMP/rec/d.out")" = "a b c" ]
	# the comparison sees one word that differs, and a step left out
	sed -i '1s/ -W 4 / -W 5 /' "$TMP/rec/d.dry"
	run -1 chain_lines "$TMP/rec/d.dry" "$TMP/rec/d.execs"
	sed -i '1s/ -W 5 / -W 4 /;2d' "$TMP/rec/d.dry"
	run -1 chain_lines "$TMP/rec/d.dry" "$TMP/rec/d.execs"
}

@test "a default run (nobody): every exec'd argv is the dry run's, line for line" {
	need nobody
	require_feature tool:strace
	require_feature tool:python3
	cd /
	policy ''
	truth nobody d -- /bin/echo a 'b c'
	[ "$(cat "$TMP/rec/d.out")" = "a b c" ]
}

@test "caps (memory, pids, CPU): the dry run is what runs, each cap and cgroup descriptor once, and the target is in the cgroups" {
	need root
	require_feature cgroup1
	require_feature tool:strace
	require_feature tool:python3
	policy ',"max_memory_mb":321,"max_pids":77,"max_cpu_percent":93'
	truth root c -- /bin/sh -c 'cat /proc/self/cgroup; ls /proc/self/fd'
	cat "$TMP/rec/c.dry"
	# the caps and the cgroup's descriptors, once each, in the limits step
	once "$TMP/rec/c.dry" 321 77 93 5:6 7:8 9:10
	grep -q -- '/sharness-exec-limits -W 4 -g 5:6 -g 7:8 -g 9:10 -m 321 -p 77 -u 93 --$' "$TMP/rec/c.dry"
	grep -q -- '/sharness-exec-supervise -W 4 --$' "$TMP/rec/c.dry"
	# a run of its own in each hierarchy, and no descriptor of them left
	grep -q '^[0-9]*:memory:.*/sharness-exec\.[0-9]*$' "$TMP/rec/c.out"
	grep -q '^[0-9]*:pids:.*/sharness-exec\.[0-9]*$' "$TMP/rec/c.out"
	grep -q '^[0-9]*:cpu,cpuacct:.*/sharness-exec\.[0-9]*$\|^[0-9]*:cpu:.*/sharness-exec\.[0-9]*$' "$TMP/rec/c.out"
	[ "$(grep -cx '[0-9]*' "$TMP/rec/c.out")" = 4 ] # 0 1 2 and ls's own
}

@test "--user: the dry run is what runs, the caps' descriptors included" {
	need root
	require_feature nobody
	require_feature tool:strace
	require_feature tool:python3
	policy ',"max_memory_mb":64'
	truth root u --user 65534:65534 -- /usr/bin/id -u
	[ "$(cat "$TMP/rec/u.out")" = 65534 ]
	grep -q -- '/sharness-exec-landlock .* --user 65534:65534 ' "$TMP/rec/u.dry"
	once "$TMP/rec/u.dry" 64 5:6
}

@test "--explain: the dry run is what runs (recorded without ptrace, which the run uses)" {
	need root
	require_feature tool:python3
	policy ',"max_pids":50'
	truth root x --explain -- /bin/echo a
	[ "$(cat "$TMP/rec/x.out")" = a ]
	once "$TMP/rec/x.dry" 50 5:6
	# execlog sees a word that differs
	sed -i '1s/ -W 4 / -W 5 /' "$TMP/rec/x.dry"
	run -1 chain_lines "$TMP/rec/x.dry" "$TMP/rec/x.execs"
}

@test "the object form: the dry run is what runs" {
	need root
	require_feature tool:strace
	require_feature tool:python3
	policy ',"max_memory_mb":64' '{"connect_tcp_ports":[80]}'
	truth root o -- /bin/echo a
	[ "$(cat "$TMP/rec/o.out")" = a ]
	grep -q -- '/sharness-exec-landlock .* -H .* -c 80 ' "$TMP/rec/o.dry"
}

@test "supervise reads the limits step's words, never the target's: a target that is itself sharness-exec-limits -g gets no cgroup" {
	need root
	require_feature cgroup1
	write_policy "$TMP/p.json" '{"pbp":1,"id":"drytruth","files":{"exec":["/usr","/bin","/lib","/lib64","'"$HELPERDIR"'"]},"network":"none","process":{"no_new_privs":true}}'
	run -0 --separate-stderr "$SHARNESS_EXEC" run --dry-run -p "$TMP/p.json" -- "$LIMITS" -t -q -g 5:6 -m 64 -- /bin/true
	! grep -q '^[^ ]*/sharness-exec-limits -W' <<<"$output"
	# run, its descriptors 5 and 6 are closed: rlimits, no cgroup
	run -0 --separate-stderr "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$LIMITS" -t -q -g 5:6 -m 64 -- /bin/true
	[ "$output" = "sharness-exec-limits: memory=RLIMIT_AS memory_mib=64 pids=none pids_max=0" ]
	# by hand, with a cgroup at 5 and 6, the same words cap it: the test
	# sees a cgroup handed over
	local mem dir
	mem=$(awk -F: '$2 == "memory" { print $3 }' /proc/self/cgroup)
	dir=/sys/fs/cgroup/memory${mem%/}/drytruth-$$
	mkdir "$dir"
	run -0 --separate-stderr "$LIMITS" -t -q -g 5:6 -m 64 -- /bin/true 5<"$dir" 6>"$dir/tasks"
	rmdir "$dir"
	[ "$output" = "sharness-exec-limits: memory=$dir memory_mib=64 pids=none pids_max=0" ]
}
