#!/usr/bin/env bash
# bench/launch.sh [BUILD-DIR [services]]: what a launch (issue 29) costs
# beside the same roles started by hand with `run`, in ONE hyperfine run
# (this machine is noisy: compare within the run).
#
# Without a mode: two components, each a shell that prints its ready line
# and then sleeps, and main, /bin/true:
#   launch    sharness-exec launch: uids locked, the session's namespaces,
#             tmpfs and state directories, the CA and three certificates,
#             each role through run, both lines read, teardown waited for
#   by hand   the same three runs of the chain as root with --user, each
#             component's line read from a pipe, the components ended
#             with SIGTERM and waited for: no session, uids, CA or lock
#   bare      /bin/true
#
# services (issue 41): PostgreSQL 15 (Debian's, /usr/lib/postgresql/15/bin)
# and redis-server, each ready when its UNIX socket accepts, and main,
# /bin/true. initdb runs once, into a template; each round copies it
# afresh into the role's directory on a tmpfs, on every side, and
# postgres and redis run with fsync off and save nothing:
#   launch    sharness-exec launch of both, no "after" (they start
#             together), each ready on its socket ("ready": {"unix": ...}),
#             in its state directory; no identity (the services use no
#             certificate)
#   by hand   both started at once by `run --user` with the same
#             policies (each writing its role's own directory),
#             backgrounded, bench/unixwait until each
#             socket accepts (every 10 ms), main's run, both ended with
#             SIGTERM and waited for, the copy removed
#   bare      the same by hand without sharness-exec: the services'
#             own start and stop, the floor
# No bwrap line: bwrap passes no SIGTERM to the service (it dies by its
# --die-with-parent SIGKILL, skipping the shutdown that the others pay).
# The rounds are interleaved (BENCH_INTERLEAVE=1, RUNS=30 unless set), and
# BENCH_BEFORE=OLD-BUILD puts that build's launch in the same run.
#
# The by-hand runs' uids (HAND, HAND+1, HAND+2) lie outside launch's
# default range (MANIFEST_UID_RANGE, launch/manifest.h: 1879048192-
# 1879113727) and the ranges the tests pass to --uid-range, so that a
# launch, or a launch test, running beside the bench never sees them.
# A benchmark, never a test. Needs root.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
[ "$(id -u)" = 0 ] || { echo "bench/launch.sh: needs root, as launch does" >&2; exit 2; }
mode=${2:-}
case $mode in
'' | services) ;;
*) echo "usage: bench/launch.sh [BUILD-DIR [services]]" >&2; exit 2 ;;
esac
HAND=1879240000
bench_init "${1:-.}" test-sharness-exec sharness-exec-launch ${mode:+bench/unixwait}
fe=$build/test-sharness-exec
before=
if [ -n "${BENCH_BEFORE:-}" ]; then
	before=$(cd "$BENCH_BEFORE" && pwd)/test-sharness-exec
	[ -x "$before" ] || { echo "bench: no $before" >&2; exit 2; }
fi
sys='"/usr","/bin","/lib","/lib64"'

