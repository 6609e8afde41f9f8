#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check "grtrace merge -f csv" against what gen-correlate.py generated.

usage: check-correlate.py EXPECTED.json MERGE.csv [KEYS]

Compares every job of EXPECTED (by fence) with its CSV line: matched,
why, ioctl_line and the gaps, or only the comma-separated KEYS.  Prints
the differences; exits non-zero if any.
"""
import csv
import json
import sys

KEYS = ["pid", "tgid", "matched", "why", "ioctl_line", "start_is_commit",
        "ioctl_to_submit_ns", "submit_to_start_ns", "start_to_end_ns",
        "submit_to_ioctl_exit_ns"]


def main():
    want = json.load(open(sys.argv[1]))["jobs"]
    keys = sys.argv[3].split(",") if len(sys.argv) > 3 else KEYS
    rows = list(csv.DictReader(open(sys.argv[2])))
    got = {r["fence"]: r for r in rows}
    bad = 0
    if len(rows) != len(want):
        print("%d jobs, expected %d" % (len(rows), len(want)))
        bad += 1
    for w in want:
        r = got.get(w["fence"])
        if r is None:
            print("job %s missing" % w["fence"])
            bad += 1
            continue
        for k in keys:
            exp = "" if w[k] is None else str(w[k])
            if r[k] != exp:
                print("job %s: %s is '%s', expected '%s'" % (w["fence"], k, r[k], exp))
                bad += 1
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
