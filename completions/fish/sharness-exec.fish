# fish completion for sharness-exec(1). Keep each list sorted (LC_ALL=C).

# Within `run`, print the confined command line typed so far (possibly
# nothing) and succeed; fail while still among run's options. run's options
# end at "--" or at the first word that is not one (getopt's "+").
function __sharness_exec_command
    set -l tokens (commandline -opc)
    test "$tokens[2]" = run; or return 1
    set -l n (count $tokens)
    set -l policy 0
    set -l i 3
    while test $i -le $n
        set -l t $tokens[$i]
        if test "$t" = --
            set i (math $i + 1)
            break
        else if string match -qr -- '^(-p|--policy|-[nvh]*p|-H|--expect-hash|-[nvh]*H|--trust-key|--signature|--expect-id|--timeout|--kill-after|--user|--report|--passwd-fd|--group-fd|--hosts-fd|--state-dir|--share|--share-read)$' $t
            # The option's argument is the word being completed.
            test $i -lt $n; or return 1
            string match -qr -- 'p$|policy$' $t; and set policy 1
            set i (math $i + 2)
        else if string match -qr -- '^(--policy=|-[nvh]*p.)' $t
            set policy 1
            set i (math $i + 1)
        else if string match -q -- '-*' $t
            set i (math $i + 1)
        else
            break
        end
    end
    if test $i -gt $n
        # Nothing typed after the options yet: the policy is required, so
        # a command is only due once it was given.
        test $policy = 1; and not string match -q -- '-*' (commandline -ct); or return 1
    else
        printf '%s\n' $tokens[$i..-1]
    end
end

function __sharness_exec_complete_command
    set -l words (__sharness_exec_command)
    complete -C (string join ' ' -- (string escape -- $words) (commandline -ct))
end

# The hash of the policy named earlier on the line, to pin with -H.
function __sharness_exec_hash
    set -l tokens (commandline -opc)
    set -l policy
    for i in (seq 3 (count $tokens))
        switch $tokens[$i]
            case --
                break
            case -p --policy
                set policy $tokens[(math $i + 1)]
            case '--policy=*'
                set policy (string replace -- --policy= '' $tokens[$i])
            case '-p*'
                set policy (string sub -s 3 -- $tokens[$i])
        end
    end
    set policy (string replace -r -- '^~' $HOME $policy)
    test -n "$policy" -a "$policy" != - -a -f "$policy" -a -r "$policy"; or return
    type -q -- $tokens[1]; or return
    $tokens[1] hash $policy 2>/dev/null
end

set -l commands check hash hello keygen launch learn probe run sign verify wrap
set -l in_run '__fish_seen_subcommand_from run; and not __sharness_exec_command'

complete -c sharness-exec -f

complete -c sharness-exec -n __fish_use_subcommand -l help -d 'Print a summary of the command line'
complete -c sharness-exec -n __fish_use_subcommand -l version -d 'Print the version'
complete -c sharness-exec -n __fish_use_subcommand -a check -d 'Report every problem of a policy'
complete -c sharness-exec -n __fish_use_subcommand -a hash -d 'Print the canonical hash of a policy'
complete -c sharness-exec -n __fish_use_subcommand -a hello -d 'Self-test: show what this machine holds'
complete -c sharness-exec -n __fish_use_subcommand -a keygen -d 'Make an ECDSA P-256 key pair'
complete -c sharness-exec -n __fish_use_subcommand -a launch -d 'Run the session of a launch manifest, as root; --dry-run prints its plan'
complete -c sharness-exec -n __fish_use_subcommand -a learn -d 'Draft a policy from confined runs of a command'
complete -c sharness-exec -n __fish_use_subcommand -a probe -d 'Report what this machine can enforce'
complete -c sharness-exec -n __fish_use_subcommand -a run -d 'Run a command confined by a pinned or signed policy'
complete -c sharness-exec -n __fish_use_subcommand -a sign -d 'Check a policy and write its signature'
complete -c sharness-exec -n __fish_use_subcommand -a verify -d 'Check the signature of a policy'
complete -c sharness-exec -n __fish_use_subcommand -a wrap -d 'Write a one-word wrapper that runs its arguments confined'

