#!/usr/bin/env bats
# One reading of a path rule (issue 39): the view and landlock steps read
# the word after -r, -x and -w (and their other path letters) with one
# parser, lib/rules.c, so a word is refused by both with the same line.
# Before it, the landlock step took a relative word against its own
# working directory, where the view refused it. By hand, at parse time,
# before anything runs, as root and as nobody.
# not tested: what each step then does with a path it takes (view.bats,
# landlock.bats, chain.bats); the parser's cases one by one
# (tests/unit/test-rules.c).
load ../helpers/load

setup() { setup_tmp; }
teardown() { teardown_tmp; }

t_same_refusals() {
	local m=$1 h letter word why n=0
	[ "$m" = root ] || require_feature nobody
	mkdir -m 755 "$TMP/rel"
	cd "$TMP"
	for h in sharness-exec-view sharness-exec-landlock; do
		for letter in r x w; do
			for word in rel "" "$TMP/rel/.." "$TMP/./rel" "$TMP/rel/."; do
				case $word in
				/*) why="has a . or .. component" ;;
				*) why="not an absolute path" ;;
				esac
				run -125 --separate-stderr as "$m" "$HELPERDIR/$h" "-$letter" "$word" -- /bin/true
				[ "${stderr_lines[0]}" = "$h: fatal: unable to parse -$letter $word: $why" ]
				[[ "${stderr_lines[1]}" == "usage: $h "* ]]
				[ -z "$output" ]
				n=$((n + 1))
			done
		done
	done
	[ "$n" = 30 ]
	# A word both take: the landlock step runs the program under it.
	run -0 --separate-stderr as "$m" "$HELPERDIR/sharness-exec-landlock" -b -x /usr -x / -r "$TMP//rel/" -- /bin/true
}

@test "the view and landlock steps refuse the same path words with the same line (root)" { t_same_refusals root; }
@test "the view and landlock steps refuse the same path words with the same line (nobody)" { t_same_refusals nobody; }
