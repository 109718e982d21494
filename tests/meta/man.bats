#!/usr/bin/env bats
# The manual pages: mandoc -Tlint has nothing to say about any of them, each
# program's usage agrees with the SYNOPSIS of its page, every page spells
# out the exit statuses 125, 126 and 127, and every page one refers to
# exists and is installed.
# not tested: rendering by groff and man-db (mandoc only), the prose itself.

load ../helpers/load

MAN="$top_srcdir/man"
PAGES=(sharness-exec.1 sharness-exec-netns.1 sharness-exec-supervise.1 sharness-exec-explain.1 sharness-exec-limits.1
	sharness-exec-landlock.1 sharness-exec-view.1 sharness-exec-probe.1 sharness-exec-sign.1
	sharness-exec-learn.1 sharness-exec-launch.1 sharness-exec-egress.1 sharness-exec-listen.1
	sharness-exec-policy.5 sharness-exec-manifest.5 sharness-exec-report.5)
HELPERS=(sharness-exec-netns sharness-exec-supervise sharness-exec-explain sharness-exec-limits sharness-exec-landlock
	sharness-exec-view sharness-exec-egress sharness-exec-listen)

setup() {
	setup_tmp
	# configure substitutes "no" when it found no mandoc.
	[ "${MANDOC:-no}" != no ] || MANDOC=mandoc
}

require_mandoc() {
	command -v "$MANDOC" >/dev/null || require_feature tool:mandoc
}

lint() {
	require_mandoc
	[ -s "$MAN/$1" ]
	run -0 --separate-stderr "$MANDOC" -Tlint -Wwarning "$MAN/$1"
	[ -z "$output$stderr" ]
}

# section PAGE NAME: the rendered text of section NAME of PAGE, without
# the overstrikes that -Tascii uses for bold and underline.
section() {
	"$MANDOC" -Tascii "$MAN/$1" | sed 's/.\x08//g' |
		awk -v s="$2" '$0 == s { f = 1; next } /^[A-Z][A-Z ]*$/ { f = 0 } f'
}

# One SYNOPSIS entry a line: an entry starts at the left margin of the
# section, its continuation lines are indented deeper.
synopsis() {
	section "$1" SYNOPSIS | awk '
		/^     [^ ]/ { if (e != "") print e; e = $0; next }
		/^ +[^ ]/ { e = e " " $0 }
		END { if (e != "") print e }'
}

# Case and spacing aside: "[arg ...]", "[ARG...]" and "[ARG]..." are the
# same thing.
normalize() {
	tr 'A-Z' 'a-z' | sed -e 's/^usage://' -e 's/[[:space:]][[:space:]]*/ /g' \
		-e 's/^ //' -e 's/ $//' -e 's/ \.\.\./.../g' -e 's/\.\.\.\]/].../g'
}

# The option letters a usage or synopsis line names, sorted.
letters() {
	grep -oE '(^|[[ |])-[A-Za-z]' | sed 's/.*-//' | LC_ALL=C sort -u | tr -d '\n'
}

@test "mandoc -Tlint: sharness-exec.1" { lint sharness-exec.1; }
@test "mandoc -Tlint: sharness-exec-netns.1" { lint sharness-exec-netns.1; }
@test "mandoc -Tlint: sharness-exec-supervise.1" { lint sharness-exec-supervise.1; }
@test "mandoc -Tlint: sharness-exec-explain.1" { lint sharness-exec-explain.1; }
@test "mandoc -Tlint: sharness-exec-limits.1" { lint sharness-exec-limits.1; }
@test "mandoc -Tlint: sharness-exec-landlock.1" { lint sharness-exec-landlock.1; }
@test "mandoc -Tlint: sharness-exec-view.1" { lint sharness-exec-view.1; }
@test "mandoc -Tlint: sharness-exec-probe.1" { lint sharness-exec-probe.1; }
@test "mandoc -Tlint: sharness-exec-sign.1" { lint sharness-exec-sign.1; }
@test "mandoc -Tlint: sharness-exec-learn.1" { lint sharness-exec-learn.1; }
@test "mandoc -Tlint: sharness-exec-launch.1" { lint sharness-exec-launch.1; }
@test "mandoc -Tlint: sharness-exec-egress.1" { lint sharness-exec-egress.1; }
@test "mandoc -Tlint: sharness-exec-listen.1" { lint sharness-exec-listen.1; }
@test "mandoc -Tlint: sharness-exec-policy.5" { lint sharness-exec-policy.5; }
@test "mandoc -Tlint: sharness-exec-manifest.5" { lint sharness-exec-manifest.5; }
@test "mandoc -Tlint: sharness-exec-report.5" { lint sharness-exec-report.5; }

