#!/bin/sh
# Benchmark: how long `sharness-exec hello` takes (the aim: under 2 s), as
# the caller and, when run as root, as nobody (no writable cgroup there, so
# the memory probe fails by RLIMIT_AS instead of an OOM kill). Most of the
# time is the 512 MiB probe: the kernel reclaiming up to the cap, then the
# OOM kill. A benchmark, not a test.
#
#   bench/hello.sh [PATH-TO-sharness-exec]   (default: ./test-sharness-exec,
#                                             which finds the build tree's helpers)
set -eu

bin=${1:-./test-sharness-exec}
[ -x "$bin" ] || { echo "bench/hello.sh: no executable $bin (give its path)" >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "bench/hello.sh: hyperfine is not installed" >&2; exit 2; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")

"$bin" hello >/dev/null || { echo "bench/hello.sh: hello does not pass here; fix that first" >&2; exit 1; }
set -- --warmup 1 --runs 10 --command-name "hello as $(id -un)" "$bin hello"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	# nobody needs a current directory and a TMPDIR it can use
	set -- "$@" --command-name "hello as nobody" \
		"cd /tmp && TMPDIR=/tmp setpriv --reuid=65534 --regid=65534 --clear-groups -- $bin hello"
fi
hyperfine --output=null "$@"
