#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The text patching stress (issue 34): the guest kernel of step kernel,
# booted with grtrace.mode=patch-race, starts and stops PATCH_RACE_SESSIONS
# (30) relay sessions in a loop with the grtrace events on in ftrace, so
# that every start and stop rewrites the static calls of the grtrace
# tracepoints while emit-rate fires them on the other vCPU
# (scripts/guest/tests/patch-race.sh).  Any kernel report fails it.  No
# GPU: nothing here draws, and a loaded machine once made the fbdev
# console's vblank wait on virtio-gpu time out (a WARNING, not this
# step's code).
#
# Under single-threaded TCG (one host thread runs both vCPUs in turn):
# under QEMU 7.2's multi-threaded TCG a vCPU can run a call site's bytes
# from before the last write of text_poke_bp() and take an int3 nobody
# claims, and does the same with upstream's sched_switch tracepoint and
# no grtrace code involved (scripts/patch-control.sh, README).  Single-
# threaded TCG still interleaves the vCPUs: the patching CPU waits in its
# sync IPIs while the other runs the call sites.
#
# Run beside step fuzz, whose fuzzing keeps one core (scripts/test.sh):
# a single-threaded guest takes the other.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

ktap_begin 4
CHECK=patch-race
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
out=$RUN/patch-race
sessions=${PATCH_RACE_SESSIONS:-30}
rm -rf "$out"
mkdir -p "$out"

"$ROOT/scripts/guest/run-qemu.sh" \
	--kernel "$BUILD/arch/x86/boot/bzImage" --initrd "$INITRAMFS" \
	--log "$out/serial.log" --timeout 900 --no-gpu \
	--append "grtrace.mode=patch-race grtrace.timeout=720 PATCH_RACE_SESSIONS=$sessions kunit.enable=0" \
	> "$OUT/err" 2>&1
result $? "the guest booted and powered off"
checker verdict python3 "$ROOT/scripts/guest/verdict.py" --no-kunit --expect patch-race \
	"$out/serial.log"
# The stress must have run: its sessions all, the emitter firing through
# them.  Ten boots of a fixed 30 s, two at a time on 2 cores, made 32 to
# 64 sessions; a fixed time made 14 once, on a loaded machine.
line=$(grep -a -m1 '^patch-race: ' "$out/serial.log" | tr -d '\r')
echo "# $line"
n=$(sed -n 's/^patch-race: \([0-9]*\) sessions.*/\1/p' <<< "$line")
running=$(sed -n 's/.*emitter running at the end: \([a-z]*\);.*/\1/p' <<< "$line")
sent=$(sed -n 's/.*emitter: .*sent \([0-9]*\).*/\1/p' <<< "$line")
[ "${n:-0}" -eq "$sessions" ]
result $? "$sessions sessions started and stopped (${n:-none})"
# Through every session, and many events in each on average: 19,800 to
# 55,000 in five loaded runs.  The floor, 6,500 a session, is the fixed
# 30 s's 6,500 a second: 195,000 events for 30 sessions, as before.
[ "$running" = yes ] && [ "${sent:-0}" -ge $((sessions * 6500)) ]
result $? "the emitter fired through every session, at least $((sessions * 6500)) events (${sent:-none}, running at the end: ${running:-none})"
finish
