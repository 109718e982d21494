#!/usr/bin/env bats
# The session CA and its leaves (launch/x509.c, DESIGN.md 4.8), written by
# tests/try/try-svid: each leaf verifies under `openssl verify -x509_strict`
# against its session's CA and no other's; Go's crypto/x509 (strict DER)
# parses each and finds the SPIFFE X509-SVID profile (tests/svid, standard
# library only, built offline); two roles' files make a mutual-TLS
# exchange on a loopback port the kernel picks, and a peer that expects
# role A refuses role B's valid certificate by its URI SAN.
# not tested: that the keys stay in locked memory and are wiped (try-svid
# lives too briefly to look at), nor BearSSL's own stack temporaries,
# which nothing can wipe; the session runtime (tests/launch-run.bats).
load ../helpers/load
load ../helpers/svid

TRY_SVID="$TRYDIR/try-svid"

setup_file() { build_svid_check; }

setup() {
	setup_tmp
	mkdir "$TMP/s"
	run -0 --separate-stderr "$TRY_SVID" "$TMP/s" db kms
	SESSION=$(sed -n 's/^session //p' <<<"$output")
	[[ $SESSION =~ ^[0-9a-f]{32}$ ]]
	S="$TMP/s"
}

need_go() {
	require_feature tool:go
	[ -x "$SVID_CHECK" ]
}

@test "try-svid writes the CA's certificate and each role's certificate and key, never the CA's key" {
	[ "$(cd "$S" && ls | LC_ALL=C sort | tr '\n' ' ')" = "ca.pem db.key db.pem kms.key kms.pem " ]
	[ "$(stat -c %a "$S/db.key") $(stat -c %a "$S/kms.key")" = "600 600" ]
	[ "$(stat -c %a "$S/ca.pem") $(stat -c %a "$S/db.pem")" = "644 644" ]
	[ "${lines[1]}" = "ca sha256:$(openssl x509 -in "$S/ca.pem" -outform DER | sha256sum | cut -c1-64)" ]
	[ "${lines[2]}" = "db spiffe://$SESSION/db" ]
	# the CA's key is in none of them
	! grep -l 'PRIVATE KEY' "$S/ca.pem" "$S/db.pem" "$S/kms.pem"
	[ "$(grep -c 'BEGIN EC PRIVATE KEY' "$S/db.key")" = 1 ]
}

