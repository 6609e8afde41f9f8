#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the tree's checkpatch.pl --strict on every patch of the series.
# Prints one PASS/FAIL line per patch and "N passed, N failed" last.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

pass=0 fail=0
for p in $(grep -v '^#' "$ROOT/series" | sed '/^$/d'); do
	out=$(cd "$SRC" && perl scripts/checkpatch.pl --strict --no-tree -q \
		--ignore FILE_PATH_CHANGES "$ROOT/patches/$p" 2>&1)
	if [ -z "$out" ]; then
		echo "PASS checkpatch: $p"; pass=$((pass + 1))
	else
		echo "FAIL checkpatch: $p"; echo "$out" | sed 's/^/    /'
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
