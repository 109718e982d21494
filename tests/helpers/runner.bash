# A SIMULATED GitHub-hosted runner's work directory, for the tests of the
# GitHub Action (action.yml, action/run.sh): no GitHub runner runs here, the
# directories and files are made by runner_layout as a hosted runner lays
# them out (/home/runner/work on GitHub, here beneath a directory of the
# test outside /tmp, since the action gives the command a private /tmp):
#
#   work/demo/demo                     GITHUB_WORKSPACE, a git checkout
#   work/_temp                         RUNNER_TEMP
#   work/_temp/_runner_file_commands/  set_env_*, add_path_*, set_output_*,
#                                      step_summary_* (GITHUB_ENV, ...)
#   work/_temp/event.json              GITHUB_EVENT_PATH
#   work/_temp/UUID.sh                 a step's script
#   work/_temp/UUID                    actions/checkout's ssh-key
#   work/_actions/actions/checkout/v4  an action's code (dist/index.js)
#   work/_tool/x                       the tool cache
#
# everything owned by the user the command runs as, as on GitHub, so
# that only the confinement, not a file's owner or mode, keeps it out.

RUNNER_KEY_ID=6f0c3b1e-2d4a-4e8b-9c7d-5a1f2e3d4c5b

# runner_layout UID:GID: the layout above, beneath a new directory outside
# /tmp; sets RUNNER_WORK, WS, RT, and exports the runner's variables
# (GITHUB_WORKSPACE, RUNNER_TEMP, GITHUB_ENV, ...).
runner_layout() {
	local root id=0b5e0d1c-7a4e-4c57-9f7d-2f1e1e6c0a11
	# outside_tmp's directory lies where the programs do
	require_feature builddir-outside-tmp
	root=$(outside_tmp runner)
	chmod 755 "$root"
	RUNNER_WORK=$root/work
	WS=$RUNNER_WORK/demo/demo
	RT=$RUNNER_WORK/_temp
	mkdir -p "$WS" "$RT/_runner_file_commands" "$RUNNER_WORK/_actions/actions/checkout/v4/dist" \
		"$RUNNER_WORK/_tool"
	git -C "$WS" init -q -b main
	git -C "$WS" remote add origin https://github.com/demo/demo
	echo demo >"$WS/README"
	git -C "$WS" add README
	git -C "$WS" -c user.name=ci -c user.email=ci@example.com commit -q -m demo
	export GITHUB_ENV=$RT/_runner_file_commands/set_env_$id
	export GITHUB_PATH=$RT/_runner_file_commands/add_path_$id
	export GITHUB_OUTPUT=$RT/_runner_file_commands/set_output_$id
	export GITHUB_STEP_SUMMARY=$RT/_runner_file_commands/step_summary_$id
	export GITHUB_STATE=$RT/_runner_file_commands/save_state_$id
	local f
	for f in "$GITHUB_ENV" "$GITHUB_PATH" "$GITHUB_OUTPUT" "$GITHUB_STEP_SUMMARY" "$GITHUB_STATE"; do
		: >"$f"
	done
	echo '{"ref": "refs/heads/main", "repository": {"full_name": "demo/demo"}}' >"$RT/event.json"
	printf '#!/bin/bash\nmake check\n' >"$RT/$id.sh"
	# actions/checkout's ssh-key, kept under RUNNER_TEMP while persisted
	printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\nsimulated\n-----END OPENSSH PRIVATE KEY-----\n' \
		>"$RT/$RUNNER_KEY_ID"
	chmod 600 "$RT/$RUNNER_KEY_ID"
	echo 'console.log("checkout")' >"$RUNNER_WORK/_actions/actions/checkout/v4/dist/index.js"
	echo 'post: dist/index.js' >"$RUNNER_WORK/_actions/actions/checkout/v4/action.yml"
	printf '#!/bin/sh\necho tool\n' >"$RUNNER_WORK/_tool/x"
	chmod 755 "$RUNNER_WORK/_tool/x"
	chown -R "$1" "$RUNNER_WORK"
	export GITHUB_WORKSPACE=$WS RUNNER_TEMP=$RT RUNNER_TOOL_CACHE=$RUNNER_WORK/_tool
	export GITHUB_EVENT_PATH=$RT/event.json
	export CI=true GITHUB_ACTIONS=true GITHUB_REPOSITORY=demo/demo GITHUB_SHA=0123456789abcdef0123456789abcdef01234567
	export GITHUB_REF=refs/heads/main RUNNER_OS=Linux
}

# runner_token LAYOUT: the job's token persisted as actions/checkout
# persists it: v4, an extraheader in the checkout's .git/config; v6, a
# git-credentials-UUID.config in RUNNER_TEMP that .git/config includes.
TOKEN_HEADER="AUTHORIZATION: basic $(printf x-access-token:ghs_simulated_job_token | base64)"
runner_token() {
	local creds=$RT/git-credentials-4d1b9a52-3c2e-4f0e-8a47-1e2b3c4d5e6f.config
	case $1 in
	v4) git config --file "$WS/.git/config" http.https://github.com/.extraheader "$TOKEN_HEADER" ;;
	v6)
		printf '[http "https://github.com/"]\n\textraheader = %s\n' "$TOKEN_HEADER" >"$creds"
		chown --reference="$RT" "$creds"
		git config --file "$WS/.git/config" "includeIf.gitdir:$WS/.git.path" "$creds"
		git config --file "$WS/.git/config" "includeIf.gitdir:$WS/.git/worktrees/*.path" "$creds" ;;
	esac
}

# action_input NAME VALUE: the variable action.yml sets for its input
# NAME (INPUT_ and NAME in capitals, - as _), set to VALUE, for
# action_run; fails for a NAME action.yml does not declare.
action_input() {
	grep -qxF "  $1:" <(sed -n '/^inputs:/,/^runs:/p' "$top_srcdir/action.yml") ||
		{ echo "action.yml declares no input $1"; return 1; }
	local var=${1^^}
	ACTION_ENV+=("INPUT_${var//-/_}=$2")
}

# action_run [VAR=VALUE...]: action/run.sh as action.yml's step runs it,
# with the inputs action_input set and the variables given, and this
# build's front end; into $status, $output and $stderr (bats run).
action_run() {
	run --separate-stderr env "SHARNESS_EXEC=$SHARNESS_EXEC" "${ACTION_ENV[@]}" "$@" \
		"$top_srcdir/action/run.sh"
}

# runner_files: the path and SHA-256 of every file of the runner's beside
# the workspace (_temp, _actions, _tool), with each directory's listing,
# and of the workspace's .git/config and hooks; not what run.sh makes
# itself in RUNNER_TEMP (sharness-exec-action.*: the policy, the report).
runner_files() {
	(cd "$RUNNER_WORK" && find _temp _actions _tool demo/demo/.git/config demo/demo/.git/hooks \
		-path '_temp/sharness-exec-action.*' -prune -o -print | LC_ALL=C sort |
		while IFS= read -r f; do
			if [ -f "$f" ]; then
				printf '%s %s\n' "$(sha256sum <"$f" | cut -d' ' -f1)" "$f"
			else
				printf 'dir %s %s\n' "$f" "$(stat -c %a "$f")"
			fi
		done)
}
