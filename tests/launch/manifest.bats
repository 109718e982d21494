#!/usr/bin/env bats
# launch 1 manifests (DESIGN.md 4.8, sharness-exec-manifest(5)): `check`
# over tests/fixtures/manifest (good/*.json accepted; each bad/NAME.json
# refused with exactly the lines of bad/NAME.expect, printed as
# `sharness-exec: FILE: LINE`), the hash of tests/vectors/manifest-*.json
# (the reference's, in expected.tsv, run by tests/hash.bats), and launch's
# verify step: pin, signature, id, and the plan; then the runtime's
# refusal of freeze_when_ready where no cgroup2 hierarchy is reachable (a
# mount namespace with none) or the launcher's cgroup there is not
# writable (one where cgroup2 is mounted read-only), before anything runs.
# not tested here: the session runtime (tests/launch-run.bats,
# tests/launch-freeze.bats).
load ../helpers/load
load ../helpers/fixtures

FIXTURES="$top_srcdir/tests/fixtures/manifest"
VECTORS="$top_srcdir/tests/vectors"
DESIGN="$VECTORS/manifest-design.json"

design_hash() {
	grep '^manifest-design.json' "$VECTORS/expected.tsv" | cut -f2
}

# runnable: $TMP/m.json, the design manifest with db writing beneath its
# state directory rather than /var/lib/redis, which a machine with Redis
# installed has (a directory outside the session, which launch refuses
# before it plans); its hash in $RH.
runnable() {
	sed 's|"/var/lib/redis"|"/run/sharness-exec/session/db/redis"|' "$DESIGN" >"$TMP/m.json"
	chmod 644 "$TMP/m.json"
	RH=$("$SHARNESS_EXEC" hash "$TMP/m.json")
}

@test "every good manifest is valid: status 0, its first line names it, nothing on stderr" {
	good_fixtures "$FIXTURES" 8 "launch 1 manifest"
}

@test "every bad manifest is refused with 125 and exactly its expected lines" {
	bad_fixtures "$FIXTURES" 50
}

@test "check describes each component and main: its policy's hash, the session's loopback, ready, identity" {
	run -0 --separate-stderr "$SHARNESS_EXEC" check "$DESIGN"
	[ "${#lines[@]}" = 4 ]
	local db
	db=$(grep '^manifest-design-db-policy.json' "$VECTORS/expected.tsv" | cut -f2)
	[ "${lines[1]}" = "components[0] \"db\": policy \"redis\" $db; network: the session's loopback, limited to the policy's ports; ready: TCP port 6380 accepts within 60 s; identity spiffe://SESSION/db" ]
	[[ ${lines[2]} == "components[1] \"kms\": policy \"kms\" sha256:"*"; network: the session's loopback; ready: its first stdout line within 10 s; frozen when ready; identity spiffe://SESSION/kms" ]]
	[[ ${lines[3]} == "main \"main\": policy \"make-check\" sha256:"* ]]
}

@test "a manifest written three ways has one hash; one port changed in one inline policy changes it" {
	local h f
	h=$(design_hash)
	for f in manifest-design manifest-design-reordered manifest-design-escaped; do
		run -0 --separate-stderr "$SHARNESS_EXEC" hash "$VECTORS/$f.json"
		[ "$output" = "$h" ]
		run -0 "$SHARNESS_EXEC" check "$VECTORS/$f.json"
	done
	run -0 --separate-stderr "$SHARNESS_EXEC" hash "$VECTORS/manifest-design-port-changed.json"
	[ "$output" != "$h" ]
}

@test "an inline policy's problems are those check finds in the same policy as a file of its own" {
	run -125 --separate-stderr "$SHARNESS_EXEC" check "$FIXTURES/bad/policy-problems.json"
	python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))["components"][0]["policy"]))' \
		"$FIXTURES/bad/policy-problems.json" >"$TMP/p.json"
	local inline=$stderr
	run -125 --separate-stderr "$SHARNESS_EXEC" check "$TMP/p.json"
	[ "$(sed "s|^sharness-exec: $TMP/p.json: ||" <<<"$stderr")" = \
	  "$(grep '"a": policy\.' <<<"$inline" | sed 's|^.*"a": policy\.||')" ]
}

@test "run refuses a manifest and launch a policy: 125, one line, Nothing ran" {
	cp "$DESIGN" "$TMP/m.json"
	chmod 644 "$TMP/m.json"
	run -125 --separate-stderr "$SHARNESS_EXEC" run --policy "$TMP/m.json" -- /bin/true
	[ "$stderr" = "sharness-exec: fatal: $TMP/m.json: a launch manifest, not a policy: see sharness-exec launch. Nothing ran." ]
	write_policy "$TMP/p.json" '{"pbp":1,"id":"x","network":"none","process":{"no_new_privs":true}}'
	run -125 --separate-stderr "$SHARNESS_EXEC" launch --manifest "$TMP/p.json" --dry-run -- /bin/true
	[ "$stderr" = "sharness-exec: fatal: $TMP/p.json: a policy, not a launch manifest (it has no \"launch\" key). Nothing ran." ]
}

