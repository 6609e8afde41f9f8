#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the guest configuration with another grtrace configuration, in a
# build directory of its own (warm ccache makes this cheap), and for the
# grtrace objects check that sparse (C=1) and W=1 add no warnings.
#
# usage: build-config.sh VARIANT [DIR]
#   m          CONFIG_GRTRACE=m, tests as modules
#   n          CONFIG_GRTRACE=n: the drivers exactly as without the series
#   nobridge   GRTRACE=y without the DRM scheduler hooks
#   novirtio   GRTRACE=y without the virtio-gpu hooks
#   nohooks    GRTRACE=y without either
# Variants sharing DIR rebuild only what the configuration change touches.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

variant=${1:?usage: build-config.sh m|n|nobridge|novirtio|nohooks [DIR]}
dir=$CACHE/build-x86-${2:-$variant}
case $variant in
m)        opts="-m GRTRACE -m GRTRACE_KUNIT_TEST -m GRTRACE_SCHED_KUNIT_TEST"
	  want="CONFIG_GRTRACE=m" ;;
n)        opts="-d GRTRACE"; want="# CONFIG_GRTRACE is not set" ;;
nobridge) opts="-e GRTRACE -d GRTRACE_DRM_BRIDGE -e GRTRACE_VIRTIO_GPU"
	  want="# CONFIG_GRTRACE_DRM_BRIDGE is not set" ;;
novirtio) opts="-e GRTRACE -e GRTRACE_DRM_BRIDGE -d GRTRACE_VIRTIO_GPU"
	  want="# CONFIG_GRTRACE_VIRTIO_GPU is not set" ;;
nohooks)  opts="-e GRTRACE -d GRTRACE_DRM_BRIDGE -d GRTRACE_VIRTIO_GPU"
	  want="# CONFIG_GRTRACE_VIRTIO_GPU is not set" ;;
*)        die "unknown variant $variant" ;;
esac
[ -f "$BUILD/.config" ] || die "build the main kernel first (scripts/kernel.sh)"
mkdir -p "$dir"
make_k() { make -C "$SRC" O="$dir" CC="ccache gcc" -j"$JOBS" -s "$@"; }

cp "$BUILD/.config" "$dir/.config.new"
# shellcheck disable=SC2086
"$SRC/scripts/config" --file "$dir/.config.new" $opts
# Keep .config (and so every timestamp) when nothing changed.
cmp -s "$dir/.config.new" "$dir/.config.in" 2>/dev/null || {
	cp "$dir/.config.new" "$dir/.config.in"
	cp "$dir/.config.new" "$dir/.config"
	make_k olddefconfig
}
grep -qx "$want" "$dir/.config" || die "$want did not stick"
make_k vmlinux modules
echo "PASS build: $variant ($want)"

if [ "$variant" != n ]; then
	rm -f "$dir/drivers/gpu/grtrace/"*.o "$dir/drivers/gpu/grtrace/tests/"*.o \
	      "$dir/drivers/gpu/drm/scheduler/sched_grtrace.o" \
	      "$dir/drivers/gpu/drm/virtio/virtgpu_grtrace.o"
	warn=$(make_k C=1 W=1 drivers/gpu/grtrace/ drivers/gpu/drm/scheduler/ \
		drivers/gpu/drm/virtio/ 2>&1 | grep -E 'warning|error' || true)
	if [ -n "$warn" ]; then
		echo "$warn"
		echo "FAIL sparse+W=1: grtrace objects ($variant)"
		exit 1
	fi
	echo "PASS sparse+W=1: grtrace objects ($variant)"
fi
