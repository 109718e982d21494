#!/usr/bin/env bats
# Signed policies (DESIGN.md 2.3): keygen, sign, verify, hash --canonical and
# run --trust-key / --signature / --expect-id, tried both ways against
# openssl (Debian's openssl package, for the tests only), and every refusal
# from the attacker's side: 125, one line on stderr, and the command did not
# run (it would have left a marker file).
# not tested: getrandom(2) failing or blocking before the pool is seeded (it
# cannot be caused here); a key file replaced between its check and its read
# (both happen on one descriptor); a signature made by a faulty signer (sign
# checks its own output before writing it, which cannot be made to fail).
load ../helpers/load

setup() {
	setup_tmp
	mkdir "$TMP/w" "$TMP/keys"
	POLICY=$TMP/p.json
	write_policy "$POLICY" '{"pbp": 1, "id": "signed-job",
  "files": {"exec": ["/usr", "/bin", "/lib", "/lib64"], "write": ["'"$TMP"'/w"]},
  "network": "none", "process": {"no_new_privs": true}}'
	MARK=$TMP/w/ran
}

# keygen NAME: a key pair in $TMP/keys, its fingerprint in $FP.
keygen() {
	run -0 --separate-stderr "$SHARNESS_EXEC" keygen -o "$TMP/keys/$1"
	FP=$output
	[[ $FP =~ ^sha256:[0-9a-f]{64}$ ]]
}

# openssl_key NAME [CURVE]: a private key from `openssl ecparam -genkey`
# (which writes an "EC PARAMETERS" object first) and its public key.
openssl_key() {
	openssl ecparam -genkey -name "${2:-prime256v1}" -out "$TMP/keys/$1.pem" 2>/dev/null
	grep -q 'BEGIN EC PARAMETERS' "$TMP/keys/$1.pem"
	openssl ec -in "$TMP/keys/$1.pem" -pubout -out "$TMP/keys/$1.pub" 2>/dev/null
}

# fingerprint PUB: what openssl says the fingerprint of a public key is.
fingerprint() {
	echo "sha256:$(openssl pkey -pubin -in "$1" -outform DER | sha256sum | cut -c1-64)"
}

# run_signed ARGS...: run the policy under ARGS; the command leaves $MARK
# and prints what it was given of the signature.
run_signed() {
	run --separate-stderr "$SHARNESS_EXEC" run "$@" -p "$POLICY" -- \
		/bin/sh -c 'touch "$1" && echo "$SHARNESS_AI_POLICY_KEY $SHARNESS_AI_POLICY_ID"' sh "$MARK"
}

