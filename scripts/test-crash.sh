#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# GPU job history that survives a crash: the guest kernel and initramfs of
# this run, booted with the command line "grtrace persist" prints (a
# persistent ftrace instance holding the grtrace events from early boot,
# and its backup) plus three more backups for the other reads, KUnit's
# drm_sched timeout suite at boot (a mock job hangs until the scheduler's
# timeout reports it) and grtrace.mode=crash: the first boot renders with
# kmscube and glmark2 on virgl and panics while they do; QEMU resets the
# guest without clearing its memory (--reboot); the second boot reads the
# previous boot with grtrace report --last-boot and export --last-boot
# (scripts/guest/tests/crash.sh).  scripts/crash-check.py checks what it
# wrote against what reached the host before the crash.  While the clients
# render, grtrace top runs in batch mode and in tmux: scripts/top-check.py
# checks it against the same stream, and a relay session is read through
# its merged reader (trace_pipe): scripts/merged-check.py.  KTAP.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

# persist, the boots, three checkers
ktap_begin 5
CHECK=crash
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
res=$RUN/crash
rm -rf "$res"
mkdir -p "$res"

tool=$CACHE/grtrace-tool/grtrace
persist=$("$tool" persist 2> "$OUT/err")
result $? "grtrace persist prints the kernel command line" || finish
echo "# $persist"
copies=
for c in grtrace_json grtrace_jobs grtrace_perfetto; do
	copies="$copies trace_instance=$c=grtrace_boot"
done
start=$SECONDS
"$ROOT/scripts/guest/run-qemu.sh" --kernel "$BUILD/arch/x86/boot/bzImage" \
	--initrd "$INITRAMFS" --share "$res" --log "$res/serial.log" \
	--timeout "${GUEST_TIMEOUT:-1500}" --gl --reboot \
	--append "$persist$copies grtrace.mode=crash grtrace.timeout=900 kunit.filter_glob=drm_sched_basic_timeout_tests" \
	> "$OUT/err" 2>&1
result $? "the guest booted twice and powered off"
echo "# guest time: $((SECONDS - start)) s (two boots)"
checker crash-check python3 "$ROOT/scripts/crash-check.py" "$res" "$res/serial.log"
# grtrace top, run in the first boot while the clients rendered
checker top-check python3 "$ROOT/scripts/top-check.py" "$res"
# The relay stream's merged reader, read in the first boot while they rendered
checker merged-check python3 "$ROOT/scripts/merged-check.py" "$tool" "$res"
finish
