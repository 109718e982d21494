#!/usr/bin/env bats
# launch for daily use (issue 41, DESIGN.md 4.8), as root: each component's
# stdout and stderr reach the launch's stderr a line at a time as
# "ROLE| LINE", prefixed by the role whose pipe it came on, its control
# bytes escaped, so that no component passes a line off as another's; a
# stdout_line component's first line still goes to main alone; --logs DIR
# keeps each component's lines in DIR/ROLE.log (DIR made 0700, the
# caller's), and refuses a DIR that is a link or another's, and a planted
# ROLE.log link leads nowhere; a component that ends before it is ready
# is reported with its exit status or signal and its last lines.
# The roles' scripts wait on FIFOs, never on time; ports are the session's
# own (7000), no other process on the machine can hold them.
load ../helpers/load
load ../helpers/launch

setup() {
	launch_setup
	mkfifo -m 666 "$TMP/fa" "$TMP/fb"
}

teardown() {
	launch_unlock
	teardown_tmp
}

# component ROLE READY [WRITE]: a component that runs $TMP/ROLE.sh, ready
# as READY says (a JSON object), WRITE (a JSON string) its files.write.
component() {
	printf '%s' '{"role":"'"$1"'","command":["/bin/sh","'"$TMP/$1"'.sh"],
	  "policy":{"pbp":1,"id":"'"$1"'","files":{"exec":['"$SYS"'],"read":["'"$TMP/$1"'.sh","'"$STATE/$1"'"]'"${3:+,\"write\":[$3]}"'},
	            "network":{"bind_tcp_ports":[7000],"connect_tcp_ports":[7000]},"process":{"no_new_privs":true}},
	  "ready":'"$2"'}'
}

# launch_manifest COMPONENTS MAIN_WRITE: $TMP/m.json, COMPONENTS (JSON
# objects, comma-separated) and main, which may write MAIN_WRITE (JSON
# strings); its hash in $H.
launch_manifest() {
	write_policy "$TMP/m.json" '{"launch":1,"id":"daily","components":['"$1"'],
	 "main":{"role":"main","policy":{"pbp":1,"id":"main","files":{"exec":['"$SYS"'],
	  "read":["'"$TMP"'/main.sh","'"$STATE"'/main"],"write":['"$2"']},"network":"none","process":{"no_new_privs":true}}}}'
	H=$("$SHARNESS_EXEC" hash "$TMP/m.json")
}

# The two components of the log tests: "a" writes on its stderr, a line
# of which looks like b's, then its ready line, a line on its stdout and
# one without a newline, and then says so on $TMP/fa; "b" its ready line,
# a line, and then says so on $TMP/fb. Main waits for both, so that all
# they wrote is written before the session ends.
log_roles() {
	script a 'echo "err from a" >&2' "printf 'b| forged\\r\\033[2J\\n' >&2" 'echo a-line' \
		'echo "out from a"' "printf 'no newline'" "echo a >$TMP/fa" 'exec sleep infinity'
	script b 'echo b-line' 'echo "out from b"' "echo b >$TMP/fb" 'exec sleep infinity'
	launch_manifest "$(component a '{"stdout_line":true}' "\"$TMP/fa\""),
		$(component b '{"stdout_line":true}' "\"$TMP/fb\"")" "\"$TMP/fa\",\"$TMP/fb\""
}

# main.sh, which waits for both (its FIFOs are $TMP/fa and $TMP/fb).
main_script() {
	script main "read x <$TMP/fa; read y <$TMP/fb" \
		'echo "ready $SHARNESS_AI_READY_A $SHARNESS_AI_READY_B"'
}

@test "each component's lines reach the launch's stderr as ROLE| LINE, escaped, by the role that wrote them; the ready line goes to main alone" {
	log_roles
	main_script
	run -0 --separate-stderr "$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$H" -- /bin/sh "$TMP/main.sh"
	[ "$output" = "ready a-line b-line" ]
	printf '%s\n' "$stderr" >"$TMP/err"
	grep -Fxq 'a| err from a' "$TMP/err"
	grep -Fxq 'a| out from a' "$TMP/err"
	grep -Fxq 'a| no newline' "$TMP/err"
	grep -Fxq 'b| out from b' "$TMP/err"
	# a's line that looks like b's is a's, its control bytes escaped
	grep -Fxq 'a| b| forged\x0d\x1b[2J' "$TMP/err"
	[ "$(grep -c '^b| ' "$TMP/err")" = 1 ]
	! grep -q $'[\r\033]' "$TMP/err"
	# the ready lines went to main, not to the logs
	! grep -q -- '-line' "$TMP/err"
	nothing_left
}

