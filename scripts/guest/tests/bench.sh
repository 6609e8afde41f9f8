#!/bin/sh
# Benchmark (grtrace.mode=bench): load the grtrace_bench KUnit module; its
# "bench ..." lines go to the console, where scripts/bench.sh reads them.
ko=$(find /lib/modules -name grtrace_bench.ko | head -1)
[ -n "$ko" ] || { echo "grtrace_bench.ko not in the initramfs"; exit 1; }
# Rounds of 250 events, a quarter of a millisecond under TCG, in 121
# pairs: the host's speed changes from one millisecond to the next
# (benchmark.rst).
# The persistent instance of the command line (scripts/bench.sh), boot-
# mapped if it has a last_boot_info: the cost of "grtrace persist" too.
inst=
[ -e /sys/kernel/tracing/instances/grtrace_boot/last_boot_info ] && inst=instance=grtrace_boot
insmod "$ko" events=250 pairs=121 $inst || exit 1
rmmod grtrace_bench

# Sustained throughput: the highest rate at which "grtrace record" drains
# the relay buffers of the default size without an overrun.  The paced
# emitter can be the limit itself: its achieved rate is printed too.
G=/opt/grtrace/bin/grtrace
D=/sys/kernel/debug/grtrace
for rate in 2000 5000 10000 20000 40000 80000 160000; do
	$G stop > /dev/null 2>&1
	printf 'level=normal\nfilter_engine_mask=0x4\nreset_stats=1\n' > $D/config
	$G record -s -q -o - > /dev/null &
	rec=$!
	sleep 1
	out=$(/opt/grtrace/bin/emit-rate $rate 3)
	sleep 1
	kill -INT $rec
	wait $rec
	ach=$(echo "$out" | sed -n 's/.*= \([0-9]*\)\/s$/\1/p')
	w=$(sed -n 's/^written=//p' $D/stats)
	o=$(sed -n 's/^dropped_overrun=//p' $D/stats)
	echo "bench throughput: asked $rate achieved ${ach:-0} written $w overrun $o buffer $(cat $D/buffer_size) cpus $(grep -c ^processor /proc/cpuinfo)"
done
printf 'filter_engine_mask=0x3f\nreset_stats=1\n' > $D/config
