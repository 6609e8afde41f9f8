#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Host-side tests of the grtrace tool; no grtrace kernel needed.
#
#   GRTRACE=path/to/grtrace tests/run-tests.sh [WORKDIR]
#
# Synthetic streams come from gen-streams.py, a directory of plain files
# stands in for /sys/kernel/debug/grtrace (GRTRACE_DIR).  Prints KTAP: a
# line per check ("ok N NAME", "not ok N NAME", "ok N NAME # SKIP REASON"),
# the plan and the totals; the exit status is non-zero if any check failed.
# VALGRIND=0 skips the valgrind checks.

TESTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SUITE=cli
. "$TESTS/lib.sh" "${1:-}"

E=$W/gen/expected.json
C="python3 $TESTS/check.py"

check "generate synthetic streams" python3 "$TESTS/gen-streams.py" "$W/gen"
rm -rf "$W/fs" && cp -r "$W/gen/fakefs" "$W/fs"

# ---- usage ----
run --help && grep -q "usage: grtrace COMMAND" "$W/out"
result $? "grtrace --help"
for cmd in start stop status config record report export persist top; do
	run $cmd --help && grep -q "usage: grtrace $cmd" "$W/out"
	result $? "$cmd --help"
done
# One letter, one meaning, in every command's usage: -d is a time (record
# and probe: how long; top: between refreshes, as in top(1)), -n a count
# (of jobs listed; top's refreshes, as in top(1)).  The options that lost
# their letter to this are refused by it.
for cmd in start stop status config record report export dump merge timeline top probe \
	persist; do
	"$G" $cmd --help 2>&1 | grep -oE '(^| )-[a-zA-Z]/--[a-z-]+' | sed "s/^ *//; s/^/$cmd /"
done > "$W/letters"
awk '{ split($2, o, "/"); if (!(o[1] in long)) long[o[1]] = o[2]
	else if (long[o[1]] != o[2] &&
		 !(o[1] o[2] ~ /^-d--(duration|delay)$|^-n--(topn|iterations)$/)) {
		print "letter " o[1] ": " long[o[1]] " and " o[2] " (" $1 ")"; bad = 1 } }
	END { exit bad || NR < 40 }' "$W/letters" > "$W/err" &&
	for args in "export -c x.json" "merge -s" "persist -s 16M" "probe -n" "probe -b 64" \
		"start -b 4096"; do
		l=${args#* -}
		# shellcheck disable=SC2086
		"$G" $args 2>&1 | grep -q "invalid or incomplete option '-${l%% *}'" ||
			{ echo "$args: accepted" >> "$W/err"; break; }
	done && [ ! -s "$W/err" ]
result $? "options: one meaning per letter across commands; the letters taken away refused"
expect_fail "no command" "a command is required"
expect_fail "unknown command, named" "unknown command 'frobnicate'" frobnicate
run help report && grep -q "usage: grtrace report" "$W/out" &&
	run help "help" && grep -q "usage: grtrace COMMAND" "$W/out" &&
	{ run help report x; [ $? = 1 ] && grep -q "help takes one COMMAND" "$W/err"; }
result $? "help COMMAND: COMMAND --help; help help: the commands"
# Bash completion: every command "grtrace help" lists; for each command,
# the long options its man page defines (a line of option names alone,
# not prose that names an option), no more, no fewer; a file after -i
# however its name is quoted.
complete_words() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _grtrace
		printf "%s\n" "${COMPREPLY[@]}"' complete "$TESTS/../grtrace-completion.bash" \
		"$G" "$@"
}
man_options() {
	local doc=$TESTS/../Documentation
	# shellcheck disable=SC2046
	cat "$doc/grtrace-$1.rst" $(sed -n 's|^\.\. include:: \(.*\)|'"$doc"'/\1|p' \
		"$doc/grtrace-$1.rst") | grep '^\*\*-' |
		awk '{ l = $0; gsub(/\*\*[^*]*\*\*|\*[^*]*\*/, "", l) } l !~ /[a-z][a-z][a-z]/' |
		grep -oE -- '--[a-z][a-z0-9-]*' | sort -u
}
cmds="start stop status config record report export dump merge timeline probe persist top"
touch "$W/gen/my file.bin"
(
	[ "$(complete_words "" | tr '\n' ' ')" = "$cmds help " ] &&
		[ "$(complete_words help re | tr '\n' ' ')" = "record report " ] &&
		[ "$(complete_words report --per-p)" = --per-process ] &&
		[ "$(cd "$W/gen" && complete_words report -i 'my\ f')" = "my file.bin" ] &&
		[ "$(cd "$W/gen" && complete_words report -i '"my f')" = "my file.bin" ] &&
		for cmd in $cmds; do
			complete_words $cmd -- | sort > "$W/offered"
			man_options $cmd > "$W/man"
			[ -s "$W/man" ] && diff "$W/man" "$W/offered" || { echo "$cmd"; exit 1; }
		done
) > "$W/err" 2>&1
result $? "bash completion: the commands, each one's options as its man page has them, files"
# A bad value: what is wrong and where the options are, not the whole usage.
run report --topn 0
[ $? = 1 ] && [ "$(wc -l < "$W/err")" = 2 ] && [ ! -s "$W/out" ] &&
	grep -q "'grtrace report --help' lists the options" "$W/err"
result $? "report: a bad value gets its error and a pointer to --help, 2 lines"
# One input per command: a second -i is refused, not taken instead.
for cmd in report export dump merge timeline persist; do
	run $cmd -i A -i B
	[ $? = 1 ] && grep -q -- "-i given twice" "$W/err" || echo "$cmd: $(head -1 "$W/err")"
done > "$W/twice"
[ ! -s "$W/twice" ]
result $? "report, export, dump, merge, timeline, persist: -i twice refused"
expect_fail "report: --until before --since" "--until must not be before --since" \
	report --since 10s --until 5s
expect_fail "report: --engine mask of unknown engines" "invalid --engine" report --engine 999
expect_fail "report: --engine mask over 32 bits" "invalid --engine" report --engine 0x100000000
expect_fail "report: --engine list with an empty name" "invalid --engine" report --engine graphics,
# Counts are decimal: 010 is ten, as a user means it, not octal eight.
run report -i "$W/gen/manyrings.bin" -f json --topn 010 &&
	python3 -c 'import json, sys
sys.exit(len(json.load(open(sys.argv[1]))["jobs"]) != 10)' "$W/out"
result $? "report --topn 010: ten jobs"
expect_fail "report: bad option" "invalid or incomplete option '--bogus'" report --bogus
expect_fail "report: bad letter first in a cluster" "invalid or incomplete option '-z'" report -zj
expect_fail "report: bad --format" "invalid --format" report -f xml
expect_fail "report: bad --hist" "invalid --hist" report --hist foo
expect_fail "report: bad --engine" "invalid --engine" report --engine gpu
expect_fail "report: bad --since" "invalid --since" report --since 5parsecs
expect_fail "record: bad --duration" "invalid --duration" record -o x -d -1
# In ns, 18446744074 s wrapped to 0.3 s
expect_fail "record: --duration beyond a year" "invalid --duration" record -o x -d 18446744074
expect_fail "record: --duration of a year and an hour" "invalid --duration" record -o x -d 8785h
expect_fail "record: --duration below 1 ns" "invalid --duration" record -o x -d 0.0000000001
expect_fail "record: --duration, a unit before m" "invalid --duration" record -o x -d 5mm
expect_fail "export: an output required" "--chrome FILE or --kernelshark FILE is required" export
expect_fail "export: --kernelshark-session without lanes" \
	"--kernelshark-session goes with --kernelshark FILE" \
	export --chrome /dev/null --kernelshark-session /dev/null
expect_fail "stop: no -b" "invalid or incomplete option" stop -b 4096

# ---- report on the synthetic session ----
V=$W/gen/valid
run report --jobs -i "$V" && grep -q "lost      2 records (gseq gaps)" "$W/out" &&
	grep -Eq "100:3 .* 5000\.000 .*long-queue,slow-exec,preempted$" "$W/out" &&
	grep -Eq "300:1 .* -ETIME +- +error$" "$W/out"
result $? "report text: header and job lines"
# One record's gseq damaged to 2^63: a jump no recording loses, counted
# apart, not as 2^63 records lost
python3 - "$W/gen/contexts.bin" "$W/jump.bin" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
off = last = 0
while off < len(b):
    last, off = off, off + struct.unpack_from('<H', b, off + 2)[0]
struct.pack_into('<Q', b, last + 16, 1 << 63)      # the last record's gseq
open(sys.argv[2], 'wb').write(b)
EOF
run report -i "$W/jump.bin" -f json && python3 - "$W/out" <<'EOF' &&
import json, sys
s = json.load(open(sys.argv[1]))['session']
assert (s['lost_records'], s['gseq_jumps']) == (0, 1), s
EOF
	run report -i "$W/jump.bin" &&
	grep -Fq "lost      0 records (gseq gaps); 1 gseq jump of 2^32 or more not counted" "$W/out"
result $? "report: a record's gseq of 2^63 is a damaged record, not 2^63 records lost"
# The gap a flight recorder leaves: CPU 1 wrote 2^33 records more, and
# kept only its last ones; CPU 0, idle, its first ones.  Lost, not damaged:
# no record of CPU 1 came before the gap.
python3 - "$W/gen/valid" "$W/overwritten" <<'EOF'
import os, shutil, struct, sys
shutil.copytree(sys.argv[1], sys.argv[2])
path = os.path.join(sys.argv[2], 'events1.bin')
b = bytearray(open(path, 'rb').read())
off = 0
while off < len(b):
    struct.pack_into('<Q', b, off + 16, struct.unpack_from('<Q', b, off + 16)[0] + (1 << 33))
    off += struct.unpack_from('<H', b, off + 2)[0]
open(path, 'wb').write(b)
EOF
run report -i "$W/overwritten" -f json && python3 - "$W/out" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))['session']
assert s['lost_records'] > 1 << 33 and s['gseq_jumps'] == 0, s
EOF
result $? "report: a gap of 2^33 before a CPU's first record (a flight recorder's) is records lost"
# A SUBMIT at 2^64 - 1000 ns: no CLOCK_MONOTONIC time, a damaged record
# (it made a TIME of -1000001 us and a latency across the wrap)
python3 - "$W/gen/contexts.bin" "$W/wrap.bin" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
off = 0
while struct.unpack_from('<H', b, off)[0] != 0:     # the first SUBMIT
    off += struct.unpack_from('<H', b, off + 2)[0]
struct.pack_into('<Q', b, off + 8, (1 << 64) - 1000)
open(sys.argv[2], 'wb').write(b)
EOF
expect_fail "report: a record at 2^64 - 1000 ns refused as damaged, with its offset" \
	"wrap.bin: offset [0-9]+: record at 18446744073709550616 ns, no CLOCK_MONOTONIC time" \
	report -i "$W/wrap.bin"
# The summary (the default) against the jobs (check.py summary).
summary_check() {
	run report -i "$1" -f json && cp "$W/out" "$W/sum.json" &&
		run report --jobs -i "$1" -f json &&
		$C summary - "$W/sum.json" "$W/out" > /dev/null 2> "$W/err"
}
summary_check "$V" && summary_check "$W/gen/contexts.bin" && summary_check "$W/gen/threads.bin"
result $? "report: the summary is the jobs' sums, shares, ranks, averages, the most GPU time first"
# A process is its tgid, named by its leader, though a thread of another
# name (Mesa's disk cache thread) submitted first, in the summary, in
# --per-process and in the list of a context's submitters
run report -i "$W/gen/threads.bin" && grep -Eq '^kmscube\[100\] +3 ' "$W/out" &&
	! grep -q 'disk' "$W/out" &&
	run report -i "$W/gen/threads.bin" --per-context &&
	grep -Eq ' ctx 2 kmscube\[100\]$' "$W/out" && ! grep -q 'disk' "$W/out" &&
	run report -i "$W/gen/threads.bin" --per-process -f json &&
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit({g["group"]: g["jobs"] for g in d["per_process"]} !=
         {"kmscube[100]": 3, "kworker/0:1[7]": 1})' "$W/out"
