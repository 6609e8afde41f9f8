#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prove that "git am patches/*" applies the same series as quilt: apply it
# with git am to a clean copy of the files it touches (from the Debian
# tarball) and compare every touched file with the quilt-applied tree.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
patches=$(series_patches | sed "s#^#$ROOT/patches/#")
touched=$(cat $patches | sed -n 's#^diff --git a/\([^ ]*\) b/.*#\1#p' | sort -u)
created=$(series_created)
existing=$(comm -23 <(echo "$touched") <(echo "$created"))

top=$(basename "$TARBALL" .tar.xz)
mkdir -p "$tmp/git"
if [ -n "$existing" ]; then
	tar -C "$tmp" -xf "$TARBALL" $(sed "s#^#$top/#" <<<"$existing")
	(cd "$tmp/$top" && cp --parents $existing "$tmp/git/")
fi
cd "$tmp/git"
git init -q
git add -A . && git -c user.name=grtrace -c user.email=grtrace@localhost commit -q -m base --allow-empty
git -c user.name=grtrace -c user.email=grtrace@localhost am -q $patches

bad=0
for f in $touched; do
	if ! cmp -s "$f" "$SRC/$f"; then
		log "git am and quilt differ on $f"; bad=1
	fi
done
[ "$bad" = 0 ] || exit 1
echo "git am applied $(wc -w <<<"$patches") patches; $(wc -w <<<"$touched") files identical to the quilt tree"
