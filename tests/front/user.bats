#!/usr/bin/env bats
# run --user USER (issue 23; DESIGN.md 2.2, 4.1, 4.4, 4.6): root makes the
# namespaces and the run's cgroup, the landlock step drops to USER. From
# inside, as 65534 and as uid 1000: every uid and gid changed, no groups
# unless --user-groups (which warns about the privileged ones), the cgroup's
# memory cap, files owned by USER, and no way back to root (setuid, a
# set-uid-root binary, ptrace of root processes). Outside: a caller that is
# not root, a policy file USER owns, rlimits for the caps.
# not tested: a passwd entry from another NSS source than files (this
# machine has only files), and a run whose supervisor can make no cgroup
# (root here always can): the limits step's refusal is tried on its own.
load ../helpers/load

TRYDIR="$TRYDIR"

setup() {
	setup_tmp
	mkdir -m 777 "$TMP/w"
	mkdir -m 755 "$TMP/bin"
	made_user=
	made_group=
	sleeper=
}

teardown() {
	[ -n "$sleeper" ] && kill -9 "$sleeper" 2>/dev/null
	[ -n "$made_user" ] && userdel "$made_user"
	[ -n "$made_group" ] && groupdel "$made_group"
	teardown_tmp
}

# need_user: root, Landlock, and uid 65534 able to run the try programs.
need_user() {
	require_feature root
	require_feature landlock
	require_feature nobody
	require_feature "nobody-reaches:$TRY"
}

# user_policy [NETWORK [PROCESS]]: $TMP/p.json, owned by root: /proc and
# /etc to read, the try programs and $TMP/bin to run, $TMP/w to write.
user_policy() {
	write_policy "$TMP/p.json" '{"pbp":1,"id":"user",
	  "files":{"read":["/proc","/etc"],"write":["/dev/null","'"$TMP"'/w"],
	           "exec":["/usr","/bin","/lib","/lib64","'"$TRYDIR"'","'"$TMP"'/bin"]},
	  "network":'"${1:-\"none\"}"',"process":{"no_new_privs":true'"${2:-}"'}}'
}

# ids_are STATUS ID: /proc/self/status's Uid, Gid (real, effective, saved,
# fs) are all ID, and Groups is empty.
ids_are() {
	grep -qx "Uid:	$2	$2	$2	$2" <<<"$1"
	grep -qx "Gid:	$2	$2	$2	$2" <<<"$1"
	grep -qx "Groups:	 *" <<<"$1"
}

@test "--user 65534:65534: every uid and gid, no groups, passwd's HOME USER LOGNAME, files owned by 65534" {
	need_user
	user_policy '"none"' ',"max_memory_mb":64'
	# Bare: a run as root is root.
	run -0 --separate-stderr "$SHARNESS_EXEC" run -p "$TMP/p.json" -- cat /proc/self/status
	grep -qx "Uid:	0	0	0	0" <<<"$output"
	run -0 --separate-stderr "$SHARNESS_EXEC" run --user 65534:65534 -p "$TMP/p.json" -- \
		sh -c 'cat /proc/self/status; echo "env $HOME $USER $LOGNAME"; echo made >"$1/made"' sh "$TMP/w"
	ids_are "$output" 65534
	local home
	home=$(getent passwd 65534 | cut -d: -f6)
	[ "${lines[-1]}" = "env $home $(id -un 65534) $(id -un 65534)" ]
	[ -z "$stderr" ]
	# On the host, the file is 65534's.
	[ "$(stat -c %u:%g "$TMP/w/made")" = 65534:65534 ]
	# The dry run shows the numbers the landlock step gets, and the
	# limits step is told that rlimits will not do.
	run -0 --separate-stderr "$SHARNESS_EXEC" run --dry-run --user 65534:65534 -p "$TMP/p.json" -- true
	grep -q '^.*/sharness-exec-landlock -e [0-9]* -W [0-9]* --user 65534:65534 -r /proc ' <<<"$output"
	grep -q '^.*/sharness-exec-limits -W 4 -g 5:6 -U -m 64 --$' <<<"$output"
	! grep -q -- ' -G ' <<<"$output"
}

