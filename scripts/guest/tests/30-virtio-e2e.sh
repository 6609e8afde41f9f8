#!/bin/sh
# End-to-end: real virtio-gpu traffic (fbdev console, /dev/fb0 writes and a
# KMS dumb buffer program) recorded by the grtrace relay stream and by
# "trace-cmd record -e grtrace -e virtio_gpu" at once.  The files go to
# the host, where scripts/e2e-check.py checks them.
D=/sys/kernel/debug/grtrace
O=${GRTRACE_OUT:-/tmp}/e2e
mkdir -p "$O"

echo 0 > $D/enabled
printf 'level=verbose\nfilter_ring_id=-1\nreset_stats=1\n' > $D/config || exit 1
echo start > $D/control || exit 1
trace-cmd record -q -e grtrace -e virtio_gpu -o /tmp/e2e.dat sh -c "
	i=0
	while [ \$i -lt 5 ]; do
		echo 'grtrace e2e: console line' \$i > /dev/tty0
		i=\$((i + 1))
	done
	dd if=/dev/urandom of=/dev/fb0 bs=4096 count=16 2>/dev/null
	/opt/grtrace/bin/grtrace_dirtyfb /dev/dri/card0 20 > /tmp/dirtyfb.out
	sleep 1" > /dev/null 2>&1 || exit 1
echo stop > $D/control
echo "level=normal" > $D/config

cat /tmp/dirtyfb.out
cp /tmp/dirtyfb.out /tmp/e2e.dat "$O/"
for f in $D/events[0-9]*; do
	cat "$f" > "$O/$(basename "$f").bin"
done
cat $D/stats > "$O/stats.txt"
grep -q "DIRTYFB ioctls" /tmp/dirtyfb.out