complete -c sharness-exec -n $in_run -l best-effort -d 'Go on when the kernel lacks a right'
complete -c sharness-exec -n $in_run -l check -d 'Each step also prints what it uses'
complete -c sharness-exec -n $in_run -s n -l dry-run -d 'Print the chain and exit'
complete -c sharness-exec -n $in_run -s H -l expect-hash -x -a '(__sharness_exec_hash)' -d 'Refuse unless the policy has this hash'
complete -c sharness-exec -n $in_run -l expect-id -x -d 'Refuse unless the policy has this id'
complete -c sharness-exec -n $in_run -l explain -d 'When the command ends, list what the policy refused or hid'
complete -c sharness-exec -n $in_run -l explain-as -x -d 'As --explain, each line naming this role (launch)'
complete -c sharness-exec -n $in_run -l group-fd -x -d 'A sealed memfd of group lines, the view\'s /etc/group'
complete -c sharness-exec -n $in_run -l help -d 'Print the usage of run'
complete -c sharness-exec -n $in_run -l hosts-fd -x -d 'A sealed memfd of hosts lines, the view\'s /etc/hosts'
complete -c sharness-exec -n $in_run -l in-session -d 'Keep the caller\'s network namespace, a session\'s with lo alone'
complete -c sharness-exec -n $in_run -l kill-after -x -d 'With --timeout, kill what is left this much later'
complete -c sharness-exec -n $in_run -l launch-env -d 'Pass on the variables launch sets'
complete -c sharness-exec -n $in_run -l passwd-fd -x -d 'A sealed memfd of passwd lines, the view\'s /etc/passwd'
complete -c sharness-exec -n $in_run -s p -l policy -r -k -a '(__fish_complete_suffix .json)' -d 'The policy to enforce'
complete -c sharness-exec -n $in_run -l report -r -k -a '(__fish_complete_suffix .json)' -d 'Write how the run ended, as JSON, to a file (replaced) or fd:N'
complete -c sharness-exec -n $in_run -l share -r -a '(__fish_complete_directories)' -d 'A shared directory, writable unlisted'
complete -c sharness-exec -n $in_run -l share-read -r -a '(__fish_complete_directories)' -d 'A shared directory, readable unlisted'
complete -c sharness-exec -n $in_run -l signature -r -k -a '(__fish_complete_suffix .sig)' -d 'The signature file'
complete -c sharness-exec -n $in_run -l state-dir -r -a '(__fish_complete_directories)' -d 'The role\'s state directory, writable unlisted'
complete -c sharness-exec -n $in_run -l timeout -x -d 'End the run after this long, exit 124'
complete -c sharness-exec -n $in_run -l trust-key -r -k -a '(__fish_complete_suffix .pub)' -d 'Accept a policy signed by this key'
complete -c sharness-exec -n $in_run -l user -x -a '(__fish_complete_users)' -d 'Root only: run the command as this user'
complete -c sharness-exec -n $in_run -l user-groups -d 'With --user, keep the user\'s groups'
complete -c sharness-exec -n $in_run -s v -l verbose -d 'Say what is done on stderr'
complete -c sharness-exec -n __sharness_exec_command -x -a '(__sharness_exec_complete_command)'

complete -c sharness-exec -n "__fish_seen_subcommand_from check hash; and test (count (commandline -opc)) -eq 2" -k -a '(__fish_complete_suffix .json)'
complete -c sharness-exec -n "__fish_seen_subcommand_from hash; and test (count (commandline -opc)) -eq 3" -k -a '(__fish_complete_suffix .json)'
complete -c sharness-exec -n '__fish_seen_subcommand_from hash' -l canonical -d 'Write the canonical bytes, no newline'

complete -c sharness-exec -n '__fish_seen_subcommand_from keygen' -s o -r -d 'Write NAME.key and NAME.pub'
complete -c sharness-exec -n '__fish_seen_subcommand_from sign' -s k -r -k -a '(__fish_complete_suffix .key)' -d 'The private key'
complete -c sharness-exec -n '__fish_seen_subcommand_from verify' -s K -r -k -a '(__fish_complete_suffix .pub)' -d 'The public key'
complete -c sharness-exec -n "__fish_seen_subcommand_from sign verify; and test (count (commandline -opc)) -eq 4" -k -a '(__fish_complete_suffix .json)'

