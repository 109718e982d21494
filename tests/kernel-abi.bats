#!/usr/bin/env bats
# The chain on the running kernel's own Landlock ABI, whatever it is: probe
# reports it and what it can enforce; strict mode runs a policy where the
# ABI has every right the policy needs, else refuses (126) with a hint
# naming exactly what this ABI lacks; --best-effort runs and names exactly
# what it dropped, and still confines the rest. On this machine that is one
# ABI; the kernel matrix (tests/kernels) runs this file on Debian's kernels
# with ABI 2, 6, 7 and 11, where -A (tests/landlock.bats) only pretends.
# not tested: ABI 3-5 for real (Debian offers no kernel with them; -A
# covers them); rights the table below does not know yet (ABI 8 and later)
# are neither required nor forbidden in the messages.
load helpers/load

# Each right the landlock step may need, with the ABI that brought it;
# net: only for the object form of "network".
RIGHTS="FS_REFER:2 FS_TRUNCATE:3 NET_BIND_TCP:4:net NET_CONNECT_TCP:4:net FS_IOCTL_DEV:5 SCOPE_ABSTRACT_UNIX_SOCKET:6 SCOPE_SIGNAL:6"

setup() {
	setup_tmp
	mkdir -m 777 "$TMP/rw" "$TMP/out"
	echo original >"$TMP/out/file"
	chmod 666 "$TMP/out/file"
	abi=$(landlock_abi)
}

policy() { # NETWORK
	write_policy "$TMP/p.json" '{"pbp":1,"id":"abi",
	  "files":{"read":["/etc"],"write":["'"$TMP"'/rw"],
	           "exec":["/usr","/bin","/lib","/lib64","'"$top_builddir"'/tests/try"]},
	  "network":'"$1"',"process":{"no_new_privs":true}}'
}

# lacking NET: the rights of $RIGHTS this ABI lacks, comma-separated in
# table order; NET is 1 for a policy with the object form of "network".
lacking() {
	local r name need out=
	for r in $RIGHTS; do
		name=${r%%:*} need=${r#*:}
		case $need in *:net) [ "$1" = 1 ] || continue; need=${need%:net} ;; esac
		[ "$abi" -lt "$need" ] && out="$out${out:+, }$name"
	done
	echo "$out"
}

# names_exactly LINE NET: LINE names every right this ABI lacks and none it
# has (of those in $RIGHTS).
names_exactly() {
	local r name need
	for r in $RIGHTS; do
		name=${r%%:*} need=${r#*:}
		case $need in *:net) [ "$2" = 1 ] || continue; need=${need%:net} ;; esac
		if [ "$abi" -lt "$need" ]; then
			[[ "$1" == *"$name"* ]] || { echo "missing $name in: $1" >&2; return 1; }
		else
			[[ "$1" != *"$name"* ]] || { echo "ABI $abi has $name, yet: $1" >&2; return 1; }
		fi
	done
}

@test "probe reports the kernel's own Landlock ABI and what it can enforce with it" {
	require_feature landlock
	run -0 --separate-stderr "$SHARNESS_EXEC" probe --json
	run -0 python3 -c '
import json, sys
p = json.loads(sys.argv[1]); abi = int(sys.argv[2])
assert p["landlock"]["abi"] == abi, p["landlock"]
assert p["enforce"]["files"] is True, p["enforce"]
assert p["enforce"]["tcp_ports"] is (abi >= 4), p["enforce"]
assert p["enforce"]["scopes"] is (abi >= 6), p["enforce"]
' "$output" "$abi"
	run -0 --separate-stderr "$SHARNESS_EXEC" probe
	[[ "$output" == *"landlock                  ABI $abi"* ]]
}

t_strict() {
	local m=$1 net=$2 missing
	need "$m"
	if [ "$net" = 1 ]; then policy '{"connect_tcp_ports":[80]}'; else policy '"none"'; fi
	missing=$(lacking "$net")
	cd "$TMP"
	if [ -z "$missing" ]; then
		run -0 --separate-stderr as "$m" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TRY" create "$TMP/rw/ran"
		[ -z "$stderr" ]
		[ -e "$TMP/rw/ran" ]
		return
	fi
	run -126 --separate-stderr as "$m" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TRY" create "$TMP/rw/ran"
	[ -z "$output" ]
	[ ! -e "$TMP/rw/ran" ]
	[[ "${stderr_lines[0]}" == "sharness-exec-landlock: fatal: unable to confine with Landlock ABI $abi: it lacks "* ]]
	names_exactly "${stderr_lines[0]}" "$net"
	[[ "${stderr_lines[1]}" =~ ^hint:\ Landlock\ ABI\ ([0-9]+)\ \(Linux\ [0-9.]+\)\ has\ them\;\ -b\ \(--best-effort\)\ runs\ without\ them$ ]]
	[ "${BASH_REMATCH[1]}" -gt "$abi" ]
	[ "${#stderr_lines[@]}" = 2 ]
}

@test "strict, network none: runs if this ABI has every right, else 126 naming exactly what it lacks (root)" { t_strict root 0; }
@test "strict, network none: runs if this ABI has every right, else 126 naming exactly what it lacks (nobody)" { t_strict nobody 0; }
@test "strict, TCP ports: runs if this ABI has every right, else 126 naming exactly what it lacks (root)" { t_strict root 1; }
@test "strict, TCP ports: runs if this ABI has every right, else 126 naming exactly what it lacks (nobody)" { t_strict nobody 1; }

t_best_effort() {
	local m=$1 net=$2 missing
	need "$m"
	if [ "$net" = 1 ]; then policy '{"connect_tcp_ports":[80]}'; else policy '"none"'; fi
	missing=$(lacking "$net")
	cd "$TMP"
	run -0 --separate-stderr as "$m" "$SHARNESS_EXEC" run --best-effort -p "$TMP/p.json" -- "$TRY" create "$TMP/rw/ran"
	[ -e "$TMP/rw/ran" ]
	if [ -z "$missing" ]; then
		[ -z "$stderr" ]
	else
		[ "${#stderr_lines[@]}" = 1 ]
		[[ "$stderr" == "sharness-exec-landlock: warning: Landlock ABI $abi: best effort: dropped "* ]]
		names_exactly "$stderr" "$net"
	fi
	# What this ABI has still holds: nothing written outside the rules.
	run -1 --separate-stderr as "$m" "$SHARNESS_EXEC" run --best-effort -p "$TMP/p.json" -- "$TRY" write "$TMP/out/file"
	[[ "$output" == "refused: Permission denied" || "$output" == "refused: No such file or directory" ]]
	[ "$(cat "$TMP/out/file")" = original ]
	run -0 as "$m" "$TRY" write "$TMP/out/file"
}

@test "--best-effort, network none: runs, names exactly what it dropped, confines the rest (root)" { t_best_effort root 0; }
@test "--best-effort, network none: runs, names exactly what it dropped, confines the rest (nobody)" { t_best_effort nobody 0; }
@test "--best-effort, TCP ports: runs, names exactly what it dropped, confines the rest (root)" { t_best_effort root 1; }
@test "--best-effort, TCP ports: runs, names exactly what it dropped, confines the rest (nobody)" { t_best_effort nobody 1; }