@test "--logs DIR keeps each component's lines in DIR/ROLE.log, the caller's, DIR made 0700; a ROLE.log link planted there leads nowhere" {
	log_roles
	main_script
	mkdir -m 755 "$TMP/pre"
	echo precious >"$TMP/victim"
	ln -s "$TMP/victim" "$TMP/pre/a.log"
	for dir in "$TMP/logs" "$TMP/pre"; do
		run -0 --separate-stderr "$SHARNESS_EXEC" launch --logs "$dir" -m "$TMP/m.json" -H "$H" -- /bin/sh "$TMP/main.sh"
		[ "$output" = "ready a-line b-line" ]
		[ "$(printf '%s\n' 'a| b| forged\x0d\x1b[2J' 'a| err from a' 'a| no newline' 'a| out from a' 'b| out from b')" = "$(grep '^[ab]| ' <<<"$stderr" | sort)" ]
		[ "$(printf '%s\n' 'b| forged\x0d\x1b[2J' 'err from a' 'no newline' 'out from a')" = "$(sort "$dir/a.log")" ]
		[ "$(cat "$dir/b.log")" = "out from b" ]
		[ "$(stat -c '%F %a %u %g' "$dir/a.log" "$dir/b.log")" = "regular file 600 0 0
regular file 600 0 0" ]
		[ ! -e "$dir/main.log" ]
	done
	[ "$(stat -c '%a %u' "$TMP/logs")" = "700 0" ]
	[ "$(cat "$TMP/victim")" = precious ]
	nothing_left
}

@test "--logs refuses a DIR that is a link or not the caller's, with one line, before anything runs" {
	log_roles
	main_script
	mkdir "$TMP/real"
	ln -s "$TMP/real" "$TMP/link"
	run -125 --separate-stderr "$SHARNESS_EXEC" launch --logs "$TMP/link" -m "$TMP/m.json" -H "$H" -- /bin/sh "$TMP/main.sh"
	[ -z "$output" ]
	[ "$stderr" = "sharness-exec: fatal: refused: --logs \"$TMP/link\": a symbolic link. Nothing ran." ]
	mkdir "$TMP/theirs"
	chown 65534:65534 "$TMP/theirs"
	run -125 --separate-stderr "$SHARNESS_EXEC" launch --logs "$TMP/theirs" -m "$TMP/m.json" -H "$H" -- /bin/sh "$TMP/main.sh"
	[ -z "$output" ]
	[ "$stderr" = "sharness-exec: fatal: refused: --logs \"$TMP/theirs\": owned by uid 65534, not the caller's (0). Nothing ran." ]
	[ -z "$(find "$TMP/real" "$TMP/theirs" -mindepth 1)" ]
	nothing_left
}

@test "a component that ends before it is ready is named with its exit status or signal and its last 5 lines, escaped" {
	script db 'for i in 1 2 3 4 5 6; do echo "db says $i" >&2; done' \
		"printf 'bad\\033]0;x\\007\\n' >&2" 'exit 3'
	launch_manifest "$(component db '{"tcp":7000}')" "\"$TMP/fa\""
	run -126 --separate-stderr "$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$H" -- /bin/echo main ran
	[ -z "$output" ]
	[ "$(printf '%s\n' "$stderr" | tail -n 6)" = "$(printf '%s\n' \
		'sharness-exec-launch: fatal: component "db" ended before it was ready: exit status 3; its last lines:' \
		'  db| db says 3' '  db| db says 4' '  db| db says 5' '  db| db says 6' '  db| bad\x1b]0;x\x07')" ]
	# by a signal, and without a line
	script db 'kill -9 $$'
	launch_manifest "$(component db '{"tcp":7000}')" "\"$TMP/fa\""
	run -126 --separate-stderr "$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$H" -- /bin/echo main ran
	[ -z "$output" ]
	[ "${stderr_lines[-1]}" = 'sharness-exec-launch: fatal: component "db" ended before it was ready: killed by signal 9; it wrote no line' ]
	nothing_left
}

@test "check names the key a manifest's unknown key is near, as for a policy's" {
	write_policy "$TMP/typo.json" '{"launch":1,"id":"typo","components":[
	 {"role":"db","command":["/bin/true"],"identiy":true,"ready":{"tcp":7000,"timeout":3},
	  "policy":{"pbp":1,"id":"db","files":{"exec":['"$SYS"']},"network":{"bind_tcp_ports":[7000]},
	            "process":{"no_new_privs":true}}}],
	 "mian":{},"main":{"role":"main","redy":{},"comand":[],
	  "policy":{"pbp":1,"id":"m","files":{"exec":['"$SYS"']},"network":"none","process":{"no_new_prvs":true}}}}'
	run -125 --separate-stderr "$SHARNESS_EXEC" check "$TMP/typo.json"
	[ "$stderr" = "sharness-exec: $TMP/typo.json: components[0] \"db\": identiy: unknown key; did you mean identity?
sharness-exec: $TMP/typo.json: components[0] \"db\": ready.timeout: unknown key; did you mean ready.timeout_seconds?
sharness-exec: $TMP/typo.json: mian: unknown key; did you mean main?
sharness-exec: $TMP/typo.json: main \"main\": redy: unknown key
sharness-exec: $TMP/typo.json: main \"main\": comand: unknown key
sharness-exec: $TMP/typo.json: main \"main\": policy.process.no_new_prvs: unknown key; did you mean policy.process.no_new_privs?
sharness-exec: $TMP/typo.json: main \"main\": policy.process.no_new_privs: missing required key" ]
}

