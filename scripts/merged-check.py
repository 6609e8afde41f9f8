#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the relay stream's merged reader under a real GPU load (step crash).

While kmscube and glmark2-es2-drm render on virgl, a relay session ran and
cat read its debugfs trace_pipe (the kernel's merge of the per-CPU relay
buffers, in gseq order) into merged.grt; an ftrace instance, "live",
recorded the same tracepoints, read as text once it stopped (live.txt).  Checks:

- cat read to the end of the stopped session without an error, the file
  holds every byte the reader served, and the session lost nothing (no
  drop but the level's filter, no overrun);
- the file is a whole stream (grtrace dump reads it without damage), its
  gseq strictly increasing and without a gap: each record once, in order;
- every job event of it is in the live instance, each SUBMIT with the same
  submitter: nothing made up, the same attribution through both paths;
- per ring, the jobs whose SUBMIT it holds are consecutive seqnos; each of
  them but the last few (in flight when the session stopped) has its
  COMMIT and COMPLETE, once each and after its SUBMIT; and a job it holds
  the COMPLETE of whose seqno is past the first SUBMIT has that SUBMIT.

usage: merged-check.py GRTRACE DIR     (prints KTAP)
"""

import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ktap import Ktap                   # pylint: disable=wrong-import-position
from tracecmd import dump_records, pipe_events   # pylint: disable=wrong-import-position

JOB = ('submit', 'commit', 'end', 'complete')
TAIL = 16       # the last SUBMITs of a ring, whose jobs may outlive the session


def seqno(fence):
    ctx, _, seq = fence.partition(':')
    return ctx, int(seq)


def read_live(path):
    """(type, dev, ring, fence) -> the fields of its live events."""
    live = collections.defaultdict(list)
    for _, stage, f in pipe_events(path):
        if stage in JOB:
            live[(stage, f.get('dev'), f.get('ring'), f.get('fence'))].append(f)
    return live


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    grtrace, d = sys.argv[1:]
    out = Ktap('merged:', 4)
    try:
        err = open(os.path.join(d, 'merged.err')).read()
        stats = dict(l.strip().split('=', 1) for l in open(os.path.join(d, 'merged-stats.txt'))
                     if '=' in l)
        open(os.path.join(d, 'live.txt')).close()
        size = os.path.getsize(os.path.join(d, 'merged.grt'))
    except OSError as e:
        out.result(False, 'the merged reader and the live instance left their recordings',
                   str(e))
        return out.finish()
    # The level filters some events out (dropped_filtered): no other cause.
    num = {k: int(v) for k, v in stats.items() if v.isdigit()}
    lost = {k: v for k, v in num.items() if v and k in (
        'overruns', 'lost_events', 'writes_short') or
        (k.startswith('dropped_') and k != 'dropped_filtered' and v)}
    out.result(err.strip() == 'exit 0' and num.get('written', 0) > 0 and not lost and
               num.get('offered') == num.get('written', 0) + num.get('dropped', 0) and
               size == num.get('bytes_read'),
               'cat read trace_pipe to the end of the session: every byte served, '
               'nothing lost but what the level filters',
               f'{err.strip()}\nfile {size} bytes; {stats}')

    recs, run = dump_records(grtrace, os.path.join(d, 'merged.grt'), check=False)
    gseq = [int(f['gseq']) for _, f in recs if 'gseq' in f]
    gaps = [(a, b) for a, b in zip(gseq, gseq[1:]) if b != a + 1]
    out.result(run.returncode == 0 and recs and recs[0][0] == 'stream_info' and
               len(gseq) == len(recs) and not gaps and gseq[0] == 1,
               'merged.grt is a whole stream, gseq 1, 2, 3, ... in file order',
               f'exit {run.returncode} {run.stderr[:300]}\n{len(recs)} records, '
               f'gaps or disorder {gaps[:5]}')

    live = read_live(os.path.join(d, 'live.txt'))
    names = {f['ring']: (f['dev'], f['name']) for k, f in recs if k == 'metadata'}
    jobs = collections.defaultdict(lambda: collections.defaultdict(list))
    missing, other = [], []
    for i, (kind, f) in enumerate(recs):
        if kind not in JOB:
            continue
        dev, ring = names.get(f['ring'], (None, None))
        ctx, seq = seqno(f['fence'])
        jobs[(dev, ring, ctx)][seq].append((kind, i))
        seen = live.get((kind, dev, ring, f['fence']))
        if not seen:
            missing.append(f'{kind} {dev}/{ring} {f["fence"]}')
        elif kind == 'submit' and not any(s.get('pid') == f['pid'] and s.get('comm') == f['comm']
                                          for s in seen):
            other.append(f'{dev}/{ring} {f["fence"]}: pid {f["pid"]} {f["comm"]}, '
                         f'live {[(s.get("pid"), s.get("comm")) for s in seen]}')
    n_sub = sum(1 for k, _ in recs if k == 'submit')
    out.result(n_sub >= 50 and not missing and not other,
               'every job event of it is in the live instance, each SUBMIT with the same submitter',
               f'{n_sub} SUBMITs\n' + '\n'.join((missing + other)[:8]))

    bad = []
    for (dev, ring, ctx), by_seq in jobs.items():
        subs = sorted(s for s, ev in by_seq.items() if any(k == 'submit' for k, _ in ev))
        if not subs:
            continue
        holes = sorted(set(range(subs[0], subs[-1] + 1)) - set(subs))
        if holes:
            bad.append(f'{dev}/{ring} ctx {ctx}: no SUBMIT of seqnos {holes[:8]}')
        for s, ev in by_seq.items():
            kinds = [k for k, _ in ev]
            if any(kinds.count(k) > 1 for k in JOB):
                bad.append(f'{dev}/{ring} {ctx}:{s}: {kinds}')
            elif s > subs[0] and 'submit' not in kinds:
                bad.append(f'{dev}/{ring} {ctx}:{s}: {kinds} without its SUBMIT')
            elif 'submit' in kinds and s <= subs[-1] - TAIL:
                at = dict(ev)
                if not ('commit' in at and 'complete' in at and
                        at['submit'] < at['commit'] < at['complete']):
                    bad.append(f'{dev}/{ring} {ctx}:{s}: {kinds}')
    out.result(jobs and not bad,
               'per ring, consecutive jobs, each with SUBMIT, COMMIT and COMPLETE once, in order',
               '\n'.join(bad[:8]))
    return out.finish()


if __name__ == '__main__':
    sys.exit(main())