# refused CMD...: 125, one line on stderr (and perhaps a hint), nothing on
# stdout, nothing ran.
refused() {
	run -125 --separate-stderr "$@"
	echo "stderr: $stderr"
	[ "${#stderr_lines[@]}" = 1 ] || [[ ${#stderr_lines[@]} = 2 && ${stderr_lines[1]} == hint:* ]]
	[[ ${stderr_lines[0]} == sharness-exec:* ]]
	[ -z "$output" ]
	[ ! -e "$MARK" ]
}

@test "keygen: NAME.key is P-256 SEC1 mode 0600, NAME.pub SPKI, the fingerprint is openssl's" {
	require_feature tool:openssl
	keygen k
	[ "$(stat -c %a "$TMP/keys/k.key")" = 600 ]
	[ "$(head -1 "$TMP/keys/k.key")" = "-----BEGIN EC PRIVATE KEY-----" ]
	[ "$(head -1 "$TMP/keys/k.pub")" = "-----BEGIN PUBLIC KEY-----" ]
	run -0 openssl ec -in "$TMP/keys/k.key" -check -noout
	[[ $output == *"EC Key valid."* ]]
	run -0 openssl ec -in "$TMP/keys/k.key" -text -noout
	[[ $output == *"ASN1 OID: prime256v1"* ]]
	[ "$FP" = "$(fingerprint "$TMP/keys/k.pub")" ]
	# Two keys are two keys.
	local first=$FP
	keygen k2
	[ "$FP" != "$first" ]
}

@test "keygen: the SPKI encoder writes what openssl writes, byte for byte" {
	require_feature tool:openssl
	keygen k
	openssl ec -in "$TMP/keys/k.key" -pubout -out "$TMP/openssl.pub" 2>/dev/null
	cmp "$TMP/keys/k.pub" "$TMP/openssl.pub"
	# And the DER inside, 91 bytes.
	openssl pkey -pubin -in "$TMP/keys/k.pub" -outform DER -out "$TMP/k.der"
	[ "$(stat -c %s "$TMP/k.der")" = 91 ]
}

@test "keygen: never replaces a key, nor writes through a planted link" {
	keygen k
	cp "$TMP/keys/k.key" "$TMP/saved.key"
	run -125 --separate-stderr "$SHARNESS_EXEC" keygen -o "$TMP/keys/k"
	[[ $stderr == *"unable to create $TMP/keys/k.key: File exists"* ]]
	cmp "$TMP/keys/k.key" "$TMP/saved.key"
	# A link where the key would go, pointing at a file of the victim's.
	echo victim >"$TMP/victim"
	ln -s "$TMP/victim" "$TMP/keys/l.key"
	run -125 --separate-stderr "$SHARNESS_EXEC" keygen -o "$TMP/keys/l"
	[ "$(cat "$TMP/victim")" = victim ]
	[ ! -e "$TMP/keys/l.pub" ]
	# The public half taken: no key is left behind either.
	touch "$TMP/keys/m.pub"
	run -125 --separate-stderr "$SHARNESS_EXEC" keygen -o "$TMP/keys/m"
	[ ! -e "$TMP/keys/m.key" ]
	run -125 --separate-stderr "$SHARNESS_EXEC" keygen
	run -125 --separate-stderr "$SHARNESS_EXEC" keygen -o "$TMP/keys/n" extra
}

@test "hash --canonical writes exactly the canonical bytes, no newline; their SHA-256 is the hash" {
	write_policy "$TMP/q.json" '{ "z": [1, -0, "a\u00e9\n"],
	  "a": {"y": true, "b": null} }'
	"$SHARNESS_EXEC" hash --canonical "$TMP/q.json" >"$TMP/canon"
	printf '{"a":{"b":null,"y":true},"z":[1,0,"a\xc3\xa9\\n"]}' | cmp - "$TMP/canon"
	run -0 "$SHARNESS_EXEC" hash "$TMP/q.json"
	[ "$output" = "sha256:$(sha256sum <"$TMP/canon" | cut -c1-64)" ]
	# Standard input, and the refusals of hash.
	run -0 "$SHARNESS_EXEC" hash --canonical - <"$TMP/q.json"
	write_policy "$TMP/bad.json" '{"a": 1.5}'
	run -125 --separate-stderr "$SHARNESS_EXEC" hash --canonical "$TMP/bad.json"
	[ -z "$output" ]
	[ "${#stderr_lines[@]}" = 1 ]
}

@test "sign, then openssl verifies the signature and the key made by sharness-exec" {
	require_feature tool:openssl
	keygen k
	run -0 --separate-stderr "$SHARNESS_EXEC" sign -k "$TMP/keys/k.key" "$POLICY"
	[[ $output == "$POLICY.sig: sha256:"*" signed by $FP" ]]
	[ -f "$POLICY.sig" ]
	"$SHARNESS_EXEC" hash --canonical "$POLICY" >"$TMP/canon"
	run -0 openssl dgst -sha256 -verify "$TMP/keys/k.pub" -signature "$POLICY.sig" "$TMP/canon"
	[ "$output" = "Verified OK" ]
	# And openssl refuses it for other bytes (the test can fail).
	printf ' ' >>"$TMP/canon"
	run -1 openssl dgst -sha256 -verify "$TMP/keys/k.pub" -signature "$POLICY.sig" "$TMP/canon"
}

@test "a key and signature made by openssl are accepted by verify and by run --trust-key" {
	require_feature tool:openssl
	require_feature landlock
	openssl_key o
	"$SHARNESS_EXEC" hash --canonical "$POLICY" >"$TMP/canon"
	openssl dgst -sha256 -sign "$TMP/keys/o.pem" -out "$POLICY.sig" "$TMP/canon"
	local fp hash
	fp=$(fingerprint "$TMP/keys/o.pub")
	hash=$("$SHARNESS_EXEC" hash "$POLICY")
	run -0 --separate-stderr "$SHARNESS_EXEC" verify -K "$TMP/keys/o.pub" "$POLICY"
	[ "$output" = "hash: $hash"$'\n'"id: signed-job"$'\n'"key: $fp" ]
	run_signed --trust-key "$TMP/keys/o.pub"
	[ "$status" = 0 ]
	[ "$output" = "$fp signed-job" ]
	[ -e "$MARK" ]
	# sign reads openssl's key file too (its EC PARAMETERS object skipped).
	run -0 "$SHARNESS_EXEC" sign -k "$TMP/keys/o.pem" "$POLICY"
	run -0 openssl dgst -sha256 -verify "$TMP/keys/o.pub" -signature "$POLICY.sig" "$TMP/canon"
}

@test "run --trust-key: the key reaches the target; with --expect-hash both must hold" {
	require_feature landlock
	keygen k
	"$SHARNESS_EXEC" sign -k "$TMP/keys/k.key" "$POLICY" >/dev/null
	local hash
	hash=$("$SHARNESS_EXEC" hash "$POLICY")
	run_signed --trust-key "$TMP/keys/k.pub" --expect-hash "$hash"
	[ "$status" = 0 ]
	[ "$output" = "$FP signed-job" ]
	rm "$MARK"
	# The right signature does not excuse a wrong pin.
	refused "$SHARNESS_EXEC" run --trust-key "$TMP/keys/k.pub" \
		--expect-hash "sha256:$(printf '%064d' 0)" -p "$POLICY" -- touch "$MARK"
	# --signature names another file; --dry-run shows the key.
	mv "$POLICY.sig" "$TMP/elsewhere"
	run_signed --trust-key "$TMP/keys/k.pub" --signature "$TMP/elsewhere"
	[ "$status" = 0 ]
	run -0 --separate-stderr "$SHARNESS_EXEC" run -v -n --trust-key "$TMP/keys/k.pub" \
		--signature "$TMP/elsewhere" -p "$POLICY" -- true
	[[ $stderr == *"(signed by $FP)"* ]]
}

@test "SHARNESS_AI_POLICY_KEY cannot be forged: not by the caller, not by the policy" {
	require_feature landlock
	run_signed
	[ "$status" = 0 ]
	[ "$output" = " signed-job" ]
	rm "$MARK"
	export SHARNESS_AI_POLICY_KEY=sha256:forged
	run_signed
	unset SHARNESS_AI_POLICY_KEY
	[ "$status" = 0 ]
	[ "$output" = " signed-job" ]
	rm "$MARK"
	write_policy "$POLICY" '{"pbp": 1, "id": "forger", "network": "none",
	  "process": {"no_new_privs": true}, "env": {"set": {"SHARNESS_AI_POLICY_KEY": "sha256:forged"}}}'
	refused "$SHARNESS_EXEC" run -p "$POLICY" -- touch "$MARK"
	[[ $stderr == *"env.set.SHARNESS_AI_POLICY_KEY: set by sharness-exec itself"* ]]
}

@test "a changed byte that changes the canonical form is refused; whitespace alone is not a change" {
	require_feature landlock
	keygen k
	"$SHARNESS_EXEC" sign -k "$TMP/keys/k.key" "$POLICY" >/dev/null
	# Reformatted: other bytes, the same canonical form, still accepted.
	local before
	before=$("$SHARNESS_EXEC" hash "$POLICY")
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); open(sys.argv[1], "w").write(json.dumps(d, indent=7) + "\n\n")' "$POLICY"
	[ "$("$SHARNESS_EXEC" hash "$POLICY")" = "$before" ]
	run_signed --trust-key "$TMP/keys/k.pub"
	[ "$status" = 0 ]
	rm "$MARK"
	# One byte of the id: still a valid policy, but not the signed one.
	sed -i 's/signed-job/signed-jo8/' "$POLICY"
	refused "$SHARNESS_EXEC" run --trust-key "$TMP/keys/k.pub" -p "$POLICY" -- touch "$MARK"
	[[ $stderr == *"is not a signature of policy"*"Nothing ran."* ]]
	refused "$SHARNESS_EXEC" verify -K "$TMP/keys/k.pub" "$POLICY"
}

