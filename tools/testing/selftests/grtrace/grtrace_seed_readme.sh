#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Replay, as written, every debugfs command of the original design's README
# (quick start, interface, enhancement modules, usage tips, best practices,
# troubleshooting, quick reference), section by section and in its order.
# A command fails the test if it exits non-zero, prints to stderr, or does
# not have its effect: a write must change what the kernel shows (config,
# stats, the file itself), a read must print what the README reads it for.
# Only
# what the commands need around them is added: a few injected jobs where
# the README runs a GPU program, and a sudo that runs its arguments (root
# already).  The README's module loading and its Python tools are not
# debugfs commands and are left out.

D=/sys/kernel/debug/grtrace
n=0 fails=0

[ -w $D/control ] || { echo "1..0 # SKIP grtrace debugfs not available"; exit 4; }
[ -w $D/emit ] || { echo "1..0 # SKIP no emit file (CONFIG_GRTRACE_EMIT)"; exit 4; }
sudo() { "$@"; }

# run CMD [EFFECT]: one README command, run as written in the current
# directory, then EFFECT, a shell test of what it should have done ($out
# holds what CMD printed).
run() {
	n=$((n + 1))
	err=$( { eval "$1" > /tmp/seed.out; } 2>&1 )
	st=$?
	out=$(cat /tmp/seed.out)
	name=$(echo "$1" | tr -c 'A-Za-z0-9_.\n' '_' | cut -c1-60)
	echo "# $1"
	if [ $st != 0 ] || [ -n "$err" ]; then
		echo "# exit $st: $err"
		echo "not ok $n seed.$name"
		fails=$((fails + 1))
	elif [ -n "$2" ] && ! eval "$2"; then
		echo "# no effect: $2"
		echo "not ok $n seed.$name"
		fails=$((fails + 1))
	else
		echo "ok $n seed.$name"
	fi
}

# key NAME: the value of config key NAME
key() {
	sed -n "s/^$1=//p" $D/config
}

# stats NAME: the value of NAME in stats
stats() {
	sed -n "s/^$1=//p" $D/stats
}

# has WORD: what the command printed holds WORD
has() {
	echo "$out" | grep -q -- "$1"
}

# rings_listed: what the command printed is the rings file: its header,
# then a line "ID ENGINE DEVICE RING" per ring
rings_listed() {
	[ "$(echo "$out" | head -1)" = "# id engine dev ring" ] &&
		! echo "$out" | sed 1d | grep -qvE '^[0-9]+ [a-z0-9_]+ [^ ]+ [^ ]+$'
}

# gpu_activity: what glxgears would do, through the emit file.
gpu_activity() {
	for s in 1 2 3 4 5; do
		printf 'submit 1 0 250 %s\ncommit 1 0 250 %s\ncomplete 1 0 250 %s\n' \
			$s $s $s > $D/emit
	done
}

# Every section starts stopped, with the default settings.
reset() {
	echo stop > $D/control 2> /dev/null
	printf '%s\n' level=normal sample=100 sampling_mode=static \
		max_events_per_sec=0 rate_limiter_mode=window rate_limit_burst=0 \
		watchlist=all filter_enabled=0 filter_pid= filter_uid=-1 \
		filter_latency=0 filter_events=0x3ff aggregator_enable=0 \
		aggregator_window=1000 > $D/config
	echo 4194304 > $D/buffer_size
	cd $D || exit 1
}

echo "TAP version 13"

# -- Quick start
reset
run 'echo start > control' \
	'[ $(stats enabled) = 1 ]'
run 'echo 1 > aggregator_enable' \
	'[ $(key aggregator_enable) = 1 ]'
run 'echo 1000 > aggregator_window' \
	'[ $(key aggregator_window) = 1000 ]'
run 'echo static > sampling_mode' \
	'[ $(key sampling_mode) = static ]'
run 'echo 25 > sampling_rate' \
	'[ $(key sample) = 25 ]'
gpu_activity
run 'cat stats | head -20' \
	'has enabled=1'
run 'cat events_by_type | head -20' \
	'has submit'
run 'cat aggregator_stats' \
	'has "^enabled=1$" && has "^window_ms=1000$"'
run 'cat sampling_stats' \
	'has "^mode=static$" && has "^rate=25$"'
run 'echo stop > control' \
	'[ $(stats enabled) = 0 ]'

