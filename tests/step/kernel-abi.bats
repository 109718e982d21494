#!/usr/bin/env bats
# The chain on the running kernel's own Landlock ABI, whatever it is: probe
# reports it and what it can enforce; strict mode runs a policy where some
# wall of the run holds every right the policy needs (rights.c), else
# refuses (126) naming exactly what no wall holds; --best-effort runs and
# names exactly what it dropped, and still confines the rest. Where the ABI has them, the
# rights of ABI 9 and 10 hold from the attacker's side: RESOLVE_UNIX keeps
# a pathname UNIX socket outside the policy out of reach even where no
# mount namespace (the view step) stands, and UDP port rules let exactly
# the listed ports through. On this machine that is one ABI; the kernel
# matrix (tests/kernels) runs this file on Debian's kernels with ABI 2, 6,
# 7 and 11, where -A (tests/landlock.bats) only pretends; the cases of an
# ABI the kernel lacks skip with the reason.
# not tested: ABI 3-5 and 8-10 for real (Debian offers no kernel with
# them; -A covers them); rights the table below does not know (ABI 12 and
# later) are neither required nor forbidden in the messages.
load ../helpers/load

# Each right that, through the whole chain, only Landlock holds, with the
# ABI that brought it, in the order of the table (rights.c); net: only for
# the object form of "network"; udp: only with UDP ports. The rest of the
# ABI's rights (FS_REFER, FS_TRUNCATE, FS_IOCTL_DEV, SCOPE_SIGNAL, and
# SCOPE_ABSTRACT_UNIX_SOCKET in "none") the view and the namespaces hold
# below their ABI, so no ABI lacks them here.
RIGHTS="SCOPE_ABSTRACT_UNIX_SOCKET:6:net NET_BIND_TCP:4:net NET_CONNECT_TCP:4:net NET_BIND_UDP:10:udp NET_CONNECT_SEND_UDP:10:udp"

TP="$TRYDIR/try-ports"
TRYV="$TRYDIR/try-view"
DENY_UNSHARE="$TRYDIR/deny-unshare"

setup() {
	setup_tmp
	mkdir -m 777 "$TMP/rw" "$TMP/out"
	echo original >"$TMP/out/file"
	chmod 666 "$TMP/out/file"
	abi=$(landlock_abi)
	pids=()
}

teardown() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	teardown_tmp
}

# needs_abi N: skip, with the reason the kernel matrix accepts, below ABI N.
needs_abi() {
	[ "$abi" -ge "$1" ] || not_here "landlock-abi:$1" "needs Landlock ABI $1, this kernel has ABI $abi"
}

policy() { # NETWORK
	chain_policy abi "$1" '"/etc"' '"'"$TMP"'/rw"'
}

# net_policy NET: the policy of network kind NET: 0 "none", 1 TCP ports,
# 2 TCP and UDP ports.
net_policy() {
	case $1 in
	0) policy '"none"' ;;
	1) policy '{"connect_tcp_ports":[80]}' ;;
	2) policy '{"connect_tcp_ports":[80],"connect_udp_ports":[53],"bind_udp_ports":[0]}' ;;
	esac
}

# applies NEED NET: does a right marked NEED (ABI[:net|:udp]) apply to a
# policy of network kind NET? Prints the ABI.
applies() {
	case $1 in
	*:net) [ "$2" -ge 1 ] || return 1 ;;
	*:udp) [ "$2" = 2 ] || return 1 ;;
	esac
	echo "${1%%:*}"
}

# lacking NET: the rights of $RIGHTS this ABI lacks, comma-separated in
# table order, for a policy of network kind NET.
lacking() {
	local r name need out=
	for r in $RIGHTS; do
		name=${r%%:*}
		need=$(applies "${r#*:}" "$1") || continue
		[ "$abi" -lt "$need" ] && out="$out${out:+, }$name"
	done
	echo "$out"
}

