#!/bin/sh
# Step stock's guest: Debian's own kernel, unmodified, with no grtrace in
# it.  "grtrace record" there records the kernel's own GPU job events (it
# runs trace-cmd: gpu_scheduler, dma_fence_signaled, virtio_gpu) while
# Debian's kmscube and glmark2-es2-drm render on virtio-gpu-gl at once; the
# host reads trace.dat (scripts/stock-check.py).
#
# usage: stock.sh OUTDIR
O=${1:-${GRTRACE_OUT:-/tmp}}
T=/sys/kernel/tracing
C=/tmp/virgl			# work directory, inside the chroot
mkdir -p "$O"
uname -r > "$O/uname.txt"
[ ! -e /sys/kernel/debug/grtrace ] || { echo "stock: this kernel has grtrace"; exit 1; }
. /tests/virgl.lib
virgl_mount || exit 1
mkdir -p $H$C

A=/opt/grtrace/bin/grtrace-bpf-annotate
[ -x $A ] || { echo "stock: no $A (clang or libbpf-dev missing on the host)"; exit 1; }

# An ftrace instance of the same events, from before the recording to
# after it, which "grtrace report -i instance:" reads once it is done.
I=$T/instances/stockev
mkdir $I && echo 4096 > $I/buffer_size_kb && echo mono > $I/trace_clock &&
	for e in virtio_gpu/virtio_gpu_cmd_queue virtio_gpu/virtio_gpu_cmd_response \
		 dma_fence/dma_fence_signaled; do
		echo 1 > $I/events/$e/enable || exit 1
	done || { echo "stock: the instance stockev could not be made"; exit 1; }

/opt/grtrace/bin/grtrace record -o /tmp/trace.dat > /tmp/record.out 2>&1 &
rec=$!
i=0
until [ "$(cat $T/events/virtio_gpu/virtio_gpu_cmd_queue/enable 2>/dev/null)" = 1 ] ||
      [ $i -ge 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ $i -lt 600 ] || { echo "stock: the recording did not start"; cat /tmp/record.out; exit 1; }

# The DRM ioctls meanwhile, for grtrace merge on the host: the annotator
# needs BPF and the raw syscall tracepoints, not grtrace.  Attached once
# its header line is out.
rm -f /tmp/cpu.txt
$A -o /tmp/cpu.txt 2> /tmp/annotate.err &
ann=$!
i=0
until [ -s /tmp/cpu.txt ] || ! kill -0 $ann 2> /dev/null || [ $i -ge 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ -s /tmp/cpu.txt ] || { echo "stock: the annotator did not start"; cat /tmp/annotate.err; exit 1; }

# grtrace top in batch mode meanwhile, on the same events, as text and
# as CSV, an interval a second from before the clients start until they
# have ended (on a loaded host, six intervals once ended before kmscube's
# first frame).
/opt/grtrace/bin/grtrace top -b > /tmp/top-batch.txt 2>&1 &
top=$!
/opt/grtrace/bin/grtrace top -f csv > /tmp/top.csv 2> /tmp/top-csv.err &
csv=$!
# The clients, as step demo runs them (virgl.lib), glmark2 for 3 s
virgl_clients
chroot $H /bin/sh $C/clients.sh 3 > /tmp/clients.out 2>&1
k=$?
# The interval in which kmscube's last jobs ended, then SIGINT: top ends
# with status 0.
sleep 1.5
kill -INT $top $csv
wait $top
t=$?
wait $csv
c=$?
kill -INT $rec
wait $rec
r=$?
kill -TERM $ann
wait $ann
a=$?
echo 0 > $I/tracing_on
/opt/grtrace/bin/grtrace report -i instance:stockev --jobs -f json > /tmp/instance.json \
	2> /tmp/instance.err
i=$?
rmdir $I
cp $H$C/kmscube.out $H$C/glmark2.out /tmp/clients.out /tmp/record.out /tmp/top-batch.txt /tmp/top.csv /tmp/top-csv.err "$O/"
cp /tmp/cpu.txt /tmp/annotate.err /tmp/instance.json /tmp/instance.err "$O/"
cp /tmp/trace.dat "$O/trace.dat"
echo "stock: clients exit $k, grtrace record exit $r, grtrace top exit $t, top -f csv exit $c, annotator exit $a, report of the instance exit $i"
[ $k = 0 ] && [ $r = 0 ] && [ $t = 0 ] && [ $c = 0 ] && [ $a = 0 ] && [ $i = 0 ] &&
	[ -s "$O/trace.dat" ]
