#!/bin/bash
# The install step of the GitHub Action (action.yml): builds sharness-exec
# from the action's own checkout, GITHUB_ACTION_PATH, which is the commit
# the workflow's `uses: OWNER/sharness-exec@COMMIT` names (no clone, no
# tag), in a copy of it under RUNNER_TEMP, and installs it in /usr/local
# with the Debian/Ubuntu packages the README's build needs. A second use of
# the same action in one job finds it installed and builds nothing.
set -euo pipefail
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH

# as_root CMD...: CMD as root, through sudo unless root already (a
# self-hosted runner).
as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"; else /usr/bin/sudo -n "$@"; fi
}

src=${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH is not set}
stamp=/usr/local/share/sharness-exec/action-path
if [ -x /usr/local/bin/sharness-exec ] && [ "$(cat "$stamp" 2>/dev/null)" = "$src" ]; then
	echo "sharness-exec-action: installed already, from $src"
	exit 0
fi
as_root apt-get update -qq
as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	build-essential autoconf automake pkg-config libbsd-dev libjsmn-dev libbearssl-dev musl-tools
build=$(mktemp -d "${RUNNER_TEMP:?RUNNER_TEMP is not set}/sharness-exec-build.XXXXXX")
cp -R "$src/." "$build/"
cd "$build"
autoreconf -fi
./configure --prefix=/usr/local
make -j"$(nproc)"
as_root make install
as_root mkdir -p "${stamp%/*}"
printf '%s\n' "$src" | as_root tee "$stamp" >/dev/null
# What this runner's kernel holds, in the log.
as_root /usr/local/bin/sharness-exec probe
