#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Live relay files for the host tests of "grtrace record".

  rec-feed.py setup FAKEFS DIR      a copy of the stand-in debugfs directory
                                    with a running session and empty
                                    events0, events1
  rec-feed.py gaps DIR OUT          feed DIR's events<N> on the schedule of
                                    GAPS, its clock starting when grtrace
                                    record creates OUT (OUT.ready once the
                                    first records are in)
  rec-feed.py stream DIR OUT        feed both files alternately, 500 records
                                    every 10 ms, from when OUT appears until
                                    OUT.stop does (OUT.ready once it waits)
  rec-feed.py partial DIR N         N whole records in events0 and the
                                    first half of the next: a writer
                                    caught in the middle of its write
  rec-feed.py behind DIR ERR        the files of behind() below, for a
                                    recorder stopped (SIGSTOP) until
                                    its duration is over (DIR/behind.fed
                                    once they are written); once ERR
                                    shows the end's cut, two more
                                    records in events0, below the cut
  rec-feed.py check OUT GSEQS       OUT holds exactly the records GSEQS
                                    (comma separated, A-B a range, "c" for
                                    any without a gap) in strictly
                                    increasing gseq order, then the stats
                                    record

The relay files are plain files appended to: "grtrace record" reads them
as it reads relay files, to their current end and again later.
"""
import os
import struct
import sys
import time

HDR = "<HHIQQQ"
IRQ, TOOL_STATS, TOOL_CPU = 6, 0xff00, 0xffffffff
PAYLOAD = 88    # struct grtrace_job_payload

# (ms after the recorder starts, cpu, gseqs appended), cpu 1 quiet between.
# 4 fills its gap within 250 ms: written in order.  8 opens on a quiet CPU
# and is never filled: lost after 500 ms; it shows up after 1500 ms: late.
# 12 is missed by both files: lost at once.  Expected output:
GAPS_OUT = "1-7,9-11,13,14"
GAPS = [
    (0, 0, [1, 2, 3, 5, 6]),
    (250, 1, [4]),
    (300, 0, [7, 9]),
    (1800, 1, [8]),
    (1900, 1, [10]),
    (1950, 0, [11, 13]),
    (2000, 1, [14]),
]


def rec(cpu, gseq):
    return struct.pack(HDR, IRQ, 32 + PAYLOAD, cpu, 1000 * gseq, gseq, gseq) + \
        bytes(PAYLOAD)


def append(d, cpu, data):
    fd = os.open(os.path.join(d, "events%d" % cpu), os.O_WRONLY | os.O_APPEND)
    os.write(fd, data)  # whole records in one write
    os.close(fd)


def wait_for(path):
    for _ in range(2000):
        if os.path.exists(path):
            return time.monotonic()
        time.sleep(0.005)
    sys.exit("%s never appeared" % path)


def setup(fakefs, d):
    os.makedirs(d, exist_ok=True)
    for name in os.listdir(fakefs):
        data = b"" if name.startswith("events") else open(os.path.join(fakefs, name), "rb").read()
        open(os.path.join(d, name), "wb").write(data)
    open(os.path.join(d, "control"), "w").write("running\n")


def ready(out):
    """The feeder runs: the recorder may start."""
    open(out + ".ready", "w").close()


def gaps(d, out):
    t0 = None
    for ms, cpu, gseqs in GAPS:
        if t0 is None:
            append(d, cpu, b"".join(rec(cpu, g) for g in gseqs))
            ready(out)
            t0 = wait_for(out)
            continue
        time.sleep(max(0, t0 + ms / 1000 - time.monotonic()))
        append(d, cpu, b"".join(rec(cpu, g) for g in gseqs))


def stream(d, out):
    ready(out)
    wait_for(out)
    gseq = 0
    while not os.path.exists(out + ".stop"):
        for cpu in (0, 1):
            data = []
            for _ in range(250):
                gseq += 1
                data.append(rec(cpu, gseq))
            append(d, cpu, b"".join(data))
        time.sleep(0.01)


def partial(d, n):
    append(d, 0, b"".join(rec(0, g) for g in range(1, n + 1)) +
           rec(0, n + 1)[:(32 + PAYLOAD) // 2])


# 68 records (8160 bytes of an 8192-byte relay buffer) and half of gseq 70
# in events0, 69, 71 and 73-80 in events1, all read by the end's first
# read: the cut is 80, and 70 and 72 come to events0 after it was read.
# The recording then holds 1-80.

def behind(d, err):
    append(d, 0, b"".join(rec(0, g) for g in range(1, 69)) + rec(0, 70)[:60])
    append(d, 1, b"".join(rec(1, g) for g in [69, 71] + list(range(73, 81))))
    open(os.path.join(d, "behind.fed"), "w").close()
    for _ in range(4000):
        if os.path.exists(err) and b"end: cut at gseq" in open(err, "rb").read():
            break
        time.sleep(0.005)
    else:
        sys.exit("the recorder never reached its end")
    append(d, 0, rec(0, 70)[60:] + rec(0, 72))


def parse(spec):
    want = []
    for part in spec.split(","):
        a, _, b = part.partition("-")
        want += range(int(a), int(b or a) + 1)
    return want


def check(out, spec):
    data = open(out, "rb").read()
    off, got, last = 0, [], None
    while off < len(data):
        typ, size, cpu, _, gseq, _ = struct.unpack_from(HDR, data, off)
        if size < 32 or size % 8 or off + size > len(data):
            sys.exit("bad record at %d" % off)
        if (typ, cpu) == (TOOL_STATS + 2, TOOL_CPU):    # the config record
            break
        got.append(gseq)
        last = (typ, cpu)
        off += size
    if last != (TOOL_STATS, TOOL_CPU):
        sys.exit("the last record is not the stats record")
    if any(a >= b for a, b in zip(got, got[1:])):
        bad = [(a, b) for a, b in zip(got, got[1:]) if a >= b]
        sys.exit("gseq not strictly increasing: %r" % bad[:5])
    if spec == "c":
        if got[-2] - got[0] != len(got) - 2:
            sys.exit("a gap in gseqs %d-%d: %d records" % (got[0], got[-2], len(got) - 1))
    elif got[:-1] != parse(spec):
        sys.exit("gseqs %r, expected %s" % (got[:-1], spec))


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "setup":
        setup(*args)
    elif cmd == "gaps":
        gaps(*args)
    elif cmd == "stream":
        stream(*args)
    elif cmd == "behind":
        behind(*args)
    elif cmd == "partial":
        partial(args[0], int(args[1]))
    elif cmd == "check":
        check(*args)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
