#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/kernel-doc -none -Wall on every kernel C file and header the
# series adds: it must print nothing.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

files=$(series_created | grep -E '\.[ch]$' | grep -v '^tools/')
out=$(cd "$SRC" && scripts/kernel-doc -none -Wall $files 2>&1)
if [ -z "$out" ]; then
	echo "PASS kernel-doc: $(wc -w <<<"$files") files"
	echo "1 passed, 0 failed"
else
	echo "$out"
	echo "FAIL kernel-doc"
	echo "0 passed, 1 failed"
	exit 1
fi
