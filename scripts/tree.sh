#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unpack Debian's linux-source-7.3 into the cache (or use $KERNEL_SRC) and
# apply the series with the README's quilt command; when patches/ changed,
# take off the patches from the first that changed (or moved) on, and push
# the rest with that command again.  KTAP: one result.
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
# Each patch of the series and its sha1, as .grtrace-applied records those
# this script applied: the patches before the first line that differs stay.
(cd "$PATCHES" && series_patches | xargs sha1sum) > "$OUT/applied"
keep=0
if [ -f .pc/applied-patches ] && [ -f .grtrace-applied ] &&
   cmp -s .pc/applied-patches <(awk '{ print $2 }' .grtrace-applied); then
	keep=$(paste -d'\n' .grtrace-applied "$OUT/applied" |
		awk 'NR % 2 { a = $0; next } a != $0 { exit } { n++ } END { print n + 0 }')
fi
if [ -f .pc/applied-patches ]; then
	log "series changed: taking off its patches after the first $keep"
	# .pc/PATCH/FILE for each applied PATCH (its name has a directory:
	# kernel/..., tools/...): the files the old series touched, those of
	# the patches kept too (all come off if taking off a part fails).
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
	# quilt takes the patches from .pc/.quilt_patches, once a tree has
	# it, before QUILT_PATCHES (the tree is shared by every checkout):
	# the series whose patch "quilt pop NAME" looks for is this one's.
	echo "$PATCHES" > .pc/.quilt_patches
	if [ "$keep" = "$(wc -l < .pc/applied-patches)" ]; then
		:	# patches were only added
	elif [ "$keep" = 0 ] ||
	     ! quilt pop -f -q "$(sed -n "${keep}p" .pc/applied-patches)" > /dev/null 2>&1; then
		# All of them, whatever the partial pop left
		keep=0
		quilt pop -a -f -q > /dev/null ||
			{ result 1 "quilt pop -a: the old series taken off"; finish; }
	fi
	# quilt restores the old files with their old times: make sees them.
	for f in $touched; do [ -e "$f" ] && touch "$f"; done
fi
[ "$keep" != 0 ] || rm -rf .pc
rm -f .grtrace-stamp .grtrace-applied
cmd=$(readme_cmd QUILT_PATCHES=)
log "$cmd"
rc=0
# All of them kept (the series file changed, not its patches): nothing to
# push, which quilt would call a failure.
[ "$keep" = "$(wc -l < "$OUT/applied")" ] ||
	env -u QUILT_PC bash -c "$cmd -q" > "$OUT/err" 2>&1 || rc=$?
while IFS=$'\t' read -r sum_time f; do
	[ -f "$f" ] && [ "$(sha1sum < "$f" | cut -c1-40)" = "${sum_time% *}" ] &&
		touch -d "@${sum_time#* }" "$f"
done < "$OUT/kept"
[ "$rc" = 0 ] && echo "$stamp" > .grtrace-stamp && cp "$OUT/applied" .grtrace-applied
result "$rc" "README's quilt command applies the $(series_patches | wc -l) patches ($keep of them were applied already)"
finish
