#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot the guest kernel in QEMU (TCG) with virtio-gpu, run the KUnit suites
# (built in, at boot), the kselftests and the end-to-end tests, and turn the
# serial log into one verdict: "N passed, N failed" last.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"

out=${GUEST_OUT:-$CACHE/guest-test}
rm -rf "$out"
mkdir -p "$out/share"
"$ROOT/scripts/guest/run-qemu.sh" --kernel "$BUILD/arch/x86/boot/bzImage" \
	--initrd "$CACHE/initramfs.cpio.gz" --share "$out/share" \
	--log "$out/serial.log" --timeout "${GUEST_TIMEOUT:-900}" \
	--append "grtrace.mode=test kunit.enable=1"
python3 "$ROOT/scripts/guest/verdict.py" "$out/serial.log"
