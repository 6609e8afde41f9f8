#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The outputs of report and export on the synthetic streams and on two
# real recordings (data/: kmscube and glmark2 on virgl, its first 600
# records of each CPU's file, and a KMS client's "grtrace record" file),
# one file per command in OUTDIR, named after the input and the command.
# out/ holds them as the tool printed them at the commit that made them
# files (before, they were sha256 sums: the sums of the whole recordings,
# first made by the tool before its reader streamed, 83816c3, and twice
# made again for a changed payload and new CSV columns, 534a233 and
# 28f28be, which that tool still printed): a change to a command's output
# is a diff of its file, for a reviewer to read.
#
#   make out/:  GRTRACE=... golden.sh GENDIR WORKDIR scripts/golden/out
#   check:      GRTRACE=... golden.sh GENDIR WORKDIR WORKDIR/out &&
#               diff -r scripts/golden/out WORKDIR/out
#
# GENDIR is the output of tools/grtrace/tests/gen-streams.py.  This is the
# repository's check of its own history (scripts/test-cli.sh), not a test
# of the series: the recordings are binary.  Inputs are named relative to
# WORKDIR, so that the paths printed in the outputs do not depend on it.
set -e
TESTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
GEN=$(cd "$1" && pwd)
W=$2
mkdir -p "$W" "$3"
OUTDIR=$(cd "$3" && pwd)
rm -f "$OUTDIR"/*.txt
cd "$W"
rm -rf in && mkdir in
cp -r "$GEN/valid" in/valid
cp "$GEN/newer.bin" "$GEN/older.bin" "$GEN/jobless.bin" in/
tar -xJf "$TESTS/data/virgl-demo.tar.xz" -C in
# The first 600 whole records of each file: outputs a reviewer can read.
python3 - in/virgl-demo/events*.bin <<'PY'
import struct, sys
for path in sys.argv[1:]:
    data, off = open(path, "rb").read(), 0
    for _ in range(600):
        off += struct.unpack_from("<H", data, off + 2)[0]
    open(path, "wb").write(data[:off])
PY
xz -dc "$TESTS/data/kms-cli.grt.xz" > in/kms-cli.grt

# run ARGS...: grtrace's output and errors, in a file named after ARGS
run() {
	local name
	name=$(echo "$*" | sed 's#in/##; s#[^A-Za-z0-9.]\{1,\}#-#g; s#-$##')
	"$GRTRACE" "$@" > "$OUTDIR/$name.txt" 2>&1
}

for i in in/valid in/newer.bin in/older.bin in/jobless.bin in/virgl-demo in/kms-cli.grt; do
	run report -i "$i"
	run report -i "$i" --jobs
	run report -i "$i" -f csv
	run report -i "$i" --jobs -f csv
	run report -i "$i" -f json
	run report -i "$i" --jobs -f json
	run report -i "$i" -f json --per-ring --per-context --per-process
	run report -i "$i" --per-ring --per-context --per-process
	run report -i "$i" --hist lat
	run report -i "$i" -f json --hist size
	run report -i "$i" --hist result
	run report -i "$i" --topn 5
	run report -i "$i" -f csv --engine graphics --since 1ms --limit 50
	run report -i "$i" --queue-thresh 20us --exec-thresh 1ms
	run export -i "$i" --chrome -
done
