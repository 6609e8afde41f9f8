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
# The emitter (4 s of it) notes when it is done: the recorder, which it
# may starve of the vCPUs (two vCPUs on one host thread under TCG), must
# record its 2 s, and then stop, once the load is gone, within the time it
# takes to drain what the load left (2.3 s seen under single-threaded TCG
# beside other guests): 10 s, where a recorder that ignored -d would read
# on until the test's time limit.
sh -c "/opt/grtrace/bin/emit-rate 20000 4 > /dev/null; cut -d' ' -f1 /proc/uptime > $O/emit.end" &
emit=$!
t0=$(cut -d' ' -f1 /proc/uptime)
# -D: a gap lost says why (the end read a file again too little, stop 91)
$G record -q -D -d 2 -o "$O/load.grt" > "$O/load.out" 2>&1
t1=$(cut -d' ' -f1 /proc/uptime)
wait $emit
te=$(cat "$O/emit.end")
$G stop > /dev/null
echo 4194304 > /sys/kernel/debug/grtrace/buffer_size
t record-load-duration sh -c "echo start $t0 end $t1 load-end $te; awk 'BEGIN {
	d = $t0 + 2; if ($te > d) d = $te; exit !($t1 - $t0 >= 1.99 && $t1 < d + 10) }'"
t record-load-no-gap sh -c "cat $O/load.out; grep -q 'lost 0 gseqs' $O/load.out &&
	grep -q 'late 0 ' $O/load.out &&
	$G report -i $O/load.grt | grep -q 'lost  *0 records'"
