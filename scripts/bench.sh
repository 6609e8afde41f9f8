#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make bench": the grtrace_bench KUnit suite under UML (native code: the
# ratios closest to hardware) and in the QEMU guest (TCG: only ratios mean
# anything; a kernel without the debugging of make test's), then one table with ratios to the bare TRACE_EVENT baseline.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=${BENCH_OUT:-$ROOT/results/bench}
rm -rf "$out"
mkdir -p "$out/share"

# uml_kunit FILE SUBCOMMAND [ARGS...]: the suite under UML with kunit.py.
# A UML run of the suite times about one second of events with the module's
# 101 pairs: 1001 pairs (10 s) give medians that agree from run to run.
uml_kunit() {
	local file=$1 cmd=$2

	shift 2
	(cd "$SRC" && python3 tools/testing/kunit/kunit.py "$cmd" --arch=um \
		--build_dir="$CACHE/build-um-bench" --timeout 900 \
		--kunitconfig=drivers/gpu/grtrace/tests/bench.kunitconfig \
		--kernel_args grtrace_bench.pairs=1001 --raw_output=all "$@" grtrace_bench) > "$file" 2>&1 ||
		log "bench: kunit.py failed, see $file"
}
# BENCH_ONLY=app: only the application-level runs (below).
only=${BENCH_ONLY:-}
if [ "$only" != app ]; then
	log "bench: UML (kunit.py, $CACHE/build-um-bench)"
	uml_kunit "$out/uml.log" run --jobs="$JOBS" --make_options CC="ccache gcc"
	# UML has no sched_clock(): ftrace's default clock ("local") counts
	# jiffies there, a memory read, while the relay stream reads the
	# clocksource (the host's clock_gettime()).  On x86 hardware both
	# read the TSC.  The same kernel again with ftrace on the relay
	# stream's clock:
	log "bench: UML, trace_clock=mono"
	uml_kunit "$out/uml-mono.log" exec --kernel_args trace_clock=mono
fi

# The guest kernel of "make test" carries KASAN, UBSAN and lockdep, whose
# checks would be timed with the emit path (lockdep's on every interrupt
# disabling and lock, KASAN's on every access).  The guest bench boots a
# kernel of the same fragment without those lines, without debug info and
# without the KUnit suites that run at boot, in its own build directory.
bench_kernel() {
	set -e
	local frag=$out/bench.config

	mkdir -p "$BENCH_BUILD"
	grep -v -E '^CONFIG_(KASAN|KASAN_GENERIC|UBSAN|PROVE_LOCKING|DEBUG_ATOMIC_SLEEP|DEBUG_INFO_[A-Z_]*|GRTRACE_KUNIT_TEST|GRTRACE_SCHED_KUNIT_TEST)=' \
		"$ROOT/scripts/config/guest.config" > "$frag"
	echo CONFIG_DEBUG_INFO_NONE=y >> "$frag"
	if ! cmp -s "$frag" "$BENCH_BUILD/.config.in" ||
	   [ "$SRC/.grtrace-stamp" -nt "$BENCH_BUILD/.config" ]; then
		make -C "$SRC" O="$BENCH_BUILD" -s tinyconfig
		"$SRC/scripts/kconfig/merge_config.sh" -m -O "$BENCH_BUILD" \
			"$BENCH_BUILD/.config" "$frag" >/dev/null
		make -C "$SRC" O="$BENCH_BUILD" -s olddefconfig
		cp "$frag" "$BENCH_BUILD/.config.in"
	fi
	for opt in KASAN UBSAN LOCKDEP DEBUG_INFO GRTRACE_KUNIT_TEST; do
		if grep -q "^CONFIG_$opt=y" "$BENCH_BUILD/.config"; then
			log "bench: CONFIG_$opt is on in $BENCH_BUILD"
			return 1
		fi
	done
	grep -qx CONFIG_GRTRACE_BENCH=m "$BENCH_BUILD/.config"
	make -C "$SRC" O="$BENCH_BUILD" CC="ccache gcc" -j"$JOBS" -s bzImage modules
	rm -rf "$BENCH_BUILD/modroot"
	make -C "$SRC" O="$BENCH_BUILD" -s INSTALL_MOD_PATH="$BENCH_BUILD/modroot" \
		modules_install >/dev/null
	GRTRACE_BUILD=$BENCH_BUILD INITRAMFS=$CACHE/initramfs-bench.cpio.gz \
		"$ROOT/scripts/guest/build.sh" >/dev/null
}
BENCH_BUILD=$CACHE/build-x86-bench
log "bench: guest kernel without debugging ($BENCH_BUILD)"
start=$SECONDS
# Not in a || list, where set -e would not stop the function at a failure.
set +e
(bench_kernel) > "$out/kernel.log" 2>&1
rc=$?
set -e
[ $rc = 0 ] || die "bench: building the guest kernel failed, see $out/kernel.log"
log "bench: guest kernel and initramfs took $((SECONDS - start)) s"

