#!/usr/bin/env bats
# The README's install and test lines, as CI runs them (.ci/run's readme
# phase, through tests/helpers/readme-lines), and as a user with sudo runs
# them; the Debian package's sources against the install line and the
# release tarball; the test prerequisites make check names; the zsh
# completion's directory; and the README's first policy and first run,
# run as written.
# not tested here: dpkg-buildpackage itself (half a minute; CI's readme
# phase builds and installs the package, debian/tests runs hello and a
# confined run under autopkgtest); lintian.

load ../helpers/load

LINES="$top_srcdir/tests/helpers/readme-lines"
README="$top_srcdir/README.md"

line() { sh "$LINES" "$README" "$1"; }

# packages LINE: the packages of LINE's first `apt-get install -y`, one a
# line, sorted.
packages() {
	grep -o 'apt-get install -y [^&]*' <<<"$1" | head -n 1 | cut -d' ' -f4- | tr ' ' '\n' |
		sed '/^$/d' | LC_ALL=C sort
}

# build_depends: the packages of debian/control's Build-Depends, one a
# line, sorted, versions dropped.
build_depends() {
	awk '/^Build-Depends:/ { f = 1; sub(/^Build-Depends:/, ""); print; next }
		f && /^[ \t]/ { print; next } { f = 0 }' "$top_srcdir/debian/control" |
		tr ',' '\n' | sed 's/(.*)//; s/[[:space:]]//g; /^$/d' | LC_ALL=C sort
}

@test "the README's install and test lines are what CI runs; the sudo lines are the same with sudo" {
	local install test
	install=$(line install)
	test=$(line test)
	[[ $install == "apt-get update && apt-get install -y "* ]]
	[[ $install == *" && dpkg-buildpackage -us -uc -b && apt-get install -y ../sharness-exec_*.deb && sharness-exec hello" ]]
	[[ $test == "apt-get install -y "*" && make check" ]]
	[[ $install$test != *sudo* ]]
	# Each apt-get of the sudo lines, and nothing else, under sudo.
	run -0 line install-sudo
	[ "$output" = "$(sed 's/apt-get /sudo apt-get /g' <<<"$install")" ]
	run -0 line test-sudo
	[ "$output" = "$(sed 's/apt-get /sudo apt-get /g' <<<"$test")" ]
	# CI takes those two lines through the same script (.ci is not in the
	# release tarball).
	if [ -f "$top_srcdir/.ci/run" ]; then
		grep -qF 'install_line=$(sh "$top/tests/helpers/readme-lines" "$top/README.md" install)' "$top_srcdir/.ci/run"
		grep -qF 'test_line=$(sh "$top/tests/helpers/readme-lines" "$top/README.md" test)' "$top_srcdir/.ci/run"
	fi
	# The script finds the first line beneath its heading, not a later one.
	printf '%s\n' '# t' '## Install' '' '    one' '' '    two' '## Run the tests' '    three' '    four' \
		'### deeper' '    five' >"$TMP/R.md"
	run -0 sh "$LINES" "$TMP/R.md" install
	[ "$output" = one ]
	run -0 sh "$LINES" "$TMP/R.md" install-sudo
	[ "$output" = two ]
	run -0 sh "$LINES" "$TMP/R.md" test-sudo
	[ "$output" = four ]
}

@test "debian/control's Build-Depends are the install line's build packages; no test package is on it" {
	local install want have
	install=$(line install)
	# build-essential is implied in Build-Depends; debhelper provides
	# debhelper-compat.
	want=$(packages "$install" | grep -vxE 'build-essential|debhelper')
	have=$(build_depends | grep -vx 'debhelper-compat')
	[ -n "$want" ]
	diff <(echo "$want") <(echo "$have")
	packages "$install" | grep -qx debhelper
	build_depends | grep -qx debhelper-compat
	# The test line's packages stay off the install line.
	[ -z "$(LC_ALL=C comm -12 <(packages "$install") <(packages "$(line test)"))" ]
	[ -n "$(packages "$(line test)")" ]
}

