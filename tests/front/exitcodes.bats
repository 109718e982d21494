#!/usr/bin/env bats
# Exit statuses (DESIGN.md 3): the target's own through the whole chain;
# 125 refused, 126 could not confine or exec, 127 not found; a target killed
# by a signal looks killed by that signal to the caller. And the daemontools
# trio for every program: no arguments 125 + usage, unknown option 125,
# nonexistent target 127.
# not tested: 126 from a kernel without Landlock (the landlock tests cover
# it with -A, which caps the ABI the helper uses).
load ../helpers/load

# The system's exec paths for the landlock step by hand, which opens rule
# paths without following symlinks: merged-/usr links are covered by /usr.
SYS_X=()
for d in /usr /bin /lib /lib64; do
	if [ -e "$d" ] && [ ! -L "$d" ]; then SYS_X+=(-x "$d"); fi
done

policy() { # CAPS: "" or "caps"
	local proc='"no_new_privs":true'
	[ "${1:-}" = caps ] && proc='"no_new_privs":true,"max_memory_mb":512,"max_pids":128'
	write_policy "$TMP/p.json" '{"pbp":1,"id":"x","files":{"exec":["/usr","/bin","/lib","/lib64","'"$TMP"'/x"],"read":["'"$TMP"'/r"]},"network":"none","process":{'"$proc"'}}'
	mkdir -p "$TMP/x" "$TMP/r"
}

@test "the target's status 0, 1, 42, 125, 126 and 127 passes through, with and without caps" {
	require_feature landlock
	for caps in "" caps; do
		policy $caps
		for st in 0 1 42 125 126 127 255; do
			run -"$st" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- sh -c "exit $st"
		done
	done
}

@test "a target that is not found is 127, through the whole chain" {
	require_feature landlock
	for caps in "" caps; do
		policy $caps
		run -127 --separate-stderr "$SHARNESS_EXEC" run -p "$TMP/p.json" -- no-such-command-$$
		[[ "$stderr" == *"sharness-exec-landlock: fatal: unable to execute no-such-command-$$: No such file or directory"* ]]
		run -127 --separate-stderr "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TMP/x/missing"
	done
}

@test "a target that cannot be executed is 126: not executable, not allowed, not a program" {
	require_feature landlock
	policy caps
	printf 'not a program\n' >"$TMP/x/data"
	chmod 644 "$TMP/x/data"
	run -126 --separate-stderr "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TMP/x/data"
	[[ "$stderr" == *"Permission denied"* ]]
	# Executable bits, but the policy only lets it be read.
	cp /bin/true "$TMP/r/true"
	run -126 --separate-stderr "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TMP/r/true"
	[[ "$stderr" == *"Permission denied"* ]]
	# A control: the same program from an exec directory runs.
	cp /bin/true "$TMP/x/true"
	run -0 "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TMP/x/true"
	# A directory is not a program. (A file the kernel cannot execute,
	# ENOEXEC, is run by /bin/sh as execvp(3) and a bare shell would: see
	# "how a helper looks the target up" below.)
	mkdir "$TMP/x/dir"
	run -126 --separate-stderr "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TMP/x/dir"
	[[ "$stderr" == *"Permission denied"* ]]
}

@test "a target killed by a signal looks killed by that signal, with and without caps" {
	require_feature landlock
	for caps in "" caps; do
		policy $caps
		for sig in KILL TERM SEGV INT; do
			n=$(kill -l "$sig")
			# SIGINT at its default, which a make check started in the
			# background of a script does not have (it ignores it).
			run env --default-signal=INT bash -c "'$SHARNESS_EXEC' run -p '$TMP/p.json' -- sh -c 'kill -$sig \$\$'; echo \$?"
			echo "caps \"$caps\", SIG$sig: $output"
			[ "${lines[-1]}" = $((128 + n)) ]
		done
	done
}

@test "the daemontools trio: sharness-exec" {
	run -125 --separate-stderr "$SHARNESS_EXEC"
	[[ "$stderr" == "sharness-exec: fatal: "*$'\n'usage:* ]]
	run -125 --separate-stderr "$SHARNESS_EXEC" --no-such-option
	[[ "$stderr" == "sharness-exec: fatal: "*$'\n'usage:* ]]
}