# Only grtrace_bench runs: the DRM scheduler's own KUnit suites, built in
# for the scheduler the bench needs, time mock jobs against the TCG clock
# and warn when one ends early.
# No GPU: nothing else fires the grtrace tracepoints (fbcon's cursor
# would, through virtio-gpu) or takes the vCPUs.  Under QEMU 7.2's
# multi-threaded TCG, a vCPU running a tracepoint's call site while
# another rewrites it (the rounds start and stop sessions, which add and
# remove probes) can take an int3 that the kernel's text patching no
# longer claims: scripts/guest/tests/patch-race.sh shows it.
# A persistent ftrace instance as "grtrace persist" makes it, its events
# off: the bench times the grtrace events recorded there (c').
persist="reserve_mem=16M:4096:grtrace trace_instance=grtrace_boot@grtrace"
if [ "$only" != app ]; then
	log "bench: QEMU guest"
	"$ROOT/scripts/guest/run-qemu.sh" --no-gpu \
		--kernel "$BENCH_BUILD/arch/x86/boot/bzImage" \
		--initrd "$CACHE/initramfs-bench.cpio.gz" --share "$out/share" \
		--log "$out/guest.log" --timeout "${GUEST_TIMEOUT:-1200}" \
		--append "grtrace.mode=bench grtrace.timeout=1100 kunit.filter_glob=grtrace_bench $persist" ||
		log "bench: the guest run failed, see $out/guest.log"
fi

# The merged reader's cost a record against the per-CPU files, with 2
# and 8 possible CPUs (scripts/guest/tests/pipebench.sh; review 2, m10):
# CPUs that write nothing should cost trace_pipe nothing a record.  The
# guest has 2 or 8 vCPUs (x86 takes as possible only the CPUs QEMU lists as
# present), and only 2 write.
if [ "$only" != app ]; then
	for n in 2 8; do
		log "bench: QEMU guest, the merged reader, $n possible CPUs"
		"$ROOT/scripts/guest/run-qemu.sh" --no-gpu \
			--kernel "$BENCH_BUILD/arch/x86/boot/bzImage" \
			--initrd "$CACHE/initramfs-bench.cpio.gz" --share "$out/share" \
			--log "$out/pipe-$n.log" --timeout 1200 --cpus $n \
			--append "grtrace.mode=pipebench grtrace.timeout=1100 kunit.enable=0" ||
			log "bench: the merged reader's guest run failed, see $out/pipe-$n.log"
	done
fi

# The cost an application feels: kmscube and glmark2-es2-drm on virgl,
# interleaved runs with tracing off, tracepoints only, the relay stream
# only, both, and aggregate_only (scripts/guest/tests/appbench.sh), on the
# same kernel.  BENCH_APP_ROUNDS=0 leaves it out.
app_rounds=${BENCH_APP_ROUNDS:-4}
if [ "$app_rounds" != 0 ]; then
	log "bench: QEMU guest with virgl, $app_rounds rounds of kmscube and glmark2-es2-drm"
	"$ROOT/scripts/guest/run-qemu.sh" --gl --kernel "$BENCH_BUILD/arch/x86/boot/bzImage" \
		--initrd "$CACHE/initramfs-bench.cpio.gz" --share "$out/share" \
		--log "$out/app.log" --timeout 1500 \
		--append "grtrace.mode=appbench grtrace.timeout=1400 grtrace.app_rounds=$app_rounds" ||
		log "bench: the virgl guest run failed, see $out/app.log"
fi

# The guest run's verdict, as make test's: the bench test passed, the
# guest finished, and its kernel reported nothing (it ran the emit path and
# re-registered the tracepoints' probes thousands of times).
verdict=
[ "$only" = app ] ||
	verdict=$(for f in guest pipe-2 pipe-8; do
			python3 "$ROOT/scripts/guest/verdict.py" --no-kunit "$out/$f.log"
		done | grep '^not ok' || true)
# The virgl guest's too: appbench.sh passed, no kernel report.
[ "$app_rounds" = 0 ] ||
	verdict+=$(python3 "$ROOT/scripts/guest/verdict.py" --no-kunit "$out/app.log" |
		grep '^not ok' || true)
{
	echo "# grtrace bench, $(date -u '+%F %T UTC'), host: $(nproc) x $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)"
	[ "$only" = app ] || python3 "$ROOT/scripts/bench-report.py" "UML=$out/uml.log" \
		"UML-mono=$out/uml-mono.log" "QEMU-TCG=$out/guest.log"
	[ "$only" = app ] || python3 "$ROOT/scripts/bench-report.py" --pipe "$out/pipe-2.log" "$out/pipe-8.log" ||
		echo "the merged reader: no figures, see $out/pipe-2.log and pipe-8.log"
	[ "$app_rounds" = 0 ] || python3 "$ROOT/scripts/bench-report.py" --app "$out/app.log"
} | tee "$out/bench.txt"
log "bench: $out/bench.txt"
[ -z "$verdict" ] || die "bench: a guest run failed (see $out/guest.log, app.log): ${verdict//$'\n'/; }"
