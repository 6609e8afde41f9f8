#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The tool on the kernel a user already runs: Debian's own kernel image
# (linux-image-amd64 of trixie-backports), extracted from its packages as
# they are (nothing is installed on the host), booted in QEMU with a 3D
# virtio-gpu and this run's initramfs, its modules appended
# (scripts/guest/init loads them).  In the guest, "grtrace record" records
# the kernel's own events while Debian's kmscube renders, and "grtrace
# top" shows them live (scripts/guest/tests/stock.sh); here,
# scripts/stock-check.py checks "grtrace report"'s jobs and top's
# intervals against trace-cmd's reading of the same events and QEMU's own
# trace of the same commands.  KTAP: the boot, the guest test
# and the kernel's reports (verdict.py), the checks.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

ktap_begin 4
CHECK=stock
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
out=$RUN/stock
rm -rf "$out"
mkdir -p "$out"

# stock_kernel: $CACHE/stock/ABI/{vmlinuz,mods/,mods/load} of the newest
# linux-image-amd64 of trixie-backports (scripts/deps.sh adds that suite).
stock_kernel() {
	local img abi dir deb mod

	set -e
	img=$(apt-cache depends linux-image-amd64/trixie-backports 2> /dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -1)
	[ -n "$img" ] || { echo "no linux-image-amd64 in trixie-backports (make deps)"; return 1; }
	abi=${img#linux-image-}
	dir=$CACHE/stock/$abi
	if [ ! -f "$dir/mods/load" ]; then
		rm -rf "$dir" && mkdir -p "$dir/deb" "$dir/root" "$dir/mods"
		(cd "$dir/deb" && apt-get download "linux-binary-$abi" "linux-modules-$abi")
		for deb in "$dir"/deb/*.deb; do dpkg-deb -x "$deb" "$dir/root"; done
		cp "$dir/root/usr/lib/modules/$abi/vmlinuz" "$dir/vmlinuz"
		# The packages ship no modules.dep: made here, for the load order.
		depmod -b "$dir/root/usr" "$abi" 2> /dev/null
		for mod in $(for m in virtio-gpu 9p 9pnet_virtio; do
				modprobe -d "$dir/root/usr" -S "$abi" --show-depends "$m"
			done | awk '$1 == "insmod" && !seen[$2]++ {print $2}'); do
			xz -dc "$mod" > "$dir/mods/$(basename "$mod" .xz)"
			basename "$mod" .xz >> "$dir/mods/load.new"
		done
		mv "$dir/mods/load.new" "$dir/mods/load"
		rm -rf "$dir/deb" "$dir/root"
	fi
	echo "$dir"
}
dir=$(stock_kernel 2> "$OUT/err" | tail -1)
[ -f "${dir:-/nonexistent}/vmlinuz" ]
result $? "Debian's kernel $(basename "${dir:-none}") and its modules, from its packages" || finish

# This run's initramfs with the kernel's modules in /stock (a cpio
# appended: the kernel unpacks each).
mkdir -p "$OUT/root/stock"
cp "$dir"/mods/* "$OUT/root/stock/"
(cd "$OUT/root" && find stock | cpio -o -H newc --quiet | gzip -1) > "$OUT/mods.cpio.gz"
cat "$INITRAMFS" "$OUT/mods.cpio.gz" > "$OUT/initrd"
"$ROOT/scripts/guest/run-qemu.sh" --cpus 1 --kernel "$dir/vmlinuz" --initrd "$OUT/initrd" \
	--share "$out" --log "$out/serial.log" --timeout 600 --gl \
	--host-trace "$out/qemu-trace.log" \
	--append "grtrace.mode=stock grtrace.timeout=540" > "$OUT/err" 2>&1
result $? "the guest booted Debian's kernel and powered off"
checker verdict python3 "$ROOT/scripts/guest/verdict.py" --no-kunit --expect stock \
	"$out/serial.log"

tool=$CACHE/host-tools
make -C "$ROOT/tools/grtrace" -s -j"$JOBS" O="$tool/grtrace" UAPI_INCLUDE="$ROOT" > "$OUT/err" 2>&1 &&
	checker stock-check python3 "$ROOT/scripts/stock-check.py" "$tool/grtrace/grtrace" \
		"$out/trace.dat" "$out/qemu-trace.log" "$out/top-batch.txt"
[ $? = 0 ] || [ -s "$OUT/stock-check.ktap" ] || result 1 "the host's grtrace tool builds"
finish
