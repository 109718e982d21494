# tests/svid's checker (Go's crypto/x509, a strict DER parser), built once
# a file, offline, where go is installed: $SVID_CHECK, or nothing.
build_svid_check() {
	command -v go >/dev/null || return 0
	export SVID_CHECK="$BATS_FILE_TMPDIR/svid-check"
	(cd "$top_srcdir/tests/svid" &&
		GOPROXY=off GOFLAGS=-mod=mod GO111MODULE=on GOPATH="$BATS_FILE_TMPDIR/gopath" \
		GOCACHE="$BATS_FILE_TMPDIR/gocache" go build -o "$SVID_CHECK" .)
}