@test "launch pins the manifest: a wrong hash or id is refused with 125 and Nothing ran" {
	local h zero=sha256:0000000000000000000000000000000000000000000000000000000000000000
	h=$(design_hash)
	run -125 --separate-stderr "$SHARNESS_EXEC" launch -m "$DESIGN" -H "$zero" --dry-run -- make check
	[ "$stderr" = "sharness-exec: fatal: refused: manifest hash is $h, expected $zero. Nothing ran." ]
	[ -z "$output" ]
	run -125 --separate-stderr "$SHARNESS_EXEC" launch -m "$DESIGN" -H "$h" --expect-id other -n -- make check
	[ "$stderr" = "sharness-exec: fatal: refused: manifest id is \"job\", expected \"other\". Nothing ran." ]
	run -125 --separate-stderr "$SHARNESS_EXEC" launch -m "$DESIGN" -H "$h" -n
	[[ ${stderr_lines[0]} == *"launch needs main's COMMAND after the options" ]]
}

@test "launch without --dry-run verifies, then where no cgroup2 is mounted its runtime refuses freeze_when_ready with 126 before anything runs" {
	require_feature root
	require_feature tool:unshare
	require_feature tool:findmnt
	# a mount namespace of the test's own, without any cgroup2 mount: as
	# on a machine of cgroup v1 alone
	run -126 --separate-stderr unshare -m --propagation private sh -c \
		'for m in $(findmnt -rn -t cgroup2 -o TARGET); do umount "$m" || exit 99; done; exec "$@"' \
		sh "$SHARNESS_EXEC" launch -m "$DESIGN" -H "$(design_hash)" -- make check
	[ "$stderr" = 'sharness-exec-launch: fatal: component "kms": freeze_when_ready needs cgroup v2 (on cgroup v1 a frozen task survives SIGKILL until thawed), and no cgroup2 hierarchy is mounted here (at /sys/fs/cgroup or /sys/fs/cgroup/unified). Nothing ran.
hint: mount cgroup2 (on a hybrid machine at /sys/fs/cgroup/unified), or leave freeze_when_ready out' ]
	[ -z "$output" ]
	# a changed manifest is refused by the front end, never run
	run -125 --separate-stderr "$SHARNESS_EXEC" launch -m "$DESIGN" -H "sha256:$(printf '0%.0s' {1..64})" -- make check
	[[ $stderr == "sharness-exec: fatal: "*"Nothing ran." ]]
}

@test "where the launcher's cgroup2 cgroup is not writable (a read-only cgroup2 mount) the runtime refuses freeze_when_ready with 126 before anything runs" {
	require_feature root
	require_feature tool:unshare
	require_feature tool:findmnt
	local root own
	root=$(findmnt -rn -t cgroup2 -o TARGET | grep -x -e /sys/fs/cgroup/unified -e /sys/fs/cgroup | head -1)
	[ -n "$root" ] || not_here cgroup2 "no cgroup2 hierarchy mounted here (the refusal above is that case)"
	own=$(sed -n 's/^0:://p' /proc/self/cgroup)
	[ "$own" = / ] && own=
	# a mount namespace of the test's own, where each cgroup2 mount is
	# read-only: root may write to no cgroup there
	run -126 --separate-stderr unshare -m --propagation private sh -c \
		'for m in $(findmnt -rn -t cgroup2 -o TARGET); do mount -o remount,bind,ro "$m" || exit 99; done; exec "$@"' \
		sh "$SHARNESS_EXEC" launch -m "$DESIGN" -H "$(design_hash)" -- make check
	[ "$stderr" = "sharness-exec-launch: fatal: component \"kms\": freeze_when_ready needs cgroup v2 (on cgroup v1 a frozen task survives SIGKILL until thawed), and its cgroup2 cgroup $root$own is not writable: Read-only file system. Nothing ran.
hint: mount cgroup2 (on a hybrid machine at /sys/fs/cgroup/unified), or leave freeze_when_ready out" ]
	[ -z "$output" ]
	# and outside that namespace the hierarchy is as writable as before
	[ -w "$root$own/cgroup.procs" ]
	! findmnt -rn -t cgroup2 -o OPTIONS | grep -q '^ro'
}

@test "launch refuses a caller who is not root with 125 and a hint; --dry-run needs no root" {
	require_feature nobody
	runnable
	run -125 --separate-stderr as_nobody "$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$RH" -- make check
	[ "$stderr" = "sharness-exec: fatal: launch needs root: it makes a uid for each component. Nothing ran.
hint: run it as root (sudo); --dry-run needs no root" ]
	# (--user: main writes /tmp, which a uid of the session's may not;
	# kms freezes, which needs cgroup2, whose mount alone nobody can see)
	run --separate-stderr as_nobody "$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$RH" -n \
		--user nobody -- make check
	[ "${lines[0]}" = "manifest \"job\" $RH (pinned)" ]
	if findmnt -rn -t cgroup2 >/dev/null; then [ "$status" = 0 ]; else [ "$status" = 126 ]; fi
}

@test "launch --dry-run prints the plan, and each chain as run --dry-run prints it for that policy" {
	require_feature root
	findmnt -rn -t cgroup2 >/dev/null || not_here cgroup2 "kms freezes: the dry run exits 126 where no cgroup2 hierarchy is mounted (tests/launch-daily.bats)"
	# main writes /tmp: a launch without --user refuses it, and so its dry run
	runnable
	run -125 --separate-stderr "$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$RH" --dry-run -- make check
	[ "${lines[0]}" = "manifest \"job\" $RH (pinned)" ]
	[ "${lines[2]}" = "uids: allocated at run time by $HELPERDIR/sharness-exec-launch from 1879048192-1879113727, one for each component and main" ]
	[[ ${stderr_lines[0]} == 'sharness-exec-launch: fatal: main "main": files.write[0] "/tmp" is a directory outside the session'* ]]
	run -0 --separate-stderr "$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$RH" --dry-run \
		--uid-range 2000000000-2000000100 --user nobody -- make check
	[ "${lines[2]}" = "uids: allocated at run time by $HELPERDIR/sharness-exec-launch from 2000000000-2000000100, one for each component; main runs as nobody" ]
	grep -qx 'component "db": chain as run --dry-run shows it (launch adds the session.s namespace and the uid):' <<<"$output"
	# db's chain is run's own for db's policy, taken from the manifest,
	# with db's state directory, which it writes unlisted; and it has it
	python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))["components"][0]["policy"]))' \
		"$TMP/m.json" >"$TMP/db.json"
	chmod 644 "$TMP/db.json"
	local db
	db=$("$SHARNESS_EXEC" run --dry-run --state-dir /run/sharness-exec/session/db --policy "$TMP/db.json" -- /usr/bin/redis-server --port 6380 --save '' 2>/dev/null)
	[[ $output == *"$db"* ]]
	grep -q -- ' -w /run/sharness-exec/session/db ' <<<"$(tr '\n' ' ' <<<"$db")"
	# main's chain ends in launch's COMMAND
	[ "${lines[-1]}" = "make check" ]
}

