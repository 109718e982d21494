#!/usr/bin/env bats
# run --report's write_paths (sharness-exec-report(5), issue 38): for each
# write path, what the view step's walk did (entries, milliseconds, what it
# held read-only) or why it walked nothing, the very facts of --verbose's
# line (one note, viewwalk.c's say()), as root and as nobody: a write path
# of 300 files and a set-uid one reports exactly 301 entries (the walk
# counts every entry beneath the path, directories too, not the path
# itself) and the set-uid file held, which the target then cannot write; a
# write path on a nosuid tmpfs the test mounts is listed without a look at
# set-id (below Landlock ABI 9, the sockets' walk), and without a mount
# namespace not walked at all; a "tmpfs" path is no write path; a run
# refused before the view has null, a policy with no write path [].
#
# not tested: a write path not walked in a view (needs Landlock ABI 9, which
# holds the sockets, and files.write_vcs): the test at ABI >= 9 checks it
# where the kernel has it.
load ../helpers/load

DENY="$TRYDIR/deny-unshare"

setup() {
	setup_tmp
	W=$TMP/w
	R=$TMP/r
	mkdir -p "$W" "$R"
	chmod 1777 "$R"
	for i in $(seq 1 300); do : >"$W/f$i"; done
}

teardown() {
	teardown_tmp
}

# policy WRITE [FILES-EXTRA]: write WRITE (a JSON list's members), read
# /etc, a private tmpfs at $TMP/t, FILES-EXTRA spliced into "files".
policy() {
	chain_policy walk '"none"' '"/etc"' "$1" '' '' ',"tmpfs":["'"$TMP/t"'"]'"${2:-}"
}

# paths FILE: the report's write_paths, one line a write path: PATH WALKED
# ENTRIES SETID_LOOKED_FOR HELD SOCKETS WHY_NOT, and "ms" when ms is a whole
# number (null where not walked).
paths() {
	python3 - "$1" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
wp = r["write_paths"]
if wp is None:
    print("null")
    sys.exit(0)
for p in wp:
    assert sorted(p) == sorted(["path", "walked", "entries", "ms", "setid_looked_for",
                                "held", "sockets_covered", "why_not"]), p
    ms = "ms" if isinstance(p["ms"], int) and p["ms"] >= 0 else p["ms"]
    held = p["held"] and "%(setid)d/%(vcs)d/%(unlisted)d" % p["held"]
    print(p["path"], p["walked"], p["entries"], p["setid_looked_for"], held,
          p["sockets_covered"], ms, p["why_not"])
EOF
}

# As MODE, 300 files and a set-uid one: 301 entries, the set-uid file held
# read-only (the target's write is refused, the file unchanged outside),
# the tmpfs absent; the verbose line says the same number.
t_counted() {
	local mode=$1
	need "$mode"
	cp "$TRYDIR/try-syscall" "$W/suid"
	# the owner's, who can write it (chown clears the set-id bit: before)
	[ "$mode" = root ] || chown -R "$NOBODY_UID:$NOBODY_GID" "$W"
	chmod 4755 "$W/suid"
	local before
	before=$(sha256sum <"$W/suid")
	policy '"'"$W"'"'
	run --separate-stderr as "$mode" "$SHARNESS_EXEC" run --verbose --report "$R/r.json" \
		-p "$TMP/p.json" -- sh -c 'echo evil >"$1"' sh "$W/suid"
	[ "$status" -ne 0 ]
	[[ "$stderr" == *"$W/suid: Read-only file system"* ]]
	[ "$(sha256sum <"$W/suid")" = "$before" ]
	[[ "$stderr" == *"sharness-exec-view: write path $W: 301 entries walked in "*" ms, set-id looked for; held read-only: 1 set-id, 0 VCS, 0 unlisted; 0 sockets covered"* ]]
	run -0 paths "$R/r.json"
	[ "$output" = "$W True 301 True 1/0/0 0 ms None" ]
}

@test "a write path of 300 files and a set-uid one: 301 entries walked, the set-uid file held read-only (root)" { t_counted root; }
@test "a write path of 300 files and a set-uid one: 301 entries walked, the set-uid file held read-only (nobody)" { t_counted nobody; }

