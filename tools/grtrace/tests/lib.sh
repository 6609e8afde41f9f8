# SPDX-License-Identifier: GPL-2.0-only
#
# Helpers of the host-side test scripts, sourced as
#
#	SUITE=name; . "$TESTS/lib.sh" "${1:-}"
#
# with the script's WORKDIR argument, if any: a given work directory is
# kept, a temporary one is removed on exit.  $G is the grtrace under test.

G=${GRTRACE:-$TESTS/../grtrace}
W=${1:-$(mktemp -d "/tmp/grtrace-$SUITE.XXXXXX")}
mkdir -p "$W" || exit 1
[ -n "${1:-}" ] || trap 'rm -rf "$W"' EXIT
pass=0
fail=0

# result RC NAME: count a check, "PASS $SUITE: NAME" or "FAIL ..." followed
# by the start of $W/err
result() {
	if [ "$1" = 0 ]; then
		echo "PASS $SUITE: $2"
		pass=$((pass + 1))
	else
		echo "FAIL $SUITE: $2"
		fail=$((fail + 1))
		[ -s "$W/err" ] && sed 's/^/  /' "$W/err" | head -5
	fi
}

# check NAME COMMAND...: the command succeeds
check() {
	local name=$1

	shift
	"$@" > "$W/out" 2> "$W/err"
	result $? "$name"
}

# run ARGS...: grtrace under a timeout, output in $W/out and $W/err
run() {
	timeout 20 "$G" "$@" > "$W/out" 2> "$W/err"
}

# expect_fail NAME PATTERN ARGS...: grtrace exits 1 (not a crash nor a
# hang) and its stderr matches PATTERN
expect_fail() {
	local name=$1 pattern=$2 rc

	shift 2
	run "$@"
	rc=$?
	[ $rc = 1 ] && grep -Eq -- "$pattern" "$W/err"
	result $? "$name"
}