# -- Interface: debugfs
reset
run 'echo start > control' \
	'[ $(stats enabled) = 1 ]'
run 'echo stop > control' \
	'[ $(stats enabled) = 0 ]'
run 'cat stats' \
	'has offered='
run 'cat config' \
	'has sample='
run 'echo "sample=50" > config' \
	'[ $(key sample) = 50 ]'
run 'echo "max_events_per_sec=1000" > config' \
	'[ $(key max_events_per_sec) = 1000 ]'
run 'echo "level=verbose" > config' \
	'[ $(key level) = verbose ]'
run 'cat stats' \
	'has offered='
run 'cat events_by_type' \
	'has submit'
run 'cat rings' \
	'rings_listed'
run 'xxd /sys/kernel/debug/grtrace/events0 | head -40'
run 'hexdump -C /sys/kernel/debug/grtrace/events0 | head -40'
run 'timeout 5 cat /sys/kernel/debug/grtrace/events0'
run 'cat events_by_type' \
	'has submit'

# -- Enhancement modules
reset
echo start > control
run 'echo 1 > aggregator_enable' \
	'[ $(key aggregator_enable) = 1 ]'
run 'echo 1000 > aggregator_window' \
	'[ $(key aggregator_window) = 1000 ]'
gpu_activity
run 'cat aggregator_stats' \
	'has "^enabled=1$" && has "^window_ms=1000$"'
run 'echo static > sampling_mode' \
	'[ $(key sampling_mode) = static ]'
run 'echo adaptive > sampling_mode' \
	'[ $(key sampling_mode) = adaptive ]'
run 'echo 25 > sampling_rate' \
	'[ $(key sample) = 25 ]'
run 'echo 1000000 > sampling_threshold' \
	'[ $(key sampling_threshold) = 1000000 ]'
run 'cat sampling_stats' \
	'has "^mode=adaptive$" && has "^rate=25$" && has "^threshold_ns=1000000$"'
run 'echo 1 > filter_enabled' \
	'[ $(key filter_enabled) = 1 ]'
run 'echo "1234,5678" > filter_pid' \
	'[ $(key filter_pid) = 1234,5678 ]'
run 'echo 1000 > filter_uid' \
	'[ $(key filter_uid) = 1000 ]'
run 'echo 500 > filter_latency' \
	'[ $(key filter_latency) = 500 ]'
run 'echo 0x3 > filter_events' \
	'[ $(key filter_events) = 0x3 ]'
run 'echo 0xFFFFFFFF > filter_events' \
	'[ $(key filter_events) = 0x3ff ]'
run 'cat filter_events' \
	'[ "$out" = 0x3ff ]'
run 'cat stats' \
	'has offered='
run 'cat /proc/grtrace_stats' \
	'has utilization'
run 'echo 1 > /sys/kernel/debug/grtrace/aggregator_enable' \
	'[ $(key aggregator_enable) = 1 ]'
run 'echo 1000 > /sys/kernel/debug/grtrace/aggregator_window' \
	'[ $(key aggregator_window) = 1000 ]'
run 'cat /sys/kernel/debug/grtrace/stats' \
	'has offered='
run 'echo static > /sys/kernel/debug/grtrace/sampling_mode' \
	'[ $(key sampling_mode) = static ]'
run 'echo 25 > /sys/kernel/debug/grtrace/sampling_rate' \
	'[ $(key sample) = 25 ]'
run 'echo 1000000 > /sys/kernel/debug/grtrace/sampling_threshold' \
	'[ $(key sampling_threshold) = 1000000 ]'
run 'cat /sys/kernel/debug/grtrace/sampling_stats' \
	'has "^mode=static$" && has "^rate=25$" && has "^threshold_ns=1000000$"'
run 'echo 1 > /sys/kernel/debug/grtrace/filter_enabled' \
	'[ $(key filter_enabled) = 1 ]'
run 'echo "1234,5678" > /sys/kernel/debug/grtrace/filter_pid' \
	'[ $(key filter_pid) = 1234,5678 ]'
run 'echo 1000 > /sys/kernel/debug/grtrace/filter_uid' \
	'[ $(key filter_uid) = 1000 ]'
run 'echo 500 > /sys/kernel/debug/grtrace/filter_latency' \
	'[ $(key filter_latency) = 500 ]'
run 'cat /sys/kernel/debug/grtrace/filter_stats' \
	'has "^enabled=1$" && has "^filtered="'
