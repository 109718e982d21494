#!/bin/bash
# The confined step of the GitHub Action (action.yml at the top of the
# repository): one command, run by bash in the workspace, under a policy
# this script writes. The command may write the workspace and a private
# /tmp (a tmpfs of the run's own), and nothing else: not the runner's
# files beside the workspace (_temp, with the command files GITHUB_ENV,
# GITHUB_PATH, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, the step scripts and
# event.json; _actions, the code of later and post steps; _tool), since
# none of them is in the view. The workspace's .git directories are
# protected (read-only). It gets no network, and of the environment only
# the names listed below. It refuses to run (125, one line) while the
# job's token is persisted where git, and so the command, would read it.
#
# Inputs, as action.yml passes them (environment variables):
#   INPUT_RUN            the command line (bash -e -o pipefail)
#   INPUT_ENV            more variable names to pass on (blanks or commas)
#   INPUT_EXEC           more paths to read and execute (one a line)
#   INPUT_TIMEOUT        run --timeout (empty: none)
#   INPUT_MAX_MEMORY_MB  process.max_memory_mb
#   INPUT_MAX_PIDS       process.max_pids
#   INPUT_REPORT         run --report FILE (empty: none)
#   INPUT_USER           who runs the command, where this script runs as
#                        root (a self-hosted runner); otherwise the caller,
#                        through sudo, as on GitHub's hosted runners
# and the runner's GITHUB_WORKSPACE and RUNNER_TEMP. SHARNESS_EXEC names
# the front end (default: the one install.sh installed).
set -euo pipefail
caller_path=${PATH:-/usr/bin:/bin}
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH
umask 022

me=sharness-exec-action
sharness_exec=${SHARNESS_EXEC:-/usr/local/bin/sharness-exec}

die() { printf '%s: %s\n' "$me" "$1" >&2; exit 125; }

# The GITHUB_* variables, and others of the runner, that the command gets:
# what names the run, never where the runner keeps its files (GITHUB_ENV,
# GITHUB_PATH, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_STATE,
# GITHUB_EVENT_PATH) nor a token (GITHUB_TOKEN, ACTIONS_*).
passed=(CI GITHUB_ACTIONS GITHUB_WORKSPACE GITHUB_REPOSITORY GITHUB_REPOSITORY_OWNER
	GITHUB_SHA GITHUB_REF GITHUB_REF_NAME GITHUB_REF_TYPE GITHUB_HEAD_REF GITHUB_BASE_REF
	GITHUB_EVENT_NAME GITHUB_RUN_ID GITHUB_RUN_NUMBER GITHUB_RUN_ATTEMPT GITHUB_JOB
	GITHUB_WORKFLOW GITHUB_ACTOR GITHUB_SERVER_URL RUNNER_OS RUNNER_ARCH)

# plain STRING...: refused where a STRING holds a control character (a
# newline in a path, say), which json below does not escape.
plain() {
	local s
	for s in "$@"; do
		[[ ! $s =~ [[:cntrl:]] ]] || die "refused: a control character in ${s//[[:cntrl:]]/?}"
	done
}

