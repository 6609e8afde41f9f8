#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Control for the int3 race: flip tracepoints on and off while their call
# sites run on the other vCPU.  kind: upstream (sched_switch/sched_wakeup,
# ftrace, under a pipe ping-pong), grtrace-ftrace (the grtrace events in
# ftrace alone, under emit-rate), relay (grtrace's patch-race: relay
# sessions with ftrace on).
T=/sys/kernel/tracing
D=/sys/kernel/debug/grtrace
S=/mnt/host
secs=60
kind=$(cat $S/kind)
case $kind in
upstream)
	$S/pingpong $secs > /tmp/load.out 2>&1 &
	ev="$T/events/sched/sched_switch/enable $T/events/sched/sched_wakeup/enable" ;;
grtrace-ftrace)
	/opt/grtrace/bin/emit-rate 50000 $secs > /tmp/load.out 2>&1 &
	ev="$T/events/grtrace/enable" ;;
relay)
	echo 1 > $T/events/grtrace/enable
	/opt/grtrace/bin/emit-rate 50000 $secs > /tmp/load.out 2>&1 & ;;
esac
load=$!
n=0
t0=$(cut -d. -f1 /proc/uptime)
while kill -0 $load 2> /dev/null; do
	if [ $kind = relay ]; then
		echo start > $D/control; echo stop > $D/control
	else
		for e in $ev; do echo 1 > $e; done
		for e in $ev; do echo 0 > $e; done
	fi
	n=$((n + 1))
done
wait $load
echo "control $kind: $n flips in $(( $(cut -d. -f1 /proc/uptime) - t0 )) s; load: $(cat /tmp/load.out)"
