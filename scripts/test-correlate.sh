#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# CPU/GPU correlation: build grtrace and grtrace-bpf-annotate out of tree,
# run their host-side tests (tools/grtrace/tests/correlate-tests.sh: merge
# and timeline on synthetic inputs with known answers and on malformed
# ones, under valgrind; the annotator on this kernel when BPF is allowed),
# and check again on the host what the guest's 50-correlate test recorded.
# KTAP; exits non-zero on any failure.  Reads the guest step's share.
source "$(dirname "$0")/lib.sh"
ktap_begin 8

OUT=$(mktemp -d /tmp/grtrace-correlate.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
G=$OUT/build/grtrace
A=$OUT/bpf/grtrace-bpf-annotate
CHECK=correlate

# What the tests would skip without: none may be missing (make deps).
tools_present valgrind clang setpriv
build_check "build grtrace (merge, timeline), no warnings" -x "$G" \
	-C "$ROOT/tools/grtrace" O="$OUT/build" UAPI_INCLUDE="$ROOT"
build_check "build grtrace-bpf-annotate (clang, libbpf), no warnings" -x "$A" \
	-C "$ROOT/tools/grtrace/bpf" O="$OUT/bpf"
make -s -C "$ROOT/tools/grtrace/bpf" O="$OUT/bpf" install DESTDIR="$OUT/inst" PREFIX=/usr \
	> /dev/null 2> "$OUT/err" && [ -x "$OUT/inst/usr/bin/grtrace-bpf-annotate" ]
result $? "grtrace-bpf-annotate: make install DESTDIR= PREFIX="
# Without clang: a message, success, nothing built
make -C "$ROOT/tools/grtrace/bpf" O="$OUT/nobpf" CLANG=no-such-clang > "$OUT/out" 2> "$OUT/err" &&
	grep -q "not built, missing: clang" "$OUT/out" && [ ! -e "$OUT/nobpf/grtrace-bpf-annotate" ]
result $? "grtrace-bpf-annotate: skipped cleanly without clang"
[ -x "$G" ] || finish

# The suite prints its plan last: the count it must reach is here.
checker -n 63 tests/correlate-tests.sh env GRTRACE="$G" ANNOTATE="$A" \
	"$SRC/tools/grtrace/tests/correlate-tests.sh" "$OUT/tests"

# What the guest recorded (copied first: a running guest test may rewrite it)
src=$GUEST_SHARE/correlate
if [ ! -s "$src/gpu.grt" ] || [ ! -s "$src/cpu.txt" ] || [ ! -s "$src/dirtyfb.pid" ]; then
	result 1 "guest recording present ($src/{gpu.grt,cpu.txt,dirtyfb.pid})"
	result 1 "guest recording: merged and matched (no recording)"
else
	cp -r "$src" "$OUT/guest"
	d=$OUT/guest
	pid=$(cat "$d/dirtyfb.pid")
	timeout 60 "$G" merge -c "$d/cpu.txt" -i "$d/gpu.grt" -f csv > "$OUT/merge.csv" 2> "$OUT/err" &&
		cmp -s "$OUT/merge.csv" "$d/merge.csv"
	result $? "guest recording: the host's merge gives the guest's"
	python3 - "$OUT/merge.csv" "$d/cpu.txt" "$pid" > "$OUT/out" 2> "$OUT/err" <<-'PY'
	import csv, re, sys
	rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["tgid"] == sys.argv[3]]
	exits = [int(m.group(1)) * 10**9 + int(m.group(2)) for m in
	         (re.match(r"\[(\d+)\.(\d{9})\] IOCTL_EXIT pid=%s " % sys.argv[3], l)
	          for l in open(sys.argv[2])) if m]
	last = max(exits)
	during = [r for r in rows if int(r["submit_ns"]) <= last]
	bad = [r for r in during if r["matched"] != "1" or r["ioctl_line"] == "" or
	       any(r[k] != "" and int(r[k]) < 0 for k in
	           ("ioctl_to_submit_ns", "submit_to_start_ns", "start_to_end_ns",
	            "submit_to_ioctl_exit_ns"))]
	for r in bad:
	    print("bad:", r, file=sys.stderr)
	print("%d jobs of pid %s, %d while it made ioctls, %d matched, %d after its last ioctl"
	      % (len(rows), sys.argv[3], len(during), len(during) - len(bad), len(rows) - len(during)))
	sys.exit(1 if bad or not during else 0)
	PY
	result $? "guest recording: every job of grtrace_dirtyfb matched, no negative gap: $(cat "$OUT/out")"
fi

finish
