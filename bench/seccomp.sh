#!/bin/sh
# Benchmark: what the landlock step's seccomp filter costs per syscall, as
# ns per call and the ratio to no filter, for a syscall the filter does not
# name (the kernel caches its answer) and for named ones at the top, the
# middle and the end of the filter. A benchmark, not a test.
#
#   bench/seccomp.sh [PATH-TO-bench/seccomp-cost] [ITERATIONS]
#                     (default: ./bench/seccomp-cost, built by make check)
set -eu

prog=${1:-./bench/seccomp-cost}
[ -x "$prog" ] || { echo "bench/seccomp.sh: no executable $prog (make check builds it)" >&2; exit 2; }
"$prog" "${2:-200000}"
