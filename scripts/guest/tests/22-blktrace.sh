#!/bin/sh
# blktrace, the oldest user of relay, on this series' relay (its ordering
# fix and read path): review 2's M5 asks that they leave blktrace as it
# was.  blktrace reads its per-CPU relay files live with read(), a
# thread pinned to each CPU, while 8,000 direct writes of 4 KiB go to
# null_blk, into 256 sub-buffers of 16 KiB a CPU: many sub-buffer
# switches read live, and room for the whole run, so nothing may be
# dropped however slowly the reader runs under TCG.  blkparse must then
# read every record whole, find on each CPU every event numbered from 1
# to the last, once, and each write queued (Q) and completed (C) once.
# (blkparse reading files checks no sequence itself, and blktrace's
# total there is bytes / 48, notes included.)
O=${GRTRACE_OUT:-/tmp}/blktrace
B=/tmp/blktrace-files
N=8000
dev=/dev/nullb0
mkdir -p "$O"
rm -rf "$B"
mkdir -p "$B"
RESULT_PREFIX=blktrace
. /tests/result.lib

t device [ -b $dev ]
[ -b $dev ] || exit 1
blktrace -d $dev -b 16 -n 256 -D "$B" -o nullb0 > "$O/blktrace.out" 2>&1 &
p=$!
i=0
until [ -e /sys/kernel/debug/block/nullb0/trace0 ] || [ $i -ge 150 ]; do
	sleep 0.2
	i=$((i + 1))
done
# trace0 comes at BLKTRACESETUP; BLKTRACESTART follows once blktrace's
# threads have opened their files, which nothing shows: 2 s, where it
# takes milliseconds (a write before it would be missing from the counts).
sleep 2
dd if=/dev/zero of=$dev bs=4096 count=$N oflag=direct 2> "$O/dd.out"
t dd [ $? = 0 ]
kill -INT $p
wait $p
t exit [ $? = 0 ]
cat "$O/blktrace.out"
dropped=$(sed -n 's/.*(dropped \([0-9]*\)).*/\1/p' "$O/blktrace.out")
t none-dropped [ "$dropped" = 0 ]

# Each CPU's events, by their sequence number: as many as the last one,
# no number twice: a record lost or repeated amid the others fails.  A
# torn one: blkparse stops reading that CPU's file at its bad magic (and
# still exits 0), and the counts below fall short.
blkparse -i nullb0 -D "$B" -f '%c %s %a %d\n' -o "$B/events" > "$O/blkparse.err" 2>&1
t blkparse [ $? = 0 ]
whole() { ! grep -q "Bad magic" "$O/blkparse.err"; }
t no-bad-record whole
awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && NF >= 3 {
	n[$1]++
	if ($2 + 0 > last[$1] + 0) last[$1] = $2
	if (seen[$1 " " $2]++) twice[$1]++
}
END {
	bad = 0
	cpus = 0
	for (c in n) {
		cpus++
		printf "blktrace: cpu %d: %d events, numbered to %d, %d twice\n", c, n[c], last[c], twice[c]
		if (n[c] != last[c] || twice[c]) bad = 1
	}
	if (!cpus) bad = 1
	exit bad
}' "$B/events" > "$O/sequence"
seq_rc=$?
cat "$O/sequence"
t sequence [ $seq_rc = 0 ]
q=$(grep -c '^[0-9]* [0-9]* Q W' "$B/events")
c=$(grep -c '^[0-9]* [0-9]* C W' "$B/events")
echo "blktrace: $q writes queued, $c completed, of $N"
t queued-once [ "$q" = $N ]
t completed-once [ "$c" = $N ]
exit $rc
