#!/usr/bin/env bats
# launch with real services end to end (issue 41's first "done when", DESIGN.md
# 4.8), as root: one session of PostgreSQL (db: ssl on with the session's
# certificate for db, its UNIX socket in a share main reads), Redis (kv:
# TLS alone, port 0, the session's certificate for kv) and a Python HTTPS
# server (web: the session's certificate for web, and a plain HTTP
# /health port that health.http checks), and main, which checks each
# answer: psql over the shared socket; psql sslmode=verify-full by the
# name db, pg_stat_ssl saying its connection is TLS; curl by the name web;
# a Go client (crypto/tls's default verification, the session's CA its
# only root, built here offline) reaching web and kv by name; web's
# health checks, which main sees come; and, by a name and an address the
# certificates lack (main, 127.0.0.2), psql and Go both refusing, each
# with its own words. Main finds the CA in SHARNESS_AI_CA (identity).
# Ports are the session's own (its network namespace): no other process
# on the machine can hold them.
# not tested: roles under --user (launch runs as root, its roles under
# the session's uids; main --user cannot read a share); mutual TLS (main's
# certificate, tests/launch/svid.bats).
load ../helpers/load
load ../helpers/launch

setup() {
	PGBIN=/usr/lib/postgresql/15/bin
	[ -x "$PGBIN/postgres" ] || PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | tail -n 1)
	launch_setup "file:$PGBIN/postgres" tool:psql tool:redis-server tool:curl tool:go \
		file:/usr/bin/python3
}

teardown() {
	# a launch a failed test left: SIGTERM, which reaches main, ends it
	[ -z "${LAUNCHED:-}" ] || { kill -TERM "$LAUNCHED"; wait "$LAUNCHED"; } || true
	launch_unlock
	teardown_tmp
}

# tlsclient: builds $TMP/go/bin/tlsclient ADDR LINE..., a TLS connection
# to ADDR ("host:port") that Go's default verification accepts with the
# session's CA ($SHARNESS_AI_CA) as its only root: each LINE written with
# CRLF, the answer's first line printed without it; or the error, exit 1
# (a minute without an answer is one). Built offline, its caches in $TMP.
tlsclient() {
	cat >"$TMP/go/main.go" <<'EOF'
package main

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"strings"
	"time"
)

func main() {
	pem, err := os.ReadFile(os.Getenv("SHARNESS_AI_CA"))
	roots := x509.NewCertPool()
	if err != nil || !roots.AppendCertsFromPEM(pem) {
		fmt.Println("no CA:", err)
		os.Exit(1)
	}
	c, err := tls.Dial("tcp", os.Args[1], &tls.Config{RootCAs: roots})
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	c.SetDeadline(time.Now().Add(time.Minute))
	for _, line := range os.Args[2:] {
		fmt.Fprint(c, line+"\r\n")
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Println(strings.TrimRight(line, "\r\n"))
}
EOF
	(cd "$TMP/go" && env GOCACHE="$TMP/go/cache" GOPATH="$TMP/go/path" GOFLAGS= GOPROXY=off \
		CGO_ENABLED=0 go build -o bin/tlsclient main.go)
}

# web.py: HTTPS on 8443 with web's certificate ("hello from web" to a GET),
# plain HTTP on 8080 (200 to a GET of /health, and a line on the FIFO
# $STATE/share/web/health for main); ready once both listen.
web_py() {
	cat >"$TMP/web.py" <<'EOF'
import http.server, os, ssl, threading
share = "/run/sharness-exec/session/share/web/health"
os.mkfifo(share, 0o640)
tick = os.open(share, os.O_RDWR | os.O_NONBLOCK)
class Web(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"hello from web\n"
        if self.server.server_port == 8080:
            if self.path != "/health":
                self.send_error(404)
                return
            try:
                os.write(tick, b"health\n")
            except BlockingIOError:
                pass
            body = b"ok\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
tls = http.server.ThreadingHTTPServer(("", 8443), Web)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(os.environ["SHARNESS_AI_CERT"], os.environ["SHARNESS_AI_KEY"])
tls.socket = ctx.wrap_socket(tls.socket, server_side=True)
plain = http.server.ThreadingHTTPServer(("", 8080), Web)
threading.Thread(target=plain.serve_forever, daemon=True).start()
print("listening", flush=True)
tls.serve_forever()
EOF
}

# policy ID READ NETWORK [EXEC]: an inline policy that runs the system's
# programs and EXEC, reads READ (JSON strings), NETWORK its "network".
policy() {
	printf '%s' '{"pbp":1,"id":"'"$1"'","files":{"exec":['"$SYS${4:+,$4}"'],"read":['"$2"']},
	  "network":'"$3"',"process":{"no_new_privs":true}}'
}