# services: PostgreSQL and redis (see the head of this file).
services() {
	local pgbin=/usr/lib/postgresql/15/bin state=/run/sharness-exec/session hand=$TMP/hand
	local db=$HAND:$HAND redis=$((HAND + 1)):$((HAND + 1)) main=$((HAND + 2)):$((HAND + 2))
	[ -x "$pgbin/postgres" ] && command -v redis-server >/dev/null ||
		{ echo "bench/launch.sh services: apt-get install postgresql-15 redis-server" >&2; exit 2; }
	chmod 755 "$TMP"
	# the template: initdb once, as nobody (initdb wants a user name)
	mkdir "$TMP/pg"
	chown nobody "$TMP/pg"
	setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
		"$pgbin/initdb" -D "$TMP/pg/data" -U postgres --auth=trust -N >/dev/null
	chmod -R a+rX "$TMP/pg"
	# each round's copy, in the directory $1, the component's own
	cat >"$TMP/db.sh" <<SH
cp -R $TMP/pg/data "\$1/data" && chmod 700 "\$1/data" || exit 1
exec $pgbin/postgres -D "\$1/data" -k "\$1" -c listen_addresses= -c fsync=off
SH
	cat >"$TMP/redis.sh" <<'SH'
exec redis-server --port 0 --unixsocket "$1/redis.sock" --dir "$1" --save '' --appendonly no --loglevel warning
SH
	# files ID READ WRITE: a policy that runs the system's programs, reads
	# READ and writes WRITE (JSON strings); a component's policy writes
	# its own directory: its state directory in the launch, its directory
	# on the by-hand tmpfs in the by-hand runs, its policy otherwise the same
	files() {
		printf '{"pbp":1,"id":"%s","files":{"exec":[%s]%s%s},"network":"none","process":{"no_new_privs":true}}' \
			"$1" "$sys" "${2:+,\"read\":[$2]}" "${3:+,\"write\":[\"$3\"]}"
	}
	for d in "$state" "$hand"; do
		files db "\"$TMP/pg\",\"$TMP/db.sh\"" "$d/db" >"$TMP/db-${d##*/}.json"
		files redis "\"$TMP/redis.sh\"" "$d/redis" >"$TMP/redis-${d##*/}.json"
	done
	files main >"$TMP/main.json"
	cat >"$TMP/m.json" <<JSON
{"launch":1,"id":"bench-services","components":[
 {"role":"db","command":["/bin/sh","$TMP/db.sh","$state/db"],"policy":$(cat "$TMP/db-session.json"),
  "ready":{"unix":"$state/db/.s.PGSQL.5432"}},
 {"role":"redis","command":["/bin/sh","$TMP/redis.sh","$state/redis"],"policy":$(cat "$TMP/redis-session.json"),
  "ready":{"unix":"$state/redis/redis.sock"}}],
 "main":{"role":"main","policy":$(cat "$TMP/main.json")}}
JSON
	chmod 644 "$TMP"/*.json "$TMP"/*.sh
	# the by-hand side's directories, on a tmpfs as launch's state
	# directories are, each its role's uid's
	mkdir "$hand"
	mount -t tmpfs -o nosuid,nodev,mode=0755 bench-launch-by-hand "$hand"
	trap 'umount "$TMP/hand" || true; rm -rf "$TMP"' EXIT
	mkdir -m 700 "$hand/db" "$hand/redis"
	chown "$db" "$hand/db"
	chown "$redis" "$hand/redis"
	cat >"$TMP/by-hand" <<SH
#!/usr/bin/env bash
set -e
cd /
"$fe" run --user $db --policy $TMP/db-hand.json --expect-hash $(hash db-hand) -- /bin/sh $TMP/db.sh $hand/db &
a=\$!
"$fe" run --user $redis --policy $TMP/redis-hand.json --expect-hash $(hash redis-hand) -- /bin/sh $TMP/redis.sh $hand/redis &
b=\$!
$build/bench/unixwait $hand/db/.s.PGSQL.5432 $hand/redis/redis.sock || { kill -TERM \$a \$b; wait; exit 1; }
"$fe" run --user $main --policy $TMP/main.json --expect-hash $(hash main) -- /bin/true
kill -TERM \$a \$b
wait \$a \$b || true
rm -rf $hand/db/data
SH
	cat >"$TMP/bare" <<SH
#!/usr/bin/env bash
set -e
cd /
setpriv --reuid=$HAND --regid=$HAND --clear-groups /bin/sh $TMP/db.sh $hand/db &
a=\$!
setpriv --reuid=$((HAND + 1)) --regid=$((HAND + 1)) --clear-groups /bin/sh $TMP/redis.sh $hand/redis &
b=\$!
$build/bench/unixwait $hand/db/.s.PGSQL.5432 $hand/redis/redis.sock || { kill -TERM \$a \$b; wait; exit 1; }
/bin/true
kill -TERM \$a \$b
wait \$a \$b || true
rm -rf $hand/db/data
SH
	chmod 755 "$TMP/by-hand" "$TMP/bare"
	mh=$(hash m)
	hand_outside
	cd /
	# each once, what it says shown only when it fails
	for c in "$fe launch -m $TMP/m.json -H $mh -- /bin/true" "$TMP/by-hand" "$TMP/bare"; do
		$c >"$TMP/log" 2>&1 || { cat "$TMP/log" >&2; echo "bench: $c failed" >&2; exit 1; }
	done
	BENCH_INTERLEAVE=${BENCH_INTERLEAVE-1} RUNS=${RUNS:-${BENCH_RUNS:-30}} bench_run \
		bare "$TMP/bare" \
		"by hand" "$TMP/by-hand" \
		launch "$fe launch -m $TMP/m.json -H $mh -- /bin/true" \
		${before:+before "$before launch -m $TMP/m.json -H $mh -- /bin/true"}
	bench_table "by hand"
}
line='["/bin/sh","-c","echo ready; exec sleep infinity"]'
hash() { "$fe" hash "$TMP/$1.json"; }
# hand_outside: the by-hand uids lie outside the range launch takes from
# (its dry run of $TMP/m.json, pinned by $mh, says which)
hand_outside() {
	local r
	r=$("$fe" launch --dry-run -m "$TMP/m.json" -H "$mh" -- /bin/true 2>/dev/null |
		sed -n 's/^uids: .* from \([0-9]*-[0-9]*\),.*/\1/p') || true
	[ -n "$r" ] && { [ $((HAND + 2)) -lt "${r%-*}" ] || [ "$HAND" -gt "${r#*-}" ]; } ||
		{ echo "bench/launch.sh: by-hand uids $HAND-$((HAND + 2)) in launch's range ${r:-(none said)}" >&2; exit 2; }
}
if [ "$mode" = services ]; then
	services
	exit