@test "the daemontools trio: each helper" {
	for h in "$NETNS" "$SUPERVISE" "$LIMITS" "$LANDLOCK"; do
		run -125 --separate-stderr "$h"
		[[ "$stderr" == *"usage: sharness-exec-"* ]]
		run -125 --separate-stderr "$h" -Z -- true
		[[ "$stderr" == *"usage: sharness-exec-"* ]]
	done
	run -127 --separate-stderr "$NETNS" -- no-such-command-$$
	run -127 --separate-stderr "$SUPERVISE" -- no-such-command-$$
	run -127 --separate-stderr "$LIMITS" -m 64 -- no-such-command-$$
	run -127 --separate-stderr "$LANDLOCK" "${SYS_X[@]}" -- no-such-command-$$
}

@test "a helper's own status passes through when it is used by hand" {
	require_feature landlock
	run -42 "$LANDLOCK" "${SYS_X[@]}" -- sh -c 'exit 42'
	run -42 "$SUPERVISE" -- sh -c 'exit 42'
	run -42 "$LIMITS" -m 256 -- sh -c 'exit 42'
	run -42 "$NETNS" -- sh -c 'exit 42'
}

# The helpers do their own PATH lookup (common.c), so that it is the same
# whether they were linked with glibc or musl: glibc's execvp(3) rules.
lookup() { # HELPER-AND-ITS-OPTIONS...: each rule, through that helper
	mkdir -p "$TMP/x" "$TMP/noexec" "$TMP/empty"
	# A script without "#!": the kernel says ENOEXEC, /bin/sh runs it,
	# with its path as $0 and the arguments after it.
	printf 'echo "ran $0 [$1] [$2]"\n' >"$TMP/x/nobang"
	chmod 755 "$TMP/x/nobang"
	run -0 "$@" -- "$TMP/x/nobang" 'a b' c
	[ "$output" = "ran $TMP/x/nobang [a b] [c]" ]
	run -0 env PATH="$TMP/empty:$TMP/x" "$@" -- nobang 'a b' c
	[ "$output" = "ran $TMP/x/nobang [a b] [c]" ]
	# Not executable in the first directory: passed over for the next...
	printf '#!/bin/sh\necho wrong\n' >"$TMP/noexec/nobang"
	chmod 644 "$TMP/noexec/nobang"
	run -0 env PATH="$TMP/noexec:$TMP/x" "$@" -- nobang
	[ "$output" = "ran $TMP/x/nobang [] []" ]
	# ...but remembered: nothing else found is 126 "Permission denied".
	run -126 --separate-stderr env PATH="$TMP/noexec:$TMP/empty" "$@" -- nobang
	[[ "$stderr" == *"unable to execute nobang: Permission denied" ]]
	# Nothing anywhere is 127.
	run -127 --separate-stderr env PATH="$TMP/empty" "$@" -- nobang
	[[ "$stderr" == *"unable to execute nobang: No such file or directory" ]]
	# An empty element is the working directory.
	run -0 sh -c 'cd "$1" && shift && PATH=":/nonexistent" exec "$@" -- nobang' sh "$TMP/x" "$@"
	[ "$output" = "ran nobang [] []" ]
	# PATH unset: /bin:/usr/bin, as glibc; true is in one of them.
	run -0 env -u PATH "$@" -- true
	# A name longer than any path: ENAMETOOLONG, 126.
	run -126 --separate-stderr "$@" -- "$(printf 'n%.0s' $(seq 5000))"
	# (ENAMETOOLONG in the words of glibc, or of musl)
	[[ "$stderr" == *": File name too long" || "$stderr" == *": Filename too long" ]]
}

@test "how a helper looks the target up: sharness-exec-landlock" {
	require_feature landlock
	lookup "$LANDLOCK" "${SYS_X[@]}" -x "$TMP/x" -r "$TMP/noexec" -r "$TMP/empty"
}

@test "how a helper looks the target up: sharness-exec-netns, -supervise and -limits" {
	lookup "$NETNS"
	lookup "$SUPERVISE"
	# with a cgroup (root), so that limits has no rlimit warning to print
	require_feature root
	require_feature cgroup1
	lookup "$SUPERVISE" -- "$LIMITS" -g 5:6 -m 256
}

@test "a script without #! runs through the whole chain, found in the policy's PATH" {
	require_feature landlock
	policy caps
	printf 'echo "ran $0 [$1]"\n' >"$TMP/x/nobang"
	chmod 755 "$TMP/x/nobang"
	run -0 "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$TMP/x/nobang" 'a b'
	[ "$output" = "ran $TMP/x/nobang [a b]" ]
	run -0 env PATH="$TMP/x:/usr/bin:/bin" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- nobang 'a b'
	[ "$output" = "ran $TMP/x/nobang [a b]" ]
}
