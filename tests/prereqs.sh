#!/bin/sh
# tests/prereqs.sh BATS: what `make check` needs that the build does not, said
# before any test runs (README.md, "Run the tests"). Without bats nothing can
# run: one line naming the package, and exit 1. Without one of the others
# the tests that need it skip, each with its reason (or fail, under
# SHARNESS_EXEC_MUST_WORK=1): one line naming the missing packages and the
# test files that will skip, and exit 0.
bats=${1:-bats}
if ! command -v "$bats" >/dev/null 2>&1; then
	echo "make check: bats is not installed, and every test file needs it (Debian: apt-get install bats)" >&2
	exit 1
fi
# PACKAGE WHAT-TO-LOOK-FOR TEST-FILES: a command name, or an absolute path.
missing= skipping=
while read -r pkg what files; do
	case $pkg in '#'*|'') continue ;; esac
	case $what in
	/*) [ -e "$what" ] && continue ;;
	*) command -v "$what" >/dev/null 2>&1 && continue ;;
	esac
	missing="$missing $pkg"
	skipping="$skipping $files"
done <<'LIST'
python3 python3 chain examples hello landlock launch-freeze launch-run learn netns probe seccomp
python3-pip /usr/lib/python3/dist-packages/pip egresstools
mandoc mandoc man
golang-go go clients examples launch-run learn-clients learn realsuites svid
libpython3.11-testsuite /usr/lib/python3.11/test/test_socketserver.py clients learn-clients
openssl openssl sign
strace strace chain trust
bash-completion /usr/share/bash-completion/bash_completion completion
zsh zsh completion install
fish fish completion install
meson meson examples learn
ninja-build ninja examples learn
cargo cargo examples learn
cmake cmake examples
nodejs node web
chromium chromium web
postgresql psql launch-share launch-tls
redis-server redis-server launch-tls
curl curl launch-daily launch-tls
LIST
[ -n "$missing" ] || exit 0
skipping=$(printf '%s\n' $skipping | sort -u | sed 's|.*|tests/&.bats|' | tr '\n' ' ')
echo "make check: not installed:$missing; some tests of ${skipping% } will skip (Debian: apt-get install$missing)" >&2
exit 0