@test "every file of debian/ is in the release tarball (EXTRA_DIST)" {
	local listed present
	listed=$(tr ' \t\\' '\n\n\n' <"$top_srcdir/Makefile.am" | grep '^debian/' | LC_ALL=C sort)
	# What dpkg-buildpackage leaves in a tree it built in is not a source.
	present=$(cd "$top_srcdir" && find debian -type f \
		! -path 'debian/.debhelper/*' ! -path 'debian/sharness-exec/*' \
		! -name files ! -name '*.substvars' ! -name debhelper-build-stamp \
		! -name '*.debhelper' ! -name '*.log' ! -name 'autoreconf.*' | LC_ALL=C sort)
	[ -n "$present" ]
	diff <(echo "$listed") <(echo "$present")
	[ -x "$top_srcdir/debian/rules" ]
}

@test "make check names what it lacks: bats stops it, another package is named with the tests that skip" {
	local test pkg
	# The prerequisite check runs before any test (a check_SCRIPTS target).
	grep -qx 'check_SCRIPTS = check-prereqs' "$top_srcdir/Makefile.am"
	# Every package of the README's test line but bats is one it looks for.
	test=$(line test)
	for pkg in $(packages "$test"); do
		[ "$pkg" = bats ] && continue
		grep -q "^$pkg " "$top_srcdir/tests/prereqs.sh" || { echo "not looked for: $pkg"; return 1; }
	done
	# A PATH with the shell's tools and nothing else.
	mkdir "$TMP/bin"
	for t in sh sort sed tr; do ln -s "$(command -v "$t")" "$TMP/bin/$t"; done
	run -1 --separate-stderr env PATH="$TMP/bin" sh "$top_srcdir/tests/prereqs.sh" "$TMP/bin/bats"
	[ "$stderr" = "make check: bats is not installed, and every test file needs it (Debian: apt-get install bats)" ]
	printf '#!/bin/sh\n' >"$TMP/bin/bats"
	chmod 755 "$TMP/bin/bats"
	run -0 --separate-stderr env PATH="$TMP/bin" sh "$top_srcdir/tests/prereqs.sh" bats
	[ "${#stderr_lines[@]}" = 1 ]
	[[ $stderr == "make check: not installed: python3 mandoc golang-go "* ]]
	[[ $stderr == *"tests/man.bats"* ]] && [[ $stderr == *"tests/sign.bats"* ]]
	[[ $stderr == *"(Debian: apt-get install python3 mandoc golang-go "* ]]
	# With everything there it says nothing.
	run -0 --separate-stderr sh -c 'PATH=$1:$PATH; for p in python3 mandoc go openssl strace zsh fish meson ninja cargo cmake node chromium psql redis-server curl; do
		printf "#!/bin/sh\n" >"$1/$p"; chmod 755 "$1/$p"; done
		sh "$2" bats' sh "$TMP/bin" "$top_srcdir/tests/prereqs.sh"
	if [ -e /usr/lib/python3.11/test/test_socketserver.py ] && [ -e /usr/share/bash-completion/bash_completion ]; then
		[ -z "$stderr" ]
	fi
}

@test "the zsh completion goes where zsh looks: vendor-completions for /usr, site-functions elsewhere" {
	require_feature tool:zsh
	local prefix dir fpath
	prefix=$(sed -n 's/^prefix = //p' "$top_builddir/Makefile")
	dir=$(sed -n 's/^ZSH_COMPLETION_DIR = //p' "$top_builddir/Makefile")
	dir=${dir//'${datadir}'/$prefix/share}
	if [ "$prefix" = /usr ]; then
		[ "$dir" = /usr/share/zsh/vendor-completions ]
	else
		[ "$dir" = "$prefix/share/zsh/site-functions" ]
	fi
	# Debian's zsh searches both: its own for /usr, zsh's for /usr/local.
	fpath=$(zsh -f -c 'print -l $fpath')
	grep -qx /usr/share/zsh/vendor-completions <<<"$fpath"
	grep -qx /usr/local/share/zsh/site-functions <<<"$fpath"
	case $prefix in /usr | /usr/local) grep -qx "$dir" <<<"$fpath" ;; esac
}

