#!/usr/bin/env bash
# The shape of the sources, as issue 15 budgets it (tests/meta/shape.bats):
#
#   shape.sh TOP files PROGRAM   the .c and .h files linked into PROGRAM: its
#                                own _SOURCES, then those of the libraries
#                                its _LDADD names, from TOP/Makefile.am
#   shape.sh TOP lines PROGRAM   "OWN LINKED": wc -l of its own files, and of
#                                all the files it links
#   shape.sh TOP longest FILE    "LINES NAME" of FILE's longest function
#   shape.sh TOP table           a row per installed program: own and linked
#                                lines
#   shape.sh TOP sources         the house: every .c and .h file that an
#                                installed program or a library links, once
#   shape.sh TOP programs        the installed programs, a line each
#   shape.sh TOP own PROGRAM     PROGRAM's own .c and .h files (its
#                                _SOURCES, its libraries' aside)
#   shape.sh TOP code FILE...     the code lines of FILEs: lines that hold
#                                something besides comments and blanks
#   shape.sh TOP budget PROGRAM  the code lines of PROGRAM's own files
#   shape.sh TOP runpath PROG... the code lines of every file any of PROGs
#                                links, each file once: what a run of
#                                those programs executes
#   shape.sh TOP edges BUILD [OBJECT...]
#                                "A.o B.o SYMBOL": A uses SYMBOL, which B alone
#                                defines among the objects of one program or
#                                library built in BUILD (its own and those of
#                                the libraries it links), for each program
#                                installed and each library; or among the
#                                OBJECTs given. progname is passed over: each
#                                program's main file defines it for the
#                                libraries (common.h), by design the one use
#                                that goes up.
#
# Makefile.am: continuation lines are joined, `VAR = ...` and `VAR += ...`
# collected (a line with a ':' before its '=' is a target's own variable and
# is passed over), $(VAR) expanded recursively; $(LIBBSD_LIBS) and the like
# name no source and expand to nothing.
#
# The function scan is a brace-depth count: comments, string and character
# literals and preprocessor lines are skipped; a function is a '{' alone at
# the start of a line at depth 0 (the style of every file here) up to its
# matching '}', and its length counts both brace lines and everything
# between, its name is that of the last identifier before '(' on the lines
# before the '{'.
set -euo pipefail

top=$1
cmd=$2
shift 2

vars() {
	sed -e ':a' -e '/\\$/{N;s/\\\n/ /;ba' -e '}' "$top/Makefile.am" |
		awk '/^[ \t]*#/ { next }
		{ eq = index($0, "="); if (!eq) next
		  lhs = substr($0, 1, eq - 1); rhs = substr($0, eq + 1)
		  if (index(lhs, ":")) next
		  add = sub(/\+$/, "", lhs); gsub(/[ \t]/, "", lhs)
		  if (lhs !~ /^[A-Za-z_][A-Za-z0-9_]*$/) next
		  print lhs "\t" (add ? "+" : "=") "\t" rhs }'
}

# expand WORDS...: $(VAR) replaced by its value, recursively.
declare -A VAL
load_vars() {
	local name op rhs
	while IFS=$'\t' read -r name op rhs; do
		if [ "$op" = + ]; then VAL[$name]="${VAL[$name]:-} $rhs"; else VAL[$name]=$rhs; fi
	done < <(vars)
}
expand() {
	local w out=() v
	for w in $*; do
		if [[ $w =~ ^\$\(([A-Za-z0-9_]+)\)$ ]]; then
			v=${BASH_REMATCH[1]}
			out+=($(expand "${VAL[$v]:-}"))
		else
			out+=("$w")
		fi
	done
	printf '%s\n' "${out[@]}"
}

canon() { tr -- '-./' '___' <<<"$1"; }

own_files() {
	local p
	p=$(canon "$1")
	expand "${VAL[${p}_SOURCES]:-}" | grep -E '\.(c|h)$' || true
}

files() {
	local lib
	own_files "$1"
	for lib in $(expand "${VAL[$(canon "$1")_LDADD]:-}"); do
		[[ $lib == *.a ]] || continue
		own_files "$lib"
	done
}

count() { # FILES on stdin: total lines
	local total=0 f
	while read -r f; do
		[ -n "$f" ] || continue
		total=$((total + $(wc -l <"$top/$f")))
	done
	echo "$total"
}

# code: the code lines of the files named on stdin (relative to TOP):
# block and line comments and blank lines are not counted; a comment
# marker inside a string literal is taken as one (none in the house).
code() {
	local f
	while read -r f; do [ -n "$f" ] && echo "$top/$f"; done | xargs -r awk '
	{
		line = $0; out = ""
		while (line != "") {
			if (inc) {
				e = index(line, "*/")
				if (!e) { line = ""; break }
				line = substr(line, e + 2); inc = 0; continue
			}
			b = index(line, "/*"); l = index(line, "//")
			if (l && (!b || l < b)) { out = out substr(line, 1, l - 1); line = ""; break }
			if (!b) { out = out line; line = ""; break }
			out = out substr(line, 1, b - 1); line = substr(line, b + 2); inc = 1
		}
		if (out ~ /[^ \t]/) n++
	}
	END { print n + 0 }'
}

