#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# grtrace as a module, in a booted kernel: the CONFIG_GRTRACE=m kernel of
# step configs (KASAN, lockdep, UBSAN as the guest kernel) with this run's
# initramfs and that kernel's modules appended to it (the kernel unpacks
# concatenated archives), booted with grtrace.mode=modules:
# scripts/guest/tests/modules.sh loads and unloads grtrace.ko 50 times
# while virtio-gpu commands flow and sessions record.  KTAP: the guest
# test's result and every kernel report of the serial log
# (scripts/guest/verdict.py).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

ktap_begin 5
CHECK=modules
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
dir=$CACHE/build-x86-m
out=$RUN/modules
rm -rf "$out"
mkdir -p "$out"
[ -f "$dir/vmlinux" ] || { result 1 "the =m kernel is built (step configs)"; finish; }
grep -qx 'CONFIG_GRTRACE=m' "$dir/.config"
result $? "CONFIG_GRTRACE=m in $dir" || finish

# The bzImage of step configs' vmlinux and its modules (a few seconds).
# Both: step configs takes a passing build of the same kernel series
# from its result cache without making anything, and a tree applied
# again since relinks vmlinux here; modules left from before would carry
# BTF of the vmlinux before, which the kernel refuses to load.
{
	make -C "$SRC" O="$dir" CC="ccache gcc" -j"$JOBS" -s bzImage modules &&
	rm -rf "$dir/modroot" &&
	make -C "$SRC" O="$dir" -s INSTALL_MOD_PATH="$dir/modroot" modules_install &&
	(cd "$dir/modroot" && find lib | cpio -o -H newc --quiet | gzip -1) > "$OUT/modules.cpio.gz" &&
	cat "$INITRAMFS" "$OUT/modules.cpio.gz" > "$OUT/initrd"
} > "$OUT/err" 2>&1
result $? "bzImage, modules and an initramfs with them" || finish
find "$dir/modroot" -name grtrace.ko > "$OUT/err"
result "$([ -s "$OUT/err" ]; echo $?)" "grtrace.ko is among the modules" || finish

"$ROOT/scripts/guest/run-qemu.sh" --cpus 1 --kernel "$dir/arch/x86/boot/bzImage" \
	--initrd "$OUT/initrd" --log "$out/serial.log" --timeout 900 \
	--append "grtrace.mode=modules grtrace.timeout=840 kunit.filter_glob=grtrace.grtrace_test_header_epoch" > "$OUT/err" 2>&1
result $? "the guest booted and powered off"
checker verdict python3 "$ROOT/scripts/guest/verdict.py" --no-kunit --expect modules \
	"$out/serial.log"
grep -m1 '^modules: [0-9]* of' "$out/serial.log" | sed 's/^/# /'
finish
