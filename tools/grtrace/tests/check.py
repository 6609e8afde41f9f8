#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks of grtrace output for run-tests.sh; exit status 0 when it holds.

usage: check.py CHECK EXPECTED.json OUTPUT [ARGS...]

EXPECTED.json is - for the checks that hold for any input (nesting, names).
"""
import csv
import json
import os
import re
import struct
import sys

FIELDS = ("time", "ring", "engine", "fence", "ctx", "pid", "comm",
          "t_submit_host", "t_device", "t_queue", "t_exec", "t_gpu_wait",
          "t_complete", "latency", "status", "labels", "waits_on")


def fail(msg):
    print("  " + msg, file=sys.stderr)
    sys.exit(1)


def same_jobs(got, want, skip=()):
    if len(got) != len(want):
        fail("%d jobs, expected %d" % (len(got), len(want)))
    for g, w in zip(got, want):
        for k in FIELDS:
            if k in skip:
                continue
            if g.get(k) != w.get(k):
                fail("job %s: %s is %r, expected %r" % (w["fence"], k, g.get(k), w.get(k)))


def check_json(exp, out, *args):
    """report -f json: every job, the session header"""
    d = json.load(open(out))
    skip = args[0].split(",") if args else ()
    same_jobs(d["jobs"], exp["jobs"], skip)
    s = d["session"]
    if s["session_id"] != exp["session_id"] or s["lost_records"] != exp["lost_records"]:
        fail("session header: %r" % s)
    if [r["name"] for r in d["rings"]] != ["ctrlq", "gfx_0.0.0", "sdma0"]:
        fail("rings: %r" % d["rings"])


def check_csv(exp, out):
    """report -f csv: every job, times in ns, empty cells for none"""
    rows = list(csv.DictReader(open(out)))
    got = []
    for r in rows:
        g = {}
        for k in FIELDS:
            v = r[k]
            if k in ("time", "ctx", "pid") or k.startswith("t_") or k == "latency":
                v = int(v) if v != "" else None
            g[k] = v
        got.append(g)
    same_jobs(got, exp["jobs"])


def check_fences(exp, out, fences):
    """the jobs of a json report are these fences, in this order"""
    got = [j["fence"] for j in json.load(open(out))["jobs"]]
    if got != (fences.split(",") if fences else []):
        fail("jobs %r, expected %s" % (got, fences))


def check_groups(exp, out):
    """--per-ring --per-context --per-process"""
    d = json.load(open(out))
    ring = {g["group"]: g for g in d["per_ring"]}
    gfx = ring["0000:03:00.0/gfx_0.0.0"]
    want = dict(jobs=4, lat_n=3, lat_min=115000, lat_p50=151000,
                lat_p99=5502000, lat_max=5502000, lat_avg=1922667,
                dev_n=3, dev_min=105000, dev_p50=148000, dev_max=5499000,
                exec_n=3, exec_min=50000, exec_p50=100000, exec_max=5000000)
    for k, v in want.items():
        if gfx[k] != v:
            fail("per_ring gfx %s = %r, expected %r" % (k, gfx[k], v))
    ctrlq = ring["virtio0/ctrlq"]
    if ctrlq["exec_avg"] != 499000 or ctrlq["dev_avg"] != 500000:
        fail("per_ring ctrlq: exec and device run to COMPLETE without END: %r" % ctrlq)
    ctx = {g["group"]: g["jobs"] for g in d["per_context"]}
    if ctx != {"0000:03:00.0 ctx 7 glxgears[1234]": 3, "0000:03:00.0 ctx 8 glxgears[1234]": 1,
               "0000:03:00.0 ctx 9 Xorg[550]": 1, "virtio0 ctx 3 kworker/u4:1[42]": 1}:
        fail("per_context %r" % ctx)
    proc = {g["group"]: g["jobs"] for g in d["per_process"]}
    if proc != {"Xorg[550]": 1, "glxgears[1234]": 4, "kworker/u4:1[42]": 1}:
        fail("per_process %r" % proc)


def check_jobless(exp, out):
    """report -f json of jobless.bin: each in-fence wait is its job's"""
    jobs = {j["fence"]: j for j in json.load(open(out))["jobs"]}
    if set(jobs) != set(exp["jobless"]):
        fail("jobs %s, expected %s" % (sorted(jobs), sorted(exp["jobless"])))
    for f, w in exp["jobless"].items():
        got = {k: jobs[f][k] for k in w}
        if got != w:
            fail("job %s: %r, expected %r" % (f, got, w))


