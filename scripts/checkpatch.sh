#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the tree's checkpatch.pl --strict on every patch of the series,
# leaving out the messages justified in scripts/checkpatch-justified.txt.
# Prints one PASS/FAIL line per patch and "N passed, N failed" last.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

justified() {
	local line="$1" loc msg why
	while IFS=$'\t' read -r loc msg why; do
		case $loc in '#'*|'') continue ;; esac
		[[ $line =~ ^$loc:\ $msg ]] && return 0
	done < "$ROOT/scripts/checkpatch-justified.txt"
	return 1
}

pass=0 fail=0
for p in $(series_patches); do
	msgs=$(cd "$SRC" && perl scripts/checkpatch.pl --strict --no-tree -q --terse \
		--showfile --ignore FILE_PATH_CHANGES "$ROOT/patches/$p" 2>&1 |
		grep -v '^total: ')
	left=""
	while IFS= read -r m; do
		[ -n "$m" ] && ! justified "$m" && left+="$m"$'\n'
	done <<<"$msgs"
	if [ -z "$left" ]; then
		echo "PASS checkpatch: $p"; pass=$((pass + 1))
	else
		echo "FAIL checkpatch: $p"; printf '%s' "$left" | sed 's/^/    /'
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
