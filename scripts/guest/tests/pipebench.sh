#!/bin/sh
# make bench: what the merged reader (trace_pipe) costs a record against
# the per-CPU files (review 2, m10).  trace_pipe picks each next record by
# a scan of every possible CPU's head; make bench boots this guest with 2
# and with 8 possible CPUs (QEMU's maxcpus; 2 online either way).  Each
# round emits N SUBMITs, half on CPU 0 and half on CPU 1 at once, into a
# session, stops it, and drains it through trace_pipe; then the same into
# a new session, drained through events0 and events1.  Every record must
# be written and read; the times come from /proc/uptime (10 ms), over
# drains of a second or more.
D=/sys/kernel/debug/grtrace
N=${GRTRACE_PIPE_RECORDS:-100000}
R=${GRTRACE_PIPE_ROUNDS:-5}
rc=0
half=$((N / 2))
N=$((2 * half))
# Lines of 32 bytes: emit takes whole lines in each write, and cat's
# writes are a multiple of that.
awk -v n=$half 'BEGIN { for (i = 1; i <= n; i++) printf "submit 1 0 1 %18d\n", i }' > /tmp/emit0
awk -v n=$half 'BEGIN { for (i = 1; i <= n; i++) printf "submit 2 0 2 %18d\n", i }' > /tmp/emit1
echo $((64 << 20)) > $D/buffer_size || exit 1
echo "level=verbose filter_ring_id=-1" > $D/config || exit 1

stat_of() { sed -n "s/^$1=//p" $D/stats; }
now() { cut -d' ' -f1 /proc/uptime; }

# fill: a stopped session of N records
fill() {
	echo reset_stats=1 > $D/config
	echo start > $D/control || exit 1
	taskset -c 0 cat /tmp/emit0 > $D/emit &
	taskset -c 1 cat /tmp/emit1 > $D/emit
	wait
	echo stop > $D/control
	[ "$(stat_of written)" = $N ] || { echo "pipebench: $(stat_of written) of $N written"; rc=1; }
}

# drain HOW FILES...: $secs, the seconds it took to read FILES whole;
# all bytes read
drain() {
	how=$1
	shift
	t0=$(now)
	cat "$@" > /dev/null
	t1=$(now)
	[ "$(stat_of bytes_read)" = "$(stat_of bytes_written)" ] ||
		{ echo "pipebench: $how read $(stat_of bytes_read) of $(stat_of bytes_written) bytes"; rc=1; }
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
}

cpus=$(cat /sys/devices/system/cpu/possible)
i=1
while [ $i -le $R ]; do
	fill
	drain pipe $D/trace_pipe
	pipe=$secs
	fill
	drain percpu $D/events0 $D/events1
	percpu=$secs
	echo "pipebench: possible $cpus round $i: $N records, trace_pipe $pipe s, events0+events1 $percpu s"
	i=$((i + 1))
done
exit $rc
