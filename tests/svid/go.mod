module sharness-exec/tests/svid

go 1.19