def check_contexts(exp, out, key="jobless_ctx"):
    """report --per-context -f json of jobless.bin: named after the clients"""
    ctx = {g["group"]: g["jobs"] for g in json.load(open(out))["per_context"]}
    if ctx != exp[key]:
        fail("per_context %r, expected %r" % (ctx, exp[key]))


def check_late(exp, out):
    """report --per-context -f json of late.bin: a job submitted before the
    recording counts in its context and names no submitter"""
    check_contexts(exp, out, "late_ctx")


def check_ctxtable(exp, out):
    """report -f json of contexts.bin: the contexts table, row for row"""
    got = json.load(open(out)).get("contexts")
    if got != exp["ctxtable"]:
        fail("contexts %r,\n  expected %r" % (got, exp["ctxtable"]))


def check_ctxtext(exp, out):
    """report of contexts.bin: the contexts table in text, times in us; the
    columns before ATTRS (the last one, as wide as the attributes) within
    100"""
    lines = open(out).read().split("\n")
    title = [i for i, line in enumerate(lines) if line.startswith("contexts (")]
    if len(title) != 1:
        fail("%d contexts tables" % len(title))
    rows = lines[title[0] + 2:title[0] + 2 + len(exp["ctxtable"])]
    for r, w in zip(rows, exp["ctxtable"]):
        us = ["-" if w[k] is None else "%d.%03d" % divmod(w[k], 1000)
              for k in ("created", "destroyed", "lat_avg", "lat_total")]
        want = "%6d %-18s %13s %13s %5d %6d %10s %13s %s" % (
            w["ctx"], w["ring"] or "-", us[0], us[1], w["schedules"], w["jobs"], us[2],
            us[3], w["attrs"] or "-")
        if r != want:
            fail("row %r,\n  expected %r" % (r, want))
    if len(rows) != len(exp["ctxtable"]) or lines[title[0] + 2 + len(rows)] != "":
        fail("not %d rows" % len(exp["ctxtable"]))
    if max(len(line) for line in lines[title[0]:title[0] + 2]) > 100:
        fail("title or header wider than 100 columns")


def check_named(exp, out):
    """report --per-context -f json, any input: every context named after
    its processes, "ctx N comm[tgid]..." """
    groups = json.load(open(out))["per_context"]
    for g in groups:
        if not re.fullmatch(r"(\S+ )?ctx \d+( \S+\[\d+\])+( \+\d+)?( \+\d+ kworkers?)?",
                            g["group"]):
            fail("context not named after a process: %r" % g["group"])
    if not groups:
        fail("no context")


def check_hist(exp, out):
    """--hist lat, size and result in one json each"""
    lat, size, res = (json.load(open(f)) for f in out.split(","))
    if sum(b["jobs"] for b in lat["hist_lat"]) != 5:
        fail("hist_lat counts %r" % lat["hist_lat"])
    for b in lat["hist_lat"]:
        if b["to_ns"] != 2 * max(b["from_ns"], 1):
            fail("hist_lat bucket %r" % b)
    sizes = {b["size"]: b["records"] for b in size["hist_size"]}
    if sizes != {88: 1, 104: 3, 120: exp["records"] - 4}:
        fail("hist_size %r" % sizes)
    r = {b["status"]: b["jobs"] for b in res["hist_result"]}
    if r != {"ok": 4, "-ETIME": 1, "pending": 1}:
        fail("hist_result %r" % r)


