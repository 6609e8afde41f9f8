#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The main job: boot the patched kernel with a virtio-gpu device, trace a
# real virtio-gpu workload (fbdev console and /dev/fb0 writes) with the
# grtrace relay stream and trace-cmd, and bring the results out.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

res=${RESULTS:-$ROOT/results/demo}
rm -rf "$res"
mkdir -p "$res"
"$ROOT/scripts/guest/run-qemu.sh" --kernel "$BUILD/arch/x86/boot/bzImage" \
	--initrd "$CACHE/initramfs.cpio.gz" --share "$res" \
	--log "$res/serial.log" --timeout "${GUEST_TIMEOUT:-600}" \
	--append "grtrace.mode=demo kunit.enable=0"
[ -s "$res/trace.dat" ] || die "the guest wrote no trace.dat; see $res/serial.log"

# The host side tools: the grtrace CLI and the trace-cmd plugin.
tool=$CACHE/host-tools
make -C "$ROOT/tools/grtrace" -s O="$tool/grtrace" UAPI_INCLUDE="$ROOT" >/dev/null
make -C "$ROOT/tools/tracing/grtrace-plugin" -s O="$tool/plugin" >/dev/null
{
	echo "# grtrace demo: $(date -u '+%F %T UTC')"
	echo "# kernel: $(sed -n 's/.*Linux version \([^ ]*\).*/\1/p' "$res/serial.log" | head -1)"
	echo
	echo "## trace.dat events by name (trace-cmd report on the host)"
	trace-cmd report -i "$res/trace.dat" 2>/dev/null |
		sed -n 's/.*: *\([a-z_0-9]*\): .*/\1/p' | sort | uniq -c | sort -rn
	echo
	if ! grep -q '^written=[1-9]' "$res/grtrace-stats.txt" 2>/dev/null; then
		echo "## note: the relay stream recorded no events: the series does not"
		echo "## hook virtio-gpu yet, so only the virtio_gpu tracepoints show the workload."
	fi
	echo "## grtrace relay stream (guest debugfs)"
	cat "$res/grtrace-stats.txt" 2>/dev/null
	echo
	echo "## relay files"
	ls -l "$res"/events*.bin 2>/dev/null | awk '{print $5, $NF}'
	echo
	echo "## grtrace report -i $res --per-ring --per-process"
	"$tool/grtrace/grtrace" report -i "$res" --per-ring --per-process
	echo
	echo "## grtrace report -i $res --topn 10"
	"$tool/grtrace/grtrace" report -i "$res" --topn 10
	echo
	echo "## trace-cmd report with plugin_grtrace (first job lines)"
	# awk reads to the end: grep -m would close the pipe early and kill
	# trace-cmd with SIGPIPE, which pipefail turns into a failed demo.
	TRACEEVENT_PLUGIN_DIR=$tool/plugin trace-cmd report -i "$res/trace.dat" 2>/dev/null |
		awk '/grtrace_/ && n++ < 12'
} > "$res/report.txt"
"$tool/grtrace/grtrace" export --chrome "$res/trace.json" -i "$res"
cat "$res/report.txt"
log "results in $res (trace.dat, events*.bin, report.txt, trace.json for ui.perfetto.dev, serial.log)"
