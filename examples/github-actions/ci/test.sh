#!/bin/sh
# The test suite the workflow runs confined. The last two tests are
# canaries: they pass only when the confinement holds.
fail=0
ok() { echo "ok: $1"; }
not_ok() { echo "not ok: $1"; fail=1; }

scratch=$(mktemp -d /tmp/tests.XXXXXX) && ok "write beneath /tmp" || not_ok "write beneath /tmp"
[ -n "$scratch" ] && rm -rf "$scratch"

[ "$(printf '3\n1\n2\n' | sort | tr -d '\n')" = 123 ] && ok "sort" || not_ok "sort"

if env | grep -qE '^[A-Za-z0-9_]*(TOKEN|SECRET|PASSWORD)[A-Za-z0-9_]*='; then
	not_ok "a secret of the caller is visible"
else
	ok "no secret of the caller is visible"
fi

if (: >"$HOME/.sharness-exec-canary") 2>/dev/null; then
	rm -f "$HOME/.sharness-exec-canary"
	not_ok "wrote to $HOME: not confined"
else
	ok "cannot write to $HOME"
fi
exit $fail
