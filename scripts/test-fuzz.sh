#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The libFuzzer target of the grtrace tool's readers (tools/grtrace/fuzz):
# build it with clang (-fsanitize=fuzzer,address,undefined), seed it with
# the synthetic streams of gen-streams.py, a recording of "grtrace record",
# KernelShark lanes (a trace.dat without grtrace events) and the first
# pages of this run's guest trace.dat (fuzz/small-dat.py), and run it
# FUZZ_TIME seconds (60; "make fuzz": 600) in this process, one job.  Fails
# on any crash, sanitizer report, leak, input taking over 10 s or 2 GiB;
# a diagnostic line gives the executions reached.  The reproducers of
# scripts/fuzz-crashes/ must run clean too.  KTAP; exits non-zero on any
# failure.  Reads the guest step's share.
#
# FUZZ_CORPUS: the corpus directory, kept ("make fuzz": in the cache);
# default: a temporary one, from the seeds only.  FUZZ_ARTIFACTS: where a
# failing input and the fuzzer's log go (default: $RUN/fuzz).
source "$(dirname "$0")/lib.sh"
# The reproducers of the bugs found so far (their README)
mapfile -t found < <(ls -d "$ROOT"/scripts/fuzz-crashes/* 2> /dev/null | grep -v '/README$')
# build, seeds, the guest's seed, the reproducers (ASan, valgrind), fuzzing
ktap_begin $((4 + (${#found[@]} > 0) * 2))

OUT=$(mktemp -d /tmp/grtrace-fuzz.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
CHECK=fuzz
T=$ROOT/tools/grtrace
F=$OUT/build/fuzz/grtrace-fuzz
G=$OUT/build/grtrace
TIME=${FUZZ_TIME:-60}
ART=${FUZZ_ARTIFACTS:-$RUN/fuzz}
CORPUS=${FUZZ_CORPUS:-$OUT/corpus}
S=$OUT/seeds
mkdir -p "$ART" "$CORPUS" "$S"

build_check "build (clang -fsanitize=fuzzer,address,undefined, no warnings)" -x "$F" \
	-C "$T" O="$OUT/build" UAPI_INCLUDE="$ROOT" fuzz
[ -x "$F" ] || finish

# The seeds
make -s -j"$JOBS" -C "$T" O="$OUT/build" UAPI_INCLUDE="$ROOT" "$G" > /dev/null 2> "$OUT/err" &&
	python3 "$T/tests/gen-streams.py" "$OUT/gen" > /dev/null 2>> "$OUT/err" &&
	for f in "$OUT"/gen/*.bin "$OUT"/gen/valid/*.bin; do
		cp "$f" "$S/$(basename "$(dirname "$f")")-$(basename "$f")"
	done &&
	GRTRACE_DIR=$OUT/gen/fakefs "$G" record -q -o "$S/record.bin" > /dev/null 2>> "$OUT/err" &&
	"$G" export -i "$OUT/gen/valid" --kernelshark "$S/lanes.dat" > /dev/null 2>> "$OUT/err" &&
	python3 "$T/tests/gen-correlate.py" "$OUT/corr" > /dev/null 2>> "$OUT/err" &&
	cp "$OUT/corr/cpu.txt" "$OUT/corr/cpu-usec.txt" "$S/"
result $? "seeds: the synthetic streams, a recording with its stats, KernelShark lanes, CPU.txt"
dat=$GUEST_SHARE/e2e/e2e.dat
python3 "$T/fuzz/small-dat.py" "$dat" "$S/guest-e2e.dat" 2> "$OUT/err" &&
	"$G" report -i "$S/guest-e2e.dat" | grep -q "^  span .* [1-9][0-9]* jobs$"
rc=$?
size=$(stat -c %s "$S/guest-e2e.dat" 2> /dev/null)
result $rc "seed: the guest's trace.dat ($dat), its first page per CPU (${size:-no} bytes)"

# The reproducers: fixed
if [ ${#found[@]} -gt 0 ]; then
	for f in "${found[@]}"; do
		TMPDIR=$OUT timeout 60 "$F" -timeout=10 -rss_limit_mb=2048 "$f" > "$OUT/found.log" 2>&1 ||
			echo "$(basename "$f"): $(grep -m1 "^SUMMARY" "$OUT/found.log")" >> "$OUT/err"
	done
	[ ! -s "$OUT/err" ]
	result $? "the ${#found[@]} reproducers of scripts/fuzz-crashes/ run clean"
	# A bad read ASan may not watch (str_field): valgrind sees it.  The
	# tool reads each (0) or refuses it (1); anything else is valgrind's
	# error (99), a timeout (124) or a crash.
	for f in "${found[@]}"; do
		timeout 120 valgrind -q --error-exitcode=99 "$G" report -i "$f" \
			> /dev/null 2> "$OUT/vg.log"
		rc=$?
		[ $rc -le 1 ] || echo "$(basename "$f"): exit $rc: $(head -1 "$OUT/vg.log")" >> "$OUT/err"
	done
	[ ! -s "$OUT/err" ]
	result $? "the ${#found[@]} reproducers under valgrind: no invalid access, timeout or crash"
fi

# The fuzzing: in this process (no -jobs), libtracecmd's and grtrace's
# messages on the target's stderr dropped (-close_fd_mask=2), the reports
# of the sanitizers and of libFuzzer kept.
touch "$OUT/stamp"
start=$SECONDS
TMPDIR=$OUT timeout $((TIME + 120)) "$F" -max_total_time="$TIME" -timeout=10 -rss_limit_mb=2048 \
	-print_final_stats=1 -close_fd_mask=2 -artifact_prefix="$ART/" \
	"$CORPUS" "$S" > "$OUT/fuzz.log" 2>&1
rc=$?
took=$((SECONDS - start))
cp "$OUT/fuzz.log" "$ART/fuzz.log"
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$OUT/fuzz.log")
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$OUT/fuzz.log")
cov=$(grep -Eo 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$OUT/fuzz.log" | tail -1)
ktap_print_msg "fuzz: ${execs:-no} executions in $took s (${rate:-0}/s), $cov; log $ART/fuzz.log"
find "$ART" -maxdepth 1 -newer "$OUT/stamp" \( -name 'crash-*' -o -name 'leak-*' \
	-o -name 'timeout-*' -o -name 'oom-*' \) > "$OUT/found"
{
	grep -E "ERROR|SUMMARY|runtime error|^    #[0-9] " "$OUT/fuzz.log" | head -16
	sed 's/^/input: /' "$OUT/found"
} > "$OUT/err"
[ "$rc" = 0 ] && [ ! -s "$OUT/found" ] && [ -n "$execs" ]
ERR_LINES=20 result $? \
	"$TIME s of fuzzing: no crash, leak, timeout or out-of-memory (${execs:-0} executions in $took s)"
finish
