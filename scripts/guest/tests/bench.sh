#!/bin/sh
# Benchmark (grtrace.mode=bench): load the grtrace_bench KUnit module; its
# "bench ..." lines go to the console, where scripts/bench.sh reads them.
ko=$(find /lib/modules -name grtrace_bench.ko | head -1)
[ -n "$ko" ] || { echo "grtrace_bench.ko not in the initramfs"; exit 1; }
insmod "$ko" || exit 1
rmmod grtrace_bench
