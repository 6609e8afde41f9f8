#!/bin/sh
# The grtrace tool on a live kernel: control, a recording taken while
# virtio-gpu runs a KMS workload, and reports of it.
G=/opt/grtrace/bin/grtrace
O=${GRTRACE_OUT:-/tmp}/cli
mkdir -p "$O"
rc=0
t() {	# t NAME CMD...: one result line
	name=$1; shift
	if "$@" > /tmp/cli.out 2>&1; then r=PASS; else r=FAIL; rc=1; fi
	echo "GRTRACE-TEST: cli.$name $r"
	[ $r = PASS ] || sed 's/^/    /' /tmp/cli.out
}
nt() {	# nt NAME CMD...: the command must fail, with a message
	name=$1; shift
	if "$@" > /tmp/cli.out 2>&1 || [ ! -s /tmp/cli.out ]; then r=FAIL; rc=1; else r=PASS; fi
	echo "GRTRACE-TEST: cli.$name $r"
}

$G stop > /dev/null 2>&1
t config $G config level=verbose filter_ring_id=-1 reset_stats=1
nt config-invalid $G config nosuchkey=1
t config-unchanged sh -c "$G config | grep -qx 'level=verbose'"
t start $G start
t status sh -c "$G status | grep -q running"
$G record -o "$O/rec.grt" -d 4 > "$O/record.out" 2>&1 &
rec=$!
sleep 1
/opt/grtrace/bin/grtrace_dirtyfb /dev/dri/card0 15 > "$O/dirtyfb.out"
t record wait $rec
t stop $G stop
nt stop-twice $G stop
# record under load: it ends at -d while emit-rate writes 20,000 events/s,
# and with no other reader of the relay files no gseq is lost.  Small
# buffers (16 KiB sub-buffers) make the writer switch sub-buffers about 80
# times a second per CPU while the recorder reads them: relay's own read()
# lost or repeated records there in 7 of 30 such runs.
echo 262144 > /sys/kernel/debug/grtrace/buffer_size
$G start > /dev/null
/opt/grtrace/bin/emit-rate 20000 4 > /dev/null &
emit=$!
t0=$(cut -d' ' -f1 /proc/uptime)
$G record -q -d 2 -o "$O/load.grt" > "$O/load.out" 2>&1
t1=$(cut -d' ' -f1 /proc/uptime)
wait $emit
$G stop > /dev/null
echo 4194304 > /sys/kernel/debug/grtrace/buffer_size
t record-load-duration sh -c "echo $t0 $t1; awk 'BEGIN { exit !($t1 - $t0 < 5) }'"
t record-load-no-gap sh -c "cat $O/load.out; grep -q 'lost 0 gseqs' $O/load.out &&
	grep -q 'late 0 ' $O/load.out &&
	$G report -i $O/load.grt | grep -q 'lost  *0 records'"
t report sh -c "$G report -i $O/rec.grt > $O/report.txt"
t report-has-program grep -q grtrace_dirtyfb "$O/report.txt"
t report-csv sh -c "$G report -i $O/rec.grt --format csv > $O/report.csv"
t report-json sh -c "$G report -i $O/rec.grt --format json > $O/report.json"
t export sh -c "$G export --chrome $O/trace.json -i $O/rec.grt"
nt bad-input sh -c "head -c 100 $O/rec.grt > /tmp/cut.grt; $G report -i /tmp/cut.grt"
$G config level=normal > /dev/null
exit $rc
