#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The grtrace tool that step cli built ($RUN/cli-tool) on real recordings:
# the relay files and trace.dat of the guest step (its e2e test) and the
# relay files of the demo.  KTAP; exits non-zero on any failure.
source "$(dirname "$0")/lib.sh"
# six checks of the guest's recording (its trace.dat's clock among them),
# five of the demo's
ktap_begin 11

OUT=$(mktemp -d /tmp/grtrace-recordings.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
G=$RUN/cli-tool/grtrace
CHECK=recordings
[ -x "$G" ] || { result 1 "the tool built by step cli ($G)"; finish; }

# real_recording SRC NAME: copy the relay files of SRC to $dir.
real_recording() {
	name=$2
	dir=$OUT/real/$name
	mkdir -p "$dir"
	cp "$1"/events*.bin "$dir" 2> "$OUT/err"
	result $? "real recording $name: relay files present"
}

# The relay files of this run's guest (its e2e test).
for src in "$GUEST_SHARE/e2e"; do
	real_recording "$src" guest-e2e || continue
	cp "$src"/*stats*.txt "$dir" 2> /dev/null
	timeout 60 "$G" report -i "$dir" > "$OUT/out" 2> "$OUT/err" &&
		grep -q "^grtrace report: " "$OUT/out"
	result $? "real recording $name: report -i DIR"
	timeout 60 "$G" report -i "$dir" -f json > "$OUT/out" 2> "$OUT/err" &&
		python3 -m json.tool "$OUT/out" > /dev/null 2> "$OUT/err"
	result $? "real recording $name: report json"
	cat "$dir"/events*.bin > "$OUT/all.bin"
	timeout 60 "$G" report --jobs -i "$OUT/all.bin" -f csv > "$OUT/csv" 2> "$OUT/err" &&
		timeout 60 "$G" report --jobs -i "$dir" -f csv | cmp -s - "$OUT/csv"
	result $? "real recording $name: one file of all CPUs reads the same"
	timeout 60 "$G" export -i "$dir" --chrome "$OUT/chrome.json" 2> "$OUT/err" &&
		python3 -m json.tool "$OUT/chrome.json" > /dev/null 2> "$OUT/err"
	result $? "real recording $name: export --chrome"
	# The trace.dat of the same test: report names its clock as the file's
	# TRACECLOCK option does (read by trace-cmd dump), and merge says when
	# it is not the annotator's CLOCK_MONOTONIC.
	clock=$(trace-cmd dump --options "$src/e2e.dat" 2> /dev/null |
		sed -n '/Option TRACECLOCK/{n;s/.*\[\([^]]*\)\].*/\1/p;q}')
	timeout 60 "$G" report -i "$src/e2e.dat" 2> "$OUT/err" | sed -n 2p > "$OUT/out" &&
		[ -n "$clock" ] && grep -q ", clock $clock$" "$OUT/out" &&
		timeout 60 "$G" merge -c "$GUEST_SHARE/correlate/cpu.txt" -i "$src/e2e.dat" --stats-only \
			> /dev/null 2> "$OUT/err"
	ok=$?
	if [ $ok = 0 ] && [ "$clock" != mono ]; then
		grep -q "e2e.dat: recorded in clock $clock, the annotator's is CLOCK_MONOTONIC" "$OUT/err"
		ok=$?
	elif [ $ok = 0 ]; then
		! grep -q "recorded in clock" "$OUT/err"
		ok=$?
	fi
	result $ok "real recording $name: the trace.dat's clock ($clock, trace-cmd dump) named by report, and by merge if not mono"
done

# The relay files of the 3D run of step demo (kmscube and glmark2 on
# virtio-gpu with virgl, no START): the phases of every job against its
# records (decoded by check.py itself: each phase of a whole job is the
# difference of its stamps), the contexts are named after their
# processes, the Chrome trace nests its phases.
C="python3 $ROOT/tools/grtrace/tests/check.py"
for src in "$RUN/demo"; do
	real_recording "$src" demo-virgl || continue
	timeout 60 "$G" report --jobs -i "$dir" -f csv > "$OUT/out" 2> "$OUT/err" &&
		$C stamps - "$OUT/out" "$dir" > "$OUT/err" 2>&1
	result $? "real recording $name: each job's stamps and phases are its records' ($(tail -1 "$OUT/err"))"
	timeout 60 "$G" report -i "$dir" -f json --per-context > "$OUT/out" 2> "$OUT/err" &&
		$C named - "$OUT/out" 2> "$OUT/err"
	result $? "real recording $name: report --per-context names the processes"
	timeout 60 "$G" report -i "$dir" -f json > "$OUT/sum" 2> "$OUT/err" &&
		timeout 60 "$G" report --jobs -i "$dir" -f json > "$OUT/out" 2> "$OUT/err" &&
		$C summary - "$OUT/sum" "$OUT/out" > "$OUT/err" 2>&1 &&
		grep -Eq '"process": "kworker/\* \(([2-9]|[1-9][0-9]+)\)"' "$OUT/sum"
	result $? "real recording $name: the summary is its jobs' ($(tail -1 "$OUT/err")), its kworkers in one row"
	timeout 60 "$G" export -i "$dir" --chrome "$OUT/chrome.json" 2> "$OUT/err" &&
		python3 -m json.tool "$OUT/chrome.json" > /dev/null 2> "$OUT/err" &&
		$C structure - "$OUT/chrome.json" 2> "$OUT/err"
	result $? "real recording $name: export --chrome: phases nested in every job, flows, counters"
done

finish
