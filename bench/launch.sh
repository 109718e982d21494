#!/usr/bin/env bash
# bench/launch.sh [BUILD-DIR]: what a launch (issue 29) costs beside the
# same roles started by hand with `run`, in ONE hyperfine run (this machine
# is noisy: compare within the run). Two components, each a shell that
# prints its ready line and then sleeps, and main, /bin/true:
#   launch    sharness-exec launch: uids locked, the session's namespaces,
#             tmpfs and state directories, the CA and three certificates,
#             each role through run, both lines read, teardown waited for
#   by hand   the same three runs of the chain as root with --user, each
#             component's line read from a pipe, the components ended
#             with SIGTERM and waited for: no session, uids, CA or lock
#   bare      /bin/true
# A benchmark, never a test. Needs root.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
[ "$(id -u)" = 0 ] || { echo "bench/launch.sh: needs root, as launch does" >&2; exit 2; }
bench_init "${1:-.}" test-sharness-exec sharness-exec-launch
fe=$build/test-sharness-exec
sys='"/usr","/bin","/lib","/lib64"'
line='["/bin/sh","-c","echo ready; exec sleep infinity"]'
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
hash() { "$fe" hash "$TMP/$1.json"; }
cat >"$TMP/by-hand" <<SH
#!/usr/bin/env bash
set -e
cd /
start() {
	"$fe" run --user "\$1" --policy "$TMP/\$2.json" --expect-hash "\$3" -- /bin/sh -c 'echo ready; exec sleep infinity'
}
exec 3< <(start 1879113000:1879113000 a $(hash a))
a=\$!
read -r _ <&3
exec 4< <(start 1879113001:1879113001 b $(hash b))
b=\$!
read -r _ <&4
"$fe" run --user 1879113002:1879113002 --policy "$TMP/main.json" --expect-hash $(hash main) -- /bin/true
kill -TERM \$a \$b
wait \$a \$b || true
SH
chmod 755 "$TMP/by-hand"
mh=$(hash m)
cd /
"$fe" launch -m "$TMP/m.json" -H "$mh" -- /bin/true
"$TMP/by-hand"
RUNS=${RUNS:-${BENCH_RUNS:-30}} bench_run \
	bare /bin/true \
	"by hand" "$TMP/by-hand" \
	launch "$fe launch -m $TMP/m.json -H $mh -- /bin/true"
bench_table "by hand"
