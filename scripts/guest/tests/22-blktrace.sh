#!/bin/sh
# blktrace, the oldest user of relay, on this series' relay (its ordering
# fix and read path): review 2's M5 asks that they leave blktrace as it
# was.  blktrace reads its per-CPU relay files live with read() while
# 8,000 direct writes of 4 KiB go to null_blk, into 8 sub-buffers of
# 512 KiB a CPU (room for all, so nothing may be dropped, however slowly
# the reader runs under TCG).  blkparse must then read every event
# blktrace says it wrote, with no gap in their sequence numbers, and each
# write queued (Q) and completed (C) once.
O=${GRTRACE_OUT:-/tmp}/blktrace
B=/tmp/blktrace
N=8000
dev=/dev/nullb0
mkdir -p "$O"
rm -rf "$B"
mkdir -p "$B"
rc=0
t() {	# t NAME CONDITION...: one result line
	name=$1; shift
	if "$@"; then r=PASS; else r=FAIL; rc=1; fi
	echo "GRTRACE-TEST: blktrace.$name $r"
}

t device [ -b $dev ]
[ -b $dev ] || exit 1
blktrace -d $dev -n 8 -D "$B" -o nullb0 > "$O/blktrace.out" 2>&1 &
p=$!
i=0
until [ -e /sys/kernel/debug/block/nullb0/trace0 ] || [ $i -ge 150 ]; do
	sleep 0.2
	i=$((i + 1))
done
dd if=/dev/zero of=$dev bs=4096 count=$N oflag=direct 2> "$O/dd.out"
t dd [ $? = 0 ]
# blktrace empties the buffers and writes its totals on SIGINT
sleep 1
kill -INT $p
wait $p
t exit [ $? = 0 ]
cat "$O/blktrace.out"
written=$(sed -n 's/^ *Total: *\([0-9]*\) events.*/\1/p' "$O/blktrace.out")
dropped=$(sed -n 's/.*(dropped \([0-9]*\)).*/\1/p' "$O/blktrace.out")
t none-dropped [ "$dropped" = 0 ]

blkparse -i nullb0 -D "$B" > "$O/blkparse.out" 2>&1
t blkparse [ $? = 0 ]
tail -8 "$O/blkparse.out"
read=$(sed -n 's/^Events (.*): \([0-9,]*\) entries.*/\1/p' "$O/blkparse.out" | tr -d ,)
skips=$(sed -n 's/^Skips: \([0-9]*\) forward.*/\1/p' "$O/blkparse.out")
echo "blktrace: $written written, $dropped dropped; blkparse: $read read, $skips skipped"
t all-read [ -n "$written" ] && [ "$read" = "$written" ]
t no-gap [ "$skips" = 0 ]

blkparse -i nullb0 -D "$B" -f '%a %d\n' -o "$B/actions" > /dev/null 2>&1
q=$(grep -c '^Q W' "$B/actions")
c=$(grep -c '^C W' "$B/actions")
echo "blktrace: $q writes queued, $c completed, of $N"
t queued-once [ "$q" = $N ]
t completed-once [ "$c" = $N ]
exit $rc