@test "--user: a 512 MiB allocation is killed by the cgroup's memory cap (max_memory_mb 64)" {
	need_user
	require_feature cgroup1
	# Bare: with room, the same allocation is made.
	user_policy '"none"' ',"max_memory_mb":1024'
	run -0 --separate-stderr "$SHARNESS_EXEC" run --user 65534:65534 -p "$TMP/p.json" -- "$TRY" alloc 512
	[ "$output" = ok ]
	user_policy '"none"' ',"max_memory_mb":64'
	# The cap is in the run's cgroup, beneath this test's own, not on
	# RLIMIT_AS (which would fail the malloc instead of killing).
	run -0 --separate-stderr "$SHARNESS_EXEC" run --check --user 65534:65534 -p "$TMP/p.json"
	local own
	own=$(sed -n 's/^[0-9]*:memory:\(.*\)$/\1/p' /proc/self/cgroup)
	[ "$own" = / ] && own=
	grep -qE "^sharness-exec-limits: memory=/sys/fs/cgroup/memory$own/sharness-exec\.[0-9]+ memory_mib=64 " <<<"$output"
	run -137 --separate-stderr "$SHARNESS_EXEC" run --user 65534:65534 -p "$TMP/p.json" -- "$TRY" alloc 512
	[ -z "$output" ]
}

@test "--user: no way back to root: setuid(0), a set-uid-root binary, ptrace of root processes" {
	need_user
	user_policy '{"connect_tcp_ports":[],"bind_tcp_ports":[]}' ',"max_pids":64'
	# Bare: root's target may setuid(0) (it is uid 0 already).
	run -0 --separate-stderr "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TRY" setuid
	[ "$output" = ok ]
	run -1 --separate-stderr "$SHARNESS_EXEC" run --user 65534:65534 -p "$TMP/p.json" -- "$TRY" setuid
	[ "$output" = "refused: Operation not permitted" ]

	# A set-uid-root copy, in a path the target may exec: outside, it
	# really gives 65534 euid 0; inside, nothing (nosuid, no_new_privs).
	cp "$TRY" "$TMP/bin/suid"
	chown 0:0 "$TMP/bin/suid"
	chmod 4755 "$TMP/bin/suid"
	run -0 as_nobody "$TMP/bin/suid" euid
	[ "$output" = "uid=65534 euid=0" ]
	run -0 --separate-stderr "$SHARNESS_EXEC" run --user 65534:65534 -p "$TMP/p.json" -- "$TMP/bin/suid" euid
	[ "$output" = "uid=65534 euid=65534" ]

	# ptrace: a root sleep of this test (root may attach to it; from
	# inside it is not even there), pid 1 of the run's namespace and the
	# listen guard (root, inside); and, to show ptrace works in there, a
	# child of the target's own.
	sleep 1000 3>&- &
	sleeper=$!
	run -0 "$TRY" ptrace "$sleeper"
	[ "$output" = ok ]
	run -0 --separate-stderr "$SHARNESS_EXEC" run --user 65534:65534 -p "$TMP/p.json" -- sh -c '
		t=$1 n=0
		# The view'\''s /proc hides init and the listen guard (hidepid):
		# try the pids they take, before the target has children.
		for p in 3 4 5 6 7 8; do
			case $("$t" ptrace "$p") in *"not permitted"*) n=$((n + 1)) ;; esac
		done
		sleep 1000 & kid=$!
		echo "kid: $("$t" ptrace "$kid")"; kill -9 "$kid"
		echo "init: $("$t" ptrace 1)"
		echo "guard: $n refused"
		echo "host: $("$t" ptrace "$2")"' sh "$TRY" "$sleeper"
	echo "$output"
	[ "${lines[0]}" = "kid: ok" ]
	[ "${lines[1]}" = "init: refused: Operation not permitted" ]
	[ "${lines[2]}" != "guard: 0 refused" ]
	[ "${lines[3]}" = "host: refused: No such process" ]
}

