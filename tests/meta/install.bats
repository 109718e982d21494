#!/usr/bin/env bats
# make install and make uninstall, from a build configured afresh with
# --prefix: the front end in bindir, the helpers in libexecdir/sharness-exec,
# the pages in mandir, each completion where its shell looks; the
# installed front end finds its installed helpers; uninstall leaves no
# file; a DESTDIR install lays out the same files.
# not tested: --with-*-completion-dir=no and other directory options; an
# install into the system's own prefix; install as a user other than the
# one who built.

load ../helpers/load

# The files an install must put beneath the prefix; anything else it
# installs must lie in one of the ALLOWED directories.
ALLOWED='^(bin/sharness-exec|libexec/sharness-exec/.*|share/man/man[15]/sharness-exec.*|share/doc/sharness-exec/.*|share/bash-completion/completions/sharness-exec|share/fish/vendor_completions\.d/sharness-exec\.fish|share/zsh/site-functions/_sharness-exec)$'
LAYOUT='bin/sharness-exec
libexec/sharness-exec/sharness-exec-landlock
libexec/sharness-exec/sharness-exec-learn
libexec/sharness-exec/sharness-exec-limits
libexec/sharness-exec/sharness-exec-listen
libexec/sharness-exec/sharness-exec-netns
libexec/sharness-exec/sharness-exec-sign
libexec/sharness-exec/sharness-exec-supervise
libexec/sharness-exec/sharness-exec-view
share/bash-completion/completions/sharness-exec
share/fish/vendor_completions.d/sharness-exec.fish
share/man/man1/sharness-exec-landlock.1
share/man/man1/sharness-exec-learn.1
share/man/man1/sharness-exec-limits.1
share/man/man1/sharness-exec-listen.1
share/man/man1/sharness-exec-netns.1
share/man/man1/sharness-exec-sign.1
share/man/man1/sharness-exec-supervise.1
share/man/man1/sharness-exec-view.1
share/man/man1/sharness-exec.1
share/man/man5/sharness-exec-policy.5
share/zsh/site-functions/_sharness-exec'

# make, without what an enclosing `make check` passes down (its MAKEFLAGS
# carries TESTS=... and the like).
submake() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES -u DESTDIR make "$@"
}

setup_file() {
	# One build for every test of this file, configured for its own prefix
	# (the helpers' directory is fixed at build time).
	export BUILD="$BATS_FILE_TMPDIR/build" PREFIX="$BATS_FILE_TMPDIR/prefix"
	local src=$top_srcdir
	mkdir -p "$BUILD"
	# A source tree configured in place (the README's `./configure &&
	# make`) refuses a second, out-of-tree build ("source directory
	# already configured"): build from a clean copy of it, the files a
	# release tarball holds.
	if [ -e "$top_srcdir/config.status" ]; then
		src="$BATS_FILE_TMPDIR/src"
		submake -C "$top_builddir" distdir distdir="$src" >"$BUILD/distdir.out" 2>&1 || {
			tail -40 "$BUILD/distdir.out" >&2
			return 1
		}
	fi
	cd "$BUILD"
	"$src/configure" --prefix="$PREFIX" >configure.out 2>&1 || {
		cat configure.out >&2
		return 1
	}
	submake -j2 >make.out 2>&1 || {
		tail -40 make.out >&2
		return 1
	}
}

# files DIR: every file and symbolic link beneath DIR, relative, sorted.
files() {
	(cd "$1" && find . \( -type f -o -type l \) | sed 's|^\./||' | LC_ALL=C sort)
}

# layout_ok LIST: LIST holds every file of LAYOUT, and nothing outside
# the ALLOWED places.
layout_ok() {
	local missing stray
	missing=$(LC_ALL=C comm -23 <(echo "$LAYOUT") <(echo "$1"))
	stray=$(grep -vE "$ALLOWED" <<<"$1" || true)
	echo "missing: $missing"$'\n'"stray: $stray"
	[ -z "$missing" ] && [ -z "$stray" ]
}

@test "make install puts each file where it belongs, nothing astray" {
	run -0 submake -C "$BUILD" install
	run -0 files "$PREFIX"
	layout_ok "$output"
	[ -x "$PREFIX/bin/sharness-exec" ]
	for h in netns supervise limits view landlock; do
		[ -x "$PREFIX/libexec/sharness-exec/sharness-exec-$h" ]
	done
	run -0 submake -C "$BUILD" uninstall
}