# first_run MODE: the README's "A first policy" and "The first run", their
# shell blocks run as written by MODE (root or nobody) in a home of its own.
first_run() {
	local script="$TMP/first.sh"
	awk '/^## A first policy/ || /^## The first run/ { f = 1 }
		/^## / && !/^## A first policy/ && !/^## The first run/ { f = 0 }
		f && /^```sh$/ { c = 1; next } c && /^```$/ { c = 0; next } c' "$README" >"$script"
	grep -q 'sharness-exec check ~/first.json' "$script"
	grep -q 'sharness-exec run -p ~/first.json' "$script"
	mkdir -m 755 "$TMP/home" "$TMP/shim"
	ln -s "$SHARNESS_EXEC" "$TMP/shim/sharness-exec"
	[ "$1" = root ] || chown "$NOBODY_UID:$NOBODY_GID" "$TMP/home"
	chmod 755 "$script"
	run --separate-stderr as "$1" env -i HOME="$TMP/home" PATH="$TMP/shim:/usr/bin:/bin" bash -e "$script"
	echo "status $status; stdout:"$'\n'"$output"$'\n'"stderr:"$'\n'"$stderr"
	# Below Landlock ABI 9 the front end's socket scan refuses a read path
	# with a socket listening beneath it, /dev named whole too, though the
	# view builds the run's /dev afresh: the state of this host, not of the
	# README (reported in issue 42's notes).
	if [ "$status" = 126 ] && [[ $stderr == *"no socket listening beneath read or exec paths: \"/dev/"* ]]; then
		not_here host-dev-listener "a socket listens beneath /dev on this host, and the socket scan refuses /dev named whole: ${stderr_lines[-1]}"
	fi
}

# first_run_held: what the README says the first run prints, each line,
# and nothing written outside ~/first.
first_run_held() {
	local want
	[ "$(cat "$TMP/home/first/kept.txt")" = kept ]
	[ ! -e "$TMP/home/lost.txt" ]
	[[ $output == *"first.json: valid pbp 1 policy \"first\""* ]]
	while IFS= read -r want; do
		want=${want#    }
		want=${want//\/root/$TMP/home}
		[[ "$output"$'\n'"$stderr" == *"$want"* ]] || { echo "missing: $want"; return 1; }
	done < <(awk '/^## The first run/ { f = 1 } f && /^prints$/ { p = 1; next }
		p && /^    / { print } p && /^\(/ { exit }' "$README")
}

@test "the README's first policy and first run work as written (root)" {
	need root
	first_run root
	# The last command is the ls of a file that must not be there.
	[ "$status" = 2 ]
	first_run_held
}

@test "the README's first policy and first run work as written (nobody)" {
	need nobody
	first_run nobody
	[ "$status" = 2 ]
	first_run_held
}

# Each installed program built static (no program interpreter) has its
# lintian override, with its installed path: the egress step, static since
# issue 40, had none, and lintian said statically-linked-binary.
@test "debian: every static program the package installs has its lintian override" {
	local p path n=0
	require_feature static-front-end	# the build the package makes
	for p in $(bash "$BATS_TEST_DIRNAME/../helpers/shape.sh" "$top_srcdir" programs); do
		[ -x "$top_builddir/$p" ] || continue
		readelf -l "$top_builddir/$p" | grep -q 'program interpreter' && continue
		case $p in
		sharness-exec) path=usr/bin/$p ;;
		*) path=usr/libexec/sharness-exec/$p ;;
		esac
		grep -qxF "statically-linked-binary [$path]" "$top_srcdir/debian/sharness-exec.lintian-overrides" ||
			{ echo "no override for $path"; false; }
		n=$((n + 1))
	done
	[ "$n" -ge 9 ]	# the chain's steps and the front end at least
}
