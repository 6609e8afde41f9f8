#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The KUnit cases marked slow, which step guest leaves out
# (kunit.filter=speed>slow): the guest kernel of this run booted with only
# them (kunit.filter=speed<normal), KASAN, lockdep and UBSAN on, and no
# guest test (grtrace.mode=kunit).  Among them upstream's
# drm_sched_concurrent_tests, which kernel patch 5 fixes, and grtrace's
# cross-CPU start/stop test (grtrace_test_start_stop_atomic), which needs
# the two vCPUs.  KTAP: the boot, the KUnit results (the kernel's parser),
# the serial log's verdict, and that those two ran.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

ktap_begin 4
export SRC
CHECK=kunit-slow
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
out=$RUN/kunit-slow
rm -rf "$out"
mkdir -p "$out"
"$ROOT/scripts/guest/run-qemu.sh" --kernel "$BUILD/arch/x86/boot/bzImage" \
	--initrd "$INITRAMFS" --log "$out/serial.log" --timeout "${GUEST_TIMEOUT:-1200}" \
	--append "grtrace.mode=kunit kunit.enable=1 kunit.filter=speed<normal" > "$OUT/err" 2>&1
result $? "the guest booted and powered off"
checker kunit python3 "$ROOT/scripts/ktap.py" leaves "$out/serial.log" kunit:
checker verdict python3 "$ROOT/scripts/guest/verdict.py" --no-kunit "$out/serial.log"
# The two the audit found run nowhere, by name: each suite's cases passed
# (a skip would not do).
for want in drm_sched_concurrent_tests. grtrace.grtrace_test_start_stop_atomic; do
	grep -q "^ok [0-9]* kunit: $want" "$OUT/kunit.ktap" ||
		echo "no passing case of $want" >> "$OUT/err2"
done
grep -E "^ok [0-9]* kunit: .*# SKIP" "$OUT/kunit.ktap" | head -5 >> "$OUT/err2"
mv "$OUT/err2" "$OUT/err" 2> /dev/null
[ ! -s "$OUT/err" ]
result $? "drm_sched_concurrent_tests and grtrace_test_start_stop_atomic ran and passed, nothing skipped"
finish
