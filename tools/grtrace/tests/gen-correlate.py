#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Write synthetic inputs of "grtrace merge" and "grtrace timeline".

usage: gen-correlate.py OUTDIR

OUTDIR/gpu.bin        a recording: 9 jobs on 3 rings (one without START,
                      as virtio-gpu), submitted by threads that made DRM
                      ioctls, by one that made none, outside any ioctl,
                      without a submitter, and one without SUBMIT
OUTDIR/noend.bin      4 jobs on one ring, one of them without END (its
                      latency 501 us, 2 us of them before COMMIT)
OUTDIR/median.bin     4 jobs on one ring, executing 10, 20, 30 and 100 us:
                      the median is 20 us, the one job above 4 times it
                      slow-exec
OUTDIR/many.bin       9000 jobs on one ring, every other one without END:
                      more than a command keeps exactly (GR_STAT_EXACT)
OUTDIR/long.bin       2 jobs 150 s into the session, one of them 12 s on the
                      device, as a GPU hang until its timeout
OUTDIR/cpu.txt        what grtrace-bpf-annotate printed meanwhile
OUTDIR/cpu-usec.txt   the same with microsecond time stamps (as the seed)
OUTDIR/cpu-shift.txt  the same, the CPU clock 1 ms ahead of the GPU's
OUTDIR/cpu-bad.txt    cpu.txt with malformed lines, see BAD
OUTDIR/cpu-nvidia.txt cpu.txt and NVIDIA's ioctls (drv=nvidia), see NVIDIA
OUTDIR/empty.txt      nothing
OUTDIR/comments.txt   only comment lines
OUTDIR/expected.json  per job: matched or why not, the ioctl's line in
                      cpu.txt, the gaps in ns; the bad lines' numbers
