#!/bin/sh
# Benchmark: `sharness-exec hash` of a 1 MiB policy against `sha256sum` of the
# same file, the floor for anything that reads and hashes it. One hyperfine
# run; prints the ratio (aim: under 3x). A benchmark, not a test.
#
#   bench/hash.sh [PATH-TO-sharness-exec]   (default: ./sharness-exec)
#
# The policy is the worst realistic kind: many paths, long strings, escapes
# of every sort, non-ASCII text, a few large objects, just under 1 MiB.
set -eu

bin=${1:-./sharness-exec}
[ -x "$bin" ] || { echo "bench/hash.sh: no executable $bin (give its path)" >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "bench/hash.sh: hyperfine is not installed" >&2; exit 2; }
command -v python3 >/dev/null || { echo "bench/hash.sh: python3 is not installed" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sharness-exec-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
policy=$tmp/policy.json

awk -v limit=$((1024 * 1024 - 4096)) 'BEGIN {
	q = "\""
	out = "{\n  \"pbp\": 1,\n  \"id\": \"bench-1mib\",\n  \"network\": \"none\",\n"
	out = out "  \"process\": {\"no_new_privs\": true, \"max_memory_mb\": 2048, \"max_pids\": 256},\n"
	out = out "  \"files\": {\n"
	n = 0
	for (k = 0; k < 3; k++) {
		kind = (k == 0) ? "read" : (k == 1) ? "write" : "exec"
		out = out "    " q kind q ": [\n"
		for (i = 0; i < 2500; i++) {
			out = out sprintf("      \"/srv/ci/%s/project-%05d/build/output/objects/très-long-répertoire/%s-%d\",\n", \
				kind, i, (i % 7 == 0) ? "with\\tescaped\\u0009tab" : "plain", i)
		}
		out = out "      \"/usr\"\n    ]" (k < 2 ? "," : "") "\n"
	}
	out = out "  },\n  \"env\": {\n    \"inherit\": [\"MAKEFLAGS\", \"CC\", \"CFLAGS\"],\n    \"set\": {\n"
	for (i = 0; length(out) < limit; i++) {
		out = out sprintf("      \"VAR_%05d\": \"value \\\"%d\\\" with \\\\ backslash, \\n newline, \\u00e9\\u4e2d\\ud83d\\ude00 and a long tail of ordinary text to make it realistic\",\n", i, i)
	}
	out = out "      \"LAST\": \"\"\n    }\n  }\n}\n"
	printf "%s", out
}' >"$policy"

size=$(wc -c <"$policy")
echo "policy: $size bytes"
"$bin" hash "$policy"

hyperfine --warmup 10 --min-runs 100 -N --export-json "$tmp/result.json" \
	"$bin hash $policy" "sha256sum $policy"

# Means, and medians and CPU time, which a busy machine disturbs less.
python3 -c 'import json,sys; a,b=json.load(open(sys.argv[1]))["results"]; cpu=lambda r: r["user"]+r["system"]; print("ratio: %.2fx sha256sum by mean (%.2f vs %.2f ms), %.2fx by median, %.2fx by CPU time" % (a["mean"]/b["mean"], a["mean"]*1e3, b["mean"]*1e3, a["median"]/b["median"], cpu(a)/cpu(b)))' "$tmp/result.json"
