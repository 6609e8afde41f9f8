#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot the guest kernel in QEMU (TCG) with virtio-gpu, run the KUnit suites
# (built in, at boot), the kselftests and the end-to-end tests, check the
# serial log and the recordings the guest left on the share, and print one
# verdict: "N passed, N failed" last.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/suites.sh"

out=${GUEST_OUT:-$RUN/guest}
# Schedulers of the scale test (issue 34's 10,000), in rounds of at most
# 2,000 (a KUnit case keeps its mock schedulers, entities and jobs until
# it ends); the scale test's time limit grows with them (2,000: 500 s,
# 10,000: 1,300 s).
scale=${GRTRACE_SCALE:-10000}
rounds=$(((scale + 1999) / 2000))
rm -rf "$out"
mkdir -p "$out/share" "$out/scale-share"
# Two boots at once, each on one host core (single-threaded TCG): every
# KUnit suite at boot and the numbered guest tests but the scale test and
# blktrace, and the scale test alone (only its KUnit suite at boot).  Under
# single-threaded TCG beside the other lanes a round of 2,000 schedulers
# took 100 s to 200 s (14 s on two host threads alone; the 10,000 took
# 530 s here, over 800 s on CI's machine), the kselftests over 300 s: each
# other test may take 800 s.
#
# GRTRACE_GUEST_TOOL=1 (make test): only what runs the grtrace tool.  The
# KUnit suites at boot and the kselftests never do; step kunit
# (scripts/test-kunit.sh) boots them, and the result cache keeps its
# results for a change to the tools alone.  This boot then runs at boot
# only the mock scheduler's basic suites (not their slow cases), whose
# debugfs files 36-kernel-events.sh runs again.  blktrace (22-blktrace.sh)
# runs in step kunit's first boot, on mainline only, never here.
tool_only=${GRTRACE_GUEST_TOOL:-}
tests=$(cd "$ROOT/scripts/guest/tests" && ls [0-9]*.sh | sed 's/\.sh$//' | grep -vx -e 60-scale -e 22-blktrace |
	if [ -n "$tool_only" ]; then grep -vx 20-kselftest; else cat; fi | paste -sd,)
kunit="kunit.filter=speed>slow"
[ -z "$tool_only" ] || kunit="kunit.filter_glob=drm_sched_basic_* kunit.filter=speed>slow"
"$ROOT/scripts/guest/run-qemu.sh" --kernel "$BUILD/arch/x86/boot/bzImage" \
	--initrd "$INITRAMFS" --share "$out/share" \
	--log "$out/serial.log" --timeout "${GUEST_TIMEOUT:-1500}" \
	--append "grtrace.mode=test grtrace.tests=$tests grtrace.timeout=800 kunit.enable=1 $kunit" >&2 &
main=$!
# Upstream's mock scheduler came in 6.15: the 6.12 backport has no scale test.
mock=yes
[ -d "$SRC/drivers/gpu/drm/scheduler/tests" ] || mock=
[ -z "$mock" ] || "$ROOT/scripts/guest/run-qemu.sh" --kernel "$BUILD/arch/x86/boot/bzImage" \
	--initrd "$INITRAMFS" --share "$out/scale-share" \
	--log "$out/scale.log" --timeout "${GUEST_TIMEOUT:-$((600 + scale / 10))}" \
	--append "grtrace.mode=test grtrace.tests=60-scale grtrace.scale=$((scale / rounds)) grtrace.scale_rounds=$rounds grtrace.timeout=$((300 + scale / 10)) kunit.enable=1 kunit.filter_glob=drm_sched_grtrace_scale" >&2
wait $main

# KTAP: each serial log's KUnit results (the kernel's KTAP parser) and
# verdict (guest tests, kernel reports: scripts/guest/verdict.py), the
# end-to-end checks of the recordings, the vCPUs, the tool's JSON.
# (the 6.12 backport has no mock scheduler: its plan has no scale test).
plan=9
[ -z "$mock" ] || plan=12
[ -z "$tool_only" ] || plan=$((plan - 1))
ktap_begin $plan
export SRC
CHECK=guest
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
# The KUnit suites and kselftests the boot must have run (unless step
# kunit runs them).
if [ -z "$tool_only" ]; then
	checker kunit python3 "$ROOT/scripts/ktap.py" leaves "$out/serial.log" kunit: \
		--expect "$(kunit_suites "$mock")"
	tests+=,$(kselftests)
fi
checker verdict python3 "$ROOT/scripts/guest/verdict.py" --no-kunit --expect "$tests" "$out/serial.log"
checker e2e-check python3 "$ROOT/scripts/e2e-check.py" "$out/share/e2e"
# The jobs of the kernel's own events against grtrace's: virtio-gpu's
# (the end-to-end test's recording) and the mock scheduler's.
checker "kernel events: virtio" python3 "$ROOT/scripts/kernel-events-check.py" \
	"$CACHE/grtrace-tool/grtrace" "$out/share/e2e/e2e.dat" virtio
if [ -n "$mock" ]; then
	checker "kernel events: sched" python3 "$ROOT/scripts/kernel-events-check.py" \
		"$CACHE/grtrace-tool/grtrace" "$out/share/kevents/kevents.dat" sched
else
	# 6.12: grtrace's scheduler suite, read from the older events alone
	checker "kernel events: older sched" python3 "$ROOT/scripts/old-sched-check.py" \
		"$CACHE/grtrace-tool/grtrace" "$out/share/kevents/kevents.dat"
fi
checker probe-check python3 "$ROOT/scripts/probe-check.py" "$CACHE/grtrace-tool/grtrace" \
	"$out/share/probe/hooks.grt" "$out/share/probe/probe.grt"
if [ -n "$mock" ]; then
	checker "scale: kunit" python3 "$ROOT/scripts/ktap.py" leaves "$out/scale.log" kunit: \
		--expect drm_sched_grtrace_scale
	checker "scale: verdict" python3 "$ROOT/scripts/guest/verdict.py" --no-kunit \
		--expect 60-scale "$out/scale.log"
	checker scale-check python3 "$ROOT/scripts/scale-check.py" "$CACHE/grtrace-tool/grtrace" \
		"$out/scale-share/scale"
fi
# The per-CPU relay files, their merge and the hard-IRQ tests need the two
# vCPUs QEMU was given: a kernel that finds one (no ACPI, say) fails here.
grep -o 'smp: Brought up [0-9]* nodes*, [0-9]* CPUs*' "$out/serial.log" > "$OUT/err"
grep -q ', 2 CPUs$' "$OUT/err"
result $? "serial.log: the guest kernel brought up both vCPUs"
# What the grtrace tool wrote in the guest must be valid JSON.
for f in cli/report.json cli/trace.json; do
	python3 -m json.tool "$out/share/$f" > /dev/null 2> "$OUT/err"
	result $? "$f is valid JSON"
done
finish
