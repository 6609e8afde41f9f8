#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make test": every test of the project, each step reporting
# "N passed, N failed"; the sum is printed last and sets the exit status.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

logdir=${TEST_LOGS:-$ROOT/results/test}
rm -rf "$logdir"
mkdir -p "$logdir"
total_pass=0 total_fail=0

# step NAME CMD...: run, keep its log, add its closing counts to the totals.
step() {
	local name=$1 last p f rc start=$SECONDS
	shift
	log "== $name"
	"$@" > "$logdir/$name.log" 2>&1
	rc=$?
	grep -E '^(PASS|FAIL|SKIP) ' "$logdir/$name.log" | sed 's/^/  /'
	last=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$logdir/$name.log" | tail -1)
	if [ -n "$last" ]; then
		p=${last%% passed*}
		f=${last#*passed, }; f=${f%% failed*}
	else
		p=$((rc == 0)); f=$((rc != 0))
		echo "  $( [ $rc = 0 ] && echo PASS || echo FAIL ) $name"
	fi
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; fi
	[ "$f" = 0 ] || tail -25 "$logdir/$name.log" | sed 's/^/    | /'
	log "   $name: $p passed, $f failed ($((SECONDS - start)) s)"
	total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
	return 0
}

step verdict-selftest "$ROOT/scripts/guest/test-verdict.sh"
step check-series "$ROOT/scripts/series.sh" check
step tree "$ROOT/scripts/tree.sh"
step gitam "$ROOT/scripts/gitam-check.sh"
step checkpatch "$ROOT/scripts/checkpatch.sh"
step maintainers "$ROOT/scripts/maintainers-check.sh"
step kernel-doc "$ROOT/scripts/kernel-doc-check.sh"
step htmldocs "$ROOT/scripts/htmldocs-check.sh"
step kernel "$ROOT/scripts/kernel.sh"
step bisect "$ROOT/scripts/bisect-check.sh"
step build-m "$ROOT/scripts/build-config.sh" m
step build-n "$ROOT/scripts/build-config.sh" n var
step build-nobridge "$ROOT/scripts/build-config.sh" nobridge var
step build-novirtio "$ROOT/scripts/build-config.sh" novirtio var
step build-nohooks "$ROOT/scripts/build-config.sh" nohooks var
step build-vendor "$ROOT/scripts/build-vendor.sh"
step uml-kunit "$ROOT/scripts/uml-kunit.sh"
step initramfs "$ROOT/scripts/guest/build.sh"
step guest "$ROOT/scripts/guest/test.sh"
# These also read the recordings the guest just made.
step cli "$ROOT/scripts/test-cli.sh"
step correlate "$ROOT/scripts/test-correlate.sh"
step plugin "$ROOT/scripts/test-plugin.sh"
step kernelshark "$ROOT/scripts/test-kernelshark.sh"

log "logs in $logdir"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ]
