#!/bin/sh
# Run the grtrace kselftests; report every TAP result as a GRTRACE-TEST
# line.  A kselftest that skips as a whole (exit 4, "1..0 # SKIP") is one
# SKIP line; one whose results are not as many as its plan fails.
rc=0
for t in /opt/grtrace/selftests/*/*; do
	[ -x "$t" ] || continue
	name=kselftest.$(basename "$(dirname "$t")").$(basename "$t")
	out=$(cd "$(dirname "$t")" && "./$(basename "$t")" 2>&1)
	st=$?
	echo "$out"
	echo "$out" | sed -n 's/^\(not ok\|ok\) [0-9]* \([^#]*\)\(# SKIP.*\)\{0,1\}$/\1|\2|\3/p' |
	while IFS='|' read -r res case skip; do
		case=$(echo "$case" | sed 's/ *$//;s/ /_/g')
		if [ -n "$skip" ]; then r=SKIP; elif [ "$res" = ok ]; then r=PASS; else r=FAIL; fi
		echo "GRTRACE-TEST: $name.$case $r"
	done
	plan=$(echo "$out" | sed -n 's/^1\.\.\([0-9]*\).*/\1/p' | head -1)
	n=$(echo "$out" | grep -cE '^(not )?ok [0-9]+ ')
	if [ "$st" = 4 ] && [ "$n" = 0 ]; then
		echo "GRTRACE-TEST: $name SKIP"
	elif [ -z "$plan" ] || [ "$plan" != "$n" ]; then
		echo "grtrace: $name: ${n} results of a plan of ${plan:-none}"
		echo "GRTRACE-TEST: $name.plan FAIL"; rc=1
	fi
	# A non-zero exit other than "skip" (4) fails even without TAP lines.
	if [ "$st" != 0 ] && [ "$st" != 4 ]; then
		echo "GRTRACE-TEST: $name.exit FAIL"; rc=1
	fi
done
exit $rc