@test "every page's footer names sharness-exec and its version, not BSD (.Os)" {
	require_mandoc
	local p foot version
	version=$("$SHARNESS_EXEC" --version | head -n 1)
	[[ $version == "sharness-exec "[0-9]* ]]
	for p in "${PAGES[@]}"; do
		foot=$("$MANDOC" -Tascii "$MAN/$p" | sed 's/.\x08//g' | tail -n 1)
		echo "$p: $foot"
		[[ $foot == "$version "*" $version" ]]
		[[ $foot != *BSD* ]]
	done
}

@test "every page in man/ is tested and installed" {
	local have want
	have=$(cd "$MAN" && ls | LC_ALL=C sort)
	want=$(printf '%s\n' "${PAGES[@]}" | LC_ALL=C sort)
	[ "$have" = "$want" ]
	# dist_man_MANS in Makefile.am, its continuation lines joined.
	run -0 sed -n '/^dist_man_MANS *=/,/[^\\]$/p' "$top_srcdir/Makefile.am"
	have=$(tr ' \t\\' '\n\n\n' <<<"$output" | sed -n 's|^man/||p' | LC_ALL=C sort)
	[ "$have" = "$want" ]
}

@test "sharness-exec --help: the usage is the SYNOPSIS of sharness-exec(1)" {
	require_mandoc
	run -0 --separate-stderr "$SHARNESS_EXEC" --help
	local usage page
	usage=$(sed '/^$/q' <<<"$output" | sed '/^$/d' | normalize)
	page=$(synopsis sharness-exec.1 | normalize)
	[ -n "$usage" ]
	echo "usage:"$'\n'"$usage"$'\n'"SYNOPSIS:"$'\n'"$page"
	[ "$usage" = "$page" ]
}

@test "sharness-exec run --help: the usage is run's line of the SYNOPSIS" {
	require_mandoc
	run -0 --separate-stderr "$SHARNESS_EXEC" run --help
	local usage page
	usage=$(head -n 1 <<<"$output" | normalize)
	page=$(synopsis sharness-exec.1 | normalize | grep '^sharness-exec run ')
	echo "usage: $usage"$'\n'"SYNOPSIS: $page"
	[ "$usage" = "$page" ]
}

# The usage lines of sharness-exec --help, one a line, "usage: " gone.
usage_lines() {
	"$SHARNESS_EXEC" --help | sed '/^$/q' | sed -e '/^$/d' -e 's/^usage: //' -e 's/^ *//'
}

@test "every command's --help exits 0: its usage line, then a described line for each option" {
	local line cmd opts o n=0
	while read -r line; do
		cmd=$(awk '{ print $2 }' <<<"$line")
		[[ $cmd == -* ]] && continue
		run -0 --separate-stderr "$SHARNESS_EXEC" "$cmd" --help
		echo "$output"
		[ -z "$stderr" ]
		[ "$(head -n 1 <<<"$output")" = "usage: $line" ]
		# the options of the usage line, then -h, --help
		opts=$(grep -oE -- '(^|[[ ])--?[a-zA-Z][a-z-]*' <<<"$line" | sed 's/^[[ ]//')
		for o in $opts -h --help; do
			# at the start of an option line, "-x, " or spaces before a long one, and a description after it
			grep -qE -- "^  (-[a-zA-Z], |    )?$o(, --[a-z-]+)?( [^ ]+)?  +[^ ]" <<<"$output" ||
				{ echo "$cmd --help does not describe $o"; return 1; }
			n=$((n + 1))
		done
		# and -h works as --help does
		[ "$("$SHARNESS_EXEC" "$cmd" -h)" = "$output" ]
	done < <(usage_lines)
	# 8 commands with 2 each for -h and --help, and run's 9 options
	[ "$n" -ge 30 ]
}

