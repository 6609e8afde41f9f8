#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Host-side tests of CPU/GPU correlation: "grtrace merge", "grtrace
# timeline" and grtrace-bpf-annotate.
#
#   GRTRACE=path/to/grtrace [ANNOTATE=path/to/grtrace-bpf-annotate] \
#	tests/correlate-tests.sh [WORKDIR]
#
# Inputs with known answers come from gen-correlate.py.  Prints KTAP: a
# line per check ("ok N NAME", "not ok N NAME", "ok N NAME # SKIP REASON"
# for what this machine cannot run), the plan and the totals; the exit
# status is non-zero if any check failed.  VALGRIND=0 skips the valgrind
# checks.  The annotator is only run for real as root on a kernel with BPF.

TESTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
A=${ANNOTATE:-}
SUITE=correlate
. "$TESTS/lib.sh" "${1:-}"

D=$W/corr
E=$D/expected.json
C="python3 $TESTS/check-correlate.py"
python3 "$TESTS/gen-correlate.py" "$D" > "$W/out" 2> "$W/err"
result $? "generate synthetic inputs"

# ---- usage ----
for cmd in merge timeline; do
	run $cmd --help && grep -q "usage: grtrace $cmd" "$W/out"
	result $? "$cmd --help"
done
expect_fail "merge: -c required" "-c/--cpu FILE .* is required" merge -i "$D/gpu.bin"
expect_fail "merge: bad --clock-offset" "invalid --clock-offset" merge -c x --clock-offset 5parsecs
expect_fail "merge: bad --format" "invalid --format" merge -c x -f json
expect_fail "merge: --stats-only with csv" "goes with neither" merge -c x --stats-only -f csv
expect_fail "merge: stdin twice" "only one input can be stdin" merge -c - -i -
expect_fail "timeline: bad --width" "invalid --width" timeline -w 59
expect_fail "timeline: --until before --since" "--until must be after --since" \
	timeline --since 2ms --until 1ms
expect_fail "timeline: bad --topn" "invalid --topn" timeline --latency --topn -1
for cmd in merge timeline; do
	expect_fail "$cmd: unwritable -o" "^grtrace: $W/nodir/out: No such file" \
		$cmd -c "$D/cpu.txt" -i "$D/gpu.bin" -o "$W/nodir/out"
	[ -e /dev/full ] && expect_fail "$cmd: write error reported" \
		"^grtrace: /dev/full: No space left on device" \
		$cmd -c "$D/cpu.txt" -i "$D/gpu.bin" -o /dev/full
done

# ---- merge: known answers ----
run merge -c "$D/cpu.txt" -i "$D/gpu.bin" -f csv && $C "$E" "$W/out" > "$W/err"
result $? "merge csv: every job, its ioctl and gaps"
jobs="^jobs: 9, matched to an ioctl: 5, not matched: 4 (SUBMIT not recorded: 1, "
jobs+="SUBMIT without a submitter: 1, submitter made no DRM ioctl: 1, "
jobs+="SUBMIT outside the submitter's ioctls: 1)$"
ioctls="ioctls: 7, that submitted jobs: 4, without EXIT: 1, without ENTER: 1; "
ioctls+="lines skipped: 0"
submit="^\[0\.000040000\] GPU SUBMIT +virtio0/ctrlq job=300:1 .* "
submit+="<- 5\.000 us after IOCTL_ENTER \(line 6\)$"
before="^\[0\.000998000\] CPU IOCTL_ENTER +glxgears:cs0 .*\(entered before the annotation\)$"
job="^300:1 +virtio0/ctrlq +dirtyfb/77 +MODE_DIRTYFB +0\.000035000 +5\.000 +1\.000\* "
job+="+49\.000\* +5\.000$"
run merge -c "$D/cpu.txt" -i "$D/gpu.bin" && cp "$W/out" "$W/merged.txt" &&
	grep -q "$jobs" "$W/out" && grep -q "$ioctls" "$W/out" &&
	grep -Eq "$submit" "$W/out" && grep -Eq "$before" "$W/out" && grep -Eq "$job" "$W/out" &&
	grep -Eq "^ioctl->submit +5 +2\.000 +5\.000 +5\.200 +10\.000$" "$W/out"