result $? "report: a process's threads in one row and one name, its leader's"
run report --jobs -i "$V" -f csv && $C csv "$E" "$W/out" 2> "$W/err"
result $? "report csv: all job values"
run report --jobs -i "$V" -f csv && $C stamps - "$W/out" "$V" > "$W/err" 2>&1
result $? "report csv: each whole job's stages and DRM client, its records' ($(tail -1 "$W/err"))"
# Each stage's time, absolute: the phases are their differences
run report --jobs -i "$V" -f csv && python3 - "$W/out" << 'EOF' 2> "$W/err"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
n = 0
for r in rows:
    t = {k: int(r[k + '_ns']) for k in ('submit', 'commit', 'start', 'end', 'complete')
         if r[k + '_ns']}
    if 'submit' in t and 'complete' in t:
        assert int(r['latency']) == t['complete'] - t['submit'], r
        n += 1
    if 'start' in t and 'end' in t:
        assert int(r['t_exec']) == t['end'] - t['start'], r
assert n >= 4, n
EOF
result $? "report csv: each stage's time, the latency and exec times their differences"
run report --jobs -i "$V" -f json && python3 -m json.tool "$W/out" > /dev/null &&
	$C json "$E" "$W/out" 2> "$W/err"
result $? "report json: valid, all job values"
run report -i "$V" -f json --per-ring --per-context --per-process &&
	python3 -m json.tool "$W/out" > /dev/null && $C groups "$E" "$W/out" 2> "$W/err"
result $? "report --per-ring --per-context --per-process"
run report -i "$V" -f json --per-ctx && $C named - "$W/out" 2> "$W/err"
result $? "report --per-ctx: contexts named after their processes"
# -o FILE: what stdout would hold, made only when the report is
printf 'grtrace: GPU ring trace\n\nA text file, not a recording.\n' > "$W/text.txt"
rm -f "$W/o.csv" "$W/o.link"
run report -i "$V" -f csv && cp "$W/out" "$W/stdout.csv" &&
	(umask 022 && run report -i "$V" -f csv -o "$W/o.csv") && [ ! -s "$W/out" ] &&
	cmp -s "$W/o.csv" "$W/stdout.csv" &&
	[ "$(stat -c %a "$W/o.csv")" = 644 ] && chmod 600 "$W/o.csv" &&
	run report -i "$V" -o "$W/o.csv" && [ "$(stat -c %a "$W/o.csv")" = 600 ] &&
	ln -sf o.csv "$W/o.link" && run report -i "$V" -f csv -o "$W/o.link" &&
	[ -L "$W/o.link" ] && cmp -s "$W/o.csv" "$W/stdout.csv"
result $? "report -o FILE: what stdout holds; a new file's mode, an old one's kept; a link kept"
expect_fail "report -o of its input: refused" "the input: the report would replace it" \
	report -i "$W/gen/twosessions.bin" -o "$W/gen/twosessions.bin"
echo kept > "$W/o.txt"
expect_fail "report -o FILE of a text file: refused" "not a grtrace stream" \
	report -i "$W/text.txt" -o "$W/o.txt"
[ "$(cat "$W/o.txt")" = kept ] && [ -z "$(find "$W" -maxdepth 1 -name 'o.txt.grtrace-*')" ]
result $? "report -o FILE of a refused input: FILE as it was, nothing beside it"
expect_fail "report -o into a missing directory" \
	"$W/none/o.txt: cannot make a file beside it: No such file" \
	report -i "$V" -o "$W/none/o.txt"
run report -i "$V" --per-ring -f csv && [ "$(grep -c . "$W/out")" = 4 ]
result $? "report --per-ring csv"
# CSV is one table, as a CSV reader takes a file: a header, then rows of
# its width; the rows of each table of the JSON output there, told apart by
# the first column.  The summary's phases are columns of its rows.
rc=0
for args in "" "--per-ring --per-context --per-process" "--in-flight"; do
	run report -i "$V" $args -f csv && mv "$W/out" "$W/one.csv" &&
	run report -i "$V" $args -f json && python3 - "$W/one.csv" "$W/out" << 'EOF'
import csv, json, sys
text = open(sys.argv[1]).read()
rows = list(csv.reader(text.splitlines()))
assert '\n\n' not in text and rows and all(len(r) == len(rows[0]) for r in rows), text[:300]
head, rows = rows[0], [dict(zip(rows[0], r)) for r in rows[1:]]
js = json.load(open(sys.argv[2]))
tables = {  # JSON table: (the first column's value, the group's key)
    'gpu_time_per_process': ('process', 'process'), 'gpu_time_per_ring': ('ring', 'ring'),
    'per_ring': ('ring', 'group'), 'per_context': ('context', 'group'),
    'per_process': ('process', 'group'),
    'in_flight': ('in_flight', 'fence'), 'last_completed': ('last_completed', 'fence'),
    'failed': ('failed', 'fence')}
want = []
for t, (tag, key) in tables.items():
    for x in js.get(t, []):
        x = {k: '' if v is None else str(v) for k, v in x.items()}
        x[head[0]] = tag
        if 'group' in head:
            x['group'] = x.pop(key)
        if t == 'gpu_time_per_process':
            ph = [p for p in js['phases_per_process'] if p['process'] == x['group']][0]
            x.update({k: '' if v is None else str(v) for k, v in ph.items() if k != 'process'})
        want.append({k: x.get(k, '') for k in head})  # a ring's phases empty
assert len(rows) == len(want) and len(rows) > 1, (len(rows), len(want))
rows, want = (sorted(sorted(x.items()) for x in t) for t in (rows, want))
for g, w in zip(rows, want):
    assert g == w, (g, w)
EOF
	[ $? = 0 ] || { rc=1; break; }
done 2> "$W/err"
result $rc "report -f csv: one table (default, every --per-*, --in-flight), the JSON tables' rows"
expect_fail "report -f csv of tables of other columns: refused" "-f csv is one table: one of" \
	report -i "$V" --jobs --per-ring -f csv
# A clock that went back: the mean of -3000 and -3001 ns is -3001, not
# -3000 (rounded toward zero), and the histogram counts them below 0, not
# in [0, 2).
run report -i "$W/gen/back.bin" --per-ring -f csv &&
	[ "$(cut -d, -f5,6,11,12 "$W/out" | tail -1)" = "-3001,-3001,-1000,-1000" ] &&
	run report -i "$W/gen/back.bin" --hist lat -f csv &&
	[ "$(tail -1 "$W/out")" = "-3001,0,2" ]
result $? "report: a negative latency's mean rounded away from 0; its histogram row below 0"
run report -i "$V" -f json --topn 2 && $C fences "$E" "$W/out" 100:3,300:1 2> "$W/err"
result $? "report --topn 2"
# The original design's smoke command: the top jobs with the groups, not instead
run report -i "$V" --topn 2 --per-ring --hist lat &&
	grep -q '^per ring:' "$W/out" && grep -q '^latency (COMPLETE - SUBMIT)' "$W/out" &&
	[ "$(sed -n '/^the 2 jobs of highest latency:/,/^$/p' "$W/out" | grep -c ':[0-9]')" = 2 ]
result $? "report --topn 2 --per-ring --hist lat: the groups, the histogram and the top 2"
# --per-*: in text a table per statistic, its figures in 74 columns and
# the group's name after them (within 100 columns for these rings and
# processes), the most GPU time first (glxgears 5150 us of EXEC, the
# kernel's worker 499, Xorg 18), as the summary orders them
order="glxgears[1234] kworker/u4:1[42] Xorg[550] "
run report -i "$V" --per-ring --per-process &&
	awk 'length($0) > 100 { print "too wide: " $0; bad = 1 } END { exit bad }' "$W/out" &&
	[ "$(sed -n '/^per process: t_exec (END - START) in us$/,/^$/p' "$W/out" |
		awk 'NR > 2 && NF { printf "%s ", $NF }')" = "$order" ]
result $? "report --per-*: a table per statistic, the most GPU time first"
# What was in flight at the last event: the jobs with no COMPLETE, aged to
# it; the last COMPLETEs, the last first (--limit of them); the failed
run report -i "$V" -f json --in-flight --limit 3 && python3 - "$E" "$W/out" << 'EOF' 2> "$W/err"
import json, sys
jobs = json.load(open(sys.argv[1]))['jobs']
r = json.load(open(sys.argv[2]))
last = r['session']['last_ts']
assert [j['fence'] for j in r['in_flight']] == \
    [j['fence'] for j in jobs if j['status'] == 'pending'], r['in_flight']
assert all(j['age_ns'] == last - j['first_ns'] and j['latency_ns'] is None
           for j in r['in_flight']), r['in_flight']
done = sorted((j for j in jobs if j['latency'] is not None),
              key=lambda j: -(j['time'] + j['latency']))
assert [j['fence'] for j in r['last_completed']] == [j['fence'] for j in done[:3]], \
    r['last_completed']
assert [j['fence'] for j in r['failed']] == \
    [j['fence'] for j in jobs if j['status'] not in ('ok', 'pending')], r['failed']
EOF
rc=$?
# The text: FIRST from the session start, as report's TIME, and the start
# in the input's clock in the first table's title.
[ $rc = 0 ] && run report -i "$V" --in-flight --limit 3 &&
	python3 - "$E" "$W/out" << 'EOF' 2> "$W/err"
import json, sys
jobs = {j['fence']: j for j in json.load(open(sys.argv[1]))['jobs']}
text = open(sys.argv[2]).read().splitlines()
title = next(l for l in text if l.startswith('in flight at the last event'))
start = next(l for l in text if l.startswith('  started')).split('monotonic ')[1].split()[0]
assert f'from the session start, {start} s in the input' in title, (title, start)
rows = [l.split() for l in text if len(l.split()) > 7 and l.split()[1] in jobs]
assert len(rows) >= 4, rows
for f in rows:
    assert abs(float(f[6]) - jobs[f[1]]['time'] / 1e3) < 0.0005, (f, jobs[f[1]]['time'])
EOF
result $? "report --in-flight: the jobs with no COMPLETE, the last COMPLETEs, the failed"
expect_fail "report: --last-boot with -i" "--last-boot reads an ftrace instance: no input" \
	report --last-boot -i "$V"
expect_fail "report: --last-boot= empty" "invalid --last-boot" report --last-boot=
expect_fail "report: no such instance" "nosuch: no such ftrace instance" \
	report -i instance:nosuch
expect_fail "export: --last-boot with -i" "--last-boot is the input: no -i" \
	export --kernelshark x --last-boot -i "$V"
boot=trace_instance=grtrace_boot last=trace_instance=grtrace_last=grtrace_boot
run persist && grep -qx "reserve_mem=16M:4096:grtrace $boot@grtrace,grtrace $last" "$W/out" &&
	run persist --size 64M --traceoff &&
	grep -qx "reserve_mem=64M:4096:grtrace $boot^traceoff@grtrace,grtrace" "$W/out"
result $? "persist: the kernel command line, with a size, with traceoff"
expect_fail "persist: bad --size" "invalid --size" persist --size 5000
# persist --save: the events of an input (at boot, the instance holding
# the previous boot) in a file whose jobs are the input's, every column;
# report --last-boot reads it, and again, while it is of this boot
run report --jobs -f csv -i "$V" && cp "$W/out" "$W/saved-want.csv" &&
	run persist --save "$W/state" -i "$V" &&
	grep -q " saved in $W/state/last-boot.grt$" "$W/out" &&
	run report --jobs -f csv -i "$W/state/last-boot.grt" &&
	cmp -s "$W/out" "$W/saved-want.csv"