@test "run's -h and --help after other options are the same help" {
	run -0 --separate-stderr "$SHARNESS_EXEC" run --help
	local help=$output
	run -0 --separate-stderr "$SHARNESS_EXEC" run -p /nonexistent -n --help
	[ "$output" = "$help" ]
}

@test "sharness-exec(1) OPTIONS describes every option of --help" {
	require_mandoc
	local opts text o n=0
	run -0 --separate-stderr "$SHARNESS_EXEC" --help
	opts=$(grep -oE -- '(^|[ ,])--?[a-zA-Z][a-z-]*' <<<"$output" | sed 's/^[ ,]//' | LC_ALL=C sort -u)
	text=$(section sharness-exec.1 OPTIONS)
	for o in $opts; do
		grep -qE -- "(^|[ ,])$o( |,|\$)" <<<"$text" || { echo "not in OPTIONS: $o"; return 1; }
		n=$((n + 1))
	done
	# -p -H -n -v -h and the six long options, at least.
	[ "$n" -ge 11 ]
}

@test "each helper's -h usage names the options of its SYNOPSIS" {
	require_mandoc
	local h usage page
	for h in "${HELPERS[@]}"; do
		run -0 "$HELPERDIR/$h" -h
		usage=$(grep '^usage:' <<<"$output")
		page=$(synopsis "$h.1")
		echo "$h usage:    $usage"
		echo "$h SYNOPSIS: $page"
		[ -n "$usage" ] && [ -n "$page" ]
		[ "$(awk '{ print $2 }' <<<"$usage")" = "$h" ]
		[ "$(awk '{ print $1 }' <<<"$page")" = "$h" ]
		[ "$(letters <<<"$usage")" = "$(letters <<<"$page")" ]
		# and word for word, case and spacing aside
		[ "$(normalize <<<"$usage")" = "$(normalize <<<"$page")" ]
	done
}

# usage_is_synopsis PROGRAM: PROGRAM -h (several usage lines, the later
# ones indented) is its page's SYNOPSIS, word for word.
usage_is_synopsis() {
	local usage page
	run -0 --separate-stderr "$HELPERDIR/$1" -h
	usage=$(sed 's/^       /usage: /' <<<"$output" | normalize)
	page=$(synopsis "$1.1" | normalize)
	echo "usage:"$'\n'"$usage"$'\n'"SYNOPSIS:"$'\n'"$page"
	[ -n "$usage" ] && [ "$usage" = "$page" ]
}

@test "sharness-exec-probe -h: its usage is the SYNOPSIS of its page, word for word" {
	require_mandoc
	usage_is_synopsis sharness-exec-probe
}

@test "sharness-exec-sign -h: its usage is the SYNOPSIS of its page, word for word" {
	require_mandoc
	usage_is_synopsis sharness-exec-sign
}

@test "sharness-exec-learn -h: its usage is the SYNOPSIS of its page, word for word" {
	require_mandoc
	usage_is_synopsis sharness-exec-learn
}

@test "sharness-exec-launch -h: its usage is the SYNOPSIS of its page, word for word" {
	require_mandoc
	usage_is_synopsis sharness-exec-launch
}

