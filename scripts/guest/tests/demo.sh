#!/bin/sh
# The 3D workload of "make demo" and of tests/35-virgl.sh: Debian's kmscube
# (atomic modesetting with explicit fences) and glmark2-es2-drm at once on
# virtio-gpu-gl, whose commands virglrenderer runs on the host's llvmpipe.
# Both run from the host's root, a read-only 9p share, in a chroot.
#
# Recorded by the grtrace relay stream, by "trace-cmd record -e grtrace
# -e virtio_gpu" and by "grtrace probe -p virtio-gpu" (kprobes: the same
# commands, and the clients' 3D contexts) at once.  With GRTRACE_OBSERVE=1
# the same run is also seen as a user would look at it: bpftrace counting
# grtrace_submit by comm, "perf record -e 'grtrace:*' -a", and a trace-cmd
# instance with a field filter.  The files go to OUTDIR; the host checks
# them.
#
# usage: demo.sh OUTDIR
O=${1:-${GRTRACE_OUT:-/tmp}}
D=/sys/kernel/debug/grtrace
C=/tmp/virgl			# work directory, inside the chroot
mkdir -p "$O"
. /tests/virgl.lib
virgl_mount || exit 1
mkdir -p $H$C

# The clients (virgl.lib), glmark2 for 5 s
virgl_clients

# trace-cmd runs outside the chroot (libtracefs finds tracefs by its path
# in /proc/mounts, which a chroot does not see), the clients inside it.
# "perf record -a" runs meanwhile, and bpftrace runs the clients and
# prints its map when they exit; the trace-cmd instance "filtered" keeps
# only glmark2's SUBMITs.  perf starts with its events off and says when
# they are on (--control); it gets a session of its own: perf 6.1 ends by
# sending SIGTERM to its process group.
filter='-B filtered -e grtrace:grtrace_submit -f comm=="glmark2-es2-drm"'
cat > $H$C/record.sh <<'EOF'
cd /tmp/virgl
mkfifo perf.ctl perf.ack
setsid perf record -q -e 'grtrace:*' -a -D -1 --control fifo:perf.ctl,perf.ack \
	-o perf.data > perf.log 2>&1 &
p=$!
echo enable > perf.ctl && read -r ack < perf.ack
bpftrace -o bpftrace.out \
	-e 'tracepoint:grtrace:grtrace_submit { @[args->comm] = count(); }' \
	-c '/bin/sh clients.sh 5'
echo disable > perf.ctl && read -r ack < perf.ack
kill -INT $p
wait $p
EOF

# grtrace probe, outside the chroot too: the virtio-gpu profile's jobs and
# the create and destroy of each client's 3D context, with its debug name.
# It runs until the relay stream has the last answers (probe.grt, probe.out;
# scripts/probe-check.py --contexts checks them against the relay files).
T=/sys/kernel/tracing
/opt/grtrace/bin/grtrace probe -p /opt/grtrace/profiles/virtio-gpu.profile \
	-o /tmp/probe.grt > /tmp/probe.out 2>&1 &
probe=$!
i=0
until grep -qs 1 $T/instances/grtrace_probe_$probe/events/grtrace_probe_$probe/enable ||
	[ $i -ge 150 ]; do
	sleep 0.2
	i=$((i + 1))
done

echo 0 > $D/enabled
printf 'level=verbose\nfilter_ring_id=-1\nreset_stats=1\n' > $D/config || exit 1
echo start > $D/control || exit 1
# shellcheck disable=SC2086
trace-cmd record -q -e grtrace -e virtio_gpu $filter -o /tmp/trace.dat \
	chroot $H sh $C/record.sh > $H$C/record.out 2>&1
rc=$?
sleep 1		# the relay stream gets the answers of the last commands
echo stop > $D/control
echo "level=normal" > $D/config
kill -INT $probe
wait $probe
echo "grtrace probe: exit $?" >> /tmp/probe.out
cat /tmp/probe.out

cat $H$C/record.out $H$C/kmscube.out $H$C/glmark2.out
grep -q 'kmscube exit 0, glmark2-es2-drm exit 0' $H$C/record.out || rc=1
if [ -e $H$C/perf.data ]; then
	chroot $H perf script -i $C/perf.data -F comm,tid,time,event,trace > $H$C/perf-script.out 2> $H$C/perf.err
fi
cp /tmp/trace.dat "$O/"
cp /tmp/probe.out "$O/"
[ -e /tmp/probe.grt ] && cp /tmp/probe.grt "$O/"
for f in kmscube.out glmark2.out record.out bpftrace.out perf-script.out perf.err perf.log \
	 perf.data; do
	[ -e $H$C/$f ] && cp $H$C/$f "$O/"
done
for f in $D/events[0-9]*; do
	cat "$f" > "$O/$(basename "$f").bin"
done
{ cat $D/stats; echo; cat $D/events_by_type; echo; cat $D/rings; } > "$O/grtrace-stats.txt"
virgl_umount
echo "demo: exit $rc"
[ "$rc" = 0 ]
