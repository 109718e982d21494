#!/usr/bin/env bats
# The write-path bench (bench/writepath.sh, issue 38) inside a kernel-matrix
# guest, for a Landlock ABI (9 or later: RESOLVE_UNIX holds the sockets)
# that the host may lack. NOT part of the suite: it is in neither TESTS
# (make check) nor tests/kernels/subset (the matrix), so no CI runs it. Run
# it by hand, one guest (as root, what tests/kernels/run needs):
#
#   bash tests/kernels/run -j1 -k trixie-backports:newest \
#       -t tests/kernels/bench-writepath.bats SRCDIR BUILDDIR
#
# In one interleaved run (bench/interleave, RUNS rounds, default 30):
# `/bin/true` under a policy writing 10 and 100,000 entries on a nosuid
# tmpfs, with "write_vcs": true and without, beside bwrap binding the same
# tree (the guest shares the host's root: bwrap is there if the host has
# it; if not, the bench runs without and says so) and the listing's floor.
# The figures and their ratios come out as TAP comments. No timing is
# asserted (TCG, a shared host): only that the bench ran, and that run
# --report says the nosuid write path with write_vcs was not walked, and
# why, and without write_vcs was listed once with no look at set-id (for
# VCS metadata).
load ../helpers/load

setup() {
	setup_tmp
}

teardown() {
	teardown_tmp
}

# report FILE: each write path as "PATH WALKED ENTRIES SETID_LOOKED_FOR
# HELD WHY_NOT".
report() {
	python3 - "$1" <<'EOF'
import json, sys
for p in json.load(open(sys.argv[1]))["write_paths"]:
    held = p["held"] and "%(setid)d/%(vcs)d/%(unlisted)d" % p["held"]
    print(p["path"], p["walked"], p["entries"], p["setid_looked_for"], held, p["why_not"])
EOF
}

@test "a nosuid write path with write_vcs: --report says it was not walked, and why; without write_vcs, listed with no look at set-id (root, ABI 9)" {
	need root
	require_feature landlock-abi:9
	require_feature tool:unshare
	mkdir "$TMP/n"
	local vcs
	for vcs in true false; do
		chain_policy bench '"none"' '"/etc"' '"'"$TMP/n"'"' '' '' ',"write_vcs":'"$vcs"
		mv "$TMP/p.json" "$TMP/p-$vcs.json"
	done
	# 1,000 files and a set-uid one, on a tmpfs mounted nosuid in a mount
	# namespace of the test's own (its one mount)
	run -0 --separate-stderr unshare -m sh -c '
		mount --make-rprivate / && mount -t tmpfs -o nosuid tmpfs "$1" &&
		cp "$2" "$1/suid" && chmod 4755 "$1/suid" &&
		python3 -c "import os, sys
for i in range(1000): os.close(os.open(f\"{sys.argv[1]}/f{i}\", os.O_CREAT | os.O_WRONLY, 0o644))" "$1" &&
		"$3" run --verbose --report "$4/r-true.json" -p "$4/p-true.json" -- true &&
		exec "$3" run --verbose --report "$4/r-false.json" -p "$4/p-false.json" -- true
	' sh "$TMP/n" "$TRYDIR/try-syscall" "$SHARNESS_EXEC" "$TMP"
	[[ "$stderr" == *"sharness-exec-view: write path $TMP/n: not walked: nosuid wherever its file system is mounted, sockets held by Landlock (ABI 9), VCS metadata writable (-V)"* ]]
	[[ "$stderr" == *"sharness-exec-view: write path $TMP/n: 1001 entries walked in "*" ms, set-id not looked for (nosuid wherever its file system is mounted)"* ]]
	run -0 report "$TMP/r-true.json"
	[ "$output" = "$TMP/n False None False 0/0/0 nosuid wherever its file system is mounted, sockets held by Landlock (ABI 9), VCS metadata writable (-V)" ]
	run -0 report "$TMP/r-false.json"
	[ "$output" = "$TMP/n True 1001 False 0/0/0 None" ]
}

@test "bench/writepath.sh: 10 and 100,000 entries on a nosuid tmpfs, with write_vcs and without, beside bwrap (root; figures as TAP comments, no timing asserted)" {
	need root
	local nobwrap=
	if ! command -v bwrap >/dev/null; then
		nobwrap=1
		echo "# bwrap is not in this guest: the bench runs without it" >&3
	fi
	echo "# $(uname -r), Landlock ABI $(landlock_abi), $(nproc) CPU; RUNS=${RUNS:-30}" >&3
	run -0 --separate-stderr env BENCH_INTERLEAVE=1 BENCH_NO_BWRAP=$nobwrap RUNS="${RUNS:-30}" \
		WRITEPATH_FS=tmpfs WRITEPATH_SIZES="10 100000" WRITEPATH_VCS=1 \
		bash "$top_srcdir/bench/writepath.sh" "$top_builddir"
	printf '# %s\n' "${lines[@]}" >&3
	[[ "$output" == *"aim: nosuid tmpfs at 100000 with write_vcs: "* ]]
}
