#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make test": every test of the project.  Each step prints KTAP; the
# kernel's KTAP parser (scripts/ktap.py sum) reads every step's log and the
# last line is the sum, "N passed, N failed", which also sets the exit
# status.  The run is hermetic: a step reads only the patches, this
# repository and what an earlier step of the same run produced.
#
# step         reads (from step)                 produces
# tree         patches/                          $SRC: the tree with the series (quilt)
# series       patches/, folders, $SRC (tree)    -: git am of patches/ = quilt = folders
# verdict-selftest                               -
# checkpatch   patches/, $SRC (tree)             -
# maintainers  patches/, $SRC (tree)             -
# kernel-doc   $SRC (tree)                       -
# htmldocs     $SRC (tree)                       $CACHE/htmldocs
# kernel       $SRC (tree)                       $BUILD: =y, the guest kernel
# layering     $BUILD (kernel), $SRC (tree)      -: the layers call one way
# configs      $BUILD (kernel)                   =m, =n, hooks-off kernels
# bisect       patches/, $SRC, $BUILD (kernel)   every prefix built; $SRC as before
# initramfs    $BUILD (kernel)                   $CACHE/initramfs.cpio.gz
# guest        $BUILD, initramfs                 $RUN/guest (serial.log, share/)
# demo         $BUILD, initramfs                 $RUN/demo: "make demo" as typed
# crash        $BUILD, initramfs, grtrace-tool   $RUN/crash: two boots, a crash between them
# cli          $RUN/guest/share, $RUN/demo       -
# fuzz         $RUN/guest/share (guest)          $RUN/fuzz: the fuzzer's log, failing inputs
# correlate    $RUN/guest/share (guest)          -
# plugin       $RUN/guest/share (guest)          -
# kernelshark  $RUN/guest/share (guest)          -
# patch-race   $BUILD, initramfs (beside fuzz)    $RUN/patch-race: text patching under load, booted
# modules      the =m kernel (configs), initramfs $RUN/modules: grtrace.ko loaded and unloaded, booted
# kernel-6.12  patches-6.12/ (background, from    $CACHE/linux-source-6.12: the backport applied;
#              the start: see below)              $CACHE/backport-6.12/guest: its guest kernel
# backport     patches-6.12/, kernel-6.12 (bg.)   =y, =m, =n built
# initramfs-6.12  that kernel, $SRC (tree)       $CACHE/backport-6.12/initramfs.cpio.gz
# guest-6.12   that kernel and initramfs         $RUN/6.12/guest
# demo-6.12    that kernel and initramfs         $RUN/6.12/demo
set -uo pipefail
. "$(dirname "$0")/lib.sh"

rm -rf "$RUN"
mkdir -p "$RUN"
export GRTRACE_RUN=$RUN SRC
logs=()

# step NAME CMD...: run, keep its KTAP log, print its counts.
step() {
	local name=$1 start=$SECONDS
	shift
	log "== $name"
	"$@" > "$RUN/$name.log" 2>&1
	step_report "$name" $? $((SECONDS - start))
}
# step_report NAME RC SECONDS: keep step NAME's log and print its counts.
# A step that exited non-zero without a failing result gets one.
step_report() {
	local name=$1 rc=$2 log=$RUN/$1.log results=yes
	if [ "$rc" != 0 ] && ! grep -qs '^ *not ok ' "$log"; then
		results=no
		printf 'TAP version 13\nnot ok 1 %s: exit status %s\n' "$name" "$rc" >> "$log"
	fi
	logs+=("$name=$log")
	python3 "$ROOT/scripts/ktap.py" sum "$name=$log" 2> /dev/null | head -n -1 |
		sed "s/\$/ ($3 s)/;2,\$s/ ([0-9]* s)\$//" >&2
	[ "$rc" = 0 ] && return 0
	# What failed, with its diagnostics: the first results that did not
	# pass, each with the lines that follow it; else the log's end.
	if [ "$results" = yes ]; then
		grep -A5 '^ *not ok ' "$log" | grep -v '^ *ok ' | head -40
	else
		tail -15 "$log"
	fi | sed 's/^/    | /' >&2
	return 0
}
# The 6.12 base: its tree, its guest kernel (step kernel-6.12) and the
# backport's builds (step backport) run from the start, in the background,
# with the idle scheduling policy, on the CPU time the mainline steps leave
# (make's serial work, the single-threaded checks, the guests' waits).  The
# mainline steps still slow down beside it (a cold run here: the kernel
# 1,764 s instead of 1,425 s, checkpatch and maintainers twice their time);
# the run as a whole gained 4%.  bg_step NAME CMD...: run as step NAME
# would, the exit status and seconds in $RUN/NAME.done.
bg_step() {
	local name=$1 start=$SECONDS
	shift
	"$@" > "$RUN/$name.log" 2>&1
	echo "$? $((SECONDS - start))" > "$RUN/$name.done"
}
# bg_wait NAME [PID]: the result of background step NAME, once it has
# ended, or once PID (the 6.12 base's) has.
bg_wait() {
	local name=$1 pid=${2:-$bg} rc=1 secs=0
	log "== $name (background)"
	while [ ! -f "$RUN/$name.done" ] && kill -0 "$pid" 2> /dev/null; do sleep 2; done
	[ -f "$RUN/$name.done" ] && read -r rc secs < "$RUN/$name.done"
	step_report "$name" "$rc" "$secs"
}
# b612 CMD...: CMD on the 6.12 base: its tree, guest kernel, initramfs and
# run directory, with the tool of the user-space series (the mainline
# tree's).
b612() {
	GRTRACE_TARBALL=${GRTRACE_TARBALL_612:-/usr/src/linux-source-6.12.tar.xz} \
	GRTRACE_PATCHES=$ROOT/patches-6.12 GRTRACE_BUILD=$CACHE/backport-6.12/guest \
	INITRAMFS=$CACHE/backport-6.12/initramfs.cpio.gz GRTRACE_TOOL_SRC=$SRC \
	GRTRACE_RUN=$RUN/6.12 "$@"
}
mkdir -p "$RUN/6.12"

