#!/bin/bash
# Boot a grtrace guest kernel under QEMU/TCG with the serial console logged to a file.
set -euo pipefail

usage() {
	echo "usage: run-qemu.sh --kernel BZIMAGE --initrd CPIO --log FILE [--share DIR]" \
	     "[--timeout SECS] [--append 'CMDLINE'] [-- QEMU-ARGS...]" >&2
	exit 2
}

kernel='' initrd='' share='' log='' timeout=600 append=''
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift 2 ;;
	--initrd) initrd=$2; shift 2 ;;
	--share) share=$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--append) append=$2; shift 2 ;;
	--) shift; break ;;
	*) usage ;;
	esac
done
if [ -z "$kernel" ] || [ -z "$initrd" ] || [ -z "$log" ]; then usage; fi

# pci=noacpi: ACPI PCI interrupt-link setup costs ~10 s per device under TCG
# (measured: /init at ~7 s instead of ~27 s); SeaBIOS' PIRQ table works.
# qboot.rom is slower here: without ACPI IRQ routing virtio-gpu's IRQ is lost.
args=(-accel tcg -m 2G -smp 2 -nodefaults -no-reboot
      -kernel "$kernel" -initrd "$initrd"
      -append "console=ttyS0 panic=-1 pci=noacpi $append"
      -display none -vga none -device virtio-gpu-pci
      -serial "file:$log" -monitor none)
if [ -n "$share" ]; then
	mkdir -p "$share"
	args+=(-virtfs "local,path=$share,mount_tag=host0,security_model=none")
fi

rc=0
timeout -k 5 "$timeout" qemu-system-x86_64 "${args[@]}" "$@" || rc=$?
if [ $rc = 124 ] || [ $rc = 137 ]; then
	echo GRTRACE-TIMEOUT >> "$log"
	exit 124
fi
exit $rc