@test "the installed sharness-exec runs its installed helpers: hello holds" {
	require_feature landlock
	run -0 submake -C "$BUILD" install
	run -0 --separate-stderr "$PREFIX/bin/sharness-exec" --version
	[[ $output == "sharness-exec "[0-9]* ]]
	# keygen is the installed sharness-exec-sign's.
	run -0 --separate-stderr "$PREFIX/bin/sharness-exec" keygen -o "$TMP/k"
	[[ $output == sha256:* ]] && [ -s "$TMP/k.pub" ]
	# The dry run names the installed helpers, by absolute path.
	write_policy "$TMP/p.json" '{"pbp": 1, "id": "i", "network": "none", "process": {"no_new_privs": true, "max_pids": 8}}'
	run -0 --separate-stderr "$PREFIX/bin/sharness-exec" run -n -p "$TMP/p.json" -- true
	[[ ${lines[0]} == "$PREFIX/libexec/sharness-exec/sharness-exec-netns "* ]]
	[[ ${lines[1]} == "$PREFIX/libexec/sharness-exec/sharness-exec-supervise "* ]]
	[[ ${lines[2]} == "$PREFIX/libexec/sharness-exec/sharness-exec-limits "* ]]
	[[ ${lines[3]} == "$PREFIX/libexec/sharness-exec/sharness-exec-view "* ]]
	[[ ${lines[4]} == "$PREFIX/libexec/sharness-exec/sharness-exec-landlock "* ]]
	run -0 --separate-stderr "$PREFIX/bin/sharness-exec" hello
	[[ $output == *"6/6 held"* ]]
	run -0 submake -C "$BUILD" uninstall
}

@test "without its helpers, the installed front end refuses with 125" {
	run -0 submake -C "$BUILD" install
	rm "$PREFIX/libexec/sharness-exec/sharness-exec-landlock"
	# a command the policy shows: a hidden one is refused (127) first
	write_policy "$TMP/p.json" '{"pbp": 1, "id": "i", "files": {"exec": ["/usr"]}, "network": "none", "process": {"no_new_privs": true}}'
	run -125 --separate-stderr "$PREFIX/bin/sharness-exec" run -p "$TMP/p.json" -- /usr/bin/true
	[[ $stderr == *"$PREFIX/libexec/sharness-exec/sharness-exec-landlock"* ]]
	run -0 submake -C "$BUILD" uninstall
}

@test "each shell finds its installed completion, man finds the pages" {
	run -0 submake -C "$BUILD" install
	if [ -e /usr/share/bash-completion/bash_completion ]; then
		run -0 bash --norc --noprofile -c '
			XDG_DATA_DIRS=$1/share
			source /usr/share/bash-completion/bash_completion
			__load_completion sharness-exec && complete -p sharness-exec' bash "$PREFIX"
		[[ $output == *"-F _sharness_exec sharness-exec"* ]]
	elif [ "${SHARNESS_EXEC_MUST_WORK:-0}" = 1 ]; then
		echo "bash-completion is not installed" >&2
		return 1
	fi
	if command -v zsh >/dev/null; then
		# zsh's own place beneath a prefix other than /usr (Debian's zsh
		# searches /usr/local/share/zsh/site-functions).
		run -0 zsh -f -c "fpath=('$PREFIX/share/zsh/site-functions' \$fpath)
			autoload -U compinit; compinit -u -d '$TMP/zcompdump'
			print -r -- \$_comps[sharness-exec]"
		[ "$output" = _sharness-exec ]
	fi
	if command -v fish >/dev/null; then
		mkdir "$TMP/fishhome"
		# fish loads the completion of a command it finds in PATH.
		run -0 env HOME="$TMP/fishhome" XDG_DATA_DIRS="$PREFIX/share" \
			PATH="$PREFIX/bin:$PATH" fish -c 'complete -C "sharness-exec r"'
		[[ $output == run* ]]
	fi
	if command -v man >/dev/null; then
		run -0 man -M "$PREFIX/share/man" -w sharness-exec-policy
		[ "$output" = "$PREFIX/share/man/man5/sharness-exec-policy.5" ]
		run -0 man -M "$PREFIX/share/man" -w 1 sharness-exec
		[ "$output" = "$PREFIX/share/man/man1/sharness-exec.1" ]
	fi
	run -0 submake -C "$BUILD" uninstall
}

@test "make uninstall leaves no file behind" {
	run -0 submake -C "$BUILD" install
	run -0 files "$PREFIX"
	[ -n "$output" ]
	run -0 submake -C "$BUILD" uninstall
	run -0 files "$PREFIX"
	[ -z "$output" ]
}

@test "a DESTDIR install lays out the same files beneath DESTDIR" {
	run -0 submake -C "$BUILD" install DESTDIR="$TMP/stage"
	run -0 files "$TMP/stage$PREFIX"
	local staged=$output
	layout_ok "$staged"
	# The same files as a plain install, nothing beside the prefix, and
	# nothing in the prefix itself.
	run -0 submake -C "$BUILD" install
	run -0 files "$PREFIX"
	[ "$output" = "$staged" ]
	run -0 submake -C "$BUILD" uninstall
	run -0 files "$TMP/stage"
	[ "$output" = "$(sed "s|^|${PREFIX#/}/|" <<<"$staged")" ]
	[ ! -e "$PREFIX/bin/sharness-exec" ]
	run -0 submake -C "$BUILD" uninstall DESTDIR="$TMP/stage"
	run -0 files "$TMP/stage"
	[ -z "$output" ]
}
