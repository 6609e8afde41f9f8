#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The backport of the kernel series to 6.12 LTS: patches-6.12/ on Debian's
# linux-source-6.12 (Debian 12 and 13 run 6.12).
#
#   - the README's quilt command applies it to the unpacked tree
#     ($CACHE/linux-source-6.12), and its git am command to the files it
#     touches; both give the same files;
#   - with CONFIG_GRTRACE=y, the 6.12 guest kernel (step kernel-6.12)
#     and the amdgpu/i915/nouveau objects the backport touches and xe's
#     users of the scheduler; with =m and =n, drivers/gpu/grtrace/, the
#     DRM scheduler and virtio-gpu (guest configuration +
#     scripts/config/vendor.config, without debug info), the three at
#     once in build directories that start as copies of the guest
#     kernel's.
#
# No per-prefix walk: the mainline series has it (step bisect).  A build
# of identical inputs that passed before is not repeated (lib.sh,
# result_cached).
# KTAP: one result per check.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export GRTRACE_TARBALL=${GRTRACE_TARBALL_612:-/usr/src/linux-source-6.12.tar.xz}
export GRTRACE_PATCHES=$ROOT/patches-6.12
# The 6.12 guest kernel's configuration, which the builds start from
# (their result cache's key names it too).
export GRTRACE_GUEST_CONFIG_EXTRA=$ROOT/scripts/config/guest-6.12.config
. "$ROOT/scripts/lib.sh"
. "$ROOT/scripts/same-code.sh"
BP=$CACHE/backport-6.12
# 6.12's KUnit suite on a real scheduler is built in (bool: it selects the
# scheduler, which no other option of the guest brings in), so =m leaves
# it out instead of asking a module of it.
eval "mainline_$(declare -f grtrace_opts)"
grtrace_opts() {
	mainline_grtrace_opts "$@" | sed 's/-m GRTRACE_SCHED_KUNIT_TEST/-d GRTRACE_SCHED_KUNIT_TEST/'
}

# The tree, with the README's quilt command (its own KTAP, merged here).
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
"$ROOT/scripts/tree.sh" > "$OUT/tree" 2>&1
rc=$?
# the tree, git am, git am = quilt, =y, =m, =n, the drivers' code with
# and without grtrace
ktap_begin 7
CHECK=backport
ktap_merge tree.sh $rc "$OUT/tree"
[ "$(cat "$SRC/.grtrace-stamp" 2>/dev/null)" = "$(series_stamp)" ] || finish

# git am of the same patches to the files they touch: the same files.
"$ROOT/scripts/series.sh" apply "$BP/am" > "$OUT/err" 2>&1
result $? "README's git am command applies patches-6.12/ ($(series_patches | wc -l) patches)"
am_matches_quilt "$BP/am"
result $? "git am and quilt give identical files"

vendor=$(series_vendor_objects)
# The build directories start as copies of the 6.12 guest kernel's (step
# kernel-6.12), as the walk's start from the mainline one's.
BUILD=$BP/guest
[ -f "$BUILD/vmlinux" ] || { result 1 "the 6.12 guest kernel is built (step kernel-6.12)"; finish; }

# build MODE: configure and build the targets; "RC NAME" in $OUT/res-MODE.
build() {
	local mode=$1 dir=$BP/build-$1 objs="" t="" o start=$SECONDS rc
	# =y: the vendor objects, the rest of =y is the guest kernel; =m and
	# =n: grtrace, the scheduler and virtio-gpu (the vendor objects
	# change nothing with them but CONFIG_GRTRACE, and the walk of the
	# mainline series builds them in all three).
	if [ "$mode" = y ]; then
		for o in $vendor; do
			[ -f "$SRC/${o%.o}.c" ] && objs+=" $o"
		done
	else
		t=$HOOKED_DIRS
	fi
	key=$({ echo "backport $mode $t $objs"; series_diffs; } |
		inputs_key "$0" "$ROOT/scripts/config/vendor.config")
	if o=$(result_cached "$key"); then
		echo "0 CONFIG_GRTRACE=$mode: $(wc -w <<<"$t $objs") targets: $o" > "$OUT/res-$mode"
		: > "$OUT/err-$mode"
		return
	fi
	# shellcheck disable=SC2086
	{
		vendor_configure "$dir" "$mode" &&
		$IDLE nice make -C "$SRC" O="$dir" CC="ccache gcc" -j"$JOBS" -s $t $objs
	} > "$dir.log" 2>&1
	rc=$?
	grep -E 'error|Error|warning|did not stick' "$dir.log" | head -20 > "$OUT/err-$mode"
	[ -s "$OUT/err-$mode" ] && rc=1
	[ "$rc" = 0 ] && result_keep "$key" "built"
	echo "$rc CONFIG_GRTRACE=$mode: $(wc -w <<<"$t $objs") targets ($((SECONDS - start)) s)" > "$OUT/res-$mode"
}
for mode in y m n; do build "$mode" & done
wait
for mode in y m n; do
	rc=1 name="CONFIG_GRTRACE=$mode: no result"
	[ -f "$OUT/res-$mode" ] && read -r rc name < "$OUT/res-$mode"
	mv "$OUT/err-$mode" "$OUT/err" 2>/dev/null
	result "$rc" "$name"
done
# With grtrace (=m) and without (=n), the scheduler a module in both (the
# vendor drivers select it; =y's is built in, other code): the same
# scheduler and virtio-gpu code.
same_code "$BP/build-m" "$BP/build-n" > "$OUT/err" 2>&1
ERR_LINES=20 result $? "CONFIG_GRTRACE=m and =n: the DRM scheduler's and virtio-gpu's objects are the same code, naming the same symbols"
finish
