#!/usr/bin/env bats
# Holes in --report, wrap and learn (issue 37's Medium and Low items on
# them, issue 42's on --report and learn's HOME), each tried from the
# attacker's side and checked from the outside:
# - --report FILE beneath a write path: the target renames the report, or
#   its directory, away and plants its own; the caller reads the run's real
#   status, or none at all (126). A second run replaces the first report;
#   a symlink or another user's file at the name is refused before running.
#   It names the variables the allow-list dropped, never their values.
# - learn -o: the command swaps the draft's directory for a symlink; learn
#   writes nothing there, nor anywhere. A name holding a newline cannot
#   forge a line of learn's list. The draft's HOME in the checkout is said.
# - wrap: the wrapper looks nothing up through PATH (a planted find never
#   runs); every directory above -o must be root's or the caller's, and
#   under --user root's alone.
# not tested: a supervisor SIGKILLed before it wrote (the name then holds
# nothing: the last report is removed as the run starts).

load ../helpers/load
load ../helpers/learn

setup() {
	setup_tmp
	U=$TMP/u   # the caller's: root's, or nobody's
	mkdir -p "$U/w"
}

teardown() {
	teardown_project
	teardown_tmp
}

# mine MODE: $U and what is in it, the caller's (MODE: root or nobody);
# the policy writes $U/w.
mine() {
	[ "$1" = nobody ] && chown -R "$NOBODY_UID:$NOBODY_GID" "$U"
	chain_policy fh '"none"' '"/etc","/proc"' '"'"$U"'/w","/dev/null"'
}

# sx MODE ARGS...: `sharness-exec run ARGS...` as root or nobody.
sx() {
	local mode=$1
	shift
	as "$mode" "$SHARNESS_EXEC" run "$@"
}

# field FILE EXPR: python's EXPR of the report r in FILE.
field() {
	python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"
}

# The target renames the report's name away and writes its own JSON
# there, saying exit 0; the report is written by name once the run is
# over: the caller reads 3.
FORGE='{"report":1,"outcome":"exited","wrapper_status":{"exit_code":0},"target":{"exit_code":0}}'
t_forged() {
	local mode=$1
	need "$mode"
	mine "$mode"
	echo '{"old":1}' >"$U/w/r.json"
	[ "$mode" = nobody ] && chown "$NOBODY_UID" "$U/w/r.json"
	run -3 sx "$mode" --report "$U/w/r.json" -p "$TMP/p.json" -- sh -c '
		mv "$1/r.json" "$1/away.json" 2>/dev/null; printf "%s\n" "$2" >"$1/r.json"; exit 3' \
		sh "$U/w" "$FORGE"
	[ "$(field "$U/w/r.json" 'r["outcome"], r["wrapper_status"], r["target"]')" = \
		"('exited', {'exit_code': 3}, {'exit_code': 3})" ]
	# the last run's report was gone before the target started
	[ ! -e "$U/w/away.json" ]
	[ "$(stat -c %u "$U/w/r.json")" = "$(as "$mode" id -u)" ]
	# the directory renamed away and another put in its place: no report,
	# and the caller is told so by the status (126) and one line
	mkdir "$U/w/sub"
	[ "$mode" = nobody ] && chown "$NOBODY_UID" "$U/w/sub"
	run -126 --separate-stderr sx "$mode" --report "$U/w/sub/r.json" -p "$TMP/p.json" -- sh -c '
		mv "$1/sub" "$1/sub2" && mkdir "$1/sub" && printf "%s\n" "$2" >"$1/sub/r.json"; exit 0' \
		sh "$U/w" "$FORGE"
	[ "$stderr" = "sharness-exec-supervise: fatal: unable to write the report \"$U/w/sub/r.json\": its directory was moved during the run" ]
	[ -z "$(ls -A "$U/w/sub2")" ]
	# a directory at the name: no report either
	run -126 --separate-stderr sx "$mode" --report "$U/w/r.json" -p "$TMP/p.json" -- mkdir "$U/w/r.json"
	[[ $stderr == *"fatal: unable to write the report \"$U/w/r.json\": Is a directory" ]]
}

@test "root: a report renamed away and forged by the target is replaced by the real one; a moved directory gets none, 126" { t_forged root; }
@test "nobody: a report renamed away and forged by the target is replaced by the real one; a moved directory gets none, 126" { t_forged nobody; }

