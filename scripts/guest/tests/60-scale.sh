#!/bin/sh
# Schedulers at the scale of xe and panthor, which create one per queue:
# upstream's mock scheduler creates and destroys SCALE_SCHEDULERS
# (grtrace.scale= on the kernel command line; 10,000) of them on one
# device, 8 alive at a time, each running 4 jobs and finished from a work
# item, 4 at once (the KUnit suite drm_sched_grtrace_scale,
# run again through debugfs, SCALE_ROUNDS times: grtrace.scale_rounds=,
# 1), while a relay session in aggregate_only mode and "trace-cmd record
# -e grtrace" record.  The recordings, the stats before and after and the
# suite's results go to the share; scripts/scale-check.py checks them on
# the host.  This script fails only if a step could not run.
D=/sys/kernel/debug/grtrace
K=/sys/kernel/debug/kunit/drm_sched_grtrace_scale
P=/sys/module/drm_sched_tests/parameters/scale_schedulers
G=/opt/grtrace/bin/grtrace
O=${GRTRACE_OUT:-/tmp}/scale
arg() { sed -n "s/.*grtrace\.$1=\([0-9]*\).*/\1/p" /proc/cmdline; }
n=${SCALE_SCHEDULERS:-$(arg scale)}
n=${n:-10000}
rounds=${SCALE_ROUNDS:-$(arg scale_rounds)}
rounds=${rounds:-1}
mkdir -p "$O"
# Upstream's mock scheduler came in 6.15: the 6.12 backport has neither it
# nor this suite.  A kernel with the one and not the other fails below.
if [ ! -d $K ] && [ ! -d /sys/kernel/debug/kunit/drm_sched_basic_tests ]; then
	echo "no mock scheduler in this kernel" > "$O/skipped"
	echo "scale: skipped, no mock scheduler in this kernel"
	exit 0
fi
echo $((n * rounds)) > "$O/schedulers"

$G stop > /dev/null 2>&1
$G config level=normal aggregate_only=1 reset_stats=1 > /dev/null || exit 1
cat $D/stats > "$O/stats.before"
echo start > $D/control || exit 1
$G record -q -o "$O/scale.grt" > "$O/record.out" 2>&1 &
rec=$!
echo "$n" > $P || exit 1
t0=$(cut -d' ' -f1 /proc/uptime)
# A KUnit case keeps what it allocated (each mock scheduler, its entity
# and jobs) until it ends: 10,000 are five rounds of 2,000, each round
# the suite run again.
: > "$O/kunit.txt"
cat > /tmp/scale-rounds.sh <<END
r=0
while [ \$r -lt $rounds ]; do
	echo 1 > $K/run
	cat $K/results >> $O/kunit.txt
	r=\$((r + 1))
done
END
trace-cmd record -q -e grtrace -b 8192 -o /tmp/scale.dat \
	sh /tmp/scale-rounds.sh > "$O/trace-cmd.out" 2>&1
rc=$?
t1=$(cut -d' ' -f1 /proc/uptime)
echo stop > $D/control
wait $rec
cat $D/stats > "$O/stats.after"
cp /tmp/scale.dat "$O/scale.dat" && rm /tmp/scale.dat
echo 64 > $P
$G config aggregate_only=0 > /dev/null
echo "scale: $rounds x $n schedulers in $(awk "BEGIN { print $t1 - $t0 }") s, trace-cmd exit $rc"
[ $rc = 0 ]
