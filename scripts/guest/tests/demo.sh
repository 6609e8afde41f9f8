#!/bin/sh
# Demo workload (grtrace.mode=demo): drive the virtio-gpu device through the
# fbdev console, /dev/fb0 and a KMS dumb-buffer program while the grtrace relay stream and
# "trace-cmd record -e grtrace -e virtio_gpu" record; copy the results out.
D=/sys/kernel/debug/grtrace
O=${GRTRACE_OUT:-/tmp}

printf 'level=verbose\nfilter_ring_id=-1\nreset_stats=1\n' > $D/config || exit 1
echo start > $D/control || exit 1
trace-cmd record -q -e grtrace -e virtio_gpu -o /tmp/trace.dat sh -c '
	i=0
	while [ $i -lt 20 ]; do
		echo "grtrace demo: console line $i" > /dev/tty0
		i=$((i + 1))
	done
	dd if=/dev/urandom of=/dev/fb0 bs=4096 count=64 2>/dev/null
	/opt/grtrace/bin/grtrace_dirtyfb /dev/dri/card0 50
	sleep 1' || exit 1
echo stop > $D/control

cp /tmp/trace.dat "$O/trace.dat"
for f in $D/events[0-9]*; do
	cat "$f" > "$O/$(basename "$f").bin"
done
{ cat $D/stats; echo; cat $D/events_by_type; echo; cat $D/rings; } > "$O/grtrace-stats.txt"
cat "$O/grtrace-stats.txt"
trace-cmd report -i /tmp/trace.dat 2>/dev/null | sed -n 's/.*: *\([a-z_0-9]*\): .*/\1/p' | sort | uniq -c