@test "every program's page spells out 125, 126 and 127, not .Ex -std" {
	require_mandoc
	local p text
	for p in "${PAGES[@]}"; do
		[[ $p == *.1 ]] || continue
		! grep -q '^\.Ex' "$MAN/$p"
		text=$(section "$p" "EXIT STATUS")
		for code in 125 126 127; do
			grep -qw "$code" <<<"$text" || { echo "$p: EXIT STATUS lacks $code"; return 1; }
		done
	done
}

@test "every sharness-exec page a page refers to exists" {
	local refs r n=0
	refs=$(cat "$MAN"/* | sed -n 's/^\.Xr \(sharness-exec[a-z-]*\) \([0-9]\).*/\1.\2/p' | sort -u)
	for r in $refs; do
		[ -s "$MAN/$r" ] || { echo "refers to a missing page: $r"; return 1; }
		n=$((n + 1))
	done
	[ "$n" -ge 4 ]
}

@test "sharness-exec(1) documents every field of probe --json" {
	local keys k n=0
	keys=$("$SHARNESS_EXEC" probe --json | python3 -c 'import json, sys; print("\n".join(json.load(sys.stdin)))')
	for k in $keys; do
		grep -qE "^\.It Cm ([a-z_, ]*, )?$k( |,|$)" "$MAN/sharness-exec.1" ||
			{ echo "probe --json field $k is not in sharness-exec(1)"; return 1; }
		n=$((n + 1))
	done
	[ "$n" -ge 15 ]
}

# abi_table PAGE: "ABI KERNEL" per row of the page's table of Landlock ABIs.
abi_table() {
	sed -n 's/^\.It \([0-9][0-9]*\) Ta \([0-9][0-9.]*\) Ta .*/\1 \2/p' "$MAN/$1"
}

@test "the two tables of Landlock ABIs, in sharness-exec(1) and sharness-exec-probe(1), agree with each other and with the landlock step's" {
	local code
	abi_table sharness-exec.1 >"$TMP/front"
	abi_table sharness-exec-probe.1 >"$TMP/probe"
	cat "$TMP/front"
	[ "$(wc -l <"$TMP/front")" -ge 11 ]
	diff "$TMP/front" "$TMP/probe"
	# the table of rights and walls (rights.c) names the ABI and kernel
	# of every right Landlock holds
	code=$("$LANDLOCK" --rights | awk -F '\t' '$2 > 0 { print $2, $3 }' | sort -un)
	echo "rights.c: $code"
	[ "$(printf '%s\n' "$code" | wc -l)" -ge 7 ]
	printf '%s\n' "$code" | while read -r abi kernel; do
		grep -qx "$abi $kernel" "$TMP/front" || { echo "ABI $abi: landlock.c says $kernel"; exit 1; }
	done
}

@test "sharness-exec-landlock(1)'s RIGHTS AND WALLS is the table --rights prints, right by right" {
	run -0 --separate-stderr "$LANDLOCK" --rights
	[ "${#lines[@]}" -ge 12 ]
	printf '%s\n' "${lines[@]}" >"$TMP/rights"
	run -0 python3 - "$MAN/sharness-exec-landlock.1" "$TMP/rights" <<-'EOF'
		import sys
		page = open(sys.argv[1]).read()
		sec = page.split(".Sh RIGHTS AND WALLS\n", 1)[1].split("\n.Sh ", 1)[0]
		entries, name = {}, None
		order = []
		for line in sec.split("\n"):
		    if line.startswith(".It Dv "):
		        name = line[7:]
		        order.append(name)
		        entries[name] = []
		    elif name and not line.startswith("."):
		        entries[name].append(line)
		rows = [l.split("\t") for l in open(sys.argv[2]).read().splitlines()]
		assert order == [r[0] for r in rows], (order, [r[0] for r in rows])
		words = {"refused": "refused (126) unless -b", "refused-for-root":
		         "refused for a root caller", "warned": "it runs"}
		for name, abi, kernel, strict, would in rows:
		    text = " ".join(entries[name])
		    assert "Held by: " + would + "." in text, (name, would, text)
		    assert words[strict] in text, (name, strict, text)
	EOF
}