@test "launch --trust-key: a signed manifest verifies; sign and verify take manifests" {
	runnable
	run -0 --separate-stderr "$SHARNESS_EXEC" keygen -o "$TMP/k"
	local fp=$output
	run -0 --separate-stderr "$SHARNESS_EXEC" sign -k "$TMP/k.key" "$TMP/m.json"
	run -0 --separate-stderr "$SHARNESS_EXEC" verify -K "$TMP/k.pub" "$TMP/m.json"
	[ "$output" = "hash: $RH
id: job
key: $fp" ]
	# openssl checks the same signature over the canonical bytes
	"$SHARNESS_EXEC" hash --canonical "$TMP/m.json" >"$TMP/canon"
	openssl dgst -sha256 -verify "$TMP/k.pub" -signature "$TMP/m.json.sig" "$TMP/canon"
	run -0 --separate-stderr "$SHARNESS_EXEC" launch -m "$TMP/m.json" --trust-key "$TMP/k.pub" -n \
		--user nobody -- true
	[ "${lines[0]}" = "manifest \"job\" $RH (signed by $fp)" ]
	# changed after signing: refused
	sed -i "s/\"max_memory_mb\": 256/\"max_memory_mb\": 257/" "$TMP/m.json"
	run -125 --separate-stderr "$SHARNESS_EXEC" launch -m "$TMP/m.json" --trust-key "$TMP/k.pub" -n -- true
	[[ $stderr == *"is not a signature of manifest sha256:"*"Nothing ran." ]]
}

@test "launch unpinned takes a manifest only from a file nobody else could have changed" {
	runnable
	chmod 666 "$TMP/m.json"
	run -125 --separate-stderr "$SHARNESS_EXEC" launch -m "$TMP/m.json" -n -- true
	[[ ${stderr_lines[0]} == *"manifest file"* ]]
	chmod 644 "$TMP/m.json"
	run -0 --separate-stderr "$SHARNESS_EXEC" launch -m "$TMP/m.json" -n --user nobody -- true
	[ "${lines[0]}" = "manifest \"job\" $RH (not pinned)" ]
}
