#!/usr/bin/env bats
# not tested: a kernel that lacks Landlock or has it disabled at boot (lsm=)
# (only a seccomp filter hiding it is simulated, with try/deny-landlock);
# delegated cgroup v2 controllers (this machine has cgroup v1 memory and
# pids, and v2 with neither); securityfs (/sys/kernel/security/lsm) and the
# /boot/config-RELEASE fallback; memfd_secret beyond its type (no
# independent way to call it from the shell).
load ../helpers/load

DENY_LANDLOCK="$TRYDIR/deny-landlock"
DENY_UNSHARE="$TRYDIR/deny-unshare"

setup() {
	setup_tmp
	PY=/usr/bin/python3
	[ -x "$PY" ] || PY=$(command -v python3) || PY=
	CHECK=$(reachable "$top_srcdir/tests/helpers/check-probe.py")
}

# check_json [PREFIX...]: run `probe --json` and the checker, under PREFIX
# (as_nobody, a seccomp wrapper), so that both see the same identity.
check_json() {
	require_feature tool:"${PY:-python3}"
	local abi
	abi=$("$@" "$TRY" landlock-abi) || abi=0
	mkdir -p "$TMP/out" && chmod 777 "$TMP/out"
	run -0 --separate-stderr "$@" sh -c '"$1" probe --json >"$2" && "$3" "$4" "$2" "$5"' \
		sh "$SHARNESS_EXEC" "$TMP/out/probe.json" "$PY" "$CHECK" "$abi"
	[ -z "$output" ]
}

