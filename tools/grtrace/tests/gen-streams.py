#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Write synthetic grtrace streams for the grtrace tool's tests.

usage: gen-streams.py OUTDIR

OUTDIR/valid/events{0,1}.bin  a two-CPU session: 3 rings on 2 devices, 6
                              jobs with a dependency, a preemption, an
                              error, an incomplete job, IRQs and 2 lost
                              records (gseq gaps)
OUTDIR/fakefs/                a stand-in for /sys/kernel/debug/grtrace
                              holding the same session (for record)
OUTDIR/newer.bin              format 2: longer payloads, an unknown type
OUTDIR/older.bin              job payloads shorter than today's
OUTDIR/jobless.bin            virtio-gpu style in-fence waits: SYNC_WAIT
                              records of no job (fence 0:0) before the
                              SUBMIT of the waiting thread, see JOBLESS
OUTDIR/summary.bin            aggregate_only: SUMMARY records of 2 rings
                              over 3 windows, one ring idle in the
                              second, the last window cut short by the
                              stop, and an ERROR; see SUMMARIES
OUTDIR/contexts.bin           as grtrace probe writes it: the contexts of
                              GR_TOOL_CTX records (create, schedule,
                              destroy, an id reused) and their jobs, see
                              CONTEXTS
OUTDIR/<name>.bin             corrupt inputs, see CORRUPT
OUTDIR/expected.json          the jobs, times in ns, as report must show
                              them; and per corrupt file the byte offset
                              the error must name (null: any)
