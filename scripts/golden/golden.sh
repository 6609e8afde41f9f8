#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The outputs of report and export on the synthetic streams and on two
# real recordings (data/: kmscube and glmark2 on virgl, and a KMS client's
# "grtrace record" file), as sha256 sums, one line per command.  The sums
# in golden.sha256 were made by the tool before its reader streamed (commit
# 83816c3, which loaded every record): the streaming reader must print the
# same bytes.  They were made again when SUBMIT gained the DRM client id
# (a job payload of 88 bytes, was 80), for the 23 commands whose output
# that changes and only for that: export's job arguments name the
# synthetic streams' client ids, the record size histogram counts records
# of 120 bytes, and the reports of the two real recordings, made before,
# count their job payloads as shorter than known.  And again when a job's
# row in CSV and JSON gained the time of each stage (submit_ns ..
# complete_ns), for the 18 commands that print jobs in CSV or JSON and
# only for those (the other columns unchanged: tools/grtrace/tests checks
# that the phases are the differences of the new columns).
#
#   golden.sha256: GRTRACE=... golden.sh GENDIR WORKDIR > golden.sha256
#   check:         GRTRACE=... golden.sh GENDIR WORKDIR | diff golden.sha256 -
#
# GENDIR is the output of tools/grtrace/tests/gen-streams.py.  This is the
# repository's check of its own history (scripts/test-cli.sh), not a test
# of the series: the recordings are binary.  Inputs are named relative to
# WORKDIR, so that the paths printed in the outputs do not depend on it.
set -e
TESTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
GEN=$(cd "$1" && pwd)
W=$2
mkdir -p "$W"
cd "$W"
rm -rf in && mkdir in
cp -r "$GEN/valid" in/valid
cp "$GEN/newer.bin" "$GEN/older.bin" "$GEN/jobless.bin" in/
tar -xJf "$TESTS/data/virgl-demo.tar.xz" -C in
xz -dc "$TESTS/data/kms-cli.grt.xz" > in/kms-cli.grt

run() {
	local sum
	sum=$("$GRTRACE" "$@" 2>&1 | sha256sum | cut -c1-64)
	echo "$sum  $*"
}

for i in in/valid in/newer.bin in/older.bin in/jobless.bin in/virgl-demo in/kms-cli.grt; do
	run report -i "$i"
	run report -i "$i" -f csv
	run report -i "$i" -f json
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
