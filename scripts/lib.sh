# SPDX-License-Identifier: GPL-2.0
# Common settings of the grtrace scripts; sourced, not run.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${GRTRACE_CACHE:-$HOME/.cache/grtrace}
TARBALL=${GRTRACE_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
SRC=${KERNEL_SRC:-$CACHE/linux-source-6.12}
BUILD=${GRTRACE_BUILD:-$CACHE/build-x86}
export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
# Paths relative to the build directory: hits across build directories.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$CACHE}
export CCACHE_NOHASHDIR=1
JOBS=${JOBS:-$(nproc)}
# The patches of the series, in order.
series_patches() { grep -v '^#' "$ROOT/patches/series" | sed '/^$/d'; }
# Kernel paths of the files the series creates.
series_created() {
	series_patches | sed "s#^#$ROOT/patches/#" | xargs cat |
		awk '/^diff --git/ {f=$3; sub("^a/", "", f)} /^new file mode/ {print f}' | sort -u
}
log() { printf '%s\n' "grtrace: $*" >&2; }
die() { log "$*"; exit 1; }

# For the host test scripts, which set CHECK (the name their lines carry)
# and OUT (their work directory).  result RC NAME: count a check and print
# "PASS $CHECK: NAME", or "FAIL ..." followed by the start of $OUT/err;
# $OUT/err is emptied for the next check.
pass=0 fail=0
result() {
	if [ "$1" = 0 ]; then
		echo "PASS $CHECK: $2"
		pass=$((pass + 1))
	else
		echo "FAIL $CHECK: $2"
		fail=$((fail + 1))
		[ -s "$OUT/err" ] && sed 's/^/  /' "$OUT/err" | head -"${ERR_LINES:-5}"
	fi
	: > "$OUT/err"
}
# build_check NAME -x|-f FILE MAKE-ARGS...: "make V=1 MAKE-ARGS" succeeds
# with no warning or error in its output, and leaves FILE, an executable
# (-x) or a regular file (-f).
build_check() {
	local name=$1 test=$2 file=$3 rc

	shift 3
	nice make V=1 "$@" > "$OUT/build.log" 2>&1
	rc=$?
	grep -E "warning|error" "$OUT/build.log" > "$OUT/err"
	[ $rc = 0 ] && [ ! -s "$OUT/err" ] && [ "$test" "$file" ]
	result $? "$name"
}
# finish: print the counts and exit, non-zero if a check failed.
finish() {
	echo "$pass passed, $fail failed"
	[ "$fail" = 0 ]
	exit
}
# guest_recordings: copy the trace.dat files the guest recorded (make demo,
# and the guest test's e2e.dat) to $OUT/real, listed in the array dats:
# copied first, as a running guest test may rewrite them.  Counts a check
# that there is at least one.
guest_recordings() {
	local src name dat

	dats=()
	for src in "$ROOT/results/demo/trace.dat" "$CACHE/guest-test/share/e2e/e2e.dat"; do
		name=${src#"$ROOT/"}
		name=${name#"$CACHE/"}
		if [ ! -s "$src" ]; then
			echo "SKIP $CHECK: real recording $name (none)"
			continue
		fi
		mkdir -p "$OUT/real"
		dat=$OUT/real/${name//\//_}
		cp "$src" "$dat" && dats+=("$dat")
	done
	[ ${#dats[@]} -gt 0 ]
	result $? "recording present (results/demo/trace.dat or the e2e test's e2e.dat)"
}
