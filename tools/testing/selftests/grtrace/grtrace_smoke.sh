#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# grtrace shell smoke test: start, emit x3, stop; stats show the three
# events, and trace-cmd (start -e grtrace, extract) sees the same three.

D=/sys/kernel/debug/grtrace
ksft_skip=4
n=0
fails=0

ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n $1"; }
check() { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1 (got '$2', want '$3')"; fi; }
stat() { sed -n "s/^$2=//p" "$D/$1"; }

if [ ! -w "$D/control" ]; then
	echo "1..0 # SKIP grtrace debugfs not available"
	exit $ksft_skip
fi
if [ ! -w "$D/emit" ]; then
	echo "1..0 # SKIP no emit file (CONFIG_GRTRACE_EMIT)"
	exit $ksft_skip
fi
echo "TAP version 13"

# Ring 250 is ours; real GPUs may be busy meanwhile and are filtered out.
echo stop > $D/control 2>/dev/null
printf 'filter_ring_id=250\nreset_stats=1\n' > $D/config
echo start > $D/control
echo "submit 100 0 250 1" > $D/emit
echo "commit 100 0 250 1" > $D/emit
echo "complete 100 0 250 1" > $D/emit
echo stop > $D/control
check "stats written" "$(stat stats written)" 3
check "stats overrun" "$(stat stats dropped_overrun)" 0
check "stats offered = written + dropped" "$(stat stats offered)" \
	"$(( $(stat stats written) + $(stat stats dropped) ))"
check "events_by_type submit" "$(stat events_by_type submit)" 1
check "enabled after stop" "$(cat $D/enabled)" 0

if echo "bogus=1" > $D/config 2>/dev/null; then
	not_ok "unknown config key rejected"
else
	ok "unknown config key rejected"
fi

# Not "trace-cmd record CMD": it runs CMD without waiting for its per-CPU
# readers to start, and a reader told to stop before it has started
# writes nothing (trace-record.c, create_recorder()), which three writes
# on a slow guest can outrun.  extract reads the buffers in one process.
if command -v trace-cmd >/dev/null; then
	out=/tmp/grtrace-smoke.dat
	trace-cmd start -e grtrace >/dev/null 2>&1
	echo "submit 100 0 250 1" > $D/emit
	echo "commit 100 0 250 1" > $D/emit
	echo "complete 100 0 250 1" > $D/emit
	trace-cmd stop >/dev/null 2>&1
	trace-cmd extract -o $out >/dev/null 2>&1
	echo 0 > /sys/kernel/tracing/events/grtrace/enable
	echo 1 > /sys/kernel/tracing/tracing_on
	rep=$(trace-cmd report -i $out 2>/dev/null | grep 'ring=emit250 ')
	check "trace-cmd grtrace events" "$(echo "$rep" | grep -c 'grtrace_')" 3
	want='grtrace_submit:.*ring_id=250 engine=graphics ctx=100 fence=100:1'
	check "trace-cmd submit line" "$(echo "$rep" | grep -c "$want")" 1
	check "trace-cmd complete status" \
		"$(echo "$rep" | grep -c 'grtrace_complete:.*fence=100:1 status=0')" 1
	check "relay idle while only ftrace ran" "$(stat stats written)" 3
else
	n=$((n + 1)); echo "ok $n trace-cmd # SKIP trace-cmd not installed"
fi

# The ftrace side of a flight recorder (tuning.rst): an instance that
# overwrites its oldest events and stops at the first grtrace_error.
T=/sys/kernel/tracing
I=$T/instances/grtrace_flight
if [ -d $T/instances ] && mkdir $I 2>/dev/null; then
	echo 16 > $I/buffer_size_kb
	echo 1 > $I/events/grtrace/enable
	echo traceoff > $I/events/grtrace/grtrace_error/trigger
	for s in $(seq 1 300); do
		printf 'submit 100 0 250 %s\ncommit 100 0 250 %s\n' $s $s > $D/emit
	done
	echo "error 100 0 250 300" > $D/emit
	echo "submit 100 0 250 301" > $D/emit
	tr=$(grep 'ring=emit250 ' $I/trace)
	check "flight recorder stopped by the error" "$(cat $I/tracing_on)" 0
	last='grtrace_error:.*fence=100:300\|grtrace_commit:.*fence=100:300$'
	check "flight recorder keeps the error and the job before it" \
		"$(echo "$tr" | grep -c "$last")" 2
	# "# entries-in-buffer/entries-written: KEPT/WRITTEN"
	kept=$(sed -n 's|^# entries-in-buffer/entries-written: \([0-9/]*\).*|\1|p' $I/trace)
	check "flight recorder overwrote the oldest events" \
		"$(echo "$kept" | awk -F/ '{ print $1 < $2 }')" 1
	check "flight recorder has nothing after the error" \
		"$(echo "$tr" | grep -c 'fence=100:301\( \|$\)')" 0
	echo '!traceoff' > $I/events/grtrace/grtrace_error/trigger
	echo 0 > $I/events/grtrace/enable
	rmdir $I
else
	n=$((n + 1)); echo "ok $n flight recorder # SKIP no ftrace instances"
fi

echo "filter_ring_id=-1" > $D/config
echo "1..$n"
[ "$fails" = 0 ]
