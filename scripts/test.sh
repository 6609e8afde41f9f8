#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make test" and "make check": every test of the project, in two tiers.
#
#   test.sh test     the newcomer's tier (make test): the series on
#                    mainline, the guest kernel (KASAN, lockdep, UBSAN),
#                    every guest suite, demo, crash, modules, scale,
#                    Debian's own kernels (stock: 7.3, 6.1),
#                    patch-race, the slow KUnit cases, the tool's tests,
#                    fuzz, checkpatch, docs
#   test.sh check    make test, and every patch prefix (bisect), the =n and
#                    no-debugfs kernels and the 6.12 backport built and
#                    booted (make check, what .ci/run runs)
#
# Each step prints KTAP with its plan first; the kernel's KTAP parser
# (scripts/ktap.py sum) reads every step's log and the last line is the
# sum, "N passed, N failed, N skipped, N cached", whose failures set the
# exit status.  The run is hermetic: a step reads only the patches, this
# repository and what an earlier step of the same run produced.
#
# Lanes: a guest runs on one host core (single-threaded TCG, or one vCPU:
# scripts/guest/run-qemu.sh), in two lanes (step guest's two boots, then
# demo, patch-race, modules, stock; beside them kunit's boots, then crash,
# then the 6.12 guests), and the host's steps run beside them.  A host
# step that reads a guest's recordings waits for the guest step that
# makes them.  The guest steps
# that never run the tool (kunit, patch-race, modules) are taken from the
# result cache when their kernel and scripts are those of a run that
# passed (kernel_step).
#
# step         reads (from step)                 produces
# tree         patches/                          $SRC: the tree with the series (quilt)
# kernel       $SRC (tree)                       $BUILD: =y, the guest kernel
# initramfs    $BUILD (kernel)                   $CACHE/initramfs.cpio.gz
#   guests, two at a time:
# guest        $BUILD, initramfs                 $RUN/guest (serial.log, share/): the tests that run the tool
# kunit        $BUILD, initramfs                 $RUN/kunit: KUnit (slow cases too), kselftests
# demo         $BUILD, initramfs                 $RUN/demo: "make demo" as typed
# crash        $BUILD, initramfs, grtrace-tool   $RUN/crash: two boots, a crash between them
# patch-race   $BUILD, initramfs                 $RUN/patch-race: text patching under load
# modules      the =m kernel (configs), initramfs $RUN/modules: grtrace.ko loaded and unloaded
# stock        Debian's kernel images, initramfs $RUN/stock: the tool on the kernels' own events
#   beside them, on the host:
# series       patches/, folders, $SRC (tree)    -: git am of patches/ = quilt = folders
# verdict-selftest                               -
# harness-selftest  $SRC (tree): ktap_helpers.sh   -: the count fails what it must
# cli          tools/grtrace, $SRC (tree)        $RUN/cli-tool: the tool, its tests, goldens
# checkpatch   patches/, $SRC (tree)             -
# maintainers  patches/, $SRC (tree)             -
# kernel-doc   $SRC (tree)                       -
# htmldocs     $SRC (tree)                       $CACHE/htmldocs
# layering     $BUILD (kernel), $SRC (tree)      -: the layers call one way
# configs      $BUILD (kernel)                   the =m kernel (check: =n, no debugfs too)
# fuzz         $RUN/guest/share (guest)          $RUN/fuzz: the fuzzer's log, failing inputs
# correlate    $RUN/guest/share (guest)          -
# plugin       $RUN/guest/share (guest)          -
# recordings   $RUN/cli-tool (cli), guest, demo  -: the tool on their real recordings
# kernelshark  $RUN/guest/share, $RUN/demo       -
#   make check: once step kernel has configured, in the background (at nice 19):
# bisect       patches/, $BUILD/.config (kernel) every prefix built, in a tree of its own
#   from the start, in the background (its makes with the idle policy),
#   its guests in kunit's and crash's lane, after them:
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
	timed "$name" "$@" > "$RUN/$name.log" 2>&1
	step_report "$name" $? $((SECONDS - start))
}
# timed NAME CMD...: CMD, in a shell of its own whose children's CPU time
# (user and system: make's compilers, QEMU, the checkers) is written to
# $RUN/NAME.cpu, in seconds: what a step costs the machine beside what it
# takes on the clock, as the README's table gives it.
timed() {
	local name=$1
	shift
	(
		"$@"
		rc=$?
		# times itself, not in a pipeline's child, whose children
		# have used nothing yet.
		times > "$RUN/$name.cpu"
		awk 'NR == 2 {
			for (i = 1; i <= 2; i++) { split($i, t, "m"); s += t[1] * 60 + t[2] }
			printf "%d\n", s + 0.5 }' "$RUN/$name.cpu" > "$RUN/$name.cpu.tmp"
		mv "$RUN/$name.cpu.tmp" "$RUN/$name.cpu"
		exit $rc
	)
}
# step_report NAME RC SECONDS: keep step NAME's log and print its counts.
# A step that exited non-zero without a failing result gets one.
step_report() {
	local name=$1 rc=$2 log=$RUN/$1.log results=yes cpu
	if [ "$rc" != 0 ] && ! grep -qs '^ *not ok ' "$log"; then
		results=no
		{
			echo 'TAP version 13'
			grep -q '^1\.\.' "$log" || echo '1..1'
			echo "not ok 1 $name: exit status $rc"
		} >> "$log"
	fi
	logs+=("$name=$log")
	cpu=$(cat "$RUN/$name.cpu" 2> /dev/null)
	python3 "$ROOT/scripts/ktap.py" sum "$name=$log" 2> /dev/null | head -n -1 |
		sed "1s/\$/ ($3 s${cpu:+, $cpu s of CPU})/" >&2
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
# A step in the background (the host's lane; make check's 6.12 base, from
# the start with the idle scheduling policy): bg_step NAME CMD... runs as
# step NAME would, its exit status and seconds in $RUN/NAME.done.
bg_step() {
	local name=$1 start=$SECONDS
	shift
	timed "$name" "$@" > "$RUN/$name.log" 2>&1
	echo "$? $((SECONDS - start))" > "$RUN/$name.done.tmp"
	mv "$RUN/$name.done.tmp" "$RUN/$name.done"
}
# bg_wait NAME [PID]: the result of background step NAME, once it has
# ended, or once PID (its lane's; default the 6.12 base's) has.
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
	GRTRACE_GUEST_CONFIG_EXTRA=$ROOT/scripts/config/guest-6.12.config \
	GRTRACE_TARBALL=${GRTRACE_TARBALL_612:-/usr/src/linux-source-6.12.tar.xz} \
	GRTRACE_PATCHES=$ROOT/patches-6.12 GRTRACE_BUILD=$CACHE/backport-6.12/guest \
	INITRAMFS=$CACHE/backport-6.12/initramfs.cpio.gz GRTRACE_TOOL_SRC=$SRC \
	GRTRACE_RUN=$RUN/6.12 "$@"
}
# kernel_step NAME CMD...: CMD, a guest step that boots this run's kernel
# (or step configs' =m one) with the guest's init, kselftests and helpers
# but never the tool: when a run of the same kernel series, guest scripts,
# QEMU and packages passed before, its log again, each result marked
# cached (a change to the tools alone boots none of them again).
kernel_step() {
	local name=$1 key f rc
	shift
	# shellcheck disable=SC2046
	key=$({
		echo "kernel-step $name"
		patch_diffs $(series_patches | grep '^kernel/')
		cat "$ROOT"/scripts/guest/* "$ROOT"/scripts/guest/tests/* 2> /dev/null
		qemu-system-x86_64 --version | head -1
		dpkg-query -W -f '${Package} ${Version}\n'
		# What the steps read from the environment, when set
		[ -z "${PATCH_RACE_SESSIONS:-}${GUEST_TIMEOUT:-}${KERNEL_SRC:-}${GRTRACE_QEMU_ACCEL:-}" ] ||
			echo "${PATCH_RACE_SESSIONS:-} ${GUEST_TIMEOUT:-} ${KERNEL_SRC:-} ${GRTRACE_QEMU_ACCEL:-}"
	} | inputs_key "$1" "$ROOT/scripts/ktap.py" "$ROOT/scripts/kernel.sh" "$ROOT/scripts/build-config.sh" \
		"$ROOT/scripts/config/vendor.config")
	f=$RESULT_CACHE/kernel-step-$key.ktap
	if [ -z "${GRTRACE_REBUILD:-}" ] && [ -f "$f" ]; then
		ktap_cached < "$f"
		return 0
	fi
	"$@" | tee "$RUN/$name.ktap"
	rc=${PIPESTATUS[0]}
	[ "$rc" = 0 ] && mkdir -p "$RESULT_CACHE" && cp "$RUN/$name.ktap" "$f.tmp" && mv "$f.tmp" "$f"
	return "$rc"
}
tier=${1:-test}
case $tier in test | check) ;; *) die "usage: test.sh [test|check]" ;; esac
mkdir -p "$RUN/6.12"
log "make $tier"
# kill_tree PID...: end each PID and every process under it (a lane's
# steps, their make or QEMU: a background job ignores the SIGINT of a
# Ctrl-C).
kill_tree() {
	local p

	for p in "$@"; do
		kill -STOP "$p" 2> /dev/null || continue
		# shellcheck disable=SC2046
		kill_tree $(pgrep -P "$p")
		kill "$p" 2> /dev/null
		kill -CONT "$p" 2> /dev/null
	done
}
# The lanes end with the run, whatever ends it.
trap 'kill_tree ${bg:-} ${walk:-} ${host:-} ${guests:-}' EXIT
trap 'exit 130' INT TERM

step tree "$ROOT/scripts/tree.sh"
if [ "$tier" = check ]; then
	(
		# Its makes with the idle policy (kernel.sh, backport.sh,
		# vendor_configure); the rest (quilt, git am, the cache's keys)
		# as any step.
		export GRTRACE_IDLE=1
		b612 "$ROOT/scripts/tree.sh" > "$RUN/6.12/tree.log" 2>&1
		bg_step kernel-6.12 b612 "$ROOT/scripts/kernel.sh"
		bg_step backport "$ROOT/scripts/backport.sh"
	) &
	bg=$!
fi
if [ "$tier" = check ]; then
	# Every prefix, in a tree of its own, at nice 19: the CPU the guests
	# and the host's steps leave, before the 6.12 base's lane (the idle
	# policy) takes any.  The walk is a chain of small builds that
	# cannot use both cores; the 6.12 kernel's make can, so it takes what
	# the walk leaves, and the walk is not left to run alone at the end.
	# It reads only the guest kernel's configuration ($BUILD/.config):
	# it starts once step kernel has configured, in the CPU its build
	# leaves (the link, modpost), or once the step ended (cached, or
	# failed before: the walk then fails on the missing configuration).
	(renice -n 19 -p "$BASHPID" > /dev/null
	 while [ ! -f "$RUN/kernel.configured" ] && [ ! -f "$RUN/kernel.ended" ]; do sleep 2; done
	 bg_step bisect "$ROOT/scripts/bisect-check.sh") &
	walk=$!
fi
GRTRACE_CONFIGURED=$RUN/kernel.configured step kernel "$ROOT/scripts/kernel.sh"
touch "$RUN/kernel.ended"
step initramfs "$ROOT/scripts/guest/build.sh"

# The host's lane, beside the guests.  configs: the =m kernel step modules
# boots (make check: the =n and no-debugfs kernels too).
host_steps=(series verdict-selftest harness-selftest checkpatch maintainers kernel-doc htmldocs layering configs
	    cli fuzz correlate plugin recordings kernelshark)
configs="m"
[ "$tier" = check ] && configs="m n nodebugfs"
(
	bg_step series "$ROOT/scripts/series.sh" check
	bg_step verdict-selftest "$ROOT/scripts/guest/test-verdict.sh"
	bg_step harness-selftest "$ROOT/scripts/test-harness.sh"
	# The tool's own tests, which read no guest's files, beside the first
	# guests: they mostly wait (timeouts, live recordings), and come
	# before the steps that wait for the guests.
	bg_step cli "$ROOT/scripts/test-cli.sh"
	bg_step checkpatch "$ROOT/scripts/checkpatch.sh"
	bg_step maintainers "$ROOT/scripts/maintainers-check.sh"
	bg_step kernel-doc "$ROOT/scripts/kernel-doc-check.sh"
	bg_step htmldocs "$ROOT/scripts/htmldocs-check.sh"
	bg_step layering "$ROOT/scripts/layering-check.sh"
	# shellcheck disable=SC2086
	bg_step configs "$ROOT/scripts/build-config.sh" $configs
	# The readers of the guest's recordings, then of the demo's.
	while [ ! -f "$RUN/guest.done" ]; do sleep 2; done
	bg_step fuzz "$ROOT/scripts/test-fuzz.sh"
	bg_step correlate "$ROOT/scripts/test-correlate.sh"
	bg_step plugin "$ROOT/scripts/test-plugin.sh"
	while [ ! -f "$RUN/demo.done" ]; do sleep 2; done
	bg_step recordings "$ROOT/scripts/test-recordings.sh"
	bg_step kernelshark "$ROOT/scripts/test-kernelshark.sh"
) &
host=$!

# k612_built: step kernel-6.12 ended and passed (its guests run only then)
k612_built() { [ "$(cut -d' ' -f1 "$RUN/kernel-6.12.done" 2> /dev/null)" = 0 ]; }
# Two lanes of guests, each guest on one host core.  This one: step
# guest (two boots), demo, patch-race, modules, stock.  The other: step
# kunit (the kernel's own suites, which never run the tool, beside
# step guest's two boots: three guests until one of them ends; in the
# cold make test at a4f9274, kunit's boots took 457 s, guest's 414 s),
# then crash, then (make check) the 6.12 backport's guests.  A change to
# the tools alone takes kunit from the cache, and crash starts at once.
(
	bg_step kunit kernel_step kunit "$ROOT/scripts/test-kunit.sh"
	bg_step crash "$ROOT/scripts/test-crash.sh"
	if [ "$tier" = check ]; then
		# The 6.12 backport, booted, once its kernel is built: an
		# initramfs of its kselftests and the mainline tree's tool,
		# the guest tests and, beside them once the mainline demo
		# (whose QEMU log it must refuse) has run, "make demo" with its
		# checks.
		while [ ! -f "$RUN/kernel-6.12.done" ] && kill -0 "$bg" 2> /dev/null; do sleep 2; done
		if k612_built; then
			bg_step initramfs-6.12 b612 "$ROOT/scripts/guest/build.sh"
			bg_step guest-6.12 b612 "$ROOT/scripts/guest/test.sh" &
			while [ ! -f "$RUN/demo.done" ] && kill -0 $$ 2> /dev/null; do sleep 2; done
			bg_step demo-6.12 b612 "$ROOT/scripts/test-demo.sh"
			wait
		fi
	fi
) &
guests=$!
GRTRACE_GUEST_TOOL=1 step guest "$ROOT/scripts/guest/test.sh"
touch "$RUN/guest.done"
step demo "$ROOT/scripts/test-demo.sh"
touch "$RUN/demo.done"
step patch-race kernel_step patch-race "$ROOT/scripts/test-patch-race.sh"
bg_wait configs $host
step modules kernel_step modules "$ROOT/scripts/test-modules.sh"
step stock "$ROOT/scripts/test-stock.sh"

bg_wait kunit $guests
bg_wait crash $guests
if [ "$tier" = check ]; then
	bg_wait kernel-6.12
	for s in initramfs-6.12 guest-6.12 demo-6.12; do
		! k612_built || bg_wait "$s" $guests
	done
fi
[ "$tier" != check ] || bg_wait backport
# The host's steps (the 6.12 guests ran beside the last of them).
for s in "${host_steps[@]}"; do
	[ "$s" = configs ] || bg_wait "$s" $host
done
[ "$tier" != check ] || bg_wait bisect "$walk"

log "logs in $RUN"
python3 "$ROOT/scripts/ktap.py" sum "${logs[@]}" 2> /dev/null > "$RUN/summary.txt"
rc=$?
grep -A50 -m1 'not ok' "$RUN/summary.txt" | grep -v '^[0-9]* passed' | head -40 >&2
tail -1 "$RUN/summary.txt"
[ "$rc" = 0 ] && tail -1 "$RUN/summary.txt" | grep -qx '[0-9]* passed, 0 failed, .*'
