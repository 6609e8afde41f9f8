#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the tree's checkpatch.pl --strict on every patch of the series,
# leaving out the messages justified in scripts/checkpatch-justified.txt.
# Then one more rule of the posting: every Kconfig option the kernel
# series adds defaults to n (no "default y"; def_bool symbols, which no
# one sets, aside).
# KTAP: one result per patch, and one for that rule.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

justified() {
	local line="$1" loc msg why
	while IFS=$'\t' read -r loc msg why; do
		case $loc in '#'*|'') continue ;; esac
		[[ $line =~ ^$loc:\ $msg ]] && return 0
	done < "$ROOT/scripts/checkpatch-justified.txt"
	return 1
}

# A result per patch, and the Kconfig defaults.
ktap_begin $(($(series_patches | wc -l) + 1))
CHECK=checkpatch
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
# A patch whose text, checkpatch and its data files and the justified
# list are those of a clean run before is not checked again (lib.sh,
# result_cached).
# The inputs every patch shares are hashed once.
tools=$(echo checkpatch | inputs_key "$SRC/scripts/checkpatch.pl" "$SRC/scripts/spelling.txt" \
	"$SRC/scripts/const_structs.checkpatch" "$ROOT/scripts/checkpatch-justified.txt")
for p in $(series_patches); do
	key=$(echo "checkpatch $p $tools" | inputs_key "$PATCHES/$p")
	if o=$(result_cached "$key"); then
		result 0 "$p: $o"
		continue
	fi
	msgs=$(cd "$SRC" && perl scripts/checkpatch.pl --strict --no-tree -q --terse \
		--showfile --ignore FILE_PATH_CHANGES "$PATCHES/$p" 2>&1 |
		grep -v '^total: ')
	left=""
	while IFS= read -r m; do
		[ -n "$m" ] && ! justified "$m" && left+="$m"$'\n'
	done <<<"$msgs"
	printf '%s' "$left" > "$OUT/err"
	ERR_LINES=40 result "$([ -z "$left" ]; echo $?)" "$p" && result_keep "$key" "clean"
done

# An added "config X" line opens option X; the next option line, added
# or not, or the next hunk closes it.  An added "default y" inside it is
# reported with X's name.
series_patches | grep '^kernel/' | sed "s#^#$PATCHES/#" | xargs awk '
	/^diff --git / { kconfig = ($3 ~ /Kconfig/); opt = ""; next }
	!kconfig { next }
	/^@@/ || /^ [ \t]*(menu)?config / { opt = ""; next }
	/^\+[ \t]*(menu)?config / { opt = $2; next }
	opt != "" && /^\+[ \t]*default y/ { print FILENAME ": " opt }
' | sed "s#^$PATCHES/##" > "$OUT/err"
result "$([ ! -s "$OUT/err" ]; echo $?)" "Kconfig: every option the kernel series adds defaults to n"
finish
