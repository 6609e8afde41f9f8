#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the grtrace KUnit suites under UML with kunit.py (the fast loop).
# Prints PASS/FAIL per case and "N passed, N failed" last.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

out=$(mktemp)
trap 'rm -f "$out"' EXIT
(cd "$SRC" && python3 tools/testing/kunit/kunit.py run --arch=um \
	--build_dir="$CACHE/build-um" --jobs="$JOBS" \
	--kunitconfig=drivers/gpu/grtrace/.kunitconfig \
	--make_options CC="ccache gcc") > "$out" 2>&1
rc=$?
pass=$(grep -v '====' "$out" | grep -c '\[PASSED\]')
fail=$(grep -v '====' "$out" | grep -cE '\[(FAILED|CRASHED)\]')
grep -v '====' "$out" | sed -n 's/.*\[\(PASSED\|FAILED\|CRASHED\|SKIPPED\)\] \(.*\)/\1 uml-kunit: \2/p' |
	sed 's/^PASSED/PASS/;s/^FAILED/FAIL/;s/^CRASHED/FAIL/;s/^SKIPPED/SKIP/'
if [ "$rc" != 0 ] || [ "$pass" = 0 ]; then
	tail -40 "$out" | sed 's/^/    /'
	[ "$fail" = 0 ] && fail=1
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