result $? "persist --save -i: a file of the input's jobs, every column"
# (--last-boot adds the tables of --in-flight after the jobs; CSV holds
# one table, the jobs)
GRTRACE_STATE_DIR=$W/state run report --last-boot --jobs -f json &&
	grep -q '^"in_flight": \[' "$W/out" &&
	GRTRACE_STATE_DIR=$W/state run report --last-boot --jobs -f csv &&
	cp "$W/out" "$W/saved-1.csv" && cmp -s "$W/out" "$W/saved-want.csv" &&
	GRTRACE_STATE_DIR=$W/state run report --last-boot --jobs -f csv &&
	cmp -s "$W/out" "$W/saved-1.csv"
result $? "report --last-boot: the file saved in this boot, read twice, the same jobs"
# export --last-boot of the saved file: both outputs, each the input's
GRTRACE_STATE_DIR=$W/state run export --last-boot --chrome "$W/lb.json" \
	--kernelshark "$W/lb.dat" &&
	run export -i "$W/state/last-boot.grt" --kernelshark "$W/lb-want.dat" &&
	cmp -s "$W/lb.dat" "$W/lb-want.dat" && python3 -m json.tool "$W/lb.json" > /dev/null
result $? "export --last-boot: the file saved in this boot, to Perfetto and KernelShark at once"
# persist --status names the saved file (it exits 1: this host records
# nothing persistently)
GRTRACE_STATE_DIR=$W/state run persist --status
[ $? = 1 ] && grep -qx "saved  *$W/state/last-boot.grt, the previous boot's events" "$W/out" &&
	grep -qx "grtrace report --last-boot reads the previous boot's events" "$W/out"
result $? "persist --status: the file saved in this boot holds the previous boot's events"
cp "$V/events0.bin" "$W/state/last-boot.grt"
GRTRACE_STATE_DIR=$W/state expect_fail \
	"report --last-boot: a file not saved in this boot is not the previous boot" \
	"no ftrace instance holds a previous boot's events" report --last-boot
GRTRACE_STATE_DIR=$W/state run persist --status
[ $? = 1 ] && grep -qx "saved  *$W/state/last-boot.grt: not saved in this boot" "$W/out" &&
	! grep -q "reads the previous boot" "$W/out"
result $? "persist --status: a file saved in another boot is not the previous boot's"
expect_fail "persist: -i without --save" "-i goes with --save" persist -i "$V"
expect_fail "persist --save: a directory that cannot be made" "$W/none/state: No such file" \
	persist --save "$W/none/state" -i "$V"
expect_fail "top: bad --delay" "invalid --delay" top -d 0.01
expect_fail "top: bad --iterations" "invalid --iterations" top -n 0
for h in lat size result; do
	run report -i "$V" -f json --hist $h && cp "$W/out" "$W/hist-$h.json"
done
$C hist "$E" "$W/hist-lat.json,$W/hist-size.json,$W/hist-result.json" 2> "$W/err"
result $? "report --hist lat, size, result"
run report -i "$V" --hist lat && grep -Eq "^ +4194304 +8388608 1$" "$W/out"
result $? "report --hist lat text"
run report --jobs -i "$V" -f json --engine copy && $C fences "$E" "$W/out" 200:1 2> "$W/err"
result $? "report --engine copy"
run report --jobs -i "$V" -f json --engine 0x1 && $C fences "$E" "$W/out" \
	100:1,100:2,100:3,300:1,100:4 2> "$W/err"
result $? "report --engine 0x1"
run report --jobs -i "$V" -f json --ring gfx_0.0.0 && $C fences "$E" "$W/out" \
	100:1,100:2,100:3,100:4 2> "$W/err"
result $? "report --ring NAME"
run report --jobs -i "$V" -f json --ring 0000:03:00.0/sdma0 &&
	$C fences "$E" "$W/out" 200:1 2> "$W/err"
result $? "report --ring DEV/NAME"
run report --jobs -i "$V" -f json --ring 0 && $C fences "$E" "$W/out" 300:1 2> "$W/err"
result $? "report --ring ID"
expect_fail "report --ring unknown" "no ring 'nope'" report -i "$V" --ring nope
run report --jobs -i "$V" -f json --since 20us --until 400us && $C fences "$E" "$W/out" \
	100:2,100:3,300:1 2> "$W/err"
result $? "report --since --until"
run report --jobs -i "$V" -f json --since 0.02ms --until 0.000400000000s &&
	$C fences "$E" "$W/out" 100:2,100:3,300:1 2> "$W/err"
result $? "report --since --until in decimals: the same jobs"
rc=0
for t in 1.5 1.5ns 1. .5ms 0.0000000001s 1.5.0ms 9223372036.854775808s; do
	run report -i "$V" --since "$t"
	[ $? = 1 ] && grep -q 'invalid --since' "$W/err" ||
		{ echo "# --since $t: not refused"; rc=1; }
done
result $rc "report --since: a fraction of a ns, a bare point and an overflow refused"
run report -i "$V" -f json --since 20000 --limit 2 && $C fences "$E" "$W/out" \
	100:2,100:3 2> "$W/err"
result $? "report --limit"
run report -i "$V" -f json --queue-thresh 1ms --exec-thresh 10ms &&
	$C json "$E" "$W/out" labels 2> "$W/err" &&
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"][3]
sys.exit(j["labels"] != "preempted")' "$W/out"
result $? "report --queue-thresh --exec-thresh"
# Without -i, a reading command takes the FILE after its options, else
# grtrace.dat, what record writes without -o; --live, the relay files.
(cd "$W" && rm -f grtrace.dat && "$G" report > out 2> err; [ $? = 1 ] &&
	grep -q "^grtrace: grtrace.dat: No such file or directory (make one with grtrace record" \
		err &&
	cp "$W/gen/contexts.bin" grtrace.dat && "$G" report --jobs -f csv > out &&
	"$G" report --jobs -f csv "$W/gen/contexts.bin" | cmp -s - out && [ -s out ] &&
	"$G" dump grtrace.dat | cmp -s - <("$G" dump -i "$W/gen/contexts.bin") && rm grtrace.dat)
result $? "report and dump: no -i, grtrace.dat (said when missing), or the FILE after the options"
expect_fail "report: --live with a file" "--live reads the live relay files, not an input" \
	report --live "$V"
expect_fail "report: two files, the second named" "unexpected argument '$V'" report "$V" "$V"
L=$(printf 'x%.0s' $(seq 100))
expect_fail "report: an argument named whole, a control character as '?'" \
	"unexpected argument '$L[?]y'\$" report "$V" "$L$(printf '\ty')"
rc=0
while read -r cmd; do
	# shellcheck disable=SC2086
	"$G" $cmd stray < /dev/null > "$W/out" 2> "$W/err"
	[ $? = 1 ] && grep -q "^grtrace: unexpected argument 'stray'$" "$W/err" ||
		{ echo "$cmd: $(head -1 "$W/err")"; rc=1; }
done > "$W/err2" << EOF
start
stop
status
record
top
probe
persist
dump $V
timeline $V
export --chrome /dev/null $V
merge -c /dev/null $V
EOF
mv "$W/err2" "$W/err"
result $rc "every command names an argument it does not take"
"$G" dump - < <(cat "$W/gen/contexts.bin") > "$W/out" 2> "$W/err" &&
	"$G" dump -i "$W/gen/contexts.bin" | cmp -s - "$W/out" && [ -s "$W/out" ]
result $? "dump -: standard input, a pipe, as its file"

# ---- SYNC_WAIT of no job: the in-fence wait of a submitting ioctl ----
J=$W/gen/jobless.bin
run report --jobs -i "$J" -f json && $C jobless "$E" "$W/out" 2> "$W/err"
result $? "report: waits of no job go to the next SUBMIT of their thread"
run report -i "$J" -f json --per-context && $C contexts "$E" "$W/out" 2> "$W/err"
result $? "report --per-context: processes, then kernel workers"
run report -i "$W/gen/late.bin" -f json --per-context && $C late "$E" "$W/out" 2> "$W/err"
result $? "report --per-context: a job submitted before the recording names no one"
run export -i "$J" --chrome "$W/chrome-waits.json" &&
	$C chrome_waits "$E" "$W/chrome-waits.json" 2> "$W/err"
result $? "export --chrome: waits on the waiting threads, a flow from the job waited for"

# ---- contexts: the GR_TOOL_CTX records of grtrace probe ----
X=$W/gen/contexts.bin
line='context cpu=0 ts=5000005000 gseq=3 cseq=3 what=create ctx=1 ring=1'
line="$line pid=100 tgid=100 comm=kmscube attrs=name=kmscube\\x20init=0"
run dump -i "$X" && $C dump - "$W/out" "$X" 2> "$W/err" &&
	[ "$(grep -c '^context ' "$W/out")" = 8 ] && grep -Fqx "$line" "$W/out"
result $? "dump: context records, what ctx ring and attributes"
run report --jobs -i "$X" -f json && $C ctxtable "$E" "$W/out" 2> "$W/err"
result $? "report: the contexts table, an id reused, jobs joined by id and time"
run report -i "$X" && $C ctxtext "$E" "$W/out" 2> "$W/err" &&
	grep -q "skipped   0 records of unknown type" "$W/out"
result $? "report: the contexts table in text, its columns within 100"
run report -i "$X" -f json --per-context --since 0 && $C ctxtable "$E" "$W/out" 2> "$W/err"
result $? "report: the contexts table after two passes"
run report --jobs -i "$V" && ! grep -q "^contexts" "$W/out" && run report -i "$V" -f json &&
	! grep -q '"contexts"' "$W/out"
result $? "report: no contexts table without context records"

# ---- export ----
run export -i "$V" --chrome "$W/chrome.json" && python3 -m json.tool "$W/chrome.json" > /dev/null &&
	$C chrome "$E" "$W/chrome.json" 2> "$W/err"
result $? "export --chrome: valid JSON, nested phases, flows, counters"
run export -i "$V" --chrome - && python3 -m json.tool "$W/out" > /dev/null
result $? "export --chrome - (stdout)"
run export -i "$W/gen/summary.bin" --chrome "$W/chrome-sum.json" &&
	$C chrome_summary "$E" "$W/chrome-sum.json" 2> "$W/err"
result $? "export --chrome: aggregate_only windows as counters per ring"
# KernelShark lanes: a box (a job event, two sched_switch) per phase of a job
run export -i "$V" --kernelshark "$W/lanes.dat" --chrome "$W/chrome2.json" &&
	grep -q '^  cpu 0: ' "$W/out" && cmp -s "$W/chrome.json" "$W/chrome2.json"
result $? "export --kernelshark with --chrome: lanes listed, same JSON"
# A trace.dat into a pipe: its headers' length is not asked of the output.
timeout 20 "$G" export -i "$V" --kernelshark - 2> "$W/err" | cat > "$W/lanes-pipe.dat" &&
	[ "${PIPESTATUS[0]}" = 0 ] && cmp -s "$W/lanes-pipe.dat" "$W/lanes.dat"
result $? "export --kernelshark - into a pipe: the bytes of the file"
# 66,000 rings, a lane each, 198,000 rows (a file of 816 MB, not kept):
# made a page at a time (every row's pages kept took 910 MB), and 64 rows
# named in the summary
(ulimit -v 300000
 timeout 60 "$G" export -i "$W/gen/manyrings.bin" --kernelshark /dev/null \
	> "$W/many.out" 2> "$W/err") &&
	[ "$(grep -c '^  cpu [0-9]*: ' "$W/many.out")" = 64 ] &&
	grep -q '^  (197936 rows more: ' "$W/many.out"
result $? "export --kernelshark: 66,000 rings in 300 MB of address space, 64 rows named"
# 21 boxes: the host, queue, exec and complete phases of 5 jobs, the host
# phase of the one that did not start
boxes=$(awk '/^  cpu [0-9]+: / { n += $(NF - 1) } END { print n + 0 }' "$W/out")
if command -v trace-cmd > /dev/null; then
	trace-cmd report -i "$W/lanes.dat" > "$W/out" 2> "$W/err" &&
		! grep -q 'FAILED TO PARSE' "$W/out" && [ "$boxes" = 21 ] &&
		[ "$(grep -c ' job: ' "$W/out")" = "$boxes" ] &&
		[ "$(grep -c ' sched_switch: ' "$W/out")" = $((2 * boxes)) ]
	result $? "export --kernelshark: trace-cmd reads it, $boxes boxes as listed"
	# The lanes are named tasks, and the session shows their rows
	run export -i "$V" --kernelshark "$W/lanes.dat" \
		--kernelshark-session "$W/lanes.json" &&
		trace-cmd dump --cmd-lines -i "$W/lanes.dat" > "$W/cmd" 2> "$W/err" &&
		python3 - "$W/lanes.json" "$W/cmd" "$W/lanes.dat" << 'EOF' 2> "$W/err"
