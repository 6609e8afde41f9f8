#!/bin/sh
# Real 3D work: Debian's kmscube, run from the host's root (a read-only 9p
# share) on virtio-gpu-gl, whose commands virglrenderer executes on the
# host's llvmpipe.  Recorded by the grtrace relay stream and by
# "trace-cmd record -e grtrace -e virtio_gpu" at once; the files go to the
# host, where scripts/virgl-check.py checks them.
D=/sys/kernel/debug/grtrace
O=${GRTRACE_OUT:-/tmp}/virgl
H=/host
FRAMES=30
mkdir -p "$O" $H

if ! grep -qs 'virgl *: *yes' /sys/kernel/debug/dri/*/virtio-gpu-features; then
	echo "virgl: the GPU has no 3D (run-qemu.sh --gl)"
	exit 1
fi
mount -t 9p -o trans=virtio,version=9p2000.L,ro hostroot $H || exit 1
for d in proc sys dev sys/kernel/debug sys/kernel/tracing; do
	mount -o bind /$d $H/$d || exit 1
done
for d in tmp run root; do
	mount -t tmpfs tmpfs $H/$d || exit 1
done

echo 0 > $D/enabled
printf 'level=verbose\nfilter_ring_id=-1\nreset_stats=1\n' > $D/config || exit 1
echo start > $D/control || exit 1
# kmscube stops at input on stdin, or at its end: give it a FIFO opened
# read-write, which is neither.
mkfifo /tmp/kmscube.in
trace-cmd record -q -e grtrace -e virtio_gpu -o /tmp/virgl.dat \
	chroot $H kmscube -D /dev/dri/card0 -c $FRAMES \
	<> /tmp/kmscube.in > /tmp/kmscube.out 2>&1
rc=$?
sleep 1		# the relay stream gets the answers of the last commands
echo stop > $D/control
echo "level=normal" > $D/config

cat /tmp/kmscube.out
cp /tmp/kmscube.out /tmp/virgl.dat "$O/"
for f in $D/events[0-9]*; do
	cat "$f" > "$O/$(basename "$f").bin"
done
cat $D/stats > "$O/stats.txt"
for d in root run tmp sys/kernel/tracing sys/kernel/debug dev sys proc; do
	umount $H/$d
done
umount $H
[ "$rc" = 0 ] && grep -q "Rendered [0-9]* frames" /tmp/kmscube.out