longest() {
	awk '
	function strip(s,   out, i, c, n) {
		out = ""; n = length(s)
		for (i = 1; i <= n; i++) {
			c = substr(s, i, 1)
			if (incomment) {
				if (c == "*" && substr(s, i + 1, 1) == "/") { incomment = 0; i++ }
				continue
			}
			if (quote != "") {
				if (c == "\\") { i++; continue }
				if (c == quote) quote = ""
				continue
			}
			if (c == "/" && substr(s, i + 1, 1) == "*") { incomment = 1; i++; continue }
			if (c == "/" && substr(s, i + 1, 1) == "/") break
			if (c == "\"" || c == "\x27") { quote = c; continue }
			out = out c
		}
		return out
	}
	{
		line = $0
		if (!incomment && (cont || line ~ /^[ \t]*#/)) {
			cont = line ~ /\\$/
			next
		}
		code = strip(line)
		if (depth == 0 && line ~ /^\{/) { start = NR; fname = last }
		if (depth == 0 && match(code, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
			last = substr(code, RSTART, RLENGTH); sub(/[ \t]*\($/, "", last)
		}
		n = gsub(/\{/, "{", code); depth += n
		n = gsub(/\}/, "}", code); depth -= n
		if (depth == 0 && start && line ~ /^\}/) {
			if (NR - start + 1 > best) { best = NR - start + 1; bestname = fname }
			start = 0
		}
	}
	END { print best + 0, (bestname == "" ? "-" : bestname) }' "$1"
}

programs() {
	expand "${VAL[bin_PROGRAMS]:-} ${VAL[pkglibexec_PROGRAMS]:-} ${VAL[signexec_PROGRAMS]:-} ${VAL[learnexec_PROGRAMS]:-} ${VAL[launchexec_PROGRAMS]:-}"
}

# objects BUILD TARGET: the objects of TARGET's own .c files in BUILD, as
# automake names them (subdir-objects: beside the source; with the
# target's own flags, prefixed with its canonical name).
objects() {
	local src base dir o
	for src in $(own_files "$2" | grep '\.c$'); do
		base=${src##*/} base=${base%.c} dir=
		[[ $src == */* ]] && dir=${src%/*}/
		for o in "$1/$dir$(canon "$2")-$base.o" "$1/$dir$base.o"; do
			[ -f "$o" ] && { echo "$o"; break; }
		done
	done
}

# edges BUILD OBJECT...: "A B SYMBOL" for each global SYMBOL that A leaves
# undefined and B alone of them defines (B other than A), names relative
# to BUILD.
edges() {
	local b=$1
	shift
	for o in "$@"; do
		nm -g --defined-only "$o" | awk -v o="${o#"$b"/}" 'NF == 3 { print "D", o, $3 }'
		nm -g --undefined-only "$o" | awk -v o="${o#"$b"/}" 'NF == 2 { print "U", o, $2 }'
	done | awk '$1 == "D" { n[$3]++; by[$3] = $2; next }
		$3 != "progname" { use[++m] = $2 " " $3 }
		END { for (i = 1; i <= m; i++) { split(use[i], u, " ")
			if (n[u[2]] == 1 && by[u[2]] != u[1]) print u[1], by[u[2]], u[2] } }'
}

[ ! -f "$top/Makefile.am" ] || load_vars
case $cmd in
files) files "$1" | awk '!seen[$0]++' ;;
lines) echo "$(own_files "$1" | count) $(files "$1" | awk '!seen[$0]++' | count)" ;;
longest) longest "$1" ;;
table)
	for p in $(programs); do
		printf '%-28s %s\n' "$p" "$(bash "$0" "$top" lines "$p")"
	done
	;;
programs) programs ;;
own) own_files "$1" ;;
code) printf '%s\n' "$@" | code ;;
budget) own_files "$1" | code ;;
runpath)
	for p in "$@"; do files "$p"; done | awk '!seen[$0]++' | code
	;;
sources)
	for p in $(programs) $(expand "${VAL[noinst_LIBRARIES]:-}"); do
		own_files "$p"
	done | LC_ALL=C sort -u
	;;
edges)
	[ $# -gt 1 ] && { edges "$@"; exit; }
	for p in $(programs) $(expand "${VAL[noinst_LIBRARIES]:-}"); do
		mapfile -t objs < <(objects "$1" "$p"
			for lib in $(expand "${VAL[$(canon "$p")_LDADD]:-}"); do
				[[ $lib == *.a ]] && objects "$1" "$lib"
			done)
		[ "${#objs[@]}" -gt 0 ] || { echo "shape.sh: no objects of $p in $1" >&2; exit 1; }
		edges "$1" "${objs[@]}"
	done | awk '!seen[$0]++'
	;;
*) echo "shape.sh: unknown command $cmd" >&2; exit 2 ;;
esac