import json, os, re, sys
s = json.load(open(sys.argv[1]))
names = dict(l.split(None, 1) for l in open(sys.argv[2]) if re.match(r'\d+ ', l))
st = s['data streams']
assert s['type'] == 'kshark.config.session' and len(st) == 1, st
lanes = st[0]
assert lanes['data']['file'] == os.path.realpath(sys.argv[3]), lanes['data']
assert lanes['data']['time'] == int(os.stat(sys.argv[3]).st_mtime)
assert lanes['CPUPlots'] == [], lanes['CPUPlots']
want = ['virtio0/ctrlq lane 1', '0000:03:00.0/gfx_0.0.0 lane 1',
        '0000:03:00.0/gfx_0.0.0 lane 2', '0000:03:00.0/sdma0 lane 1']
assert [names[str(p)].strip() for p in lanes['TaskPlots']] == want, names
EOF
	result $? "export --kernelshark-session: a session, the lanes as named task rows"
else
	skip "export --kernelshark: trace-cmd reads it, boxes as listed" \
		"trace-cmd not installed"
	skip "export --kernelshark-session: a session, the lanes as named task rows" \
		"trace-cmd not installed"
fi
# A trace.dat is one session: --session 2 is refused, not ignored.
expect_fail "report --session 2 of a trace.dat: the input holds 1" \
	"no session 2: the input holds 1" report -i "$W/lanes.dat" --session 2
head -c 1000 "$W/lanes.dat" > "$W/cut.dat"
expect_fail "report of a trace.dat cut short: named as one libtracecmd cannot read" \
	"cut.dat: a trace-cmd file libtracecmd cannot read: truncated or damaged" \
	report -i "$W/cut.dat"

# ---- other format versions ----
run report --jobs -i "$W/gen/newer.bin" -f json && $C json "$E" "$W/out" 2> "$W/err" &&
	grep -q '"newer_format": true' "$W/out" && grep -q '"unknown_records": 1,' "$W/out" &&
	grep -q '"longer_payloads": 36,' "$W/out"
result $? "newer format: unknown type and longer payloads skipped"
run report --jobs -i "$W/gen/older.bin" -f json && $C json "$E" "$W/out" comm,pid 2> "$W/err" &&
	grep -q '"shorter_payloads": 32' "$W/out"
result $? "older format: shorter payloads zero-filled"

run report -i "$W/gen/older.bin" &&
	grep -q '^  span      0\.[0-9]\{9\} s: ' "$W/out" &&
	grep -q '^  skipped   0 records of unknown type$' "$W/out" &&
	grep -q '^  payloads  0 longer than known (tail unread), 32 shorter (missing' "$W/out" &&
	grep -q ' 32 shorter (missing fields read as 0)$' "$W/out"
result $? "report's header: the span in s; shorter payloads read as 0, not skipped"

# A COMPLETE's status below -MAX_ERRNO is no fence error: a damaged record,
# "bad" in its column, which keeps its width.
python3 - "$V" "$W/badstatus" << 'EOF' 2> "$W/err"
import os, struct, sys
os.makedirs(sys.argv[2], exist_ok=True)
n = 0
for cpu in (0, 1):
    b = bytearray(open(os.path.join(sys.argv[1], 'events%d.bin' % cpu), 'rb').read())
    off = 0
    while off < len(b):
        typ, size = struct.unpack_from('<HH', b, off)
        if typ == 4 and struct.unpack_from('<i', b, off + 32 + 48)[0] == -62:
            struct.pack_into('<i', b, off + 32 + 48, -2**31)
            n += 1
        off += size
    open(os.path.join(sys.argv[2], 'events%d.bin' % cpu), 'wb').write(b)
assert n == 1, n
EOF
ok=$?
run report --jobs -i "$W/badstatus" && python3 - "$W/out" << 'EOF' 2> "$W/err"
import sys
lines = open(sys.argv[1]).read().split('\n')
h = [i for i, l in enumerate(lines) if l.lstrip().startswith('TIME ') and 'STATUS' in l][0]
hdr, rows = lines[h], []
for l in lines[h + 1:]:
    if not l.strip():
        break
    rows.append(l)
s, w = hdr.index('STATUS'), hdr.index('WAITS_ON')
bad = [r for r in rows if r[s:s + 4] == 'bad ']
assert len(bad) == 1, rows
assert all(r[w - 1] == ' ' and r[w] != ' ' for r in rows), [r for r in rows if r[w - 1] != ' ']
EOF
result $((ok | $?)) "report --jobs: a status of -2147483648 is 'bad', the columns after it in place"

# ---- the reader at scale: memory, percentiles, merged files ----
# gen-load wants <linux/grtrace.h>: of the kernel tree, or of the grtrace tree
UAPI=$TESTS/../../../include/uapi/linux/grtrace.h
[ -r "$UAPI" ] || UAPI=$TESTS/../../../include-uapi-linux/grtrace.h
mkdir -p "$W/uapi/linux" && cp "$UAPI" "$W/uapi/linux/" &&
	${CC:-cc} -O2 -Wall -Wextra -Werror -I"$W/uapi" -o "$W/gen-load" \
		"$TESTS/gen-load.c" 2> "$W/err"
result $? "gen-load builds"
# peak_kb CMD...: the peak RSS of CMD in KiB (GNU time), output thrown away
peak_kb() {
	/usr/bin/time -f %M -o "$W/rss" "$@" > /dev/null && tail -1 "$W/rss"
}
"$W/gen-load" 20000 "$W/load-20k.bin" && "$W/gen-load" 200000 "$W/load-200k.bin" &&
	small=$(peak_kb "$G" report -i "$W/load-20k.bin" --per-ring) &&
	big=$(peak_kb "$G" report --jobs -i "$W/load-200k.bin" -f csv) &&
	ktap_print_msg "peak RSS: 100 k records $small KiB, 1 M records (csv) $big KiB" &&
	[ "$big" -lt $((small + 4096)) ]
result $? "report: memory does not grow with the input (1 M records within 4 MiB of 100 k)"
"$W/gen-load" 40000 "$W/load-40k.bin" &&
	run report --jobs -i "$W/load-40k.bin" -f csv && mv "$W/out" "$W/load.csv" &&
	run report -i "$W/load-40k.bin" -f json --per-ring &&
	$C percentiles - "$W/load.csv" "$W/out" 2> "$W/err"
result $? "report --per-ring: 10000 jobs per ring, p50 and p99 within 1/256 of exact"
"$W/gen-load" 5000 "$W/load-cpus" 3 && cat "$W"/load-cpus/events*.bin > "$W/load-cat.bin" &&
	run report --jobs -i "$W/load-cpus" -f csv && mv "$W/out" "$W/load-dir.csv" &&
	run report --jobs -i "$W/load-cat.bin" -f csv && cmp -s "$W/out" "$W/load-dir.csv" &&
	[ "$(grep -c . "$W/out")" = 5001 ]
result $? "report: 3 per-CPU files, and the 3 concatenated, read the same"
run report -i "$W/load-cpus/events0.bin" &&
	grep -q "; records of 1 of the session's 3 CPUs: files missing?$" "$W/out" &&
	run report -i "$W/load-cpus" && ! grep -q "files missing" "$W/out"
result $? "report: one CPU's file of three, named a partial input; the three, not"
ok=0
for args in "report -f csv" "report -f json" "timeline -w 80" "dump" \
	"export --chrome $W/part.json" "export --chrome $W/part.json -k $W/part.dat"; do
	# shellcheck disable=SC2086
	want=1
	[ "$args" = dump ] && want=0
	run $args -i "$W/load-cpus/events0.bin" &&
		[ "$(grep -c "of 3 CPUs, .* gseq gaps: files missing?$" "$W/err")" = $want ] ||
		{ echo "$args" >> "$W/part"; ok=1; }
done
result $ok "a partial input named once by every reader but dump, which shows each record"
# The header (to the first empty line) within 100 columns, the longest
# lines wrapped: a partial input, a newer format, every drop cause
ok=0
for i in "$W/load-cpus/events0.bin" "$W/gen/newer.bin" "$V"; do
	run report -i "$i" && sed '/^$/q' "$W/out" > "$W/head" &&
		grep -q "^  events    submit [0-9]*, commit" "$W/head" &&
		! grep -q '.\{101\}' "$W/head" || { ok=1; cat "$W/head" >> "$W/err"; }
done
result $ok "report: the header within 100 columns"
run export -i "$W/load-cpus" --chrome "$W/load-dir.json" &&
	cat "$W"/load-cpus/events*.bin | "$G" export -i - --chrome - > "$W/out" 2> "$W/err" &&
	sed 2d "$W/out" | cmp -s - <(sed 2d "$W/load-dir.json")
result $? "export -i -: 3 per-CPU files in a pipe, one after the other, read as their directory"
# --jobs with a table: the list stops at --limit, the table counts every job
run report --jobs --limit 1 -i "$W/load-cat.bin" -f json --per-ring && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(len(d["jobs"]) != 1 or sum(g["jobs"] for g in d["per_ring"]) != 5000)' "$W/out"
result $? "report --jobs --limit 1 --per-ring: one job listed, the table of all 5000"
"$G" report --jobs -i /dev/stdin -f csv < <(cat "$W/load-cpus/events0.bin") \
	> "$W/out" 2> "$W/err" &&
	"$G" report --jobs -i "$W/load-cpus/events0.bin" -f csv | cmp -s - "$W/out"
result $? "report -i /dev/stdin: a pipe reads as its file (two passes)"

# ---- a task's name with control characters: '?', as ps shows them ----
mkdir -p "$W/esc" && python3 -c '
import glob, os, sys
for f in glob.glob(os.path.join(sys.argv[1], "events*")):
    b = open(f, "rb").read().replace(b"glxgears", b"\x1b[2Jears")
    open(os.path.join(sys.argv[2], os.path.basename(f)), "wb").write(b)' "$V" "$W/esc" &&
	run report --jobs -i "$W/esc" && grep -q "?\[2Jears" "$W/out" &&
	! grep -q "$(printf '\033')" "$W/out"
result $? "report: a task's name with an escape sequence, printed with '?' for it"

# ---- two sessions in a file: two recordings end to end ----
T2=$W/gen/twosessions.bin
run report -i "$T2" && [ "$(grep -c '^==== session [12] of 2 ====$' "$W/out")" = 2 ] &&
	grep -q "^  session   1234abcd5678ef90," "$W/out" &&
	grep -q "^  session   0000000000000007," "$W/out" && grep -q "6 jobs" "$W/out"
result $? "report: a file of two sessions, each reported in turn"
run report --jobs -i "$T2" --session 2 -f json &&
	grep -q '"session_id": "0000000000000007"' "$W/out" &&
	! grep -q 1234abcd5678ef90 "$W/out"
result $? "report --session 2: the second session alone"
expect_fail "report -f csv of two sessions: choose one" \
	"2 sessions, one after the other: choose one with --session N" report --jobs -i "$T2" -f csv
expect_fail "report --session 3 of 2" "no session 3: the input holds 2" \
	report -i "$T2" --session 3
# A directory of two sessions' files: the sessions numbered across files
mkdir -p "$W/mixdir" && head -c 4240 "$T2" > "$W/mixdir/events0.bin" &&
	tail -c +4241 "$T2" > "$W/mixdir/events1.bin" &&
	run report -i "$W/mixdir" &&
	[ "$(grep -c '^==== session [12] of 2 ====$' "$W/out")" = 2 ] &&
	run report -i "$W/mixdir" --session 2 -f json &&
	grep -q '"session_id": "0000000000000007"' "$W/out"
