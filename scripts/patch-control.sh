#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The control experiment for the "Oops: int3" of the text patching race
# (README): boot the guest kernel of the cache N times per KIND and flip
# tracepoints on and off for 60 s while their call sites run on the other
# vCPU (scripts/guest/patch-control/guest.sh, grtrace.mode=run):
#   upstream        sched_switch and sched_wakeup in ftrace, under a pipe
#                   ping-pong (no grtrace tracepoint involved)
#   grtrace-ftrace  the grtrace events in ftrace alone, under emit-rate
#   relay           grtrace's patch-race: relay sessions with ftrace on
# One line per boot: its time, the guest's count, the first kernel report.
# Not part of make test: it needs the kernel and initramfs of a run.
# usage: patch-control.sh [N [KIND...]]
set -uo pipefail
. "$(dirname "$0")/lib.sh"

n=${1:-2}
shift
kinds=${*:-upstream grtrace-ftrace relay}
out=$ROOT/results/patch-control
mkdir -p "$out"
gcc -O2 -static -pthread -o "$out/pingpong" "$ROOT/scripts/guest/patch-control/pingpong.c" ||
	die "cannot build pingpong"
for kind in $kinds; do
	for i in $(seq 1 "$n"); do
		d=$out/$kind-$i
		rm -rf "$d"
		mkdir -p "$d/share"
		cp "$ROOT/scripts/guest/patch-control/guest.sh" "$d/share/run.sh"
		cp "$out/pingpong" "$d/share/"
		echo "$kind" > "$d/share/kind"
		start=$SECONDS
		GRTRACE_QEMU_ACCEL=${GRTRACE_QEMU_ACCEL:-tcg} "$ROOT/scripts/guest/run-qemu.sh" --kernel "$BUILD/arch/x86/boot/bzImage" \
			--initrd "$INITRAMFS" --share "$d/share" --log "$d/serial.log" \
			--timeout 240 --append "grtrace.mode=run kunit.enable=0" > "$d/qemu.out" 2>&1
		rep=$(grep -m1 -E 'Oops|BUG:|WARNING:|KASAN:' "$d/serial.log" | tr -d '\r')
		echo "$kind $i: $((SECONDS - start)) s; $(grep -m1 'control ' "$d/serial.log" | tr -d '\r'); report: ${rep:-none}"
	done
done
