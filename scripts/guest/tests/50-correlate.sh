#!/bin/sh
# CPU/GPU correlation on a live kernel: grtrace-bpf-annotate (BPF on the
# syscall tracepoints) and "grtrace record" while grtrace_dirtyfb drives
# virtio-gpu through DRM ioctls, then "grtrace merge": every job the program
# submitted while it made DRM ioctls must be matched to one of its ioctls,
# with no negative gap.  The files go to the host too
# (scripts/test-correlate.sh checks them again there).
B=/opt/grtrace/bin
G=$B/grtrace
A=$B/grtrace-bpf-annotate
O=${GRTRACE_OUT:-/tmp}/correlate
N=12
rm -rf "$O"
mkdir -p "$O"
rc=0
res() {	# res NAME OK [DETAIL]
	if [ "$2" = 0 ]; then r=PASS; else r=FAIL; rc=1; fi
	echo "GRTRACE-TEST: correlate.$1 $r${3:+ ($3)}"
}

if [ ! -x $A ]; then
	echo "GRTRACE-TEST: correlate.annotator FAIL (not in the initramfs: clang or libbpf-dev missing on the host)"
	exit 1
fi
$G stop > /dev/null 2>&1
$G config level=normal filter_ring_id=-1 reset_stats=1 > /dev/null

# The annotator is attached once its header line is out.
$A -o "$O/cpu.txt" 2> "$O/annotate.err" &
apid=$!
i=0
while [ $i -lt 100 ] && ! [ -s "$O/cpu.txt" ] && kill -0 $apid 2> /dev/null; do
	sleep 0.1
	i=$((i + 1))
done
[ -s "$O/cpu.txt" ]
res annotator-attached $? "$(head -c 200 "$O/annotate.err" | tr '\n' ' ')"

$G start > /dev/null
$G record -q -o "$O/gpu.grt" > "$O/record.out" 2>&1 &
rec=$!
sleep 1
$B/grtrace_dirtyfb /dev/dri/card0 $N > "$O/dirtyfb.out" &
dpid=$!
wait $dpid
res workload $? "pid $dpid, $N DIRTYFB ioctls"
sleep 1
kill -TERM $rec
wait $rec
res record $?
$G stop > /dev/null
kill -TERM $apid
wait $apid
res annotator-exit $? "$(tail -1 "$O/annotate.err")"
echo "$dpid" > "$O/dirtyfb.pid"

# The annotator saw the program's DIRTYFB ioctls (DRM_IOCTL_MODE_DIRTYFB)
n=$(grep -c "IOCTL_EXIT pid=$dpid tid=$dpid comm=grtrace_dirtyf.* cmd=0xc01864b1 ret=0 " "$O/cpu.txt")
[ "$n" = $N ]
res annotator-ioctls $? "$n of $N DIRTYFB ioctls, $(grep -c "IOCTL_ENTER pid=$dpid " "$O/cpu.txt") DRM ioctls of the program"

$G merge -c "$O/cpu.txt" -i "$O/gpu.grt" -o "$O/merged.txt" 2> "$O/merge.err"
res merge $?
$G merge -c "$O/cpu.txt" -i "$O/gpu.grt" -f csv -o "$O/merge.csv" 2>> "$O/merge.err"
res merge-csv $?
$G timeline -c "$O/cpu.txt" -i "$O/gpu.grt" -w 120 -o "$O/timeline.txt" 2>> "$O/merge.err" &&
	$G timeline -c "$O/cpu.txt" -i "$O/gpu.grt" -w 120 --latency -o "$O/latency.txt" 2>> "$O/merge.err"
res timeline $?
[ ! -s "$O/merge.err" ]
res merge-no-warnings $? "$(head -c 200 "$O/merge.err" | tr '\n' ' ')"

# The program's jobs: those submitted up to its last ioctl exit must all
# be matched; those after it (close() and exit tearing the framebuffer
# down) cannot be, and are only counted.
last=$(grep "IOCTL_EXIT pid=$dpid " "$O/cpu.txt" | tail -1 | sed 's/^\[\([0-9]*\)\.\([0-9]*\)\].*/\1\2/')
awk -F, -v pid="$dpid" -v last="${last:-0}" '
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["tgid"] != pid { next }
	{
		if ($c["submit_ns"] + 0 > last + 0) { late++; next }
		jobs++
		if ($c["matched"] != 1) { unmatched++; print "unmatched: " $0; next }
		matched++
		for (g = 1; g <= 4; g++) {
			split("ioctl_to_submit_ns submit_to_start_ns start_to_end_ns submit_to_ioctl_exit_ns", k, " ")
			v = $c[k[g]]
			if (v != "" && v + 0 < 0) { neg++; print "negative " k[g] ": " $0 }
		}
		if ($c["ioctl_name"] == "MODE_DIRTYFB") dirty++
	}
	END {
		printf "jobs=%d matched=%d unmatched=%d negative=%d dirtyfb_jobs=%d after_last_ioctl=%d\n",
			jobs, matched, unmatched, neg, dirty, late
		exit !(jobs > 0 && matched == jobs && !neg && dirty >= '$N')
	}' "$O/merge.csv" > "$O/check.txt"
res jobs-matched $? "$(tail -1 "$O/check.txt")"
cat "$O/check.txt"
sed -n '/^jobs:/,$p' "$O/merged.txt"
exit $rc