result $? "report of a directory of two sessions' files: each, and --session 2"
# dump --session N: the records of that session, as the other readers
# number them (file after file, though dump merges the files by gseq)
run dump -i "$T2" --session 2 && cp "$W/out" "$W/d2" &&
	run dump -i - < <(tail -c +4241 "$T2") && cmp -s "$W/out" "$W/d2" &&
	run dump -i "$T2" --session 1 && cp "$W/out" "$W/d1" &&
	run dump -i - < <(head -c 4240 "$T2") && cmp -s "$W/out" "$W/d1"
result $? "dump --session N of a file of two: that session's records, as alone"
python3 - "$T2" "$W/three" <<'EOF'
import os, struct, sys
b = open(sys.argv[1], 'rb').read()
info = bytearray(b[4240:])
struct.pack_into('<Q', info, 16, 2)      # gseq 2: merged among session 1's first records
struct.pack_into('<Q', info, 40, 0x99)   # a third session, in the second file
os.makedirs(sys.argv[2], exist_ok=True)
open(os.path.join(sys.argv[2], 'events0.bin'), 'wb').write(b)
open(os.path.join(sys.argv[2], 'events1.bin'), 'wb').write(info)
EOF
run report -i "$W/three" --session 2 -f json &&
	grep -q '"session_id": "0000000000000007"' "$W/out" &&
	run dump -i "$W/three" --session 2 && [ "$(grep -c . "$W/out")" = 1 ] &&
	grep -q "^stream_info .* session=0000000000000007 " "$W/out"
result $? "dump --session 2 of a directory: report's session 2, not the merge's second"
expect_fail "dump --session 3 of 2" "no session 3: the input holds 2" dump -i "$T2" --session 3
expect_fail "dump: bad --session" "invalid --session" dump --session 0
for n in 1 2; do
	"$G" report -i "$T2" --session $n -f json > "$W/file$n.json" &&
		"$G" report -i - --session $n -f json < <(cat "$T2") > "$W/pipe$n.json" || break
done 2> "$W/err" && python3 -c '
import json, sys
def load(f):
    d = json.load(open(f))
    del d["session"]["input"]
    return d
a = [load(sys.argv[i]) for i in range(1, 5)]
sys.exit(a[0] != a[1] or a[2] != a[3] or
         a[0]["session"]["session_id"] == a[2]["session"]["session_id"])' \
	"$W/file1.json" "$W/pipe1.json" "$W/file2.json" "$W/pipe2.json"
result $? "report -i - --session N: a pipe of two sessions, each as from the file"
expect_fail "export of two sessions: refused at the second" \
	"offset 4240: a second session 0000000000000007, after session" \
	export -i "$T2" --chrome "$W/x.json"
# export, timeline and merge read the session asked for, as they read
# that session's bytes alone (the input's name aside), and refuse a second
# one without --session
head -c 4240 "$T2" > "$W/first.bin"
while read -r args; do
	# shellcheck disable=SC2086
	"$G" $args "$W/s.out" -i "$T2" --session 1 2> "$W/err" &&
		"$G" $args "$W/f.out" "$W/first.bin" 2>> "$W/err" &&
		cmp -s <(sed "s#$T2#IN#" "$W/s.out") <(sed "s#$W/first.bin#IN#" "$W/f.out")
	result $? "$args --session 1: the first session, as alone"
done <<EOF
export --chrome
export --kernelshark
timeline -w 80 -o
merge -c /dev/null -o
EOF
expect_fail "timeline of two sessions: refused at the second" \
	"offset 4240: a second session .*: one at a time \(--session N reads the Nth\)" \
	timeline -i "$T2"
expect_fail "merge of two sessions: refused at the second" \
	"offset 4240: a second session .*: one at a time \(--session N reads the Nth\)" \
	merge -c /dev/null -i "$T2"
expect_fail "export --session 3 of 2" "no session 3: the input holds 2" \
	export -i "$T2" --session 3 --chrome "$W/x.json"
expect_fail "export: bad --session" "invalid --session" export --chrome - --session 0
expect_fail "timeline: bad --session" "invalid --session" timeline --session x
# An empty selection is no error, in timeline as in report ("(none)")
run timeline -i "$V" --since 1000s && [ ! -s "$W/err" ] &&
	grep -qx '(nothing to draw: no job event, or an empty time window)' "$W/out"
