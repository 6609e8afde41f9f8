#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Configure (tinyconfig + scripts/config/guest.config) and build the guest
# kernel and its modules out of tree, with ccache.
# KTAP: one result.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

ktap_begin 1
CHECK=kernel
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
start=$SECONDS
# A kernel whose inputs (the kernel series, the configuration fragments,
# the scripts, the compiler, the base tree) are those of the bzImage and
# modules in $BUILD, which a build of them made, is not made again: its
# make, a no-op that reads the whole tree, takes minutes with the idle
# policy behind the guests (make check's 6.12 lane).  Only for the tree
# tree.sh applied the series to whole (its stamp), never for a tree of
# one's own (KERNEL_SRC), whose files no key covers.
# shellcheck disable=SC2046
key=$({ echo kernel; patch_diffs $(series_patches | grep '^kernel/'); } | inputs_key "$0")
image=$BUILD/arch/x86/boot/bzImage
# built: the hash of the image and of every installed module, with its name
built() {
	[ -f "$image" ] && [ -d "$BUILD/modroot" ] &&
		{ sha256sum < "$image"; (cd "$BUILD/modroot" && find . -type f | sort | xargs -r sha256sum); } |
		sha256sum
}
whole=
[ -z "${KERNEL_SRC:-}" ] && [ "$(cat "$SRC/.grtrace-stamp" 2> /dev/null)" = "$(series_stamp)" ] &&
	whole=yes
if [ -n "$whole" ] && o=$(result_cached "kernel-$key") &&
   [ -s "$RESULT_CACHE/kernel-$key.sha256" ] &&
   [ "$(built)" = "$(cat "$RESULT_CACHE/kernel-$key.sha256")" ]; then
	result 0 "guest kernel (tinyconfig + guest.config, CONFIG_GRTRACE=y): bzImage and modules: $o"
	finish
fi
# configure_and_build: as a function, so that any failure is one result.
configure_and_build() {
	set -e

mkdir -p "$BUILD" "$CCACHE_DIR"
# ccache's depend mode: a miss runs the compiler alone, where the default
# mode runs the preprocessor first to hash its output, a fifth of a kernel
# object's compile (13 objects of the guest kernel, at random: 21.2 s of
# CPU by gcc, 26.0 through ccache, 21.4 in the depend mode).  It gives up
# the hits on the same preprocessed output from other inputs, which one
# configuration built in one directory does not get; the builds of
# directories that differ by their configuration (the walk's =y, =m and
# =n, step configs', the backport's) keep the default mode.
[ -n "${CCACHE_NODEPEND:-}" ] || export CCACHE_DEPEND=1
make_k() { $IDLE make -C "$SRC" O="$BUILD" CC="ccache gcc" -j"$JOBS" "$@"; }

# guest.config, and GRTRACE_GUEST_CONFIG_EXTRA's lines after it (the 6.12
# base's: scripts/config/guest-6.12.config), which win.
frag=$BUILD/guest.config
cat "$ROOT/scripts/config/guest.config" ${GRTRACE_GUEST_CONFIG_EXTRA:+"$GRTRACE_GUEST_CONFIG_EXTRA"} \
	> "$frag.new"
cmp -s "$frag.new" "$frag" && rm "$frag.new" || mv "$frag.new" "$frag"
# Configured again when the fragment or a Kconfig file changed (scripts/
# tree.sh keeps the time of a file a new series leaves as it was).
if [ ! -f "$BUILD/.config" ] || [ "$frag" -nt "$BUILD/.config" ] ||
   [ -n "$(find "$SRC" -name 'Kconfig*' -newer "$BUILD/.config" -not -path '*/.pc/*' -print -quit)" ]; then
	log "configuring $BUILD"
	make_k -s tinyconfig
	"$SRC/scripts/kconfig/merge_config.sh" -m -O "$BUILD" "$BUILD/.config" "$frag" >/dev/null
	make_k -s olddefconfig
	# Every option of the fragment that this tree knows must have stuck,
	# set or not set (an option another one selects would come back).
	known=$(find "$SRC" -name 'Kconfig*' -not -path '*/.pc/*' -print0 |
		xargs -0 sed -n 's/^[[:space:]]*\(menu\)\{0,1\}config[[:space:]]\{1,\}\([A-Z0-9_]*\).*/CONFIG_\2/p' | sort -u)
	missing=0
	# The last line of each option wins.
	for opt in $(sed -n 's/^# \(CONFIG_[A-Z0-9_]*\) is not set$/\1=n/p; /^CONFIG_/p' "$frag" |
		tac | awk -F= '!seen[$1]++' | tac); do
		sym=${opt%%=*}
		grep -qx "$sym" <<<"$known" || continue
		case $opt in
		*=n) ! grep -q "^$sym=" "$BUILD/.config" ;;
		*) grep -qx "$opt" "$BUILD/.config" ;;
		esac || { log "config: $opt did not stick"; missing=1; }
	done
	[ "$missing" = 0 ] || die "kernel configuration incomplete"
fi

# Configured: what make check's prefix walk reads of this step (test.sh)
[ -z "${GRTRACE_CONFIGURED:-}" ] || touch "$GRTRACE_CONFIGURED"
log "building bzImage and modules in $BUILD"
make_k -s bzImage modules
rm -rf "$BUILD/modroot"
make_k -s INSTALL_MOD_PATH="$BUILD/modroot" modules_install >/dev/null
log "kernel: $BUILD/arch/x86/boot/bzImage"
}
(configure_and_build) > "$OUT/log" 2>&1
rc=$?
grep -E 'error|Error|did not stick|incomplete' "$OUT/log" | head -20 > "$OUT/err"
result $rc "guest kernel (tinyconfig + guest.config, CONFIG_GRTRACE=y): bzImage and modules ($((SECONDS - start)) s)" &&
	[ -n "$whole" ] && result_keep "kernel-$key" "built" && built > "$RESULT_CACHE/kernel-$key.sha256"
finish
