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
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
: > "$OUT/kept"
if [ -f .pc/applied-patches ]; then
	log "series changed: removing the old one"
	# .pc/PATCH/FILE for each applied PATCH (its name has a directory:
	# kernel/..., tools/...): the files the old series touched.
	touched=$(while read -r p; do
		(cd ".pc/$p" && find . -type f ! -name .timestamp | cut -c3-)
	done < .pc/applied-patches | sort -u)
	# Each file's content and time as the old series left it: a file the
	# new series leaves as it was keeps its time, so that make rebuilds
	# only what changed (a change to the tools alone, none of the kernel).
	for f in $touched; do
		[ -f "$f" ] && printf '%s %s\t%s\n' "$(sha1sum < "$f" | cut -c1-40)" \
			"$(stat -c %.9Y "$f")" "$f"
	done > "$OUT/kept"
	quilt pop -a -f -q > /dev/null
	# quilt restores the old files with their old times: make sees them.
	for f in $touched; do [ -e "$f" ] && touch "$f"; done
fi
rm -rf .pc .grtrace-stamp
cmd=$(readme_cmd QUILT_PATCHES=)
log "$cmd"
env -u QUILT_PC bash -c "$cmd -q" > "$OUT/err" 2>&1
rc=$?
while IFS=$'\t' read -r sum_time f; do
	[ -f "$f" ] && [ "$(sha1sum < "$f" | cut -c1-40)" = "${sum_time% *}" ] &&
		touch -d "@${sum_time#* }" "$f"
done < "$OUT/kept"
[ "$rc" = 0 ] && echo "$stamp" > .grtrace-stamp
result "$rc" "README's quilt command applies the $(series_patches | wc -l) patches"
finish