@test "probe: usage errors exit 125 with one fatal line and the usage line" {
	local usage="usage: sharness-exec probe [--json] [--trust-key FILE]..."
	run -125 --separate-stderr "$SHARNESS_EXEC" probe --yaml
	[ "$stderr" = "sharness-exec-probe: fatal: unknown option --yaml
$usage" ]
	run -125 --separate-stderr "$SHARNESS_EXEC" probe --json extra
	[ "$stderr" = "sharness-exec-probe: fatal: unknown option extra
$usage" ]
	run -125 --separate-stderr "$SHARNESS_EXEC" probe --trust-key
	[ "$stderr" = "sharness-exec-probe: fatal: unknown option --trust-key
$usage" ]
	[ -z "$output" ]
	run -0 --separate-stderr "$SHARNESS_EXEC" probe --help
	[ "${lines[0]}" = "$usage" ]
}

@test "the front end links neither hello nor probe: it execs sharness-exec-probe" {
	! grep -q 'verdict: files' "$top_builddir/sharness-exec"
	! grep -q 'sharness-exec hello: self-test' "$top_builddir/sharness-exec"
	grep -q 'verdict: files' "$HELPERDIR/sharness-exec-probe"
	grep -q 'sharness-exec hello: self-test' "$HELPERDIR/sharness-exec-probe"
	# the probe program parses no JSON and links no cryptography
	! grep -qi 'bearssl\|jsmn\|br_sha256' "$HELPERDIR/sharness-exec-probe"
	run -125 --separate-stderr "$top_builddir/test-sharness-exec-nohelpers" probe
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: unable to execute /nonexistent/sharness-exec/sharness-exec-probe: No such file or directory" ]
	run -125 --separate-stderr "$top_builddir/test-sharness-exec-nohelpers" hello
	[ -z "$output" ]
}

@test "probe --json as root agrees with what the test sees itself" {
	require_feature root
	check_json env
}

@test "probe --json as nobody agrees with what the test sees itself" {
	require_feature nobody
	cd "$TMP"
	check_json as_nobody
	grep -q '"uid":65534' "$TMP/out/probe.json"
	grep -q '"cap_eff":"0000000000000000"' "$TMP/out/probe.json"
}

@test "probe --json is one object on one line, and nothing on stderr" {
	run -0 --separate-stderr "$SHARNESS_EXEC" probe --json
	[ "${#lines[@]}" -eq 1 ]
	[ -z "$stderr" ]
	[[ "$output" == '{"probe":1,'*'}' ]]
}

@test "probe --json: every field is documented in sharness-exec(1)" {
	require_feature tool:python3
	run -0 --separate-stderr "$SHARNESS_EXEC" probe --json
	printf '%s\n' "$output" >"$TMP/probe.json"
	run -0 python3 - "$TMP/probe.json" "$top_srcdir/man/sharness-exec.1" <<-'EOF'
	import json, re, sys
	d = json.load(open(sys.argv[1]))
	words = set()
	for line in open(sys.argv[2]):
	    if re.match(r"\.(It |Brq )?(Cm|Dv) ", line):
	        words.update(re.findall(r"[A-Za-z_][A-Za-z0-9_-]*", line))
	def walk(o, path):
	    if isinstance(o, dict):
	        for k, v in o.items():
	            if k not in words:
	                print("not documented:", path + k)
	            walk(v, path + k + ".")
	walk(d, "")
	EOF
	[ "$output" = "" ]
}

@test "probe names proxy variables, never their values" {
	require_feature tool:"${PY:-python3}"
	export HTTPS_PROXY=http://user:sekrit-token@proxy.invalid:3128 no_proxy=localhost.sekrit
	run -0 --separate-stderr "$SHARNESS_EXEC" probe --json
	[[ "$output" != *sekrit* ]]
	printf '%s\n' "$output" >"$TMP/probe.json"
	"$PY" -c 'import json, sys; d = json.load(open(sys.argv[1]))
assert "HTTPS_PROXY" in d["proxy_variables"] and "no_proxy" in d["proxy_variables"], d' \
		"$TMP/probe.json"
	run -0 --separate-stderr "$SHARNESS_EXEC" probe
	[[ "$output" != *sekrit* ]]
	printf '%s\n' "$output" | grep -qE '^proxy variables +(.* )?HTTPS_PROXY( .*)?$'
	printf '%s\n' "$output" | grep -qE '^proxy variables +(.* )?no_proxy( .*)?$'
}

@test "probe text: one aligned fact a line, then the verdict" {
	require_feature landlock
	local abi
	abi=$("$TRY" landlock-abi)
	run -0 --separate-stderr "$SHARNESS_EXEC" probe
	[ -z "$stderr" ]
	printf '%s\n' "$output" | grep -qxE "uid +$(id -u)"
	printf '%s\n' "$output" | grep -qxE "gid +$(id -g)"
	printf '%s\n' "$output" | grep -qxE "landlock +ABI $abi"
	printf '%s\n' "$output" | grep -qE '^NoNewPrivs +0$'
	for key in kernel groups CapEff CapPrm CapBnd Seccomp 'user namespaces' \
	    'network namespaces' cgroups 'memory cap' 'pids cap' memfd_secret \
	    'kernel config' CONFIG_SECURITY_LANDLOCK CONFIG_LSM bwrap unshare \
	    systemd-run 'proxy variables'; do
		printf '%s\n' "$output" | grep -qE "^$key +[^ ]" || { echo "no line: $key"; false; }
	done
	# every fact's value starts in column 27; the last line is the verdict
	printf '%s\n' "${lines[@]:0:${#lines[@]}-1}" |
		awk 'substr($0, 26, 1) != " " || substr($0, 27, 1) == " " { print "misaligned: " $0; bad = 1 }
		     END { exit bad }'
	[[ "${lines[-1]}" == "verdict: files: Landlock ABI $abi; network none: "* ]]
}

@test "probe text: the tools on PATH are the ones command -v finds" {
	run -0 --separate-stderr "$SHARNESS_EXEC" probe
	for t in bwrap unshare systemd-run; do
		want=$(command -v "$t") || want="not found"
		printf '%s\n' "$output" | grep -qxE "$t +$want" || { echo "$t: want $want"; false; }
	done
}

@test "probe: Landlock hidden by a seccomp filter (EPERM) is reported as blocked" {
	require_feature landlock
	run -0 --separate-stderr "$DENY_LANDLOCK" 1 "$SHARNESS_EXEC" probe
	printf '%s\n' "$output" | grep -qxE 'landlock +no: blocked by a seccomp filter \(EPERM\)'
	printf '%s\n' "$output" | grep -qxE 'Seccomp +2 \(filter\)'
	[[ "${lines[-1]}" == "verdict: files cannot be confined here: sharness-exec-landlock: fatal: unable to query the Landlock ABI: Operation not permitted" ]]
	run -0 --separate-stderr "$DENY_LANDLOCK" 1 "$SHARNESS_EXEC" probe --json
	[[ "$output" == *'"landlock":{"abi":0,"status":"blocked","errno":"EPERM","signal":null,"errata":null}'* ]]
	[[ "$output" == *'"enforce":{"files":false,'* ]]
}

@test "probe: ENOSYS from a filter is blocked when the kernel config says Landlock is built in" {
	require_feature landlock
	require_feature kernel-config-gz
	run -0 --separate-stderr "$DENY_LANDLOCK" 38 "$SHARNESS_EXEC" probe --json
	[[ "$output" == *'"status":"blocked","errno":"ENOSYS"'* ]]
	# without a config to tell (no gzip on PATH) it cannot know, and says so
	run -0 --separate-stderr "$DENY_LANDLOCK" 38 env PATH=/nonexistent "$SHARNESS_EXEC" probe --json
	if [ -r "/boot/config-$(uname -r)" ]; then
		[[ "$output" == *'"status":"blocked","errno":"ENOSYS"'* ]]
	else
		[[ "$output" == *'"status":"unknown","errno":"ENOSYS"'* ]]
		[[ "$output" == *'"kernel_config":{"source":null,"CONFIG_SECURITY_LANDLOCK":null,'* ]]
	fi
}

@test "probe: a filter that kills on landlock_create_ruleset kills only the throwaway child" {
	require_feature landlock
	run -0 --separate-stderr "$DENY_LANDLOCK" kill "$SHARNESS_EXEC" probe --json
	[[ "$output" == *'"landlock":{"abi":0,"status":"blocked","errno":null,"signal":31,"errata":null}'* ]]
	[[ "$output" == *'"enforce":'* ]]
}

@test "probe: no namespaces under a filter that refuses unshare, so the network falls to seccomp" {
	require_feature root
	check_json "$DENY_UNSHARE"
	run -0 --separate-stderr "$DENY_UNSHARE" "$SHARNESS_EXEC" probe
	printf '%s\n' "$output" | grep -qxE 'user namespaces +no'
	printf '%s\n' "$output" | grep -qxE 'network namespaces +no \(unshare: Operation not permitted\): under "none" loopback is unavailable'
	printf '%s\n' "$output" | grep -qxE 'mount namespace +no \(unshare: Operation not permitted\): Landlock alone'
	printf '%s\n' "$output" | grep -qxE 'strict run +sharness-exec-view: fatal: unable to make a mount namespace: Operation not permitted'
	[[ "${lines[-1]}" == *"network none: seccomp socket filter, loopback unavailable;"* ]]
	[[ "${lines[-1]}" == *"; without --best-effort run refuses: sharness-exec-view: fatal: unable to make a mount namespace: Operation not permitted" ]]
}

@test "probe writes nothing: no file in a writable cwd or TMPDIR, no new cgroup" {
	local cg
	cg=$(awk -F: '$2 == "memory" { print $3 }' /proc/self/cgroup)
	cg=/sys/fs/cgroup/memory${cg%/}
	mkdir "$TMP/cwd" "$TMP/tmpdir"
	# Under make -j other tests' runs come and go beneath the same cgroup,
	# each as sharness-exec.<its supervisor's pid>: those are not probe's.
	others() { ls "$cg" | grep -vxE 'sharness-exec\.[0-9]+(\.sv)?' || true; }
	[ -d "$cg" ] && others >"$TMP/cgroups.before"
	cd "$TMP/cwd"
	run -0 --separate-stderr env TMPDIR="$TMP/tmpdir" "$SHARNESS_EXEC" probe
	run -0 --separate-stderr env TMPDIR="$TMP/tmpdir" "$SHARNESS_EXEC" probe --json
	[ -z "$(find "$TMP/cwd" "$TMP/tmpdir" -mindepth 1)" ]
	if [ -d "$cg" ]; then
		others | diff "$TMP/cgroups.before" -
	fi
}

# walls_vs_run PREFIX...: what probe says a run puts up against what a run
# of a policy like probe's own really put up, seen from inside (its
# namespaces, cgroup, limits and seccomp state in its own /proc) and from
# outside (a file in no list: hidden only by a mount namespace), under
# PREFIX (as_nobody, a seccomp wrapper) for both. Where probe says a strict
# run is refused, the run must be refused too, and --best-effort is used.
walls_vs_run() {
	require_feature landlock
	require_feature tool:"${PY:-python3}"
	mkdir -p "$TMP/out" && chmod 777 "$TMP/out"
	echo secret >"$TMP/unlisted" && chmod 644 "$TMP/unlisted"
	write_policy "$TMP/walls.json" '{"pbp":1,"id":"walls","files":{"read":["/proc","/etc"],"exec":["/usr","/bin","/lib","/lib64","/sbin"]},"network":"none","process":{"no_new_privs":true,"max_memory_mb":256,"max_pids":256}}'
	"$@" "$SHARNESS_EXEC" probe --json >"$TMP/out/probe.json"
	"$@" sh -c 'for n in net ipc pid mnt; do readlink /proc/self/ns/$n; done' >"$TMP/out/outside"
	local inside='for n in net ipc pid mnt; do readlink /proc/self/ns/$n; done
		grep -E "^[0-9]+:(memory|pids):" /proc/self/cgroup | sed "s/^[0-9]*:/cgroup /"
		grep -E "^Max (address space|processes)" /proc/self/limits | tr -s " " | cut -d" " -f1-5
		grep -E "^(Seccomp|NoNewPrivs|CapEff):" /proc/self/status
		if test -e "$1"; then echo unlisted visible; else echo unlisted hidden; fi'
	if grep -q '"strict":null' "$TMP/out/probe.json"; then
		"$@" "$SHARNESS_EXEC" run --policy "$TMP/walls.json" -- sh -c "$inside" sh "$TMP/unlisted" >"$TMP/out/inside"
	else
		run -126 "$@" "$SHARNESS_EXEC" run --policy "$TMP/walls.json" -- true
		"$@" "$SHARNESS_EXEC" run --best-effort --policy "$TMP/walls.json" -- sh -c "$inside" sh "$TMP/unlisted" >"$TMP/out/inside" 2>/dev/null
	fi
	run -0 "$PY" - "$TMP/out" <<-'PYEOF'
	import json, os, sys
	out = sys.argv[1]
	d = json.load(open(os.path.join(out, "probe.json")))
	w, cg = d["walls"], d["cgroup"]
	outside = open(os.path.join(out, "outside")).read().split()
	lines = open(os.path.join(out, "inside")).read().splitlines()
	inside, rest = lines[:4], lines[4:]
	bad = []
	def eq(what, said, saw):
	    if said != saw:
	        bad.append(f"{what}: probe says {said!r}, the run shows {saw!r}")
	for i, (name, key) in enumerate([("net", "network"), ("ipc", "ipc"), ("pid", "pid"), ("mnt", "mount")]):
	    own = inside[i] != outside[i]
	    eq(f"{name} namespace", w[key] in ("namespace",), own)
	eq("unlisted path hidden", w["mount"] == "namespace", "unlisted hidden" in rest)
	for c in ("memory", "pids"):
	    got = [l.split(":", 1)[1] for l in rest if l.startswith(f"cgroup {c}:")]
	    in_run = bool(got) and "/sharness-exec." in got[0]
	    eq(f"{c} in a cgroup of the run's own", cg[c] != "rlimit", in_run)
	    if in_run and cg[c + "_path"] is not None:
	        eq(f"{c} cgroup beneath", cg[c + "_path"].endswith(got[0].rsplit("/", 1)[0] or "/") or
	           got[0].rsplit("/", 1)[0] == "", True)
	lim = {l.split()[1] + " " + l.split()[2]: l.split()[3] for l in rest if l.startswith("Max ")}
	eq("memory capped by RLIMIT_AS", cg["memory"] == "rlimit", lim.get("address space") == str(256 << 20))
	st = dict(l.split(":", 1) for l in rest if l.split(":", 1)[0] in ("Seccomp", "NoNewPrivs", "CapEff"))
	eq("seccomp", w["seccomp"], int(st["Seccomp"]))
	eq("no_new_privs", w["no_new_privs"], int(st["NoNewPrivs"]))
	eq("caps", w["caps"], "none" if int(st["CapEff"], 16) == 0 else "some")
	print("\n".join(bad))
	sys.exit(1 if bad else 0)
	PYEOF
	echo "$output"
	[ -z "$output" ]
}

@test "probe's walls are what a run really puts up, as root" {
	require_feature root
	walls_vs_run env
}

@test "probe's walls are what a run really puts up, as nobody" {
	require_feature nobody
	cd "$TMP"
	walls_vs_run as_nobody
}

@test "probe's walls are what a run really puts up where unshare is refused, as root" {
	require_feature root
	walls_vs_run "$DENY_UNSHARE"
}

@test "probe's walls are what a run really puts up where unshare is refused, as nobody" {
	require_feature nobody
	cd "$TMP"
	walls_vs_run as_nobody "$DENY_UNSHARE"
}

@test "probe's steps are the chain's: run --check prints one line per step, the same probe reads" {
	require_feature landlock
	write_policy "$TMP/p.json" '{"pbp":1,"id":"c","files":{"exec":["/usr","/bin","/lib","/lib64"]},"network":"none","process":{"no_new_privs":true,"max_memory_mb":64}}'
	run -0 --separate-stderr "$SHARNESS_EXEC" run --check --policy "$TMP/p.json"
	[ "${#lines[@]}" = 5 ]
	[[ "${lines[0]}" == "sharness-exec-netns: network=namespace ipc=namespace user=none keyring="* ]]
	[[ "${lines[1]}" == "sharness-exec-supervise: pid=namespace cgroup="* ]]
	[[ "${lines[2]}" == "sharness-exec-limits: memory="*" memory_mib=64 pids=none pids_max=0" ]]
	[[ "${lines[3]}" == "sharness-exec-view: mount=namespace root=tmpfs proc=none" ]]
	[[ "${lines[4]}" == "sharness-exec-landlock: abi=$("$TRY" landlock-abi) "*" seccomp=2 no_new_privs=1 caps=none listen_guard=none rights=FS:landlock,"* ]]
	# the dry run of the same shows every step with -t
	run -0 --separate-stderr "$SHARNESS_EXEC" run --check --dry-run --policy "$TMP/p.json"
	[ "$(grep -c ' -t' <<<"$output")" = 5 ]
	# a target after --check runs confined, after the lines
	run -0 --separate-stderr "$SHARNESS_EXEC" run --check --policy "$TMP/p.json" -- /bin/sh -c 'echo ran'
	[ "${lines[5]}" = ran ]
}