result $? "merge text: timeline, jobs, counts, gap statistics"
sed -n 's/^\[\([0-9.]*\)\] .*/\1/p' "$W/merged.txt" | sort -c -n 2> "$W/err" &&
	[ "$(grep -c '^\[' "$W/merged.txt")" = 49 ]
result $? "merge text: 49 events in time order"
run merge -c "$D/cpu.txt" -i "$D/gpu.bin" -j && ! grep -q '^\[' "$W/out" &&
	grep -q "^100:4 " "$W/out" && grep -q "^jobs: 9," "$W/out"
result $? "merge --jobs-only"
run merge -c "$D/cpu.txt" -i "$D/gpu.bin" --stats-only &&
	[ "$(head -c 14 "$W/out")" = "grtrace merge:" ] && [ "$(wc -l < "$W/out")" = 8 ]
result $? "merge --stats-only"
run merge -c "$D/cpu.txt" -i "$D/gpu.bin" -o "$W/o.txt" && [ ! -s "$W/out" ] &&
	cmp -s "$W/o.txt" "$W/merged.txt"
result $? "merge -o FILE"
timeout 20 "$G" merge -c - -i "$D/gpu.bin" -f csv < "$D/cpu.txt" > "$W/out" 2> "$W/err" &&
	$C "$E" "$W/out" > "$W/err"
result $? "merge -c - (stdin)"
run merge -c "$D/cpu-usec.txt" -i "$D/gpu.bin" -f csv && $C "$E" "$W/out" > "$W/err"
result $? "merge: microsecond time stamps"

# ---- NVIDIA's ioctls: drv=nvidia name=NAME ----
run merge -c "$D/cpu-nvidia.txt" -i "$D/gpu.bin" -f csv &&
	grep -q "cpu-nvidia.txt:[0-9]*: bad value in drv=nv,idia: line skipped" "$W/err" &&
	[ "$(grep -c 'line skipped' "$W/err")" = 1 ] && $C "$E" "$W/out" > "$W/err"
result $? "merge: NVIDIA's ioctls read, a bad drv= skipped, the jobs' answers unchanged"
nv="^\[0\.000200000\] CPU IOCTL_ENTER +glxgears pid=1234 tid=1235 cmd=0xc020462a "
nv+="nvidia:RM_CONTROL arg=0x7ffc00001235$"
run merge -c "$D/cpu-nvidia.txt" -i "$D/gpu.bin" && grep -Eq "$nv" "$W/out" &&
	grep -Eq "^\[0\.000305000\] CPU IOCTL_EXIT +nvapp .* nvidia:RM_ALLOC ret=0 " "$W/out" &&
	grep -Eq "^\[0\.000320000\] CPU IOCTL_EXIT +nvapp .* nvidia:0xc0104629 ret=0 " "$W/out" &&
	grep -q "^ioctls: 10, that submitted jobs: 4," "$W/out"
result $? "merge text: NVIDIA's ioctls as nvidia:NAME"

# ---- clock offset ----
run merge -c "$D/cpu-shift.txt" -i "$D/gpu.bin" -f csv --clock-offset 1ms &&
	! grep -q "are the clocks the same" "$W/err" && $C "$E" "$W/out" > "$W/err"
result $? "merge --clock-offset 1ms: CPU clock 1 ms ahead"
run merge -c "$D/cpu-shift.txt" -i "$D/gpu.bin" -f csv --clock-offset 1000000 &&
	$C "$E" "$W/out" > "$W/err"
result $? "merge --clock-offset 1000000 (ns)"
run merge -c "$D/cpu-shift.txt" -i "$D/gpu.bin" --stats-only &&
	grep -q "matched to an ioctl: 0," "$W/out" &&
	grep -q "gpu.bin: none of the [0-9]* jobs .* submitted in one: are the clocks the same?" \
		"$W/err" && grep -q "trace-cmd record -C mono" "$W/err"
result $? "merge: a 1 ms clock difference uncorrected matches nothing, and says so"
run merge -c "$D/cpu.txt" -i "$D/gpu.bin" -f csv --clock-offset -1ms &&
	[ "$(grep -c ',1,matched,' "$W/out")" = 0 ] &&
	run merge -c "$D/cpu.txt" -i "$D/gpu.bin" --stats-only --clock-offset=-1ms &&
	grep -q "clock offset -1000000 ns" "$W/out"