"""
import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("gs", os.path.join(HERE, "gen-streams.py"))
gs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gs)

T0 = gs.T0
SUBMIT, COMMIT, START, END, COMPLETE, ERROR = (gs.SUBMIT, gs.COMMIT, gs.START,
                                                gs.END, gs.COMPLETE, gs.ERROR)
DIRTYFB = 0xc01864b1
GETRES = 0xc04064a0
EXECBUF = 0xc0206442     # a driver ioctl (virtio-gpu EXECBUFFER)

# ring, fence, ctx, pid (thread), tgid, comm, events (type, us from T0),
# and what merge must find: ioctl (key of IOCTLS) or the reason
JOBS = [
    dict(ring=1, fence=(100, 1), ctx=7, pid=1235, tgid=1234, comm="glxgears",
         ev=[(SUBMIT, 10), (COMMIT, 15), (START, 20), (END, 120), (COMPLETE, 125)],
         io="a"),
    dict(ring=0, fence=(300, 1), ctx=3, pid=77, tgid=77, comm="dirtyfb",
         ev=[(SUBMIT, 40), (COMMIT, 41), (END, 90), (COMPLETE, 91)], io="b"),
    dict(ring=0, fence=(300, 2), ctx=3, pid=77, tgid=77, comm="dirtyfb",
         ev=[(SUBMIT, 42), (COMMIT, 43), (END, 95), (COMPLETE, 96)], io="b"),
    dict(ring=0, fence=(300, 3), ctx=3, pid=42, tgid=42, comm="kworker/0:1",
         ev=[(SUBMIT, 200), (COMMIT, 201), (END, 250), (COMPLETE, 251)],
         why="submitter made no DRM ioctl"),
    dict(ring=2, fence=(400, 1), ctx=9, pid=0, tgid=0, comm="",
         ev=[(SUBMIT, 300), (START, 302), (END, 310), (COMPLETE, 311)],
         why="SUBMIT without a submitter"),
    dict(ring=1, fence=(100, 2), ctx=7, pid=1235, tgid=1234, comm="glxgears",
         ev=[(SUBMIT, 500), (COMMIT, 505), (START, 510), (END, 600), (COMPLETE, 601)],
         why="SUBMIT outside the submitter's ioctls"),
    dict(ring=2, fence=(200, 1), ctx=9, pid=0, tgid=0, comm="",
         ev=[(START, 700), (END, 800)], why="SUBMIT not recorded"),
    dict(ring=1, fence=(100, 3), ctx=8, pid=1236, tgid=1234, comm="glxgears:cs0",
         ev=[(SUBMIT, 1000), (START, 1010), (END, 1020), (COMPLETE, 1021)],
         io="c"),
    dict(ring=1, fence=(100, 4), ctx=8, pid=1237, tgid=1234, comm="glxgears:cs1",
         ev=[(SUBMIT, 2000), (COMMIT, 2001)], io="d"),
]

# noend.bin: what report and timeline --latency must agree on
NOEND = [
    dict(ring=1, fence=(500, 1), ctx=7, pid=1235, tgid=1234, comm="glxgears",
         ev=[(SUBMIT, 10), (COMMIT, 12), (COMPLETE, 511)]),
    dict(ring=1, fence=(500, 2), ctx=7, pid=1235, tgid=1234, comm="glxgears",
         ev=[(SUBMIT, 100), (COMMIT, 101), (START, 105), (END, 130), (COMPLETE, 131)]),
    dict(ring=1, fence=(500, 3), ctx=7, pid=1235, tgid=1234, comm="glxgears",
         ev=[(SUBMIT, 200), (COMMIT, 202), (START, 210), (END, 290), (COMPLETE, 292)]),
    dict(ring=1, fence=(500, 4), ctx=7, pid=1235, tgid=1234, comm="glxgears",
         ev=[(SUBMIT, 400), (COMMIT, 401), (START, 402), (END, 407), (COMPLETE, 408)]),
]

# median.bin: the same median in report's table and in its labels and
# export's
MEDIAN = [dict(ring=1, fence=(600, i + 1), ctx=7, pid=1235, tgid=1234, comm="glxgears",
               ev=[(SUBMIT, 100 * i), (COMMIT, 100 * i + 1), (START, 100 * i + 2),
                   (END, 100 * i + 2 + x), (COMPLETE, 100 * i + 3 + x)])
          for i, x in enumerate([10, 20, 30, 100])]

# many.bin: more jobs on a ring than a statistic keeps exactly, so that
# its ranks come from buckets: 1,000 to 4,000 us apart, in no order
MANY = [dict(ring=1, fence=(700, i + 1), ctx=7, pid=1235, tgid=1234, comm="glxgears",
             ev=[(SUBMIT, 5000 * i), (COMMIT, 5000 * i + 1)] +
             ([(END, 5000 * i + lat - 1)] if i % 2 else []) +
             [(COMPLETE, 5000 * i + lat)])
        for i, lat in ((i, 1000 + i * 7919 % 3001) for i in range(9000))]

# long.bin: a job listing's widest times
LONG = [dict(ring=1, fence=(800, 1), ctx=7, pid=1235, tgid=1234, comm="glxgears",
             ev=[(SUBMIT, 0), (COMMIT, 1), (START, 2), (END, 3), (COMPLETE, 4)]),
        dict(ring=1, fence=(800, 2), ctx=7, pid=1235, tgid=1234, comm="glxgears",
             ev=[(SUBMIT, 150_000_000), (COMMIT, 150_000_010), (START, 150_000_020),
                 (END, 162_000_020), (COMPLETE, 162_000_030)])]

# DRM ioctls: key, pid, tid, comm, cmd, enter us (None: before the
# annotation), exit us (None: still running), ret
IOCTLS = [
    ("g", 77, 77, "dirtyfb", GETRES, 20, 25, 0),
    ("a", 1234, 1235, "glxgears", EXECBUF, 8, 30, 0),
    ("b", 77, 77, "dirtyfb", DIRTYFB, 35, 45, 0),
    ("e", 1234, 1235, "glxgears", EXECBUF, 450, 460, -22),
    ("c", 1234, 1236, "glxgears:cs0", EXECBUF, None, 1003, 0),
    ("d", 1234, 1237, "glxgears:cs1", EXECBUF, 1990, None, 0),
    ("f", 1234, 1235, "glxgears", EXECBUF, 3000, 3001, 0),
]
C_ENTER = {"c": 998}     # from duration_ns: what merge must infer

# Malformed lines put in front of cpu-bad.txt (line numbers 1..)
BAD = [
    "garbage",
    "[5.000001000] IOCTL_FROB pid=1 tid=1",
    "[5.000001000] IOCTL_ENTER pid=abc tid=1 cmd=0xc01864b1",
    "[5.000001000] IOCTL_ENTER tid=1 cmd=0xc01864b1",
    "[5.00000x] IOCTL_ENTER pid=1 tid=1",
    "[5.000001000] IOCTL_ENTER pid=1 tid=1 junk",
    "[5.000001000]",
    "[99999999999999999999.0] IOCTL_ENTER pid=1 tid=1",
    "[5.000001000] IOCTL_EXIT pid=1 tid=1 ret=12abc",
    "5.000001000 IOCTL_ENTER pid=1 tid=1",
    "[5.000001000] IOCTL_ENTER pid=1 tid=1 cmd=0x1ffffffff",
    "[5.000001000] IOCTL_ENTER pid=1 tid=1 =5",
    "[5.0000010000000000] IOCTL_ENTER pid=1 tid=1",
    "[5.000001000] IOCTL_ENTER pid=1 tid=" + "9" * 100000,
]


# NVIDIA's ioctls, as grtrace-bpf-annotate prints them, after cpu.txt: on
# a thread that submits jobs, between its DRM ioctls, and on others; one
# EXIT without a name; a line with a bad drv= (skipped)
NVIDIA = [
    "[5.000200000] IOCTL_ENTER pid=1234 tid=1235 comm=glxgears cmd=0xc020462a"
    " arg=0x7ffc00001235 drv=nvidia dev=nvidia0 name=RM_CONTROL",
    "[5.000210000] IOCTL_EXIT pid=1234 tid=1235 comm=glxgears cmd=0xc020462a"
    " ret=0 duration_ns=10000 drv=nvidia dev=nvidia0 name=RM_CONTROL",
    "[5.000300000] IOCTL_ENTER pid=1234 tid=1238 comm=nvapp cmd=0xc030462b"
    " arg=0x7ffc00001238 drv=nvidia dev=nvidiactl name=RM_ALLOC",
    "[5.000305000] IOCTL_EXIT pid=1234 tid=1238 comm=nvapp cmd=0xc030462b"
    " ret=0 duration_ns=5000 drv=nvidia dev=nvidiactl name=RM_ALLOC",
    "[5.000320000] IOCTL_EXIT pid=1234 tid=1239 comm=nvapp cmd=0xc0104629"
    " ret=0 duration_ns=1000 drv=nvidia",
    "[5.000400000] IOCTL_ENTER pid=1234 tid=1240 comm=nvapp cmd=0xc020462a"
    " arg=0x0 drv=nv,idia",
]


def stamp(ns, digits=9):
    if digits == 9:
        return "[%d.%09d]" % (ns // 10**9, ns % 10**9)
    return "[%d.%06d]" % (ns // 10**9, (ns % 10**9) // 1000)


def cpu_lines(shift=0, digits=9):
    """Lines of the annotator, and the line number of each ioctl's
    first line."""
    ev = []
    for key, pid, tid, comm, cmd, enter, exit_, ret in IOCTLS:
        if enter is not None:
            ev.append((T0 + enter * 1000, 0, key,
                       "IOCTL_ENTER pid=%d tid=%d comm=%s cmd=0x%08x arg=0x7ffc0000%04x"
                       % (pid, tid, comm, cmd, tid)))
        if exit_ is not None:
            start = enter if enter is not None else C_ENTER[key]
            ev.append((T0 + exit_ * 1000, 1, key,
                       "IOCTL_EXIT pid=%d tid=%d comm=%s cmd=0x%08x ret=%d duration_ns=%d"
                       % (pid, tid, comm, cmd, ret, (exit_ - start) * 1000)))
    ev.sort()
    lines = ["# grtrace-bpf-annotate 0.1: DRM ioctls, clock CLOCK_MONOTONIC ns (synthetic)"]
    first = {}
    for ts, _, key, text in ev:
        lines.append("%s %s" % (stamp(ts + shift, digits), text))
        first.setdefault(key, len(lines))
    # a key a newer annotator may add: ignored
    lines[-1] += " foo=bar"
    return lines, first


def expected(first):
    io = {k: (enter, exit_) for k, _, _, _, _, enter, exit_, _ in IOCTLS}
    out = []
    for j in JOBS:
        t = {typ: us * 1000 for typ, us in j["ev"]}
        w = dict(fence="%d:%d" % j["fence"], pid=j["pid"], tgid=j["tgid"],
                 matched=int("io" in j), why=j.get("why", "matched"))
        start = START if START in t else COMMIT if COMMIT in t else None
        w["start_is_commit"] = int(start == COMMIT)
        w["submit_to_start_ns"] = t[start] - t[SUBMIT] if start is not None and SUBMIT in t else None
        w["start_to_end_ns"] = t[END] - t[start] if start is not None and END in t else None
        if "io" in j:
            enter, exit_ = io[j["io"]]
            enter = C_ENTER.get(j["io"], enter)
            w["ioctl_line"] = first[j["io"]]
            w["ioctl_to_submit_ns"] = t[SUBMIT] - enter * 1000
            w["submit_to_ioctl_exit_ns"] = exit_ * 1000 - t[SUBMIT] if exit_ is not None else None
        else:
            w.update(ioctl_line=None, ioctl_to_submit_ns=None, submit_to_ioctl_exit_ns=None)
        out.append(w)
    return out


def write(path, lines):
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    gs.JOBS = [dict(j, want={}) for j in JOBS]
    gs.RING_EVENTS = [(1, gs.IRQ, 121), (0, gs.IRQ, 92)]
    recs = gs.session(gap_at=-1)
    with open(os.path.join(out, "gpu.bin"), "wb") as f:
        f.write(gs.raw(recs))

    gs.JOBS = [dict(j, want={}) for j in NOEND]
    gs.RING_EVENTS = []
    with open(os.path.join(out, "noend.bin"), "wb") as f:
        f.write(gs.raw(gs.session(gap_at=-1)))
    gs.JOBS = [dict(j, want={}) for j in MEDIAN]
    with open(os.path.join(out, "median.bin"), "wb") as f:
        f.write(gs.raw(gs.session(gap_at=-1)))

    gs.JOBS = [dict(j, want={}) for j in MANY]
    with open(os.path.join(out, "many.bin"), "wb") as f:
        f.write(gs.raw(gs.session(gap_at=-1)))

    gs.JOBS = [dict(j, want={}) for j in LONG]
    with open(os.path.join(out, "long.bin"), "wb") as f:
        f.write(gs.raw(gs.session(gap_at=-1)))

    lines, first = cpu_lines()
    write(os.path.join(out, "cpu.txt"), lines)
    write(os.path.join(out, "cpu-nvidia.txt"), lines + NVIDIA)
    write(os.path.join(out, "cpu-usec.txt"), cpu_lines(digits=6)[0])
    write(os.path.join(out, "cpu-shift.txt"), cpu_lines(shift=1000000)[0])
    with open(os.path.join(out, "cpu-bad.txt"), "w") as f:
        f.write("\n".join(BAD) + "\n")
        f.write("[5.000001000] IOCTL_ENTER pid=1 tid=1 comm=nul\0byte\n")
        f.write("\n".join(lines) + "\n")
    write(os.path.join(out, "comments.txt"), ["# nothing", "", "   "])
    open(os.path.join(out, "empty.txt"), "w").close()
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump({"jobs": expected(first), "bad_lines": list(range(1, len(BAD) + 2)),
                   "offset_of_bad": len(BAD) + 1, "ioctls": len(IOCTLS)}, f, indent=1)


if __name__ == "__main__":
    main()
