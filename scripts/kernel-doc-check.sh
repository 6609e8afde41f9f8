#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/kernel-doc -none -Wall on every kernel C file and header the
# series adds: it must print nothing.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

ktap_begin 1
CHECK=kernel-doc
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
files=$(series_created | grep -E '\.[ch]$' | grep -v '^tools/')
# shellcheck disable=SC2086
(cd "$SRC" && scripts/kernel-doc -none -Wall $files) > "$OUT/err" 2>&1
ERR_LINES=40 result "$([ ! -s "$OUT/err" ]; echo $?)" "scripts/kernel-doc -none -Wall: $(wc -w <<<"$files") files, no warning"
finish