# names_exactly LINE NET: LINE names every right this ABI lacks and none it
# has (of those in $RIGHTS).
names_exactly() {
	local r name need
	for r in $RIGHTS; do
		name=${r%%:*}
		need=$(applies "${r#*:}" "$2") || continue
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
	net_policy "$net"
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
	[ "${stderr_lines[0]}" = "sharness-exec-landlock: fatal: unable to confine with Landlock ABI $abi: no wall of this run holds $missing" ]
	names_exactly "${stderr_lines[0]}" "$net"
	# The hint names, for each, what would hold it: a later ABI.
	if [[ "$missing" == *_UDP* ]]; then
		[[ "${stderr_lines[1]}" == "hint: "*"; -b (--best-effort) runs with UDP unrestricted" ]]
	else
		[[ "${stderr_lines[1]}" == "hint: "*"; -b (--best-effort) runs without them" ]]
	fi
	local later
	for later in $(grep -o 'Landlock ABI [0-9]*' <<<"${stderr_lines[1]}" | cut -d' ' -f3); do
		[ "$later" -gt "$abi" ]
	done
	[ "${#stderr_lines[@]}" = 2 ]
}

@test "strict, network none: runs at every ABI, the namespaces holding what it lacks (root)" { t_strict root 0; }
@test "strict, network none: runs at every ABI, the namespaces holding what it lacks (nobody)" { t_strict nobody 0; }
@test "strict, TCP ports: runs if this ABI has every right, else 126 naming exactly what it lacks (root)" { t_strict root 1; }
@test "strict, TCP ports: runs if this ABI has every right, else 126 naming exactly what it lacks (nobody)" { t_strict nobody 1; }
@test "strict, UDP ports: runs if this ABI has every right, else 126 naming exactly what it lacks (root)" { t_strict root 2; }
@test "strict, UDP ports: runs if this ABI has every right, else 126 naming exactly what it lacks (nobody)" { t_strict nobody 2; }

