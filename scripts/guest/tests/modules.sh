#!/bin/sh
# grtrace.mode=modules, on the CONFIG_GRTRACE=m kernel of step configs:
# load and unload grtrace.ko MODULES_LOOPS times (50) while virtio-gpu
# commands flow.  The hooks and tracepoints are built in; the module
# adds and removes the relay stream's probes on them while they fire.
# Each load starts a session that records the traffic; every other one
# is stopped before the unload, the rest by the unload itself.  A load,
# start or unload that fails, a session that wrote nothing, or a debugfs
# directory that outlives its module fails the test; the serial log's
# verdict fails on any kernel report (KASAN, lockdep, UBSAN, WARN).
D=/sys/kernel/debug/grtrace
loops=${MODULES_LOOPS:-50}
stat() { sed -n "s/^$1=//p" "$D/stats"; }

[ -d $D ] && { echo "modules: $D exists before grtrace.ko is loaded"; exit 1; }
(
	while :; do
		/opt/grtrace/bin/grtrace_dirtyfb /dev/dri/card0 20 > /dev/null 2>&1 || sleep 1
	done
) &
traffic=$!

i=0
while [ $i -lt $loops ]; do
	modprobe grtrace || { echo "modules: load $i failed"; break; }
	echo start > $D/control || { echo "modules: start $i failed"; break; }
	n=0
	while [ "$(stat written)" = 0 ] && [ $n -lt 50 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	written=$(stat written)
	[ "$written" -gt 0 ] || { echo "modules: session $i wrote nothing"; break; }
	[ $((i % 2)) = 0 ] && { echo stop > $D/control || break; }
	rmmod grtrace || { echo "modules: unload $i failed"; break; }
	[ -d $D ] && { echo "modules: $D outlived unload $i"; break; }
	i=$((i + 1))
done
kill $traffic
wait 2> /dev/null
echo "modules: $i of $loops loads and unloads, the last session wrote ${written:-0} events"
[ $i = "$loops" ]
