#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every file the series creates has a maintainer from the patch that
# creates it on: MAINTAINERS as it is after that patch (the applied tree's
# MAINTAINERS with the later patches' MAINTAINERS hunks reverse-applied)
# must make scripts/get_maintainer.pl list the GRTRACE entry's maintainer
# for the file.  One PASS/FAIL per patch, "N passed, N failed" last.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

[ -f "$SRC/.grtrace/stamp" ] || die "apply the series first (scripts/tree.sh)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mapfile -t patches < <(series_patches)
who=$(sed -n '/^GPU RING TRACE (GRTRACE)$/,/^$/s/^M:\t//p' "$SRC/MAINTAINERS" | head -1)
[ -n "$who" ] || die "no GRTRACE entry with an M: line in $SRC/MAINTAINERS"

# MAINTAINERS after each patch, walking back from the applied tree.
cp "$SRC/MAINTAINERS" "$tmp/M.${#patches[@]}"
for ((k = ${#patches[@]}; k > 0; k--)); do
	cp "$tmp/M.$k" "$tmp/M.$((k - 1))"
	awk '/^diff --git / {on = ($3 == "a/MAINTAINERS")} on' \
		"$ROOT/patches/${patches[$((k - 1))]}" > "$tmp/hunk"
	if [ -s "$tmp/hunk" ] &&
	   ! patch -s -R -f -F0 --no-backup-if-mismatch "$tmp/M.$((k - 1))" "$tmp/hunk" > "$tmp/err"; then
		die "MAINTAINERS hunk of ${patches[$((k - 1))]} does not reverse-apply: $(cat "$tmp/err")"
	fi
done

pass=0 fail=0
for ((k = 1; k <= ${#patches[@]}; k++)); do
	p=${patches[$((k - 1))]}
	files=$(awk '/^diff --git/ {f = $3; sub("^a/", "", f)} /^new file mode/ {print f}' \
		"$ROOT/patches/$p")
	[ -n "$files" ] || continue
	missing=""
	for f in $files; do
		(cd "$SRC" && perl scripts/get_maintainer.pl --mpath "$tmp/M.$k" --no-git \
			--no-git-fallback --no-rolestats --no-l --no-s -f "$f" 2>&1) |
			grep -qxF "$who" || missing+=" $f"
	done
	if [ -z "$missing" ]; then
		echo "PASS maintainers: $p: $(wc -w <<<"$files") new files listed under GRTRACE"
		pass=$((pass + 1))
	else
		echo "FAIL maintainers: $p: no GRTRACE maintainer for:$missing"
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