def ns(us):
    return round(us * 1000)


def chrome_load(out):
    """export --chrome, any input: nests as Perfetto's importer needs (per
    track, slices by start, longest first: each one inside the open one),
    every job covered by its phases end to end, every flow from an earlier
    slice to a later one; the events, with the parent of each slice"""
    ev = json.load(open(out))["traceEvents"]
    x = [e for e in ev if e["ph"] == "X"]
    tracks = {}
    for e in x:
        e["a"], e["b"], e["parent"] = ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), None
        tracks.setdefault((e["pid"], e["tid"]), []).append(e)
    for sl in tracks.values():
        sl.sort(key=lambda e: (e["a"], e["a"] - e["b"]))
        stack = []
        for e in sl:
            while stack and stack[-1]["b"] <= e["a"]:
                stack.pop()
            if stack and e["b"] > stack[-1]["b"]:
                fail("%s %r crosses %s %r" % (e["name"], e["args"], stack[-1]["name"],
                                             stack[-1]["args"]))
            e["parent"] = stack[-1] if stack else None
            stack.append(e)
    for j in x:
        if j["cat"] != "job" or j["b"] == j["a"]:
            continue
        kids = sorted((e for e in x if e["parent"] is j), key=lambda e: e["a"])
        if [e["cat"] for e in kids] != ["phase"] * len(kids) or not kids or \
                kids[0]["a"] != j["a"] or kids[-1]["b"] != j["b"] or \
                any(k["b"] != n["a"] for k, n in zip(kids, kids[1:])):
            fail("job %r: phases %r" % (j["args"], [(e["name"], e["ts"], e["dur"]) for e in kids]))
    binds = {}
    for e in x:
        if "bind_id" in e:
            binds.setdefault(e["bind_id"], {})["out" if e.get("flow_out") else "in"] = e
    for b, f in binds.items():
        if set(f) != {"out", "in"} or f["out"]["a"] >= f["in"]["a"]:
            fail("flow %r: %r" % (b, f))
    v1 = {}
    for e in ev:
        if e["ph"] in "sf":
            v1.setdefault(e["id"], {})[e["ph"]] = e
            if not any(s["a"] <= ns(e["ts"]) < s["b"] for s in tracks.get((e["pid"], e["tid"]), [])):
                fail("flow event outside any slice: %r" % e)
    for i, f in v1.items():
        if set(f) != {"s", "f"} or f["s"]["ts"] > f["f"]["ts"] or f["f"].get("bp") != "e":
            fail("flow %r: %r" % (i, f))
    c = [e for e in ev if e["ph"] == "C"]
    if any(min(e["args"].values()) < 0 for e in c):
        fail("negative counter")
    return ev, x, len(binds), v1, c


def check_structure(exp, out):
    """export --chrome, any input: as chrome_load(), at least a job, a flow
    and a counter"""
    ev, x, binds, v1, c = chrome_load(out)
    if not [e for e in x if e["cat"] == "job"] or not binds + len(v1) or not c:
        fail("%d jobs, %d flows, %d counter events" %
             (len([e for e in x if e["cat"] == "job"]), binds + len(v1), len(c)))


