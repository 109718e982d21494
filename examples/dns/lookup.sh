#!/bin/sh
# Resolve a name confined, with the host's network but nothing of it except
# TCP port 53: no other TCP port, no UDP at all, no listening port. The
# resolver in /etc/resolv.conf must then be asked over TCP, which glibc
# does with "options use-vc" (see resolv.conf here). On a kernel with
# Landlock ABI 10 (Linux 7.2) the policy could allow DNS over UDP instead:
#   "network": { "connect_udp_ports": [53], "bind_udp_ports": [0] }
# Below ABI 10 such a policy is refused unless --best-effort, which then
# leaves UDP unrestricted.
#   $ sh lookup.sh NAME
set -eu
here=$(cd "$(dirname "$0")" && pwd)
exec sharness-exec run --policy "$here/policy.json" \
	--expect-hash sha256:ea91d3a1125169b5f2537032397b339a4074d366d97e9b942e15e5ec90740da0 -- getent hosts "$1"
