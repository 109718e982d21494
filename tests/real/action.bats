#!/usr/bin/env bats
# The GitHub Action (action.yml, issue 36): action/run.sh, the script its
# step runs, with the inputs action.yml passes, on a SIMULATED runner
# layout (tests/helpers/runner.bash: a work directory laid out as a
# GitHub-hosted runner lays out /home/runner/work, everything owned by the
# user the command runs as; no runner and no GitHub here). It refuses to
# run while the job's token is persisted, in both of actions/checkout's
# layouts; a confined step can neither change nor read the runner's files
# beside the workspace (command files, step scripts, event.json, an ssh
# key, _actions, _tool) nor its .git, from root's run as uid 65534 and as uid 1000, while
# its own work in the workspace succeeds; the OIDC and runtime tokens do
# not reach it.
# not tested: action.yml on GitHub (install.sh's apt-get and make install,
# the sudo of a non-root runner: only run.sh as root with input user runs
# here).

load ../helpers/load
load ../helpers/runner

setup() {
	setup_tmp
	ACTION_ENV=()
	RUNNER_WORK=
}

teardown() {
	[ -n "${RUNNER_WORK:-}" ] && rm -rf "${RUNNER_WORK%/work}"
	teardown_tmp
}

# ATTACK, the confined step's script: for each FILE after "write", tries
# to append a line to it (a GITHUB_ENV line that sets the next steps'
# LD_PRELOAD), to truncate it, to replace it and to remove it; for each
# FILE after "read", to read it; for each DIR after "create", to create a
# file in it. One line per attempt: "refused: ..." or "DONE: ...".
ATTACK='
mode=
try() {
	local what=$1
	shift
	if ("$@") >/dev/null 2>&1; then echo "DONE: $what"; else echo "refused: $what"; fi
}
append() { printf "LD_PRELOAD=/tmp/x.so\n" >>"$1"; }
truncate() { : >"$1"; }
replace() { echo x >"$1.new" && mv -f "$1.new" "$1"; }
open() { exec 3<"$1"; }
create() { echo x >"$1/planted"; }
for a; do
	case $a in write | read | create) mode=$a; continue ;; esac
	case $mode in
	write)
		try "append $a" append "$a"
		try "truncate $a" truncate "$a"
		try "replace $a" replace "$a"
		try "remove $a" rm "$a" ;;
	read) try "read $a" open "$a" ;;
	create) try "create in $a" create "$a" ;;
	esac
done
'

# attack_args: the attack's arguments on this layout: every file of the
# runner's beside the workspace to read; their directories, and the
# workspace's .git and hooks, to create in; those files, and the
# workspace's .git/config and hooks, to write.
attack_args() {
	echo read
	find "$RT" "$RUNNER_WORK/_actions" "$RUNNER_WORK/_tool" -type f
	echo create
	find "$RT" "$RUNNER_WORK/_actions" "$RUNNER_WORK/_tool" "$WS/.git/hooks" -type d
	echo "$WS/.git"
	echo write
	find "$RT" "$RUNNER_WORK/_actions" "$RUNNER_WORK/_tool" -type f
	echo "$WS/.git/config"
	find "$WS/.git/hooks" -type f
}