@test "a signature by another key is refused; any one of several trusted keys is enough" {
	require_feature landlock
	keygen other
	local other=$FP
	keygen k
	"$SHARNESS_EXEC" sign -k "$TMP/keys/other.key" "$POLICY" >/dev/null
	refused "$SHARNESS_EXEC" run --trust-key "$TMP/keys/k.pub" -p "$POLICY" -- touch "$MARK"
	refused "$SHARNESS_EXEC" verify -K "$TMP/keys/k.pub" "$POLICY"
	run_signed --trust-key "$TMP/keys/k.pub" --trust-key "$TMP/keys/other.pub"
	[ "$status" = 0 ]
	[ "$output" = "$other signed-job" ]
}

@test "truncated, garbage, empty and missing signatures are refused" {
	require_feature landlock
	keygen k
	"$SHARNESS_EXEC" sign -k "$TMP/keys/k.key" "$POLICY" >/dev/null
	cp "$POLICY.sig" "$TMP/good.sig"
	local n
	n=$(stat -c %s "$TMP/good.sig")
	head -c $((n - 1)) "$TMP/good.sig" >"$POLICY.sig"
	refused "$SHARNESS_EXEC" run --trust-key "$TMP/keys/k.pub" -p "$POLICY" -- touch "$MARK"
	refused "$SHARNESS_EXEC" verify -K "$TMP/keys/k.pub" "$POLICY"
	# The right length, one bit of s flipped: well-formed, wrong.
	cp "$TMP/good.sig" "$POLICY.sig"
	printf "\\x$(printf %02x $(( $(od -An -tu1 -j $((n - 1)) -N1 "$POLICY.sig") ^ 1 )))" |
		dd of="$POLICY.sig" bs=1 seek=$((n - 1)) conv=notrunc status=none
	! cmp -s "$POLICY.sig" "$TMP/good.sig"
	refused "$SHARNESS_EXEC" run --trust-key "$TMP/keys/k.pub" -p "$POLICY" -- touch "$MARK"
	head -c 72 /dev/urandom >"$POLICY.sig"
	refused "$SHARNESS_EXEC" run --trust-key "$TMP/keys/k.pub" -p "$POLICY" -- touch "$MARK"
	: >"$POLICY.sig"
	refused "$SHARNESS_EXEC" run --trust-key "$TMP/keys/k.pub" -p "$POLICY" -- touch "$MARK"
	# The signature in base64 is not the DER file either.
	base64 "$TMP/good.sig" >"$POLICY.sig"
	refused "$SHARNESS_EXEC" run --trust-key "$TMP/keys/k.pub" -p "$POLICY" -- touch "$MARK"
	rm "$POLICY.sig"
	refused "$SHARNESS_EXEC" run --trust-key "$TMP/keys/k.pub" -p "$POLICY" -- touch "$MARK"
	[[ $stderr == *"p.json.sig: No such file or directory"* ]]
	# The good one still works: the refusals above were about the signature.
	cp "$TMP/good.sig" "$POLICY.sig"
	run_signed --trust-key "$TMP/keys/k.pub"
	[ "$status" = 0 ]
}