result $? "timeline of an empty time window: said, exit 0"
# A CPU's file without the session's first: every reader says so, report
# in its header
rc=0
for args in "export --chrome $W/x.json" "timeline -w 80" "merge -c /dev/null" "report -f csv" \
	"report -f json"; do
	# shellcheck disable=SC2086
	run $args -i "$V/events1.bin" &&
		[ "$(grep -c "events1.bin: no STREAM_INFO (the session's start): one CPU's file" \
			"$W/err")" = 1 ] ||
		{ echo "$args: not said once: $(head -1 "$W/err")"; rc=1; }
done > "$W/err2"
run report -i "$V/events1.bin" && grep -q "^  session   unknown: no STREAM_INFO" "$W/out" &&
	! grep -q "no STREAM_INFO" "$W/err" || { echo "report: not in its header alone"; rc=1; }
mv "$W/err2" "$W/err"
result $rc "export, timeline, merge, report: a file without STREAM_INFO named"
expect_fail "merge: bad --session" "invalid --session" merge -c /dev/null --session -1
expect_fail "report: bad --session" "invalid --session" report --session 0
expect_fail "report: bad --events" "invalid --events: auto, grtrace or kernel" \
	report --events upstream
expect_fail "record: bad --events" "invalid --events: grtrace or kernel" \
	record --events auto -o "$W/x.dat"
expect_fail "top: bad --events" "invalid --events: grtrace, kernel or fdinfo" top --events all
expect_fail "top: --events fdinfo reads no events" "no --summary, no --trace" \
	top --events fdinfo --summary

# ---- top --events fdinfo: the DRM clients' own counts ----
# A /proc of plain files (GRTRACE_PROC): an amdgpu-like client of pid 100
# (gfx; compute of capacity 2; dma, whose counter goes back; video, shown
# once used, as amdgpu does), also open in pid 1000 (an fd passed: one
# client, the lower pid's), an idle second client of pid 100 (card0), an
# xe-like client of pid 200 (cycles, of capacity 2); a non-DRM fd with
# DRM-looking keys.  The counters change once, between top's two scans,
# 4 s apart: gfx by 1 s, compute by 4 s of two engines, video by 2 s, rcs
# by 3,000 of 10,000 cycles of two engines.
P=$W/proc
fdinfo() {	# PID FD TARGET TEXT
	local f=$P/$1/fdinfo/$2

	mkdir -p "$P/$1/fd" "$P/$1/fdinfo" && ln -sfn "$3" "$P/$1/fd/$2" &&
		printf '%b' "$4" > "$f.new" && mv "$f.new" "$f"
}
amd() {	# GFX_NS COMPUTE_NS DMA_NS [VIDEO_NS]
	printf 'drm-driver:\tamdgpu\ndrm-pdev:\t0000:03:00.0\ndrm-client-id:\t17\n'
	printf 'drm-engine-gfx:\t%s ns\ndrm-engine-compute:\t%s ns\n' "$1" "$2"
	printf 'drm-engine-capacity-compute:\t2\ndrm-engine-dma:\t%s ns\n' "$3"
	[ -z "${4:-}" ] || printf 'drm-engine-video:\t%s ns\n' "$4"
}
xe() {	# CYCLES TOTAL
	printf 'drm-driver:\txe\ndrm-pdev:\t0000:00:02.0\ndrm-client-id:\t4\n'
	printf 'drm-cycles-rcs:\t%s\ndrm-total-cycles-rcs:\t%s\n' "$1" "$2"
	printf 'drm-engine-capacity-rcs:\t2\n'
}
fdstate() {	# GFX_NS COMPUTE_NS DMA_NS VIDEO_NS CYCLES TOTAL
	fdinfo 100 3 /dev/dri/renderD128 "$(amd "$1" "$2" "$3" "$4")\n" &&
		fdinfo 1000 7 /dev/dri/renderD128 "$(amd "$1" "$2" "$3" "$4")\n" &&
		fdinfo 200 3 /dev/dri/renderD129 "$(xe "$5" "$6")\n"
}
idle='drm-driver:\tamdgpu\ndrm-pdev:\t0000:03:00.0\ndrm-client-id:\t18\n'
rm -rf "$P"
fdstate 1000 1000 1000 '' 5000 100000 &&
	fdinfo 100 4 /dev/null 'drm-driver:\tfake\ndrm-client-id:\t1\ndrm-engine-gfx:\t1 ns\n' &&
	fdinfo 100 5 /dev/dri/card0 "${idle}drm-engine-gfx:\t5 ns\n" &&
	echo glxgears > "$P/100/comm" && echo helper > "$P/1000/comm" &&
	echo xe-client > "$P/200/comm"
ok=$?
for fmt in json text csv; do
	fdstate 1000 1000 1000 '' 5000 100000
	GRTRACE_PROC=$P timeout 20 "$G" top -b -n 1 -d 4 --events fdinfo -f $fmt \
		> "$W/top-fd.$fmt" 2> "$W/err" &
	sleep 2
	fdstate 1000001000 4000001000 500 2000000000 8000 110000
	wait $! || ok=1
done
[ $ok = 0 ] && python3 - "$W/top-fd" << 'EOF' 2> "$W/err"
import csv, json, sys
o = json.loads(open(sys.argv[1] + '.json').read())
dt = o['to_s'] - o['from_s']
assert dt >= 4, dt
got = {(r['pid'], r['comm'], r['device'], r['client_id'], r['engine']): r['busy_pct']
       for r in o['fdinfo']}
amd = (100, 'glxgears', '0000:03:00.0', 17)
want = {amd + ('gfx',): 100 / dt, amd + ('compute',): 200 / dt, amd + ('dma',): 0,
        amd + ('video',): 200 / dt, (100, 'glxgears', '0000:03:00.0', 18, 'gfx'): 0,
        (200, 'xe-client', '0000:00:02.0', 4, 'rcs'): 15}
assert set(got) == set(want), (sorted(got), sorted(want))
for k, v in want.items():
    assert abs(got[k] - v) < 0.01, (k, got[k], v)
assert [r['busy_pct'] for r in o['fdinfo']] == sorted(got.values(), reverse=True), o
rows = [l.split() for l in open(sys.argv[1] + '.text') if l[:8].strip().isdigit()]
assert sorted((r[0], r[2], r[3]) for r in rows) == \
    [('100', '0000:03:00.0/compute', '17'), ('100', '0000:03:00.0/gfx', '17'),
     ('100', '0000:03:00.0/video', '17'), ('200', '0000:00:02.0/rcs', '4')], rows
rows = [r for r in csv.DictReader(open(sys.argv[1] + '.csv')) if r['kind'] == 'engine']
assert sorted((r['name'], r['pid']) for r in rows) == sorted(
    ('%s/%s#%d' % (k[2], k[4], k[3]), str(k[0])) for k in want), rows
EOF
result $? "top --events fdinfo: each DRM client once, its engines' busy as its driver counts it"
expect_fail "top: --trace where no file can be" "cannot write $W/none/trace.txt: No such file" \
	top --trace "$W/none/trace.txt"

# ---- corrupt input: exit 1 with the byte offset, no crash, no hang ----
corrupt=$(python3 -c 'import json, sys
for k, v in json.load(open(sys.argv[1]))["corrupt"].items():
    print(k, "[0-9]+" if v is None else v)' "$E")
while read -r name off; do
	f=$W/gen/$name.bin
	expect_fail "corrupt $name: report" "$f: offset $off: " report -i "$f"
	expect_fail "corrupt $name: export" "$f: offset $off: " export -i "$f" --chrome "$W/x.json"
done <<< "$corrupt"
expect_fail "byte-swapped stream: said so" "other byte order" report -i "$W/gen/byteswapped.bin"
expect_fail "a size damaged into a valid one: the record before named" \
	"bad record size 20, .*after a record of 256 bytes at offset [0-9]+$" \
	report -i "$W/gen/jumped.bin"
expect_fail "dump: a size damaged into a valid one: the record before named" \
	"bad record size 20, .*after a record of 256 bytes at offset [0-9]+$" \
	dump -i "$W/gen/jumped.bin"
for f in badmagic badheader badcpus; do
	run dump -i "$W/gen/$f.bin"
	[ $? = 1 ] && grep -q "^stream_info " "$W/out" &&
		grep -q "$f.bin: offset 0: STREAM_INFO " "$W/err"
	result $? "dump of a STREAM_INFO the readers refuse ($f): printed, said, exit 1"
done
for cmd in report dump; do
	expect_fail "$cmd: a text file is not a grtrace stream" \
		"text.txt: offset 0: not a grtrace stream" $cmd -i "$W/text.txt"
done

# ---- ring ids: the kernel numbers rings without a cap ----
run report -i "$W/gen/farring.bin" &&
	grep -Eq '^2147483647 graphics +0000:03:00.0 +gfx_0.0.0 ' "$W/out"
result $? "report: a ring of id 2^31-1 described and listed"
run report -i "$W/gen/manyrings.bin" &&
	grep -q ' 66000 jobs$' "$W/out" &&
	[ "$(grep -Ec '^ *[0-9]+ graphics +mock +q[0-9]+ +2 +0 +0 +0 1$' "$W/out")" = 66000 ] &&
	grep -Eq '^66000 graphics +mock +q66000 ' "$W/out"
result $? "report: 66,000 rings, each with its job"
# The same rings, each on a device of its own: the header names every
# device once, in the order of their rings, for about the CPU time of one
# device (each name against every other took 6 to 8 times as long, 12 s).
# cpu_time ARGS...: grtrace ARGS' user CPU seconds, its output in $W/out
# and its exit status in $W/rc.
cpu_time() {
	local TIMEFORMAT=%U LC_ALL=C

	{ time timeout 60 "$G" "$@" > "$W/out" 2> "$W/err"; } 2>&1
	echo $? > "$W/rc"
}
one=$(cpu_time report -i "$W/gen/manyrings.bin")
rc_one=$(cat "$W/rc")
many=$(cpu_time report -i "$W/gen/manydevs.bin")
[ "$rc_one" = 0 ] && [ "$(cat "$W/rc")" = 0 ] &&
	grep -m1 '^  devices' "$W/out" | tr ' ' '\n' | grep '^d[0-9]' > "$W/devs" &&
	seq -f 'd%.0f' 66000 | cmp -s - "$W/devs" &&
	LC_ALL=C awk -v a="$one" -v b="$many" 'BEGIN { exit !(b <= 3 * a + 0.5) }'
result $? "report: 66,000 devices named once each, in $many s of CPU against $one s for one device"
# export --chrome: a process per device, found by name (each against every
# other took 8.6 s of CPU, against 2.9 for one device)
one=$(cpu_time export --chrome /dev/null -i "$W/gen/manyrings.bin")
rc_one=$(cat "$W/rc")
t=$(cpu_time export --chrome "$W/devs.json" -i "$W/gen/manydevs.bin")
# Each device one process of its own, and each ring's job in its device's
# process (ring i is on device di, its job of context i).
[ "$rc_one" = 0 ] && [ "$(cat "$W/rc")" = 0 ] &&
	python3 - "$W/devs.json" > "$W/err" 2>&1 << 'EOF' &&
import re, sys
dev, pids, jobs, twice = {}, set(), 0, set()
for line in open(sys.argv[1]):
    m = re.match(r'.*"name": "process_name", "pid": (\d+), "args": \{"name": "(d\d+)"', line)
    if m:
        twice |= {m[2]} & dev.keys() | {m[1]} & pids
        dev[m[2]] = m[1]
        pids.add(m[1])
        continue
    m = re.match(r'.*"cat": "job", "pid": (\d+),.* "ctx": (\d+),', line)
    if m:
        jobs += 1
        if dev.get("d" + m[2]) != m[1]:
            sys.exit("the job of context %s in process %s, not d%s's" % (m[2], m[1], m[2]))
if len(dev) != 66000 or twice or jobs != 66000:
    sys.exit("%d devices, %d jobs, named twice: %s" % (len(dev), jobs, sorted(twice)[:3]))
EOF
	LC_ALL=C awk -v a="$one" -v b="$t" 'BEGIN { exit !(b <= 1.5 * a + 0.5) }'
result $? "export --chrome: 66,000 devices a process each with its jobs, $t s of CPU ($one for 1)"
rm -f "$W/devs.json"
# A pass per ring over every job or event, or per context over every ring,
# took 33 to 72 s on these 66,000 rings: timeline, timeline --latency and
# report --per-context in the CPU time of report, about (one pass).
rc=0
for cmd in "timeline -w 100" "timeline --latency" "report --per-context"; do
	# shellcheck disable=SC2086
	t=$(cpu_time $cmd -i "$W/gen/manydevs.bin")
	LC_ALL=C awk -v a="$many" -v b="$t" 'BEGIN { exit !(b <= 3 * a + 0.5) }' &&
		[ "$(cat "$W/rc")" = 0 ] || { echo "$cmd: rc $(cat "$W/rc"), $t s of CPU"; rc=1; }
done > "$W/err2"
mv "$W/err2" "$W/err"
result $rc "timeline, timeline --latency, report --per-context: 66,000 rings in the CPU of report"
expect_fail "missing input file" "nothere: No such file" report -i "$W/nothere"
mkdir -p "$W/emptydir"
expect_fail "directory without events files" "no events<N>" report -i "$W/emptydir"

# ---- record and the control commands on a stand-in debugfs directory ----
export GRTRACE_DIR=$W/fs
# A stand-in sysfs for the config record's devices: virtio0 with a DRM
# card of driver virtio_gpu, 0000:03:00.0 bound to amdgpu without ids.
S=$W/sys
rm -rf "$S" && mkdir -p "$S/bus/virtio/drivers/virtio_gpu" "$S/bus/pci/drivers/amdgpu" \
	"$S/bus/virtio/devices/virtio0/drm/card0" "$S/bus/pci/devices/0000:03:00.0"
ln -s ../../drivers/virtio_gpu "$S/bus/virtio/devices/virtio0/driver"
ln -s ../.. "$S/bus/virtio/devices/virtio0/drm/card0/device"
echo 0x1af4 > "$S/bus/virtio/devices/virtio0/vendor"
echo 0x1050 > "$S/bus/virtio/devices/virtio0/device"
ln -s ../../drivers/amdgpu "$S/bus/pci/devices/0000:03:00.0/driver"
export GRTRACE_SYSFS=$S
# A config as the kernel shows it, at its defaults
printf '%s\n' level=normal filter_type_mask=0x3ff filter_engine_mask=0x3f filter_ring_id=-1 \
	sample=100 sampling_mode=static sampling_threshold=0 adaptive_sampling=0 \
	backpressure_threshold=0 max_events_per_sec=0 rate_limiter_mode=window \
	rate_limit_burst=0 watchlist=all watch_allow_mode=0 filter_enabled=0 filter_pid= \
	filter_uid=-1 filter_latency=0 filter_events=0x3ff aggregator_enable=0 \
	aggregator_window=1000 aggregate_only=0 flight_recorder=0 reset_stats=0 > "$W/fs/config"
run record -o "$W/rec.bin" && grep -q "dropped overrun=2" "$W/out" &&
	grep -q "no session running" "$W/err" && $C recorded "$E" "$W/rec.bin" 2> "$W/err"
result $? "record: stopped session saved, gseq order, stats record"
run report --jobs -i "$W/rec.bin" -f json && $C json "$E" "$W/out" 2> "$W/err" &&
	grep -q '"dropped_overrun": 2' "$W/out"
result $? "report of a recording: jobs and kernel drop causes"
run report -i "$W/rec.bin" && grep -q "dropped   5 (filtered 3, overrun 2)" "$W/out"
result $? "report text: drop causes"
run report -i "$W/rec.bin" &&
	grep -q "^  recorded  every event offered: no sampling, filter, rate limit or watchlist$" \
		"$W/out" && grep -q "^  devices  .* virtio0 (virtio_gpu, 1af4:1050)" "$W/out" &&
	grep -q "^  devices  .* 0000:03:00.0 (amdgpu, -)" "$W/out"
result $? "report of a recording: recorded under the defaults, its devices' drivers and ids"
cp "$W/fs/config" "$W/config.saved"
sed -i 's/^sample=100$/sample=25/; s/^max_events_per_sec=0$/max_events_per_sec=1000/' \
	"$W/fs/config"
"$G" record -q -o "$W/rec-sampled.bin" > /dev/null 2>&1 &&
	run report -i "$W/rec-sampled.bin" && grep -q "^  recorded  SAMPLED: sample=25, static; \
RATE LIMITED: 1000 events/s, window$" "$W/out" &&
	run report --jobs -i "$W/rec-sampled.bin" -f json &&
	grep -q '"recorded_under": "SAMPLED: sample=25, static; RATE LIMITED' "$W/out"
result $? "report of a sampled, rate limited recording says so (text, json)"
cp "$W/config.saved" "$W/fs/config"
timeout 20 "$G" record -q -o - > "$W/rec2.bin" 2> "$W/err" &&
	cmp -s <(head -c 3984 "$W/rec.bin") <(head -c 3984 "$W/rec2.bin")
result $? "record -o - (stdout)"
if command -v strace > /dev/null; then
	strace -f -e trace=write -o "$W/strace.txt" "$G" record -q -o "$W/rec4.bin" \
		> /dev/null 2> "$W/err" &&
		[ "$(grep -Ec '^[0-9]+ +write\(([3-9]|[1-9][0-9]+),' "$W/strace.txt")" = 1 ]
	result $? "record: one write() for the 37 records of the output"
else
	skip "record: one write() for the 37 records of the output" "no strace"
fi
# A live session: plain files that rec-feed.py appends to stand in for the
# relay files.  The gaps: see GAPS in rec-feed.py.
F=$TESTS/rec-feed.py
# feed gaps|stream DIR OUT: rec-feed.py in the background ($feeder),
# returning once it runs (OUT.ready): a recorder started before it would
# lose the feeder's schedule to python's start on a loaded machine.
feed() {
	local i

	rm -f "$3.ready"
	python3 "$F" "$@" 2> "$W/feed.err" &
	feeder=$!
	for i in $(seq 400); do
		[ -e "$3.ready" ] && return 0
		kill -0 "$feeder" 2> /dev/null || break
		sleep 0.05
	done
	echo "rec-feed.py $1: not running" >> "$W/feed.err"
	return 1
}
python3 "$F" setup "$W/gen/fakefs" "$W/live" && rm -f "$W/rec-gaps.bin"
feed gaps "$W/live" "$W/rec-gaps.bin"
GRTRACE_DIR=$W/live timeout 20 "$G" record -D -q -d 3 -o "$W/rec-gaps.bin" > "$W/out" 2> "$W/err"
rc=$?
wait $feeder && [ $rc = 0 ] && python3 "$F" check "$W/rec-gaps.bin" 1-7,9-11,13,14 2>> "$W/err"
result $? "record live: a gap held back until filled, output in gseq order"
grep -q "gseq 8-8 lost (open for 500 ms)" "$W/err" &&
	grep -q "gseq 12-12 lost (every file is past it)" "$W/err" &&
	grep -q "late record: gseq 8 " "$W/err" &&
	grep -q "lost 2 gseqs in 2 gaps.* late 1" "$W/out"
result $? "record live: gap lost after 500 ms (quiet CPU) or at once (all past it), late record"
# Under a writer that never stops, 500 records per 10 ms, until told to
# (feed_stop): a recorder that chased it would never end, and "timeout"
# would end it after 20 s, 20 times what it is asked for.  That it ends,
# and while the writer still writes, is what the test can know on a
# loaded machine; how soon after its second, it cannot.
feed_stop() {
	local alive=0

	kill -0 "$feeder" 2> /dev/null && alive=1
	touch "$W/rec-stream.bin.stop"
	wait "$feeder"
	[ $alive = 1 ] || echo "the writer had stopped before the recorder" >> "$W/err"
	return $((1 - alive))
}
# -d 1 under that writer; $1: the relay buffers' size, if not the
# stand-in's.  The status of record, and of the writer then.
record_under_writer() {
	python3 "$F" setup "$W/gen/fakefs" "$W/live" && rm -f "$W"/rec-stream.bin* &&
		{ [ -z "$1" ] || echo "$1" > "$W/live/buffer_size"; }
	feed stream "$W/live" "$W/rec-stream.bin"
	GRTRACE_DIR=$W/live timeout 20 "$G" record -q -d 1 -o "$W/rec-stream.bin" \
		> "$W/out" 2> "$W/err"
	rc=$?
	feed_stop && return $rc
}
record_under_writer && python3 "$F" check "$W/rec-stream.bin" c 2>> "$W/err" &&
	grep -q "lost 0 gseqs" "$W/out"
result $? "record live -d 1: ends under a writer that does not, gseqs without a gap"
# With 8 KiB relay buffers the final read of each file stops at its
# buffer's size: what a file holds above the last record read from it is
# past the end, not lost.
record_under_writer 8192 && python3 "$F" check "$W/rec-stream.bin" c 2>> "$W/err" &&
	grep -q "lost 0 gseqs" "$W/out"
result $? "record live -d 1, 8 KiB buffers: the end cuts at the file read to its bound"
# A CPU that adds records below the end's cut after the end read its file,
# which it read with most of its relay buffer (rec-feed.py behind): read
# again, whatever it was read of before.  The recorder is stopped until its
# duration is over, so that the end reads what the feeder wrote first.
python3 "$F" setup "$W/gen/fakefs" "$W/live" && echo 8192 > "$W/live/buffer_size" &&
	rm -f "$W/err" "$W/rec-behind.bin"
GRTRACE_DIR=$W/live timeout -s KILL 20 "$G" record -D -q -d 2 -o "$W/rec-behind.bin" \
	> "$W/out" 2> "$W/err" &
rec=$!
# Its first status line (-D) comes once its duration runs.
for i in $(seq 400); do
	grep -qs "records written" "$W/err" && break
	sleep 0.05
done
recorder=$(pgrep -P $rec)
kill -STOP "$recorder"
python3 "$F" behind "$W/live" "$W/err" 2> "$W/feed.err" &
feeder=$!
for i in $(seq 400); do
	[ -e "$W/live/behind.fed" ] && break
	sleep 0.05
done
sleep 2.2
kill -CONT "$recorder"
wait $rec
rc=$?
wait $feeder && [ $rc = 0 ] && python3 "$F" check "$W/rec-behind.bin" 1-80 2>> "$W/err" &&
	grep -q "lost 0 gseqs" "$W/out"
result $? "record live: what a CPU adds below the end's cut after the end read its file is read"
# A writer caught in the middle of a record by the final read, the session
# running: the records before it, no damage reported (a plain file shows a
# write page by page; a relay file publishes it whole).
python3 "$F" setup "$W/gen/fakefs" "$W/live" && python3 "$F" partial "$W/live" 10 &&
	GRTRACE_DIR=$W/live timeout 20 "$G" record -q -d 1 -o "$W/rec-part.bin" \
		> "$W/out" 2> "$W/err" &&
	python3 "$F" check "$W/rec-part.bin" 1-10 2>> "$W/err"
result $? "record live: a record half written at the end, the session running: the ones before it"
# A duration with a fraction: the end after 0.3 s, as after 1
python3 "$F" setup "$W/gen/fakefs" "$W/live" && python3 "$F" partial "$W/live" 10 &&
	GRTRACE_DIR=$W/live timeout 20 "$G" record -q -d 0.3 -o "$W/rec-frac.bin" \
		> "$W/out" 2> "$W/err" &&
	python3 "$F" check "$W/rec-frac.bin" 1-10 2>> "$W/err"
result $? "record live -d 0.3: it ends, the records written before it"
# Without -d, under the same writer: records reach the output while it
# runs (they appear within the 20 s the test waits), and SIGINT ends it
# while the writer goes on.
python3 "$F" setup "$W/gen/fakefs" "$W/live" && rm -f "$W"/rec-stream.bin*
feed stream "$W/live" "$W/rec-stream.bin"
GRTRACE_DIR=$W/live timeout 20 "$G" record -q -o "$W/rec-stream.bin" > "$W/out" 2> "$W/err" &
rec=$!
for i in $(seq 400); do
	[ -s "$W/rec-stream.bin" ] && break
	sleep 0.05
done
size=$(stat -c %s "$W/rec-stream.bin")
kill -INT $rec
wait $rec
rc=$?
echo "size before SIGINT: $size; exit status $rc" >> "$W/err"
feed_stop && [ $rc = 0 ] && [ "$size" -gt 0 ] &&
	python3 "$F" check "$W/rec-stream.bin" c 2>> "$W/err"
result $? "record live: writes as it reads, SIGINT ends it under a writer that goes on"
run report --live && grep -q "6 jobs" "$W/out"
result $? "report --live (relay files)"
run status && grep -q "^grtrace: stopped" "$W/out" && grep -q "dropped_overrun=2" "$W/out" &&
	grep -q "gfx_0.0.0" "$W/out"
result $? "status"
run config && grep -q "^filter_ring_id=-1$" "$W/out"
result $? "config: print"
run config level=verbose filter_ring_id=1 &&
	[ "$(cat "$W/fs/config")" = "$(printf 'level=verbose\nfilter_ring_id=1')" ]
result $? "config: all keys in one write"
cp "$W/gen/fakefs/config" "$W/fs/config"
expect_fail "config: unknown key" "unknown config key 'foo'" config foo=1
expect_fail "config: not KEY=VALUE" "'level' is not KEY=VALUE" config level
run start && [ "$(cat "$W/fs/control")" = start ]
result $? "start writes control"
run stop && [ "$(cat "$W/fs/control")" = stop ]
result $? "stop writes control"
export GRTRACE_DIR=$W/none
for cmd in status start stop config record report; do
	args=
	[ $cmd = record ] && args="-o $W/x.bin"
	[ $cmd = report ] && args=--live
	expect_fail "$cmd: no grtrace directory" "does not exist: .*not loaded" $cmd $args
done
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
	mkdir -p "$W/root" && cp -r "$W/gen/fakefs" "$W/root/grtrace" && chmod 700 "$W/root"
	GRTRACE_DIR=$W/root/grtrace timeout 20 setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$G" status > "$W/out" 2> "$W/err"
	[ $? = 1 ] && grep -q "permission denied" "$W/err"
	result $? "status: permission denied"
else
	skip "status: permission denied" "not root, or no setpriv"
fi
unset GRTRACE_DIR

# ---- dump: every record as a line of text ----
run dump --help && grep -q "usage: grtrace dump" "$W/out"
result $? "dump --help"
nrec=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["records"])' "$E")
run dump -i "$V" && [ "$(grep -c . "$W/out")" = "$nrec" ] &&
	awk '{ g = $4; sub("gseq=", "", g); if (g + 0 <= last) exit 1; last = g + 0 }' "$W/out" &&
	$C dump "$E" "$W/out" "$V" 2> "$W/err"
result $? "dump DIR: a line per record ($nrec), merged in gseq order, every field"
# want WORDS...: the dump has this line (the words joined by spaces)
want() {
	grep -qx -- "$*" "$W/out"
}
want "stream_info cpu=0 ts=4999999500 gseq=1 cseq=1 magic=0x52544752 version=1" \
	"record_size=32 session=1234abcd5678ef90 features=0x3 start_ts=5000000000" \
	"start_realtime=1700000000123456789 clock=1 nr_cpus=2 nr_rings=3" \
	"buffer_size=4194304" &&
	want "metadata cpu=0 ts=4999999600 gseq=4 cseq=4 ring=2 engine=copy" \
		"dev=0000:03:00.0 name=sdma0" &&
	want "submit cpu=0 ts=5000200000 gseq=25 cseq=14 ring=1 fence=100:3 ctx=8" \
		"engine=graphics flags=0x0 status=0 aux=0:0 depth=1 pid=1234 tgid=1234" \
		"comm=glxgears client_id=1008" &&
	want "ctx_switch cpu=0 ts=5000800000 gseq=31 cseq=17 ring=1 fence=100:3 ctx=8" \
		"engine=graphics flags=0x1 status=0 aux=9:0 depth=0 pid=0 tgid=0 comm=" \
		"client_id=0" &&
	want "complete cpu=0 ts=5000901000 gseq=33 cseq=18 ring=0 fence=300:1 ctx=3" \
		"engine=graphics flags=0x0 status=-62 aux=0:0 depth=0 pid=0 tgid=0 comm=" \
		"client_id=0"
result $? "dump: the lines of known records"
run dump -i "$V" --raw --per-file && $C dump - "$W/out" "$V" raw,per-file 2> "$W/err" &&
	grep -q "^metadata file=$V/events0.bin off=88 size=104 cpu=0 " "$W/out"
result $? "dump --raw --per-file: file, offset and size; file after file"
ok=0
for f in newer older jobless; do
	run dump -i "$W/gen/$f.bin" && $C dump - "$W/out" "$W/gen/$f.bin" 2>> "$W/err" || ok=1
done
run dump -i "$W/gen/newer.bin" && grep -q "^unknown type=0x222 size=48 cpu=0 " "$W/out" &&
	grep -q "^submit .* comm=Xorg client_id=1009 payload=104$" "$W/out" && [ $ok = 0 ]
result $? "dump: newer and older formats (payload=), unknown type, waits of no job"
run dump -i "$W/rec.bin" && $C dump - "$W/out" "$W/rec.bin" 2> "$W/err" &&
	grep -Eq "^tool_stats cpu=4294967295 .* offered=40 .* dropped_overrun=2 " "$W/out"
result $? "dump of a recording: the kernel counters of its stats record"
GRTRACE_DIR=$W/gen/fakefs run dump --live && [ "$(grep -c . "$W/out")" = "$nrec" ]
result $? "dump --live: the live relay files"
# Damage: the records before it, then file: offset N: problem, exit 1.  The
# other corrupt inputs are valid record by record: all of them, exit 0 (an
# empty one has none: said, exit 1).
T=$W/gen/truncated.bin
toff=$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["corrupt"]["truncated"])' "$E")
run dump -i "$T"
[ $? = 1 ] && grep -q "^grtrace: $T: offset $toff: truncated record: " "$W/err" &&
	[ "$(grep -c . "$W/out")" = $((nrec - 1)) ] && $C dump - "$W/out" "$T" 2> "$W/err"
