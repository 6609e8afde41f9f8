#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make bench-reader": the readers of the grtrace tool on synthetic streams
# of 1 M, 2 M and 10 M events (1.6 GB in $CACHE/bench-reader), on trace.dat
# files of the kernel's own events (100 MB and 1 GB, made of step stock's
# recording) and on the guest run of "make demo" against trace-cmd
# (scripts/bench-reader.py).  Builds
# the tool from this repository; needs no kernel.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=${BENCH_OUT:-$ROOT/results/bench-reader}
work=$CACHE/bench-reader
mkdir -p "$out" "$work/uapi/linux"
make -s -j"$JOBS" -C "$ROOT/tools/grtrace" O="$work/tool" UAPI_INCLUDE="$ROOT"
cp "$ROOT/include-uapi-linux/grtrace.h" "$work/uapi/linux/"
cc -O2 -Wall -Wextra -I"$work/uapi" -o "$work/gen-load" "$ROOT/tools/grtrace/tests/gen-load.c"
# step stock's recording of Debian's 7.3: the seed of the trace.dat files
export SEED_DAT=${SEED_DAT:-$RUN/stock/trixie-backports/trace.dat}
demo=${DEMO:-$ROOT/results/demo}
[ -r "$demo/trace.dat" ] || demo=
python3 "$ROOT/scripts/bench-reader.py" "$work/tool/grtrace" "$work/gen-load" "$work" $demo |
	tee "$out/bench-reader.txt"
log "bench-reader: $out/bench-reader.txt"
