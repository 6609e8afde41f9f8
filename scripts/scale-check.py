#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the recordings of the scheduler scale test (tests/60-scale.sh).

N mock schedulers, all on one device (dev <test>.drm-sched-grtrace-many) and
all named drm-mock-scheduler, as a driver's per-queue schedulers are, each
with one entity running JOBS jobs, were created and destroyed while trace-cmd
recorded the grtrace events and a relay session in aggregate_only mode ran.
A ring is a device and a name, as the scheduler's tracepoints name it, so
they are one ring, which outlives them all.  In trace.dat, there must be one
ring with the jobs of N entities (N finished-fence contexts), JOBS each, each
job with each lifecycle event exactly once, and no grtrace_ring_remove.  In
the relay stream, the SUMMARY records of the ring, named by its METADATA under
the same id as in trace.dat, must add up to exactly its jobs and its events
in trace.dat.  The relay
session must
account for every event (offered = written + dropped, nothing dropped but
aggregated) and no event may have gone without a ring.

usage: scale-check.py GRTRACE DIR       (prints KTAP)
"""

import collections
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ktap import Ktap                   # pylint: disable=wrong-import-position
from tracecmd import dump_records, read_trace  # pylint: disable=wrong-import-position

JOBS = 4
DEV = '.drm-sched-grtrace-many'  # the end of the mock schedulers' device name
NAME_MAX = 31                    # the relay stream's dev[32], NUL-terminated
LIFECYCLE = ('submit', 'commit', 'end', 'complete')


def stats(path):
    return dict(l.strip().split('=', 1) for l in open(path) if '=' in l)


def trace_rings(path):
    """Per ring id: its dev, per type per fence counts, fence contexts,
    removes; and the count of events with ring id 0."""
    rings = collections.defaultdict(lambda: {
        'dev': set(), 'ev': collections.Counter(), 'ctx': set(),
        'remove': [], 'events': 0})
    zero = 0
    for i, (_, name, f) in enumerate(read_trace(path)):
        if not name.startswith('grtrace_') or not f.get('dev', '').endswith(DEV):
            continue
        if f.get('ring_id') == '0':
            zero += 1
            continue
        r = rings[f.get('ring_id')]
        r['dev'].add(f['dev'])
        event = name[len('grtrace_'):]
        if event == 'ring_remove':
            r['remove'].append(i)
        elif 'fence' in f:
            r['ev'][(event, f['fence'])] += 1
            r['ctx'].add(f['fence'].split(':')[0])
            r['events'] += 1
    return rings, zero


def read_relay(grtrace, path):
    """Per ring id: its METADATA dev names, summed SUMMARY jobs and events."""
    named = collections.defaultdict(set)
    jobs, events = collections.Counter(), collections.Counter()
    types = collections.Counter()
    for kind, f in dump_records(grtrace, path)[0]:
        types[kind] += 1
        if kind == 'metadata':
            named[f['ring']].add(f['dev'])
        elif kind == 'summary':
            jobs[f['ring']] += int(f['jobs'])
            events[f['ring']] += int(f['events'])
    return named, jobs, events, types


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    grtrace, d = sys.argv[1:]
    skipped = os.path.exists(os.path.join(d, 'skipped'))
    out = Ktap('scale:', 1 if skipped else 8)
    if skipped:
        out.skip('schedulers at scale', open(os.path.join(d, 'skipped')).read().strip())
        return out.finish()
    try:
        n = int(open(os.path.join(d, 'schedulers')).read())
        kunit = open(os.path.join(d, 'kunit.txt')).read()
        for f in ('scale.dat', 'scale.grt', 'stats.before', 'stats.after'):
            open(os.path.join(d, f)).close()
    except (OSError, ValueError) as e:
        out.result(False, 'the scale test left its recordings', str(e))
        return out.finish()
    runs = re.findall(r'drm_sched_grtrace_scale_test: (\d+) schedulers', kunit)
    out.result(kunit.count('ok 1 drm_sched_grtrace_scale_test') == len(runs) and
               sum(map(int, runs)) == n and 'not ok' not in kunit,
               f'the KUnit suite ran {n} schedulers and every job finished', kunit[-600:])

    rings, zero = trace_rings(os.path.join(d, 'scale.dat'))
    out.result(len(rings) == 1 and zero == 0,
               f'trace.dat: {n} schedulers of one device and name are one ring; '
               'no ring id 0',
               f'{len(rings)} rings of mock schedulers in trace.dat, {zero} events '
               'with ring_id 0')
    bad_job, bad_remove = [], []
    ctxs = set()
    for rid, r in rings.items():
        ctxs |= r['ctx']
        per_ctx = collections.defaultdict(set)
        for _, fence in r['ev']:
            per_ctx[fence.split(':')[0]].add(fence)
        for ctx, fences in per_ctx.items():
            counts = [r['ev'][(t, fence)] for fence in fences for t in LIFECYCLE]
            if len(fences) != JOBS or any(c != 1 for c in counts):
                bad_job.append(f'ring {rid} context {ctx}: '
                               f'{ {k: v for k, v in r["ev"].items() if k[1] in fences} }')
        if any(c != 1 for c in r['ev'].values()):
            bad_job.append(f'ring {rid}: an event twice')
        if r['remove']:
            bad_remove.append(f'ring {rid}: removes at {r["remove"]}')
    out.result(len(ctxs) == n and not bad_job,
               f'trace.dat: {n} schedulers\' fence contexts, {JOBS} jobs each, each event '
               'once', '\n'.join(bad_job[:5] + [f'{len(ctxs)} fence contexts']))
    out.result(not bad_remove, 'trace.dat: the ring outlives its schedulers: no removal',
               '\n'.join(bad_remove[:5]))

    named, jobs, events, types = read_relay(grtrace, os.path.join(d, 'scale.grt'))
    bad = []
    for rid, r in rings.items():
        if named.get(rid) != {dev[:NAME_MAX] for dev in r['dev']}:
            bad.append(f'ring {rid} ({r["dev"]}) named {sorted(named.get(rid, []))} by METADATA')
        elif jobs[rid] != JOBS * n or events[rid] != r['events']:
            bad.append(f'ring {rid}: SUMMARY jobs {jobs[rid]}, events '
                       f'{events[rid]}; trace.dat has {r["events"]} events')
    out.result(not bad and len(rings) == 1,
               'relay: the SUMMARY records of the ring, named as in trace.dat, '
               'add up to its jobs and events', '\n'.join(bad[:5]))
    job_records = sum(types[t] for t in LIFECYCLE + ('start',))
    out.result(job_records == 0 and types['summary'] > 0,
               'relay: aggregate_only wrote SUMMARY records, no job event',
               f'{dict(types)}')

    before = stats(os.path.join(d, 'stats.before'))
    after = stats(os.path.join(d, 'stats.after'))
    offered, written = int(after['offered']), int(after['written'])
    dropped = {k: int(v) for k, v in after.items() if k.startswith('dropped_')}
    # Besides the mock schedulers' events, aggregated, the guest's own
    # virtio-gpu commands go on: their IRQs are filtered by the level.
    out.result(offered == written + sum(dropped.values()) and
               dropped['dropped_overrun'] == 0 and
               dropped['dropped_aggregated'] >= sum(r['events'] for r in rings.values()),
               'relay: offered = written + dropped, none overrun, every job event aggregated',
               f'offered {offered} written {written} {dropped}')
    out.result(after['events_no_ring'] == before['events_no_ring'],
               'no event reported without a ring',
               f'events_no_ring {before["events_no_ring"]} -> {after["events_no_ring"]}')
    return out.finish()


if __name__ == '__main__':
    sys.exit(main())