@test "check refuses a role that is not a DNS label with one line, and warns of a port no role listens on and of a state directory of no role" {
	write_policy "$TMP/w.json" '{"launch":1,"id":"w","components":[
	 {"role":"db_1","command":["/bin/true"],
	  "policy":{"pbp":1,"id":"db","files":{"exec":['"$SYS"']},"network":"none","process":{"no_new_privs":true}}}],
	 "main":{"role":"main","policy":{"pbp":1,"id":"m","files":{"exec":['"$SYS"']},"network":"none","process":{"no_new_privs":true}}}}'
	run -125 --separate-stderr "$SHARNESS_EXEC" check "$TMP/w.json"
	[ "$stderr" = "sharness-exec: $TMP/w.json: components[0]: role: must be a DNS label, its host name in the session: 1-63 of A-Z a-z 0-9 -, not beginning or ending with -: \"db_1\"" ]
	# db listens on 5432 (ready) and 6000 (bound); main connects to 6379 too,
	# and reads beneath "database", which is no role
	write_policy "$TMP/w.json" '{"launch":1,"id":"w","components":[
	 {"role":"db","command":["/bin/true"],"ready":{"tcp":5432},
	  "policy":{"pbp":1,"id":"db","files":{"exec":['"$SYS"'],"write":["'"$STATE"'/db"]},
	            "network":{"bind_tcp_ports":[5432,6000]},"process":{"no_new_privs":true}}}],
	 "main":{"role":"main","policy":{"pbp":1,"id":"m","files":{"exec":['"$SYS"'],
	   "read":["'"$STATE"'/db/socket","'"$STATE"'/database/socket","'"$STATE"'"]},
	  "network":{"connect_tcp_ports":[5432,6000,6379]},"process":{"no_new_privs":true}}}}'
	run -0 --separate-stderr "$SHARNESS_EXEC" check "$TMP/w.json"
	[ "${lines[0]}" = "$TMP/w.json: valid launch 1 manifest \"w\"" ]
	[ "$stderr" = "sharness-exec: warning: main \"main\": policy.network.connect_tcp_ports[2]: no role listens on port 6379: no ready.tcp or policy.network.bind_tcp_ports names it
sharness-exec: warning: main \"main\": policy.files.read[1]: \"$STATE/database/socket\" is beneath $STATE/database, the state directory of no role" ]
	# launch --dry-run warns alike
	run -0 --separate-stderr "$SHARNESS_EXEC" launch --dry-run -m "$TMP/w.json" -H "$("$SHARNESS_EXEC" hash "$TMP/w.json")" -- /bin/true
	[ "$(grep -c '^sharness-exec: warning: main "main": ' <<<"$stderr")" = 2 ]
}

