#!/bin/sh
# grtrace.mode=modules, on the CONFIG_GRTRACE=m kernel of step configs:
# load and unload grtrace.ko and grtrace_virtio_gpu.ko MODULES_LOOPS
# times (50) while virtio-gpu commands flow.  The tracepoints are built
# in; grtrace adds and removes the relay stream's probes on them, and
# grtrace_virtio_gpu its probes on virtio-gpu's tracepoints, a source of
# grtrace events, while they fire.  Each load starts a session that
# records the traffic; every other one is stopped before the unloads,
# the rest by the unload of grtrace, which goes first or second in turn.
# A load, start or unload that fails, a session that wrote nothing, a
# debugfs directory that outlives its module, an emit file (this kernel
# leaves CONFIG_GRTRACE_EMIT out, as a distribution's would), or a grtrace
# that needs virtio-gpu fails the test; the serial log's verdict fails on any
# kernel report (KASAN, lockdep, UBSAN, WARN).  Then grtrace's KUnit suite
# meets a session it did not start (below).
D=/sys/kernel/debug/grtrace
loops=${MODULES_LOOPS:-50}
counter() { sed -n "s/^$1=//p" "$D/stats"; }
# The session wrote events, and virtio-gpu's control queue is a ring of it.
recorded() { [ "$(counter written)" -gt 0 ] && grep -q ' control$' $D/rings; }

[ -d $D ] && { echo "modules: $D exists before grtrace.ko is loaded"; exit 1; }
# grtrace needs neither virtio-gpu nor its source; the source, not grtrace.
for m in grtrace grtrace_virtio_gpu; do
	[ "$(modinfo -F name $m)" = $m ] || { echo "modules: no module $m"; exit 1; }
	deps=$(modinfo -F depends $m)
	case "$m,$deps," in
	grtrace,*virtio_gpu,* | grtrace_virtio_gpu,*grtrace,*)
		echo "modules: $m needs ${deps:-nothing}"; exit 1 ;;
	esac
done
(
	while :; do
		/opt/grtrace/bin/grtrace_dirtyfb /dev/dri/card0 20 > /dev/null 2>&1 || sleep 1
	done
) &
traffic=$!

i=0
while [ $i -lt $loops ]; do
	modprobe grtrace || { echo "modules: load $i failed"; break; }
	[ -e $D/emit ] && { echo "modules: $D/emit without CONFIG_GRTRACE_EMIT"; break; }
	modprobe grtrace_virtio_gpu || { echo "modules: load $i of grtrace_virtio_gpu failed"; break; }
	echo start > $D/control || { echo "modules: start $i failed"; break; }
	n=0
	until recorded || [ $n -ge 50 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	written=$(counter written)
	recorded || { echo "modules: session $i recorded no virtio-gpu command"; break; }
	[ $((i % 2)) = 0 ] && { echo stop > $D/control || break; }
	if [ $((i % 4)) -lt 2 ]; then
		rmmod grtrace_virtio_gpu && rmmod grtrace ||
			{ echo "modules: unload $i failed"; break; }
	else
		rmmod grtrace && rmmod grtrace_virtio_gpu ||
			{ echo "modules: unload $i failed"; break; }
	fi
	[ -d $D ] && { echo "modules: $D outlived unload $i"; break; }
	i=$((i + 1))
done
kill $traffic
wait 2> /dev/null
# After a failure: nothing left loaded for the verdict's checks.
rmmod grtrace 2> /dev/null
rmmod grtrace_virtio_gpu 2> /dev/null
echo "modules: $i of $loops loads and unloads, the last session wrote ${written:-0} events"

# grtrace's KUnit suite loaded while someone else's session runs (review 2,
# m13: the suite defaults to KUNIT_ALL_TESTS): its case (the command line's
# kunit.filter_glob) skips, and the session runs on with its configuration.
beside() {
	# Loaded by a name of the original design's (patch 47's aliases)
	modprobe grtrace_sampling && [ -d $D ] ||
		{ echo "modules: modprobe grtrace_sampling did not load grtrace"; return 1; }
	echo level=verbose > $D/config && echo start > $D/control ||
		{ echo "modules: no session for the KUnit suite to meet"; return 1; }
	modprobe grtrace_kunit || { echo "modules: grtrace_kunit did not load"; return 1; }
	rmmod grtrace_kunit
	[ "$(cat $D/enabled)" = 1 ] || { echo "modules: grtrace_kunit ended the session"; return 1; }
	grep -qx level=verbose $D/config || { echo "modules: grtrace_kunit changed the level"; return 1; }
	dmesg | grep -q 'ok 1 grtrace_test_header_epoch # SKIP a grtrace session is running' ||
		{ echo "modules: grtrace_kunit's case did not skip"; dmesg | grep -A3 'grtrace_test_header_epoch' | head; return 1; }
	echo stop > $D/control && rmmod grtrace
}
beside && echo "modules: grtrace_kunit skipped beside a session and left it running" || i=failed
rmmod grtrace_kunit 2> /dev/null
rmmod grtrace 2> /dev/null
[ $i = "$loops" ]