@test "action.yml runs action/run.sh with its inputs, in the environment, after install.sh" {
	local yml="$top_srcdir/action.yml" names n var
	grep -qx '  using: composite' "$yml"
	grep -qxF "      run: '\"\$GITHUB_ACTION_PATH/action/install.sh\"'" "$yml"
	grep -qxF "      run: '\"\$GITHUB_ACTION_PATH/action/run.sh\"'" "$yml"
	# install.sh comes first; run.sh is the last step.
	[ "$(grep -n 'run: .*action/install.sh' "$yml" | cut -d: -f1)" -lt "$(grep -n 'run: .*action/run.sh' "$yml" | cut -d: -f1)" ]
	[ "$(grep -c '^    - name: ' "$yml")" = 2 ]
	names=$(sed -n '/^inputs:/,/^runs:/s/^  \([a-z-]*\):$/\1/p' "$yml")
	[ "$(echo "$names" | wc -w)" = 8 ]
	for n in $names; do
		var=${n^^}
		var=INPUT_${var//-/_}
		# each input reaches run.sh by its variable, an expression of
		# the env block, never pasted into the script
		grep -qxF "        $var: \${{ inputs.$n }}" "$yml" || { echo "no $var: $n"; return 1; }
		grep -q "\\b$var\\b" "$top_srcdir/action/run.sh" || { echo "run.sh ignores $var"; return 1; }
	done
	[ "$(grep -c '\${{' "$yml")" = 8 ]
	grep -qxF '        SHARNESS_EXEC: /usr/local/bin/sharness-exec' "$yml"
	# run.sh defaults to the front end install.sh installs, and install.sh
	# builds the action's own checkout, not a clone of a tag.
	grep -qF 'sharness_exec=${SHARNESS_EXEC:-/usr/local/bin/sharness-exec}' "$top_srcdir/action/run.sh"
	grep -qF 'src=${GITHUB_ACTION_PATH:?' "$top_srcdir/action/install.sh"
	grep -qF -- '--prefix=/usr/local' "$top_srcdir/action/install.sh"
	! grep -q 'git clone' "$top_srcdir/action/install.sh"
	# with the packages of the README's build line that a build needs
	# (not its test tools)
	local pkgs p
	pkgs=$(sed -n 's/.*apt-get install -y \(.*\) musl-tools .*/\1 musl-tools/p' "$top_srcdir/README.md")
	[[ $pkgs == "build-essential "*" autoconf automake pkg-config libbsd-dev"* ]]
	for p in $pkgs; do
		# the package's own build, not the action's
		[ "$p" != debhelper ] || continue
		sed -n '/apt-get install/,/^[^\t]/p' "$top_srcdir/action/install.sh" | grep -qw -- "$p" ||
			{ echo "install.sh does not install $p"; return 1; }
	done
	# and the input run is required
	sed -n '/^  run:$/,/^  [a-z]/p' "$yml" | grep -qx '    required: true'
}

@test "run.sh refuses while actions/checkout's token is persisted, v4 and v6 layouts (simulated runner)" {
	need root
	local layout user=65534:65534
	for layout in v4 v6; do
		runner_layout "$user"
		runner_token "$layout"
		action_input run 'touch ran'
		action_input user "$user"
		action_run
		echo "$layout: $status: $stderr"
		[ "$status" = 125 ]
		[ "${#stderr_lines[@]}" = 1 ]
		[[ $stderr == "sharness-exec-action: refused: the job's token is persisted in "*"(actions/checkout: set persist-credentials: false)" ]]
		[ ! -e "$WS/ran" ]
		# persist-credentials: false, as checkout leaves it: runs.
		case $layout in
		v4) git config --file "$WS/.git/config" --unset http.https://github.com/.extraheader ;;
		v6)
			git config --file "$WS/.git/config" --remove-section "includeIf.gitdir:$WS/.git"
			git config --file "$WS/.git/config" --remove-section "includeIf.gitdir:$WS/.git/worktrees/*"
			rm "$RT"/git-credentials-*.config ;;
		esac
		action_run
		echo "$layout, no token: $status: $stderr"
		[ "$status" = 0 ]
		[ -f "$WS/ran" ]
		[ "$(stat -c %u:%g "$WS/ran")" = "$user" ]
		rm -rf "${RUNNER_WORK%/work}"
		ACTION_ENV=()
	done
	# A token in a remote's URL, as some workflows set it, is one too.
	runner_layout "$user"
	git config --file "$WS/.git/config" remote.origin.url https://x-access-token:ghs_simulated@github.com/demo/demo
	action_input run 'touch ran'
	action_input user "$user"
	action_run
	[ "$status" = 125 ]
	[[ $stderr == *"persisted in $WS/.git/config, or a file it includes"* ]]
	[ ! -e "$WS/ran" ]
	rm -rf "${RUNNER_WORK%/work}"
	ACTION_ENV=()
	# v6's file alone, which .git/config no longer names, is a token too.
	runner_layout "$user"
	runner_token v6
	git config --file "$WS/.git/config" --remove-section "includeIf.gitdir:$WS/.git"
	git config --file "$WS/.git/config" --remove-section "includeIf.gitdir:$WS/.git/worktrees/*"
	action_input run 'touch ran'
	action_input user "$user"
	action_run
	[ "$status" = 125 ]
	[[ $stderr == *"persisted in $RT/git-credentials-"*".config (actions/checkout"* ]]
	[ ! -e "$WS/ran" ]
}

