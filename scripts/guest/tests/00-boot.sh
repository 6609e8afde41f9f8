#!/bin/sh
# Boot smoke test: debugfs and tracefs are mounted and virtio-gpu gave /dev/dri/card0.
rc=0
check() { # check NAME COMMAND...
	name=$1; shift
	if "$@"; then echo "GRTRACE-TEST: $name PASS"; else echo "GRTRACE-TEST: $name FAIL"; rc=1; fi
}
mounted() { grep -q " $1 $2 " /proc/mounts; }
card0() {
	for _ in 1 2 3 4 5; do [ -c /dev/dri/card0 ] && return 0; sleep 1; done
	return 1
}

check boot.debugfs mounted /sys/kernel/debug debugfs
check boot.tracefs mounted /sys/kernel/tracing tracefs
check boot.dri-card0 card0
exit $rc
