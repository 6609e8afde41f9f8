#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every prefix of the series builds.  For k = 1..N, apply the first k
# patches to a pristine tree of its own and build, with CONFIG_GRTRACE=y, =m
# and =n, the directories the series touches (the cheap subset make test
# runs; FULL=1 builds vmlinux and modules instead).  The cheap subset also
# enables amdgpu, i915 and nouveau (scripts/config/vendor.config) and builds
# the objects of theirs that the vendor patches touch, as far as they exist
# at that prefix.
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
# The vendor drivers' C files the series touches (built only in the subset).
vendor=$(series_patches | grep -E '^[0-9]+-drm-(amdgpu|i915|nouveau)-' |
	sed "s#^#$ROOT/patches/#" | xargs -r cat |
	sed -n 's#^diff --git a/\(drivers/gpu/drm/[^ ]*\)\.c b/.*#\1#p' | sort -u)
created=$(series_created)
[ "${FULL:-0}" = 1 ] && targets="vmlinux modules" vendor=""

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
		objs=""
		if [ -n "$vendor" ]; then
			"$src/scripts/kconfig/merge_config.sh" -m -O "$dir" "$dir/.config" \
				"$ROOT/scripts/config/vendor.config" > /dev/null
			for f in $vendor; do
				# Files the series creates exist from their patch on,
				# and are built only with the hooks (not with =n).
				[ -f "$f.c" ] || continue
				[ "$mode" = n ] && grep -qx "$f.c" <<<"$created" && continue
				objs+=" $f.o"
			done
		fi
		name="$(printf '%02d' $((k + 1))) CONFIG_GRTRACE=$mode"
		# shellcheck disable=SC2086
		if make -C "$src" O="$dir" CC="ccache gcc" -j"$JOBS" -s olddefconfig > "$dir/log" 2>&1 &&
		   make -C "$src" O="$dir" CC="ccache gcc" -j"$JOBS" -s $targets $objs >> "$dir/log" 2>&1; then
			echo "PASS bisect: $name"; pass=$((pass + 1))
		else
			echo "FAIL bisect: $name (${patches[$k]})"; tail -15 "$dir/log" | sed 's/^/    /'
			fail=$((fail + 1))
		fi
	done
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