@test "--user 1000, by name and by number; a uid without a passwd entry only as UID:GID" {
	need_user
	local name
	name=$(getent passwd 1000 | cut -d: -f1)
	if [ -z "$name" ]; then
		name=sharness-u$$
		useradd -M -N -u 1000 -g 65534 -d /nonexistent -s /usr/sbin/nologin "$name"
		made_user=$name
	fi
	local gid
	gid=$(getent passwd 1000 | cut -d: -f4)
	user_policy
	for who in "$name" 1000; do
		run -0 --separate-stderr "$SHARNESS_EXEC" run --user "$who" -p "$TMP/p.json" -- \
			sh -c 'grep -E "^(Uid|Gid|Groups):" /proc/self/status; echo "$USER"'
		grep -qx "Uid:	1000	1000	1000	1000" <<<"$output"
		grep -qx "Gid:	$gid	$gid	$gid	$gid" <<<"$output"
		grep -qx "Groups:	 *" <<<"$output"
		[ "${lines[-1]}" = "$name" ]
	done
	# A uid nobody has: refused as a bare number, run as UID:GID.
	local free=4242
	while getent passwd "$free" >/dev/null; do free=$((free + 1)); done
	run -125 --separate-stderr "$SHARNESS_EXEC" run --user "$free" -p "$TMP/p.json" -- touch "$TMP/w/ran"
	[ "$stderr" = "sharness-exec: fatal: refused: --user $free: no passwd entry for uid $free (give UID:GID)" ]
	[ ! -e "$TMP/w/ran" ]
	run -0 --separate-stderr "$SHARNESS_EXEC" run --user "$free:$free" -p "$TMP/p.json" -- \
		sh -c 'grep -E "^(Uid|Gid|Groups):" /proc/self/status; echo "user=${USER-unset}"'
	ids_are "$output" "$free"
	[ "${lines[-1]}" = user=unset ]
	run -125 --separate-stderr "$SHARNESS_EXEC" run --user no-such-user-$$ -p "$TMP/p.json" -- true
	[ "$stderr" = "sharness-exec: fatal: refused: --user no-such-user-$$: no such user" ]
	run -125 --separate-stderr "$SHARNESS_EXEC" run --user root -p "$TMP/p.json" -- true
	[ "$stderr" = "sharness-exec: fatal: refused: --user root is root: leave --user out" ]
}

@test "--user: a caller that is not root gets a usage error, 125, nothing run" {
	need_user
	user_policy
	for u in 65534 1000; do
		run -125 --separate-stderr setpriv --reuid="$u" --regid="$u" --clear-groups -- \
			"$SHARNESS_EXEC" run --user 65534:65534 -p "$TMP/p.json" -- touch "$TMP/w/ran"
		[ "${stderr_lines[0]}" = "sharness-exec: fatal: --user is for a root caller only (sudo sharness-exec run --user ...)" ]
		[[ "${stderr_lines[1]}" == "usage: sharness-exec run "* ]] && [ "${#stderr_lines[@]}" = 2 ]
		[ ! -e "$TMP/w/ran" ]
	done
	run -125 --separate-stderr "$SHARNESS_EXEC" run --user-groups -p "$TMP/p.json" -- true
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: --user-groups needs --user" ]
	run -125 --separate-stderr "$SHARNESS_EXEC" run --user 1:2:3 -p "$TMP/p.json" -- true
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: unable to parse --user 1:2:3: not NAME, UID or UID:GID" ]
}

@test "--user: a policy file or a rule path's symlink that USER owns is refused, 125" {
	need_user
	user_policy
	# Bare: root's file runs.
	run -0 --separate-stderr "$SHARNESS_EXEC" run --user 65534:65534 -p "$TMP/p.json" -- touch "$TMP/w/ran0"
	[ -e "$TMP/w/ran0" ]
	# USER's own file: an earlier run as USER could have written it.
	chown 65534:65534 "$TMP/p.json"
	run -125 --separate-stderr "$SHARNESS_EXEC" run --user 65534:65534 -p "$TMP/p.json" -- touch "$TMP/w/ran1"
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: refused: policy file $TMP/p.json: it is owned by another user" ]
	[ "${stderr_lines[1]}" = "hint: under --user only root may be able to change it: an earlier run as that user could have planted it" ]
	[ "${#stderr_lines[@]}" = 2 ]
	[ ! -e "$TMP/w/ran1" ]
	# A symlink USER made on a rule path.
	chown 0:0 "$TMP/p.json"
	ln -s /etc "$TMP/bin/link"
	chown -h 65534:65534 "$TMP/bin/link"
	write_policy "$TMP/p.json" '{"pbp":1,"id":"user","files":{"read":["'"$TMP"'/bin/link"],
	  "exec":["/usr","/bin","/lib","/lib64"],"write":["'"$TMP"'/w"]},"network":"none",
	  "process":{"no_new_privs":true}}'
	run -125 --separate-stderr "$SHARNESS_EXEC" run --user 65534:65534 -p "$TMP/p.json" -- touch "$TMP/w/ran2"
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: refused: files.read[0] \"$TMP/bin/link\": symlink \"$TMP/bin/link\" is owned by uid 65534, not by root (--user)" ]
	[ ! -e "$TMP/w/ran2" ]
}

