#!/bin/bash
# Self-test for verdict.py: feed it synthetic serial logs and check exit codes and summaries.
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
shopt -s lastpipe   # so check() at the end of a pipe updates the counters
. "$here/../lib.sh"
ktap_begin 9

kunit() { # KTAP output of one suite; $1 = result line of the second case
	cat <<-KTAP
	[    1.000000] KTAP version 1
	[    1.000000] 1..1
	[    1.000001]     KTAP version 1
	[    1.000001]     # Subtest: example
	[    1.000001]     # module: example
	[    1.000001]     1..3
	[    1.000002]     ok 1 example_simple_test
	[    1.000003]         KTAP version 1
	[    1.000003]         # Subtest: example_params_test
	[    1.000003]         ok 1 example value 3 # SKIP unsupported
	[    1.000003]         ok 2 example value 2
	[    1.000003]     # example_params_test: pass:1 fail:0 skip:1 total:2
	[    1.000003]     ok 2 example_params_test
	[    1.000004]     $1
	[    1.000004] # example: pass:2 fail:0 skip:1 total:3
	[    1.000004] ok 1 example
	KTAP
}
guest() { printf '%s\n' 'GRTRACE-TEST: boot.debugfs PASS' 'GRTRACE-TEST: 00-boot PASS'; }

# check NAME EXPECTED-EXIT EXPECTED-SUMMARY < LOG: verdict.py's exit
# status and its KTAP totals (pass:N fail:N skip:N).
check() {
	cat > "$tmp/$1.log"
	# shellcheck disable=SC2086
	out=$("$here/verdict.py" ${VERDICT_ARGS:-} "$tmp/$1.log"); rc=$?
	tot=$(echo "$out" | tail -n 1 | sed -n 's/^# Totals: pass:\([0-9]*\) fail:\([0-9]*\) .* skip:\([0-9]*\) .*/\1 passed, \2 failed, \3 skipped/p')
	tot=${tot%, 0 skipped}
	if [ $rc = "$2" ] && [ "$tot" = "$3" ]; then
		ktap_test_pass "verdict-selftest: $1"
	else
		ktap_test_fail "verdict-selftest: $1: exit $rc, expected $2; totals $tot, expected $3"
		echo "$out" | sed 's/^/#   /'
	fi
}

{ kunit 'ok 3 example_mark_skipped # SKIP no hw'; guest; echo GRTRACE-DONE; } |
	check clean 0 '6 passed, 0 failed, 2 skipped'
{ kunit 'not ok 3 example_broken'; guest; echo GRTRACE-DONE; } |
	check kunit-fail 1 '6 passed, 1 failed, 1 skipped'
{ guest; cat <<-'LOG'
	[    2.000000] ------------[ cut here ]------------
	[    2.000001] WARNING: CPU: 1 PID: 1 at drivers/gpu/drm/foo.c:42 foo+0x1/0x2
	[    2.000002] ---[ end trace 0000000000000000 ]---
	GRTRACE-DONE
	LOG
} | check warning 1 '3 passed, 1 failed'
guest | check no-done 1 '3 passed, 1 failed'
# Reports quoted as result names keep the KTAP whole for the kernel's
# parser (ktap.py sum, as make test reads it): "CPU#1" and "[#1]" would
# otherwise start directives, hide the results and renumber those after.
{ cat <<-'LOG'
	[    2.000001] WARNING: drivers/gpu/drm/foo.c:42 at foo+0x1/0x2, CPU#1: kworker/1:1/30
	[    2.000002] Oops: Oops: 0002 [#1] SMP KASAN
	LOG
	guest; echo GRTRACE-DONE; } > "$tmp/hash.log"
"$here/verdict.py" "$tmp/hash.log" > "$tmp/hash.ktap"
sum=$(python3 "$here/../ktap.py" sum "hash=$tmp/hash.ktap" 2> /dev/null)
if [ "$(echo "$sum" | sed -n '2,3s/^  not ok: kernel: \(WARNING\|Oops\).*/\1/p' | xargs)" = "WARNING Oops" ] &&
   [ "$(echo "$sum" | head -n 1)" = "hash: 3 passed, 2 failed, 0 skipped, 0 cached" ]; then
	ktap_test_pass "verdict-selftest: reports that quote a hash sign parse as two failing results"
else
	ktap_test_fail "verdict-selftest: reports that quote a hash sign parse as two failing results"
	echo "$sum" | sed 's/^/#   /'
fi
{ echo GRTRACE-TEST: 01-x FAIL; echo GRTRACE-DONE; } | check guest-fail 1 '2 passed, 1 failed'
# A guest test that is not installed prints nothing: --expect names them.
{ guest; echo GRTRACE-DONE; } | VERDICT_ARGS='--expect 00-boot,30-virtio-e2e' \
	check expect-missing 1 '4 passed, 1 failed'
{ guest; echo GRTRACE-DONE; } | VERDICT_ARGS='--expect 00-boot,boot' check expect-ran 0 '5 passed, 0 failed'
echo GRTRACE-DONE | check empty 1 '1 passed, 1 failed'

finish