@test "each role is reachable by its name in the session, and its certificate names it: curl verifies a TLS role by name, openssl -x509_strict its certificate" {
	require_feature tool:curl
	require_feature tool:openssl
	# "tls" serves HTTPS with the certificate issued to it; main reaches it
	# by its name, checks it against the session's CA with curl, and shows
	# the certificate it was sent; the same server reached as "main" (also
	# the loopback, by the view's /etc/hosts) is refused: the name counts
	write_policy "$TMP/m.json" '{"launch":1,"id":"names","components":[
	 {"role":"tls","identity":true,"ready":{"tcp":8443},
	  "command":["/usr/bin/openssl","s_server","-quiet","-www","-accept","8443",
	             "-cert","'"$STATE"'/tls/cert.pem","-key","'"$STATE"'/tls/key.pem"],
	  "policy":{"pbp":1,"id":"tls","files":{"exec":['"$SYS"'],"read":["/etc/ssl","'"$STATE"'/tls"]},
	            "network":{"bind_tcp_ports":[8443]},"process":{"no_new_privs":true}}}],
	 "main":{"role":"main","identity":true,
	  "policy":{"pbp":1,"id":"m","files":{"exec":['"$SYS"'],"read":["/etc/ssl","'"$STATE"'/main","'"$TMP"'/main.sh"]},
	            "network":{"connect_tcp_ports":[8443]},"process":{"no_new_privs":true}}}}'
	H=$("$SHARNESS_EXEC" hash "$TMP/m.json")
	script main 'cat /etc/hosts' \
		'curl -sS --cacert "$SHARNESS_AI_CA" https://tls:8443/ | grep -c "^s_server -quiet -www"' \
		'curl -sS --cacert "$SHARNESS_AI_CA" https://main:8443/ >&2; echo "as main: $?"' \
		'echo | openssl s_client -connect tls:8443 -servername tls 2>&1 | openssl x509' \
		'cat "$SHARNESS_AI_CA"'
	run -0 --separate-stderr "$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$H" -- /bin/sh "$TMP/main.sh"
	[ "${lines[0]}" = "127.0.0.1 localhost" ]
	[ "${lines[1]}" = "::1 localhost" ]
	[ "${lines[2]}" = "127.0.0.1 tls" ]
	[ "${lines[3]}" = "127.0.0.1 main" ]
	[ "${lines[4]}" = 1 ]
	[ "${lines[5]}" = "as main: 60" ]
	[[ $stderr == *"no alternative certificate subject name matches target host name 'main'"* ]]
	printf '%s\n' "$output" >"$TMP/out"
	awk '/BEGIN CERTIFICATE/ { k++ } k == 1' "$TMP/out" | sed '/END CERTIFICATE/q' >"$TMP/tls.pem"
	awk '/BEGIN CERTIFICATE/ { k++ } k == 2' "$TMP/out" | sed '/END CERTIFICATE/q' >"$TMP/ca.pem"
	run -0 openssl verify -x509_strict -CAfile "$TMP/ca.pem" "$TMP/tls.pem"
	run -0 openssl x509 -in "$TMP/tls.pem" -noout -subject -ext subjectAltName
	[ "${lines[0]}" = "subject=" ]
	[ "${lines[1]}" = "X509v3 Subject Alternative Name: critical" ]
	[[ ${lines[2]} =~ ^\ *URI:spiffe://[0-9a-f]{32}/tls,\ DNS:tls,\ DNS:localhost,\ IP\ Address:127\.0\.0\.1,\ IP\ Address:0:0:0:0:0:0:0:1$ ]]
	nothing_left
}

# with_hosts TEXT CMD...: CMD with TEXT (\n escapes) in a sealed memfd,
# @FD@ in CMD's words its number.
HOSTS_MEMFD='
import fcntl, os, subprocess, sys
fd = os.memfd_create("hosts", os.MFD_ALLOW_SEALING)
os.write(fd, sys.argv[1].encode().decode("unicode_escape").encode())
fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_WRITE | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_SEAL)
os.set_inheritable(fd, True)
sys.exit(subprocess.run([w.replace("@FD@", str(fd)) for w in sys.argv[2:]], pass_fds=[fd]).returncode)
'