step tree "$ROOT/scripts/tree.sh"
(
	chrt --idle -p 0 "$BASHPID" > /dev/null
	b612 "$ROOT/scripts/tree.sh" > "$RUN/6.12/tree.log" 2>&1
	bg_step kernel-6.12 b612 "$ROOT/scripts/kernel.sh"
	bg_step backport "$ROOT/scripts/backport.sh"
) &
bg=$!
step series "$ROOT/scripts/series.sh" check
step verdict-selftest "$ROOT/scripts/guest/test-verdict.sh"
step checkpatch "$ROOT/scripts/checkpatch.sh"
step maintainers "$ROOT/scripts/maintainers-check.sh"
step kernel-doc "$ROOT/scripts/kernel-doc-check.sh"
step htmldocs "$ROOT/scripts/htmldocs-check.sh"
step kernel "$ROOT/scripts/kernel.sh"
step layering "$ROOT/scripts/layering-check.sh"
step configs "$ROOT/scripts/build-config.sh"
step bisect "$ROOT/scripts/bisect-check.sh"
step initramfs "$ROOT/scripts/guest/build.sh"
step guest "$ROOT/scripts/guest/test.sh"
step demo "$ROOT/scripts/test-demo.sh"
step crash "$ROOT/scripts/test-crash.sh"
step cli "$ROOT/scripts/test-cli.sh"
# The text patching stress boots a single-threaded guest (one core) for
# as long as step fuzz fuzzes on the other.
bg_step patch-race "$ROOT/scripts/test-patch-race.sh" &
race=$!
step fuzz "$ROOT/scripts/test-fuzz.sh"
bg_wait patch-race $race
step correlate "$ROOT/scripts/test-correlate.sh"
step plugin "$ROOT/scripts/test-plugin.sh"
step kernelshark "$ROOT/scripts/test-kernelshark.sh"
step modules "$ROOT/scripts/test-modules.sh"

# The 6.12 backport, booted: its guest kernel (the mainline guest's
# configuration), an initramfs of its kselftests and the mainline tree's
# tool, the guest tests and "make demo" with its checks.
bg_wait kernel-6.12
bg_wait backport
step initramfs-6.12 b612 "$ROOT/scripts/guest/build.sh"
step guest-6.12 b612 "$ROOT/scripts/guest/test.sh"
step demo-6.12 b612 "$ROOT/scripts/test-demo.sh"

log "logs in $RUN"
python3 "$ROOT/scripts/ktap.py" sum "${logs[@]}" 2> /dev/null > "$RUN/summary.txt"
grep -A50 -m1 'not ok' "$RUN/summary.txt" | grep -v '^[0-9]* passed' | head -40 >&2
tail -1 "$RUN/summary.txt"
tail -1 "$RUN/summary.txt" | grep -q ' 0 failed$'