@test "a P-384 key, an RSA key, a compressed key and a private key given as public are refused" {
	require_feature tool:openssl
	require_feature landlock
	keygen k
	"$SHARNESS_EXEC" sign -k "$TMP/keys/k.key" "$POLICY" >/dev/null
	openssl_key p384 secp384r1
	openssl genrsa -out "$TMP/keys/rsa.pem" 2048 2>/dev/null
	openssl rsa -in "$TMP/keys/rsa.pem" -pubout -out "$TMP/keys/rsa.pub" 2>/dev/null
	openssl rsa -in "$TMP/keys/rsa.pem" -RSAPublicKey_out -out "$TMP/keys/rsa1.pub" 2>/dev/null
	openssl ec -in "$TMP/keys/k.key" -pubout -conv_form compressed -out "$TMP/keys/c.pub" 2>/dev/null
	local f want
	for f in p384.pub:"a P-384 key" rsa.pub:"an RSA key" rsa1.pub:"an RSA key" \
		 c.pub:"compressed form" k.key:"a private key, not a public key" \
		 rsa.pem:"a private key, not a public key" p384.pem:"a private key, not a public key"; do
		want=${f#*:} f=$TMP/keys/${f%%:*}
		refused "$SHARNESS_EXEC" run --trust-key "$f" -p "$POLICY" -- touch "$MARK"
		[[ $stderr == *"$want"* ]]
		refused "$SHARNESS_EXEC" verify -K "$f" "$POLICY"
		[[ $stderr == *"$want"* ]]
	done
	# sign takes only a P-256 private key.
	for f in p384.pem:"a P-384 key" rsa.pem:"an RSA key" k.pub:"a public key, not a private key"; do
		want=${f#*:} f=$TMP/keys/${f%%:*}
		refused "$SHARNESS_EXEC" sign -k "$f" "$POLICY"
		[[ $stderr == *"$want"* ]]
	done
	# A bad key among good ones spoils the run: it is a configuration error.
	refused "$SHARNESS_EXEC" run --trust-key "$TMP/keys/k.pub" --trust-key "$TMP/keys/rsa.pub" \
		-p "$POLICY" -- touch "$MARK"
}

@test "a .sig that is a directory, a FIFO (without blocking) or 10 MiB long is refused" {
	require_feature landlock
	keygen k
	mkdir "$POLICY.sig"
	refused "$SHARNESS_EXEC" run --trust-key "$TMP/keys/k.pub" -p "$POLICY" -- touch "$MARK"
	[[ $stderr == *"is a directory"* ]]
	rmdir "$POLICY.sig"
	# No writer ever comes: a reader that waited would hit the timeout.
	mkfifo "$POLICY.sig"
	refused timeout 20 "$SHARNESS_EXEC" run --trust-key "$TMP/keys/k.pub" -p "$POLICY" -- touch "$MARK"
	[[ $stderr == *"is a FIFO"* ]]
	refused timeout 20 "$SHARNESS_EXEC" verify -K "$TMP/keys/k.pub" "$POLICY"
	rm "$POLICY.sig"
	# A valid signature followed by 10 MiB: refused by its size, unread.
	"$SHARNESS_EXEC" sign -k "$TMP/keys/k.key" "$POLICY" >/dev/null
	head -c $((10 * 1024 * 1024)) /dev/zero >>"$POLICY.sig"
	refused "$SHARNESS_EXEC" run --trust-key "$TMP/keys/k.pub" -p "$POLICY" -- touch "$MARK"
	[[ $stderr == *"larger than 72 bytes"* ]]
	# Neither a device.
	refused "$SHARNESS_EXEC" run --trust-key "$TMP/keys/k.pub" --signature /dev/zero \
		-p "$POLICY" -- touch "$MARK"
	# And a key file that is a FIFO.
	mkfifo "$TMP/keys/fifo.pub"
	"$SHARNESS_EXEC" sign -k "$TMP/keys/k.key" "$POLICY" >/dev/null
	refused timeout 20 "$SHARNESS_EXEC" run --trust-key "$TMP/keys/fifo.pub" -p "$POLICY" -- touch "$MARK"
}

@test "--expect-id: a policy with another id is refused, the same id runs" {
	require_feature landlock
	keygen k
	"$SHARNESS_EXEC" sign -k "$TMP/keys/k.key" "$POLICY" >/dev/null
	refused "$SHARNESS_EXEC" run --trust-key "$TMP/keys/k.pub" --expect-id other-job \
		-p "$POLICY" -- touch "$MARK"
	[[ $stderr == *'policy id is "signed-job", expected "other-job"'* ]]
	run_signed --trust-key "$TMP/keys/k.pub" --expect-id signed-job
	[ "$status" = 0 ]
	rm "$MARK"
	# The replay it stops: another policy signed by the same key.
	write_policy "$TMP/loose.json" '{"pbp": 1, "id": "loose-job", "files": {"write": ["/"]},
	  "network": "none", "process": {"no_new_privs": true}}'
	"$SHARNESS_EXEC" sign -k "$TMP/keys/k.key" "$TMP/loose.json" >/dev/null
	cp "$TMP/loose.json" "$POLICY"
	cp "$TMP/loose.json.sig" "$POLICY.sig"
	refused "$SHARNESS_EXEC" run --trust-key "$TMP/keys/k.pub" --expect-id signed-job \
		-p "$POLICY" -- touch "$MARK"
}

@test "a trusted key that someone else could change is refused, as the policy file would be" {
	require_feature landlock
	require_feature nobody
	keygen k
	"$SHARNESS_EXEC" sign -k "$TMP/keys/k.key" "$POLICY" >/dev/null
	chmod o+w "$TMP/keys/k.pub"
	refused "$SHARNESS_EXEC" run --trust-key "$TMP/keys/k.pub" -p "$POLICY" -- touch "$MARK"
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: refused: key file $TMP/keys/k.pub: it is writable by group or others" ]
	chmod o-w,g+w "$TMP/keys/k.pub"
	refused "$SHARNESS_EXEC" run --trust-key "$TMP/keys/k.pub" -p "$POLICY" -- touch "$MARK"
	chmod g-w "$TMP/keys/k.pub"
	# Owned by uid 1000: root must not trust what that user can rewrite.
	chown 1000:1000 "$TMP/keys/k.pub"
	refused "$SHARNESS_EXEC" run --trust-key "$TMP/keys/k.pub" -p "$POLICY" -- touch "$MARK"
	[[ $stderr == *"owned by another user"* ]]
	# ... nor nobody; but uid 1000 may trust its own key, and anyone root's.
	chmod 755 "$TMP/keys"
	run -125 --separate-stderr as_nobody "$SHARNESS_EXEC" run -n --trust-key "$TMP/keys/k.pub" -p "$POLICY" -- true
	run -0 --separate-stderr setpriv --reuid=1000 --regid=1000 --clear-groups -- \
		"$SHARNESS_EXEC" run -n --trust-key "$TMP/keys/k.pub" -p "$POLICY" -- true
	chown 0:0 "$TMP/keys/k.pub"
	run -0 --separate-stderr as_nobody "$SHARNESS_EXEC" run --trust-key "$TMP/keys/k.pub" -p "$POLICY" -- true
}

@test "sign checks the policy as check does and writes no signature for an invalid one" {
	keygen k
	write_policy "$TMP/bad.json" '{"pbp": 1, "id": "bad", "network": "none",
	  "process": {"no_new_privs": true}, "files": {"write": ["tmp"]}, "typo": 1}'
	run -125 --separate-stderr "$SHARNESS_EXEC" sign -k "$TMP/keys/k.key" "$TMP/bad.json"
	[[ $stderr == *"files.write[0]"* ]]
	[[ $stderr == *"typo"* ]]
	[ ! -e "$TMP/bad.json.sig" ]
	run -125 --separate-stderr "$SHARNESS_EXEC" sign -k "$TMP/keys/k.key" - <"$POLICY"
	run -125 --separate-stderr "$SHARNESS_EXEC" sign "$POLICY"
	# Signing again replaces the signature file, whole.
	"$SHARNESS_EXEC" sign -k "$TMP/keys/k.key" "$POLICY" >/dev/null
	"$SHARNESS_EXEC" sign -k "$TMP/keys/k.key" "$POLICY" >/dev/null
	run -0 "$SHARNESS_EXEC" verify -K "$TMP/keys/k.pub" "$POLICY"
	[ "$(ls "$TMP" | grep -c 'sig\.')" = 0 ]
}

