#!/bin/sh
# Stress (grtrace.mode=patch-race): the text patching of the grtrace
# tracepoints' call sites while another CPU runs them.  With the grtrace
# events on in ftrace, the tracepoints stay enabled; each relay session
# start and stop adds and removes a second probe, which rewrites every
# call site's static call (text_poke_bp(): int3, sync, new bytes).  The
# emitter meanwhile fires SUBMIT and COMPLETE through the emit file, whose
# grtrace_submit() is one such call site, until PATCH_RACE_SESSIONS (30)
# sessions started and stopped, however long that takes on the machine
# (a loaded one once made 14 in a fixed 30 s).  The serial log's verdict
# fails on any kernel report.
D=/sys/kernel/debug/grtrace
T=/sys/kernel/tracing
sessions=${PATCH_RACE_SESSIONS:-30}
[ -d $T/events ] || mount -t tracefs nodev $T
echo 1 > $T/events/grtrace/enable || exit 1
/opt/grtrace/bin/emit-rate 50000 3600 > /tmp/emit.out 2>&1 &
emit=$!
n=0
while [ $n -lt "$sessions" ]; do
	echo start > $D/control || exit 1
	echo stop > $D/control || exit 1
	n=$((n + 1))
done
# Still firing: it ran through every session.
kill -0 $emit 2> /dev/null && running=yes || running=no
kill -TERM $emit
wait $emit
echo 0 > $T/events/grtrace/enable
echo "patch-race: $n sessions started and stopped; emitter running at the end: $running; emitter: $(cat /tmp/emit.out)"