result $? "merge --clock-offset -1ms"
# An offset that would put times before 0 (they were drawn at 0)
msg="gpu.bin: --clock-offset -1000.000000000 s puts its first event, at [0-9.]+ s, before 0"
for cmd in merge timeline; do
	expect_fail "$cmd: --clock-offset before 0" "$msg" \
		$cmd -c "$D/cpu.txt" -i "$D/gpu.bin" --clock-offset -1000s
done

# ---- bad input: reported with file:line, skipped, no crash ----
run merge -c "$D/cpu-bad.txt" -i "$D/gpu.bin" -f csv &&
	$C "$E" "$W/out" \
	pid,tgid,matched,why,ioctl_to_submit_ns,submit_to_start_ns,start_to_end_ns > "$W/cmp"
ok=$?
for n in $(python3 -c 'import json,sys; print(*json.load(open(sys.argv[1]))["bad_lines"])' "$E"); do
	grep -q "cpu-bad.txt:$n: .*line skipped" "$W/err" || ok=1
done
[ "$(grep -c 'line skipped' "$W/err")" = 15 ] || ok=1
result $ok "merge: 15 malformed lines reported by line, skipped, answers unchanged"
run merge -c "$D/empty.txt" -i "$D/gpu.bin" --stats-only &&
	grep -q "empty.txt:1: no IOCTL_ENTER or IOCTL_EXIT line in this file (empty)" "$W/err" &&
	grep -q "matched to an ioctl: 0, not matched: 9" "$W/out"
result $? "merge: empty CPU file"
run merge -c "$D/comments.txt" -i "$D/gpu.bin" --stats-only &&
	grep -q "comments.txt:3: no IOCTL_ENTER" "$W/err"
result $? "merge: CPU file of comments only"
expect_fail "merge: missing CPU file" "nothere.txt: No such file" \
	merge -c "$D/nothere.txt" -i "$D/gpu.bin"
expect_fail "merge: missing GPU file" "nothere.bin: No such file" \
	merge -c "$D/cpu.txt" -i "$D/nothere.bin"
: > "$D/empty.bin"
expect_fail "merge: empty GPU file" "empty.bin: offset 0: no grtrace records" \
	merge -c "$D/cpu.txt" -i "$D/empty.bin"
# Seven bytes short: the last record is cut whatever the record sizes.
head -c $(($(stat -c %s "$D/gpu.bin") - 7)) "$D/gpu.bin" > "$D/cut.bin"
expect_fail "merge: truncated GPU file" "cut.bin: offset [0-9]+: truncated record" \
	merge -c "$D/cpu.txt" -i "$D/cut.bin"
expect_fail "merge: CPU file given as GPU file" "cpu.txt: offset 0: not a grtrace stream" \
	merge -c "$D/cpu.txt" -i "$D/cpu.txt"
head -c 3000 /dev/urandom > "$D/random.txt"
run merge -c "$D/random.txt" -i "$D/gpu.bin" --stats-only &&
	grep -q "matched to an ioctl: 0" "$W/out"
result $? "merge: random bytes as CPU file"
printf '[1.000000000] IOCTL_ENTER pid=1 tid=1 cmd=0xc01864b1\n' > "$D/far.txt"
run merge -c "$D/far.txt" -i "$D/gpu.bin" --stats-only && grep -q "do not overlap in time" "$W/err"
result $? "merge: inputs of different boots are pointed out"

# ---- one time base ----
# Every time the commands print is from the session start: a job's TIME in
# report --jobs, its first line in merge, and the window timeline draws for
# --since and --until.
run report -i "$D/gpu.bin" --jobs && cp "$W/out" "$W/jobs.txt" &&
	python3 - "$W/jobs.txt" "$W/merged.txt" > "$W/err" << 'EOF' &&
import re, sys
jobs, merged = (open(f).read().splitlines() for f in sys.argv[1:])
i = jobs.index('jobs (times in us; TIME from the session start):')
time = {l.split()[3]: float(l.split()[0]) for l in jobs[i + 2:] if l.strip()}
first = {}
for l in merged:
    m = re.match(r'\[(-?[\d.]+)\] GPU \S+ +\S+ job=(\d+:\d+)', l)
    if m and m[2] not in first:
        first[m[2]] = float(m[1]) * 1e6
bad = [(k, time.get(k), v) for k, v in first.items()
       if time.get(k) is None or abs(time[k] - v) > 0.0005]