@test "a confined step changes and reads none of the runner's files, as uid 65534 and 1000 (simulated runner)" {
	need root
	local user before
	for user in 65534:65534 1000:1000; do
		runner_layout "$user"
		printf '%s' "$ATTACK" >"$WS/attack.sh"
		chown "$user" "$WS/attack.sh"
		mapfile -t args < <(attack_args)
		before=$(runner_files)
		ACTION_ENV=()
		action_input run "bash attack.sh$(printf ' %q' "${args[@]}")"
		action_input user "$user"
		action_run
		echo "$user: $status: $stderr"
		echo "$output" | grep -v '^refused' || :
		[ "$status" = 0 ]
		# every attempt ran, and was refused
		[ "$(grep -c '^refused: ' <<<"$output")" -gt 50 ]
		[ "$(grep -c '^refused: ' <<<"$output")" = "$(grep -c '' <<<"$output")" ]
		[[ $output == *"refused: append $GITHUB_ENV"* ]]
		[[ $output == *"refused: append $RUNNER_WORK/_actions/actions/checkout/v4/dist/index.js"* ]]
		[[ $output == *"refused: read $RT/event.json"* ]]
		[[ $output == *"refused: read $RT/$RUNNER_KEY_ID"* ]]
		[[ $output == *"refused: create in $WS/.git/hooks"* ]]
		# and nothing changed, seen from outside
		[ "$(runner_files)" = "$before" ]
		[ ! -e "$WS/.git/hooks/planted" ]
		# Control, once: the same step under the example's old policy,
		# which wrote the workspace's parent (/home/runner/work), changes
		# them.
		[ "$user" = 65534:65534 ] || continue
		write_policy "$TMP/old.json" '{"pbp":1,"id":"old-example","files":{"read":["/etc"],"exec":["/usr"],
			"write":["/dev/null","'"$RUNNER_WORK"'","/tmp"]},"network":"none","process":{"no_new_privs":true}}'
		run --separate-stderr bash -c 'cd "$1" && shift && "$@"' - "$WS" \
			"$SHARNESS_EXEC" run --user "$user" --policy "$TMP/old.json" -- bash attack.sh "${args[@]}"
		echo "$output" | grep '^DONE' | head -5
		[[ $output == *"DONE: append $GITHUB_ENV"* ]]
		[[ $output == *"DONE: read $RT/event.json"* ]]
		[[ $output == *"DONE: read $RT/$RUNNER_KEY_ID"* ]]
		[ "$(runner_files)" != "$before" ]
		grep -qx 'LD_PRELOAD=/tmp/x.so' "$GITHUB_ENV" || [ ! -e "$GITHUB_ENV" ]
		rm -rf "${RUNNER_WORK%/work}"
		ACTION_ENV=()
	done
}

@test "the step's own work in the workspace succeeds, with git, a private /tmp, /dev and /proc (simulated runner)" {
	need root
	local user=1000:1000 mark
	runner_layout "$user"
	mark=sharness-exec-action-$$-$RANDOM
	action_input run "mkdir build && echo built >build/out && git status --short && git log --oneline | wc -l
		echo private >/tmp/$mark && cat /tmp/$mark && echo \"tmpdir=\$TMPDIR\"
		head -c 4 /dev/urandom | wc -c && cat <(echo fd) && test -r /proc/self/status && echo proc"
	action_input user "$user"
	action_input report "$RT/report.json"
	action_input timeout 5m
	action_run
	echo "$status: $stderr"
	[ "$status" = 0 ]
	[ "$output" = "?? build/"$'\n'"1"$'\n'"private"$'\n'"tmpdir=/tmp"$'\n'"4"$'\n'"fd"$'\n'"proc" ]
	[ "$(cat "$WS/build/out")" = built ]
	[ "$(stat -c %u:%g "$WS/build/out")" = "$user" ]
	# /tmp was the run's own
	[ ! -e "/tmp/$mark" ]
	run -0 python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(r["outcome"], r["target"]["exit_code"], r["timeout"]["after_s"])' "$RT/report.json"
	[ "$output" = "exited 0 300" ]
}