@test "run --hosts-fd: the view's /etc/hosts is the memfd's, read-only, /etc in the policy or not; a bad line is refused with one line" {
	require_feature tool:python3
	write_policy "$TMP/p.json" '{"pbp":1,"id":"h","files":{"exec":['"$SYS"']},"network":"none","process":{"no_new_privs":true}}'
	run -0 --separate-stderr python3 -c "$HOSTS_MEMFD" '127.0.0.1 db web.example\n::1 localhost\n' \
		"$SHARNESS_EXEC" run --hosts-fd @FD@ -p "$TMP/p.json" -- /bin/sh -c 'cat /etc/hosts; echo x >>/etc/hosts || echo refused'
	[ "$output" = $'127.0.0.1 db web.example\n::1 localhost\nrefused' ]
	local line
	for line in '127.0.0.1\n' '127.0.0.300 db\n' '127.0.0.1 db_1\n' '127.0.0.1  db\n' '# hosts\n' \
		'127.0.0.1 -db\n'; do
		run -125 --separate-stderr python3 -c "$HOSTS_MEMFD" "$line" \
			"$SHARNESS_EXEC" run --hosts-fd @FD@ -p "$TMP/p.json" -- /bin/echo ran
		[ -z "$output" ]
		[ "${#stderr_lines[@]}" = 1 ]
		[[ $stderr == "sharness-exec: fatal: refused: --hosts-fd "[0-9]*": line 1: "* ]]
	done
}

@test "launch --dry-run exits as the launch would: 126 where a component freezes and no cgroup2 is mounted, 125 for a directory to write outside the session" {
	require_feature tool:unshare
	require_feature tool:findmnt
	# dry_manifest FREEZE MAIN_FILES: db, which freezes when FREEZE is
	# true, and main, whose files are MAIN_FILES; its hash in $H
	dry_manifest() {
		write_policy "$TMP/m.json" '{"launch":1,"id":"dry","components":[
		 {"role":"db","command":["/bin/sleep","infinity"],"ready":{"tcp":7000},"freeze_when_ready":'"$1"',
		  "policy":{"pbp":1,"id":"db","files":{"exec":['"$SYS"']},"network":{"bind_tcp_ports":[7000]},
		            "process":{"no_new_privs":true}}}],
		 "main":{"role":"main","policy":{"pbp":1,"id":"m","files":{'"$2"'},
		  "network":{"connect_tcp_ports":[7000]},"process":{"no_new_privs":true}}}}'
		H=$("$SHARNESS_EXEC" hash "$TMP/m.json")
	}
	dry_manifest true '"exec":['"$SYS"']'
	# a mount namespace of the test's own without any cgroup2 mount: the
	# launch refuses, and its dry run says so, after the plan
	run -126 --separate-stderr unshare -m --propagation private sh -c \
		'for m in $(findmnt -rn -t cgroup2 -o TARGET); do umount "$m" || exit 99; done; exec "$@"' \
		sh "$SHARNESS_EXEC" launch --dry-run -m "$TMP/m.json" -H "$H" -- /bin/true
	[ "${lines[0]}" = "manifest \"dry\" $H (pinned)" ]
	# (the chains' notes come first; the hint last)
	[[ ${stderr_lines[-2]} == 'sharness-exec-launch: fatal: component "db": freeze_when_ready needs cgroup v2 '*'no cgroup2 hierarchy is mounted here'*'Nothing ran.' ]]
	run -126 --separate-stderr unshare -m --propagation private sh -c \
		'for m in $(findmnt -rn -t cgroup2 -o TARGET); do umount "$m" || exit 99; done; exec "$@"' \
		sh "$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$H" -- /bin/true
	[[ ${stderr_lines[0]} == 'sharness-exec-launch: fatal: component "db": freeze_when_ready needs cgroup v2 '* ]]
	# a directory to write outside the session's tmpfs: 125, both
	dry_manifest false '"exec":['"$SYS"'],"write":["'"$TMP"'"]'
	run -125 --separate-stderr "$SHARNESS_EXEC" launch --dry-run -m "$TMP/m.json" -H "$H" -- /bin/true
	[ "${lines[0]}" = "manifest \"dry\" $H (pinned)" ]
	[[ ${stderr_lines[-2]} == "sharness-exec-launch: fatal: main \"main\": files.write[0] \"$TMP\" is a directory outside the session's tmpfs"* ]]
	run -125 --separate-stderr "$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$H" -- /bin/true
	[[ ${stderr_lines[0]} == "sharness-exec-launch: fatal: main \"main\": files.write[0] \"$TMP\" is a directory outside the session's tmpfs"* ]]
	# and where the launch would go on, so does its dry run: 0
	run -0 --separate-stderr "$SHARNESS_EXEC" launch --dry-run -m "$TMP/m.json" -H "$H" --user nobody -- /bin/true
	nothing_left
}

