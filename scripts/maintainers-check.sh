#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every file the series creates has a maintainer from the patch that
# creates it on: with MAINTAINERS as it is after that patch (from the git am
# tree of step "series", $CACHE/series-am: one commit per patch),
# scripts/get_maintainer.pl must list the GRTRACE entry's maintainer for
# the file.  KTAP: one result per patch that creates files.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

am=$CACHE/series-am/git
mapfile -t patches < <(series_patches)
if ! git -C "$am" rev-parse -q --verify "base~0" > /dev/null ||
   [ "$(git -C "$am" rev-list --count base..HEAD)" != "${#patches[@]}" ]; then
	ktap_begin 1
	CHECK=maintainers
	result 1 "the git am tree of step series ($am) holds the series"
	finish
fi
mapfile -t commits < <(git -C "$am" rev-list --reverse base..HEAD)
# A result per patch that creates files.
creating=0
for c in "${commits[@]}"; do
	[ -z "$(git -C "$am" diff --name-only --diff-filter=A "$c~1" "$c")" ] ||
		creating=$((creating + 1))
done
ktap_begin "$creating"
CHECK=maintainers
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
who=$(sed -n '/^GPU RING TRACE (GRTRACE)$/,/^$/s/^M:\t//p' "$am/MAINTAINERS" | head -1)
[ -n "$who" ] || { result 1 "a GRTRACE entry with an M: line in MAINTAINERS"; finish; }

for ((k = 1; k <= ${#patches[@]}; k++)); do
	p=${patches[$((k - 1))]}
	c=${commits[$((k - 1))]}
	files=$(git -C "$am" diff --name-only --diff-filter=A "$c~1" "$c")
	[ -n "$files" ] || continue
	git -C "$am" show "$c:MAINTAINERS" > "$OUT/M"
	# The same MAINTAINERS, files and get_maintainer.pl as a passing run
	# before: not asked again (lib.sh, result_cached).
	key=$(echo "maintainers $files" | inputs_key "$OUT/M" "$SRC/scripts/get_maintainer.pl")
	if o=$(result_cached "$key"); then
		result 0 "$p: $(wc -w <<<"$files") new files listed in MAINTAINERS (GRTRACE, or the entry of their subsystem): $o"
		continue
	fi
	missing=""
	for f in $files; do
		# A file of another subsystem (the relay test) is listed in
		# that subsystem's entry, by the patch that adds it; the GRTRACE
		# entry may not exist yet.
		case $f in
		kernel/*)
			grep -qxF "F:	$f" "$OUT/M" || missing+=" $f"
			continue ;;
		esac
		(cd "$SRC" && perl scripts/get_maintainer.pl --mpath "$OUT/M" --no-git \
			--no-git-fallback --no-rolestats --no-l --no-s -f "$f" 2>&1) > "$OUT/who"
		grep -qxF "$who" "$OUT/who" && continue
		# A test of another subsystem's own posting, grtrace not in its
		# name (drm/sched's trace events): that subsystem's maintainers.
		case $f in
		*grtrace*) missing+=" $f" ;;
		*) grep -q '@' "$OUT/who" || missing+=" $f" ;;
		esac
	done
	echo "no GRTRACE maintainer for:$missing" > "$OUT/err"
	result "$([ -z "$missing" ]; echo $?)" "$p: $(wc -w <<<"$files") new files listed in MAINTAINERS (GRTRACE, or the entry of their subsystem)" &&
		result_keep "$key" "$who"
done
finish