@test "the OIDC and runtime tokens, GITHUB_TOKEN and the command files' names do not reach the step (simulated runner)" {
	need root
	local user=65534:65534
	runner_layout "$user"
	action_input run env
	action_input user "$user"
	action_input env "MY_SETTING,"$'\n'" CI"
	action_run ACTIONS_ID_TOKEN_REQUEST_TOKEN=oidc-secret ACTIONS_ID_TOKEN_REQUEST_URL=https://oidc.example \
		ACTIONS_RUNTIME_TOKEN=runtime-secret ACTIONS_RESULTS_URL=https://results.example \
		GITHUB_TOKEN=ghs_secret MY_SETTING=fast
	echo "$status: $output"
	[ "$status" = 0 ]
	[[ $output == *"GITHUB_SHA=$GITHUB_SHA"* ]]
	[[ $output == *"GITHUB_WORKSPACE=$WS"* ]]
	[[ $output == *"MY_SETTING=fast"* ]]
	[[ $output != *secret* ]]
	[[ $output != *ACTIONS_* ]]
	[[ $output != *GITHUB_TOKEN* ]]
	[[ $output != *"$RT"* ]]
	# and run.sh names what passes
	[[ $stderr == *"the command gets, of the environment: CI GITHUB_ACTIONS "*" MY_SETTING; never ACTIONS_*"* ]]
	# An input that would pass them, or the runner's files, is refused.
	local n
	for n in ACTIONS_ID_TOKEN_REQUEST_TOKEN ACTIONS_RUNTIME_TOKEN GITHUB_TOKEN GITHUB_ENV GITHUB_EVENT_PATH; do
		ACTION_ENV=()
		action_input run 'touch ran'
		action_input user "$user"
		action_input env "CI $n"
		action_run
		[ "$status" = 125 ]
		[ "$stderr" = "sharness-exec-action: refused: input env: $n is the runner's, not the command's" ]
	done
	[ ! -e "$WS/ran" ]
}

@test "run.sh refuses a workspace that holds the runner's files, a root command, a report in the workspace (simulated runner)" {
	need root
	runner_layout 65534:65534
	action_input run 'touch ran'
	action_input user 65534:65534
	GITHUB_WORKSPACE=$RUNNER_WORK action_run
	[ "$status" = 125 ]
	[ "$stderr" = "sharness-exec-action: refused: the workspace $RUNNER_WORK holds the runner's $RT" ]
	ACTION_ENV=()
	action_input run 'touch ran'
	action_input exec "$RUNNER_WORK"
	action_input user 65534:65534
	action_run
	[ "$status" = 125 ]
	[ "$stderr" = "sharness-exec-action: refused: input exec: $RUNNER_WORK holds the runner's $RT" ]
	ACTION_ENV=()
	action_input run 'touch ran'
	action_run
	[ "$status" = 125 ]
	[ "$stderr" = "sharness-exec-action: refused: run as root: name the user to run the command as (input user)" ]
	action_input user 0:0
	action_run
	[ "$status" = 125 ]
	[ "$stderr" = "sharness-exec-action: refused: input user: never root" ]
	# a report where the command could replace it
	ACTION_ENV=()
	action_input run 'touch ran'
	action_input user 65534:65534
	action_input report "$WS/report.json"
	action_run
	[ "$status" = 125 ]
	[ "$stderr" = "sharness-exec-action: refused: input report: $WS/report.json lies in the workspace, which the command writes" ]
	[ ! -e "$WS/ran" ]
	[ ! -e "$RUNNER_WORK/ran" ]
}