run 'cat /proc/grtrace_stats' \
	'has utilization'
echo stop > control

# -- Usage tips (reduce overhead, single rings, memory)
reset
run 'echo 10 > /sys/kernel/debug/grtrace/sampling' \
	'[ $(key sample) = 10 ]'
run 'echo 1000 > /sys/kernel/debug/grtrace/rate_limit' \
	'[ $(key max_events_per_sec) = 1000 ]'
run 'echo token_bucket > /sys/kernel/debug/grtrace/rate_limit_mode' \
	'[ $(key rate_limiter_mode) = token_bucket ]'
run 'echo 5000 > /sys/kernel/debug/grtrace/rate_limit' \
	'[ $(key max_events_per_sec) = 5000 ]'
run 'echo 10000 > /sys/kernel/debug/grtrace/rate_limit_burst' \
	'[ $(key rate_limit_burst) = 10000 ]'
run 'cat /sys/kernel/debug/grtrace/rings' \
	'rings_listed'
run 'echo "0,1" > /sys/kernel/debug/grtrace/watchlist' \
	'[ $(key watchlist) = 0,1 ]'
run 'echo "!2" > /sys/kernel/debug/grtrace/watchlist' \
	'[ $(key watchlist) = !2 ]'
run 'cat /sys/kernel/debug/grtrace/buffer_size' \
	'[ "$out" = 4194304 ]'
run 'echo 1048576 > /sys/kernel/debug/grtrace/buffer_size  # 1MB per CPU' \
	'[ $(cat buffer_size) = 1048576 ]'

# -- Best practices / performance tuning
reset
run 'echo 10 > /sys/kernel/debug/grtrace/sampling  # 10% 采样' \
	'[ $(key sample) = 10 ]'
run 'echo 1000 > /sys/kernel/debug/grtrace/rate_limit  # 1000 events/s' \
	'[ $(key max_events_per_sec) = 1000 ]'
run 'echo "0,1" > /sys/kernel/debug/grtrace/watchlist  # 只追踪关键 rings' \
	'[ $(key watchlist) = 0,1 ]'
run 'echo 1 > /sys/kernel/debug/grtrace/aggregator_enable' \
	'[ $(key aggregator_enable) = 1 ]'
run 'cat /sys/kernel/debug/grtrace/stats' \
	'has offered='
run 'echo 8388608 > /sys/kernel/debug/grtrace/buffer_size  # 8MB' \
	'[ $(cat /sys/kernel/debug/grtrace/buffer_size) = 8388608 ]'
run 'echo 50 > /sys/kernel/debug/grtrace/sampling' \
	'[ $(key sample) = 50 ]'
run 'echo 5000 > /sys/kernel/debug/grtrace/rate_limit' \
	'[ $(key max_events_per_sec) = 5000 ]'
run 'echo 10 > /sys/kernel/debug/grtrace/sampling' \
	'[ $(key sample) = 10 ]'
run 'echo 1000 > /sys/kernel/debug/grtrace/rate_limit' \
	'[ $(key max_events_per_sec) = 1000 ]'
run 'echo 1 > /sys/kernel/debug/grtrace/aggregator_enable' \
	'[ $(key aggregator_enable) = 1 ]'
run 'echo 100 > /sys/kernel/debug/grtrace/sampling' \
	'[ $(key sample) = 100 ]'
run 'echo 0 > /sys/kernel/debug/grtrace/rate_limit' \
	'[ $(key max_events_per_sec) = 0 ]'
run 'echo 3 > /sys/kernel/debug/grtrace/level' \
	'[ $(key level) != normal ]'
run 'echo threshold > /sys/kernel/debug/grtrace/sampling_mode' \
	'[ $(key sampling_mode) = threshold ]'
run 'echo 1000000 > /sys/kernel/debug/grtrace/sampling_threshold' \
	'[ $(key sampling_threshold) = 1000000 ]'

# -- Troubleshooting
reset
run "sudo sh -c 'echo start > /sys/kernel/debug/grtrace/control'" \
	'[ $(stats enabled) = 1 ]'
gpu_activity
run 'cat /sys/kernel/debug/grtrace/events0 | head -20'
run 'cat /sys/kernel/debug/grtrace/events_by_type' \
	'has submit'