# json STRING: STRING, which plain passed, as a JSON string.
json() {
	local s=$1
	s=${s//\\/\\\\}
	printf '"%s"' "${s//\"/\\\"}"
}

# list ITEM...: a JSON array of strings.
list() {
	local out='' x
	for x in "$@"; do out+=${out:+, }$(json "$x"); done
	printf '[%s]' "$out"
}

# beneath A B: path A is B or lies beneath it.
beneath() { [ "$1" = "$2" ] || [ "$2" = / ] || [[ $1 == "$2"/* ]]; }

# canonical NAME PATH: PATH, absolute, with no symlink, "." or ".."; else
# refused.
canonical() {
	[[ $2 == /* ]] || die "refused: $1 is not an absolute path: $2"
	local r
	r=$(realpath -m -- "$2") || die "refused: $1: cannot resolve $2"
	printf '%s\n' "$r"
}

# has_token FILE [DEPTH]: FILE, a git config file, sets an extraheader (the
# form actions/checkout persists the token in) or names x-access-token (a
# token in a remote's URL), or includes a file that does (v6: a
# git-credentials-*.config under RUNNER_TEMP).
has_token() {
	local f=$1 depth=${2:-0} line inc
	[ -f "$f" ] && [ -r "$f" ] || return 1
	grep -qiE 'extraheader|x-access-token' -- "$f" && return 0
	[ "$depth" -lt 10 ] || return 1
	while IFS= read -r line; do
		inc=${line#*=}
		inc=${inc#"${inc%%[![:blank:]]*}"}
		inc=${inc%"${inc##*[![:blank:]]}"}
		inc=${inc#\"}
		inc=${inc%\"}
		case $inc in
		\~/*) inc=$HOME/${inc#??} ;;
		/*) ;;
		*) inc=$(dirname -- "$f")/$inc ;;
		esac
		has_token "$inc" $((depth + 1)) && return 0
	done < <(grep -iE '^[[:blank:]]*(\[[^]]*\][[:blank:]]*)?path[[:blank:]]*=' -- "$f")
	return 1
}

# token_check: refused while the job's token is persisted, in any git
# config beneath the workspace (and what it includes), or in a checkout's
# credentials file under RUNNER_TEMP.
token_check() {
	local f c
	for f in "$temp"/git-credentials-*.config; do
		[ -e "$f" ] || continue
		! has_token "$f" 0 ||
			die "refused: the job's token is persisted in $f (actions/checkout: set persist-credentials: false)"
	done
	for f in "${gitdirs[@]}"; do
		while IFS= read -r -d '' c; do
			! has_token "$c" 0 ||
				die "refused: the job's token is persisted in $c, or a file it includes (actions/checkout: set persist-credentials: false)"
		done < <(find "$f" -type f \( -name config -o -name config.worktree \) -print0)
	done
}

[ -n "${INPUT_RUN:-}" ] || die "refused: no command to run (input run)"
[ -n "${GITHUB_WORKSPACE:-}" ] || die "refused: GITHUB_WORKSPACE is not set"
[ -n "${RUNNER_TEMP:-}" ] || die "refused: RUNNER_TEMP is not set"
[[ $sharness_exec == /* ]] || die "refused: SHARNESS_EXEC is not an absolute path: $sharness_exec"
[ -x "$sharness_exec" ] || die "refused: $sharness_exec is not installed"
ws=$(canonical GITHUB_WORKSPACE "$GITHUB_WORKSPACE")
temp=$(canonical RUNNER_TEMP "$RUNNER_TEMP")
[ -d "$ws" ] || die "refused: the workspace is not a directory: $ws"
[ "$ws" = "$GITHUB_WORKSPACE" ] || [ "$ws/" = "$GITHUB_WORKSPACE" ] ||
	die "refused: the workspace is not its own path (a symlink, . or ..): $GITHUB_WORKSPACE"
# The runner's work directory holds _temp, _actions and _tool, beside the
# workspace: the workspace may not hold it, nor the tool cache.
work=$(dirname -- "$temp")
tools=$work/_tool
[ -z "${RUNNER_TOOL_CACHE:-}" ] || tools=$(canonical RUNNER_TOOL_CACHE "$RUNNER_TOOL_CACHE")
for d in "$temp" "$work" "$tools"; do
	! beneath "$d" "$ws" || die "refused: the workspace $ws holds the runner's $d"
done
! beneath "$ws" "$temp" || die "refused: the workspace $ws lies in RUNNER_TEMP"

# The names the command gets, beyond sharness-exec's defaults (PATH, LANG,
# LC_*, TZ, TERM, HOME and USER of the user it runs as).
INPUT_ENV=${INPUT_ENV:-}
read -ra names <<<"${INPUT_ENV//[,$'\n']/ }"
for n in "${names[@]}"; do
	[[ $n =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || die "refused: input env: not a variable name: $n"
	case $n in
	ACTIONS_* | GITHUB_TOKEN | GITHUB_ENV | GITHUB_PATH | GITHUB_OUTPUT | GITHUB_STEP_SUMMARY | \
	GITHUB_STATE | GITHUB_EVENT_PATH | RUNNER_TEMP)
		die "refused: input env: $n is the runner's, not the command's" ;;
	esac
	[[ " ${passed[*]} " == *" $n "* ]] || passed+=("$n")
done

exec_paths=(/usr)
while IFS= read -r p; do
	p=${p#"${p%%[![:blank:]]*}"}
	p=${p%"${p##*[![:blank:]]}"}
	[ -n "$p" ] || continue
	p=$(canonical "input exec" "$p")
	for d in "$temp" "$work"; do
		! beneath "$d" "$p" || die "refused: input exec: $p holds the runner's $d"
	done
	! beneath "$p" "$temp" || die "refused: input exec: $p lies in RUNNER_TEMP"
	exec_paths+=("$p")
done <<<"${INPUT_EXEC:-}"

# Every .git directory of the workspace: scanned for the token, and
# read-only for the command (files.protected), so that nothing it plants
# there (core.fsmonitor, hooks) runs in a later step's git, unconfined.
gitdirs=()
while IFS= read -r -d '' d; do gitdirs+=("$d"); done \
	< <(find "$ws" -name .git -type d -prune -print0)
token_check

# The report: written by the front end as root, read by later steps; not
# where the command could replace it.
if [ -n "${INPUT_REPORT:-}" ]; then
	report=$(canonical "input report" "$INPUT_REPORT")
	! beneath "$report" "$ws" || die "refused: input report: $report lies in the workspace, which the command writes"
	! beneath "$report" /tmp || die "refused: input report: $report lies in /tmp, private to the run"
fi

for n in "${INPUT_MAX_MEMORY_MB:=4096}" "${INPUT_MAX_PIDS:=1024}"; do
	[[ $n =~ ^[1-9][0-9]{0,6}$ ]] || die "refused: input max-memory-mb or max-pids: not a number: $n"
done

user=${INPUT_USER:-}
sudo=()
if [ "$(id -u)" = 0 ]; then
	[ -n "$user" ] || die "refused: run as root: name the user to run the command as (input user)"
	case ${user%%:*} in 0 | root) die "refused: input user: never root" ;; esac
else
	[ -z "$user" ] || die "refused: input user is for a root caller; the command runs as the caller"
	user=$(id -u):$(id -g)
	sudo=(/usr/bin/sudo -n "--preserve-env=$(IFS=,; echo "${passed[*]}")" --)
fi

plain "$ws" "$caller_path" "${exec_paths[@]}" "${gitdirs[@]}"
dir=$(mktemp -d "$temp/sharness-exec-action.XXXXXX")
policy=$dir/policy.json
{
	printf '{\n  "pbp": 1,\n  "id": "sharness-exec-action",\n  "files": {\n'
	printf '    "read": ["/etc", "/dev", "/proc"],\n'
	printf '    "exec": %s,\n' "$(list "${exec_paths[@]}")"
	printf '    "write": %s,\n' "$(list /dev/null "$ws")"
	[ ${#gitdirs[@]} = 0 ] || printf '    "protected": %s,\n' "$(list "${gitdirs[@]}")"
	printf '    "tmpfs": ["/tmp"]\n  },\n  "network": "none",\n'
	printf '  "env": {\n    "inherit": %s,\n' "$(list "${passed[@]}")"
	printf '    "set": {"PATH": %s, "TMPDIR": "/tmp"}\n  },\n' "$(json "$caller_path")"
	printf '  "process": {"no_new_privs": true, "max_memory_mb": %s, "max_pids": %s}\n}\n' \
		"$INPUT_MAX_MEMORY_MB" "$INPUT_MAX_PIDS"
} >"$policy"
chmod 644 "$policy"
"$sharness_exec" check "$policy" >&2 || exit 125
hash=$("$sharness_exec" hash "$policy")
printf '%s: the command gets, of the environment: %s; never ACTIONS_* (the OIDC request and runtime tokens) nor GITHUB_TOKEN\n' \
	"$me" "${passed[*]}" >&2
printf '%s: policy %s (%s):\n' "$me" "$hash" "$policy" >&2
cat "$policy" >&2

args=(run --user "$user" --policy "$policy" --expect-hash "$hash")
[ -z "${INPUT_TIMEOUT:-}" ] || args+=(--timeout "$INPUT_TIMEOUT")
cd "$ws"
cmd=(/bin/bash --noprofile --norc -eo pipefail -c "$INPUT_RUN")
[ -n "${INPUT_REPORT:-}" ] ||
	exec "${sudo[@]}" "$sharness_exec" "${args[@]}" -- "${cmd[@]}"
# The front end, root under --user, writes a report only where nobody
# but root could change the directories above it: a directory of root's
# beneath /var/tmp, copied to the input's path once the run is over.
rdir=$("${sudo[@]}" /usr/bin/mktemp -d /var/tmp/sharness-exec-action-report.XXXXXX) ||
	die "unable to make the report's directory"
rc=0
"${sudo[@]}" "$sharness_exec" "${args[@]}" --report "$rdir/report.json" -- "${cmd[@]}" || rc=$?
"${sudo[@]}" /bin/cat "$rdir/report.json" >"$report" || rc=${rc/#0/126}
"${sudo[@]}" /bin/rm -rf -- "$rdir"
exit "$rc"
