#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The grtrace command line tool (tools/grtrace): build it out of tree into
# a temporary directory, run its host-side tests (tools/grtrace/tests), and
# read the real relay files of a QEMU guest when there are some.
# Prints one "PASS cli: ..." or "FAIL cli: ..." line per check and
# "N passed, N failed" last; exits non-zero on any failure.
source "$(dirname "$0")/lib.sh"

OUT=$(mktemp -d /tmp/grtrace-cli.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
G=$OUT/build/grtrace
CHECK=cli

build_check "build (make O=, -Wall -Wextra, no warnings)" -x "$G" \
	-C "$ROOT/tools/grtrace" O="$OUT/build" UAPI_INCLUDE="$ROOT"
[ -x "$G" ] || finish

make -s -C "$ROOT/tools/grtrace" O="$OUT/build" install DESTDIR="$OUT/inst" PREFIX=/usr \
	> /dev/null 2> "$OUT/err" && [ -x "$OUT/inst/usr/bin/grtrace" ]
result $? "make install DESTDIR= PREFIX="

GRTRACE=$G "$ROOT/tools/grtrace/tests/run-tests.sh" "$OUT/tests" > "$OUT/tests.log" 2>&1
grep -vE '^[0-9]+ passed, [0-9]+ failed$' "$OUT/tests.log"
pass=$((pass + $(grep -c '^PASS cli:' "$OUT/tests.log")))
fail=$((fail + $(grep -c '^FAIL cli:' "$OUT/tests.log")))

# Relay files saved from a guest: results/demo, and the e2e test's share
# (copied first: a running guest test may rewrite it)
for src in "$ROOT/results/demo" "$CACHE/guest-test/share/e2e"; do
	name=${src#"$ROOT/"}
	name=${name#"$CACHE/"}
	dir=$OUT/real/$name
	mkdir -p "$dir"
	if ! cp "$src"/events*.bin "$dir" 2> /dev/null; then
		echo "SKIP cli: real recording $name (no events*.bin)"
		continue
	fi
	cp "$src"/*stats*.txt "$dir" 2> /dev/null
	timeout 60 "$G" report -i "$dir" > "$OUT/out" 2> "$OUT/err" &&
		grep -q "^grtrace report: " "$OUT/out"
	result $? "real recording $name: report -i DIR"
	timeout 60 "$G" report -i "$dir" -f json > "$OUT/out" 2> "$OUT/err" &&
		python3 -m json.tool "$OUT/out" > /dev/null 2> "$OUT/err"
	result $? "real recording $name: report json"
	cat "$dir"/events*.bin > "$OUT/all.bin"
	timeout 60 "$G" report -i "$OUT/all.bin" -f csv > "$OUT/csv" 2> "$OUT/err" &&
		timeout 60 "$G" report -i "$dir" -f csv | cmp -s - "$OUT/csv"
	result $? "real recording $name: one file of all CPUs reads the same"
	timeout 60 "$G" export -i "$dir" --chrome "$OUT/chrome.json" 2> "$OUT/err" &&
		python3 -m json.tool "$OUT/chrome.json" > /dev/null 2> "$OUT/err"
	result $? "real recording $name: export --chrome"
done

finish
