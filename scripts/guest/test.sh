#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot the guest kernel in QEMU (TCG) with virtio-gpu, run the KUnit suites
# (built in, at boot), the kselftests and the end-to-end tests, check the
# serial log and the recordings the guest left on the share, and print one
# verdict: "N passed, N failed" last.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"

out=${GUEST_OUT:-$RUN/guest}
# Schedulers of the scale test (issue 34's 10,000), in rounds of at most
# 2,000 (a KUnit case keeps its mock schedulers, entities and jobs until
# it ends); each test's time limit grows with them (2,000: 400 s, 10,000:
# 800 s).
scale=${GRTRACE_SCALE:-10000}
rounds=$(((scale + 1999) / 2000))
rm -rf "$out"
mkdir -p "$out/share"
"$ROOT/scripts/guest/run-qemu.sh" --kernel "$BUILD/arch/x86/boot/bzImage" \
	--initrd "$INITRAMFS" --share "$out/share" \
	--log "$out/serial.log" --timeout "${GUEST_TIMEOUT:-900}" \
	--append "grtrace.mode=test grtrace.scale=$((scale / rounds)) grtrace.scale_rounds=$rounds grtrace.timeout=$((300 + scale / 20)) kunit.enable=1 kunit.filter=speed>slow" >&2

# KTAP: the serial log's KUnit results (the kernel's KTAP parser), its
# verdict (guest tests, kernel reports: scripts/guest/verdict.py), the
# end-to-end check of the recordings, and the tool's JSON, as one document.
# Five checkers, the vCPUs, two JSON files.
ktap_begin 8
export SRC
CHECK=guest
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
# The guest tests init runs in mode test: every numbered script.
expect=$(cd "$ROOT/scripts/guest/tests" && ls [0-9]*.sh | sed 's/\.sh$//' | paste -sd,)
checker kunit python3 "$ROOT/scripts/ktap.py" leaves "$out/serial.log" kunit:
checker verdict python3 "$ROOT/scripts/guest/verdict.py" --no-kunit --expect "$expect" \
	"$out/serial.log"
checker e2e-check python3 "$ROOT/scripts/e2e-check.py" "$out/share/e2e"
checker probe-check python3 "$ROOT/scripts/probe-check.py" "$CACHE/grtrace-tool/grtrace" \
	"$out/share/probe/hooks.grt" "$out/share/probe/probe.grt"
checker scale-check python3 "$ROOT/scripts/scale-check.py" "$CACHE/grtrace-tool/grtrace" \
	"$out/share/scale"
# The per-CPU relay files, their merge and the hard-IRQ tests need the two
# vCPUs QEMU was given: a kernel that finds one (no ACPI, say) fails here.
grep -o 'smp: Brought up [0-9]* nodes*, [0-9]* CPUs*' "$out/serial.log" > "$OUT/err"
grep -q ', 2 CPUs$' "$OUT/err"
result $? "the guest kernel brought up both vCPUs"
# What the grtrace tool wrote in the guest must be valid JSON.
for f in cli/report.json cli/trace.json; do
	python3 -m json.tool "$out/share/$f" > /dev/null 2> "$OUT/err"
	result $? "$f is valid JSON"
done
finish
