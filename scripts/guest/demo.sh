#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The main job: boot the patched kernel with a 3D virtio-gpu device, trace
# real Mesa clients on it (Debian's kmscube and glmark2-es2-drm at once,
# tests/demo.sh in the guest) with the grtrace relay stream and trace-cmd,
# and write the answer: report.txt (where each job's time went, by process
# and context), trace.json for ui.perfetto.dev, lanes.dat for KernelShark.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

res=${RESULTS:-$ROOT/results/demo}
rm -rf "$res"
mkdir -p "$res"
# The timeouts catch a hang, nothing else: the workload takes about 300 s
# of the guest's clock from /init on an idle host (5 to 6 min), and took
# more than 600 s in a cold make test, beside two other guests and the
# fuzzer (4 times as long as an idle run to its first trace): as step
# crash, 900 s in the guest and 1500 s to QEMU.
"$ROOT/scripts/guest/run-qemu.sh" --kernel "$BUILD/arch/x86/boot/bzImage" \
	--initrd "$INITRAMFS" --share "$res" \
	--log "$res/serial.log" --timeout "${GUEST_TIMEOUT:-1500}" --gl \
	--host-trace "$res/qemu-trace.log" \
	--append "grtrace.mode=demo grtrace.timeout=900 kunit.enable=0"
grep -q 'GRTRACE-TEST: demo PASS' "$res/serial.log" ||
	die "the guest workload failed; see $res/serial.log and $res/demo.log"
[ -s "$res/trace.dat" ] || die "the guest wrote no trace.dat; see $res/serial.log"

# The host side tools: the grtrace CLI and the trace-cmd plugin.
tool=$CACHE/host-tools
make -C "$ROOT/tools/grtrace" -s -j"$JOBS" O="$tool/grtrace" UAPI_INCLUDE="$ROOT" >/dev/null
make -C "$ROOT/tools/tracing/grtrace-plugin" -s O="$tool/plugin" >/dev/null
{
	echo "# grtrace demo: $(date -u '+%F %T UTC')"
	echo "# kernel: $(sed -n 's/.*Linux version \([^ ]*\).*/\1/p' "$res/serial.log" | head -1)"
	echo
	echo "## trace.dat events by name (trace-cmd report on the host)"
	trace-cmd report -i "$res/trace.dat" 2>/dev/null |
		sed -n 's/.*: *\([a-z_0-9]*\): .*/\1/p' | sort | uniq -c | sort -rn
	echo
	echo "## the clients"
	tail -n 3 "$res/kmscube.out" "$res/glmark2.out"
	echo
	echo "## grtrace relay stream (guest debugfs)"
	cat "$res/grtrace-stats.txt" 2>/dev/null
	echo
	echo "## relay files"
	ls -l "$res"/events*.bin 2>/dev/null | awk '{print $5, $NF}'
	echo
	echo "## grtrace report -i $res: where the GPU time went"
	"$tool/grtrace/grtrace" report -i "$res"
	echo
	echo "## grtrace report -i $res --per-ring --per-process --per-context"
	"$tool/grtrace/grtrace" report -i "$res" --per-ring --per-process --per-context
	echo
	echo "## grtrace report -i $res --topn 10"
	"$tool/grtrace/grtrace" report -i "$res" --topn 10
	echo
	echo "## grtrace report -i $res/trace.dat --host $res/qemu-trace.log --topn 10"
	echo "# the guest's trace.dat joined with QEMU's virtio_gpu events by fence id"
	"$tool/grtrace/grtrace" report -i "$res/trace.dat" --host "$res/qemu-trace.log" --topn 10
	echo
	echo "## the same run through bpftrace, perf and a trace-cmd field filter (in the guest)"
	echo "# bpftrace -e 'tracepoint:grtrace:grtrace_submit { @[args->comm] = count(); }'"
	# Its map; a missing one is virgl-check.py's to report, not a reason
	# for set -e to end make demo.
	sed -n '/^@/p' "$res/bpftrace.out"
	echo "# perf record -e 'grtrace:*' -a; perf script: grtrace_submit by comm"
	awk '/ grtrace:grtrace_submit: / && match($0, / comm=[^ ]*/) {
		n[substr($0, RSTART + 6, RLENGTH - 6)]++
	} END {for (c in n) print "  " c, n[c]}' "$res/perf-script.out" | sort
	echo "# trace-cmd record ... -B filtered -e grtrace:grtrace_submit -f 'comm == \"glmark2-es2-drm\"'"
	trace-cmd report -i "$res/trace.dat" 2>/dev/null |
		awk '/^ *filtered:/ && /grtrace_submit:/ {n++} END {print "  filtered instance: " n+0 " SUBMITs"}'
	echo
	echo "## trace-cmd report with plugin_grtrace (first job lines)"
	# awk reads to the end: grep -m would close the pipe early and kill
	# trace-cmd with SIGPIPE, which pipefail turns into a failed demo.
	TRACEEVENT_PLUGIN_DIR=$tool/plugin trace-cmd report -i "$res/trace.dat" 2>/dev/null |
		awk '/grtrace_/ && n++ < 12'
} > "$res/report.txt"
"$tool/grtrace/grtrace" export --chrome "$res/trace.json" -i "$res"
"$tool/grtrace/grtrace" export --chrome "$res/trace-host.json" -i "$res/trace.dat" \
	--host "$res/qemu-trace.log"
"$tool/grtrace/grtrace" export --kernelshark "$res/lanes.dat" --kernelshark-session "$res/lanes.json" \
	-i "$res/trace.dat"
cat "$res/report.txt"
log "results in $res: report.txt, trace.dat, events*.bin, trace.json (ui.perfetto.dev),"
log "qemu-trace.log (the host's side), trace-host.json (guest and host in one trace),"
log "lanes.json (kernelshark -s $res/lanes.json: the GPU lanes by name under the CPUs),"
log "lanes.dat (kernelshark -i $res/trace.dat -a $res/lanes.dat), serial.log"
