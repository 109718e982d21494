#!/usr/bin/env bats
# The shape of the sources (issue 15): what the front end links stays small
# enough to audit in one sitting. Budgets: the .c and .h files linked into
# sharness-exec (its _SOURCES and those of the libraries its _LDADD names,
# read from Makefile.am) at most 3,000 lines; no top-level .c file over 600
# lines; no function over 100 lines (a brace-depth scan, documented in
# tests/helpers/shape.sh); no pair of places sharing six lines or more in the
# C sources outside tests/ and fuzz/ (the examples share examples/src/).
# Each failure lists the files at fault.
# not tested: what the compiler makes of the sources (the budgets count
# lines, comments included).

load helpers/load

SHAPE="$BATS_TEST_DIRNAME/helpers/shape.sh"
LINK_BUDGET=3000
FILE_BUDGET=600
FUNCTION_BUDGET=100
# Issue 15 is open: what is over its budget today is named here with its
# size today, as a ceiling it may not grow past. Each entry goes when its
# file comes under the budget; nothing else may join the list. Since the
# fifth stop no file and no function is over; the front end's link is.
LINK_TODAY=6273
FILES_OVER=""
FUNCTIONS_OVER=""

# ceiling LIST KEY BUDGET: KEY's ceiling in LIST ("KEY:N" words), or BUDGET.
ceiling() {
	local w
	for w in $1; do
		[ "${w%:*}" = "$2" ] && { echo "${w##*:}"; return; }
	done
	echo "$3"
}

@test "the sources linked into sharness-exec stay at most $LINK_TODAY lines (budget $LINK_BUDGET, issue 15)" {
	local f n total=0
	while read -r f; do
		n=$(wc -l <"$top_srcdir/$f")
		printf '%6d %s\n' "$n" "$f"
		total=$((total + n))
	done < <(bash "$SHAPE" "$top_srcdir" files sharness-exec)
	echo "total: $total (budget $LINK_BUDGET, today's ceiling $LINK_TODAY)"
	[ "$total" -gt 1000 ]   # the scan found the sources at all
	[ "$total" -le "$LINK_TODAY" ]
}

@test "no top-level .c file is over $FILE_BUDGET lines, but those named, which do not grow" {
	local f n over=0 max
	for f in "$top_srcdir"/*.c; do
		n=$(wc -l <"$f")
		max=$(ceiling "$FILES_OVER" "${f##*/}" "$FILE_BUDGET")
		[ "$n" -le "$max" ] && continue
		echo "over: ${f##*/}: $n lines (ceiling $max)"
		over=$((over + 1))
	done
	[ "$over" = 0 ]
}

@test "no function of a top-level .c file is over $FUNCTION_BUDGET lines, but those named, which do not grow" {
	local f n name over=0 max
	for f in "$top_srcdir"/*.c; do
		read -r n name < <(bash "$SHAPE" "$top_srcdir" longest "$f")
		max=$(ceiling "$FUNCTIONS_OVER" "${f##*/}:$name" "$FUNCTION_BUDGET")
		[ "$n" -le "$max" ] && continue
		echo "over: ${f##*/}: $name() is $n lines (ceiling $max)"
		over=$((over + 1))
	done
	[ "$over" = 0 ]
}

@test "the function scan sees a known function and its length" {
	printf '%s\n' '/* { not a brace */' 'static int f(void)' '{' '	if (1) {' \
		'		char c = '"'"'}'"'"';' '		return "{";' '	}' '	return 0;' '}' \
		'static const int t[] = { 1, 2 };' 'int g(void)' '{' '	return 1;' '}' >"$TMP/x.c"
	run -0 bash "$SHAPE" "$top_srcdir" longest "$TMP/x.c"
	[ "$output" = "7 f" ]
}

@test "duplicates finds no pair in the C sources outside tests and fuzz" {
	# The developers' own tool, not a Debian package: users and CI lack it.
	command -v duplicates >/dev/null ||
		not_here tool:duplicates "the duplicates tool is the developers' own, not packaged"
	run -0 duplicates --repo "$top_srcdir" --most 200 --seconds 120
	local pairs
	# Rows: "D1 a.c:10-24 ~ b.c:40-54 ...": both sides C sources we keep.
	pairs=$(awk '$1 ~ /^D[0-9]+$/ && $2 ~ /\.[ch]:/ && $4 ~ /\.[ch]:/ &&
		$2 !~ /^(tests|fuzz)\// && $4 !~ /^(tests|fuzz)\//' <<<"$output")
	[ -z "$pairs" ] || { echo "$pairs"; return 1; }
}

# fatal_writers DIR: the lines of DIR's .c and .h files whose string
# literals write "fatal: " by hand, comments aside; common.c alone writes
# it (die_hint, diex, usage_fail, fatal_say). Not writers: the readers of
# such lines in a run's stderr (walls.c, sign.c) or the status pipe
# (report.c), and the wrapper that
# wrap.c writes, a shell script that says its own.
fatal_writers() {
	(cd "$1" && grep -HnE '"[^"]*fatal: ' -- *.[ch]) |
		grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/\*|\*)' |
		grep -vE '^common\.[ch]:' |
		grep -vE '^walls\.c:.*strstr\(c->err, ": fatal: "\)' |
		grep -vE '^report\.c:.*memmem\(line, len, ": fatal: ", 9\)' |
		grep -vE '^sign\.c:.*static const char fatal\[\] = ' |
		grep -vE "^wrap\.c:.*printf '%%s: fatal: refused: " || true
}

@test "one voice: no fatal: line is written by hand, outside common.c's helpers" {
	local hits
	hits=$(fatal_writers "$top_srcdir")
	[ -z "$hits" ] || { echo "written by hand:"; echo "$hits"; return 1; }
	# The scan sees one, in code and not in a comment.
	printf '%s\n' '/* "PROG: fatal: MSG" */' 'static void f(void)' '{' \
		'	fprintf(stderr, "%s: fatal: %s\n", progname, why);' '}' >"$TMP/x.c"
	run -0 fatal_writers "$TMP"
	[ "$output" = "x.c:4:	fprintf(stderr, \"%s: fatal: %s\n\", progname, why);" ]
}

# DESIGN.md 6 names each program's own files: its row is the program's
# sources in Makefile.am, less what every program links (the libraries'),
# in any order; and every top-level .c file is named there.
@test "DESIGN.md's table of programs and their files is Makefile.am's" {
	local design="$top_srcdir/DESIGN.md" prog row want got n=0 f
	local shared=" common.c text.c helper.c seccomp.c rights.c statuspipe.c "
	while IFS='|' read -r _ prog row _; do
		prog=$(tr -d ' `' <<<"$prog")
		[[ $prog == sharness-exec* ]] || continue
		got=$(tr ' ' '\n' <<<"$row" | grep . | LC_ALL=C sort | tr '\n' ' ')
		want=$(bash "$SHAPE" "$top_srcdir" files "$prog" | grep '\.c$' |
			while read -r f; do [[ $shared == *" $f "* ]] || echo "$f"; done |
			LC_ALL=C sort -u | tr '\n' ' ')
		echo "$prog"$'\n'"  DESIGN.md:   $got"$'\n'"  Makefile.am: $want"
		[ "$got" = "$want" ]
		n=$((n + 1))
	done < <(sed -n '/^## 6\. The chain as built/,$p' "$design")
	[ "$n" = 8 ]
	for f in "$top_srcdir"/*.c; do
		f=$(basename "$f")
		grep -q "\b${f//./\\.}\b" "$design" || { echo "not in DESIGN.md: $f"; return 1; }
	done
}