# Directories count, beneath the path, not the path itself; each write
# path not beneath another is one member, in the view's order (sorted).
@test "entries count every name beneath the path, directories too; a write path beneath another is not its own member (root)" {
	need root
	mkdir -p "$TMP/v/d1/d2"
	: >"$TMP/v/d1/d2/f"
	policy '"'"$W"'","'"$W/f1"'","'"$TMP/v"'"'
	run -0 "$SHARNESS_EXEC" run --report "$R/r.json" -p "$TMP/p.json" -- true
	run -0 paths "$R/r.json"
	[ "$output" = "$TMP/v True 3 True 0/0/0 0 ms None
$W True 300 True 0/0/0 0 ms None" ]
}

# On a nosuid tmpfs of the test's own mount namespace: set-id is not looked
# for, so the set-uid file there is not held (it runs set-uid nowhere);
# below ABI 9 the walk lists it for sockets, from ABI 9 with
# files.write_vcs nothing is walked.
@test "a write path on a nosuid tmpfs: listed without a look at set-id, or not walked from Landlock ABI 9 (root)" {
	need root
	require_feature tool:unshare
	mkdir "$TMP/n"
	policy '"'"$TMP/n"'"' ',"write_vcs":true'
	run -0 unshare -m sh -c '
		mount --make-rprivate / && mount -t tmpfs -o nosuid tmpfs "$1" &&
		cp "$2" "$1/suid" && chmod 4755 "$1/suid" && mkdir "$1/d" && : >"$1/d/f" &&
		exec "$3" run --report "$4" -p "$5" -- true
	' sh "$TMP/n" "$TRYDIR/try-syscall" "$SHARNESS_EXEC" "$R/r.json" "$TMP/p.json"
	run -0 paths "$R/r.json"
	if [ "$(landlock_abi)" -ge 9 ]; then
		[ "$output" = "$TMP/n False None False 0/0/0 0 None nosuid wherever its file system is mounted, sockets held by Landlock (ABI 9), VCS metadata writable (-V)" ]
	else
		[ "$output" = "$TMP/n True 3 False 0/0/0 0 ms None" ]
	fi
}

# Without a mount namespace (unshare refused) nothing is held: held and
# sockets_covered are null; a nosuid write path with files.write_vcs is not
# walked, and why_not says so; root needs --best-effort to run so at all.
@test "no mount namespace: held is null, and a nosuid write path with write_vcs is not walked, saying why (root)" {
	need root
	require_feature tool:unshare
	mkdir "$TMP/n"
	policy '"'"$TMP/n"'","'"$W"'"' ',"write_vcs":true'
	run -0 --separate-stderr unshare -m sh -c '
		mount --make-rprivate / && mount -t tmpfs -o nosuid tmpfs "$1" && : >"$1/f" &&
		exec "$2" "$3" run --verbose --best-effort --report "$4" -p "$5" -- true
	' sh "$TMP/n" "$DENY" "$SHARNESS_EXEC" "$R/r.json" "$TMP/p.json"
	# --verbose's line says the same, from the same figures
	[[ "$stderr" == *"sharness-exec-view: write path $TMP/n: not walked: nosuid wherever its file system is mounted, no mount namespace, VCS metadata writable (-V)"* ]]
	[[ "$stderr" == *"sharness-exec-view: write path $W: 300 entries walked in "* ]]
	run -0 paths "$R/r.json"
	[ "$output" = "$TMP/n False None False None None None nosuid wherever its file system is mounted, no mount namespace, VCS metadata writable (-V)
$W True 300 True None None ms None" ]
}

@test "no mount namespace: the walk is reported, nothing held (nobody)" {
	need nobody
	chain_policy walk '"none"' '"/etc"' '"'"$W"'"'
	run -0 as nobody "$DENY" "$SHARNESS_EXEC" run --report "$R/r.json" -p "$TMP/p.json" -- true
	run -0 paths "$R/r.json"
	[ "$output" = "$W True 300 True None None ms None" ]
}

# A run refused before the view walked: null; no write path at all: [].
t_none() {
	local mode=$1
	need "$mode"
	policy '"'"$W"'"'
	run -125 as "$mode" "$SHARNESS_EXEC" run --report "$R/a.json" -p "$TMP/p.json" \
		-H sha256:0000000000000000000000000000000000000000000000000000000000000000 -- true
	run -0 paths "$R/a.json"
	[ "$output" = null ]
	policy ''
	run -0 as "$mode" "$SHARNESS_EXEC" run --report "$R/b.json" -p "$TMP/p.json" -- true
	run -0 python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["write_paths"])' "$R/b.json"
	[ "$output" = "[]" ]
}

@test "refused before the view: write_paths null; no write path: [] (root)" { t_none root; }
@test "refused before the view: write_paths null; no write path: [] (nobody)" { t_none nobody; }
