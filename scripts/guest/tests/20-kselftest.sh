#!/bin/sh
# Run the grtrace kselftests; report every TAP result as a GRTRACE-TEST line.
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
	# A non-zero exit other than "skip" (4) fails even without TAP lines.
	if [ "$st" != 0 ] && [ "$st" != 4 ]; then
		echo "GRTRACE-TEST: $name.exit FAIL"; rc=1
	fi
done
exit $rc
