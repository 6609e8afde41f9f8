#!/bin/sh
# make bench: what the merged reader (trace_pipe) costs a record against
# the per-CPU files (review 2, m10), and whether CPUs that write nothing
# cost it anything: make bench boots this guest with 2 and with 8 CPUs,
# and only CPUs 0 and 1 write.  Each
# round emits N SUBMITs, half on CPU 0 and half on CPU 1 at once, into a
# session, stops it, and drains it through trace_pipe; then the same into
# a new session, drained through events0 and events1.  Every record must
# be written and read; the times are those of ftrace markers written
# before and after each drain.
D=/sys/kernel/debug/grtrace
T=/sys/kernel/tracing
N=${GRTRACE_PIPE_RECORDS:-100000}
R=${GRTRACE_PIPE_ROUNDS:-5}
rc=0
half=$((N / 2))
N=$((2 * half))
# Lines of 32 bytes: emit takes whole lines in each write, and cat's
# writes are a multiple of that.
awk -v n=$half 'BEGIN { for (i = 1; i <= n; i++) printf "submit 1 0 1 %18d\n", i }' > /tmp/emit0
awk -v n=$half 'BEGIN { for (i = 1; i <= n; i++) printf "submit 2 0 2 %18d\n", i }' > /tmp/emit1
# The other CPUs stay online and idle: each has a relay buffer, which the
# merged reader should read only when it has caught up with the writers,
# not for every record.  Markers on one clock.
echo mono > $T/trace_clock || exit 1
echo $((16 << 20)) > $D/buffer_size || exit 1
printf 'level=verbose\nfilter_ring_id=-1\n' > $D/config || exit 1
echo > $T/trace

stat_of() { sed -n "s/^$1=//p" $D/stats; }
# stamp TEXT: the time of ftrace's marker TEXT, in seconds (to the us)
stamp() {
	sed -n "s/.* \([0-9]*\.[0-9]*\): tracing_mark_write: $1\$/\1/p" $T/trace | tail -1
}

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

# drain HOW FILES...: $secs, the seconds it took to read FILES whole,
# between two ftrace markers; every record read (and the session's header,
# which bytes_written leaves out)
drain() {
	how=$1
	shift
	echo "pipebench $how $i start" > $T/trace_marker
	cat "$@" > /dev/null
	echo "pipebench $how $i end" > $T/trace_marker
	[ "$(stat_of bytes_read)" -ge "$(stat_of bytes_written)" ] ||
		{ echo "pipebench: $how read $(stat_of bytes_read) of $(stat_of bytes_written) bytes"; rc=1; }
	secs=$(awk -v a="$(stamp "pipebench $how $i start")" -v b="$(stamp "pipebench $how $i end")" \
		'BEGIN { if (a == "" || b == "") exit 1; printf "%.6f", b - a }') ||
		{ echo "pipebench: no ftrace marker of $how $i"; rc=1; }
}

cpus=$(cat /sys/devices/system/cpu/possible)
echo "pipebench: possible $cpus, online $(cat /sys/devices/system/cpu/online)"
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
