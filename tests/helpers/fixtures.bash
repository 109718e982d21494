# The check fixtures' runners, for policies (tests/front/policy.bats) and launch
# manifests (tests/launch/manifest.bats): each DIR/good/*.json must be accepted,
# each DIR/bad/NAME.json refused with exactly the lines of
# DIR/bad/NAME.expect.

# good_fixtures DIR MIN WHAT [LINES]: every DIR/good/*.json accepted by
# check, nothing on stderr but check's warnings of broad write paths (/tmp
# and the like), its first line "FILE: valid WHAT "ID"" (and LINES lines in
# all when given); at least MIN of them.
good_fixtures() {
	local f n=0 bad=
	for f in "$1"/good/*.json; do
		n=$((n + 1))
		run --separate-stderr "$SHARNESS_EXEC" check "$f"
		if [ "$status" -ne 0 ] ||
		   [ -n "$(grep -v "^sharness-exec: $f: warning: \(.*policy\.\)\?files\.write\[[0-9]*\]: " <<<"$stderr")" ] || [ "${#lines[@]}" -ne "${4:-${#lines[@]}}" ] ||
		   [[ "${lines[0]}" != "$f: valid $3 \""*\" ]]; then
			printf '%s: status %s\n%s\n%s\n' "$f" "$status" "$output" "$stderr" >&3
			bad=1
		fi
	done
	[ -z "$bad" ]
	[ "$n" -ge "$2" ]
}

# expected_stderr FILE EXPECT: the exact stderr check prints for FILE.
expected_stderr() {
	local line
	while IFS= read -r line; do
		printf 'sharness-exec: %s: %s\n' "$1" "$line"
	done <"$2"
}

# bad_fixtures DIR MIN: every DIR/bad/*.json refused by check with 125, no
# stdout and exactly its expected lines; at least MIN of them, and no
# .expect without its fixture. Each disagreement is listed on fd 3.
bad_fixtures() {
	local f n=0 bad= want
	for f in "$1"/bad/*.json; do
		n=$((n + 1))
		[ -f "${f%.json}.expect" ] || { echo "no ${f%.json}.expect" >&3; bad=1; continue; }
		want=$(expected_stderr "$f" "${f%.json}.expect")
		run --separate-stderr "$SHARNESS_EXEC" check "$f"
		if [ "$status" -ne 125 ] || [ -n "$output" ] || [ "$stderr" != "$want" ]; then
			printf '%s: status %s\nwant:\n%s\ngot:\n%s\n' "$f" "$status" "$want" "$stderr" >&3
			bad=1
		fi
	done
	[ -z "$bad" ]
	[ "$n" -ge "$2" ]
	for f in "$1"/bad/*.expect; do
		[ -f "${f%.expect}.json" ]
	done
}