t_replace() {
	local mode=$1
	need "$mode"
	mine "$mode"
	run -3 sx "$mode" --report "$U/r.json" -p "$TMP/p.json" -- sh -c 'exit 3'
	[ "$(field "$U/r.json" 'r["target"]')" = "{'exit_code': 3}" ]
	run -0 sx "$mode" --report "$U/r.json" -p "$TMP/p.json" -- true
	[ "$(field "$U/r.json" 'r["target"]')" = "{'exit_code': 0}" ]
	# a refusal before the run replaces it too, and no temporary file stays
	run -125 sx "$mode" --report "$U/r.json" -p "$TMP/nonexistent.json" -- true
	[ "$(field "$U/r.json" 'r["outcome"]')" = refused ]
	[ "$(ls -A "$U")" = $'r.json\nw' ]
	# a symlink at the name is refused, before anything runs, and the file
	# it points to is kept
	echo keep >"$TMP/victim"
	ln -s "$TMP/victim" "$U/link.json"
	run -125 --separate-stderr sx "$mode" --report "$U/link.json" -p "$TMP/p.json" -- touch "$U/w/ran"
	[ "$stderr" = "sharness-exec: fatal: refused: --report \"$U/link.json\" is a symlink: a report replaces only a regular file of the caller's" ]
	[ "$(cat "$TMP/victim")" = keep ] && [ -L "$U/link.json" ] && [ ! -e "$U/w/ran" ]
	# a directory others may write to, not sticky
	mkdir -m 777 "$U/pub"
	chmod 777 "$U/pub"
	run -125 --separate-stderr sx "$mode" --report "$U/pub/r.json" -p "$TMP/p.json" -- touch "$U/w/ran"
	[ "$stderr" = "sharness-exec: fatal: refused: --report \"$U/pub/r.json\": directory \"$U/pub\" is writable by group or others" ]
	[ ! -e "$U/w/ran" ] && [ -z "$(ls -A "$U/pub")" ]
	# a dry run looks, and removes nothing
	run -0 sx "$mode" --dry-run --report "$U/r.json" -p "$TMP/p.json" -- true
	[ -s "$U/r.json" ]
}

@test "root: a second run replaces the first report; a symlink at the name, or an unsafe directory, is refused" { t_replace root; }
@test "nobody: a second run replaces the first report; a symlink at the name, or an unsafe directory, is refused" { t_replace nobody; }

@test "nobody: another user's file at the name is refused before running, and kept" {
	need nobody
	mine nobody
	echo '{"root":1}' >"$U/r.json"
	chown 0:0 "$U/r.json"
	run -125 --separate-stderr sx nobody --report "$U/r.json" -p "$TMP/p.json" -- touch "$U/w/ran"
	[ "$stderr" = "sharness-exec: fatal: refused: --report \"$U/r.json\" is another user's file: a report replaces only a regular file of the caller's" ]
	[ "$(cat "$U/r.json")" = '{"root":1}' ] && [ ! -e "$U/w/ran" ]
	# in a sticky directory (/tmp's kind) too
	chmod 1777 "$U"
	chown 0:0 "$U"
	run -125 sx nobody --report "$U/r.json" -p "$TMP/p.json" -- touch "$U/w/ran"
	[ "$(cat "$U/r.json")" = '{"root":1}' ] && [ ! -e "$U/w/ran" ]
}

t_learn_swap() {
	local mode=$1
	need "$mode"
	setup_project
	mkdir "$PROJ/drafts" "$OUTSIDE/evil"
	[ "$mode" = nobody ] && chown -R "$NOBODY_UID:$NOBODY_GID" "$PROJ" "$OUTSIDE"
	cd "$PROJ"
	run --separate-stderr as "$mode" env HOME="$OUTSIDE" "$SHARNESS_EXEC" learn -o drafts/policy.json -- \
		sh -c '[ -L drafts ] || { mv drafts drafts.old && ln -s "$1" drafts; }' sh "$OUTSIDE/evil"
	echo "$output"$'\n'"$stderr"
	[ "$status" = 125 ]
	[ -L drafts ]   # the command did swap it
	[ -z "$(ls -A "$OUTSIDE/evil")" ]
	[ -z "$(ls -A drafts.old)" ]
	[[ $stderr == *"fatal: unable to write drafts/policy.json: its directory was moved during the rounds; no draft written"* ]]
}

@test "root: learn's command swaps -o's directory for a symlink: nothing is written through it, and no draft" { t_learn_swap root; }
@test "nobody: learn's command swaps -o's directory for a symlink: nothing is written through it, and no draft" { t_learn_swap nobody; }

@test "learn: a name holding a newline forges no line of the list; HOME in the checkout is said in one line" {
	require_feature landlock
	setup_project
	mkdir "$OUTSIDE/home"
	local name=$OUTSIDE/home/x$'\n''added files.write "/": write /etc/passwd'
	mkdir -p "${name%/*}"   # the slashes of the forged line are directories
	echo secret >"$name"
	cd "$PROJ"
	run --separate-stderr env HOME="$OUTSIDE/home" "$SHARNESS_EXEC" learn -o draft.json -- \
		sh -c 'cat "$1"; true' sh "$name"
	echo "$output"$'\n'"$stderr"
	[ "$status" = 0 ]
	! grep -q '^added files.write "/"' <<<"$output"
	# the path shown quoted, as explain's lines show it: one line
	[[ ${lines[1]} == "suggest files.read \"$OUTSIDE/home/x\\nadded files.write "*'": read "'"$OUTSIDE"'/home/x\nadded files.write \"/\": write /etc/passwd"' ]]
	[ "${#lines[@]}" = 4 ]
	grep -qxF "note: HOME is \"$PROJ/.sharness-env\" (env.private), inside the working directory, and the command may write it; move env.private to keep HOME out" <<<"$output"
	! grep -q '"/"' draft.json
}

