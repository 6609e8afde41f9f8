#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The tool on the kernels a user already runs: Debian's own kernel images,
# extracted from their packages as they are (nothing is installed on the
# host), booted in QEMU with a 3D virtio-gpu and this run's initramfs,
# their modules appended (scripts/guest/init loads them):
#
#   trixie-backports   linux-image-amd64 of Debian 13's backports (7.3)
#   bookworm           linux-image-amd64 of Debian 12, this host's own (6.1)
#
# In each guest, "grtrace record" records the kernel's own events while
# Debian's kmscube renders, and "grtrace top" shows them live
# (scripts/guest/tests/stock.sh); here, scripts/stock-check.py checks
# "grtrace report"'s jobs and top's intervals against trace-cmd's reading
# of the same events and QEMU's own trace of the same commands.  i915.ko
# is loaded too, with no Intel GPU to drive: the recording holds the
# formats of its request events, and scripts/i915-check.py writes requests
# into a copy of it by them, for the tool to read.  KTAP, per kernel: its
# image, the boot, the guest test and the kernel's reports (verdict.py),
# the checks.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

read -ra SUITES <<< "${STOCK_SUITES:-trixie-backports bookworm}"
ktap_begin $((5 * ${#SUITES[@]}))
CHECK=stock
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
rm -rf "$RUN/stock"

# stock_kernel SUITE: $CACHE/stock/ABI/{vmlinuz,mods/,mods/load} of the
# linux-image-amd64 of SUITE ("bookworm": the candidate of Debian 12's
# suites).  Its image package holds the kernel and its modules, or (7.3's
# packaging) depends on linux-binary-ABI and linux-modules-ABI, which do.
# The modules: STOCK_MODULES's and those they depend on, in load order.
STOCK_MODULES="virtio_pci virtio-gpu 9p 9pnet_virtio i915"
stock_kernel() {
	local suite=$1 img abi dir deb mod pkgs base

	set -e
	[ "$suite" = bookworm ] && suite= || suite=/$suite
	img=$(apt-cache depends "linux-image-amd64$suite" 2> /dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -1)
	[ -n "$img" ] || { echo "no linux-image-amd64$suite (make deps)"; return 1; }
	abi=${img#linux-image-}
	dir=$CACHE/stock/$abi
	if [ "$(cat "$dir/mods/wanted" 2> /dev/null)" != "$STOCK_MODULES" ]; then
		rm -rf "$dir" && mkdir -p "$dir/deb" "$dir/root" "$dir/mods"
		pkgs=$(apt-cache show "$img" | sed -n 's/^Depends: //p' | head -1 |
			grep -o "linux-\(binary\|modules\)-$abi" || echo "$img")
		# shellcheck disable=SC2086
		(cd "$dir/deb" && apt-get download $pkgs)
		for deb in "$dir"/deb/*.deb; do dpkg-deb -x "$deb" "$dir/root"; done
		# /usr/lib/modules/ABI/vmlinuz (7.3) or /boot/vmlinuz-ABI (6.1)
		cp "$(find "$dir/root" -name vmlinuz -o -name "vmlinuz-$abi" | head -1)" "$dir/vmlinuz"
		[ -d "$dir/root/usr/lib/modules" ] && base=$dir/root/usr || base=$dir/root
		# The packages ship no modules.dep: made here, for the load order.
		depmod -b "$base" "$abi" 2> /dev/null
		for mod in $(for m in $STOCK_MODULES; do
				modprobe -d "$base" -S "$abi" --show-depends "$m"
			done | awk '$1 == "insmod" && !seen[$2]++ {print $2}'); do
			case $mod in
			*.xz) xz -dc "$mod" > "$dir/mods/$(basename "$mod" .xz)" ;;
			*) cp "$mod" "$dir/mods/" ;;
			esac
			basename "$mod" .xz >> "$dir/mods/load.new"
		done
		mv "$dir/mods/load.new" "$dir/mods/load"
		echo "$STOCK_MODULES" > "$dir/mods/wanted"
		rm -rf "$dir/deb" "$dir/root"
	fi
	echo "$dir"
}

tool=$CACHE/host-tools
make -C "$ROOT/tools/grtrace" -s -j"$JOBS" O="$tool/grtrace" UAPI_INCLUDE="$ROOT" > "$OUT/tool.err" 2>&1
built=$?

for suite in "${SUITES[@]}"; do
	CHECK="stock $suite"
	out=$RUN/stock/$suite
	mkdir -p "$out"
	dir=$(stock_kernel "$suite" 2> "$OUT/err" | tail -1)
	[ -f "${dir:-/nonexistent}/vmlinuz" ]
	if ! result $? "Debian's kernel $(basename "${dir:-none}") and its modules, from its packages"; then
		for r in boot verdict stock-check i915-check; do result 1 "$r: no kernel"; done
		continue
	fi

	# This run's initramfs with the kernel's modules in /stock (a cpio
	# appended: the kernel unpacks each).
	rm -rf "$OUT/root" && mkdir -p "$OUT/root/stock"
	cp "$dir"/mods/*.ko "$dir/mods/load" "$OUT/root/stock/"
	(cd "$OUT/root" && find stock | cpio -o -H newc --quiet | gzip -1) > "$OUT/mods.cpio.gz"
	cat "$INITRAMFS" "$OUT/mods.cpio.gz" > "$OUT/initrd"
	"$ROOT/scripts/guest/run-qemu.sh" --cpus 1 --kernel "$dir/vmlinuz" --initrd "$OUT/initrd" \
		--share "$out" --log "$out/serial.log" --timeout 600 --gl \
		--host-trace "$out/qemu-trace.log" \
		--append "grtrace.mode=stock grtrace.timeout=540" > "$OUT/err" 2>&1
	result $? "boot: the guest booted Debian's kernel and powered off"
	checker "$CHECK: verdict" python3 "$ROOT/scripts/guest/verdict.py" --no-kunit \
		--expect stock "$out/serial.log"
	if [ $built = 0 ]; then
		checker "$CHECK: stock-check" python3 "$ROOT/scripts/stock-check.py" \
			"$tool/grtrace/grtrace" "$out/trace.dat" "$out/qemu-trace.log" \
			"$out/top-batch.txt"
		checker "$CHECK: i915-check" python3 "$ROOT/scripts/i915-check.py" \
			"$tool/grtrace/grtrace" "$out/trace.dat"
	else
		cp "$OUT/tool.err" "$OUT/err"
		result 1 "stock-check: the host's grtrace tool builds"
		result 1 "i915-check: the host's grtrace tool builds"
	fi
done
finish
