# What tests/front/learn.bats and tests/real/learn-clients.bats share. Loaded after
# helpers/load.

# setup_project: PROJ, a project directory for learn to run in, and
# OUTSIDE, for a HOME outside it (never granted), both 0755 beneath
# /var/tmp: outside /tmp, so that /tmp may become a tmpfs of the run's own
# (a tmpfs may not hold the cwd, which the draft writes).
setup_project() {
	PROJ=$(mktemp -d /var/tmp/sharness-exec-learn.XXXXXX)
	OUTSIDE=$(mktemp -d /var/tmp/sharness-exec-learn-out.XXXXXX)
	chmod 755 "$PROJ" "$OUTSIDE"
}

teardown_project() {
	[ -n "${PROJ:-}" ] && rm -rf "$PROJ"
	[ -n "${OUTSIDE:-}" ] && rm -rf "$OUTSIDE"
	return 0
}
