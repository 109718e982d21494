#!/usr/bin/env bats
# not tested: a kernel that lacks Landlock or has it disabled at boot (lsm=)
# (only a seccomp filter hiding it is simulated, with try/deny-landlock);
# delegated cgroup v2 controllers (this machine has cgroup v1 memory and
# pids, and v2 with neither); securityfs (/sys/kernel/security/lsm) and the
# /boot/config-RELEASE fallback; memfd_secret beyond its type (no
# independent way to call it from the shell).
load helpers/load

DENY_LANDLOCK="$top_builddir/tests/try/deny-landlock"
DENY_UNSHARE="$top_builddir/tests/try/deny-unshare"

setup() {
	setup_tmp
	PY=/usr/bin/python3
	[ -x "$PY" ] || PY=$(command -v python3) || PY=
	CHECK="$top_srcdir/tests/helpers/check-probe.py"
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

@test "probe: usage errors exit 125 with the usage line" {
	run -125 --separate-stderr "$SHARNESS_EXEC" probe --yaml
	[ "$stderr" = "usage: sharness-exec probe [--json] [--trust-key FILE]..." ]
	run -125 --separate-stderr "$SHARNESS_EXEC" probe --json extra
	[ "$stderr" = "usage: sharness-exec probe [--json] [--trust-key FILE]..." ]
	run -125 --separate-stderr "$SHARNESS_EXEC" probe --trust-key
	[ "$stderr" = "usage: sharness-exec probe [--json] [--trust-key FILE]..." ]
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
	[[ "${lines[-1]}" == "verdict: files cannot be confined here: Landlock is unavailable"* ]]
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
	printf '%s\n' "$output" | grep -qxE 'user namespaces +no \(EPERM\)'
	printf '%s\n' "$output" | grep -qxE 'network namespaces +no \(EPERM\): under "none" loopback is unavailable'
	[[ "${lines[-1]}" == *"network none: seccomp socket filter, loopback unavailable;"* ]]
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