@test "components start together unless after names others: two that wait on each other both get ready; one after a TCP service finds it listening; check refuses a cycle" {
	require_feature tool:python3
	require_feature file:/usr/bin/python3
	# a is ready once b has read its word on $TMP/fa, which b reads as it
	# starts: one after the other, a would never be ready (b never starts)
	script a "echo a >$TMP/fa" 'echo a-line' 'exec sleep infinity'
	script b "read x <$TMP/fa" 'echo "b-line $x"' 'exec sleep infinity'
	# srv listens on 7000; c, after it, connects as it starts
	printf '%s\n' 'import socket' 's = socket.socket()' 's.bind(("127.0.0.1", 7000))' 's.listen()' \
		'while True:' '    c, _ = s.accept()' '    c.sendall(b"hello")' '    c.close()' >"$TMP/srv.py"
	script srv "exec /usr/bin/python3 $TMP/srv.py"
	script c '/usr/bin/python3 -c "import socket; print(\"c-line\", socket.create_connection((\"127.0.0.1\", 7000)).recv(64).decode())"' \
		'exec sleep infinity'
	launch_manifest "$(component a '{"stdout_line":true,"timeout_seconds":20}' "\"$TMP/fa\""),
		$(component b '{"stdout_line":true,"timeout_seconds":20}' "\"$TMP/fa\""),
		$(component srv '{"tcp":7000}'),
		$(component c '{"stdout_line":true,"timeout_seconds":20}' | sed 's/^{/{"after":["srv"],/')" ''
	sed -i 's|"read":\["'"$TMP"'/srv.sh"|&,"'"$TMP"'/srv.py"|' "$TMP/m.json"
	H=$("$SHARNESS_EXEC" hash "$TMP/m.json")
	run -0 --separate-stderr "$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$H" -- \
		/bin/sh -c 'echo "$SHARNESS_AI_READY_A|$SHARNESS_AI_READY_B|$SHARNESS_AI_READY_C"'
	[ "$output" = "a-line|b-line a|c-line hello" ]
	# check says what after does, and refuses a cycle: c after srv, srv after c
	run -0 --separate-stderr "$SHARNESS_EXEC" check "$TMP/m.json"
	[[ ${lines[4]} == 'components[3] "c": '*'; starts once ready: srv' ]]
	sed -i 's|^\(.*"role":"srv"\)|\1,"after":["c"]|' "$TMP/m.json"
	grep -q '"role":"srv","after":\["c"\]' "$TMP/m.json"
	run -125 --separate-stderr "$SHARNESS_EXEC" check "$TMP/m.json"
	[ "$stderr" = "sharness-exec: $TMP/m.json: components[2] \"srv\": after: a cycle: none of srv, c can start first" ]
	nothing_left
}

@test "a component that ends while main runs is named with its last lines too" {
	# short is ready at once, then waits for main's word on $TMP/fa, says
	# goodbye on its stderr and exits 3; main then waits for ever
	script short 'echo short-line' "read x <$TMP/fa" "printf 'bye\\033[0m\\n' >&2" 'exit 3'
	launch_manifest "$(component short '{"stdout_line":true}' "\"$TMP/fa\"")" "\"$TMP/fa\""
	run -126 --separate-stderr "$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$H" -- \
		/bin/sh -c "echo go >$TMP/fa; exec sleep infinity"
	[ "$(printf '%s\n' "$stderr" | tail -n 2)" = 'sharness-exec-launch: fatal: component "short" ended (exit 3) while main ran; its last lines:
  short| bye\x1b[0m' ]
	nothing_left
}
