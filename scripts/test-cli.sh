#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The grtrace command line tool (tools/grtrace), in two steps:
#
#   test-cli.sh tool         build it out of tree into $RUN/cli-tool, run
#                            its host-side tests (tools/grtrace/tests), the
#                            golden outputs, the README's example: nothing
#                            of a guest's, so it runs beside the guests
#   test-cli.sh recordings   that build on the real relay files and
#                            trace.dat of the guest step (its e2e test) and
#                            of the demo
#
# KTAP; exits non-zero on any failure.  The tool's own tests run from the
# tree of step tree (they source the kernel's ktap_helpers.sh).
source "$(dirname "$0")/lib.sh"
mode=${1:-}
case $mode in tool | recordings) ;; *) die "usage: test-cli.sh tool|recordings" ;; esac

OUT=$(mktemp -d /tmp/grtrace-cli.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
G=$RUN/cli-tool/grtrace
CHECK=cli

if [ "$mode" = recordings ]; then
	# six checks of the guest's recording (its trace.dat's clock among
	# them), five of the demo's
	ktap_begin 11
	CHECK=recordings
	[ -x "$G" ] || { result 1 "the tool built by step cli ($G)"; finish; }
else
# the tools its tests need, build, install, the tool's tests, the golden
# outputs, the README's example
ktap_begin 6
rm -rf "$RUN/cli-tool"

# What the tool's tests would skip without (valgrind, strace, trace-cmd,
# setpriv): here, where make deps installed them, none may be missing.
tools_present valgrind strace trace-cmd setpriv
build_check "build (make O=, -Wall -Wextra, no warnings)" -x "$G" \
	-C "$ROOT/tools/grtrace" O="$RUN/cli-tool" UAPI_INCLUDE="$ROOT"
[ -x "$G" ] || finish

make -s -j"$JOBS" -C "$ROOT/tools/grtrace" O="$RUN/cli-tool" install DESTDIR="$OUT/inst" PREFIX=/usr \
	> /dev/null 2> "$OUT/err" && [ -x "$OUT/inst/usr/bin/grtrace" ]
result $? "make install DESTDIR= PREFIX="

# The tool's suite prints its plan last: the count it must reach is here.
checker -n 232 tests/run-tests.sh env GRTRACE="$G" "$SRC/tools/grtrace/tests/run-tests.sh" \
	"$OUT/tests"

# The outputs of report and export on the synthetic streams and two real
# recordings, byte for byte those of scripts/golden/out/ (a file each).
GOLD=$ROOT/scripts/golden/out
python3 "$SRC/tools/grtrace/tests/gen-streams.py" "$OUT/gen" > /dev/null &&
	GRTRACE=$G "$ROOT/scripts/golden/golden.sh" "$OUT/gen" "$OUT/golden" "$OUT/golden/out" \
		2> "$OUT/err" &&
	diff -r "$GOLD" "$OUT/golden/out" > "$OUT/err"
result $? "report, export: the outputs of $(ls "$GOLD" | wc -l) commands as in scripts/golden/out/"

# The README's first example: its command on sample/virgl-demo prints
# the lines the README shows, in that order, and names both clients.
python3 - "$G" "$ROOT" > "$OUT/err" 2>&1 << 'EOF'
import re, subprocess, sys
g, root = sys.argv[1:3]
readme = open(root + '/README.md').read()
m = re.search(r'\n    \$ grtrace report -i sample/virgl-demo\n((?:    .*\n|\n)+?)\n(?!    )', readme)
if not m:
    sys.exit('README.md: no example of grtrace report -i sample/virgl-demo')
want = [l[4:] for l in m.group(1).splitlines() if l.strip()]
got = subprocess.run([g, 'report', '-i', root + '/sample/virgl-demo'], cwd=root, check=True,
                     capture_output=True, text=True).stdout.splitlines()
i = 0
for line in got:
    if i < len(want) and line == want[i]:
        i += 1
if i < len(want) or not any(l.startswith('kmscube[') for l in want) or \
        not any(l.startswith('glmark2-es2-drm[') for l in want):
    sys.exit(f'README line {i + 1} of its example is not in the output: {want[i:i + 1]}')
print(f'{len(want)} lines of the README in the output')
EOF
result $? "README: its example is grtrace report -i sample/virgl-demo's output, both clients in it"
finish
fi

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