set -l in_launch '__fish_seen_subcommand_from launch; and not __fish_seen_argument -- --'
complete -c sharness-exec -n $in_launch -s n -l dry-run -d 'Print the plan and each chain, and exit'
complete -c sharness-exec -n $in_launch -s H -l expect-hash -x -d 'Refuse unless the manifest has this hash'
complete -c sharness-exec -n $in_launch -l expect-id -x -d 'Refuse unless the manifest has this id'
complete -c sharness-exec -n $in_launch -l explain -d 'When each role ends, list what its policy refused or hid'
complete -c sharness-exec -n $in_launch -s m -l manifest -r -k -a '(__fish_complete_suffix .json)' -d 'The launch manifest'
complete -c sharness-exec -n $in_launch -l signature -r -k -a '(__fish_complete_suffix .sig)' -d 'The signature file'
complete -c sharness-exec -n $in_launch -l trust-key -r -k -a '(__fish_complete_suffix .pub)' -d 'Accept a manifest signed by this key'
complete -c sharness-exec -n $in_launch -l keep -d 'After a failure, keep the state directories'
complete -c sharness-exec -n $in_launch -l logs -r -a '(__fish_complete_directories)' -d 'Keep each component\'s output in DIR/ROLE.log'
complete -c sharness-exec -n $in_launch -l uid-range -x -d 'The session\'s uids, FIRST-LAST'
complete -c sharness-exec -n $in_launch -l user -x -a '(__fish_complete_users)' -d 'Main runs as this user'

complete -c sharness-exec -n '__fish_seen_subcommand_from probe' -l json -d 'Print the report as one JSON object'
complete -c sharness-exec -n '__fish_seen_subcommand_from probe' -l trust-key -r -k -a '(__fish_complete_suffix .pub)' -d 'List this public key'
complete -c sharness-exec -n '__fish_seen_subcommand_from learn' -s o -r -d 'Write the draft policy here'
complete -c sharness-exec -n '__fish_seen_subcommand_from learn' -l base -r -d 'Start from this policy'
complete -c sharness-exec -n '__fish_seen_subcommand_from learn' -l rounds -x -d 'Run the command at most this many times'
complete -c sharness-exec -n '__fish_seen_subcommand_from learn' -l allow-network -d 'May turn "none" into the object form for ports'

complete -c sharness-exec -n '__fish_seen_subcommand_from wrap' -s o -r -d 'The wrapper to write'
complete -c sharness-exec -n '__fish_seen_subcommand_from wrap' -s p -l policy -r -k -a '(__fish_complete_suffix .json)' -d 'The policy the wrapper enforces'
complete -c sharness-exec -n '__fish_seen_subcommand_from wrap' -s H -l expect-hash -x -a '(__sharness_exec_hash)' -d 'Pin the policy to this hash'
complete -c sharness-exec -n '__fish_seen_subcommand_from wrap' -l trust-key -r -k -a '(__fish_complete_suffix .pub)' -d 'Accept a policy signed by this key'
complete -c sharness-exec -n '__fish_seen_subcommand_from wrap' -l signature -r -k -a '(__fish_complete_suffix .sig)' -d 'The signature file'
complete -c sharness-exec -n '__fish_seen_subcommand_from wrap' -l expect-id -x -d 'Refuse unless the policy has this id'
complete -c sharness-exec -n '__fish_seen_subcommand_from wrap' -l best-effort -d 'The wrapper runs with --best-effort'
complete -c sharness-exec -n '__fish_seen_subcommand_from wrap' -l check -d 'The wrapper runs with --check'
complete -c sharness-exec -n '__fish_seen_subcommand_from wrap' -l help -d 'Print the usage of wrap'
complete -c sharness-exec -n '__fish_seen_subcommand_from wrap' -l kill-after -x -d 'With --timeout, kill what is left this much later'
complete -c sharness-exec -n '__fish_seen_subcommand_from wrap' -l timeout -x -d 'End each run after this long, exit 124'
complete -c sharness-exec -n '__fish_seen_subcommand_from wrap' -l user -x -a '(__fish_complete_users)' -d 'Root only: run the command as this user'
complete -c sharness-exec -n '__fish_seen_subcommand_from wrap' -l user-groups -d 'With --user, keep the user\'s groups'
complete -c sharness-exec -n '__fish_seen_subcommand_from wrap' -s v -l verbose -d 'The wrapper runs with --verbose'
