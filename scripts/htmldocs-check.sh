#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make SPHINXDIRS=gpu htmldocs" on the patched tree: no warning or error
# may name a file the series creates (its rst pages and its kernel-doc).
# The tree's own warnings elsewhere in gpu/ are not ours and are ignored.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

out=$CACHE/htmldocs
command -v sphinx-build > /dev/null || die "sphinx-build missing: run 'make deps'"
log "htmldocs: SPHINXDIRS=gpu into $out"
make -C "$SRC" O="$out" SPHINXDIRS=gpu htmldocs > "$out.log" 2>&1
rc=$?
ours=$(series_created | sed 's/[.[\*^$]/\\&/g' | paste -sd'|')
bad=$(grep -iE 'warning|error' "$out.log" | grep -E "$ours" || true)
pass=0 fail=0
if [ $rc = 0 ]; then
	echo "PASS htmldocs: make SPHINXDIRS=gpu htmldocs"; pass=$((pass + 1))
else
	echo "FAIL htmldocs: make SPHINXDIRS=gpu htmldocs exited $rc"; fail=$((fail + 1))
fi
if [ -z "$bad" ]; then
	echo "PASS htmldocs: no warning in the files the series creates"; pass=$((pass + 1))
else
	echo "FAIL htmldocs: warnings in the files the series creates:"
	echo "$bad" | sed 's/^/    /'
	fail=$((fail + 1))
fi
if [ -f "$out/Documentation/output/gpu/grtrace/index.html" ] ||
   [ -n "$(find "$out" -path '*gpu/grtrace/index.html' -print -quit)" ]; then
	echo "PASS htmldocs: gpu/grtrace/index.html built"; pass=$((pass + 1))
else
	echo "FAIL htmldocs: gpu/grtrace/index.html not built"; fail=$((fail + 1))
fi
# Sphinx rebuilds only what changed: start afresh after a failure, so the
# warnings of a page that did not change are not lost on the next run.
[ $fail = 0 ] || rm -rf "$out"
echo "$pass passed, $fail failed"
[ $fail = 0 ]
