#!/usr/bin/env bats
# sharness-exec-learn on its own (issue 39): learn is a program of its own,
# beside the verify path, and no longer in the signer. The front end's
# learn execs it; by hand, without -F, it refuses; its check mode -t makes
# the checks that come before the first round and prints one line, running
# no round and writing nothing. The signer links no learn code. As root
# and as nobody.
# not tested: the rounds themselves, through the front end (learn.bats,
# learn-clients.bats, frontholes.bats).
load ../helpers/load
load ../helpers/learn

setup() { setup_tmp; setup_project; }
teardown() { teardown_tmp; teardown_project; }

t_check_mode() {
	local m=$1 learn=$HELPERDIR/sharness-exec-learn
	[ "$m" = root ] || require_feature nobody
	cd "$PROJ"
	# The check line; the command is not run, nothing is written.
	run -0 --separate-stderr as "$m" env HOME="$OUTSIDE" "$learn" -t -o draft.json \
		--rounds 3 -- touch "$PROJ/ran"
	[ "$output" = "sharness-exec-learn: draft=$PROJ/draft.json base=default rounds=3 network=as-base" ]
	[ -z "$stderr" ]
	[ -z "$(ls -A "$PROJ")" ]
	# What a run would refuse before its first round, -t refuses too.
	run -125 --separate-stderr as "$m" env HOME="$OUTSIDE" "$learn" -t -o draft.json \
		--base /nonexistent/policy.json -- true
	[[ "${stderr_lines[0]}" == "sharness-exec: fatal: refused: base policy /nonexistent/policy.json: "* ]]
	run -125 --separate-stderr as "$m" env HOME="$PROJ" "$learn" -t -o draft.json -- true
	[[ "${stderr_lines[0]}" == "sharness-exec: fatal: refused: learn may grant the working directory's whole subtree"* ]]
	# Without -t, only the front end's learn runs it (-F).
	run -125 --separate-stderr as "$m" env HOME="$OUTSIDE" "$learn" -o draft.json -- touch "$PROJ/ran"
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: run me as sharness-exec learn" ]
	[ -z "$(ls -A "$PROJ")" ]
}

@test "sharness-exec-learn -t: one line of what it would start from, no round, nothing written (root)" { t_check_mode root; }
@test "sharness-exec-learn -t: one line of what it would start from, no round, nothing written (nobody)" { t_check_mode nobody; }

@test "the front end's learn execs sharness-exec-learn, and the signer holds no learn code" {
	command -v nm >/dev/null || not_here tool:nm "nm (binutils) reads the programs' symbols"
	# learn's own functions: in the learn program, none in the signer.
	run -0 nm "$HELPERDIR/sharness-exec-learn"
	[ "$(grep -cE ' T (draft_consider|draft_retract|draft_write|draft_free)$' <<<"$output")" = 4 ]
	run -0 nm "$HELPERDIR/sharness-exec-sign"
	[[ "$output" == *' T key_sign'* ]]   # the scan reads the signer's symbols
	[ -z "$(grep -E ' [tT] (draft_[a-z_]*|cmd_learn|round_[a-z_]*|check_cwd)$' <<<"$output")" ]
	# The install without helpers names the program it would exec.
	run -125 --separate-stderr "$top_builddir/test-sharness-exec-nohelpers" learn -o "$TMP/d.json" -- true
	[[ "$stderr" == *"unable to execute /nonexistent/sharness-exec/sharness-exec-learn: No such file or directory"* ]]
}