@test "usage: --signature needs --trust-key; a policy on stdin needs --signature" {
	keygen k
	"$SHARNESS_EXEC" sign -k "$TMP/keys/k.key" "$POLICY" >/dev/null
	run -125 --separate-stderr "$SHARNESS_EXEC" run --signature "$POLICY.sig" -p "$POLICY" -- true
	[[ $stderr == *"--signature needs --trust-key"* ]]
	refused "$SHARNESS_EXEC" run --trust-key "$TMP/keys/k.pub" -p - -- touch "$MARK" <"$POLICY"
	run -0 "$SHARNESS_EXEC" run -n --trust-key "$TMP/keys/k.pub" --signature "$POLICY.sig" -p - -- true <"$POLICY"
	run -0 "$SHARNESS_EXEC" verify -K "$TMP/keys/k.pub" - "$POLICY.sig" <"$POLICY"
	run -125 --separate-stderr "$SHARNESS_EXEC" verify -K "$TMP/keys/k.pub"
	run -125 --separate-stderr "$SHARNESS_EXEC" verify "$POLICY"
}

@test "probe lists the trusted keys given to it, with what run would say of each" {
	keygen k
	chmod o+w "$TMP/keys/k.pub"
	cp "$TMP/keys/k.pub" "$TMP/keys/good.pub"
	chmod 644 "$TMP/keys/good.pub"
	run -0 "$SHARNESS_EXEC" probe --trust-key "$TMP/keys/good.pub" --trust-key "$TMP/keys/k.pub"
	[[ $output == *"trusted key               $TMP/keys/good.pub $FP"* ]]
	[[ $output == *"trusted key               refused: key file $TMP/keys/k.pub: it is writable by group or others"* ]]
	run -0 "$SHARNESS_EXEC" probe --json --trust-key "$TMP/keys/good.pub" --trust-key "$TMP/keys/k.key"
	python3 -c '
import json, sys
keys = json.loads(sys.argv[1])["trusted_keys"]
assert [k["path"] for k in keys] == [sys.argv[2], sys.argv[3]], keys
assert keys[0]["fingerprint"] == sys.argv[4] and keys[0]["error"] is None, keys
assert keys[1]["fingerprint"] is None and "private key" in keys[1]["error"], keys
' "$output" "$TMP/keys/good.pub" "$TMP/keys/k.key" "$FP"
	run -0 "$SHARNESS_EXEC" probe --json
	[[ $output == *'"trusted_keys":[]}' ]]
}