@test "--user: env.private is made by root and given to USER" {
	need_user
	chmod 755 "$TMP/w"
	write_policy "$TMP/p.json" '{"pbp":1,"id":"user","files":{"read":["/etc"],
	  "exec":["/usr","/bin","/lib","/lib64"],"write":["'"$TMP"'/w"]},"network":"none",
	  "process":{"no_new_privs":true},"env":{"private":"'"$TMP"'/w/priv"}}'
	run -0 --separate-stderr "$SHARNESS_EXEC" run --user 65534:65534 -p "$TMP/p.json" -- \
		sh -c 'echo "$HOME"; echo x >"$HOME/f"'
	[ "$output" = "$TMP/w/priv/home" ]
	[ "$(stat -c '%u:%g %a' "$TMP/w/priv" "$TMP/w/priv/home" "$TMP/w/priv/tmp")" = "65534:65534 700
65534:65534 700
65534:65534 700" ]
	[ "$(stat -c %u "$TMP/w/priv/home/f")" = 65534 ]
	# Once made, it is USER's, and a second run takes it as it is.
	run -0 --separate-stderr "$SHARNESS_EXEC" run --user 65534:65534 -p "$TMP/p.json" -- cat "$TMP/w/priv/home/f"
	[ "$output" = x ]
	# A directory of another user's is refused.
	chown 1000 "$TMP/w/priv/tmp"
	run -125 --separate-stderr "$SHARNESS_EXEC" run --user 65534:65534 -p "$TMP/p.json" -- true
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: refused: env.private: $TMP/w/priv/tmp is owned by another user" ]
}

@test "--user-groups keeps USER's groups, and warns about a privileged one; without it, none" {
	need_user
	made_group=sharness-g$$
	groupadd "$made_group"
	made_user=sharness-u$$
	useradd -M -N -g 65534 -G "adm,$made_group" -d /nonexistent -s /usr/sbin/nologin "$made_user"
	local uid adm mine
	uid=$(id -u "$made_user")
	adm=$(getent group adm | cut -d: -f3)
	mine=$(getent group "$made_group" | cut -d: -f3)
	user_policy
	run -0 --separate-stderr "$SHARNESS_EXEC" run --user "$made_user" -p "$TMP/p.json" -- cat /proc/self/status
	grep -qx "Uid:	$uid	$uid	$uid	$uid" <<<"$output"
	grep -qx "Groups:	 *" <<<"$output"
	[ -z "$stderr" ]
	run -0 --separate-stderr "$SHARNESS_EXEC" run --user "$made_user" --user-groups -p "$TMP/p.json" -- \
		sh -c 'grep "^Groups:" /proc/self/status'
	local want
	want=$(printf '%s\n' 65534 "$adm" "$mine" | sort -n | tr '\n' ' ')
	[ "$output" = "Groups:	$want" ]
	[ "$stderr" = "sharness-exec: warning: --user-groups keeps groups of $made_user that carry host privileges: adm" ]
	run -0 --separate-stderr "$SHARNESS_EXEC" run --dry-run --user "$made_user" --user-groups -p "$TMP/p.json" -- true
	grep -q -- " --user $uid:65534 -G [0-9,]* " <<<"$output"
}

@test "sharness-exec-limits -U: caps on rlimits are refused (126), naming max_pids or max_memory_mb" {
	run -126 --separate-stderr "$LIMITS" -U -p 10 --rlimits "no controller" -- touch "$TMP/ran"
	[ "$stderr" = "sharness-exec-limits: fatal: refused: no cgroup (no controller) to hold max_pids under --user: RLIMIT_NPROC counts every process of the uid across the host" ]
	run -126 --separate-stderr "$LIMITS" -U -m 64 -- touch "$TMP/ran"
	[ "$stderr" = "sharness-exec-limits: fatal: refused: no cgroup (none given) to hold max_memory_mb under --user: RLIMIT_AS caps each process, not the run" ]
	[ ! -e "$TMP/ran" ]
	# Bare: without -u, the same caps go on rlimits with a warning.
	run -0 --separate-stderr "$LIMITS" -p 10 --rlimits "no controller" -- touch "$TMP/ran"
	[ -e "$TMP/ran" ]
}

@test "sharness-exec-landlock -u and -G: usage errors, 125" {
	for args in "--user 0:0" "--user 1" "--user x:1" "--user 1:" "-G 1 --user" "-G 1"; do
		# shellcheck disable=SC2086
		run -125 --separate-stderr "$LANDLOCK" $args -- true
		[[ "${stderr_lines[0]}" == "sharness-exec-landlock: fatal: "* ]]
	done
}