"""
import json
import os
import random
import struct
import sys

T0 = 5_000_000_000          # session start, CLOCK_MONOTONIC ns
SESSION = 0x1234abcd5678ef90
MAGIC = 0x52544752

SUBMIT, COMMIT, START, END, COMPLETE, CTX_SWITCH, IRQ, WAIT_ENTER, \
    WAIT_EXIT, ERROR = range(10)
STREAM_INFO, METADATA, SUMMARY = 0x100, 0x101, 0x103
TOOL_CTX = 0xff01
CREATE, SCHEDULE, DESTROY = range(3)
PREEMPT = 1
ETIME = 62

RINGS = [  # id, engine, dev, name
    (0, 0, "virtio0", "ctrlq"),
    (1, 0, "0000:03:00.0", "gfx_0.0.0"),
    (2, 2, "0000:03:00.0", "sdma0"),
]

# Jobs: ring, fence (ctx, seqno), ctx_id, pid, tgid, comm, events as
# (type, time in us from T0, extra payload fields), and what report shows.
JOBS = [
    dict(ring=1, fence=(100, 1), ctx=7, pid=1234, tgid=1234, comm="glxgears",
         ev=[(SUBMIT, 10), (COMMIT, 15), (START, 20), (END, 120), (COMPLETE, 125)],
         want=dict(t_submit_host=5, t_device=105, t_queue=5, t_exec=100,
                   t_gpu_wait=None, t_complete=5, latency=115, status="ok",
                   labels="")),
    dict(ring=2, fence=(200, 1), ctx=9, pid=555, tgid=550, comm="Xorg",
         ev=[(SUBMIT, 5), (START, 40), (END, 58), (COMPLETE, 59)],
         want=dict(t_submit_host=0, t_device=53, t_queue=35, t_exec=18,
                   t_gpu_wait=None, t_complete=1, latency=54, status="ok",
                   labels="")),
    dict(ring=1, fence=(100, 2), ctx=7, pid=1235, tgid=1234, comm="glxgears",
         ev=[(SUBMIT, 30), (COMMIT, 32), (WAIT_ENTER, 33, dict(aux=(200, 1))),
             (WAIT_EXIT, 60, dict(aux=(200, 1))), (START, 130), (END, 180),
             (COMPLETE, 181)],
         want=dict(t_submit_host=2, t_device=148, t_queue=98, t_exec=50,
                   t_gpu_wait=27, t_complete=1, latency=151, status="ok",
                   labels="", waits_on="200:1")),
    dict(ring=1, fence=(100, 3), ctx=8, pid=1234, tgid=1234, comm="glxgears",
         ev=[(SUBMIT, 200), (COMMIT, 201), (START, 700),
             (CTX_SWITCH, 800, dict(aux=(9, 0), flags=PREEMPT)), (END, 5700),
             (COMPLETE, 5702)],
         want=dict(t_submit_host=1, t_device=5499, t_queue=499, t_exec=5000,
                   t_gpu_wait=None, t_complete=2, latency=5502, status="ok",
                   labels="long-queue,slow-exec,preempted")),
    dict(ring=0, fence=(300, 1), ctx=3, pid=42, tgid=42, comm="kworker/u4:1",
         ev=[(SUBMIT, 400), (COMMIT, 401), (START, 402),
             (ERROR, 900, dict(status=1)), (COMPLETE, 901, dict(status=-ETIME))],
         want=dict(t_submit_host=1, t_device=500, t_queue=1, t_exec=499,
                   t_gpu_wait=None, t_complete=0, latency=501, status="-ETIME",
                   labels="error")),
    dict(ring=1, fence=(100, 4), ctx=7, pid=1234, tgid=1234, comm="glxgears",
         ev=[(SUBMIT, 6000), (COMMIT, 6001)],
         want=dict(t_submit_host=1, t_device=None, t_queue=None, t_exec=None,
                   t_gpu_wait=None, t_complete=None, latency=None,
                   status="pending", labels="incomplete")),
]

# virtio-gpu in-fence waits (jobless.bin), on ring 0: SYNC_WAIT records with
# fence 0:0, the waiting thread and context, the fence waited for in aux,
# then the thread's SUBMIT.  Events as (time in us, type, payload fields);
# the jobs as report must show them (t_gpu_wait in us).
KMS = dict(pid=100, tgid=100, comm="kmscube")
KMS2 = dict(pid=101, tgid=100, comm="kmscube")
KMS3 = dict(pid=102, tgid=100, comm="kmscube")
KW = dict(pid=7, tgid=7, comm="kworker/0:1")


def cmd(t, fence, ctx, who, end=20):
    """SUBMIT, COMMIT, END, COMPLETE of a command from t us"""
    return [(t, SUBMIT, dict(fence=fence, ctx=ctx, depth=1, **who)),
            (t + 1, COMMIT, dict(fence=fence, ctx=ctx)),
            (t + end - 1, END, dict(fence=fence, ctx=ctx)),
            (t + end, COMPLETE, dict(fence=fence, ctx=ctx))]


def wait(t, typ, ctx, who, aux, status=0):
    return (t, typ, dict(ctx=ctx, aux=aux, status=status, **who))


JOBLESS = [
    # waited 30 us; other threads submit meanwhile
    wait(10, WAIT_ENTER, 2, KMS, (500, 7)),
    *cmd(20, (300, 2), 0, KW, 10),
    *cmd(35, (300, 3), 2, KMS2, 17),
    wait(40, WAIT_EXIT, 2, KMS, (500, 7)),
    *cmd(41, (300, 1), 2, KMS),
    # interrupted (-ERESTARTSYS), the ioctl restarted and waited 19 us
    wait(100, WAIT_ENTER, 2, KMS, (500, 8)),
    wait(110, WAIT_EXIT, 2, KMS, (500, 8), -512),
    wait(111, WAIT_ENTER, 2, KMS, (500, 8)),
    wait(130, WAIT_EXIT, 2, KMS, (500, 8)),
    *cmd(131, (300, 4), 2, KMS),
    # interrupted (-EINTR), and no SUBMIT of that context follows
    wait(200, WAIT_ENTER, 2, KMS, (500, 9)),
    wait(205, WAIT_EXIT, 2, KMS, (500, 9), -4),
    *cmd(210, (300, 5), 3, KMS, 11),
    # two in-fences, the first one the fence of job 300:1
    wait(300, WAIT_ENTER, 2, KMS3, (300, 1)),
    wait(310, WAIT_EXIT, 2, KMS3, (300, 1)),
    wait(311, WAIT_ENTER, 2, KMS3, (500, 11)),
    wait(321, WAIT_EXIT, 2, KMS3, (500, 11)),
    *cmd(322, (300, 6), 2, KMS3),
    *cmd(400, (300, 7), 2, KW, 11),
]
JOBLESS_WANT = {"300:1": (30, "500:7"), "300:2": (None, ""), "300:3": (None, ""),
                "300:4": (19, "500:8"), "300:5": (None, ""),
                "300:6": (20, "300:1 500:11"), "300:7": (None, "")}
JOBLESS_CTX = {"ctx 0 kworker/0:1[7]": 1, "ctx 2 kmscube[100] +1 kworker": 5,
               "ctx 3 kmscube[100]": 1}

# late.bin: JOBLESS and commands submitted before the recording began (no
# SUBMIT): one of context 2, which counts in its context and names no one,
# and the only one of context 4, which is named by its number alone.
LATE = JOBLESS + cmd(1, (300, 8), 2, KMS, 3)[1:] + cmd(2, (300, 9), 4, KMS, 3)[1:]
LATE_CTX = dict(JOBLESS_CTX, **{"ctx 2 kmscube[100] +1 kworker": 6, "ctx 4": 1})

# threads.bin: a process whose threads have names of their own (Mesa's
# disk cache thread first, as kmscube's on virgl), and a kernel worker: a
# process is its tgid, named as its leader (pid = tgid) names it.
DISK = dict(pid=103, tgid=100, comm="kmscube:disk$0")
THREADS = cmd(10, (300, 1), 2, DISK) + cmd(40, (300, 2), 2, KMS) + cmd(70, (300, 3), 2, KMS2) + \
    cmd(100, (300, 4), 0, KW)

# contexts.bin, on ring 1 (the probe's first ring, virtio-gpu/control):
# GR_TOOL_CTX records as (time in us, what, ctx, attrs, who) and jobs as
# cmd() makes them.  Context 1 is destroyed (its own last command, the
# destroy's, comes after), then created again; 5 is only scheduled (alive
# when the recording began, one of its jobs before that record); 0 is no
# context (2D commands); 9 has no job.
GL = dict(pid=200, tgid=200, comm="glmark2-es2-drm")
XO = dict(pid=300, tgid=300, comm="Xorg")
CONTEXTS = [
    (5, CREATE, 1, "name=kmscube init=0", KMS),
    (20, CREATE, 2, "name=glmark2-es2-drm init=0", GL),
    (50, SCHEDULE, 1, "", KMS),
    (100, DESTROY, 1, "", KMS),
    (150, CREATE, 1, "name=Xorg init=2", XO),
    (200, SCHEDULE, 5, "prio=3", KW),
    (400, DESTROY, 1, "", XO),
    (500, CREATE, 9, "", KW),
]
CTX_JOBS = [
    *cmd(10, (1, 1), 1, KMS),
    *cmd(25, (1, 2), 2, GL, 15),
    *cmd(30, (1, 3), 0, KW, 10),
    *cmd(40, (1, 4), 1, KMS, 30),
    *cmd(60, (1, 5), 2, GL, 25),
    *cmd(101, (1, 6), 1, KMS, 10),
    *cmd(160, (1, 7), 1, XO, 50),
    *cmd(190, (1, 8), 5, KW),
    cmd(300, (1, 9), 2, GL)[0],
]
# The contexts table of report -f json (times in ns from T0)
CTX_TABLE = [
    dict(ctx=1, ring="virtio-gpu/control", created=5000, destroyed=100_000,
         schedules=1, jobs=3, lat_avg=20_000, lat_total=60_000,
         attrs="name=kmscube init=0"),
    dict(ctx=2, ring="virtio-gpu/control", created=20_000, destroyed=None,
         schedules=0, jobs=3, lat_avg=20_000, lat_total=40_000,
         attrs="name=glmark2-es2-drm init=0"),
    dict(ctx=1, ring="virtio-gpu/control", created=150_000, destroyed=400_000,
         schedules=0, jobs=1, lat_avg=50_000, lat_total=50_000, attrs="name=Xorg init=2"),
    dict(ctx=5, ring="virtio-gpu/control", created=None, destroyed=None,
         schedules=1, jobs=1, lat_avg=20_000, lat_total=20_000, attrs="prio=3"),
    dict(ctx=9, ring="", created=500_000, destroyed=None, schedules=0, jobs=0,
         lat_avg=None, lat_total=None, attrs=""),
]

# Events of no job: IRQs, a context switch without preemption
RING_EVENTS = [(1, IRQ, 121), (1, IRQ, 181), (1, CTX_SWITCH, 5800)]

STATS = """enabled=0
session_id=%016x
offered=40
written=35
dropped=5
dropped_filtered=3
dropped_overrun=2
bytes_written=3920
bytes_dropped=560
bytes_read=0
""" % SESSION


# aggregate_only (summary.bin): windows of 100 ms from T0, the last one cut
# at 50 ms by the stop.  Per window and ring: jobs, latency sum and max,
# device time sum, queue depth sum over depth_n SUBMITs and peak, errors,
# dropped (by cause: overrun, aggregated).
WINDOW = 100_000_000
SUMMARIES = [  # window, ring, fields
    (0, 1, dict(jobs=50, lat_sum=10_000_000, lat_max=900_000, dev_sum=40_000_000,
                depth_sum=120, depth_n=50, depth_peak=5, errors=0, overrun=0)),
    (0, 2, dict(jobs=10, lat_sum=500_000, lat_max=80_000, dev_sum=300_000,
                depth_sum=10, depth_n=10, depth_peak=1, errors=0, overrun=0)),
    (1, 1, dict(jobs=20, lat_sum=30_000_000, lat_max=9_000_000, dev_sum=95_000_000,
                depth_sum=150, depth_n=21, depth_peak=12, errors=1, overrun=3)),
    (2, 1, dict(jobs=5, lat_sum=1_250_000, lat_max=400_000, dev_sum=1_000_000,
                depth_sum=5, depth_n=5, depth_peak=1, errors=0, overrun=0)),
    (2, 2, dict(jobs=1, lat_sum=70_001, lat_max=70_001, dev_sum=3_333,
                depth_sum=2, depth_n=3, depth_peak=1, errors=0, overrun=0)),
]
SUMMARY_ERROR = (1, 150_000)   # ring, time in us: a timeout, written
SUMMARY_END = 250_000_000      # the stop, ns from T0


def header(typ, size, cpu, ts, gseq, cseq):
    return struct.pack("<HHIQQQ", typ, size, cpu, ts, gseq, cseq)


def record(typ, payload, cpu, ts, gseq, cseq, extra=b""):
    payload += extra
    return header(typ, 32 + len(payload), cpu, ts, gseq, cseq) + payload


def stream_info(version=1, extra=b"", magic=MAGIC, session=SESSION, header=32, cpus=2):
    return struct.pack("<IHHQQQQIIII", magic, version, header, session, 3, T0,
                       1_700_000_000_123_456_789, 1, cpus, len(RINGS), 4 << 20) + extra


def ring_info(rid, engine, dev, name, extra=b""):
    return struct.pack("<IHH32s32s", rid, engine, 0, dev.encode(),
                       name.encode()) + extra


def job_payload(ring, fence=(0, 0), ctx=0, aux=(0, 0), flags=0, status=0,
                depth=0, pid=0, tgid=0, comm="", client=0):
    engine = RINGS[ring][1]
    return struct.pack("<QQQQQIHHiIII16sQ", ctx, fence[0], fence[1], aux[0],
                       aux[1], ring, engine, flags, status, depth, pid, tgid,
                       comm.encode(), client)


def timeline():
    """Every event as (time ns, type, payload), sorted by time."""
    out = []
    for j in JOBS:
        for e in j["ev"]:
            typ, t = e[0], e[1]
            kw = dict(e[2]) if len(e) > 2 else {}
            if typ == SUBMIT:
                # A DRM client per submitting context, as a file has
                kw.update(pid=j["pid"], tgid=j["tgid"], comm=j["comm"], depth=1,
                          client=1000 + j["ctx"])
            out.append((T0 + t * 1000, typ,
                        job_payload(j["ring"], j["fence"], j["ctx"], **kw)))
    for ring, typ, t in RING_EVENTS:
        out.append((T0 + t * 1000, typ, job_payload(ring)))
    out.sort(key=lambda e: e[0])
    return out


def session(job_extra=b"", job_cut=None, version=1, info_extra=b"",
            unknown_at=None, gap_at=7):
    """Records of a session as (cpu, bytes), in gseq order."""
    recs = []
    cseq = [0, 0]
    gseq = 0

    def add(cpu, typ, payload, ts, extra=b""):
        nonlocal gseq
        gseq += 1
        cseq[cpu] += 1
        recs.append((cpu, record(typ, payload, cpu, ts, gseq, cseq[cpu], extra)))

    add(0, STREAM_INFO, stream_info(version, info_extra), T0 - 500)
    for r in RINGS:
        add(0, METADATA, ring_info(*r), T0 - 400, info_extra)
    for i, (ts, typ, payload) in enumerate(timeline()):
        if job_cut is not None:
            payload = payload[:job_cut]
        add(i % 2, typ, payload, ts, job_extra)
        if i == gap_at:         # two records of CPU 1 lost
            gseq += 2
            cseq[1] += 2
        if i == unknown_at:
            add(0, 0x222, b"\xab" * 16, ts)
    return recs


def raw(recs):
    return b"".join(r for _, r in recs)


def backwards():
    """back.bin: two jobs whose clock went back, their events 1 us apart
    downwards (the second's COMPLETE 1 ns further), in the order they were
    written"""
    recs = [record(STREAM_INFO, stream_info(), 0, T0 - 500, 1, 1),
            record(METADATA, ring_info(*RINGS[0]), 0, T0 - 400, 2, 2)]
    for seq, t0, late in ((1, 10000, 0), (2, 20000, 1)):
        job = dict(fence=(300, seq), ctx=2)
        for t, typ, kw in ((t0, SUBMIT, dict(depth=1, **job, **KMS)),
                           (t0 - 1000, COMMIT, job), (t0 - 2000, END, job),
                           (t0 - 3000 - late, COMPLETE, job)):
            n = len(recs) + 1
            recs.append(record(typ, job_payload(0, **kw), 0, T0 + t, n, n))
    return b"".join(recs)


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def jobless(events=JOBLESS):
    """jobless.bin: one CPU, the ring of the virtio device only"""
    recs = [record(STREAM_INFO, stream_info(), 0, T0 - 500, 1, 1),
            record(METADATA, ring_info(*RINGS[0]), 0, T0 - 400, 2, 2)]
    for t, typ, kw in sorted(events, key=lambda e: e[0]):
        n = len(recs) + 1
        recs.append(record(typ, job_payload(0, **kw), 0, T0 + t * 1000, n, n))
    return b"".join(recs)


def contexts():
    """contexts.bin: as grtrace probe writes it, one CPU, ring 1"""
    recs = [record(STREAM_INFO, stream_info(), 0, T0 - 500, 1, 1),
            record(METADATA, ring_info(1, 0, "virtio-gpu", "control"), 0, T0 - 500, 2, 2)]
    ev = [(t, 0, typ, job_payload(1, **kw)) for t, typ, kw in CTX_JOBS]
    for t, what, ctx, attrs, who in CONTEXTS:
        ring = 0 if ctx == 9 else 1
        ev.append((t, 1, TOOL_CTX, struct.pack(
            "<QIHHII16s64s", ctx, ring, what, 0, who["pid"], who["tgid"],
            who["comm"].encode(), attrs.encode())))
    for t, _, typ, payload in sorted(ev, key=lambda e: e[:2]):
        n = len(recs) + 1
        recs.append(record(typ, payload, 0, T0 + t * 1000, n, n))
    return b"".join(recs)


def summary_payload(win, ring, f):
    """struct grtrace_summary of a window of SUMMARIES"""
    start = win * WINDOW
    length = min(WINDOW, SUMMARY_END - start)
    dropped = [0] * 16             # by enum grtrace_summary_drop
    dropped[1] = f["overrun"]      # GRTRACE_SUMMARY_DROP_OVERRUN
    dropped[6] = 6 * f["jobs"]     # _AGGREGATED: counted, not written
    hist = [0] * 32
    hist[f["lat_max"].bit_length() - 1] = f["jobs"]
    return struct.pack("<IIQQQQQQQQQQQQQQQ16Q32I", ring, 0, T0 + start, length,
                       6 * f["jobs"] + f["errors"], f["jobs"], f["lat_sum"], 1000,
                       f["lat_max"], f["jobs"], f["dev_sum"], 100, f["dev_sum"],
                       f["depth_sum"], f["depth_n"], f["depth_peak"], f["errors"],
                       *dropped, *hist)


def summary():
    """summary.bin: one CPU; each window's records after its end"""
    recs = []

    def add(typ, payload, ts):
        n = len(recs) + 1
        recs.append(record(typ, payload, 0, ts, n, n))

    add(STREAM_INFO, stream_info(), T0 - 500)
    for r in RINGS[1:]:
        add(METADATA, ring_info(*r), T0 - 400)
    ev = [(T0 + min((w + 1) * WINDOW, SUMMARY_END) + 7, SUMMARY,
           summary_payload(w, ring, f)) for w, ring, f in SUMMARIES]
    ring, t = SUMMARY_ERROR
    ev.append((T0 + t * 1000, ERROR, job_payload(ring, (100, 9), 7, status=1)))
    for ts, typ, payload in sorted(ev, key=lambda e: e[0]):
        add(typ, payload, ts)
    return b"".join(recs)


def summary_counters():
    """the counters export --chrome must write of summary.bin: per counter
    name, (time in us, value) in time order, values to 3 decimals; zeros
    where a ring has no window (idle, or after the last)"""
    names = ("completed", "jobs/s"), ("latency avg", "us"), ("latency max", "us"), \
        ("busy", "%"), ("queue avg", "jobs"), ("queue peak", "jobs"), \
        ("errors", "in window")
    want = {}
    end = {}
    for w, ring, f in SUMMARIES:
        start = w * WINDOW
        length = min(WINDOW, SUMMARY_END - start)
        rname = RINGS[ring][3]
        if ring in end and end[ring] < start:
            for n, _ in names:
                want["%s %s" % (rname, n)].append((end[ring] / 1000, 0))
        vals = (f["jobs"] * 1e9 / length, f["lat_sum"] / f["jobs"] / 1000,
                f["lat_max"] / 1000, 100 * f["dev_sum"] / length,
                f["depth_sum"] / f["depth_n"], f["depth_peak"], f["errors"])
        for (n, _), v in zip(names, vals):
            want.setdefault("%s %s" % (rname, n), []).append((start / 1000, round(v, 3)))
        end[ring] = start + length
    for ring, t in end.items():
        for n, _ in names:
            want["%s %s" % (RINGS[ring][3], n)].append((t / 1000, 0))
    return {"series": dict(names), "counters": want}


ENGINES = ["graphics", "compute", "copy", "video_decode", "video_encode", "other"]


def expected_jobs():
    jobs = []
    for j in JOBS:
        w = dict(j["want"])
        for k in list(w):
            if k.startswith("t_") or k == "latency":
                w[k] = None if w[k] is None else w[k] * 1000
        w.update(ring="%s/%s" % (RINGS[j["ring"]][2], RINGS[j["ring"]][3]),
                 engine=ENGINES[RINGS[j["ring"]][1]],
                 fence="%d:%d" % j["fence"], ctx=j["ctx"], pid=j["pid"],
                 comm=j["comm"], time=j["ev"][0][1] * 1000)
        w.setdefault("waits_on", "")
        jobs.append(w)
    jobs.sort(key=lambda w: w["time"])
    return jobs


MANY_RINGS = 66_000     # more than a u16 numbers


def manyrings(n, devs=False):
    """manyrings.bin: one CPU, rings 1..n described, a job on each; devs:
    each ring on a device of its own (manydevs.bin)"""
    recs = [record(STREAM_INFO, stream_info(), 0, T0 - 500, 1, 1)]
    for i in range(1, n + 1):
        k = len(recs) + 1
        dev = "d%d" % i if devs else "mock"
        recs.append(record(METADATA, ring_info(i, 0, dev, "q%d" % i), 0,
                           T0 + i * 1000, k, k))
        for typ, dt in ((SUBMIT, 0), (COMPLETE, 500)):
            k = len(recs) + 1
            p = struct.pack("<QQQQQIHHiIII16sQ", i, 7, 1, 0, 0, i, 0, 0, 0, 0,
                            4242, 4242, b"many", 0)
            recs.append(record(typ, p, 0, T0 + i * 1000 + dt, k, k))
    return b"".join(recs)


def main():
    out = sys.argv[1]
    os.makedirs(os.path.join(out, "valid"), exist_ok=True)
    os.makedirs(os.path.join(out, "fakefs"), exist_ok=True)

    recs = session()
    for cpu in (0, 1):
        data = b"".join(r for c, r in recs if c == cpu)
        write(os.path.join(out, "valid", "events%d.bin" % cpu), data)
        write(os.path.join(out, "fakefs", "events%d" % cpu), data)
    fake = {"control": "stopped\n", "stats": STATS,
            "config": "level=normal\nfilter_type_mask=0x3ff\n"
                      "filter_engine_mask=0x3f\nfilter_ring_id=-1\nreset_stats=0\n",
            "buffer_size": "4194304\n",
            "events_by_type": "".join("%s=0\n" % n for n in (
                "submit", "commit", "start", "end", "complete", "ctx_switch",
                "irq", "sync_wait_enter", "sync_wait_exit", "error")),
            "rings": "# id engine dev ring\n" + "".join(
                "%d %s %s %s\n" % (r[0], ["graphics", "", "copy"][r[1]], r[2], r[3])
                for r in RINGS)}
    for name, text in fake.items():
        write(os.path.join(out, "fakefs", name), text.encode())
    whole = raw(recs)

    write(os.path.join(out, "newer.bin"),
          raw(session(job_extra=b"\x5a" * 16, version=2, info_extra=b"\x00" * 16,
                      unknown_at=3)))
    write(os.path.join(out, "back.bin"), backwards())
    write(os.path.join(out, "older.bin"), raw(session(job_cut=64)))
    write(os.path.join(out, "jobless.bin"), jobless())
    write(os.path.join(out, "late.bin"), jobless(LATE))
    write(os.path.join(out, "summary.bin"), summary())
    write(os.path.join(out, "contexts.bin"), contexts())
    write(os.path.join(out, "threads.bin"), jobless(THREADS))

    corrupt = {}

    def bad(name, data, offset):
        write(os.path.join(out, name + ".bin"), data)
        corrupt[name] = offset

    sizes = [len(r) for _, r in recs]
    last = len(whole) - sizes[-1]
    bad("truncated", whole[:-40], last)
    third = sizes[0] + sizes[1]
    b = bytearray(whole)
    struct.pack_into("<H", b, third + 2, 20)
    bad("badsize", bytes(b), third)
    struct.pack_into("<H", b, third + 2, 51)
    bad("oddsize", bytes(b), third)
    b = bytearray(whole)
    struct.pack_into("<H", b, 2, 0)
    bad("zerosize", bytes(b), 0)
    b = bytearray(whole[:200])
    struct.pack_into("<H", b, 2, 0xfff8)
    bad("bigsize", bytes(b), 0)
    # A size damaged into another valid one: the reader jumps past the
    # damage and stops where the bytes make no record.
    b = bytearray(whole)
    struct.pack_into("<H", b, third + 2, 256)
    struct.pack_into("<H", b, third + 256 + 2, 20)
    bad("jumped", bytes(b), third + 256)
    bad("badmagic", record(STREAM_INFO, stream_info(magic=0), 0, T0, 1, 1), 0)
    bad("badheader", record(STREAM_INFO, stream_info(header=65535), 0, T0, 1, 1) +
        whole[sizes[0]:], 0)
    bad("badcpus", record(STREAM_INFO, stream_info(cpus=0xffffffff), 0, T0, 1, 1) +
        whole[sizes[0]:], 0)
    # Written by a host of the other byte order: every field swapped.
    info = struct.pack(">IHHQQQQIIII", MAGIC, 1, 32, SESSION, 3, T0,
                       1_700_000_000_123_456_789, 1, 2, len(RINGS), 4 << 20)
    bad("byteswapped", struct.pack(">HHIQQQ", STREAM_INFO, 32 + len(info), 0,
                                   T0, 1, 1) + info + whole[sizes[0]:], 0)
    bad("dup", whole + whole, len(whole))
    # The kernel numbers rings without a cap: a far id reads like any.
    b = bytearray(whole)
    struct.pack_into("<I", b, third + 32, 0x7fffffff)
    write(os.path.join(out, "farring.bin"), bytes(b))
    write(os.path.join(out, "manyrings.bin"), manyrings(MANY_RINGS))
    write(os.path.join(out, "manydevs.bin"), manyrings(MANY_RINGS, devs=True))
    # Two recordings end to end: report reads each, the others refuse it
    write(os.path.join(out, "twosessions.bin"),
          whole + record(STREAM_INFO, stream_info(session=7), 0, T0, 999, 99))
    bad("empty", b"", 0)
    bad("short", whole[:20], 0)
    rnd = random.Random(1)
    bad("random", bytes(rnd.getrandbits(8) for _ in range(4096)), None)

    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump({"jobs": expected_jobs(), "corrupt": corrupt,
                   "jobless": {f: dict(t_gpu_wait=w and w * 1000, waits_on=on)
                               for f, (w, on) in JOBLESS_WANT.items()},
                   "jobless_ctx": JOBLESS_CTX, "late_ctx": LATE_CTX,
                   "summary": summary_counters(), "ctxtable": CTX_TABLE,
                   "session_id": "%016x" % SESSION, "lost_records": 2,
                   "records": len(recs)}, f, indent=1)


if __name__ == "__main__":
    main()