@test "the front end holds no private-key code: keygen and sign exec sharness-exec-sign" {
	local f sym
	# BearSSL's signer, private-key decoder and key generator, and the
	# PEM name of a private key: in the signer, none in the front end.
	for sym in br_ecdsa_i31_sign_asn1 br_skey_decoder_push br_ec_keygen 'EC PRIVATE KEY'; do
		grep -q "$sym" "$HELPERDIR/sharness-exec-sign"
		for f in "$top_builddir/sharness-exec" "$SHARNESS_EXEC"; do
			! grep -q "$sym" "$f" || { echo "$f holds $sym"; return 1; }
		done
	done
	grep -q br_ecdsa_i31_vrfy_raw "$top_builddir/sharness-exec"
	# Without the signer, keygen and sign refuse in one line (and a
	# hint), and write nothing.
	keygen k
	local missing="sharness-exec: fatal: unable to execute /nonexistent/sharness-exec/sharness-exec-sign: No such file or directory"
	run -125 --separate-stderr "$top_builddir/test-sharness-exec-nohelpers" keygen -o "$TMP/keys/n"
	[ "${stderr_lines[0]}" = "$missing" ]
	[[ ${stderr_lines[1]} == hint:* && ${#stderr_lines[@]} = 2 ]]
	[ -z "$output" ]
	[ ! -e "$TMP/keys/n.key" ] && [ ! -e "$TMP/keys/n.pub" ]
	run -125 --separate-stderr "$top_builddir/test-sharness-exec-nohelpers" sign -k "$TMP/keys/k.key" "$POLICY"
	[ "${stderr_lines[0]}" = "$missing" ]
	[ ! -e "$POLICY.sig" ]
	# ... and so do verify and hash --canonical, the signer's too (issue
	# 28); run's own --trust-key check is the front end's (vrfy above).
	"$SHARNESS_EXEC" sign -k "$TMP/keys/k.key" "$POLICY" >/dev/null
	run -125 --separate-stderr "$top_builddir/test-sharness-exec-nohelpers" verify -K "$TMP/keys/k.pub" "$POLICY"
	[ "${stderr_lines[0]}" = "$missing" ] && [ -z "$output" ]
	run -125 --separate-stderr "$top_builddir/test-sharness-exec-nohelpers" hash --canonical "$POLICY"
	[ "${stderr_lines[0]}" = "$missing" ] && [ -z "$output" ]
	run -0 --separate-stderr "$HELPERDIR/sharness-exec-sign" verify -K "$TMP/keys/k.pub" "$POLICY"
	[ "${lines[2]}" = "key: $FP" ]
	# The signer on its own: the usage of its page, 125 without a command.
	run -0 --separate-stderr "$HELPERDIR/sharness-exec-sign" --help
	[ "${lines[0]}" = "usage: sharness-exec-sign keygen -o NAME" ]
	run -125 --separate-stderr "$HELPERDIR/sharness-exec-sign"
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: no command given" ]
	run -125 --separate-stderr "$HELPERDIR/sharness-exec-sign" check "$POLICY"
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: unknown command check" ]
}

@test "a private key given where a public key goes is refused, and nothing runs, with or without a signature" {
	require_feature landlock
	keygen k
	"$SHARNESS_EXEC" sign -k "$TMP/keys/k.key" "$POLICY" >/dev/null
	cp -p "$TMP/keys/k.key" "$TMP/saved.key"
	# Bare, the public key runs it: the refusals below can fail.
	run_signed --trust-key "$TMP/keys/k.pub"
	[ "$status" = 0 ] && [ -e "$MARK" ]
	rm "$MARK"
	refused "$SHARNESS_EXEC" run --trust-key "$TMP/keys/k.key" -p "$POLICY" -- touch "$MARK"
	[ "${stderr_lines[0]}" = "sharness-exec: fatal: refused: key file $TMP/keys/k.key: a private key, not a public key (give the .pub file)" ]
	refused "$SHARNESS_EXEC" verify -K "$TMP/keys/k.key" "$POLICY"
	[[ $stderr == *"a private key, not a public key"* ]]
	# The key among good ones still spoils the run; so it does with no
	# signature file at all, which is refused first.
	refused "$SHARNESS_EXEC" run --trust-key "$TMP/keys/k.pub" --trust-key "$TMP/keys/k.key" \
		-p "$POLICY" -- touch "$MARK"
	rm "$POLICY.sig"
	refused "$SHARNESS_EXEC" run --trust-key "$TMP/keys/k.key" -p "$POLICY" -- touch "$MARK"
	# The key file is as it was: read, never written.
	cmp "$TMP/keys/k.key" "$TMP/saved.key"
	[ "$(stat -c %a "$TMP/keys/k.key")" = 600 ]
}
