#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unpack Debian's linux-source-6.12 into the cache (or use $KERNEL_SRC) and
# apply the series with the README's quilt command; re-apply only when
# patches/ changed.  KTAP: one result.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

if [ ! -f "$SRC/Makefile" ]; then
	[ -z "${KERNEL_SRC:-}" ] || die "KERNEL_SRC=$SRC is not a kernel tree"
	[ -f "$TARBALL" ] || die "$TARBALL missing: run 'make deps'"
	log "unpacking $TARBALL into $CACHE"
	mkdir -p "$CACHE"
	tar -C "$CACHE" -xf "$TARBALL" || die "unpacking $TARBALL failed"
fi
ktap_begin 1
CHECK=tree

stamp=$(series_stamp)
cd "$SRC" || exit 1
if [ "$(cat .grtrace-stamp 2>/dev/null)" = "$stamp" ] && [ -f .pc/applied-patches ]; then
	ktap_test_pass "tree: the series is applied to $SRC (unchanged)"
	finish
fi
if [ -f .pc/applied-patches ]; then
	log "series changed: removing the old one"
	touched=$(cd .pc && find . -mindepth 2 -type f | cut -d/ -f3- | sort -u)
	quilt pop -a -f -q > /dev/null
	# quilt restores the old files with their old times: make sees them.
	for f in $touched; do [ -e "$f" ] && touch "$f"; done
fi
rm -rf .pc .grtrace-stamp
cmd=$(readme_cmd QUILT_PATCHES=)
log "$cmd"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
env -u QUILT_PC bash -c "$cmd -q" > "$OUT/err" 2>&1
rc=$?
[ "$rc" = 0 ] && echo "$stamp" > .grtrace-stamp
result "$rc" "README's quilt command applies the $(series_patches | wc -l) patches"
finish
