#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the guest configuration with CONFIG_GRTRACE=y, =m or =n in its own
# build directory (warm ccache makes this cheap) and, for the grtrace
# objects, check that sparse (C=2) and W=1 add no warnings.
# usage: build-config.sh y|m|n
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mode=${1:?usage: build-config.sh y|m|n}
case $mode in y|m|n) ;; *) die "usage: build-config.sh y|m|n" ;; esac
[ -f "$BUILD/.config" ] || die "build the main kernel first (scripts/kernel.sh)"
dir=$CACHE/build-x86-$mode
mkdir -p "$dir"
make_k() { make -C "$SRC" O="$dir" CC="ccache gcc" -j"$JOBS" -s "$@"; }

cp "$BUILD/.config" "$dir/.config"
case $mode in
y) opts="-e GRTRACE -e GRTRACE_KUNIT_TEST" ;;
m) opts="-m GRTRACE -m GRTRACE_KUNIT_TEST" ;;
n) opts="-d GRTRACE" ;;
esac
"$SRC/scripts/config" --file "$dir/.config" $opts
make_k olddefconfig
want=$( [ $mode = n ] && echo "# CONFIG_GRTRACE is not set" || echo "CONFIG_GRTRACE=$mode")
grep -qx "$want" "$dir/.config" || die "CONFIG_GRTRACE=$mode did not stick"
make_k vmlinux modules
echo "PASS build: CONFIG_GRTRACE=$mode"

if [ "$mode" != n ]; then
	rm -f "$dir/drivers/gpu/grtrace/"*.o "$dir/drivers/gpu/grtrace/tests/"*.o
	warn=$(make_k C=1 W=1 drivers/gpu/grtrace/ 2>&1 | grep -E 'warning|error' || true)
	if [ -n "$warn" ]; then
		echo "$warn"; echo "FAIL sparse+W=1: drivers/gpu/grtrace (CONFIG_GRTRACE=$mode)"
		exit 1
	fi
	echo "PASS sparse+W=1: drivers/gpu/grtrace (CONFIG_GRTRACE=$mode)"
fi