# wrap_policy: $TMP/wp.json, writing $TMP/wout, and its hash in WHASH.
wrap_policy() {
	mkdir -p "$TMP/wout"
	write_policy "$TMP/wp.json" '{"pbp":1,"id":"wrap","files":{"read":["/etc"],"write":["'"$TMP"'/wout"],"exec":["/usr","/bin","/lib","/lib64","'"$TRYDIR"'"]},"network":"none","process":{"no_new_privs":true}}'
	WHASH=$("$SHARNESS_EXEC" hash "$TMP/wp.json")
}

t_wrap_path() {
	local mode=$1
	need "$mode"
	wrap_policy
	mkdir -m 755 "$TMP/bin"
	[ "$mode" = nobody ] && chown "$NOBODY_UID" "$TMP/bin" "$TMP/wout"
	run -0 --separate-stderr as "$mode" "$SHARNESS_EXEC" wrap -o "$TMP/bin/confined" -p "$TMP/wp.json" -H "$WHASH"
	# what one confined run plants in a write path that is on PATH (a
	# venv's bin, node_modules/.bin): every command the script could name
	local c
	for c in find test [ printf stat ls sh sharness-exec; do
		printf '#!/bin/sh\necho ran >>"%s/planted"\n' "$TMP/wout" >"$TMP/wout/$c"
		chmod 755 "$TMP/wout/$c"
	done
	run -0 --separate-stderr as "$mode" env PATH="$TMP/wout:$PATH" "$TMP/bin/confined" "$TRY" create "$TMP/wout/in"
	[ -e "$TMP/wout/in" ]
	[ ! -e "$TMP/wout/planted" ]
}

@test "root: the wrapper runs no find, nor anything else, from a PATH entry the command may write" { t_wrap_path root; }
@test "nobody: the wrapper runs no find, nor anything else, from a PATH entry the command may write" { t_wrap_path nobody; }

@test "wrap: -o below a directory others may write is refused; under --user, one the user owns" {
	require_feature landlock
	wrap_policy
	mkdir -p "$TMP/pub/bin"
	chmod 777 "$TMP/pub"
	chmod 755 "$TMP/pub/bin"
	run -125 --separate-stderr "$SHARNESS_EXEC" wrap -o "$TMP/pub/bin/confined" -p "$TMP/wp.json" -H "$WHASH"
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: refused: -o \"$TMP/pub/bin/confined\": directory \"$TMP/pub\" is writable by group or others, who could replace the wrapper" ]
	[ -z "$(ls -A "$TMP/pub/bin")" ]
	# sticky, as /tmp: nobody else may rename bin
	chmod 1777 "$TMP/pub"
	run -0 --separate-stderr "$SHARNESS_EXEC" wrap -o "$TMP/pub/bin/confined" -p "$TMP/wp.json" -H "$WHASH"
	# --user 65534: a directory it owns is one a run as it could change
	require_feature root
	mkdir -m 755 "$TMP/ubin"
	chown "$NOBODY_UID" "$TMP/ubin"
	run -125 --separate-stderr "$SHARNESS_EXEC" wrap --user "$NOBODY_UID" -o "$TMP/ubin/confined" \
		-p "$TMP/wp.json" -H "$WHASH"
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: refused: -o \"$TMP/ubin/confined\": directory \"$TMP/ubin\" is owned by another user, who could replace the wrapper" ]
	[ -z "$(ls -A "$TMP/ubin")" ]
	# and a wrapper already there, made when ubin was root's, runs nothing
	chown 0 "$TMP/ubin"
	run -0 --separate-stderr "$SHARNESS_EXEC" wrap --user "$NOBODY_UID" -o "$TMP/ubin/confined" \
		-p "$TMP/wp.json" -H "$WHASH"
	grep -qF "'--user' '$NOBODY_UID'" "$TMP/ubin/confined"
	chown "$NOBODY_UID" "$TMP/ubin"
	run -125 --separate-stderr "$TMP/ubin/confined" "$TRY" create "$TMP/wout/ran"
	[[ ${stderr_lines[0]} == "sharness-exec: fatal: refused: wrapper $TMP/ubin/confined: directory $TMP/ubin is owned by another user" ]]
	[ ! -e "$TMP/wout/ran" ]
}

@test "--report lists the names, never the values, of the variables the allow-list dropped" {
	need root
	mine root
	run -0 env TEST_BUILD_DIR=/b/secret-value MESON_TEST_ITERATION=1 "$SHARNESS_EXEC" run \
		--report "$U/r.json" -p "$TMP/p.json" -- true
	[ "$(field "$U/r.json" '"TEST_BUILD_DIR" in r["env_dropped"], "MESON_TEST_ITERATION" in r["env_dropped"], "PATH" in r["env_dropped"]')" = "(True, True, False)" ]
	! grep -q secret-value "$U/r.json"
	# a refusal before the run: null
	run -125 env TEST_BUILD_DIR=/b "$SHARNESS_EXEC" run --report "$U/r.json" -p "$TMP/nonexistent.json" -- true
	[ "$(field "$U/r.json" 'r["env_dropped"]')" = None ]
}
