#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unpack Debian's linux-source-6.12 into the cache (or use $KERNEL_SRC) and
# apply the series with quilt; re-apply only when the series changed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

if [ ! -f "$SRC/Makefile" ]; then
	[ -z "${KERNEL_SRC:-}" ] || die "KERNEL_SRC=$SRC is not a kernel tree"
	[ -f "$TARBALL" ] || die "$TARBALL missing: run 'make deps'"
	log "unpacking $TARBALL into $CACHE"
	mkdir -p "$CACHE"
	tar -C "$CACHE" -xf "$TARBALL"
fi

stamp=$(cd "$ROOT" && cat series $(series_patches | sed 's#^#patches/#') | sha1sum | cut -d' ' -f1)
cd "$SRC"
[ "$(cat .grtrace/stamp 2>/dev/null)" = "$stamp" ] && exit 0

export QUILT_PATCHES=.grtrace/patches QUILT_PC=.pc
if [ -f .pc/applied-patches ]; then
	log "series changed: removing the old one"
	touched=$(cd .pc && find . -mindepth 2 -type f | cut -d/ -f3- | sort -u)
	quilt pop -a -f -q >/dev/null
	# quilt restores the old files with their old times: make sees them.
	for f in $touched; do [ -e "$f" ] && touch "$f"; done
fi
rm -rf .grtrace .pc
mkdir -p .grtrace/patches
cp "$ROOT"/patches/*.patch .grtrace/patches/
series_patches > .grtrace/patches/series
if [ -s .grtrace/patches/series ]; then
	quilt push -a -q >/dev/null || die "the series does not apply to $SRC"
fi
echo "$stamp" > .grtrace/stamp
log "applied $(wc -l < .grtrace/patches/series) patches to $SRC"
