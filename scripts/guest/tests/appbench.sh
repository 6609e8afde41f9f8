#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The cost an application feels (grtrace.mode=appbench; scripts/bench.sh
# boots it with virgl, and scripts/bench-report.py --app reads its lines).
#
# kmscube and glmark2-es2-drm render at once on virgl, as in make demo,
# for $SECS seconds per run, under five ways of tracing:
#   off     nothing traces
#   tp      the grtrace tracepoints only: trace-cmd record -e grtrace
#   relay   the relay stream only: grtrace record -s
#   both    both of them at once
#   aggr    the relay stream in aggregate_only mode: grtrace record -s
# A round runs each of the five once, in the order off tp relay both aggr,
# the next round in the reverse order (ABCDE EDCBA ...): a drift of the
# host's speed weighs on every mode alike.  Each run prints one line:
#   appbench MODE round R glmark2 SCORE kmscube FPS trace_cmd_cpu_ms MS
#     trace_cmd_bytes N grtrace_cpu_ms MS grtrace_bytes N wall_ms MS ...
# glmark2's score of its "build" scene, kmscube's frames per second (from
# its first 2 s report to its last), and for tp and relay the CPU time (user and
# system, the recorder and its children) and the bytes of what it recorded,
# and the wall time of the recording.
#
# Rounds: grtrace.app_rounds=N on the kernel command line (4).
ROUNDS=$(sed -n 's/.*grtrace\.app_rounds=\([0-9]*\).*/\1/p' /proc/cmdline)
ROUNDS=${ROUNDS:-4}
SECS=10
G=/opt/grtrace/bin/grtrace
D=/sys/kernel/debug/grtrace
C=/tmp/appbench

. /tests/virgl.lib
virgl_mount || exit 1
mkdir -p $H$C
cat > $H$C/clients.sh <<EOF
cd $C
rm -f kmscube.in kmscube.out glmark2.out
mkfifo kmscube.in
exec 3<> kmscube.in
stdbuf -oL kmscube -A -D /dev/dri/card0 -c 100000 <&3 > kmscube.out 2>&1 &
k=\$!
# kmscube first: the first to open the card is its DRM master, and only
# the master may commit
i=0
until grep -q 'Using modifier' kmscube.out || [ \$i -ge 300 ]; do
	sleep 0.1
	i=\$((i + 1))
done
glmark2-es2-drm --off-screen -b build:duration=$SECS > glmark2.out 2>&1
echo q >&3
wait \$k
EOF

# recorder NAME CMD...: start CMD in a subshell that, once CMD ends, writes
# the CPU time of its children (busybox's "times": CMD and what CMD waited
# for) to /tmp/NAME.times; CMD's pid goes to /tmp/NAME.pid.
recorder() {
	name=$1
	shift
	rm -f /tmp/$name.pid /tmp/$name.times
	( "$@" > /tmp/$name.log 2>&1 &
	  echo $! > /tmp/$name.pid
	  wait $!
	  times > /tmp/$name.times ) &
	i=0
	while [ ! -s /tmp/$name.pid ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# stop_recorder NAME: SIGINT, wait; prints "MS" (children's user + system)
stop_recorder() {
	kill -INT "$(cat /tmp/$1.pid)"
	i=0
	while [ ! -s /tmp/$1.times ] && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	# Second line: children's user and system time, as "0m1.230s 0m0.450s"
	sed -n 2p /tmp/$1.times | awk '{
		n = 0
		for (i = 1; i <= 2; i++) {
			split($i, a, "m"); sub("s", "", a[2]); n += a[1] * 60 + a[2]
		}
		printf "%d\n", n * 1000 }'
}

run_mode() {
	mode=$1 round=$2
	tc_ms=- tc_bytes=- gr_ms=- gr_bytes=-
	rm -f /tmp/tc.dat /tmp/rec.grt
	echo stop > $D/control 2> /dev/null
	aggr=0
	[ "$mode" = aggr ] && aggr=1
	printf 'level=normal\naggregate_only=%s\nreset_stats=1\n' $aggr > $D/config
	t0=$(cut -d' ' -f1 /proc/uptime)
	case $mode in tp|both)
		recorder tc trace-cmd record -q -e grtrace -o /tmp/tc.dat ;;
	esac
	case $mode in relay|both|aggr)
		recorder gr $G record -s -q -o /tmp/rec.grt ;;
	esac
	sleep 1
	chroot $H sh $C/clients.sh
	case $mode in tp|both)
		tc_ms=$(stop_recorder tc)
		tc_bytes=$(stat -c %s /tmp/tc.dat 2> /dev/null || echo 0) ;;
	esac
	case $mode in relay|both|aggr)
		gr_ms=$(stop_recorder gr)
		gr_bytes=$(stat -c %s /tmp/rec.grt 2> /dev/null || echo 0) ;;
	esac
	# The recording's wall time, ms: its recorders ran that long
	wall=$(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" \
		'BEGIN { printf "%d", (b - a) * 1000 }')
	score=$(sed -n 's/.*glmark2 Score: *\([0-9]*\).*/\1/p' $H$C/glmark2.out)
	# kmscube counts its frames from its start: the rate from its first
	# report (2 s in, past its start-up) to its last
	fps=$(sed -n 's/^Rendered \([0-9]*\) frames in \([0-9.]*\) sec.*/\1 \2/p' \
		$H$C/kmscube.out | awk 'NR == 1 { n0 = $1; t0 = $2 } { n = $1; t = $2 }
		END { if (t > t0) printf "%.2f", (n - n0) / (t - t0); else print "-" }')
	echo "appbench $mode round $round glmark2 ${score:--} kmscube $fps" \
		"trace_cmd_cpu_ms $tc_ms trace_cmd_bytes $tc_bytes" \
		"grtrace_cpu_ms $gr_ms grtrace_bytes $gr_bytes wall_ms $wall" \
		"written $(sed -n 's/^written=//p' $D/stats) dropped $(sed -n 's/^dropped=//p' $D/stats)"
}

echo "appbench: $ROUNDS rounds of $SECS s per mode, $(grep -c ^processor /proc/cpuinfo) CPUs"
r=0
while [ $r -lt "$ROUNDS" ]; do
	order="off tp relay both aggr"
	[ $((r % 2)) = 1 ] && order="aggr both relay tp off"
	for m in $order; do
		run_mode $m $r
	done
	r=$((r + 1))
done
echo stop > $D/control 2> /dev/null
printf 'aggregate_only=0\nreset_stats=1\n' > $D/config
tail -n 3 $H$C/glmark2.out $H$C/kmscube.out
virgl_umount
