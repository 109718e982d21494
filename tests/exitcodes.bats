#!/usr/bin/env bats
# placeholder
load helpers/load
@test "placeholder" { skip "not written yet"; }
