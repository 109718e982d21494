#!/bin/sh
# A CI script that runs the steps it does not trust confined, by prefixing
# them with `confined`: the code under test gets no network, writes only
# beneath /tmp/examples and a private /tmp, and never sees the script's secrets (CI_TOKEN below), since
# only an allow-list of variables crosses into the confinement.
# After changing policy.json, pin its new hash: sharness-exec hash policy.json
set -eu
here=$(cd "$(dirname "$0")" && pwd)

confined() {
	sharness-exec run --policy "$here/policy.json" \
		--expect-hash sha256:ebcac3dbddcd76442f6d905b030295311966e09596b5e3b35e4a3d70a4ceae92 -- "$@"
}

# Trusted steps run as they are: they may use the secret.
: "${CI_TOKEN:=secret-$$}"
export CI_TOKEN

# Untrusted steps: whatever the code under test does.
confined sh "$here/tests.sh"
echo "ci.sh: all tests passed"
