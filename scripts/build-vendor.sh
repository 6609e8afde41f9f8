#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build check of the driver hooks.  The guest configuration plus
# scripts/config/vendor.config (amdgpu, i915 and nouveau as modules; no such
# GPU here, so their hooks are compiled, never run) is built, in build
# directories of its own, for every C file the driver patches (drm/sched,
# drm/virtio and the vendor drivers) touch:
#   on    every hook on, with sparse (C=1) and W=1, whose warnings must be
#         those of the same objects in the tree without any grtrace patch
#         (base)
#   off   CONFIG_GRTRACE=y, GRTRACE_AMDGPU/I915/NOUVEAU=n
#   n     CONFIG_GRTRACE=n
# Prints PASS/FAIL per check and "N passed, N failed" last.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

frags="$ROOT/scripts/config/guest.config $ROOT/scripts/config/vendor.config"
mapfile -t all < <(series_patches)
drivers=()
for p in "${all[@]}"; do
	[[ $p =~ ^[0-9]+-drm- ]] && drivers+=("$p")
done
[ ${#drivers[@]} -gt 0 ] || die "no driver patch in the series"
[ -f "$SRC/.grtrace/stamp" ] || die "apply the series first (scripts/tree.sh)"

# The C files the driver patches touch, as objects; those they create.
touched=$(for p in "${drivers[@]}"; do cat "$ROOT/patches/$p"; done |
	sed -n 's#^diff --git a/\(drivers/gpu/drm/[^ ]*\)\.c b/.*#\1.o#p' | sort -u)
created=$(series_created | sed -n 's#^\(drivers/gpu/drm/.*\)\.c$#\1.o#p')
# The driver-owned files the patches create are built only with the hooks.
existing=$(comm -23 <(echo "$touched") <(echo "$created"))

pass=0 fail=0
ok() { echo "PASS $*"; pass=$((pass + 1)); }
ko() { echo "FAIL $*"; fail=$((fail + 1)); }

# The tree without any grtrace patch, for the warnings to compare with.
base=$CACHE/vendor-base
bsrc=$base/$(basename "$TARBALL" .tar.xz)
if [ "$(cat "$base/stamp" 2>/dev/null)" != pristine ]; then
	export QUILT_PATCHES=.vendor/patches QUILT_PC=.pc
	if [ -f "$bsrc/.pc/applied-patches" ]; then
		# As scripts/tree.sh: remove the old patches, keep the tree.
		touched_base=$(cd "$bsrc/.pc" && find . -mindepth 2 -type f | cut -d/ -f3- | sort -u)
		(cd "$bsrc" && quilt pop -a -f -q > /dev/null)
		for f in $touched_base; do [ -e "$bsrc/$f" ] && touch "$bsrc/$f"; done
	elif [ ! -f "$bsrc/Makefile" ]; then
		log "vendor: unpacking a tree without the series into $base"
		mkdir -p "$base"
		tar -C "$base" -xf "$TARBALL"
	fi
	rm -rf "$bsrc/.vendor" "$bsrc/.pc"
	echo pristine > "$base/stamp"
fi

# configure SRC DIR OPTS...: tinyconfig + guest + vendor fragments, then
# OPTS for scripts/config, assembled in DIR-cfg; DIR/.config (and so every
# timestamp) is kept when that gives what it gave last time.
configure() {
	local src=$1 dir=$2
	shift 2
	mkdir -p "$dir" "$dir-cfg"
	make -C "$src" O="$dir-cfg" -s tinyconfig &&
	# shellcheck disable=SC2086
	"$src/scripts/kconfig/merge_config.sh" -m -O "$dir-cfg" "$dir-cfg/.config" $frags || return 1
	if [ $# -gt 0 ]; then
		"$src/scripts/config" --file "$dir-cfg/.config" "$@" || return 1
	fi
	if ! cmp -s "$dir-cfg/.config" "$dir/.config.in" || [ ! -f "$dir/.config" ]; then
		cp "$dir-cfg/.config" "$dir/.config.in"
		cp "$dir-cfg/.config" "$dir/.config"
		make -C "$src" O="$dir" -s olddefconfig || return 1
	fi
}

# check NAME SRC DIR WANT OBJS -- OPTS...: configure, check that every
# WANT line is in .config, build OBJS; its output in DIR/log.
check() {
	local name=$1 src=$2 dir=$3 want=$4 objs=$5 w start=$SECONDS
	shift 6
	mkdir -p "$dir"
	if ! configure "$src" "$dir" "$@" > "$dir/config.log" 2>&1; then
		ko "vendor $name: configuration"; tail -5 "$dir/config.log"; return 1
	fi
	for w in $want; do
		grep -qx "$w" "$dir/.config" || { ko "vendor $name: $w did not stick"; return 1; }
	done
	# Sparse and W=1 warnings only come with a compilation (from ccache).
	# shellcheck disable=SC2086
	[ -z "${MAKE_FLAGS:-}" ] || (cd "$dir" && rm -f $objs)
	# shellcheck disable=SC2086
	if make -C "$src" O="$dir" CC="ccache gcc" -j"$JOBS" ${MAKE_FLAGS:-} $objs \
		> "$dir/log" 2>&1; then
		ok "vendor $name: $(wc -w <<<"$objs") objects ($((SECONDS - start)) s)"
	else
		ko "vendor $name"; grep -E 'error|Error' "$dir/log" | head -20
		return 1
	fi
}

# The warnings of a C=1 W=1 build, without line numbers and directories,
# each once: a header's warning repeats for every object including it, and
# a new object (amdgpu_grtrace.o) must not count those again.
warnings() {
	grep -E '(warning|error):' "$1/log" |
		sed -E 's#^(\.\./)*##; s#^'"$2"'/##; s#:[0-9]+(:[0-9]+)?:#:#' | sort -u
}

mods="CONFIG_DRM_AMDGPU=m CONFIG_DRM_I915=m CONFIG_DRM_NOUVEAU=m"
hooks="CONFIG_GRTRACE_AMDGPU=y CONFIG_GRTRACE_I915=y CONFIG_GRTRACE_NOUVEAU=y"

MAKE_FLAGS="C=1 W=1" check on "$SRC" "$CACHE/build-vendor-on" \
	"CONFIG_GRTRACE=y $mods $hooks" "$touched" -- -e GRTRACE
on_rc=$?
MAKE_FLAGS="C=1 W=1" check base "$bsrc" "$CACHE/build-vendor-base" \
	"$mods" "$existing" --
base_rc=$?
if [ "$on_rc" = 0 ] && [ "$base_rc" = 0 ]; then
	new=$(comm -13 <(warnings "$CACHE/build-vendor-base" "$bsrc") \
		       <(warnings "$CACHE/build-vendor-on" "$SRC"))
	if [ -z "$new" ]; then
		ok "drivers sparse+W=1: no new warning in $(wc -w <<<"$touched") objects of drm/sched, drm/virtio, amdgpu, i915, nouveau ($(warnings "$CACHE/build-vendor-on" "$SRC" | wc -l) distinct, as without the series)"
	else
		ko "drivers sparse+W=1: new warnings"; echo "$new" | sed 's/^/    /'
	fi
fi
check off "$SRC" "$CACHE/build-vendor-off" \
	"CONFIG_GRTRACE=y $mods" "$existing" -- \
	-e GRTRACE -d GRTRACE_AMDGPU -d GRTRACE_I915 -d GRTRACE_NOUVEAU
check n "$SRC" "$CACHE/build-vendor-n" "$mods" "$existing" -- -d GRTRACE
if grep -qE '^CONFIG_GRTRACE_(AMDGPU|I915|NOUVEAU)=' "$CACHE/build-vendor-off/.config" \
	"$CACHE/build-vendor-n/.config"; then
	ko "vendor off, n: a vendor hook option is still on"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
