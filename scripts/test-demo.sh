#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make demo", the README's first command, as a newcomer types it: it must
# exit 0 and leave the recording of the 3D clients and its answer.  The
# kernel and initramfs are this run's (steps kernel and initramfs): make is
# told not to remake them (-o initramfs).  Its recording is the 3D
# end-to-end test: scripts/virgl-check.py checks it, and
# scripts/probe-check.py --contexts the recording of grtrace probe made in
# the same run.  KTAP.
source "$(dirname "$0")/lib.sh"
# Eight checks here, four checkers: virgl, host, probe, the serial log.
ktap_begin 12
OUT=$(mktemp -d /tmp/grtrace-demo.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
CHECK=demo
res=$RUN/demo

RESULTS=$res make -s -C "$ROOT" -o initramfs demo > "$OUT/log" 2>&1
rc=$?
tail -n 20 "$OUT/log" > "$OUT/err"
result $rc "make demo exits 0"
cp "$OUT/log" "$res/make-demo.log" 2> /dev/null

: > "$OUT/err"
for f in trace.dat events0.bin report.txt trace.json lanes.dat lanes.json \
	qemu-trace.log trace-host.json; do
	[ -s "$res/$f" ] || echo "$res/$f: missing or empty" >> "$OUT/err"
done
[ ! -s "$OUT/err" ]
result $? "it leaves trace.dat, events*.bin, report.txt, trace.json, lanes.dat, lanes.json, qemu-trace.log, trace-host.json"

grep -q 'Rendered [0-9]* frames' "$res/kmscube.out" 2> "$OUT/err" &&
	grep -q 'glmark2 Score' "$res/glmark2.out" 2>> "$OUT/err"
result $? "kmscube and glmark2-es2-drm ran on virgl"

# The report's per-process and per-context tables (their first, of
# latency; the name ends a row) name both clients, and the plugin's lines
# (the last section) reached the end of report.txt.
awk '/^per process: latency/,/^$/' "$res/report.txt" > "$OUT/proc"
awk '/^per context: latency/,/^$/' "$res/report.txt" > "$OUT/ctx"
# (The status of each condition is taken before its diagnostic is written.)
grep -q ' kmscube\[[0-9]*\]$' "$OUT/proc" && grep -q ' glmark2-es2-drm\[[0-9]*\]$' "$OUT/proc"
rc=$?
[ $rc = 0 ] || { echo "per process:"; cat "$OUT/proc"; } > "$OUT/err"
result $rc "report.txt: per process names kmscube and glmark2-es2-drm"
# (each in a context of its own, not only in ctx 0's list of submitters)
# (a context lists the tasks that submitted in it by name: a client's
# threads, Mesa's "kmscube:disk$0", may come first)
grep -Eq ' ctx [1-9][0-9]* (.* )?kmscube\[' "$OUT/ctx" &&
	grep -Eq ' ctx [1-9][0-9]* (.* )?glmark2-es2-drm\[' "$OUT/ctx"
rc=$?
[ $rc = 0 ] || { echo "per context:"; cat "$OUT/ctx"; } > "$OUT/err"
result $rc "report.txt: per context names kmscube and glmark2-es2-drm"
[ "$(sed -n '/^## trace-cmd report with plugin_grtrace/,$p' "$res/report.txt" |
	grep -c 'grtrace_')" = 12 ]
rc=$?
[ $rc = 0 ] || tail -5 "$res/report.txt" > "$OUT/err"
result $rc "report.txt: ends with 12 plugin lines (trace-cmd was not cut short)"
python3 -m json.tool "$res/trace.json" > /dev/null 2> "$OUT/err"
result $? "trace.json is valid JSON"
python3 "$ROOT/scripts/host-json-check.py" "$res/trace-host.json" > "$OUT/err" 2>&1
result $? "trace-host.json: QEMU's process, its fences, flows guest -> host -> guest"

checker virgl-check python3 "$ROOT/scripts/virgl-check.py" "$res"

# The host's side (QEMU's virtio_gpu events of the same run) joined with
# the guest's trace.dat by fence id; in the 6.12 step, the first demo's
# QEMU log (another run) must be refused.
other=
[ "$(basename "$RUN")" = 6.12 ] && [ -s "$RUN/../demo/qemu-trace.log" ] &&
	other=$(realpath "$RUN/../demo/qemu-trace.log")
# shellcheck disable=SC2086
checker host-check python3 "$ROOT/scripts/host-check.py" "$CACHE/grtrace-tool/grtrace" \
	"$res" $other

# grtrace probe -p virtio-gpu ran through the same workload: the clients'
# 3D contexts, created, named, destroyed, their jobs in its recording and
# in the relay stream's (read by the tool built from the series).
checker probe-check python3 "$ROOT/scripts/probe-check.py" --contexts \
	"$CACHE/grtrace-tool/grtrace" "$res/probe.grt" "$res" kmscube glmark2-es2-drm

# The guest's serial log: the demo ran, and the kernel reported nothing
# (KASAN, lockdep, UBSAN, WARN) while the 3D clients went through it.
checker verdict python3 "$ROOT/scripts/guest/verdict.py" --no-kunit --expect demo \
	"$res/serial.log"
finish
