#!/usr/bin/env bash
# bench/egress.sh [BUILD-DIR]: what the egress step costs a run whose
# network names hosts (DESIGN.md 4.9), in ONE benchmark run (compare
# ratios, not seconds; this machine is noisy), in the fake internet of the
# tests (tests/helpers/egress.bash: network namespaces of its own joined by
# a veth pair, a DNS server, an HTTPS server under a test CA; nothing leaves
# them). The same curl fetches from good.test run under `sharness-exec run`
# twice: with "network": {"hosts": ["good.test:443"]}, through the egress
# step, and with the object form ({"connect_tcp_ports": [443],
# "connect_udp_ports": [53]}: its DNS queries too; --best-effort below
# Landlock ABI 10, which UDP ports need), straight to the server, the chain
# otherwise alike; and bare, for scale:
#   1     one small fetch: a run's start with its connection set-up
#   20    twenty small fetches, one curl and one connection each
#   big   one fetch of 32 MiB (BENCH_EGRESS_MIB): throughput
# From the medians: the run's start (1), a connection's set-up
# ((20 - 1) / 19) and throughput (MiB / (big - 1)), each through the step
# over direct. Needs root, ip, openssl, python3 and curl. RUNS (30) rounds;
# BENCH_INTERLEAVE=1 as the other benchmarks. A benchmark, never a test.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

# The measuring half, run by the first inside the caller's namespace of
# the fake internet (H), whose /etc/resolv.conf names the fake DNS server.
if [ -n "${BENCH_EGRESS_INSIDE:-}" ]; then
	build=$1 TMP=$BENCH_EGRESS_INSIDE
	fe=$build/test-sharness-exec
	mib=${BENCH_EGRESS_MIB:-32}
	f=$TMP/fetch
	one=https://good.test/x
	big=https://good.test/files/big
	# Each command once, unmeasured: a failure says why here, not in the
	# middle of the run.
	for c in "$fe run --best-effort -p $TMP/object.json -- /bin/sh $f 1 $big" \
		"$fe run -p $TMP/hosts.json -- /bin/sh $f 1 $big"; do
		$c || { echo "bench: failed: $c" >&2; exit 1; }
	done
	RUNS=${RUNS:-30}
	bench_run \
		bare-1 "/bin/sh $f 1 $one" \
		direct-1 "$fe run --best-effort -p $TMP/object.json -- /bin/sh $f 1 $one" \
		egress-1 "$fe run -p $TMP/hosts.json -- /bin/sh $f 1 $one" \
		bare-20 "/bin/sh $f 20 $one" \
		direct-20 "$fe run --best-effort -p $TMP/object.json -- /bin/sh $f 20 $one" \
		egress-20 "$fe run -p $TMP/hosts.json -- /bin/sh $f 20 $one" \
		bare-big "/bin/sh $f 1 $big" \
		direct-big "$fe run --best-effort -p $TMP/object.json -- /bin/sh $f 1 $big" \
		egress-big "$fe run -p $TMP/hosts.json -- /bin/sh $f 1 $big"
	bench_py <<PY
mib = $mib
w = max(len(n) for n in R)
for name, med in R.items():
    print(f"{name:{w}s} {med*1e3:9.2f} ms")
def conn(k): return (R[k + "-20"] - R[k + "-1"]) / 19
def rate(k): return mib / (R[k + "-big"] - R[k + "-1"])
print(f"a run's start and one fetch, through the step over direct: {R['egress-1']/R['direct-1']:.2f} x "
      f"({(R['egress-1']-R['direct-1'])*1e3:+.2f} ms); direct over bare {R['direct-1']/R['bare-1']:.2f} x")
print(f"a connection's set-up (curl, TLS, DNS): through the step {conn('egress')*1e3:.2f} ms, "
      f"direct {conn('direct')*1e3:.2f} ms, bare {conn('bare')*1e3:.2f} ms: "
      f"{conn('egress')/conn('direct'):.2f} x direct")
print(f"throughput of {mib} MiB over HTTPS: through the step {rate('egress'):.0f} MiB/s, "
      f"direct {rate('direct'):.0f} MiB/s, bare {rate('bare'):.0f} MiB/s: "
      f"{rate('egress')/rate('direct'):.2f} x direct")
PY
	exit 0
fi

[ "$(id -u)" = 0 ] || { echo "bench: needs root (network namespaces of its own)" >&2; exit 2; }
for t in ip openssl python3 curl; do
	command -v "$t" >/dev/null || { echo "bench: needs $t" >&2; exit 2; }
done
bench_init "${1:-.}" test-sharness-exec sharness-exec-netns sharness-exec-egress \
	sharness-exec-supervise sharness-exec-view sharness-exec-landlock
top_srcdir=$(cd "$here/.." && pwd)
. "$top_srcdir/tests/helpers/egress.bash"
trap 'fakenet_down; rm -rf "$TMP"' EXIT
fakenet_up "$TMP" || { echo "bench: unable to make the fake internet" >&2; exit 1; }
head -c "$((${BENCH_EGRESS_MIB:-32} * 1048576))" /dev/urandom >"$EG/www/big"
chmod 644 "$EG/www/big"
cp "$EG/ca.pem" "$TMP/ca.pem"
# fetch N URL: N fetches of URL, a curl and a connection each.
cat >"$TMP/fetch" <<SH
i=0
while [ \$i -lt "\$1" ]; do
	curl -sS --fail --max-time 120 --cacert $TMP/ca.pem -o /dev/null "\$2" || exit 1
	i=\$((i + 1))
done
SH
for p in object:'{"connect_tcp_ports":[443],"connect_udp_ports":[53]}' hosts:'{"hosts":["good.test:443"]}'; do
	cat >"$TMP/${p%%:*}.json" <<JSON
{"pbp":1,"id":"bench-egress","files":{"read":["/etc","$TMP"],"exec":["/usr","/bin","/lib","/lib64"],
 "write":["/dev/null"]},"network":${p#*:},"process":{"no_new_privs":true}}
JSON
done
chmod 755 "$TMP"
chmod 644 "$TMP"/*.json "$TMP/fetch" "$TMP/ca.pem"
ip netns exec "$NS-h" unshare -m sh -c 'mount --bind "$0/resolv.conf" /etc/resolv.conf && exec "$@"' \
	"$EG" env BENCH_EGRESS_INSIDE="$TMP" bash "$here/egress.sh" "$build"
