#!/bin/bash
# Boot a grtrace guest kernel under QEMU/TCG with the serial console logged to a file.
set -euo pipefail

usage() {
	echo "usage: run-qemu.sh --kernel BZIMAGE --initrd CPIO --log FILE [--share DIR]" \
	     "[--timeout SECS] [--append 'CMDLINE'] [--gl | --no-gpu] [--host-trace FILE]" \
	     "[--reboot] [--cpus N] [--dump-on-timeout]" \
	     "[-- QEMU-ARGS...]" >&2
	exit 2
}

kernel='' initrd='' share='' log='' timeout=600 append='' gl='' gpu=1 htrace= reboot= cpus=2
dump=
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift 2 ;;
	--initrd) initrd=$2; shift 2 ;;
	--share) share=$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--append) append=$2; shift 2 ;;
	--gl) gl=1; shift ;;
	--no-gpu) gpu=''; shift ;;
	--host-trace) htrace=$2; shift 2 ;;
	--reboot) reboot=1; shift ;;
	--cpus) cpus=$2; shift 2 ;;
	--dump-on-timeout) dump=1; shift ;;
	--) shift; break ;;
	*) usage ;;
	esac
done
if [ -z "$kernel" ] || [ -z "$initrd" ] || [ -z "$log" ]; then usage; fi

# pci=noacpi: ACPI PCI interrupt-link setup costs ~10 s per device under TCG
# (measured: /init at ~7 s instead of ~27 s); SeaBIOS' PIRQ table works.
# qboot.rom is slower here: without ACPI IRQ routing virtio-gpu's IRQ is lost.
# One host thread runs both vCPUs (thread=single): under multi-threaded
# TCG a vCPU that runs a call site while the other rewrites it (a
# tracepoint or static key switched: every guest here records) can take
# an int3 after text patching has finished with it, "Oops: int3", with
# upstream's own tracepoints as with grtrace's (README, "Text patching
# under TCG"; scripts/patch-control.sh shows it).  Single-threaded TCG
# still interleaves the vCPUs, and leaves a host core to the other steps;
# a vCPU waiting for the other (an IPI, a lock) waits for its turn, which
# makes such a guest several times slower.  --cpus 1: one vCPU, no other to
# race with (the guests whose checks do not need two).
# GRTRACE_QEMU_ACCEL=tcg: multi-threaded, for the control experiment.
# tsc_early_khz: under TCG the guest's TSC is the host's, but the guest
# measures its rate against the emulated PIT and HPET, which a loaded host
# can stall: a demo guest of a cold make check found 52 MHz ("PIT
# calibration deviates from HPET: 52140 2093018"), so its clock ran forty
# times fast and its 900 s time limit ended the workload after 20 s.  The
# host's rate, which the kernel refines against the HPET later, if within
# 1% (about 2,093-2,096 MHz in the guests here).  Only on a host that is a
# virtual machine told its TSC's rate by the hypervisor (tsc_known_freq),
# without APERF/MPERF: there "cpu MHz" is that rate; elsewhere it may be
# the core's current clock, and the guests calibrate as before.
khz=$(awk -F': ' '/^flags/ { vm = / hypervisor( |$)/ && / constant_tsc( |$)/ &&
		/ tsc_known_freq( |$)/ && !/ aperfmperf( |$)/ }
	/^cpu MHz/ { mhz = $2 } /^$/ { exit } END { if (vm && mhz) printf "%d", mhz * 1000 }' \
	/proc/cpuinfo 2> /dev/null) || khz=
[ -z "$khz" ] || append="tsc_early_khz=$khz $append"
monitor=none
if [ -n "$dump" ]; then
	mon=$(mktemp -u /tmp/grtrace-mon.XXXXXX)
	monitor="unix:$mon,server=on,wait=off"
	append="$append unknown_nmi_panic panic_print=1"
fi
args=(-accel "${GRTRACE_QEMU_ACCEL:-tcg,thread=single}" -m 2G -smp "$cpus" -nodefaults
      -kernel "$kernel" -initrd "$initrd"
      -append "console=ttyS0 panic=-1 pci=noacpi $append"
      -vga none -serial "file:$log" -monitor "$monitor")
# --reboot: a guest reboot (panic=-1 after a panic) resets the machine
# and boots the same kernel and command line again, the guest's memory
# kept as it was (QEMU does not clear RAM at reset); else QEMU exits.
[ -n "$reboot" ] || args+=(-no-reboot)
run=()
if [ -n "$gl" ]; then
	# A 3D GPU: virglrenderer on the host's llvmpipe.  It needs an EGL
	# display; egl-headless wants a render node the host lacks, so QEMU
	# shows its window on a virtual X server.  The host's root, read-only,
	# gives the guest Debian's userspace (Mesa, kmscube) to chroot into.
	args+=(-display gtk,gl=on -device virtio-gpu-gl-pci
	       -virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on")
	run=(xvfb-run -a -s "-screen 0 1280x1024x24")
elif [ -n "$gpu" ]; then
	args+=(-display none -device virtio-gpu-pci)
else
	args+=(-display none)
fi
if [ -n "$htrace" ]; then
	# The host's side of the GPU work: QEMU's own virtio-gpu trace events
	# (the "log" backend Debian builds), each line stamped with the host's
	# realtime, for grtrace report --host.
	rm -f "$htrace"
	args+=(-trace "enable=virtio_gpu_*,file=$htrace" -msg timestamp=on)
fi
if [ -n "$share" ]; then
	mkdir -p "$share"
	args+=(-virtfs "local,path=$share,mount_tag=host0,security_model=none")
fi

# --dump-on-timeout: a guest still running 30 s before the timeout gets an
# NMI from QEMU's monitor; the kernel panics on it (unknown_nmi_panic) and
# first prints every task with its stack (panic_print=1): where a hung
# guest waits, in its serial log.  The run still ends as a timeout.
wd=
if [ -n "$dump" ]; then
	(
		sleep $((timeout > 60 ? timeout - 30 : timeout / 2))
		[ -S "$mon" ] || exit 0
		python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"nmi\n")
open(sys.argv[2], "w").close()
time.sleep(1)' "$mon" "$mon.fired"
	) 2> /dev/null &
	wd=$!
	trap '{ kill "$wd"; pkill -P "$wd"; } 2> /dev/null || :; rm -f "$mon" "$mon.fired"' EXIT
fi

rc=0
"${run[@]}" timeout -k 5 "$timeout" qemu-system-x86_64 "${args[@]}" "$@" || rc=$?
if [ -n "$wd" ]; then
	{ kill "$wd"; pkill -P "$wd"; wait "$wd"; } 2> /dev/null || :
	[ ! -e "$mon.fired" ] || rc=124
	rm -f "$mon" "$mon.fired"
fi
if [ $rc = 124 ] || [ $rc = 137 ]; then
	echo GRTRACE-TIMEOUT >> "$log"
	exit 124
fi
exit $rc
