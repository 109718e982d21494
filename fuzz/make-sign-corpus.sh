#!/bin/sh
# make-sign-corpus.sh BUILDDIR OUTDIR: seeds for pem-fuzzer, spki-fuzzer
# and sig-fuzzer, made fresh (no key is kept in the tree): OUTDIR/pem holds
# key files as sharness-exec keygen and openssl write them (P-256 with its
# EC PARAMETERS object, PKCS#8, P-384, RSA, compressed, a certificate-like
# object), OUTDIR/spki their DER, OUTDIR/sig DER signatures. Without
# openssl, only sharness-exec's own. keygen and sign run the build tree's
# sharness-exec-sign directly: the front end execs the installed one.
set -eu
[ $# = 2 ] || { echo "usage: make-sign-corpus.sh BUILDDIR OUTDIR" >&2; exit 2; }
signer=$1/sharness-exec-sign out=$2
rm -rf "$out"
mkdir -p "$out/pem" "$out/spki" "$out/sig"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$signer" keygen -o "$tmp/k" >/dev/null
printf '{"pbp":1,"id":"seed","network":"none","process":{"no_new_privs":true}}' >"$tmp/p.json"
"$signer" sign -k "$tmp/k.key" "$tmp/p.json" >/dev/null
cp "$tmp/k.key" "$tmp/k.pub" "$out/pem/"
cp "$tmp/p.json.sig" "$out/sig/k.sig"
cat "$tmp/k.pub" "$tmp/k.key" >"$out/pem/both.pem"
sed -n '2,3p' "$tmp/k.pub" | tr -d '\n' | base64 -d >"$out/spki/k.der" 2>/dev/null || :

if command -v openssl >/dev/null; then
	o() { openssl "$@" 2>/dev/null; }
	o ecparam -genkey -name prime256v1 -out "$out/pem/o.pem"
	o ec -in "$out/pem/o.pem" -pubout -out "$out/pem/o.pub"
	o pkcs8 -topk8 -nocrypt -in "$out/pem/o.pem" -out "$out/pem/o.p8"
	o ec -in "$out/pem/o.pem" -pubout -conv_form compressed -out "$out/pem/c.pub"
	o ecparam -genkey -name secp384r1 -noout -out "$tmp/p384.pem"
	o ec -in "$tmp/p384.pem" -pubout -out "$out/pem/p384.pub"
	cp "$tmp/p384.pem" "$out/pem/p384.pem"
	o genrsa -out "$tmp/rsa.pem" 1024
	o rsa -in "$tmp/rsa.pem" -pubout -out "$out/pem/rsa.pub"
	o rsa -in "$tmp/rsa.pem" -RSAPublicKey_out -out "$out/pem/rsa1.pub"
	for f in o c p384 rsa; do
		o pkey -pubin -in "$out/pem/$f.pub" -outform DER -out "$out/spki/$f.der"
	done
	o dgst -sha256 -sign "$out/pem/o.pem" -out "$out/sig/o.sig" "$tmp/p.json"
	o dgst -sha256 -sign "$tmp/p384.pem" -out "$out/sig/p384.sig" "$tmp/p.json"
fi
echo "make-sign-corpus.sh: $(ls "$out"/pem | wc -l) PEM, $(ls "$out"/spki | wc -l) SPKI, $(ls "$out"/sig | wc -l) signature seeds in $out"