t_best_effort() {
	local m=$1 net=$2 missing
	need "$m"
	net_policy "$net"
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
		# Said in so many words where UDP goes unrestricted.
		if [[ "$missing" == *_UDP* ]]; then
			[[ "$stderr" == *": UDP is unrestricted" ]]
		else
			[[ "$stderr" != *UDP* ]]
		fi
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
@test "--best-effort, UDP ports: runs, names exactly what it dropped, confines the rest (root)" { t_best_effort root 2; }
@test "--best-effort, UDP ports: runs, names exactly what it dropped, confines the rest (nobody)" { t_best_effort nobody 2; }

# --- pathname UNIX sockets: the view step on every ABI, RESOLVE_UNIX from 9 --

# Through the whole chain where the view stands: the socket is not there at
# all. Before ABI 9 this is the only wall (below ABI 6 the chain runs with
# --best-effort, as a user of that kernel must).
t_view_unix() {
	local m=$1 be=()
	need "$m"
	[ "$abi" -ge 6 ] || be=(--best-effort)
	net_policy 0
	listener unix "$TMP/out/sock"
	run -1 --separate-stderr as "$m" "$SHARNESS_EXEC" run "${be[@]}" -p "$TMP/p.json" -- \
		"$TRYV" unix-connect "$TMP/out/sock"
	[ "$output" = "refused: No such file or directory" ]
	[[ "$stderr" != *"no mount namespace"* ]]
	# Control, after it: the same user, bare, is served.
	run -0 as "$m" "$TRYV" unix-connect "$TMP/out/sock"
	logged "$log" 1
	[ "$(cat "$log")" = accepted ]
}

@test "any ABI: through the view a pathname UNIX socket outside the policy is not there (root)" { t_view_unix root; }
@test "any ABI: through the view a pathname UNIX socket outside the policy is not there (nobody)" { t_view_unix nobody; }

# The landlock step alone (no view): a listening socket in a read path is
# out of reach, and in a write path too, unless -k names it (files.sockets). (The helper opens rule paths
# without following symlinks, so /usr alone: /bin and /lib lead there.)
t_resolve_unix_helper() {
	local m=$1 sys=(-x /usr -x "$TRYDIR")
	need "$m"
	needs_abi 9
	listener unix "$TMP/out/sock"
	run --separate-stderr as "$m" "$LANDLOCK" "${sys[@]}" -r "$TMP/out" -- "$TRYV" unix-connect "$TMP/out/sock"
	echo "status $status, stdout: $output, stderr: $stderr"
	[ "$status" = 1 ] && [ "$output" = "refused: Permission denied" ]
	# Nor does a write path grant it (issue 36): only -k, files.sockets.
	run --separate-stderr as "$m" "$LANDLOCK" "${sys[@]}" -w "$TMP/out" -- "$TRYV" unix-connect "$TMP/out/sock"
	echo "status $status, stdout: $output, stderr: $stderr"
	[ "$status" = 1 ] && [ "$output" = "refused: Permission denied" ]
	run --separate-stderr as "$m" "$LANDLOCK" "${sys[@]}" -w "$TMP/out" -s "$TMP/out/sock" -- "$TRYV" unix-connect "$TMP/out/sock"
	echo "status $status, stdout: $output, stderr: $stderr"
	[ "$status" = 0 ] && [ "$output" = ok ]
	# One connection logged: the refused one never arrived before it.
	logged "$log" 1
	[ "$(cat "$log")" = accepted ]
}

@test "ABI 9: the landlock step alone keeps a pathname UNIX socket in a read path out of reach (root)" { t_resolve_unix_helper root; }
@test "ABI 9: the landlock step alone keeps a pathname UNIX socket in a read path out of reach (nobody)" { t_resolve_unix_helper nobody; }

# Through the chain where no mount namespace can be made (the view step
# cannot stand): RESOLVE_UNIX is then the only wall.
t_resolve_unix_chain() {
	local m=$1
	need "$m"
	needs_abi 9
	net_policy 0
	listener unix "$TMP/out/sock"
	run -1 --separate-stderr as "$m" "$DENY_UNSHARE" "$SHARNESS_EXEC" run --best-effort -p "$TMP/p.json" -- \
		"$TRYV" unix-connect "$TMP/out/sock"
	[ "$output" = "refused: Permission denied" ]
	[[ "$stderr" == *"sharness-exec-view: warning: no mount namespace available"* ]]
	# ... and, RESOLVE_UNIX holding them, the warning does not list them.
	[[ "$stderr" != *"pathname UNIX sockets"* ]]
	# Control, after it: the same user, bare, is served.
	run -0 as "$m" "$TRYV" unix-connect "$TMP/out/sock"
	logged "$log" 1
	[ "$(cat "$log")" = accepted ]
}

@test "ABI 9: without a mount namespace a pathname UNIX socket outside the policy stays out of reach (root)" { t_resolve_unix_chain root; }
@test "ABI 9: without a mount namespace a pathname UNIX socket outside the policy stays out of reach (nobody)" { t_resolve_unix_chain nobody; }

# --- ABI 10: UDP port rules ---------------------------------------------------

t_udp_rules() {
	local m=$1 granted glog other olog
	need "$m"
	needs_abi 10
	listener udp
	granted=$port glog=$log
	listener udp
	other=$port olog=$log
	policy '{"connect_tcp_ports":[],"connect_udp_ports":['"$granted"'],"bind_udp_ports":[0]}'
	run -0 --separate-stderr as "$m" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TP" udp-send "$granted" granted
	[ "$output" = ok ]
	[ -z "$stderr" ]
	run -1 --separate-stderr as "$m" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TP" udp-send "$other" confined
	[ "$output" = "refused: Permission denied" ]
	# A local port no list grants (only 0, an ephemeral one, is).
	run -1 --separate-stderr as "$m" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TP" udp-bind "$((other + 1))"
	[ "$output" = "refused: Permission denied" ]
	# Control, after it: the same user, bare, reaches the other port.
	run -0 as "$m" "$TP" udp-send "$other" control
	logged "$glog" 1
	logged "$olog" 1
	[ "$(cat "$glog")" = "datagram granted" ]
	[ "$(cat "$olog")" = "datagram control" ]
}

@test "ABI 10: UDP port rules let exactly the listed port through (root)" { t_udp_rules root; }
@test "ABI 10: UDP port rules let exactly the listed port through (nobody)" { t_udp_rules nobody; }
