#!/usr/bin/env bats
# The shell completions of sharness-exec: what bash, zsh and fish complete a
# command line to, that their lists agree with `sharness-exec --help` and
# are kept sorted.
# not tested: completion typed at a real terminal (bash is driven through
# COMP_WORDS, zsh through zpty, fish through `complete -C`); menu and
# description display; completion of quoted or escaped file names.

load ../helpers/load

BASH_COMPLETION=/usr/share/bash-completion/bash_completion
COMPLETIONS="$top_srcdir/completions"

setup() {
	setup_tmp
	# A directory to complete in: two policies, a note, a subdirectory.
	mkdir "$TMP/dir" "$TMP/dir/sub" "$TMP/notes" "$TMP/bin"
	write_policy "$TMP/dir/a.json" '{"pbp": 1, "id": "a", "network": "none", "process": {"no_new_privs": true}}'
	write_policy "$TMP/dir/b.json" '{"pbp": 1, "id": "b", "network": "none", "process": {"no_new_privs": true}}'
	touch "$TMP/dir/notes.txt" "$TMP/notes/readme.txt"
	# The completions run `sharness-exec hash`; an odd command to find in PATH.
	ln -s "$SHARNESS_EXEC" "$TMP/bin/sharness-exec"
	printf '#!/bin/sh\n' >"$TMP/bin/sharness-exec-test-cmd"
	chmod 755 "$TMP/bin/sharness-exec-test-cmd"
	export PATH="$TMP/bin:$PATH"
}

