#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks of grtrace output for run-tests.sh; exit status 0 when it holds.

usage: check.py CHECK EXPECTED.json OUTPUT [ARGS...]
"""
import csv
import json
import struct
import sys

FIELDS = ("time", "ring", "fence", "ctx", "pid", "comm", "t_submit_host",
          "t_queue", "t_exec", "t_gpu_wait", "t_complete", "latency",
          "status", "labels", "waits_on")


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
    """--per-ring --per-ctx --per-process"""
    d = json.load(open(out))
    ring = {g["group"]: g for g in d["per_ring"]}
    gfx = ring["0000:03:00.0/gfx_0.0.0"]
    want = dict(jobs=4, lat_n=3, lat_min=115000, lat_p50=151000,
                lat_p99=5502000, lat_max=5502000, lat_avg=1922667,
                exec_n=3, exec_min=50000, exec_p50=100000, exec_max=5000000)
    for k, v in want.items():
        if gfx[k] != v:
            fail("per_ring gfx %s = %r, expected %r" % (k, gfx[k], v))
    if ring["virtio0/ctrlq"]["exec_avg"] is not None:
        fail("per_ring ctrlq exec_avg should be null")
    ctx = {g["group"]: g["jobs"] for g in d["per_ctx"]}
    if ctx != {"3": 1, "7": 3, "8": 1, "9": 1}:
        fail("per_ctx %r" % ctx)
    proc = {g["group"]: g["jobs"] for g in d["per_process"]}
    if proc != {"Xorg[550]": 1, "glxgears[1234]": 4, "kworker/u4:1[42]": 1}:
        fail("per_process %r" % proc)


def check_hist(exp, out):
    """--hist lat, size and result in one json each"""
    lat, size, res = (json.load(open(f)) for f in out.split(","))
    if sum(b["jobs"] for b in lat["hist_lat"]) != 5:
        fail("hist_lat counts %r" % lat["hist_lat"])
    for b in lat["hist_lat"]:
        if b["to_ns"] != 2 * max(b["from_ns"], 1):
            fail("hist_lat bucket %r" % b)
    sizes = {b["size"]: b["records"] for b in size["hist_size"]}
    if sizes != {88: 1, 104: 3, 112: exp["records"] - 4}:
        fail("hist_size %r" % sizes)
    r = {b["status"]: b["jobs"] for b in res["hist_result"]}
    if r != {"ok": 4, "-ETIME": 1, "pending": 1}:
        fail("hist_result %r" % r)


def check_chrome(exp, out):
    """export --chrome: tracks, slices, a flow pair, instants"""
    d = json.load(open(out))
    ev = d["traceEvents"]
    procs = {e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
    if procs != {"virtio0", "0000:03:00.0"}:
        fail("processes %r" % procs)
    threads = {e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
    if "gfx_0.0.0 (graphics)" not in threads or "sdma0 (copy)" not in threads:
        fail("threads %r" % threads)
    x = [e for e in ev if e["ph"] == "X"]
    if len(x) != 9:
        fail("%d complete events, expected 9" % len(x))
    j4 = [e for e in x if e["args"]["fence"] == "100:3" and e["cat"] == "exec"]
    if len(j4) != 1 or j4[0]["ts"] != 700.0 or j4[0]["dur"] != 5000.0 or \
            j4[0]["name"] != "glxgears":
        fail("exec of 100:3: %r" % j4)
    s = [e for e in ev if e["ph"] == "s"]
    f = [e for e in ev if e["ph"] == "f"]
    if len(s) != 1 or len(f) != 1 or s[0]["id"] != f[0]["id"] or s[0]["ts"] > f[0]["ts"]:
        fail("flow events %r %r" % (s, f))
    # Slices of one track must nest: here, never overlap
    by_tid = {}
    for e in x:
        by_tid.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
    for t, sl in by_tid.items():
        sl.sort()
        for a, b in zip(sl, sl[1:]):
            if b[0] < a[1]:
                fail("overlapping slices on track %r" % (t,))
    if len([e for e in ev if e["ph"] == "i"]) != 2:
        fail("instant events")


def check_recorded(exp, out):
    """record's output: sorted by gseq, ends with the stats record"""
    data = open(out, "rb").read()
    off, gseqs, last = 0, [], None
    while off < len(data):
        typ, size, cpu, ts, gseq, cseq = struct.unpack_from("<HHIQQQ", data, off)
        if size < 32 or size % 8 or off + size > len(data):
            fail("bad record at %d" % off)
        gseqs.append(gseq)
        last = (typ, cpu, data[off + 32:off + size])
        off += size
    if gseqs != sorted(gseqs) or len(set(gseqs)) != len(gseqs):
        fail("records not in gseq order")
    if len(gseqs) != exp["records"] + 1:
        fail("%d records, expected %d" % (len(gseqs), exp["records"] + 1))
    if last[0] != 0xff00 or last[1] != 0xffffffff or b"dropped_overrun=2" not in last[2]:
        fail("last record is not the stats record")


def main():
    exp = json.load(open(sys.argv[2]))
    globals()["check_" + sys.argv[1]](exp, *sys.argv[3:])


if __name__ == "__main__":
    main()