print(f'{len(time)} jobs, {len(first)} in merge; differ: {bad}')
sys.exit(len(time) != 9 or len(first) != 9 or bool(bad))
EOF
	run timeline -i "$D/gpu.bin" -c "$D/cpu.txt" --since 300us --until 1ms &&
	grep -q "^grtrace timeline: 0.000300000 .. 0.001000000 s$" "$W/out"
result $? "report, merge, timeline: a job's time from the session start in each"

# ---- timeline ----
rep() {	# rep CHAR N: CHAR N times
	printf "%${2}s" "" | tr ' ' "$1"
}
run timeline -i "$D/gpu.bin" -c "$D/cpu.txt" -w 100 --since 0 --until 150us &&
	grep -q "^grtrace timeline: 0.000000000 .. 0.000150000 s$" "$W/out" &&
	grep -q "^  150.0us, 75 columns of 2000ns$" "$W/out" &&
	grep -qx "virtio0/ctrlq          |$(rep . 20)$(rep = 28)$(rep . 27)|" "$W/out" &&
	grep -qx "0000:03:00.0/gfx_0.0.0 |.....-----$(rep '#' 51)$(rep . 14)|" "$W/out" &&
	grep -qx "glxgears/1235          |....i^iiiiiiiiii$(rep . 59)|" "$W/out"
result $? "timeline: rows of a known window"
ok=0
for w in 60 61 100 173 400; do
	run timeline -i "$D/gpu.bin" -c "$D/cpu.txt" -w $w || ok=1
	awk -v w=$w 'length($0) > w { exit 1 }' "$W/out" || ok=1
	[ "$(grep -c '|$' "$W/out")" = 8 ] || ok=1
done
result $ok "timeline -w: no line longer than the width, a row per ring and thread"
COLUMNS=64 timeout 20 "$G" timeline -i "$D/gpu.bin" > "$W/out" 2> "$W/err" &&
	awk 'length($0) > 64 { exit 1 }' "$W/out" && [ "$(grep -c '|$' "$W/out")" = 4 ]
result $? "timeline: COLUMNS, no CPU file"
run timeline -i "$D/gpu.bin" -c "$D/cpu.txt" --latency --topn 3 -w 100 &&
	[ "$(sed -n '/slowest jobs/,$p' "$W/out" | awk 'NR > 1 { printf "%s ", $1 }')" = \
	  "100:1 100:2 200:1 " ] &&
	grep -Eq "^  start->end +3 +49\.000 +49\.000 +52\.000 +52\.000$" "$W/out" &&
	grep -Eq "^  ioctl->submit +3 +2\.000 +2\.000 +10\.000 +10\.000$" "$W/out"
result $? "timeline --latency: phases per ring, the slowest jobs"
# same_latency ARGS...: timeline --latency's latency row (submit->complete)
# of each ring is report --per-ring's (n, min, p50, p99, max), on the same
# input and window; fails if report names no ring.
same_latency() {
	timeout 20 "$G" timeline --latency -w 100 "$@" > "$W/tl" 2> "$W/err" &&
		timeout 20 "$G" report --per-ring -f csv "$@" > "$W/rp" 2>> "$W/err" || return 1
	awk '/^[^ ]/ { ring = $1 }
	     $1 == "submit->complete" {
		printf "%s %d %.3f %.3f %.3f %.3f\n", ring, $2, $3, $4, $5, $6 }' "$W/tl" |
		sort > "$W/tl.lat"
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		 $c["lat_n"] > 0 { printf "%s %d %.3f %.3f %.3f %.3f\n", $c["group"], $c["lat_n"],
			$c["lat_min"] / 1000, $c["lat_p50"] / 1000, $c["lat_p99"] / 1000,
			$c["lat_max"] / 1000 }' "$W/rp" | sort > "$W/rp.lat"
	[ -s "$W/rp.lat" ] && cmp -s "$W/tl.lat" "$W/rp.lat"
}
ok=0
for args in "" "--since 50us --until 300us" "--since 150us"; do
	# shellcheck disable=SC2086
	same_latency -i "$D/noend.bin" $args || ok=1
	# shellcheck disable=SC2086
	same_latency -i "$D/gpu.bin" $args || ok=1