# bash_complete DIR WORD...: what bash completes the last WORD to, in DIR,
# one candidate a line, sorted.
bash_complete() {
	local dir=$1
	shift
	(
		cd "$dir" || exit 1
		bash --norc --noprofile -c '
			source "$1" && source "$2" || exit 1
			shift 2
			COMP_WORDS=("$@")
			COMP_CWORD=$(($# - 1))
			COMP_LINE="$*"
			COMP_POINT=${#COMP_LINE}
			spec=$(complete -p sharness-exec) || exit 1
			fn=${spec##*-F }
			fn=${fn%% *}
			"$fn" sharness-exec "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
			printf "%s\n" "${COMPREPLY[@]}"
		' bash "$BASH_COMPLETION" "$COMPLETIONS/bash/sharness-exec" "$@" 2>/dev/null
	) | LC_ALL=C sort
}

# The subcommands and the long options of run, from --help.
help_commands() {
	"$SHARNESS_EXEC" --help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p' | LC_ALL=C sort
}
help_run_options() {
	{ "$SHARNESS_EXEC" --help | sed -n '/^run options:/,/^$/p' | grep -oE -- '--[a-z-]+'; echo --help; } |
		LC_ALL=C sort -u
}

@test "bash: the first word completes to a subcommand" {
	require_feature file:"$BASH_COMPLETION"
	run -0 bash_complete "$TMP" sharness-exec r
	[ "$output" = run ]
	run -0 bash_complete "$TMP" sharness-exec h
	[ "$output" = $'hash\nhello' ]
	run -0 bash_complete "$TMP" sharness-exec --
	[ "$output" = $'--help\n--version' ]
}

@test "bash: the subcommands are those of --help" {
	require_feature file:"$BASH_COMPLETION"
	run -0 help_commands
	local want=$output
	[ -n "$want" ]
	run -0 bash_complete "$TMP" sharness-exec ''
	[ "$(grep -v '^-' <<<"$output")" = "$want" ]
}

@test "bash: run's options complete, and are those of --help" {
	require_feature file:"$BASH_COMPLETION"
	run -0 bash_complete "$TMP" sharness-exec run --b
	[ "$output" = --best-effort ]
	run -0 bash_complete "$TMP" sharness-exec run --dry-run --v
	[ "$output" = --verbose ]
	run -0 help_run_options
	local want=$output
	[[ $want == *--policy* ]]
	run -0 bash_complete "$TMP" sharness-exec run --
	[ "$output" = "$want" ]
}

@test "bash: --policy and -p complete the .json files and directories first" {
	require_feature file:"$BASH_COMPLETION"
	run -0 bash_complete "$TMP/dir" sharness-exec run --policy ''
	[ "$output" = $'a.json\nb.json\nsub' ]
	run -0 bash_complete "$TMP/dir" sharness-exec run --dry-run -p ''
	[ "$output" = $'a.json\nb.json\nsub' ]
	run -0 bash_complete "$TMP/dir" sharness-exec run --policy=b
	[ "$output" = b.json ]
	# Where there is no .json file, any file.
	run -0 bash_complete "$TMP/notes" sharness-exec run --policy ''
	[ "$output" = readme.txt ]
}

@test "bash: hash and check complete one policy file" {
	require_feature file:"$BASH_COMPLETION"
	run -0 bash_complete "$TMP/dir" sharness-exec hash ''
	[ "$output" = $'a.json\nb.json\nsub' ]
	run -0 bash_complete "$TMP/dir" sharness-exec check a
	[ "$output" = a.json ]
	run -0 bash_complete "$TMP/dir" sharness-exec check a.json ''
	[ -z "$output" ]
}

@test "bash: probe completes --json, hello nothing" {
	require_feature file:"$BASH_COMPLETION"
	run -0 bash_complete "$TMP" sharness-exec probe --
	[ "$output" = $'--json\n--trust-key' ]
	run -0 bash_complete "$TMP/dir" sharness-exec hello ''
	[ -z "$output" ]
}

@test "bash: keys and signatures complete for keygen, sign, verify, run and probe" {
	require_feature file:"$BASH_COMPLETION"
	touch "$TMP/dir/ci.key" "$TMP/dir/ci.pub" "$TMP/dir/a.json.sig"
	run -0 bash_complete "$TMP/dir" sharness-exec sign ''
	[ "$output" = -k ]
	run -0 bash_complete "$TMP/dir" sharness-exec sign -k ''
	[ "$output" = $'ci.key\nsub' ]
	run -0 bash_complete "$TMP/dir" sharness-exec sign -k ci.key ''
	[ "$output" = $'a.json\nb.json\nsub' ]
	run -0 bash_complete "$TMP/dir" sharness-exec verify -K ''
	[ "$output" = $'ci.pub\nsub' ]
	run -0 bash_complete "$TMP/dir" sharness-exec verify -K ci.pub a.json ''
	[ "$output" = $'a.json.sig\nsub' ]
	run -0 bash_complete "$TMP/dir" sharness-exec keygen ''
	[ "$output" = -o ]
	run -0 bash_complete "$TMP/dir" sharness-exec run --trust-key ''
	[ "$output" = $'ci.pub\nsub' ]
	run -0 bash_complete "$TMP/dir" sharness-exec run --trust-key ci.pub --signature ''
	[ "$output" = $'a.json.sig\nsub' ]
	run -0 bash_complete "$TMP/dir" sharness-exec run --trust-key ci.pub -p a.json -- sharness-exec-test-c
	[ "$output" = sharness-exec-test-cmd ]
	run -0 bash_complete "$TMP/dir" sharness-exec probe --trust-key ''
	[ "$output" = $'ci.pub\nsub' ]
	run -0 bash_complete "$TMP/dir" sharness-exec hash --
	[ "$output" = --canonical ]
	run -0 bash_complete "$TMP/dir" sharness-exec hash --canonical a
	[ "$output" = a.json ]
}

@test "bash: --expect-hash completes the hash of the policy given before it" {
	require_feature file:"$BASH_COMPLETION"
	run -0 "$SHARNESS_EXEC" hash "$TMP/dir/a.json"
	local want=$output
	[[ $want == sha256:* ]]
	run -0 bash_complete "$TMP/dir" sharness-exec run --policy a.json --expect-hash ''
	[ "$output" = "$want" ]
	run -0 bash_complete "$TMP/dir" sharness-exec run -pb.json -n -H sha
	[ "$output" = "$(cd "$TMP/dir" && "$SHARNESS_EXEC" hash b.json)" ]
	[ "$output" != "$want" ]
	# No policy yet, or an unreadable one: nothing to offer.
	run -0 bash_complete "$TMP/dir" sharness-exec run -H ''
	[ -z "$output" ]
	run -0 bash_complete "$TMP/dir" sharness-exec run -p missing.json -H ''
	[ -z "$output" ]
}

@test "bash: after -- or the first non-option, a command line completes" {
	require_feature file:"$BASH_COMPLETION"
	run -0 bash_complete "$TMP/dir" sharness-exec run -p a.json -- sharness-exec-test-c
	[ "$output" = sharness-exec-test-cmd ]
	run -0 bash_complete "$TMP/dir" sharness-exec run -p a.json sharness-exec-test-c
	[ "$output" = sharness-exec-test-cmd ]
	# The command's own arguments complete as that command's: here, our own.
	run -0 bash_complete "$TMP/dir" sharness-exec run -p a.json -- sharness-exec r
	[ "$output" = run ]
	run -0 bash_complete "$TMP/dir" sharness-exec run --policy a.json -n -- sharness-exec run --b
	[ "$output" = --best-effort ]
	# Before the policy is given, run's options are due, not a command.
	run -0 bash_complete "$TMP/dir" sharness-exec run ''
	[[ $output == *--policy* ]]
	[[ $output != *sharness-exec-test-cmd* ]]
}

@test "bash: the word lists are sorted in LC_ALL=C order" {
	local f="$COMPLETIONS/bash/sharness-exec" name list n=0
	for name in commands run_opts wrap_opts probe_opts; do
		list=$(sed -n "s/^ *local $name='\\(.*\\)'\$/\\1/p" "$f")
		[ -n "$list" ]
		tr ' ' '\n' <<<"$list" | LC_ALL=C sort -C
		n=$((n + 1))
	done
	[ "$n" = 4 ]
}

# wrap's options, from wrap --help: -o and the long ones.
help_wrap_options() {
	"$SHARNESS_EXEC" wrap --help | sed -n '/^options:/,$p' | grep -oE -- '(^  -o|--[a-z-]+)' |
		sed 's/^ *//' | LC_ALL=C sort -u
}

@test "bash, zsh and fish: wrap's options are those of wrap --help; -o, --policy and -H complete" {
	require_feature file:"$BASH_COMPLETION"
	local want
	want=$(help_wrap_options)
	[[ $want == *--user-groups* ]] && [[ $want == *-o* ]]
	run -0 bash_complete "$TMP" sharness-exec wrap -
	[ "$output" = "$want" ]
	run -0 bash_complete "$TMP/dir" sharness-exec wrap --policy ''
	[ "$output" = $'a.json\nb.json\nsub' ]
	run -0 bash_complete "$TMP/dir" sharness-exec wrap -p a.json -H ''
	[ "$output" = "$(cd "$TMP/dir" && "$SHARNESS_EXEC" hash a.json)" ]
	run -0 bash_complete "$TMP/dir" sharness-exec wrap -o ''
	[[ $output == *a.json* ]]
	run -0 sed -n "/^        (wrap)/,/;;/s/.*\(--[a-z][a-z-]*\|-o\)[]=+}[].*/\1/p" "$COMPLETIONS/zsh/_sharness-exec"
	[ "$(LC_ALL=C sort <<<"$output")" = "$want" ]
	run -0 sed -n "s/^complete .*__fish_seen_subcommand_from wrap' .*-\(s o\|l [a-z-]*\) .*/\1/p" "$COMPLETIONS/fish/sharness-exec.fish"
	[ "$(sed -e 's/^s /-/' -e 's/^l /--/' <<<"$output" | LC_ALL=C sort)" = "$want" ]
}

# zsh_complete DIR LINE: what zsh completes LINE to, in DIR, one a line,
# sorted. Drives an interactive zsh through zpty, with compadd wrapped to
# print every candidate it is given.
zsh_complete() {
	cat >"$TMP/capture.zsh" <<'EOF'
zmodload zsh/zpty || exit 2
zpty z zsh -f -i
zpty -w z "cd ${(q)2}; PS1=; RPS1=; fpath=(${(q)1} \$fpath); autoload -Uz compinit; compinit -u -d ${(q)3}/zcompdump"
zpty -w z "zstyle ':completion:*' list-grouped false; zstyle ':completion:*' insert-tab false"
# The markers are put together at run time: the echoed input never holds them.
zpty -w z 'compadd() { local -a __hits; builtin compadd -O __hits "$@"; print -rl -- "<h""it>"${^__hits}; builtin compadd "$@"; }'
zpty -w z '_se_done() { print -r -- "<do""ne>"; }; comppostfuncs=(_se_done)'
zpty -w z "$4"$'\t'
local line
local -a out
while zpty -r z line; do
	line=${line//$'\r'/}
	line=${line%$'\n'}
	[[ $line == *'<done>'* ]] && break
	[[ $line == *'<hit>'* ]] && out+=("${line#*<hit>}")
done
zpty -d z
print -rl -- ${(u)out}
EOF
	timeout 30 zsh -f "$TMP/capture.zsh" "$COMPLETIONS/zsh" "$1" "$TMP" "$2" | LC_ALL=C sort
}

@test "zsh: the completion loads and is registered for sharness-exec" {
	require_feature tool:zsh
	run -0 --separate-stderr zsh -f -c "autoload -U compinit; compinit -u -d '$TMP/zcompdump'; source '$COMPLETIONS/zsh/_sharness-exec'; print -r -- \$_comps[sharness-exec]"
	[ "$output" = _sharness-exec ]
	[ -z "$stderr" ]
	# Autoloaded from fpath, as installed.
	run -0 --separate-stderr zsh -f -c "fpath=('$COMPLETIONS/zsh' \$fpath); autoload -U compinit; compinit -u -d '$TMP/zcompdump2'; print -r -- \$_comps[sharness-exec]"
	[ "$output" = _sharness-exec ]
	[ -z "$stderr" ]
}

@test "zsh: subcommands, options, policy files and the command complete" {
	require_feature tool:zsh
	require_feature zsh-zpty
	run -0 zsh_complete "$TMP" 'sharness-exec r'
	[ "$output" = run ]
	run -0 zsh_complete "$TMP" 'sharness-exec '
	[ "$output" = "$(help_commands)" ]
	run -0 zsh_complete "$TMP" 'sharness-exec run --b'
	[ "$output" = --best-effort ]
	run -0 zsh_complete "$TMP/dir" 'sharness-exec run --policy '
	[ "$output" = $'a.json\nb.json\nsub' ]
	run -0 zsh_complete "$TMP/notes" 'sharness-exec hash '
	[ "$output" = readme.txt ]
	run -0 zsh_complete "$TMP/dir" 'sharness-exec run -p a.json -H '
	[ "$output" = "$(cd "$TMP/dir" && "$SHARNESS_EXEC" hash a.json)" ]
	run -0 zsh_complete "$TMP/dir" 'sharness-exec run -p a.json -- sharness-exec-test-c'
	[ "$output" = sharness-exec-test-cmd ]
	run -0 zsh_complete "$TMP" 'sharness-exec probe --'
	[ "$output" = $'--json\n--trust-key' ]
}

@test "zsh: the lists are sorted in LC_ALL=C order" {
	local f="$COMPLETIONS/zsh/_sharness-exec"
	run -0 sed -n "/local -a commands=(/,/)/s/^ *'\\([a-z]*\\):.*/\\1/p" "$f"
	[ "$output" = "$(help_commands)" ]
	run -0 sed -n "/^        (run)/,/;;/s/.*--\\([a-z][a-z-]*\\)[]=}[].*/\\1/p" "$f"
	[ "${#lines[@]}" = 25 ]
	LC_ALL=C sort -C <<<"$output"
	[ "$(sed 's/^/--/' <<<"$output")" = "$(help_run_options)" ]
}

# fish_complete DIR LINE: what fish completes LINE to, in DIR, sorted.
fish_complete() {
	(cd "$1" && HOME="$TMP/fishhome" XDG_CONFIG_HOME="$TMP/fishhome/config" \
		XDG_DATA_HOME="$TMP/fishhome/data" fish -c \
		"source '$COMPLETIONS/fish/sharness-exec.fish'; complete -C '$2'") | cut -f1
}

@test "fish: the completion parses" {
	require_feature tool:fish
	run -0 --separate-stderr fish -n "$COMPLETIONS/fish/sharness-exec.fish"
	[ -z "$output$stderr" ]
}

@test "fish: subcommands, options, policy files and the command complete" {
	require_feature tool:fish
	mkdir -p "$TMP/fishhome"
	run -0 fish_complete "$TMP" 'sharness-exec r'
	[ "$output" = run ]
	run -0 fish_complete "$TMP" 'sharness-exec '
	[ "$(LC_ALL=C sort <<<"$output")" = "$(help_commands)" ]
	run -0 fish_complete "$TMP" 'sharness-exec run --b'
	[ "$output" = --best-effort ]
	# The .json files and directories first, then the other files.
	run -0 fish_complete "$TMP/dir" 'sharness-exec run --policy '
	[ "${lines[0]}" = a.json ]
	[ "${lines[1]}" = b.json ]
	[ "${lines[2]}" = sub/ ]
	run -0 fish_complete "$TMP/dir" 'sharness-exec check '
	[ "${lines[0]}" = a.json ]
	run -0 fish_complete "$TMP/dir" 'sharness-exec run -p a.json -H '
	[ "$output" = "$(cd "$TMP/dir" && "$SHARNESS_EXEC" hash a.json)" ]
	run -0 fish_complete "$TMP/dir" 'sharness-exec run -p a.json -- sharness-exec-test-c'
	[ "$output" = sharness-exec-test-cmd ]
	run -0 fish_complete "$TMP/dir" 'sharness-exec run -p a.json -- sharness-exec h'
	[ "$output" = $'hash\nhello' ]
	run -0 fish_complete "$TMP" 'sharness-exec probe --'
	[ "$output" = $'--json\n--trust-key' ]
}

@test "fish: run's options are kept sorted and are those of --help" {
	local f="$COMPLETIONS/fish/sharness-exec.fish"
	run -0 sed -n 's/^complete .*-n \$in_run .*-l \([a-z-]*\) .*/--\1/p' "$f"
	LC_ALL=C sort -C <<<"$output"
	[ "$output" = "$(help_run_options)" ]
}