@test "openssl verify -x509_strict: each leaf verifies under its session's CA, and not under another's" {
	run -0 openssl verify -x509_strict -CAfile "$S/ca.pem" "$S/db.pem" "$S/kms.pem"
	[ "$output" = "$S/db.pem: OK
$S/kms.pem: OK" ]
	run -0 openssl verify -x509_strict -CAfile "$S/ca.pem" "$S/ca.pem"
	mkdir "$TMP/other"
	"$TRY_SVID" "$TMP/other" db >/dev/null
	run -2 openssl verify -x509_strict -CAfile "$TMP/other/ca.pem" "$S/db.pem"
	[[ $output == *"unable to get local issuer certificate"* ]]
}

@test "the keys are SEC1 P-256, and each is its certificate's" {
	local role
	for role in db kms; do
		run -0 openssl ec -in "$S/$role.key" -noout -check
		[ "$(openssl pkey -in "$S/$role.key" -pubout | sha256sum)" = \
		  "$(openssl x509 -in "$S/$role.pem" -noout -pubkey | sha256sum)" ]
		openssl asn1parse -in "$S/$role.key" | grep -q prime256v1
	done
}

@test "validity: notBefore is 60 s before it was made, notAfter its lifetime after (-l), UTCTime" {
	local before after start end
	mkdir "$TMP/l"
	before=$(date +%s)
	"$TRY_SVID" -l 3600 "$TMP/l" db >/dev/null
	after=$(date +%s)
	start=$(date -d "$(openssl x509 -in "$TMP/l/db.pem" -noout -startdate | cut -d= -f2)" +%s)
	end=$(date -d "$(openssl x509 -in "$TMP/l/db.pem" -noout -enddate | cut -d= -f2)" +%s)
	[ "$start" -ge $((before - 60)) ] && [ "$start" -le $((after - 60)) ]
	[ "$end" -ge $((before + 3600)) ] && [ "$end" -le $((after + 3600)) ]
	openssl asn1parse -in "$TMP/l/db.pem" | grep -c UTCTIME | grep -qx 2
}

@test "Go's crypto/x509 parses each certificate: the SVID profile, one URI SAN, a chain to the CA" {
	need_go
	run -0 "$SVID_CHECK" leaf "$S/ca.pem" "$S/db.pem" "spiffe://$SESSION/db" 86400
	[ "${lines[1]}" = "ok: leaf spiffe://$SESSION/db: verifies under the CA for serverAuth and clientAuth, as db, localhost, 127.0.0.1 and ::1" ]
	run -0 "$SVID_CHECK" leaf "$S/ca.pem" "$S/kms.pem" "spiffe://$SESSION/kms" 86400
	# the URI SAN is checked: kms's certificate is not db's
	run -1 "$SVID_CHECK" leaf "$S/ca.pem" "$S/kms.pem" "spiffe://$SESSION/db" 86400
	[[ $output == *"URI SAN spiffe://$SESSION/kms, want spiffe://$SESSION/db" ]]
	mkdir "$TMP/other"
	"$TRY_SVID" "$TMP/other" db >/dev/null
	run -0 "$SVID_CHECK" foreign "$S/ca.pem" "$TMP/other/db.pem"
}

@test "mutual TLS between two roles' files, on a loopback port the kernel picks" {
	need_go
	cd "$S"
	run -0 "$SVID_CHECK" mtls ca.pem db "spiffe://$SESSION/db" kms "spiffe://$SESSION/kms"
	[ "$output" = "ok: mutual TLS between spiffe://$SESSION/db and spiffe://$SESSION/kms: \"pong to ping\"" ]
}

@test "a peer that expects role A refuses role B's valid certificate by its URI SAN" {
	need_go
	cd "$S"
	# a client that expects db, reached by kms
	run -0 "$SVID_CHECK" impostor ca.pem db "spiffe://$SESSION/db" kms
	[[ $output == *"refuses kms's valid certificate: URI SAN is [spiffe://$SESSION/kms], want spiffe://$SESSION/db" ]]
	# a server that expects a client other than kms
	run -1 "$SVID_CHECK" mtls ca.pem db "spiffe://$SESSION/db" kms "spiffe://$SESSION/main"
	[[ $output == *"server saw URI SAN is [spiffe://$SESSION/kms], want spiffe://$SESSION/main"* ]]
}

@test "try-svid refuses a role that is no DNS label (no SPIFFE path segment, no host name), and writes nothing for it" {
	local role
	for role in .. . a/b '' "$(printf 'r%.0s' {1..64})" 'a b' a_b a.b -a a-; do
		rm -rf "$TMP/r" && mkdir "$TMP/r"
		run -1 --separate-stderr "$TRY_SVID" "$TMP/r" "$role"
		[ "$stderr" = "try-svid: $role: not a role: a DNS label, 1-63 of [A-Za-z0-9-], no - first or last" ]
		[ "$(ls "$TMP/r")" = ca.pem ]
	done
}

@test "try-svid works unprivileged: its keys' locked memory fits RLIMIT_MEMLOCK (as nobody)" {
	require_feature nobody
	mkdir "$TMP/n"
	chown "$NOBODY_UID:$NOBODY_GID" "$TMP/n"
	run -0 --separate-stderr as_nobody "$TRY_SVID" "$TMP/n" db
	run -0 openssl verify -x509_strict -CAfile "$TMP/n/ca.pem" "$TMP/n/db.pem"
	[ "$(stat -c '%u %a' "$TMP/n/db.key")" = "$NOBODY_UID 600" ]
}
