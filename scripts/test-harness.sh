#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Self-test of the count: every way a step, a checker or a result can go
# wrong fails where make test counts it.  Each case feeds the harness a
# broken input (lib.sh's checker, ktap_merge and finish, ktap.py sum, a
# step whose tools are missing) and expects a failure, with its reason;
# one good input of each kind must pass, so that a harness failing
# everything fails here too.  KTAP; host only, seconds.
. "$(dirname "$0")/lib.sh"
ktap_begin 26
OUT=$(mktemp -d /tmp/grtrace-harness.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
CHECK=harness-selftest
export SRC

# A checker: a program that prints the KTAP of $1 (lines, "\n" escapes)
# and exits with status $2, or dies by a Python exception when $2 is "raise".
prog() {
	if [ "$2" = raise ]; then
		printf '%s\nimport sys; sys.stdout.flush(); %s\n' \
			"print('''$(printf "$1")''')" \
			"raise AttributeError(\"'NoneType' object has no attribute 'ring'\")" \
			> "$OUT/prog.py"
		echo "python3 $OUT/prog.py"
	else
		printf "%b" "$1" > "$OUT/prog.out"
		echo "sh -c 'cat $OUT/prog.out; exit $2'"
	fi
}
# merged WANT NAME KTAP STATUS [PLAN]: lib.sh's checker merges the program's
# KTAP into a step's; its own result must be WANT (ok, not ok), and a
# failure must say why (the text after "why:", if given in NAME).
merged() {
	local want=$1 name=$2 cmd rc why=${2#*why: }
	cmd=$(prog "$3" "$4")
	# shellcheck disable=SC2086
	(ktap_begin > /dev/null; checker ${5:+-n $5} prog eval "$cmd") > "$OUT/merged" 2>&1
	rc=$?
	if [ "$want" = ok ]; then
		[ $rc = 0 ] && grep -q "^ok 1 harness-selftest: prog" "$OUT/merged"
	else
		[ $rc != 0 ] && grep -q "^not ok 1 harness-selftest: prog" "$OUT/merged" &&
			{ [ "$why" = "$2" ] || grep -qF "$why" "$OUT/merged"; }
	fi
	rc=$?
	[ $rc = 0 ] || cp "$OUT/merged" "$OUT/err"
	result $rc "checker: $name"
}

merged ok "a checker that passes its plan" '1..2\nok 1 a\nok 2 b\n' 0
merged "not ok" "exit status 1 after its plan passed, why: exited with status 1" \
	'1..2\nok 1 a\nok 2 b\n' 1
merged "not ok" "a Python exception half way, why: AttributeError" \
	'1..3\nok 1 a' raise
merged "not ok" "results and no plan, why: printed no plan before its results" \
	'ok 1 a\nok 2 b\n' 0
merged "not ok" "its plan after its results, why: printed no plan before its results" \
	'ok 1 a\nok 2 b\n1..2\n' 0
merged "not ok" "fewer results than its plan, why: printed 2 results of a plan of 3" \
	'1..3\nok 1 a\nok 2 b\n' 0
merged "not ok" "a plan given by the caller, and its own plan differs, why: its own plan says 3" \
	'ok 1 a\nok 2 b\n1..3\n' 0 2
merged "not ok" "a failed result, why: 1 failed" '1..2\nok 1 a\nnot ok 2 b\n' 0

# A step that prints fewer results than its plan exits non-zero (finish).
(ktap_begin 3; result 0 one; result 0 two; finish) > "$OUT/step" 2>&1
rc=$?
[ $rc != 0 ] && grep -q '^ok 2 harness-selftest: two' "$OUT/step"
rc=$?
[ $rc = 0 ] || cp "$OUT/step" "$OUT/err"
result $rc "finish: a step short of its plan exits non-zero"
(ktap_begin 2; result 0 one; result 0 two; finish) > "$OUT/step" 2>&1
result $? "finish: a step that keeps its plan exits 0"

# summed WANT-LAST-LINE NAME LOG: ktap.py sum of one step's log (lines,
# "\n" escapes): its last line must be WANT-LAST-LINE, and a failure must
# name why (the text after "why:" in NAME).
summed() {
	local why=${2#*why: } rc
	printf "%b" "$3" > "$OUT/step.log"
	python3 "$ROOT/scripts/ktap.py" sum "step=$OUT/step.log" > "$OUT/sum" 2>&1
	rc=$?
	[ "$(tail -1 "$OUT/sum")" = "$1" ] &&
		case $1 in *", 0 failed,"*) [ $rc = 0 ] ;; *) [ $rc != 0 ] ;; esac &&
		{ [ "$why" = "$2" ] || grep -qF "$why" "$OUT/sum"; }
	rc=$?
	[ $rc = 0 ] || { echo "want: $1"; cat "$OUT/sum"; } > "$OUT/err"
	result $rc "ktap.py sum: $2"
}

summed "2 passed, 0 failed, 0 skipped, 0 cached" "a step that keeps its plan" \
	'TAP version 13\n1..2\nok 1 a\nok 2 b\n'
summed "1 passed, 1 failed, 0 skipped, 0 cached" \
	"a step short of its plan, why: 1 result(s) of its plan missing" \
	'TAP version 13\n1..2\nok 1 a\n'
summed "2 passed, 1 failed, 0 skipped, 0 cached" \
	"results and no plan, why: plan: no plan before its results" \
	'TAP version 13\nok 1 a\nok 2 b\n'
summed "2 passed, 1 failed, 0 skipped, 0 cached" \
	"a failed parent whose results passed, why: (its results passed)" \
	'TAP version 13\n1..1\n    KTAP version 1\n    # Subtest: c\n    1..2\n    ok 1 a\n    ok 2 b\nnot ok 1 c\n'
summed "1 passed, 0 failed, 1 skipped, 0 cached" "a skip is counted as skipped, not passed" \
	'TAP version 13\n1..2\nok 1 a\nok 2 b # SKIP no tool\n'
summed "1 passed, 0 failed, 0 skipped, 1 cached" "a cached build is counted as cached, not passed" \
	'TAP version 13\n1..2\nok 1 a\nok 2 b (cached: passed before with identical inputs)\n'
summed "0 passed, 1 failed, 0 skipped, 0 cached" "an empty log, why: no KTAP results" ''
summed "0 passed, 1 failed, 2 skipped, 0 cached" \
	"a step whose every result is a skip, why: the step tested nothing" \
	'TAP version 13\n1..2\nok 1 a # SKIP no tool\nok 2 b # SKIP no tool\n'
# A guest step's log taken from the cache (test.sh, kernel_step): every
# result and subtest marked, the subtests whole.
summed "0 passed, 0 failed, 1 skipped, 2 cached" "a cached step's log, subtests and a skip in it" \
	"$(printf 'TAP version 13\n1..3\nok 1 a\n    KTAP version 1\n    # Subtest: c: d  \n    1..1\n    ok 1 b\nok 2 c: d\nok 3 e # SKIP no tool\n' | ktap_cached)"

# The prefix walk's choice of what to build (scripts/walk-stale.py), on a
# build directory made up for each reason a target is stale or not.
checker walk-stale python3 "$ROOT/scripts/walk-stale-test.py"

# old-sched-check.py's window for a fence signalled while grtrace's probe
# runs, on events made up for each order of the two probes.
checker old-sched-check python3 "$ROOT/scripts/old-sched-check-test.py"

# A step whose tools are missing fails at once, and says which (make deps
# installs them): each step that checks its tools, run with one of them
# taken off its PATH.
mkdir -p "$OUT/bin"
# Every command of the PATH (ln refuses the names met twice).
find /usr/local/bin /usr/bin /bin -maxdepth 1 ! -type d -print0 |
	xargs -0 ln -s -t "$OUT/bin" 2> /dev/null
without() {	# without STEP TOOL: test-STEP.sh with TOOL taken off its PATH
	local step=$1 tool=$2 rc

	mv "$OUT/bin/$tool" "$OUT/bin/.$tool"
	PATH=$OUT/bin GRTRACE_RUN=$OUT/run "$ROOT/scripts/test-$step.sh" > "$OUT/step" 2>&1
	rc=$?
	mv "$OUT/bin/.$tool" "$OUT/bin/$tool"
	[ $rc != 0 ] && grep -q "^not ok 1 $step: tools present" "$OUT/step" &&
		grep -qx "#   missing: $tool (make deps installs them)" "$OUT/step" &&
		[ "$(grep -c '^\(not \)\?ok ' "$OUT/step")" = 1 ]
	rc=$?
	[ $rc = 0 ] || cp "$OUT/step" "$OUT/err"
	result $rc "a step whose tools are missing fails at once: $step without $tool"
}
without kernelshark kernelshark
without cli strace
without correlate clang

# Step demo's checks of report.txt (results 4-6) fail on a report without
# the clients and the plugin's lines, and pass on one with them: the step
# runs on a results directory made here, with a make that does nothing.
mkdir -p "$OUT/run/demo" "$OUT/fake"
printf '#!/bin/sh\nexit 0\n' > "$OUT/fake/make"
chmod +x "$OUT/fake/make"
demo_report() {
	local want=$1 name=$2 rc n

	printf "%b" "$3" > "$OUT/run/demo/report.txt"
	PATH=$OUT/fake:$PATH GRTRACE_RUN=$OUT/run "$ROOT/scripts/test-demo.sh" > "$OUT/demo" 2>&1
	rc=0
	for n in 4 5 6; do
		grep -q "^$want $n demo: report.txt: " "$OUT/demo" || rc=1
	done
	[ $rc = 0 ] || cp "$OUT/demo" "$OUT/err"
	result $rc "step demo, report.txt $name: results 4-6 $want"
}
plugin=$(for i in $(seq 12); do echo "kmscube-141 [000] 1.0: grtrace_complete: ring=$i"; done)
demo_report "not ok" "of the kernel's jobs alone" \
	'per process: latency (COMPLETE - SUBMIT) in us\n 1318 1318 1.0 kworker/0:0[8]\n\nper context: latency (COMPLETE - SUBMIT) in us\n 1318 1318 1.0 ctx 0 kworker/0:0[8]\n\n## trace-cmd report with plugin_grtrace\n'
demo_report ok "of both clients" \
	"per process: latency (COMPLETE - SUBMIT) in us\n 56 56 1.0 glmark2-es2-drm[198]\n 737 737 1.0 kmscube[141]\n\nper context: latency (COMPLETE - SUBMIT) in us\n 56 56 1.0 ctx 2 glmark2-es2-drm[198]\n 737 737 1.0 ctx 3 kmscube[141]\n\n## trace-cmd report with plugin_grtrace\n$plugin\n"
finish