# aggregate_only: the same load twice, with every job event written and
# with SUMMARY records instead.  Each run's per-ring figures must equal the
# kernel aggregator's totals (aggregator_stats) of that run, and the
# summary stream must be at least 20 times smaller.
D=/sys/kernel/debug/grtrace
agg_run() {	# agg_run NAME CONFIG...: emit for 3 s, the merged stream to $O/NAME.bin
	name=$1; shift
	$G config "$@" aggregator_window=500 reset_stats=1 > /dev/null
	$G start > /dev/null
	/opt/grtrace/bin/emit-rate 20000 3 > /dev/null
	$G stop > /dev/null
	cat $D/events > "$O/$name.bin"
	grep '^250 total ' $D/aggregator_stats > "$O/$name.kernel"
	cp $D/stats "$O/$name.stats"
}
# agree NAME JOBS AVG MIN MAX: the kernel's totals of run NAME (ring scope
# events jobs lat_sum lat_avg lat_min lat_max ...): equal, the average
# within 1 ns (rounding)
agree() {
	read -r _ _ _ kj _ ka kmin kmax _ < "$O/$1.kernel"
	echo "$1: kernel jobs $kj latency avg $ka min $kmin max $kmax; stream $2 $3 $4 $5"
	[ "$kj" -gt 1000 ] && [ "$kj" = "$2" ] && [ "$kmin" = "$4" ] &&
		[ "$kmax" = "$5" ] && awk "BEGIN { d = $ka - $3; exit !(d <= 1 && d >= -1) }"
}
agg_full() {	# report --per-ring csv, by its header: lat_n, lat_avg, lat_min, lat_max;
		# the kernel counts the jobs with a latency (lat_n): not one left open
	$G report -i "$O/full.bin" --per-ring -f csv > "$O/full.csv" || return 1
	cat "$O/full.csv"
	agree full $(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["group"] == "emit/emit250" {
			print $c["lat_n"], $c["lat_avg"], $c["lat_min"], $c["lat_max"] }' "$O/full.csv")
}
agg_summary() {	# the summaries table: ... jobs lat_avg lat_min lat_max ...
	$G report -i "$O/agg.bin" > "$O/agg.txt" || return 1
	sed -n '/^summaries/,/^$/p' "$O/agg.txt"
	grep -q '^dropped_aggregated=[1-9]' "$O/agg.stats" || return 1
	agree agg $(awk '/^summaries/ { s = 1; next } s && $1 == 250 { print $5, $6, $7, $8; exit }' \
		"$O/agg.txt")
}
agg_size() {
	full=$(wc -c < "$O/full.bin"); agg=$(wc -c < "$O/agg.bin")
	echo "stream: $full bytes with job events, $agg bytes aggregate_only"
	[ "$agg" -gt 0 ] && [ "$full" -ge $((20 * agg)) ]
}
# the summaries through ftrace: grtrace_summary, in an instance, during
# the aggregate_only run; its windows of the ring must add up to the
# kernel's totals as the SUMMARY records do
agg_ftrace() {
	read -r _ _ _ kj _ _ kmin kmax _ < "$O/agg.kernel"
	grep 'grtrace_summary: .* ring_id=250 ' "$O/agg.ftrace" > "$O/agg.ftrace250"
	head -2 "$O/agg.ftrace250"
	awk -v kj="$kj" -v kmin="$kmin" -v kmax="$kmax" '
	function get(name, i) {
		for (i = 1; i <= NF; i++)
			if (index($i, name "=") == 1)
				return substr($i, length(name) + 2)
	}
	{ n++; j += get("jobs") }
	get("jobs") > 0 {
		if (!m++ || get("lat_min") + 0 < mn)
			mn = get("lat_min") + 0
		if (get("lat_max") + 0 > mx)
			mx = get("lat_max") + 0
	}
	END { printf "ftrace: %d windows, jobs %d, lat min %d max %d\n", n, j, mn, mx
	      exit !(n >= 5 && j == kj && mn == kmin && mx == kmax) }' "$O/agg.ftrace250"
}
agg_run full aggregator_enable=1 aggregate_only=0
I=/sys/kernel/tracing/instances/grsum
mkdir $I && echo 1 > $I/events/grtrace/grtrace_summary/enable
agg_run agg aggregator_enable=0 aggregate_only=1
echo 0 > $I/events/grtrace/grtrace_summary/enable
cp $I/trace "$O/agg.ftrace"
rmdir $I
$G config aggregate_only=0 aggregator_enable=0 reset_stats=1 > /dev/null
t aggregate-full-agrees agg_full
t aggregate-only-agrees agg_summary
t aggregate-only-size agg_size
t aggregate-only-ftrace agg_ftrace
# flight_recorder: 16 KiB per CPU, overwritten by 20,000 events/s for 2 s;
# nothing is readable before the freeze; an ERROR freezes it and the next
# second's events are dropped.  The merged file then ends at the ERROR,
# holds fewer records than were written, and report reads what is left.
fr_run() {
	echo 16384 > $D/buffer_size
	$G config flight_recorder=1 reset_stats=1 > /dev/null
	$G start > /dev/null
	/opt/grtrace/bin/emit-rate 20000 2 > /dev/null
	cat $D/events0 | wc -c > "$O/fr.early"
	echo "error 9 0 250 4242" > $D/emit
	/opt/grtrace/bin/emit-rate 20000 1 > /dev/null
	cp $D/stats "$O/fr.stats"
	cat $D/events > "$O/fr.bin"
	$G stop > /dev/null
	$G config flight_recorder=0 > /dev/null
	echo 4194304 > $D/buffer_size
}
fr_check() {
	grep -E '^(frozen|dropped_frozen|dropped_overrun|written)' "$O/fr.stats"
	$G dump -i "$O/fr.bin" > "$O/fr.dump" || return 1
	first=$(sed -n '1s/.* gseq=\([0-9]*\) .*/\1/p' "$O/fr.dump")
	last=$(tail -n 1 "$O/fr.dump")
	echo "before the freeze: $(cat "$O/fr.early") bytes; first gseq $first; last: $last"
	fgseq=$(sed -n 's/^frozen_gseq=//p' "$O/fr.stats")
	written=$(sed -n 's/^written=//p' "$O/fr.stats")
	# Overwritten: fewer records left than were written.  (The session's
	# first records may survive on a CPU that emitted little.)
	echo "records left: $(wc -l < "$O/fr.dump") of $written written"
	# The ERROR froze it, and is kept.  A record another CPU was writing
	# then may still land after it, with a higher gseq (the DOC of the
	# flight recorder): one per other CPU and context (task, softirq,
	# hardirq, NMI) at most, none of the ERROR's CPU, which writes with
	# interrupts off; the virtio-gpu console's IRQ did, in a run here.
	cpus=$(grep -c '^processor' /proc/cpuinfo)
	ecpu=$(grep -i "^error .* gseq=$fgseq " "$O/fr.dump" | sed -n 's/.* cpu=\([0-9]*\) .*/\1/p')
	after=$(awk -v g="$fgseq" -v c="cpu=$ecpu " 'match($0, / gseq=[0-9]+/) {
		if (substr($0, RSTART + 6, RLENGTH - 6) + 0 > g + 0) n += index($0, " " c) ? 1000 : 1
	} END { print n + 0 }' "$O/fr.dump")
	echo "records after the ERROR (1000 each of its CPU $ecpu): $after (at most $((4 * (cpus - 1))))"
	[ "$(cat "$O/fr.early")" = 0 ] && [ "$(wc -l < "$O/fr.dump")" -lt "$written" ] &&
		grep -qx 'frozen=1' "$O/fr.stats" && grep -qx 'frozen_by=error' "$O/fr.stats" &&
		grep -q '^dropped_frozen=[1-9][0-9][0-9][0-9]' "$O/fr.stats" &&
		grep -qx 'dropped_overrun=0' "$O/fr.stats" &&
		[ "$(grep -ci "^error .* gseq=$fgseq .*:4242 " "$O/fr.dump")" = 1 ] &&
		[ -n "$ecpu" ] && [ "$after" -le $((4 * (cpus - 1))) ] &&
		$G report -i "$O/fr.bin" > "$O/fr.txt" && grep -q 'emit250' "$O/fr.txt"
}
fr_run
t flight-recorder fr_check
# The same, read CPU by CPU: each events<N> of the frozen recorder ends
# (CPU 0's wrapped many times over its 4 sub-buffers) and starts with a
# STREAM_INFO, also CPU 1's, which holds one event and did not wrap.  Only
# emit's rings are watched: the virtio-gpu console's commands, on CPU 1
# as the emitter runs, wrapped CPU 1's buffer once on a loaded machine.
frcpu_run() {
	echo 16384 > $D/buffer_size
	$G config flight_recorder=1 reset_stats=1 watchlist=250,251 > /dev/null
	taskset -c 0 $G start > /dev/null
	taskset -c 1 sh -c "echo 'submit 1 0 251 7' > $D/emit"
	taskset -c 0 /opt/grtrace/bin/emit-rate 20000 1 > /dev/null
	echo freeze > $D/control
	for c in 0 1; do
		timeout 20 cat $D/events$c > "$O/frcpu.$c"
		echo $? > "$O/frcpu.$c.rc"
	done
	$G stop > /dev/null
	$G config flight_recorder=0 watchlist=all > /dev/null
	echo 4194304 > $D/buffer_size
}
frcpu_check() {
	for c in 0 1; do
		echo "events$c: cat exited $(cat "$O/frcpu.$c.rc"), $(wc -c < "$O/frcpu.$c") bytes"
		[ "$(cat "$O/frcpu.$c.rc")" = 0 ] && [ "$(wc -c < "$O/frcpu.$c")" -le 16384 ] &&
			$G dump -i "$O/frcpu.$c" > "$O/frcpu.$c.dump" || return 1
		head -n 1 "$O/frcpu.$c.dump"
		head -n 1 "$O/frcpu.$c.dump" | grep -q '^stream_info' || return 1
	done
	grep -q '^submit .*:7 ' "$O/frcpu.1.dump"
}
frcpu_run
t flight-recorder-per-cpu frcpu_check
t report sh -c "$G report -i $O/rec.grt > $O/report.txt"
t report-has-program grep -q grtrace_dirtyfb "$O/report.txt"
t report-csv sh -c "$G report -i $O/rec.grt --format csv > $O/report.csv"
t report-json sh -c "$G report -i $O/rec.grt --format json > $O/report.json"
t export sh -c "$G export --chrome $O/trace.json -i $O/rec.grt"
nt bad-input sh -c "head -c 100 $O/rec.grt > /tmp/cut.grt; $G report -i /tmp/cut.grt"
$G config level=normal > /dev/null
exit $rc
