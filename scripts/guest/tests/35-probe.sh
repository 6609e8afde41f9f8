#!/bin/sh
# "grtrace probe" with tools/grtrace/profiles/virtio-gpu.profile: the
# jobs of virtio-gpu's control queue from kprobes, recorded while the relay
# stream records the same commands from the driver's hooks.  The host
# (scripts/probe-check.py) matches the two one for one.  Here: a profile
# naming a missing function traces nothing, and every kprobe and instance
# is gone after SIGINT.
G=/opt/grtrace/bin/grtrace
P=/opt/grtrace/profiles
T=/sys/kernel/tracing
D=/sys/kernel/debug/grtrace
O=${GRTRACE_OUT:-/tmp}/probe
mkdir -p "$O"
RESULT_PREFIX=probe
. /tests/result.lib
no_dynevents() {
	[ ! -s $T/dynamic_events ] && [ -z "$(ls $T/instances)" ]
}
missing_clean() {
	no_dynevents && [ ! -e /tmp/missing.grt ]
}

printf 'ring r\nprobe a grtrace_no_such_function x=$arg1\njob a commit\n' > /tmp/missing.profile
$G probe -p /tmp/missing.profile -o /tmp/missing.grt > /tmp/missing.out 2>&1
cat /tmp/missing.out
t missing-symbol grep -q 'no function grtrace_no_such_function.*nothing was traced' /tmp/missing.out
t missing-nothing-created missing_clean

echo 0 > $D/enabled
printf 'level=verbose\nfilter_ring_id=-1\nreset_stats=1\n' > $D/config || exit 1
$G probe -p $P/virtio-gpu.profile -o /tmp/probe.grt > /tmp/probe.out 2>&1 &
p=$!
i=0
until grep -q 1 $T/instances/grtrace_probe_$p/events/grtrace_probe_$p/enable 2>/dev/null ||
	[ $i -ge 150 ]; do
	sleep 0.2
	i=$((i + 1))
done
t probe-running grep -q 1 $T/instances/grtrace_probe_$p/events/grtrace_probe_$p/enable
t mono-clock grep -q '\[mono\]' $T/instances/grtrace_probe_$p/trace_clock
$G record -s -q -o /tmp/hooks.grt > /tmp/hooks.out 2>&1 &
r=$!
sleep 1
i=0
while [ $i -lt 5 ]; do
	echo "grtrace probe: console line $i" > /dev/tty0
	i=$((i + 1))
done
dd if=/dev/urandom of=/dev/fb0 bs=4096 count=16 2>/dev/null
/opt/grtrace/bin/grtrace_dirtyfb /dev/dri/card0 20 > /dev/null
sleep 1
kill -INT $r
wait $r
t record-exit [ $? = 0 ]
kill -INT $p
wait $p
t probe-exit [ $? = 0 ]
cat /tmp/probe.out /tmp/hooks.out
t sigint-removes-all no_dynevents
echo "level=normal" > $D/config
cp /tmp/probe.grt /tmp/hooks.grt /tmp/probe.out "$O/"
exit $rc
