# SPDX-License-Identifier: GPL-2.0-only
#
# Helpers of the host-side test scripts, sourced as
#
#	SUITE=name; . "$TESTS/lib.sh" "${1:-}"
#
# with the script's WORKDIR argument, if any: a given work directory is
# kept, a temporary one is removed on exit.  $G is the grtrace under test.
#
# The results are KTAP, printed by the kselftest helpers of the kernel tree
# (tools/testing/selftests/kselftest/ktap_helpers.sh): "ok N NAME" or
# "not ok N NAME" per check, "ok N NAME # SKIP REASON" for a check this
# machine cannot run, then the plan and the totals (finish).

KTAP_HELPERS=$TESTS/../../testing/selftests/kselftest/ktap_helpers.sh
# Outside a kernel tree: the helpers of the tree in $SRC
[ -r "$KTAP_HELPERS" ] || [ -z "${SRC:-}" ] ||
	KTAP_HELPERS=$SRC/tools/testing/selftests/kselftest/ktap_helpers.sh
if [ ! -r "$KTAP_HELPERS" ]; then
	echo "Bail out! $KTAP_HELPERS not found"
	exit 1
fi
. "$KTAP_HELPERS"

G=${GRTRACE:-$TESTS/../grtrace}
W=${1:-$(mktemp -d "/tmp/grtrace-$SUITE.XXXXXX")}
mkdir -p "$W" || exit 1
[ -n "${1:-}" ] || trap 'rm -rf "$W"' EXIT
ktap_print_header
ktap_print_msg "$SUITE: $G"

# result RC NAME: a check, "ok N NAME" or "not ok N NAME" followed by the
# start of $W/err as diagnostic lines
result() {
	if [ "$1" = 0 ]; then
		ktap_test_pass "$2"
	else
		ktap_test_fail "$2"
		[ -s "$W/err" ] && sed 's/^/#   /' "$W/err" | head -5
	fi
}

# skip NAME REASON: a check that cannot run here, "ok N NAME # SKIP REASON"
skip() {
	__ktap_test ok "$1" "SKIP $2"
	KTAP_CNT_SKIP=$((KTAP_CNT_SKIP + 1))
}

# finish: the plan (every check above), the totals; exit non-zero if a
# check failed
finish() {
	ktap_set_plan $((KTAP_TESTNO - 1))
	ktap_finished
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
