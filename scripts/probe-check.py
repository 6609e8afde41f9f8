#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that the jobs of a kprobe profile match the hooks' one for one;
or (--contexts) that it saw the clients' 3D contexts.

usage: probe-check.py GRTRACE HOOKS PROBE [RING]
       probe-check.py --contexts GRTRACE PROBE HOOKS NAME...

HOOKS is a recording of the relay stream (grtrace record), PROBE one of
"grtrace probe -p virtio-gpu.profile" made during the same run.  Both are
read with "grtrace dump".  The jobs of ring RING (default "control") are
keyed by seqno.  Between the seqnos of the first and the last job that both saw
whole (they start and stop at different times), every job of the hooks must be one of
the probe's and the other way round, with the same context, submitting
thread and name; and the probe's times must bracket the hooks' on the same
clock: the probe's commit (virtqueue_add_sgs) just after the hooks'
commit (virtio-gpu reports COMMIT before the add), its end (virtqueue_get_buf) before theirs, its complete
(free_vbuf) after theirs.  Prints a KTAP-style line per check; exits 1 if
one fails.

--contexts: PROBE was recorded while 3D clients ran (the demo), HOOKS is
the relay stream's recording of the same run (a file or a directory of
events*.bin).  No job of PROBE has a stage twice.  Some context must be
created and destroyed; for each NAME
(a client's comm, virtio-gpu's debug name of its context) a context whose
attributes hold name=NAME, created and destroyed, with jobs: in the
contexts table of "grtrace report -f json -i PROBE" (the jobs the report
joins to it), as many as the probe's SUBMITs of its ctx id from its create
on (until the id's next create), and SUBMITs of its ctx id between its
create and destroy in HOOKS.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ktap import Ktap                   # pylint: disable=wrong-import-position

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


def dump(grtrace, path):
    """the records of PATH as (type, {field: value})"""
    out = subprocess.run([grtrace, "dump", "-i", path], check=True,
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        w = line.split()
        yield w[0], dict(x.split("=", 1) for x in w[1:] if "=" in x)


class Results(Ktap):
    """Ktap called as a function: result(ok, name, why)"""

    def __call__(self, ok, name, why=""):
        self.result(ok, name, why)


def contexts(grtrace, probe_path, hooks_path, names):
    """--contexts: see the top"""
    # Per client: its context, created and destroyed, with jobs, the
    # probe's SUBMITs, the hooks' jobs.
    result = Results("probe-contexts:", 2 + 5 * len(names))

    try:
        rep = json.loads(subprocess.run([grtrace, "report", "--jobs", "-f", "json", "-i",
                                         probe_path],
                                        check=True, capture_output=True, text=True).stdout)
        probe = list(dump(grtrace, probe_path))
        hooks = list(dump(grtrace, hooks_path))
    except (OSError, ValueError, subprocess.CalledProcessError) as e:
        result(False, "recordings present and readable", e)
        return result.finish()
    table = rep.get("contexts", [])
    start = rep["session"].get("start_ts") or 0
    for c in table:
        print(f"#   ctx {c['ctx']}: created {c['created']} destroyed {c['destroyed']} ns, "
              f"{c['jobs']} jobs, {c['attrs']}")
    # A stage twice makes the report count a second job (a foreign
    # buffer's event given to a job: make check at 1ec0425, demo-6.12).
    seen, twice = set(), []
    for t, f in probe:
        if t in ("submit", "commit", "end", "complete"):
            key = (f["ring"], f["fence"], t)
            if key in seen:
                twice.append(f"{t} {f['fence']} at {f['ts']}")
            seen.add(key)
    result(not twice, "no job of the probe with a stage twice",
           f"{len(twice)}, first {twice[:3]}")
    what = [f["what"] for t, f in probe if t == "context"]
    result("create" in what and "destroy" in what, "contexts created and destroyed",
           f"context records: {len(what)}, {what.count('create')} creates, "
           f"{what.count('destroy')} destroys")
    creates = {}		# ctx id: the ts of its creates
    for t, f in probe:
        if t == "context" and f["what"] == "create":
            creates.setdefault(f["ctx"], []).append(int(f["ts"]))
    for name in names:
        mine = [c for c in table if f"name={name}" in c["attrs"].split()]
        result(len(mine) > 0, f"a context named {name}",
               f"attributes: {[c['attrs'] for c in table]}")
        if not mine:
            continue
        c = mine[0]
        ctx = str(c["ctx"])
        result(c["created"] is not None and c["destroyed"] is not None,
               f"{name}'s context (ctx {ctx}) created and destroyed", c)
        result(c["jobs"] > 0, f"{name}'s context has jobs in the report", c)
        if c["created"] is None or c["destroyed"] is None:
            continue
        lo, hi = start + c["created"], start + c["destroyed"]
        later = [ts for ts in creates.get(ctx, []) if ts > lo]
        until = min(later) if later else float("inf")
        own = [int(f["ts"]) for t, f in probe if t == "submit" and f["ctx"] == ctx and
               lo <= int(f["ts"]) < until]
        result(len(own) == c["jobs"], f"{name}'s jobs: the report's are the probe's SUBMITs",
               f"report {c['jobs']}, SUBMITs of ctx {ctx} from its create: {len(own)}")
        hk = [int(f["ts"]) for t, f in hooks if t == "submit" and f["ctx"] == ctx and
              lo <= int(f["ts"]) <= hi]
        result(len(hk) > 0, f"{name}'s ctx id has jobs in the hooks' recording",
               f"no SUBMIT of ctx {ctx} between {lo} and {hi}")
        print(f"#   {name}: ctx {ctx}, {c['jobs']} jobs (probe), {len(hk)} SUBMITs (hooks)")
    return result.finish()


def main():
    if sys.argv[1] == "--contexts":
        return contexts(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
    grtrace, hooks_path, probe_path = sys.argv[1:4]
    ring = sys.argv[4] if len(sys.argv) > 4 else "control"
    result = Results("probe:", 6)

    try:
        hooks, _ = jobs(grtrace, hooks_path, ring)
        probe, twice = jobs(grtrace, probe_path, ring)
    except (OSError, subprocess.CalledProcessError) as e:
        result(False, "recordings present and readable", e)
        return result.finish()
    result(not twice, "no seqno twice in the kprobes' jobs",
           f"{len(twice)} seqnos, first {sorted(twice)[:5]}")
    wp, wh = whole(probe), whole(hooks)
    result(wp and wh, "whole jobs in both", f"{len(wp)} from kprobes, {len(wh)} from the hooks")
    if not wp or not wh:
        return result.finish()
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
            ok = (0 <= pj["commit"] - hj["commit"] < MAX_SKEW_NS and
                  pj["submit"] <= hj["submit"] and pj["end"] <= hj["end"] and
                  pj["complete"] >= hj["complete"])
        except KeyError:
            ok = False
        if not ok:
            bad.append(s)
    result(not bad, "the kprobes' times bracket the hooks' (one clock)",
           f"{len(bad)} jobs, first {bad[:1]}: {[(hooks[s], probe[s]) for s in bad[:1]]}")
    print(f"#   {len(both)} jobs matched one for one")
    return result.finish()


if __name__ == "__main__":
    sys.exit(main())
