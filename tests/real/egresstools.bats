#!/usr/bin/env bats
# network.hosts with the tools users run (issue 40): git clone over HTTPS,
# go mod download through a GOPROXY, pip download from a simple index, all
# through `sharness-exec run` and its egress step, in the fake internet of
# helpers/egress.bash. files.pkgs.test serves static files laid out here:
# a bare git repository for the dumb HTTP protocol, a Go module proxy, a
# PyPI simple index with one wheel built here and an npm registry with one
# package. Each tool succeeds through
# the listed name and fails closed through one not listed, checked from the
# outside: the web log (no request), the DNS log (no query) and the step's
# one line at the end. Node's built-in fetch, which ignores the proxy
# variables, has no route. Nothing is asked of the real internet: each tool
# is told where its files are (GOPROXY, GOSUMDB, --index-url, the URL) and
# the world's namespaces have no other route. As root and as nobody.
# npm installs from a registry laid out as static files too, where npm is
# installed (CI's Debian nodejs has none; Debian's npm package is 350
# packages more).
# not tested here: --explain and --report of these tools' refusals.
load ../helpers/load
load ../helpers/egress

FILES=https://files.pkgs.test/files

setup_file() {
	[ "$(id -u)" = 0 ] && command -v ip >/dev/null && command -v openssl >/dev/null || return 0
	fakenet_up "$BATS_FILE_TMPDIR" || return 1
	local www=$EG/www
	if command -v git >/dev/null; then
		# A bare repository of one commit, served as static files.
		local g=(env GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null git -c init.defaultBranch=main
			-c user.name=t -c user.email=t@t.test)
		"${g[@]}" init -q "$BATS_FILE_TMPDIR/src" &&
		echo "hello from git" >"$BATS_FILE_TMPDIR/src/README" &&
		"${g[@]}" -C "$BATS_FILE_TMPDIR/src" add README &&
		"${g[@]}" -C "$BATS_FILE_TMPDIR/src" commit -q -m one &&
		"${g[@]}" clone -q --bare "$BATS_FILE_TMPDIR/src" "$www/git/hello.git" &&
		"${g[@]}" -C "$www/git/hello.git" update-server-info || return 1
	fi
	# A Go module proxy for hello.test/m v1.0.0, and a simple index for
	# tinypkg 1.0, one wheel.
	python3 - "$www" <<-'PY' || return 1
	import base64, hashlib, os, sys, zipfile
	www = sys.argv[1]
	d = www + "/go/hello.test/m/@v"
	os.makedirs(d)
	mod = "module hello.test/m\n\ngo 1.16\n"
	open(d + "/list", "w").write("v1.0.0\n")
	open(d + "/v1.0.0.info", "w").write('{"Version":"v1.0.0","Time":"2024-01-01T00:00:00Z"}\n')
	open(d + "/v1.0.0.mod", "w").write(mod)
	with zipfile.ZipFile(d + "/v1.0.0.zip", "w") as z:
	    z.writestr("hello.test/m@v1.0.0/go.mod", mod)
	    z.writestr("hello.test/m@v1.0.0/hello.go", 'package m\n\nconst Hello = "hello"\n')
	files = {
	    "tinypkg/__init__.py": "HELLO = 'hello'\n",
	    "tinypkg-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: tinypkg\nVersion: 1.0\n",
	    "tinypkg-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: egresstools.bats\n"
	                                  "Root-Is-Purelib: true\nTag: py3-none-any\n",
	}
	record = ""
	for name, text in files.items():
	    digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=")
	    record += "%s,sha256=%s,%d\n" % (name, digest.decode(), len(text))
	files["tinypkg-1.0.dist-info/RECORD"] = record + "tinypkg-1.0.dist-info/RECORD,,\n"
	os.makedirs(www + "/pypi/packages")
	os.makedirs(www + "/pypi/simple/tinypkg")
	whl = "tinypkg-1.0-py3-none-any.whl"
	with zipfile.ZipFile(www + "/pypi/packages/" + whl, "w") as z:
	    for name, text in files.items():
	        z.writestr(name, text)
	sha = hashlib.sha256(open(www + "/pypi/packages/" + whl, "rb").read()).hexdigest()
	open(www + "/pypi/simple/index.html", "w").write(
	    '<!DOCTYPE html><html><body><a href="tinypkg/">tinypkg</a></body></html>\n')
	open(www + "/pypi/simple/tinypkg/index.html", "w").write(
	    '<!DOCTYPE html><html><body><a href="../../packages/%s#sha256=%s">%s</a></body></html>\n'
	    % (whl, sha, whl))
	# An npm registry for tinynpm 1.0.0: its package document at
	# /tinynpm (a directory's index.html here, since the tarball sits
	# beneath it), with the tarball's URL and its sha512 integrity.
	import io, json, tarfile
	os.makedirs(www + "/npm/tinynpm/-")
	tgz = io.BytesIO()
	with tarfile.open(fileobj=tgz, mode="w:gz") as t:
	    for name, text in {"package/package.json": '{"name":"tinynpm","version":"1.0.0","main":"index.js"}\n',
	                       "package/index.js": "module.exports = 'hello from npm';\n"}.items():
	        info = tarfile.TarInfo(name)
	        info.size, info.mode, info.mtime = len(text), 0o644, 1700000000
	        t.addfile(info, io.BytesIO(text.encode()))
	data = tgz.getvalue()
	open(www + "/npm/tinynpm/-/tinynpm-1.0.0.tgz", "wb").write(data)
	meta = {"name": "tinynpm", "version": "1.0.0", "main": "index.js", "dist": {
	    "tarball": "https://files.pkgs.test/files/npm/tinynpm/-/tinynpm-1.0.0.tgz",
	    "shasum": hashlib.sha1(data).hexdigest(),
	    "integrity": "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()}}
	json.dump({"name": "tinynpm", "dist-tags": {"latest": "1.0.0"}, "versions": {"1.0.0": meta}},
	          open(www + "/npm/tinynpm/index.html", "w"))
	PY
	chmod -R go+rX "$www"
}

teardown_file() { fakenet_down; }

setup() {
	fakenet_need
	cp "$EG/ca.pem" "$TMP/ca.pem"
	chmod 644 "$TMP/ca.pem"
	# The run's writable directory, its HOME.
	mkdir -m 777 "$TMP/w"
	chain_policy egresstools '{"hosts":["files.pkgs.test:443"]}' '"/etc","'"$TMP"'"' '"'"$TMP/w"'"' \
		'' '' ',"tmpfs":["/tmp"]'
	: >"$EG/dns.log"
	: >"$EG/web.log"
}

teardown() { teardown_tmp; }

# confined MODE CMD...: `sharness-exec run` of the policy as MODE (root or
# nobody) from the caller's side H, whose /etc/resolv.conf names the fake
# DNS server, with HOME the writable directory.
confined() {
	local as=()
	[ "$1" = nobody ] && as=(setpriv --reuid="$NOBODY_UID" --regid="$NOBODY_UID" --clear-groups)
	shift
	ip netns exec "$NS-h" unshare -m sh -c \
		'mount --bind "$0/resolv.conf" /etc/resolv.conf && exec "$@"' "$EG" \
		"${as[@]}" env HOME="$TMP/w" "$SHARNESS_EXEC" run -p "$TMP/p.json" -- "$@"
}

# refused_line HOST...: the step's one line at the end names each HOST as not listed.
refused_line() {
	local last h
	last=$(grep 'sharness-exec-egress: warning: refused: ' <<<"$stderr")
	[ "$(grep -c . <<<"$last")" = 1 ] || { echo "$stderr"; false; }
	for h in "$@"; do
		[[ "$last" == *" $h (not listed"* ]] || { echo "$stderr"; false; }
	done
	[[ "$last" == *"; network.hosts lists the hosts a run may reach" ]]
}

# GIT: clones $2 into $1 over HTTPS, nothing but HTTPS allowed, no
# configuration but the test CA's.
GIT='GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null GIT_TERMINAL_PROMPT=0 GIT_SSL_CAINFO=$CA \
	git -c protocol.allow=never -c protocol.https.allow=always clone -q "$2" "$1"'

t_git() {
	[ "$1" = root ] || require_feature nobody
	require_feature tool:git
	# The repository is there for any name the server answers: bare, from
	# H, straight to the world, a clone from other.test works.
	run -0 ip netns exec "$NS-h" unshare -m sh -c \
		'mount --bind "$0/resolv.conf" /etc/resolv.conf && exec "$@"' "$EG" \
		sh -c "CA=$TMP/ca.pem; $GIT" sh "$TMP/bare" "https://other.test/files/git/hello.git"
	[ "$(cat "$TMP/bare/README")" = "hello from git" ]
	: >"$EG/web.log"
	run --separate-stderr confined "$1" sh -c "CA=$TMP/ca.pem; $GIT" sh "$TMP/w/clone" "$FILES/git/hello.git"
	[ "$status" = 0 ] || { echo "$status: $output / $stderr"; false; }
	[ "$(cat "$TMP/w/clone/README")" = "hello from git" ]
	[ -z "$stderr" ]
	grep -q '^files.pkgs.test /files/git/hello.git/info/refs' "$EG/web.log"
	# A name not listed: refused before it is resolved, nothing sent.
	: >"$EG/web.log"
	: >"$EG/dns.log"
	run --separate-stderr confined "$1" sh -c "CA=$TMP/ca.pem; $GIT" sh "$TMP/w/other" \
		"https://other.test/files/git/hello.git"
	[ "$status" != 0 ]
	[ ! -e "$TMP/w/other/README" ]
	[ ! -s "$EG/web.log" ] || { cat "$EG/web.log"; false; }
	! grep -q other.test "$EG/dns.log"
	refused_line other.test:443
}

@test "network.hosts: git clone over HTTPS through a listed name; from a name not listed it fails and nothing is sent (root)" { t_git root; }
@test "network.hosts: git clone over HTTPS through a listed name; from a name not listed it fails and nothing is sent (nobody)" { t_git nobody; }

# GO: go mod download of hello.test/m from the module proxy on
# files.pkgs.test, its caches in $1; GOSUMDB from the caller.
GO='export GOPATH=$1/go GOMODCACHE=$1/go/pkg/mod GOCACHE=$1/cache SSL_CERT_FILE=$CA \
	GOPROXY='"$FILES"'/go GOFLAGS=-mod=mod GOTOOLCHAIN=local GO111MODULE=on \
	GOPRIVATE= GONOPROXY= GONOSUMDB= GOINSECURE= GOVCS="*:off"
cd "$1" && go mod download hello.test/m@v1.0.0'

t_go() {
	[ "$1" = root ] || require_feature nobody
	require_feature tool:go
	# With GOSUMDB off, the module comes from the proxy alone.
	run --separate-stderr confined "$1" env CA="$TMP/ca.pem" GOSUMDB=off sh -c "$GO" sh "$TMP/w"
	[ "$status" = 0 ] || { echo "$status: $output / $stderr"; false; }
	[ -z "$stderr" ]
	[ "$(cat "$TMP/w/go/pkg/mod/hello.test/m@v1.0.0/hello.go")" = 'package m

const Hello = "hello"' ]
	grep -qx 'files.pkgs.test /files/go/hello.test/m/@v/v1.0.0.zip' "$EG/web.log"
	# With the checksum database, not listed: the proxy has no sumdb/
	# (404), go asks sum.golang.org itself, the step refuses it before
	# resolving it, and nothing lands in the module cache.
	: >"$EG/web.log"
	: >"$EG/dns.log"
	mkdir -m 777 "$TMP/w/2"
	run --separate-stderr confined "$1" env CA="$TMP/ca.pem" GOSUMDB=sum.golang.org sh -c "$GO" sh "$TMP/w/2"
	[ "$status" != 0 ]
	[[ "$stderr" == *"sum.golang.org"* ]]
	[ ! -e "$TMP/w/2/go/pkg/mod/hello.test/m@v1.0.0" ]
	! grep -q golang.org "$EG/web.log"
	grep -q '^files.pkgs.test /files/go/sumdb/sum.golang.org/supported' "$EG/web.log"
	! grep -q golang.org "$EG/dns.log"
	refused_line sum.golang.org:443
}

@test "network.hosts: go mod download through a GOPROXY on a listed name, GOSUMDB off; sum.golang.org not listed fails and is named (root)" { t_go root; }
@test "network.hosts: go mod download through a GOPROXY on a listed name, GOSUMDB off; sum.golang.org not listed fails and is named (nobody)" { t_go nobody; }

# PIP: pip download of tinypkg from the simple index at $2 into $1/dl, no
# configuration, cache or version check of its own.
PIP='PIP_CONFIG_FILE=/dev/null "$PY" -m pip download -q --no-deps --no-build-isolation \
	--no-cache-dir --disable-pip-version-check --only-binary :all: --retries 0 --timeout 60 \
	--index-url "$2" --cert "$CA" -d "$1/dl" tinypkg'

t_pip() {
	[ "$1" = root ] || require_feature nobody
	require_feature tool:pip3
	# A python3 that has pip, where the run reaches it.
	local py= c
	for c in /usr/bin/python3 /usr/local/bin/python3; do
		"$c" -m pip --version >/dev/null 2>&1 && py=$c && break
	done
	[ -n "$py" ] || { echo "no python3 in /usr has pip"; false; }
	run --separate-stderr confined "$1" env CA="$TMP/ca.pem" PY="$py" sh -c "$PIP" sh "$TMP/w" "$FILES/pypi/simple/"
	[ "$status" = 0 ] || { echo "$status: $output / $stderr"; false; }
	[ -z "$stderr" ]
	[ -s "$TMP/w/dl/tinypkg-1.0-py3-none-any.whl" ]
	cmp "$TMP/w/dl/tinypkg-1.0-py3-none-any.whl" "$EG/www/pypi/packages/tinypkg-1.0-py3-none-any.whl"
	grep -qx 'files.pkgs.test /files/pypi/simple/tinypkg/' "$EG/web.log"
	# The same index through a name not listed.
	: >"$EG/web.log"
	: >"$EG/dns.log"
	run --separate-stderr confined "$1" env CA="$TMP/ca.pem" PY="$py" sh -c "$PIP" sh "$TMP/w/2" "https://other.test/files/pypi/simple/"
	[ "$status" != 0 ]
	[ ! -e "$TMP/w/2/dl" ] || [ -z "$(ls "$TMP/w/2/dl")" ]
	[ ! -s "$EG/web.log" ] || { cat "$EG/web.log"; false; }
	! grep -q other.test "$EG/dns.log"
	refused_line other.test:443
}

@test "network.hosts: pip download from a simple index on a listed name; from a name not listed it fails and nothing is sent (root)" { t_pip root; }
@test "network.hosts: pip download from a simple index on a listed name; from a name not listed it fails and nothing is sent (nobody)" { t_pip nobody; }

# NODE: Node's built-in fetch of $2, which ignores the proxy variables;
# prints what became of it.
NODE='fetch(process.argv[1]).then(r => { console.log("fetched " + r.status); },
	e => { console.log("refused " + ((e.cause && e.cause.code) || e)); process.exit(1); })'

t_node() {
	[ "$1" = root ] || require_feature nobody
	require_feature tool:node
	require_feature tool:curl
	# By name and by address: no resolver, no route. curl in the same run
	# goes through the step to the same server.
	run --separate-stderr confined "$1" sh -c '
		node -e "$0" "https://files.pkgs.test/files/node-by-name"
		node -e "$0" "https://203.0.113.10/files/node-by-address"
		curl -sS --max-time 30 --cacert "$1" https://files.pkgs.test/curl' "$NODE" "$TMP/ca.pem"
	[ "$status" = 0 ] || { echo "$status: $output / $stderr"; false; }
	[ "${lines[0]%% *}" = refused ] || { echo "$output"; false; }
	[ "${lines[1]}" = "refused ENETUNREACH" ] || { echo "$output"; false; }
	[ "${lines[2]}" = "hello from files.pkgs.test" ]
	[ "$(cat "$EG/web.log")" = "files.pkgs.test /curl" ]
	[ -z "$stderr" ]
}

@test "network.hosts: Node's built-in fetch, which ignores the proxy variables, fails closed; nothing is sent (root)" { t_node root; }
@test "network.hosts: Node's built-in fetch, which ignores the proxy variables, fails closed; nothing is sent (nobody)" { t_node nobody; }

# NPM: npm install of tinynpm from the registry at $2, in the project $1
# (its cache and HOME there), no configuration of the caller's, no retries,
# audit, fund or update check; the proxy from the run's variables.
NPM='mkdir -p "$1" && cd "$1" && echo "{}" >package.json &&
	NPM_CONFIG_USERCONFIG="$1/none" NPM_CONFIG_GLOBALCONFIG="$1/none-global" HOME="$1" npm install \
	--registry "$2" --cafile "$CA" --cache "$1/.npm" --fetch-retries 0 --no-audit --no-fund \
	--no-update-notifier --loglevel error tinynpm@1.0.0'

t_npm() {
	[ "$1" = root ] || require_feature nobody
	# Not a failure under SHARNESS_EXEC_MUST_WORK: CI installs Debian's
	# nodejs, which has no npm, and not Debian's npm (350 packages more).
	command -v npm >/dev/null || not_here tool:npm "npm is not installed (Debian's nodejs has none)"
	run --separate-stderr confined "$1" env CA="$TMP/ca.pem" sh -c "$NPM" sh "$TMP/w/p" "$FILES/npm/"
	[ "$status" = 0 ] || { echo "$status: $output / $stderr"; false; }
	[ -z "$stderr" ]
	[ "$(cat "$TMP/w/p/node_modules/tinynpm/index.js")" = "module.exports = 'hello from npm';" ]
	grep -q '"tinynpm": "1.0.0"\|"tinynpm": "^1.0.0"' "$TMP/w/p/package.json"
	grep -qx 'files.pkgs.test /files/npm/tinynpm' "$EG/web.log"
	grep -qx 'files.pkgs.test /files/npm/tinynpm/-/tinynpm-1.0.0.tgz' "$EG/web.log"
	# The same registry through a name not listed.
	: >"$EG/web.log"
	: >"$EG/dns.log"
	run --separate-stderr confined "$1" env CA="$TMP/ca.pem" sh -c "$NPM" sh "$TMP/w/2" \
		"https://other.test/files/npm/"
	[ "$status" != 0 ]
	[ ! -e "$TMP/w/2/node_modules/tinynpm" ]
	[ ! -s "$EG/web.log" ] || { cat "$EG/web.log"; false; }
	! grep -q other.test "$EG/dns.log"
	refused_line other.test:443
}

@test "network.hosts: npm install from a registry on a listed name; from a name not listed it fails and nothing is sent (root)" { t_npm root; }
@test "network.hosts: npm install from a registry on a listed name; from a name not listed it fails and nothing is sent (nobody)" { t_npm nobody; }