result $? "dump of a truncated file: the $((nrec - 1)) records before the damage, then its offset"
: > "$W/err.all"
while read -r name off; do
	f=$W/gen/$name.bin
	run dump -i "$f"
	rc=$?
	$C dump - "$W/out" "$f" 2>> "$W/err.all" || echo "$name: the lines above" >> "$W/err.all"
	case $name in
	truncated|badsize|oddsize|zerosize|bigsize|jumped|badmagic|badheader|badcpus|byteswapped|\
	short|random|empty)
		[ $rc = 1 ] && grep -Eq "^grtrace: $f: offset $off: " "$W/err" ;;
	*)	[ $rc = 0 ] && [ ! -s "$W/err" ] ;;
	esac || echo "$name: exit $rc $(head -1 "$W/err")" >> "$W/err.all"
done <<< "$corrupt"
mv "$W/err.all" "$W/err"
[ ! -s "$W/err" ]
result $? "dump of every corrupt input: up to the damage and its offset, or whole"
# An input without a record: said, exit 1, as report says it.
mkdir -p "$W/emptyfiles" && : > "$W/emptyfiles/events0.bin" && : > "$W/emptyfiles/events1.bin"
for input in "$W/gen/empty.bin" "$W/emptyfiles"; do
	run dump -i "$input"
	rc=$?
	"$G" report -i "$input" > /dev/null 2> "$W/err.report"
	[ $rc = 1 ] && [ ! -s "$W/out" ] && cmp -s "$W/err" "$W/err.report" || echo "$input: $rc"
