#!/usr/bin/env bats
# One table of option letters (DESIGN.md 1): a letter means one thing in
# every helper. Each helper Makefile.am builds takes only the letters
# the table gives it, with an argument exactly where the table's letter has
# one, as its getopt strings (in the sources Makefile.am builds it from) and
# its -h usage say; and each helper a row names takes that letter.
# The front end's own letters a helper reads after its command word
# (launch -m FILE) are listed apart, and allowed only there.
# not tested: the meaning's words themselves (the usage and the man pages,
# held to each other by man.bats, say them); long options.

load ../helpers/load

# The table: one "L ARG HELPER..." line a row, ARG "-" for none.
table() {
	sed -n 's/^ *| `-\([A-Za-z]\)\( [^`]*\)\{0,1\}` | .* | \([a-z ]*\) |$/\1 \2 | \3/p' \
		"$top_srcdir/DESIGN.md" |
		awk -F' [|] ' '{ split($1, a, " "); print a[1], (a[2] == "" ? "-" : "ARG"), $2 }'
}

# The front end's words listed apart: "L ARG HELPER" a row.
front_words() {
	sed -n 's/^ *| `[a-z]* -\([A-Za-z]\)\( [^`]*\)\{0,1\}` | .* | \([a-z ]*\) |$/\1 \2 | \3/p' \
		"$top_srcdir/DESIGN.md" |
		awk -F' [|] ' '{ split($1, a, " "); print a[1], (a[2] == "" ? "-" : "ARG"), $2 }'
}

# The helpers Makefile.am builds (pkglibexec_PROGRAMS, and signexec and
# launchexec and learnexec, the glibc ones), short names.
helpers() {
	awk '/^[a-z]*exec_PROGRAMS *\+?=/ { f = 1 }
		f { for (i = 1; i <= NF; i++) if ($i ~ /^sharness-exec-/) print substr($i, 15) }
		f && !/\\$/ { f = 0 }' "$top_srcdir/Makefile.am"
}

# The .c files Makefile.am builds helper $1 from.
sources() {
	awk -v v="sharness_exec_$1_SOURCES" '$1 == v { f = 1 }
		f { for (i = 1; i <= NF; i++) if ($i ~ /\.c$/) print $i }
		f && !/\\$/ { f = 0 }' "$top_srcdir/Makefile.am"
}

# "L ARG" or "L -" for each letter helper $1 takes: its getopt strings
# and its -h usage lines (the first line and those indented under it).
taken() {
	local f
	for f in $(sources "$1"); do
		grep -ohE 'getopt(_long)?\(argc, argv, ([a-z]+ \? "[^"]*" : )?"[^"]*"' "$top_srcdir/$f" |
			grep -oE '"[^"]*"' | sed 's/"\(.*\)"/\1/; s/^[+:]*//' |
			awk '{ for (i = 1; i <= length($0); i++) { c = substr($0, i, 1)
				if (c !~ /[A-Za-z]/) continue
				print c, (substr($0, i + 1, 1) == ":" ? "ARG" : "-") } }'
	done
	"$HELPERDIR/sharness-exec-$1" -h >/dev/null && echo "h -"
	"$HELPERDIR/sharness-exec-$1" -h | awk '/^usage:/ { f = 1 } /^ +-/ { f = 0 } f' |
		tr '[]()|' '     ' | awk '{
			for (i = 1; i <= NF; i++) {
				if ($i !~ /^-[A-Za-z]+$/) continue
				l = substr($i, 2)
				if (length(l) > 1) { for (j = 1; j <= length(l); j++) print substr(l, j, 1), "-"; continue }
				print l, (i < NF && $(i + 1) ~ /^[A-Z]/ ? "ARG" : "-") } }'
}

@test "the table of letters: one row a letter, each naming helpers that exist" {
	run -0 table
	echo "$output"
	[ "${#lines[@]}" -ge 40 ]
	[ -z "$(awk '{ print $1 }' <<<"$output" | sort | uniq -d)" ]
	known=" $(helpers | tr '\n' ' ')"
	[[ "$known" == *" netns "* && "$known" == *" landlock "* && "$known" == *" sign "* ]]
	while read -r l arg hs; do
		for h in $hs; do
			[[ "$known" == *" $h "* ]] || { echo "-$l names $h, which Makefile.am does not build"; false; }
		done
	done <<<"$output"
}