done
# More jobs than a statistic keeps exactly (8192): the ranks of buckets,
# the same; and 8800 of them in a window
same_latency -i "$D/many.bin" || ok=1
same_latency -i "$D/many.bin" --since 1s || ok=1
result $ok "timeline --latency: each ring's latency is report's (no END, windows, 9000 jobs)"
# report --jobs: each time right-aligned under its heading, 150 s into the
# session and 12 s long too
run report --jobs -i "$D/long.bin" &&
	awk '/^ *TIME RING/ {
		n = split("TIME HOST DEVICE COMPL LATENCY QUEUE EXEC GPUWAIT", h, " ")
		for (i = 1; i <= n; i++)
			end[i] = index($0, " " h[i] " ") + length(h[i])
		rows = 1
		next }
	     rows && !NF { exit }
	     rows {
		for (i = 1; i <= n; i++)
			bad += substr($0, end[i], 1) == " " || substr($0, end[i] + 1, 1) != " "
		jobs++ }
	     END { exit bad || jobs != 2 }' "$W/out"
result $? "report --jobs: times aligned under their headings, 12 s and 150 s too"
run timeline -i "$D/noend.bin" --latency -w 100 &&
	grep -Eq "^  500:1 .*\| 501\.000$" "$W/out" &&
	grep -Eq "^  submit->complete +4 +8\.000 +31\.000 +501\.000 +501\.000$" "$W/out"
result $? "timeline --latency: a job without END counts to its COMPLETE (501 us, not 2)"
run merge -c "$D/cpu.txt" -i "$D/noend.bin" -f csv &&
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		 $1 == "500:1" { v = $c["start_to_end_ns"] } END { exit v != 499000 }' "$W/out"
result $? "merge: a job without END counts to its COMPLETE, as in timeline (499 us, not none)"
# One median: report's table, its slow-exec label (4 times the median) and
# export's are the same, the lower of the two middle values of 4 (20 us):
# the job of 100 us is slow-exec, the others not.
run report -i "$D/median.bin" --per-ring -f csv &&
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		 { exit $c["exec_p50"] != 20000 }' "$W/out" &&
	run report --jobs -i "$D/median.bin" &&
	[ "$(awk '$4 ~ /^600:/ { printf "%s %s ", $4, $NF }' "$W/out")" = \
	  "600:1 - 600:2 - 600:3 - 600:4 slow-exec " ] &&
	run export -i "$D/median.bin" --chrome "$W/median.json" &&
	python3 -c 'import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
got = [(e["args"]["fence"], e["args"]["labels"]) for e in ev if "labels" in e.get("args", {})]
sys.exit(got != [("600:1", ""), ("600:2", ""), ("600:3", ""), ("600:4", "slow-exec")])' \
		"$W/median.json"
result $? "report and export: one median, the table's p50, 4 times it slow-exec"
# One set of figures per job: export's Perfetto trace gives each job
# report's (the job slice's args, and its phase slices' lengths), jobs
# without END included; fails if report lists no job.
same_jobs() {
	timeout 20 "$G" report --jobs -f json -i "$1" > "$W/rj" 2> "$W/err" &&
		timeout 20 "$G" export --chrome "$W/ex.json" -i "$1" 2>> "$W/err" &&
		python3 - "$W/rj" "$W/ex.json" << 'EOF' 2>> "$W/err"
import json, sys
keys = ('t_submit_host', 't_queue', 't_exec', 't_device', 't_complete', 'latency', 'status')
phase = {'host': 't_submit_host', 'queue': 't_queue', 'exec': 't_exec', 'device': 't_device',
         'complete': 't_complete'}
jobs = json.load(open(sys.argv[1]))['jobs']
by_fence = {j['fence']: j for j in jobs}
assert jobs and len(by_fence) == len(jobs), 'fences not unique'
ev = [e for e in json.load(open(sys.argv[2]))['traceEvents'] if e.get('ph') == 'X']
slices = [e for e in ev if e.get('cat') == 'job']
assert sorted(e['args']['fence'] for e in slices) == sorted(by_fence), 'jobs differ'
for s in slices:
    j = by_fence[s['args']['fence']]
    for k in keys:
        assert s['args'].get(k) == j[k], (j['fence'], k, s['args'].get(k), j[k])
    got = {e['name']: round(e['dur'] * 1000) for e in ev
           if e.get('cat') == 'phase' and (e['pid'], e['tid']) == (s['pid'], s['tid'])
           and s['ts'] <= e['ts'] < s['ts'] + s['dur']}
    for name, ns in got.items():
        assert ns == j[phase[name]], (j['fence'], name, ns, j[phase[name]])
    want = {n for n, k in phase.items() if j[k]}
    if j['t_queue'] is not None or j['t_exec'] is not None:
        want.discard('device')
    assert set(got) == want, (j['fence'], sorted(got), sorted(want))
EOF
}
ok=0
for f in noend gpu median many; do
	same_jobs "$D/$f.bin" || { echo "$f.bin" >> "$W/err"; ok=1; }