@test "one session: postgres over a shared socket and verify-full by name, redis over TLS alone, an HTTPS service with health.http; curl, psql and Go verify each by its name and refuse a name and an address the certificates lack" {
	# Go builds while the session starts; main waits for it on $TMP/built
	mkfifo -m 644 "$TMP/built"
	mkdir -p "$TMP/go/bin"
	exec 8<>"$TMP/built"
	tlsclient &
	local build=$!
	web_py
	script db "$PGBIN/initdb --no-sync -D $STATE/db/data -U postgres --auth=trust >/dev/null || exit 1" \
		"exec $PGBIN/postgres -D $STATE/db/data -k $STATE/share/pg -c unix_socket_permissions=0770 \
		-c listen_addresses='*' -c fsync=off -c ssl=on -c ssl_cert_file=$STATE/db/cert.pem \
		-c ssl_key_file=$STATE/db/key.pem"
	script kv "exec redis-server --port 0 --tls-port 6379 --tls-cert-file $STATE/kv/cert.pem \
		--tls-key-file $STATE/kv/key.pem --tls-ca-cert-file $STATE/kv/ca.pem --tls-auth-clients no \
		--save '' --appendonly no --dir $STATE/kv"
	local full="sslmode=verify-full sslrootcert=\$SHARNESS_AI_CA user=postgres"
	script main "psql -h $STATE/share/pg -U postgres -Atc 'select 40 + 2'" \
		"psql \"host=db $full\" -Atc 'select ssl from pg_stat_ssl where pid = pg_backend_pid()'" \
		'curl -sS --cacert "$SHARNESS_AI_CA" https://web:8443/' \
		"read -r h <$STATE/share/web/health && read -r h <$STATE/share/web/health && echo \"web: \$h\"" \
		"read -r built <$TMP/built" \
		"$TMP/go/bin/tlsclient web:8443 'GET / HTTP/1.0' ''" \
		"$TMP/go/bin/tlsclient kv:6379 PING" \
		"psql \"host=main $full\" -Atc 'select 1' 2>&1; echo \"psql main: \$?\"" \
		"psql \"host=127.0.0.2 $full\" -Atc 'select 1' 2>&1; echo \"psql 127.0.0.2: \$?\"" \
		"$TMP/go/bin/tlsclient main:6379 PING; echo \"go main: \$?\"" \
		"$TMP/go/bin/tlsclient 127.0.0.2:8443 'GET / HTTP/1.0' ''; echo \"go 127.0.0.2: \$?\""
	write_policy "$TMP/m.json" '{"launch":1,"id":"tls","share":{"pg":{"write":["db"],"read":["main"]},
	  "web":{"write":["web"],"read":["main"]}},"components":[
	 {"role":"db","identity":true,"command":["/bin/sh","'"$TMP"'/db.sh"],
	  "policy":'"$(policy db "\"$TMP/db.sh\"" '{"bind_tcp_ports":[5432]}')"',
	  "ready":{"unix":"'"$STATE"'/share/pg/.s.PGSQL.5432"}},
	 {"role":"kv","identity":true,"command":["/bin/sh","'"$TMP"'/kv.sh"],
	  "policy":'"$(policy kv "\"$TMP/kv.sh\",\"/etc/ssl\"" '{"bind_tcp_ports":[6379]}')"',
	  "ready":{"tcp":6379}},
	 {"role":"web","identity":true,"command":["/usr/bin/python3","'"$TMP"'/web.py"],
	  "policy":'"$(policy web "\"$TMP/web.py\",\"/etc/ssl\"" '{"bind_tcp_ports":[8443,8080]}')"',
	  "ready":{"stdout_line":true},"health":{"http":{"port":8080,"path":"/health"},"interval_ms":20}}],
	 "main":{"role":"main","identity":true,
	  "policy":'"$(policy main "\"$TMP/main.sh\",\"$TMP/built\",\"$TMP/go/bin\",\"/etc/ssl\"" \
		'{"connect_tcp_ports":[5432,6379,8443]}' "\"$TMP/go/bin\"")"'}}'
	H=$("$SHARNESS_EXEC" hash "$TMP/m.json")
	"$SHARNESS_EXEC" launch -m "$TMP/m.json" -H "$H" -- /bin/sh "$TMP/main.sh" >"$TMP/out" 2>"$TMP/err" &
	LAUNCHED=$!
	wait "$build"
	echo built >&8
	local rc=0
	wait "$LAUNCHED" || rc=$?
	LAUNCHED=
	exec 8>&-
	grep -v '^db|\|^kv|' "$TMP/err" || true
	mapfile -t lines <"$TMP/out"
	printf '%s\n' "${lines[@]}"
	[ "$rc" = 0 ]
	# over the share's socket; then TLS, verify-full by the name db
	[ "${lines[0]}" = 42 ]
	[ "${lines[1]}" = t ]
	# curl by name, the session's CA its only root; health.http's GETs,
	# while main ran; Go by name, the session's CA its only root
	[ "${lines[2]}" = "hello from web" ]
	[ "${lines[3]}" = "web: health" ]
	[ "${lines[4]}" = "HTTP/1.0 200 OK" ]
	[ "${lines[5]}" = "+PONG" ]
	# a name and an address the certificates lack: psql's words, then Go's
	# (from Go 1.20 on after "tls: failed to verify certificate: ")
	[ "${lines[6]}" = 'psql: error: connection to server at "main" (127.0.0.1), port 5432 failed: server certificate for "db" (and 3 other names) does not match host name "main"' ]
	[ "${lines[7]}" = "psql main: 2" ]
	[ "${lines[8]}" = 'psql: error: connection to server at "127.0.0.2", port 5432 failed: server certificate for "db" (and 3 other names) does not match host name "127.0.0.2"' ]
	[ "${lines[9]}" = "psql 127.0.0.2: 2" ]
	[ "${lines[10]#tls: failed to verify certificate: }" = "x509: certificate is valid for kv, localhost, not main" ]
	[ "${lines[11]}" = "go main: 1" ]
	[ "${lines[12]#tls: failed to verify certificate: }" = "x509: certificate is valid for 127.0.0.1, ::1, not 127.0.0.2" ]
	[ "${lines[13]}" = "go 127.0.0.2: 1" ]
	[ "${#lines[@]}" = 14 ]
	[ -z "$(grep -F unhealthy "$TMP/err")" ]
	nothing_left
}