done > "$W/err.all"
mv "$W/err.all" "$W/err"
[ ! -s "$W/err" ]
result $? "dump of an empty file or a directory of them: report's error, exit 1"
mkdir -p "$W/dumpdir" && cp "$V/events0.bin" "$W/dumpdir/" &&
	head -c -40 "$V/events1.bin" > "$W/dumpdir/events1.bin"
run dump -i "$W/dumpdir"
[ $? = 1 ] &&
	grep -q "^grtrace: $W/dumpdir/events1.bin: offset [0-9]*: truncated record" "$W/err" &&
	$C dump - "$W/out" "$W/dumpdir" 2> "$W/err"
result $? "dump of a directory with a damaged file: the records of every file up to the damage"
expect_fail "dump of a trace.dat without GPU job events: said so" \
	"lanes.dat: no GPU job events in this recording" dump -i "$W/lanes.dat"
if [ "${VALGRIND:-1}" != 0 ] && command -v valgrind > /dev/null; then
	vg_dump() {
		timeout 120 valgrind -q --error-exitcode=99 --leak-check=full \
			--errors-for-leak-kinds=definite "$G" dump "$@" > /dev/null 2> "$W/err"
	}
	vg_dump -i "$V" --raw && { vg_dump -i "$W/dumpdir"; [ $? = 1 ]; }
	result $? "valgrind: dump, of a whole and of a damaged input"
else
	skip "valgrind: dump, of a whole and of a damaged input" \
		"VALGRIND=0, or valgrind not installed"
fi

# ---- grtrace-bpf-annotate: its events as lines, NVIDIA's ioctls ----
# The loader's decoding (bpf/grtrace_annotate_decode.c) on synthetic
# events: no BPF, no NVIDIA GPU, no fbdev device needed.
AD=$W/annotate-decode
ANN=$TESTS/annotate-nvidia
${CC:-cc} -O2 -Wall -Wextra -Werror -I"$TESTS/../bpf" -o "$AD" "$TESTS/annotate-decode.c" \
	"$TESTS/../bpf/grtrace_annotate_decode.c" 2> "$W/err"
result $? "annotate-decode builds"
"$AD" "$ANN.events" > "$W/out" 2> "$W/err" && diff -u "$ANN.expected" "$W/out" > "$W/err"
result $? "annotate: NVIDIA's 'F' ioctls named (by number if unknown), fbdev's left out"
# The same answers with the devices found in a stand-in /proc: the fds
# of the events link to device nodes, a file, or nothing (gone)
P=$W/proc
rm -rf "$P" "$W/nodes" && mkdir -p "$W/nodes" "$P/1000/task/1000/fd" "$P/1000/task/1001/fd" \
	"$P/1000/task/1002/fd" "$P/1000/fd" "$P/2000/task/2000/fd" "$P/3000/fd"
if mknod "$W/nodes/nvidiactl" c 195 255 2> /dev/null && mknod "$W/nodes/nvidia0" c 195 0 &&
	mknod "$W/nodes/fb0" c 29 0; then
	ln -s "$W/nodes/nvidiactl" "$P/1000/task/1000/fd/3" &&
		ln -s "$W/nodes/nvidia0" "$P/1000/task/1001/fd/4" &&
		ln -s "$ANN.events" "$P/1000/task/1002/fd/7" &&
		ln -s "$W/nodes/fb0" "$P/2000/task/2000/fd/5" &&
		"$AD" -p "$P" "$ANN.events" > "$W/out" 2> "$W/err" &&
		diff -u "$ANN.expected" "$W/out" > "$W/err"
	result $? "annotate: the same with the devices found in a stand-in /proc"
else
	skip "annotate: the same with the devices found in a stand-in /proc" \
		"cannot make device nodes (mknod needs CAP_MKNOD)"
fi
# In the real /proc: this shell's fd 9 is /dev/null (1:3), fd 200 is closed
exec 9< /dev/null
printf 'ENTER ts=1 pid=%d tid=%d fd=%d cmd=0x4600 comm=sh\n' $$ $$ 9 $$ $$ 200 > "$W/real.events"
"$AD" -p /proc "$W/real.events" > "$W/out" 2> "$W/err" &&
	[ "$(cat "$W/out")" = "# lines=0 nvidia=0 remembered=0 other_dev=1 gone=1" ]
rc=$?
exec 9<&-
result $rc "annotate: in /proc, an 'F' ioctl on /dev/null and one on a closed fd left out"

# ---- probe: kprobe profiles, checked without tracefs (-n) ----
PR=$SRC/tools/grtrace/profiles
run probe --dry-run -p "$PR/virtio-gpu.profile" &&
	grep -q '^ring control engine=graphics dev=virtio-gpu$' "$W/out" &&
	grep -Eq '^p:grtrace_probe_[0-9]+/add virtqueue_add_sgs key=data:x64 vq=_vq->name:string ' \
		"$W/out" &&
	grep -Eq '^r:grtrace_probe_[0-9]+/got virtqueue_get_buf key=\$retval:x64 ' "$W/out" &&
	grep -q '^  filter: vq == "control"$' "$W/out" &&
	grep -Eq '^p:grtrace_probe_[0-9]+/ctx_create virtio_gpu_cmd_context_create id=id:u32 ' \
		"$W/out" &&
	grep -q ' init=context_init:u32 dbgname=name:string ' "$W/out" &&
	grep -Eq '^p:grtrace_probe_[0-9]+/ctx_destroy virtio_gpu_cmd_context_destroy id=id:u32 ' \
		"$W/out" && [ "$(grep -c '^[pr]:' "$W/out")" = 6 ]
result $? "probe --dry-run: the virtio-gpu profile's kprobes, filters and contexts"
run probe --dry-run -p "$PR/nvidia.profile" &&
	grep -Eq '^p:[^ ]*/sched kchangrpapiCtrlCmdGpFifoSchedule_IMPL ' "$W/out" &&
	grep -Eq '^p:[^ ]*/tsg_destroy kchangrpDestruct_IMPL ' "$W/out"
result $? "probe --dry-run: the nvidia profile"
expect_fail "probe: -p required" "-p/--profile PROFILE is required" probe -o x
expect_fail "probe: -o or --dry-run required" "-o/--output FILE or --dry-run" probe -p x
# In s, 307445734561825861 min wrapped to 44 s
expect_fail "probe: --duration beyond a year" "invalid --duration" \
	probe --dry-run -p x -d 307445734561825861m
expect_fail "probe: no such profile" "nosuch.profile: No such file" \
	probe --dry-run -p "$W/nosuch.profile"
# A profile by name, in profiles/ beside the grtrace that runs: a build's
rm -rf "$W/bin" && mkdir -p "$W/bin/profiles" && cp "$G" "$W/bin/grtrace" &&
	cp "$PR/virtio-gpu.profile" "$W/bin/profiles/" &&
	timeout 20 "$W/bin/grtrace" probe --dry-run -p virtio-gpu > "$W/out" 2> "$W/err" &&
	grep -Eq '^p:grtrace_probe_[0-9]+/add virtqueue_add_sgs ' "$W/out"
result $? "probe -p NAME: the profile in profiles/ beside the grtrace that runs"
expect_fail "probe -p NAME: a name in neither place names both" \
	"no profile nosuch: neither .*/profiles/nosuch.profile nor .*/nosuch.profile exists" \
	probe --dry-run -p nosuch
# bad_profile NAME PATTERN LINES: the profile of LINES fails with PATTERN,
# which names its file and line
bad_profile() {
	printf '%b' "$3" > "$W/bad.profile"
	expect_fail "probe: $1" "^grtrace: $W/bad.profile:$2" probe --dry-run -p "$W/bad.profile"
}
OK='ring r\nprobe a f k=$arg1\n'
bad_profile "unknown statement" "3: unknown statement 'jobs'" "${OK}jobs a submit\n"
bad_profile "job of no probe" "1: no probe 'a' above" \
	'job a submit key=k\nring r\nprobe a f k=$arg1\n'
bad_profile "job before a ring" "2: declare a ring first" 'probe a f k=$arg1\njob a submit\n'
bad_profile "unknown field" "3: probe 'a' has no field 'x'" "${OK}job a submit key=x\n"
bad_profile "unknown type" "3: unknown event type 'sumbit'" "${OK}job a sumbit key=k\n"
bad_profile "type twice" "3: event type 'end' given twice" "${OK}job a end,end seqno=k\n"
bad_profile "unknown ring" "3: no ring 'q' declared" "${OK}job a end ring=q seqno=k\n"
bad_profile "unknown engine" "1: unknown engine 'gpu'" "ring r gpu\n"
bad_profile "ring twice" "2: ring 'r' is declared twice" "ring r\nring r\n"
bad_profile "probe twice" "3: probe 'a' is declared twice" "${OK}probe a g\n"
bad_profile "bad function" "2: 'f;g' is not a function name" 'ring r\nprobe a f;g k=$arg1\n'
bad_profile "field without =" "2: 'k': a field is NAME=FETCHARG" "ring r\nprobe a f k\n"
bad_profile "reserved field" "2: field name 'gr_comm'" 'ring r\nprobe a f gr_comm=$comm\n'
bad_profile "field twice" "2: field 'k' is given twice" 'ring r\nprobe a f k=$arg1 k=$arg2\n'
bad_profile "quoted fetch" "2: fetch argument of 's': no quotes" "ring r\nprobe a f s='x'\n"
bad_profile "status on submit" "3: status= is for complete and error" \
	"${OK}job a submit key=k status=k\n"
bad_profile "keyed jobs never begin" "2: jobs by key= need a submit" "${OK}job a end key=k\n"
bad_profile "probe without job" "2: probe 'a' has no job or context" "${OK}"
bad_profile "no probe" "1: no probe in the profile" "ring r\n"
bad_profile "context without ctx=" "3: a context line needs ctx=" "${OK}context a create ring=r\n"
bad_profile "context what" "3: 'begin': a context is created" "${OK}context a begin ctx=k\n"
bad_profile "second filter" "4: probe 'a' has a filter already" \
	"${OK}filter a k > 1\nfilter a k < 9\njob a end seqno=k\n"

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
	vg report -i "$V" --per-ring --per-context --per-process -f json &&
		vg report -i "$J" --per-context --topn 3 && vg report -i "$V" --hist size &&
		vg export -i "$V" --chrome /dev/null --kernelshark /dev/null &&
		vg export -i "$J" --chrome /dev/null &&
		vg export -i "$W/gen/summary.bin" --chrome /dev/null &&
		vg report --jobs -i "$W/gen/newer.bin" -f csv
	result $? "valgrind: report, export"
	ok=0
	for f in "$W"/gen/*.bin; do
		vg report -i "$f" || ok=1
	done
	result $ok "valgrind: every synthetic input"
	GRTRACE_DIR=$W/fs vg record -q -o "$W/rec3.bin"
	result $? "valgrind: record"
	python3 "$F" setup "$W/gen/fakefs" "$W/live" && rm -f "$W/rec5.bin"
	feed gaps "$W/live" "$W/rec5.bin"
	GRTRACE_DIR=$W/live vg record -q -d 3 -o "$W/rec5.bin"
	rc=$?
	wait $feeder
	result $rc "valgrind: record live (gaps held, lost, late)"
else
	why="VALGRIND=0, or valgrind not installed"
	skip "valgrind: report, export" "$why"
	skip "valgrind: every synthetic input" "$why"
	skip "valgrind: record" "$why"
	skip "valgrind: record live (gaps held, lost, late)" "$why"
fi

finish
