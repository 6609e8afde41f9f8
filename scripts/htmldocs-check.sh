#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make SPHINXDIRS=gpu/grtrace htmldocs" on the patched tree: no warning or
# error may name a file the series creates (its rst pages and the
# kernel-doc they pull in); the series' pages refer to each other only.
# The rest of gpu/ (amdgpu's, i915's and xe's pages run kernel-doc on
# hundreds of files: minutes on a cold run) has nothing of the series but
# the toctree entry of gpu/index.rst, which is checked as text.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

out=$CACHE/htmldocs
command -v sphinx-build > /dev/null || die "sphinx-build missing: run 'make deps'"
log "htmldocs: SPHINXDIRS=gpu/grtrace into $out"
make -C "$SRC" O="$out" SPHINXDIRS=gpu/grtrace htmldocs > "$out.log" 2>&1
rc=$?
ours=$(series_created | sed 's/[.[\*^$]/\\&/g' | paste -sd'|')
bad=$(grep -iE 'warning|error' "$out.log" | grep -E "$ours" || true)
ktap_begin 4
CHECK=htmldocs
[ $rc = 0 ] || tail -5 "$out.log" | sed 's/^/# /'
result $rc "make SPHINXDIRS=gpu/grtrace htmldocs"
[ -z "$bad" ] || echo "$bad" | sed 's/^/#   /'
result "$([ -z "$bad" ]; echo $?)" "no warning in the files the series creates"
[ -f "$out/Documentation/output/gpu/grtrace/index.html" ] ||
   [ -n "$(find "$out" -path '*gpu/grtrace/index.html' -print -quit)" ]
result $? "gpu/grtrace/index.html built"
sed -n '/^\.\. toctree::/,/^[^ ]/p' "$SRC/Documentation/gpu/index.rst" | grep -qx '   grtrace/index'
result $? "Documentation/gpu/index.rst's toctree has grtrace/index"
# Sphinx rebuilds only what changed: start afresh after a failure, so the
# warnings of a page that did not change are not lost on the next run.
[ "$KTAP_CNT_FAIL" = 0 ] || rm -rf "$out"
finish
