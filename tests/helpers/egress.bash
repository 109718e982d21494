# The egress step's fake internet (tests/step/egress.bats): network namespaces
# of the test's own, nothing else. W (the world) holds a DNS server and
# HTTPS servers under a test CA; H is the caller's side, where the egress
# step runs, joined to W by a veth pair; R is a run's own namespace, a
# loopback alone, where the listener is made and the clients run. The
# addresses are documentation ranges (198.51.100.0/24, 203.0.113.0/24)
# that exist only inside these namespaces. Needs root, ip, openssl, python3.

# fakenet_up DIR: in DIR/eg ($EG, exported with $NS), the three namespaces, the DNS server (zone in $EG/zone), the
# CA and the HTTPS servers (good.test and other.test on 203.0.113.10:443,
# the same server; its request log $EG/web.log). Paths under /files/ are
# the static files beneath $EG/www, which the tests lay out; any other path
# answers "hello from HOST".
fakenet_up() {
	EG=$1/eg
	mkdir -p "$EG/www"
	chmod 755 "$1" "$EG" "$EG/www"
	NS=sxe$$
	export EG NS
	: >"$EG/pids"
	ip netns add "$NS-w" && ip netns add "$NS-h" && ip netns add "$NS-r" || return 1
	ip link add "${NS}a" netns "$NS-h" type veth peer name "${NS}b" netns "$NS-w"
	ip -n "$NS-h" addr add 198.51.100.1/24 dev "${NS}a"
	ip -n "$NS-w" addr add 198.51.100.2/24 dev "${NS}b"
	ip -n "$NS-w" addr add 203.0.113.10/24 dev "${NS}b"
	for n in h w r; do ip -n "$NS-$n" link set lo up; done
	ip -n "$NS-h" link set "${NS}a" up
	ip -n "$NS-w" link set "${NS}b" up
	ip -n "$NS-h" route add 203.0.113.0/24 via 198.51.100.2
	cat >"$EG/zone" <<-ZONE
	good.test 203.0.113.10
	other.test 203.0.113.10
	files.pkgs.test 203.0.113.10
	loop.test 127.0.0.1
	private.test 10.1.2.3
	meta.test 169.254.169.254
	mixed.test 203.0.113.10,10.1.2.3
	rebind.test 203.0.113.10|127.0.0.1
	ZONE
	: >"$EG/dns.log"
	mkfifo "$EG/ready"
	setsid ip netns exec "$NS-w" python3 "$top_srcdir/tests/helpers/fakedns.py" 198.51.100.2 \
		"$EG/zone" "$EG/dns.log" "$EG/ready" &
	echo $! >>"$EG/pids"
	read -r -t 120 _ <"$EG/ready" || return 1
	printf 'nameserver 198.51.100.2\n' >"$EG/resolv.conf"
	chmod 644 "$EG/resolv.conf"
	# The CA and one certificate for the two names.
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
		-subj /CN=egress-test-ca -keyout "$EG/ca.key" -out "$EG/ca.pem" 2>/dev/null &&
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=good.test \
		-keyout "$EG/web.key" -out "$EG/web.csr" 2>/dev/null &&
	printf 'subjectAltName=DNS:good.test,DNS:other.test,DNS:files.pkgs.test\n' >"$EG/san" &&
	openssl x509 -req -in "$EG/web.csr" -CA "$EG/ca.pem" -CAkey "$EG/ca.key" \
		-CAcreateserial -days 2 -extfile "$EG/san" -out "$EG/web.pem" 2>/dev/null || return 1
	chmod 644 "$EG"/*.pem
	: >"$EG/web.log"
	setsid ip netns exec "$NS-w" python3 -c '
import http.server, os, ssl, sys, urllib.parse
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with open(sys.argv[3], "a") as log:
            log.write("%s %s\n" % (self.headers.get("Host"), self.path))
        if self.path.startswith("/files/"):
            return self.static()
        body = ("hello from %s\n" % self.headers.get("Host")).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def static(self):
        # /files/P is the file $EG/www/P (index.html for a directory),
        # the query left off: a Go module proxy, a PyPI simple index and a
        # git repository for the dumb HTTP protocol, as static files.
        rel = urllib.parse.unquote(self.path[len("/files/"):].split("?")[0])
        path = os.path.join(sys.argv[5], rel)
        if os.path.isdir(path):
            path = os.path.join(path, "index.html")
        if ".." in rel.split("/") or not os.path.isfile(path):
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = open(path, "rb").read()
        self.send_response(200)
        self.send_header("Content-Type", "text/html" if path.endswith(".html")
                         else "application/octet-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a): pass
s = http.server.ThreadingHTTPServer(("203.0.113.10", 443), H)
c = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
c.load_cert_chain(sys.argv[1], sys.argv[2])
s.socket = c.wrap_socket(s.socket, server_side=True)
open(sys.argv[4], "w").write("up\n")
s.serve_forever()' "$EG/web.pem" "$EG/web.key" "$EG/web.log" "$EG/ready" "$EG/www" &
	echo $! >>"$EG/pids"
	read -r -t 120 _ <"$EG/ready"
}

# fakenet_file: the file's one fake internet (its setup_file), where it can
# be made; where it cannot, fakenet_need says why in each test.
fakenet_file() {
	[ "$(id -u)" = 0 ] && command -v ip >/dev/null && command -v openssl >/dev/null &&
		command -v curl >/dev/null || return 0
	fakenet_up "$BATS_FILE_TMPDIR"
}

# fakenet_need: what each test of the fake internet needs (its setup), and
# a directory of its own ($TMP) where the programs are reached.
fakenet_need() {
	require_feature root
	require_feature tool:python3
	require_feature tool:openssl
	require_feature tool:curl
	require_feature tool:ip
	[ -n "${EG:-}" ] && [ -s "$EG/pids" ]
	setup_tmp
	reach_programs
}

fakenet_down() {
	local p
	[ -n "${EG:-}" ] || return 0
	egress_stop
	for p in $(cat "$EG/pids" 2>/dev/null); do kill -- -"$p" 2>/dev/null; done
	[ -n "${NS:-}" ] && for n in h w r; do ip netns del "$NS-$n" 2>/dev/null; done
	return 0
}

# egress_stop: the step of egress_start ended, and the logs emptied.
egress_stop() {
	local p
	p=$(cat "$EG/egress.pid" 2>/dev/null) && kill -- -"$p" 2>/dev/null
	rm -f "$EG/egress.pid"
	: >"$EG/dns.log"
	: >"$EG/web.log"
	return 0
}

# egress_start [-u UID] [-i SECONDS] ALLOW...: the egress step in H (as UID if given),
# resolving through the fake DNS, serving on a listener on 127.0.0.1 in R
# (its port in $PORT), made there and handed over a socket pair; its lines
# in $EG/egress.log.
egress_start() {
	local as=()
	if [ "$1" = -u ]; then
		as=(setpriv --reuid="$2" --regid="$2" --clear-groups)
		shift 2
	fi
	local args=()
	if [ "$1" = -i ]; then
		args+=(-i "$2")
		shift 2
	fi
	for a in "$@"; do args+=(-a "$a"); done
	: >"$EG/egress.log"
	chmod 666 "$EG/egress.log"
	setsid python3 - "$NS" "$EGRESS" "$EG" "${as[@]}" -- "${args[@]}" <<-'PY' &
	import os, socket, subprocess, sys
	ns, egress, eg = sys.argv[1:4]
	rest = sys.argv[4:]
	sep = rest.index("--")
	setpriv, allow = rest[:sep], rest[sep + 1:]
	a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
	log = os.open(eg + "/egress.log", os.O_WRONLY | os.O_APPEND)
	cmd = ["ip", "netns", "exec", ns + "-h", "unshare", "-m", "sh", "-c",
	       'mount --bind "$0/resolv.conf" /etc/resolv.conf && exec "$@"', eg] + \
	      setpriv + [egress, "-d", str(a.fileno()), "-o", str(log)] + allow
	p = subprocess.Popen(cmd, pass_fds=(a.fileno(), log))
	mk = ("import socket, sys\n"
	      "l = socket.socket(); l.bind(('127.0.0.1', 0)); l.listen(64)\n"
	      "b = socket.socket(fileno=int(sys.argv[1]))\n"
	      "socket.send_fds(b, [b'l'], [l.fileno()])\n"
	      "print(l.getsockname()[1])\n")
	r = subprocess.run(["ip", "netns", "exec", ns + "-r", "python3", "-c", mk, str(b.fileno())],
	                   pass_fds=(b.fileno(),), stdout=subprocess.PIPE, text=True)
	open(eg + "/ready", "w").write(r.stdout.strip() + "\n" if r.returncode == 0 else "failed\n")
	sys.exit(p.wait())
	PY
	echo $! >"$EG/egress.pid"
	read -r -t 120 PORT <"$EG/ready" && [ "$PORT" != failed ]
}

# in_run CMD...: CMD in the run's namespace R.
in_run() {
	ip netns exec "$NS-r" "$@"
}

# fakenet_trap ADDR PORT: a TCP listener on ADDR:PORT in H, the side the
# step runs in, that writes a line to $EG/trap.log for each connection it
# accepts: where a step that connected to anything but the address it
# checked would land. fakenet_untrap ends them (each test's teardown).
fakenet_trap() {
	: >"$EG/trap.log"
	setsid ip netns exec "$NS-h" python3 -c '
import socket, sys
l = socket.socket(socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET)
l.bind((sys.argv[1], int(sys.argv[2])))
l.listen(16)
open(sys.argv[4], "w").write("up\n")
while True:
    c, a = l.accept()
    with open(sys.argv[3], "a") as log:
        log.write("%s %s\n" % a[:2])
    c.close()' "$1" "$2" "$EG/trap.log" "$EG/ready" &
	echo $! >>"$EG/trap.pids"
	read -r -t 60 _ <"$EG/ready"
}

fakenet_untrap() {
	local p
	[ -n "${EG:-}" ] || return 0
	for p in $(cat "$EG/trap.pids" 2>/dev/null); do kill -- -"$p" 2>/dev/null; done
	rm -f "$EG/trap.pids"
	return 0
}