done
result $ok "report and export: each job's figures the same, jobs without END included"
run timeline -i "$D/gpu.bin" -c "$D/cpu-bad.txt" -o "$W/t.txt" && [ -s "$W/t.txt" ] &&
	grep -q "cpu-bad.txt:6: 'junk' is not KEY=VALUE" "$W/err"
result $? "timeline: bad CPU lines skipped, -o FILE"
expect_fail "timeline: empty GPU file" "no grtrace records" timeline -i "$D/empty.bin"

# ---- valgrind ----
if [ "${VALGRIND:-1}" != 0 ] && command -v valgrind > /dev/null; then
	vg() {
		timeout 120 valgrind -q --error-exitcode=99 --leak-check=full \
			--errors-for-leak-kinds=definite "$G" "$@" > /dev/null 2> "$W/err"
		local rc=$?
		# valgrind's error (99), a timeout (124) or a signal (128 + N)
		[ $rc != 99 ] && [ $rc -lt 124 ] && return 0
		echo "exit $rc: grtrace $*" >> "$W/err"
		return 1
	}
	ok=0
	for cpu in cpu.txt cpu-bad.txt cpu-nvidia.txt empty.txt comments.txt random.txt; do
		vg merge -c "$D/$cpu" -i "$D/gpu.bin" || ok=1
		vg merge -c "$D/$cpu" -i "$D/gpu.bin" -f csv || ok=1
	done
	vg merge -c "$D/cpu.txt" -i "$D/cut.bin" || ok=1
	vg merge -c "$D/cpu.txt" -i "$D/empty.bin" || ok=1
	result $ok "valgrind: merge, good and bad inputs"
	ok=0
	vg timeline -i "$D/gpu.bin" -c "$D/cpu.txt" -w 40 || ok=1
	vg timeline -i "$D/gpu.bin" -c "$D/cpu-bad.txt" --since 10us --until 20us || ok=1
	vg timeline -i "$D/gpu.bin" --latency --topn 100 || ok=1
	vg timeline -i "$D/gpu.bin" -c "$D/empty.txt" --latency || ok=1
	result $ok "valgrind: timeline, --latency"
else
	skip "valgrind: merge, good and bad inputs" "VALGRIND=0, or valgrind not installed"
	skip "valgrind: timeline, --latency" "VALGRIND=0, or valgrind not installed"
fi

# ---- the annotator ----
# skip_real REASON: the checks of the annotator on this kernel
skip_real() {
	skip "annotate on this kernel: the DRM ioctls of a process, only those" "$1"
	skip "annotate -r: the same from raw_syscalls" "$1"
	skip "annotate -p: other processes left out" "$1"
}
if [ -z "$A" ] || [ ! -x "$A" ]; then
	why="grtrace-bpf-annotate not built (clang or libbpf missing)"
	skip "annotate --help" "$why"
	skip "annotate: bad options refused" "$why"
	skip "annotate -p: no such process" "$why"
	skip "annotate: not root: a clear message, exit 1" "$why"
	skip_real "$why"
