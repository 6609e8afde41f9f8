#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that the jobs of a kprobe profile match the hooks' one for one.

usage: probe-check.py GRTRACE HOOKS PROBE [RING]

HOOKS is a recording of the relay stream (grtrace record), PROBE one of
"grtrace probe -p virtio-gpu.profile" made during the same run.  Both are
read with "grtrace dump".  The jobs of ring RING (default "control") are
keyed by seqno.  Between the seqnos of the first and the last job that both saw
whole (they start and stop at different times), every job of the hooks must be one of
the probe's and the other way round, with the same context, submitting
thread and name; and the probe's times must bracket the hooks' on the same
clock: the probe's commit (virtqueue_add_sgs) just before the hooks'
commit, its end (virtqueue_get_buf) before theirs, its complete
(free_vbuf) after theirs.  Prints a KTAP-style line per check; exits 1 if
one fails.
"""
import subprocess
import sys

# Commit to commit: the two run a few instructions apart, but a vCPU of a
# TCG guest can be descheduled in between (14 ms seen).
MAX_SKEW_NS = 50_000_000
MIN_JOBS = 20


def jobs(grtrace, path, ring):
    out = subprocess.run([grtrace, "dump", "-i", path], check=True,
                         capture_output=True, text=True).stdout
    ids, jobs, twice = set(), {}, set()
    for line in out.splitlines():
        w = line.split()
        f = dict(x.split("=", 1) for x in w[1:] if "=" in x)
        if w[0] == "metadata" and f.get("name") == ring:
            ids.add(f["ring"])
        elif w[0] in ("submit", "commit", "end", "complete") and f["ring"] in ids:
            seqno = int(f["fence"].split(":")[1])
            j = jobs.setdefault(seqno, {})
            if w[0] in j:
                twice.add(seqno)
            j[w[0]] = int(f["ts"])
            j["ctx"] = f["ctx"]
            if w[0] == "submit":
                j["who"] = (f["pid"], f["comm"])
    return jobs, twice


def whole(jobs):
    return [s for s, j in jobs.items() if len(j) >= 6]


def main():
    grtrace, hooks_path, probe_path = sys.argv[1:4]
    ring = sys.argv[4] if len(sys.argv) > 4 else "control"
    fails = 0
    n = 0

    def result(ok, name, why=""):
        nonlocal fails, n
        n += 1
        print(f"{'ok' if ok else 'not ok'} {n} probe: {name}")
        if not ok:
            fails += 1
            print(f"#   {why}")

    try:
        hooks, _ = jobs(grtrace, hooks_path, ring)
        probe, twice = jobs(grtrace, probe_path, ring)
    except (OSError, subprocess.CalledProcessError) as e:
        result(False, "recordings present and readable", e)
        return 1
    result(not twice, "no seqno twice in the kprobes' jobs",
           f"{len(twice)} seqnos, first {sorted(twice)[:5]}")
    wp, wh = whole(probe), whole(hooks)
    if not wp or not wh:
        result(False, "whole jobs in both", f"{len(wp)} from kprobes, {len(wh)} from the hooks")
        return 1
    # Both saw every job between their first and last whole ones.
    lo, hi = max(min(wp), min(wh)), min(max(wp), max(wh))
    n_both = len([s for s in wp if lo <= s <= hi])
    result(n_both >= MIN_JOBS, f"at least {MIN_JOBS} whole jobs while both recorded",
           f"{n_both}, seqno {lo}-{hi}")
    h = {s for s, j in hooks.items() if lo <= s <= hi}
    p = {s for s in probe if lo <= s <= hi}
    result(h == p, f"the same {len(h)} jobs in seqno {lo}-{hi}",
           f"hooks only: {sorted(h - p)[:10]}, kprobes only: {sorted(p - h)[:10]}")
    both = sorted(h & p)
    bad = [s for s in both if probe[s]["ctx"] != hooks[s]["ctx"] or
           probe[s].get("who") != hooks[s].get("who")]
    result(not bad, "the same context, pid and comm",
           f"{len(bad)} differ, first {bad[:1]}: {[(hooks[s], probe[s]) for s in bad[:1]]}")
    bad = []
    for s in both:
        hj, pj = hooks[s], probe[s]
        try:
            ok = (0 <= hj["commit"] - pj["commit"] < MAX_SKEW_NS and
                  pj["submit"] <= hj["submit"] and pj["end"] <= hj["end"] and
                  pj["complete"] >= hj["complete"])
        except KeyError:
            ok = False
        if not ok:
            bad.append(s)
    result(not bad, "the kprobes' times bracket the hooks' (one clock)",
           f"{len(bad)} jobs, first {bad[:1]}: {[(hooks[s], probe[s]) for s in bad[:1]]}")
    print(f"#   {len(both)} jobs matched one for one")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
