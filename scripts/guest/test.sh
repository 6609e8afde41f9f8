#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot the guest kernel in QEMU (TCG) with virtio-gpu, run the KUnit suites
# (built in, at boot), the kselftests and the end-to-end tests, check the
# serial log and the recordings the guest left on the share, and print one
# verdict: "N passed, N failed" last.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"

out=${GUEST_OUT:-$CACHE/guest-test}
rm -rf "$out"
mkdir -p "$out/share"
"$ROOT/scripts/guest/run-qemu.sh" --kernel "$BUILD/arch/x86/boot/bzImage" \
	--initrd "$CACHE/initramfs.cpio.gz" --share "$out/share" \
	--log "$out/serial.log" --timeout "${GUEST_TIMEOUT:-900}" \
	--append "grtrace.mode=test kunit.enable=1"

pass=0 fail=0
for check in "python3 $ROOT/scripts/guest/verdict.py $out/serial.log" \
	     "python3 $ROOT/scripts/e2e-check.py $out/share/e2e"; do
	res=$($check)
	echo "$res" | grep -v -E '^[0-9]+ passed, [0-9]+ failed'
	last=$(echo "$res" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -1)
	p=${last%% passed*}; f=${last#*passed, }; f=${f%% failed*}
	pass=$((pass + ${p:-0})); fail=$((fail + ${f:-1}))
done
# What the grtrace tool wrote in the guest must be valid JSON.
for f in cli/report.json cli/trace.json; do
	if python3 -m json.tool "$out/share/$f" > /dev/null 2>&1; then
		echo "PASS guest: $f is valid JSON"; pass=$((pass + 1))
	else
		echo "FAIL guest: $f is valid JSON"; fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