@test "every helper takes only the letters the table gives it, with an argument where the table has one" {
	local rows words h l arg bad=0
	rows=$(table)
	words=$(front_words)
	for h in $(helpers); do
		while read -r l arg; do
			row=$(awk -v l="$l" '$1 == l' <<<"$rows")
			if [ -n "$(awk -v l="$l" -v a="$arg" -v h="$h" '$1 == l && $2 == a && $3 == h' <<<"$words")" ]; then
				:	# the front end's, listed apart
			elif [ -z "$row" ]; then
				echo "sharness-exec-$h takes -$l, which the table does not have"; bad=1
			elif [[ " $(cut -d' ' -f3- <<<"$row") " != *" $h "* ]]; then
				echo "sharness-exec-$h takes -$l, which the table gives only to: $(cut -d' ' -f3- <<<"$row")"; bad=1
			elif [ "$(cut -d' ' -f2 <<<"$row")" != "$arg" ]; then
				echo "sharness-exec-$h's -$l: argument $arg, the table's: $(cut -d' ' -f2 <<<"$row")"; bad=1
			fi
		done < <(taken "$h" | sort -u)
	done
	[ "$bad" = 0 ]
}

@test "every helper a row names takes that letter" {
	local l arg hs h bad=0
	while read -r l arg hs; do
		for h in $hs; do
			taken "$h" | grep -q "^$l " || { echo "the table gives -$l to $h, which does not take it"; bad=1; }
		done
	done < <(table)
	[ "$bad" = 0 ]
}

@test "the check sees what a helper takes: getopt strings, usage lines, subcommands" {
	# so that the check above cannot pass by seeing nothing
	run -0 taken landlock
	for w in "c ARG" "H -" "s ARG" "T ARG" "A ARG"; do grep -qx "$w" <<<"$output"; done
	! grep -q '^[Su] ' <<<"$output"
	run -0 taken sign
	for w in "o ARG" "k ARG" "K ARG" "h -"; do grep -qx "$w" <<<"$output"; done
	run -0 taken learn
	for w in "F ARG" "o ARG" "t -" "h -"; do grep -qx "$w" <<<"$output"; done
	run -0 taken explain
	for w in "D ARG" "N -" "s ARG" "E ARG" "t -"; do grep -qx "$w" <<<"$output"; done
	run -0 taken listen
	for w in "b -" "E ARG" "W ARG" "t -"; do grep -qx "$w" <<<"$output"; done
	run -0 taken egress
	for w in "l ARG" "W ARG" "a ARG"; do grep -qx "$w" <<<"$output"; done
	# launch's getopt string after the word launch (a ?: in the source)
	# is seen, and its -m and -H are the front end's list, nowhere else
	run -0 taken launch
	for w in "m ARG" "H ARG" "n -" "F ARG"; do grep -qx "$w" <<<"$output"; done
	run -0 front_words
	[ "$output" = "m ARG launch
H ARG launch" ]
	run -0 taken probe
	for w in "F ARG" "K ARG" "h -"; do grep -qx "$w" <<<"$output"; done
	run -0 taken netns
	for w in "H -" "I -" "S -" "W ARG" "t -"; do grep -qx "$w" <<<"$output"; done
	# and a helper that took a letter the table gives to another, as
	# landlock's -S FD did before the table, is named
	run -0 table
	grep -qx 'S - netns' <<<"$output"
}

@test "the launcher takes launch's -m and -H after the word launch only; by hand, their long forms" {
	run -125 --separate-stderr "$HELPERDIR/sharness-exec-launch" -F 3 -m /dev/null -- true 3</dev/null
	[ "${stderr%%$'\n'*}" = "sharness-exec-launch: fatal: unknown option -m" ]
	run -125 --separate-stderr "$HELPERDIR/sharness-exec-launch" -F 3 --manifest /dev/null -H x -- true 3</dev/null
	[ "${stderr%%$'\n'*}" = "sharness-exec-launch: fatal: unknown option -H" ]
	# the same words after "launch" are the front end's: read, and the
	# manifest refused for what it is, not the option
	run -125 --separate-stderr "$HELPERDIR/sharness-exec-launch" -F 3 launch -m /dev/null -H x -- true 3</dev/null
	[[ "$stderr" != *"unknown option"* ]]
	[[ "$stderr" == *'--expect-hash must be sha256: and 64 hex digits, not "x"'* ]]
}
