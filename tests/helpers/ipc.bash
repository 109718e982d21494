# The attacker's side of the IPC namespace and the new session keyring
# (DESIGN.md 4.2), shared by netns.bats (the helper alone) and ipc.bats (the
# whole chain). Each check makes an object outside, owned by the user under
# test and readable by that user alone (0600); first shows that the same user
# unconfined CAN read, change and remove such an object (so the check can
# fail), then runs the attack under the confinement given, expects every
# attempt refused, and checks from outside that the object is intact.
#
# The caller sets INSIDE to the command words that run a command confined
# (run as MODE's user by `as MODE`), and calls ipc_cleanup in teardown.

IPC="$TRYDIR/try-ipc"
IPC_SHM=()
IPC_MQ=()

ipc_cleanup() {
	local id name
	for id in "${IPC_SHM[@]}"; do "$IPC" shm-rm "$id" 2>/dev/null || true; done
	for name in "${IPC_MQ[@]}"; do "$IPC" mq-rm "$name" 2>/dev/null || true; done
	IPC_SHM=() IPC_MQ=()
}

# all_refused N: $output is N lines, and each says "refused".
all_refused() {
	printf '%s\n' "$output"
	[ "${#lines[@]}" = "$1" ]
	[ -z "$(printf '%s\n' "${lines[@]}" | grep -v '^[a-z]*: refused: ')" ]
}

# shm_check MODE: a 0600 SysV segment holding "outside secret".
shm_check() {
	local m=$1 key id
	run -0 --separate-stderr as "$m" "$IPC" shm-make
	read -r key id <<<"$output"
	IPC_SHM+=("$id")
	run -0 --separate-stderr as "$m" "$IPC" shm-attack "$key" "$id"
	[ "$output" = "shmget: ok
scan: found it
stat: ok
attach: ok outside secret
write: ok
remove: ok" ]
	run -1 --separate-stderr "$IPC" shm-read "$id"

	run -0 --separate-stderr as "$m" "$IPC" shm-make
	read -r key id <<<"$output"
	IPC_SHM+=("$id")
	run -0 --separate-stderr as "$m" "${INSIDE[@]}" "$IPC" shm-attack "$key" "$id"
	printf '%s\n' "$output"
	# Not found under its key, not among the segments the scan sees, and
	# every id names nothing (or something else entirely).
	[ "${lines[0]}" = "shmget: refused: No such file or directory" ]
	[ "${lines[1]}" = "scan: not found" ]
	[ "${lines[2]%%:*}" = stat ]
	[[ "${lines[3]}" == "attach: refused: "* || "${lines[3]}" == "attach: ok " ]]
	[[ "$output" != *"outside secret"* ]]
	run -0 --separate-stderr as "$m" "$IPC" shm-read "$id"
	[ "$output" = "outside secret" ]
}

# mq_check MODE: a 0600 POSIX queue holding one message.
mq_check() {
	local m=$1 name=sharness-exec-test-$$-$BATS_TEST_NUMBER
	IPC_MQ+=("$name-bare" "$name")
	run -0 --separate-stderr as "$m" "$IPC" mq-make "$name-bare"
	run -0 --separate-stderr as "$m" "$IPC" mq-attack "$name-bare"
	[ "$output" = "open: ok
receive: ok outside secret
send: ok
unlink: ok" ]

	run -0 --separate-stderr as "$m" "$IPC" mq-make "$name"
	run -0 --separate-stderr as "$m" "${INSIDE[@]}" "$IPC" mq-attack "$name"
	[ "$output" = "open: refused: No such file or directory
unlink: refused: No such file or directory" ]
	run -0 --separate-stderr as "$m" "$IPC" mq-read "$name"
	[ "$output" = "messages: 1
outside secret" ]
}

# key_check MODE: a user key "outside secret" in the caller's session
# keyring; the attacker is given its serial number (/proc/keys shows it).
key_check() {
	local m=$1 desc=sharness-exec-test-$$-$BATS_TEST_NUMBER
	run -0 --separate-stderr as "$m" "$IPC" key-run "$desc" \
		sh -c '"$0" key-attack "$1" "$TRY_IPC_KEY"' "$IPC" "$desc"
	[ "${lines[0]}" = "search: ok" ]
	[ "${lines[1]}" = "read: ok outside secret" ]
	[ "${lines[2]}" = "update: ok" ]
	[ "${lines[7]}" != "after: outside secret" ]

	run -0 --separate-stderr as "$m" "$IPC" key-run "$desc" \
		"${INSIDE[@]}" sh -c '"$0" key-attack "$1" "$TRY_IPC_KEY"' "$IPC" "$desc"
	printf '%s\n' "$output"
	[ "${#lines[@]}" = 9 ]
	[ -z "$(printf '%s\n' "${lines[@]:0:6}" | grep -v '^[a-z]*: refused: ')" ]
	[ "${lines[6]}" = "status 0" ]
	[ "${lines[7]}" = "after: outside secret" ]
	[ "${lines[8]}" = "linked: yes" ]
}