run 'cat /sys/kernel/debug/grtrace/sampling' \
	'[ "$out" = $(key sample) ]'
run 'echo 100 > /sys/kernel/debug/grtrace/sampling' \
	'[ $(key sample) = 100 ]'
run 'echo stop > /sys/kernel/debug/grtrace/control' \
	'[ $(stats enabled) = 0 ]'
run 'cat /sys/kernel/debug/grtrace/events0'
run 'timeout 5 cat /sys/kernel/debug/grtrace/events0'
run 'cat /sys/kernel/debug/grtrace/version' \
	'has "^format_version=[0-9]"'
run 'cat /sys/kernel/debug/grtrace/enable' \
	'[ "$out" = $(stats enabled) ]'
run 'cat /sys/kernel/debug/grtrace/enabled' \
	'[ "$out" = $(stats enabled) ]'
run 'cat /sys/kernel/debug/grtrace/stats' \
	'has offered='
run 'echo "module grtrace +p" > /sys/kernel/debug/dynamic_debug/control' \
	'grep "\[grtrace\]" /sys/kernel/debug/dynamic_debug/control | grep -q " =p "'
run 'echo 8388608 > /sys/kernel/debug/grtrace/buffer_size  # 8MB' \
	'[ $(cat /sys/kernel/debug/grtrace/buffer_size) = 8388608 ]'
echo "module grtrace -p" > /sys/kernel/debug/dynamic_debug/control

# -- Capture through trace_pipe, as in the analysis workflow
reset
cd /tmp || exit 1
run "sudo sh -c 'echo 1 > /sys/kernel/debug/grtrace/enabled'" \
	'[ $(stats enabled) = 1 ]'
sudo cat /sys/kernel/debug/grtrace/trace_pipe > gpu_events.bin &
pipe=$!
gpu_activity
run "sudo sh -c 'echo 0 > /sys/kernel/debug/grtrace/enabled'" \
	'[ $(stats enabled) = 0 ]'
# The reader ends by itself once the session stopped and it is drained.
n=$((n + 1))
i=0
while kill -0 $pipe 2> /dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
if kill -0 $pipe 2> /dev/null; then
	echo "not ok $n seed.trace_pipe_ends_after_stop"; fails=$((fails + 1)); kill $pipe
else
	echo "ok $n seed.trace_pipe_ends_after_stop"
fi
run 'ls -lh gpu_events.bin' \
	'has gpu_events.bin'
run 'hexdump -C gpu_events.bin | head' \
	'has RGTR'
n=$((n + 1))
if [ "$(stat -c %s gpu_events.bin)" -ge $((5 * 3 * 112)) ]; then
	echo "ok $n seed.gpu_events.bin_holds_the_jobs"
else
	echo "# gpu_events.bin: $(stat -c %s gpu_events.bin) bytes"
	echo "not ok $n seed.gpu_events.bin_holds_the_jobs"
	fails=$((fails + 1))
fi
rm -f gpu_events.bin

# -- Quick reference
reset
run 'echo 1 | sudo tee /sys/kernel/debug/grtrace/enable' \
	'[ $(stats enabled) = 1 ]'
gpu_activity
run 'sudo cat /sys/kernel/debug/grtrace/events0'
run 'sudo cat /sys/kernel/debug/grtrace/events_by_type' \
	'has submit'
run 'echo stop | sudo tee /sys/kernel/debug/grtrace/control' \
	'[ $(stats enabled) = 0 ]'
run 'cat /sys/kernel/debug/grtrace/stats' \
	'has offered='
run 'cat /sys/kernel/debug/grtrace/enable' \
	'[ "$out" = $(stats enabled) ]'

# -- Development tips: function tracing of grtrace
run "echo 'grtrace_*' > /sys/kernel/debug/tracing/set_ftrace_filter" \
	'grep -q grtrace_ /sys/kernel/debug/tracing/set_ftrace_filter'
run 'echo function > /sys/kernel/debug/tracing/current_tracer' \
	'[ $(cat /sys/kernel/debug/tracing/current_tracer) = function ]'
run 'cat /sys/kernel/debug/tracing/trace' \
	'has "tracer: function"'
echo nop > /sys/kernel/debug/tracing/current_tracer
echo > /sys/kernel/debug/tracing/set_ftrace_filter

reset
echo "1..$n"
echo "# $((n - fails)) passed, $fails failed"
[ $fails = 0 ]