else
	timeout 20 "$A" --help > "$W/out" 2> "$W/err" &&
		grep -q "usage: grtrace-bpf-annotate" "$W/out"
	result $? "annotate --help"
	ok=0
	for args in "--bogus" "-p 0" "-p x" "-d 0" "-d 1s" "extra"; do
		# shellcheck disable=SC2086
		timeout 20 "$A" $args > "$W/out" 2> "$W/err"
		[ $? = 1 ] && grep -q "^grtrace-bpf-annotate: " "$W/err" || ok=1
	done
	result $ok "annotate: bad options refused"
	timeout 20 "$A" -p 2147483647 > "$W/out" 2> "$W/err"
	[ $? = 1 ] && grep -q "no process 2147483647" "$W/err"
	result $? "annotate -p: no such process"
	if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
		timeout 20 setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
			"$A" -d 1 > "$W/out" 2> "$W/err"
		[ $? = 1 ] && grep -q "run as root" "$W/err"
		result $? "annotate: not root: a clear message, exit 1"
	else
		skip "annotate: not root: a clear message, exit 1" "not root, or no setpriv"
	fi
	# Real BPF: DRM-type ioctls on /dev/null (they fail with ENOTTY), and
	# 'F' ones, which are not NVIDIA's there; with an argument, the fd is
	# kept open a second, for the annotator to find /dev/null behind it
	cat > "$W/ioctls.c" <<-'C'
	#include <fcntl.h>
	#include <stdio.h>
	#include <sys/ioctl.h>
	#include <unistd.h>
	int main(int argc, char *argv[])
	{
		int fd = open("/dev/null", O_RDWR), i;

		for (i = 0; i < 3; i++) {
			ioctl(fd, 0xc01864b1, (void *)0x1234);	/* DRM_IOCTL_MODE_DIRTYFB */
			ioctl(fd, 0x5401, 0);			/* TCGETS: not DRM */
			ioctl(fd, 0x4600, 0);			/* FBIOGET_VSCREENINFO */
		}
		printf("%d\n", getpid());
		fflush(stdout);
		if (argc > 1)
			sleep(1);
		return 0;
	}
	C
	if [ "$(id -u)" != 0 ]; then
		skip_real "not root"
	elif ! cc -o "$W/ioctls" "$W/ioctls.c" 2> "$W/err"; then
		skip_real "no C compiler"
	else
		rm -f "$W/ann.txt" "$W/ann2.txt" "$W/ann3.txt"
		timeout 30 "$A" -d 3 -o "$W/ann.txt" 2> "$W/ann.err" &
		apid=$!
		for _ in $(seq 50); do
			[ -s "$W/ann.txt" ] && break
			kill -0 $apid 2> /dev/null || break
			sleep 0.1
		done
		pid=$("$W/ioctls" hold)
		wait $apid
		rc=$?
		if [ $rc != 0 ] && grep -Eq "BPF|tracefs|syscall tracepoints" "$W/ann.err"; then
			skip_real "$(tail -1 "$W/ann.err")"
		else
			cp "$W/ann.err" "$W/err"
			who="pid=$pid tid=$pid comm=ioctls cmd=0xc01864b1"
			[ $rc = 0 ] &&
				[ "$(grep -c "IOCTL_ENTER $who arg=0x1234$" "$W/ann.txt")" = 3 ] &&
				[ "$(grep -c "IOCTL_EXIT $who ret=-25 " "$W/ann.txt")" = 3 ] &&
				! grep -Eq "pid=$pid .*cmd=0x0000(5401|4600)" "$W/ann.txt" &&
				other=$(sed -n 's/.*left out: \([0-9]*\) other,.*/\1/p' \
					"$W/ann.err") && [ "${other:-0}" -ge 3 ]
			result $? "annotate on this kernel: the DRM ioctls of a process, only those"
			ktap_print_msg "annotate: $(tail -1 "$W/ann.err" | cut -d' ' -f2-)"
			timeout 30 "$A" -q -r -d 3 -o "$W/ann3.txt" 2> "$W/err" &
			apid=$!
			sleep 1
			pid=$("$W/ioctls")
			wait $apid && grep -q " raw_syscalls/sys_enter " "$W/ann3.txt" &&
				! grep -q "pid=$pid .*cmd=0x00004600" "$W/ann3.txt" &&
				[ "$(grep -c "IOCTL_EXIT pid=$pid .* ret=-25 " "$W/ann3.txt")" = 3 ]
			result $? "annotate -r: the same from raw_syscalls"
			timeout 30 "$A" -q -p "$$" -d 2 -o "$W/ann2.txt" 2> "$W/err" &
			apid=$!
			sleep 1
			"$W/ioctls" > /dev/null
			wait $apid && ! grep -q IOCTL "$W/ann2.txt" &&
				grep -q "pid $$" "$W/ann2.txt"
			result $? "annotate -p: other processes left out"
		fi
	fi
fi

finish