fi
policy() {
	printf '{"pbp":1,"id":"%s","files":{"exec":[%s]},"network":"none","process":{"no_new_privs":true}}' "$1" "$sys"
}
cat >"$TMP/m.json" <<JSON
{"launch":1,"id":"bench","components":[
 {"role":"a","command":$line,"policy":$(policy a),"ready":{"stdout_line":true},"identity":true},
 {"role":"b","command":$line,"policy":$(policy b),"ready":{"stdout_line":true},"identity":true}],
 "main":{"role":"main","policy":$(policy main),"identity":true}}
JSON
for r in a b main; do
	policy "$r" >"$TMP/$r.json"
done
chmod 644 "$TMP"/*.json
cat >"$TMP/by-hand" <<SH
#!/usr/bin/env bash
set -e
cd /
start() {
	"$fe" run --user "\$1" --policy "$TMP/\$2.json" --expect-hash "\$3" -- /bin/sh -c 'echo ready; exec sleep infinity'
}
exec 3< <(start $HAND:$HAND a $(hash a))
a=\$!
read -r _ <&3
exec 4< <(start $((HAND + 1)):$((HAND + 1)) b $(hash b))
b=\$!
read -r _ <&4
"$fe" run --user $((HAND + 2)):$((HAND + 2)) --policy "$TMP/main.json" --expect-hash $(hash main) -- /bin/true
kill -TERM \$a \$b
wait \$a \$b || true
SH
chmod 755 "$TMP/by-hand"
mh=$(hash m)
hand_outside
cd /
"$fe" launch -m "$TMP/m.json" -H "$mh" -- /bin/true
"$TMP/by-hand"
RUNS=${RUNS:-${BENCH_RUNS:-30}} bench_run \
	bare /bin/true \
	"by hand" "$TMP/by-hand" \
	launch "$fe launch -m $TMP/m.json -H $mh -- /bin/true" \
	${before:+before "$before launch -m $TMP/m.json -H $mh -- /bin/true"}
bench_table "by hand"