def check_chrome(exp, out):
    """export --chrome: tracks, jobs and their phases, flows, counters, instants"""
    ev, x, binds, v1, c = chrome_load(out)
    procs = {e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
    if procs != {"virtio0", "0000:03:00.0", "glxgears", "Xorg", "kworker/u4:1"}:
        fail("processes %r" % procs)
    threads = {e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
    if "gfx_0.0.0 (graphics)" not in threads or "sdma0 (copy)" not in threads:
        fail("threads %r" % threads)
    jobs = {e["args"]["fence"]: e for e in x if e["cat"] == "job"}
    if len(jobs) != 6:
        fail("%d jobs, expected 6" % len(jobs))
    j4 = jobs["100:3"]
    kids = [(e["name"], e["ts"], e["dur"]) for e in x if e["parent"] is j4]
    if (j4["ts"], j4["dur"], j4["name"]) != (200.0, 5502.0, "glxgears") or \
            sorted(kids, key=lambda k: k[1]) != [("host", 200.0, 1.0), ("queue", 201.0, 499.0),
                                                 ("exec", 700.0, 5000.0),
                                                 ("complete", 5700.0, 2.0)]:
        fail("100:3: %r %r" % (j4, kids))
    # The DRM client of a SUBMIT (gen-streams: 1000 + the context)
    cl = {f: e["args"].get("client_id") for f, e in jobs.items()}
    if cl["100:3"] != 1008 or cl["200:1"] != 1009:
        fail("client_id %r" % cl)
    w = [e for e in x if e["cat"] == "wait"]
    if len(w) != 1 or (w[0]["ts"], w[0]["dur"]) != (33.0, 27.0) or \
            w[0]["parent"]["name"] != "queue" or w[0]["parent"]["parent"] is not jobs["100:2"]:
        fail("the wait of 100:2: %r" % w)
    if binds != 6 or len(v1) != 1:
        fail("%d submit flows, %d dependency flows" % (binds, len(v1)))
    f = list(v1.values())[0]
    if (f["s"]["tid"], f["f"]["tid"], f["f"]["ts"]) != (jobs["200:1"]["tid"], w[0]["tid"], 59.999):
        fail("dependency flow %r" % f)
    depth = {}
    for e in c:
        depth[e["name"]] = max(depth.get(e["name"], 0), e["args"]["jobs"])
    if depth != {"gfx_0.0.0 in flight": 2, "sdma0 in flight": 1, "ctrlq in flight": 1}:
        fail("counters %r" % depth)
    if len([e for e in ev if e["ph"] == "i"]) != 2:
        fail("instant events")


def check_chrome_waits(exp, out):
    """export --chrome of jobless.bin: the waits on the waiting threads, a
    flow from job 300:1 to the wait for its fence"""
    ev, x, binds, v1, c = chrome_load(out)
    w = sorted((e["tid"], e["ts"], e["dur"]) for e in x if e["cat"] == "wait")
    if w != [(100, 10.0, 30.0), (100, 111.0, 19.0), (102, 300.0, 10.0), (102, 311.0, 10.0)]:
        fail("waits %r" % w)
    job = [e for e in x if e["cat"] == "job" and e["args"]["fence"] == "300:1"][0]
    if len(v1) != 1 or binds != 7:
        fail("%d dependency flows, %d submit flows" % (len(v1), binds))
    f = list(v1.values())[0]
    if (f["s"]["tid"], f["s"]["ts"], f["f"]["tid"], f["f"]["ts"]) != \
            (job["tid"], 60.999, 102, 309.999):
        fail("dependency flow %r" % f)


def check_chrome_summary(exp, out):
    """export --chrome of summary.bin: per ring, a counter per figure of its
    SUMMARY records, one series each, a value per window from its start,
    zeros after an idle window's predecessor and after the last; under the
    device; no track for a ring of summaries only; the ERROR instant"""
    ev, x, binds, v1, c = chrome_load(out)
    want = exp["summary"]
    dev = [e["pid"] for e in ev if e["ph"] == "M" and e["name"] == "process_name" and
           e["args"]["name"] == "0000:03:00.0"]
    got = {}
    for e in c:
        name = e["name"]
        series = want["series"].get(name.split(" ", 1)[-1])
        if list(e["args"]) != [series] or [e["pid"]] != dev or "tid" in e:
            fail("counter %r" % e)
        got.setdefault(name, []).append((e["ts"], e["args"][series]))
    if set(got) != set(want["counters"]):
        fail("counters %s, expected %s" % (sorted(got), sorted(want["counters"])))
    for name, w in want["counters"].items():
        g = sorted(got[name])
        if len(g) != len(w) or any(a[0] != b[0] or abs(a[1] - b[1]) > 0.0011
                                   for a, b in zip(g, w)):
            fail("%s: %r, expected %r" % (name, g, w))
    threads = [e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"]
    inst = [e["name"] for e in ev if e["ph"] == "i"]
    if threads != ["gfx_0.0.0 (graphics)"] or inst != ["timeout 100:9"]:
        fail("tracks %r, instants %r" % (threads, inst))


def check_recorded(exp, out):
    """record's output: sorted by gseq, ends with the stats record and the
    config record (the stand-in debugfs's config, its devices from the
    stand-in sysfs)"""
    data = open(out, "rb").read()
    off, gseqs, recs = 0, [], []
    while off < len(data):
        typ, size, cpu, ts, gseq, cseq = struct.unpack_from("<HHIQQQ", data, off)
        if size < 32 or size % 8 or off + size > len(data):
            fail("bad record at %d" % off)
        gseqs.append(gseq)
        recs.append((typ, cpu, data[off + 32:off + size]))
        off += size
    if gseqs != sorted(gseqs) or len(set(gseqs)) != len(gseqs):
        fail("records not in gseq order")
    if len(gseqs) != exp["records"] + 2:
        fail("%d records, expected %d" % (len(gseqs), exp["records"] + 2))
    stats, config = recs[-2], recs[-1]
    if stats[0] != 0xff00 or stats[1] != 0xffffffff or b"dropped_overrun=2" not in stats[2]:
        fail("the record before the last is not the stats record")
    want = b"level=normal\n"
    if config[0] != 0xff02 or config[1] != 0xffffffff or not config[2].startswith(want):
        fail("the last record is not the config record: %r" % config[2][:60])
    text = config[2].split(b"\0")[0]
    for dev in (b"device:virtio0=virtio_gpu 1af4:1050\n", b"device:0000:03:00.0=amdgpu -\n"):
        if dev not in text:
            fail("config record: no %r in %r" % (dev, text))


def check_percentiles(exp, csv_out, groups_out):
    """--per-ring -f json against the jobs of report -f csv: count, min,
    max and mean exact, p50 and p99 within 1/256 (log-linear buckets above
    8192 jobs per group)"""
    lat = {}
    with open(csv_out) as f:
        for row in csv.DictReader(f):
            if row["latency"]:
                lat.setdefault(row["ring"], []).append(int(row["latency"]))
    rows = {r["group"]: r for r in json.load(open(groups_out))["per_ring"]}
    if set(rows) != set(lat):
        fail("groups %s, jobs on %s" % (sorted(rows), sorted(lat)))
    for ring, v in lat.items():
        v.sort()
        n, r = len(v), rows[ring]
        want = {"lat_n": n, "lat_min": v[0], "lat_max": v[-1],
                "lat_avg": int(sum(v) / n + 0.5)}
        for k, w in want.items():
            if r[k] != w:
                fail("%s %s: %s, expected %s" % (ring, k, r[k], w))
        for k, i in (("lat_p50", (n + 1) // 2 - 1), ("lat_p99", (n * 99 + 99) // 100 - 1)):
            if abs(r[k] - v[i]) > v[i] / 256:
                fail("%s %s: %s, exact %s: off by more than 1/256" % (ring, k, r[k], v[i]))


DUMP_TYPES = {0: "submit", 1: "commit", 2: "start", 3: "end", 4: "complete",
              5: "ctx_switch", 6: "irq", 7: "sync_wait_enter", 8: "sync_wait_exit",
              9: "error", 0x100: "stream_info", 0x101: "metadata",
              0x102: "ring_removed", 0xff01: "context"}
CTX_WHAT = ("create", "schedule", "destroy")
DUMP_ENGINES = ("graphics", "compute", "copy", "video_decode", "video_encode", "other")


def dump_records(path):
    """the whole records of a stream file as (path, offset, bytes), up to
    the first damage"""
    data = open(path, "rb").read()
    off = 0
    while off + 32 <= len(data):
        size = struct.unpack_from("<H", data, off + 2)[0]
        if size < 32 or size % 8 or off + size > len(data):
            return
        yield path, off, data[off:off + size]
        off += size


def dump_str(b):
    """a NUL padded string as dump prints it"""
    b = b.split(b"\0")[0]
    return "".join(chr(c) if 0x20 < c < 0x7f and c != 0x5c else "\\x%02x" % c for c in b)


def dump_want(path, off, rec, raw):
    """the type name and fields that dump must print for a record"""
    typ, size, cpu, ts, gseq, cseq = struct.unpack_from("<HHIQQQ", rec)
    p = rec[32:]
    stats = typ in (0xff00, 0xff02) and cpu == 0xffffffff
    name = {0xff00: "tool_stats", 0xff02: "tool_config"}[typ] if stats else \
        DUMP_TYPES.get(typ, "unknown")
    w = {}
    if name == "unknown":
        w["type"] = "0x%x" % typ
    if raw:
        w.update(file=path, off=off)
    if raw or name == "unknown":
        w["size"] = size
    w.update(cpu=cpu, ts=ts, gseq=gseq, cseq=cseq)
    known = len(p)

    def eng(e):
        return DUMP_ENGINES[e] if e < len(DUMP_ENGINES) else e

    if typ < 10:
        known = 88
        (ctx, fctx, fseq, actx, aseq, ring, engine, flags, status, depth, pid,
         tgid, comm, client) = struct.unpack("<QQQQQIHHiIII16sQ", (p + bytes(known))[:known])
        w.update(ring=ring, fence="%d:%d" % (fctx, fseq), ctx=ctx, engine=eng(engine),
                 flags="0x%x" % flags, status=status, aux="%d:%d" % (actx, aseq),
                 depth=depth, pid=pid, tgid=tgid, comm=dump_str(comm), client_id=client)
    elif typ == 0x100:
        known = 56
        (magic, version, rsize, session, features, start, real, clock, cpus, rings,
         buf) = struct.unpack("<IHHQQQQIIII", (p + bytes(known))[:known])
        w.update(magic="0x%08x" % magic, version=version, record_size=rsize,
                 session="%016x" % session, features="0x%x" % features, start_ts=start,
                 start_realtime=real, clock=clock, nr_cpus=cpus, nr_rings=rings,
                 buffer_size=buf)
    elif typ in (0x101, 0x102):
        known = 72
        ring, engine, reserved, dev, rname = struct.unpack("<IHH32s32s",
                                                           (p + bytes(known))[:known])
        w.update(ring=ring, engine=eng(engine))
        if reserved:
            w["reserved"] = "0x%x" % reserved
        w.update(dev=dump_str(dev), name=dump_str(rname))
    elif typ == 0xff01:
        known = 104
        ctx, ring, what, reserved, pid, tgid, comm, attrs = struct.unpack(
            "<QIHHII16s64s", (p + bytes(known))[:known])
        w.update(what=CTX_WHAT[what] if what < len(CTX_WHAT) else what, ctx=ctx, ring=ring)
        if reserved:
            w["reserved"] = "0x%x" % reserved
        w.update(pid=pid, tgid=tgid, comm=dump_str(comm), attrs=dump_str(attrs))
    elif stats:
        for line in p.split(b"\0")[0].split(b"\n"):
            if line:
                k, _, v = dump_str(line).partition("=")
                w[k] = v
    if len(p) != known:
        w["payload"] = len(p)
    return name, {k: str(v) for k, v in w.items()}


def check_dump(exp, out, path, opts=""):
    """dump -i PATH [--raw] [--per-file] (OPTS: raw,per-file): a line per
    whole record of the files of PATH, up to the damage of each, the files
    of a directory merged by gseq (or file after file), every field as the
    bytes give it; with EXPECTED.json, its number of records"""
    opts = opts.split(",")
    if os.path.isdir(path):
        files = sorted((f for f in os.listdir(path) if re.fullmatch(r"events\d+(\.bin)?", f)),
                       key=lambda f: int(re.sub(r"\D", "", f)))
        files = [os.path.join(path, f) for f in files]
    else:
        files = [path]
    recs = [(i, r) for i, f in enumerate(files) for r in dump_records(f)]
    if "per-file" not in opts and len(files) > 1:
        recs.sort(key=lambda x: (struct.unpack_from("<Q", x[1][2], 16)[0], x[0]))
    lines = open(out).read().splitlines()
    if len(lines) != len(recs):
        fail("%d lines, %d records" % (len(lines), len(recs)))
    if exp and len(lines) != exp["records"]:
        fail("%d lines, expected %d records" % (len(lines), exp["records"]))
    for n, (line, (_, r)) in enumerate(zip(lines, recs), 1):
        name, want = dump_want(*r, "raw" in opts)
        words = line.split(" ")
        got = dict(w.partition("=")[::2] for w in words[1:])
        if words[0] != name or got != want or len(got) != len(words) - 1:
            fail("line %d: %r, expected %s %r" % (n, line, name, want))


def check_stamps(exp, out, path):
    """report -f csv of the relay files of PATH (a directory of eventsN.bin)
    against their records, decoded here: every job whose SUBMIT, COMMIT, END
    and COMPLETE are each once in the files has those stamps in its row,
    and HOST, DEVICE, COMPLETE and LATENCY are their differences, and the
    DRM client of its SUBMIT (empty for 0); the jobs
    so checked are at least half of the rows."""
    names = {0: "submit", 1: "commit", 3: "end", 4: "complete"}
    files = sorted(os.path.join(path, f) for f in os.listdir(path)
                   if re.fullmatch(r"events\d+(\.bin)?", f))
    rings, stamps = {}, {}
    for f in files:
        for _p, _o, rec in dump_records(f):
            typ, _size, _cpu, ts = struct.unpack_from("<HHIQ", rec)
            if typ == 0x101:
                ring, _e, _r, dev, rname = struct.unpack_from("<IHH32s32s", rec, 32)
                rings[ring] = dump_str(dev) + "/" + dump_str(rname)
            elif typ in names:
                _ctx, fctx, fseq = struct.unpack_from("<QQQ", rec, 32)
                ring = struct.unpack_from("<I", rec, 32 + 40)[0]
                st = stamps.setdefault((ring, "%d:%d" % (fctx, fseq)), {})
                st.setdefault(names[typ], []).append(ts)
                # The DRM client, last in a SUBMIT's payload
                if typ == 0 and len(rec) >= 32 + 88:
                    st["client_id"] = struct.unpack_from("<Q", rec, 32 + 80)[0]
    whole = {}
    for (ring, fnc), st in stamps.items():
        if all(len(st.get(n, ())) == 1 for n in names.values()):
            whole[(rings.get(ring), fnc)] = {n: st[n][0] for n in names.values()}
            whole[(rings.get(ring), fnc)]["client_id"] = st.get("client_id") or None
    rows = list(csv.DictReader(open(out)))
    n = 0
    for r in rows:
        st = whole.get((r["ring"], r["fence"]))
        if not st:
            continue
        n += 1
        want = {"submit_ns": st["submit"], "commit_ns": st["commit"], "end_ns": st["end"],
                "complete_ns": st["complete"],
                "t_submit_host": st["commit"] - st["submit"],
                "t_device": st["end"] - st["commit"],
                "t_complete": st["complete"] - st["end"],
                "latency": st["complete"] - st["submit"],
                "client_id": st["client_id"]}
        got = {k: int(r[k]) if r.get(k) else None for k in want}
        if got != want:
            fail("job %s %s: %r,\n  the records give %r" % (r["ring"], r["fence"], got, want))
    if not rows or 2 * n < len(rows):
        fail("%d of %d rows are whole jobs of the records" % (n, len(rows)))
    print("%d of %d jobs checked against their records" % (n, len(rows)))


def check_summary(exp, out, jobs_out):
    """The summary of report (OUT, JSON) against its --jobs (JOBS_OUT, JSON):
    per process (the kernel's workers in one row, "kworker/* (N)" for N
    processes) and per ring, the jobs, GPU_TIME (EXEC, or DEVICE without
    a START) summed and its share, the latency's nearest-rank p50 and p99,
    its highest and that job's fence, the most GPU time first; per
    process, each phase's average over the jobs with it, rounded as
    gr_stat_avg() does."""
    from fractions import Fraction
    s = json.load(open(out))
    jobs = json.load(open(jobs_out))["jobs"]

    def rank(v, pct):
        v = sorted(v)
        return v[max((len(v) * pct + 99) // 100 - 1, 0)] if v else None

    def avg(v):
        return int(Fraction(sum(v), len(v)) + Fraction(1, 2)) if v else None

    def gpu(j):
        return j["t_exec"] if j["t_exec"] is not None else j["t_device"]

    # A process is its tgid, named as its leader (pid = tgid), else as its
    # first job; a submitter of no known process by its name
    leader = {}
    for j in jobs:
        if j["tgid"] and (j["tgid"] not in leader or
                          (j["pid"] == j["tgid"] and leader[j["tgid"]][1] != j["tgid"])):
            leader[j["tgid"]] = (j["comm"], j["pid"])

    def name(j):
        comm = leader[j["tgid"]][0] if j["tgid"] else j["comm"]
        if comm.startswith("kworker/"):
            return "kworker/*"
        return "%s[%d]" % (comm, j["tgid"] or 0) if j["tgid"] or comm else "unknown"

    procs, rings = {}, {}
    for j in jobs:
        procs.setdefault(name(j), []).append(j)
        rings.setdefault(j["ring"], []).append(j)
    kw = procs.pop("kworker/*", None)
    if kw:
        tgids = {j["tgid"] for j in kw}
        procs["kworker/* (%d)" % len(tgids) if len(tgids) > 1 else
              "%s[%d]" % (kw[0]["comm"], kw[0]["tgid"])] = kw

    def shares(groups):
        total = sum(gpu(j) or 0 for v in groups.values() for j in v)
        rows = []
        for k, v in groups.items():
            t = [gpu(j) for j in v if gpu(j) is not None]
            lat = [j for j in v if j["latency"] is not None]
            slow = max(lat, key=lambda j: j["latency"]) if lat else None
            rows.append((-sum(t), k, len(v), sum(t) if t else None,
                         round(100 * sum(t) / total, 1) if total and t else None,
                         rank([j["latency"] for j in lat], 50),
                         rank([j["latency"] for j in lat], 99),
                         slow["latency"] if slow else None, slow["fence"] if slow else ""))
        return [r[1:] for r in sorted(rows, key=lambda r: (r[0], r[1]))]

    cols = ("jobs", "gpu_time", "share_pct", "lat_p50", "lat_p99", "lat_max", "slowest")
    for table, key, want in (("gpu_time_per_process", "process", shares(procs)),
                             ("gpu_time_per_ring", "ring", shares(rings))):
        got = [(x[key],) + tuple(x[c] for c in cols) for x in s[table]]
        if got != want:
            fail("%s: %s, from the jobs %s" % (table, got[:4], want[:4]))
    phases = ("t_submit_host", "t_device", "t_complete", "latency", "t_gpu_wait")
    got = [(x["process"], x["jobs"]) + tuple(x[c] for c in phases)
           for x in s["phases_per_process"]]
    want = [(k, len(procs[k])) + tuple(avg([j[c] for j in procs[k] if j[c] is not None])
                                       for c in phases) for k, *_ in shares(procs)]
    if got != want or len(got) < 2:
        fail("phases_per_process: %s, from the jobs %s" % (got[:4], want[:4]))
    print("%d processes, %d rings, %d jobs" % (len(procs), len(rings), len(jobs)))


def main():
    exp = json.load(open(sys.argv[2])) if sys.argv[2] != "-" else None
    globals()["check_" + sys.argv[1]](exp, *sys.argv[3:])


if __name__ == "__main__":
    main()
