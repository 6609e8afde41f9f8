#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# KUnit suites that step guest does not run, each in a boot of its own of
# this run's guest kernel (KASAN, lockdep and UBSAN on, no guest test:
# grtrace.mode=kunit):
#
# slow  the cases marked slow, which step guest leaves out
#       (kunit.filter=speed>slow): this boot runs only them
#       (kunit.filter=speed<normal).  Among them upstream's
#       drm_sched_concurrent_tests, which kernel patch 3 fixes, and
#       grtrace's cross-CPU start/stop test (grtrace_test_start_stop_atomic).
# drm   DRM's tests of the atomic commit helpers (drm_atomic_commit_test.ko,
#       loaded by init), of them the suite drm_atomic_helper_wait_for_vblanks:
#       the wait after the next commit freed the new CRTC states, which
#       KASAN reports without the DRM fix of the kernel series.
#
# KTAP: per boot, that it booted and powered off, its KUnit results (the
# kernel's parser), its serial log's verdict; then that each named suite
# ran and passed, none skipped.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

ktap_begin 7
export SRC
CHECK=kunit-slow
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
out=$RUN/kunit-slow
rm -rf "$out"
mkdir -p "$out"

# Where a guest that timed out hung, from what its kernel printed on the
# NMI (run-qemu.sh --dump-on-timeout): the stack the NMI interrupted on
# the CPU that took it, then the tasks that wait uninterruptibly, with
# their stacks.
blocked() {
	sed 's/^\[ *[0-9.]*\] //' "$1" | awk '
		/^Kernel panic - not syncing: NMI/ { p = 1 }
		p && /^(Kernel Offset|---\[ end|task:)/ { p = 0 }
		/^task:/ { d = / state:D / }
		/^(Showing|Kernel Offset|---\[ end|INFO: lockdep)/ { d = 0 }
		/^ *(\? |<\/?NMI>|<\/?TASK>)|^R[A-Z0-9]*:|^Code:|^ *[A-Z] [^ ]+ +[0-9]+ / { next }
		(p && n++ < 24) || d' | head -60
}

# boot NAME APPEND: boot the guest with APPEND, check its serial log.
boot() {
	local rc

	"$ROOT/scripts/guest/run-qemu.sh" --dump-on-timeout --kernel "$BUILD/arch/x86/boot/bzImage" \
		--initrd "$INITRAMFS" --log "$out/$1.log" --timeout "${GUEST_TIMEOUT:-1200}" \
		--append "grtrace.mode=kunit kunit.enable=1 $2" > "$OUT/err" 2>&1
	rc=$?
	[ $rc != 124 ] || blocked "$out/$1.log" >> "$OUT/err"
	ERR_LINES=64 result $rc "$1: the guest booted and powered off"
	checker "$1: kunit" python3 "$ROOT/scripts/ktap.py" leaves "$out/$1.log" kunit:
	checker "$1: verdict" python3 "$ROOT/scripts/guest/verdict.py" --no-kunit "$out/$1.log"
}
boot slow "kunit.filter=speed<normal"
boot drm "kunit.filter_glob=drm_atomic_helper_wait_for_vblanks grtrace.kunit_modules=drm_atomic_commit_test"

for want in drm_sched_concurrent_tests. grtrace.grtrace_test_start_stop_atomic \
	drm_atomic_helper_wait_for_vblanks.; do
	grep -qh "^ok [0-9]* kunit: $want" "$OUT"/*kunit.ktap ||
		echo "no passing case of $want" >> "$OUT/names"
done
grep -hE "^ok [0-9]* kunit: .*# SKIP" "$OUT"/*kunit.ktap | head -5 >> "$OUT/names"
mv "$OUT/names" "$OUT/err" 2> /dev/null || : > "$OUT/err"
[ ! -s "$OUT/err" ]
result $? "drm_sched_concurrent_tests, grtrace_test_start_stop_atomic and drm_atomic_helper_wait_for_vblanks ran and passed, nothing skipped"
finish
