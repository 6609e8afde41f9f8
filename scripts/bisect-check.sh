#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every prefix of the series builds.  For k = 1..N, apply the first k
# patches to a pristine tree of its own and build, with CONFIG_GRTRACE=y, =m
# and =n, the directories the series touches (the cheap subset make test
# runs; FULL=1 builds vmlinux and modules instead).
# Prints PASS/FAIL per prefix and configuration, "N passed, N failed" last.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

work=$CACHE/bisect
src=$work/linux
[ -f "$BUILD/.config" ] || die "build the main kernel first (scripts/kernel.sh)"
if [ ! -f "$src/Makefile" ]; then
	log "bisect: unpacking a pristine tree into $work"
	mkdir -p "$work"
	tar -C "$work" -xf "$TARBALL"
	mv "$work/$(basename "$TARBALL" .tar.xz)" "$src"
fi

mapfile -t patches < <(series_patches)
export QUILT_PATCHES=.bisect/patches QUILT_PC=.pc
cd "$src"
[ -f .pc/applied-patches ] && quilt pop -a -f -q > /dev/null
rm -rf .pc .bisect
mkdir -p .bisect/patches
cp "$ROOT"/patches/*.patch .bisect/patches/
printf '%s\n' "${patches[@]}" > .bisect/patches/series

targets="drivers/gpu/grtrace/ drivers/gpu/drm/scheduler/ drivers/gpu/drm/virtio/"
[ "${FULL:-0}" = 1 ] && targets="vmlinux modules"

pass=0 fail=0
for k in "${!patches[@]}"; do
	quilt push -q > /dev/null || { echo "FAIL bisect: ${patches[$k]} does not apply"; exit 1; }
	for mode in y m n; do
		dir=$work/build-$mode
		mkdir -p "$dir"
		cp "$BUILD/.config" "$dir/.config"
		case $mode in
		y) "$src/scripts/config" --file "$dir/.config" -e GRTRACE ;;
		m) "$src/scripts/config" --file "$dir/.config" -m GRTRACE \
			-m GRTRACE_KUNIT_TEST -m GRTRACE_SCHED_KUNIT_TEST ;;
		n) "$src/scripts/config" --file "$dir/.config" -d GRTRACE ;;
		esac
		name="$(printf '%02d' $((k + 1))) CONFIG_GRTRACE=$mode"
		# shellcheck disable=SC2086
		if make -C "$src" O="$dir" CC="ccache gcc" -j"$JOBS" -s olddefconfig > "$dir/log" 2>&1 &&
		   make -C "$src" O="$dir" CC="ccache gcc" -j"$JOBS" -s $targets >> "$dir/log" 2>&1; then
			echo "PASS bisect: $name"; pass=$((pass + 1))
		else
			echo "FAIL bisect: $name (${patches[$k]})"; tail -15 "$dir/log" | sed 's/^/    /'
			fail=$((fail + 1))
		fi
	done
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
