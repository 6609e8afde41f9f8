#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make bench": the grtrace_bench KUnit suite under UML (native code: the
# ratios closest to hardware) and in the QEMU guest (TCG: only ratios mean
# anything), then one table with ratios to the bare TRACE_EVENT baseline.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=${BENCH_OUT:-$ROOT/results/bench}
rm -rf "$out"
mkdir -p "$out/share"

log "bench: UML (kunit.py, $CACHE/build-um-bench)"
(cd "$SRC" && python3 tools/testing/kunit/kunit.py run --arch=um \
	--build_dir="$CACHE/build-um-bench" --jobs="$JOBS" --timeout 900 \
	--kunitconfig=drivers/gpu/grtrace/tests/bench.kunitconfig \
	--make_options CC="ccache gcc" --raw_output=all) > "$out/uml.log" 2>&1 ||
	log "bench: kunit.py failed, see $out/uml.log"

log "bench: QEMU guest"
"$ROOT/scripts/guest/run-qemu.sh" --kernel "$BUILD/arch/x86/boot/bzImage" \
	--initrd "$CACHE/initramfs.cpio.gz" --share "$out/share" \
	--log "$out/guest.log" --timeout "${GUEST_TIMEOUT:-1200}" \
	--append "grtrace.mode=bench grtrace.timeout=1100" ||
	log "bench: the guest run failed, see $out/guest.log"

{
	echo "# grtrace bench, $(date -u '+%F %T UTC'), host: $(nproc) x $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)"
	python3 "$ROOT/scripts/bench-report.py" "UML=$out/uml.log" "QEMU-TCG=$out/guest.log"
} | tee "$out/bench.txt"
log "bench: $out/bench.txt"
