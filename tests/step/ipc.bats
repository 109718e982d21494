#!/usr/bin/env bats
# The IPC namespace and the new session keyring of the namespace step,
# through the whole chain (`sharness-exec run`), in both forms of "network",
# as root and as nobody: an outside 0600 SysV segment, an outside POSIX
# message queue and a secret in the caller's session keyring can be neither
# read nor changed nor removed from inside, and stay intact outside. Each
# attack is first shown to work for the same user unconfined
# (tests/helpers/ipc.bash).
# not tested: the caller's user keyring (@u), which a new session keyring
#   does not hide (the landlock step's seccomp filter refuses keyctl);
#   where no IPC namespace can be made (netns.bats checks the warning).
load ../helpers/load
load ../helpers/ipc

setup() {
	setup_tmp
}

teardown() {
	ipc_cleanup
	teardown_tmp
}

policy() { # NETWORK
	write_policy "$TMP/p.json" '{"pbp":1,"id":"ipc",
	  "files":{"read":["/etc","/proc"],"write":[],
	           "exec":["/usr","/bin","/lib","/lib64","'"$TRYDIR"'"]},
	  "network":'"$1"',
	  "process":{"no_new_privs":true}}'
}

t_ipc() { # MODE NETWORK
	local m=$1
	need "$m"
	[ "$m" = nobody ] && require_feature userns
	[ "$m" = root ] && require_feature netns
	policy "$2"
	INSIDE=("$SHARNESS_EXEC" run -p "$TMP/p.json" --)
	shm_check "$m"
	mq_check "$m"
	key_check "$m"
}

@test "network none: outside SysV, POSIX mq and session key out of reach (root)" { t_ipc root '"none"'; }
@test "network none: outside SysV, POSIX mq and session key out of reach (nobody)" { t_ipc nobody '"none"'; }
@test "host network: outside SysV, POSIX mq and session key out of reach (root)" { t_ipc root '{"connect_tcp_ports":[]}'; }
@test "host network: outside SysV, POSIX mq and session key out of reach (nobody)" { t_ipc nobody '{"connect_tcp_ports":[]}'; }
