#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check grtrace top on a real run (issue: a live view), in KTAP.

scripts/guest/tests/crash.sh ran it while kmscube and glmark2-es2-drm
rendered on virgl: in batch mode for four intervals (top-batch.txt), beside
it another top, whose intervals are JSON objects (top.json), and in
a terminal, tmux, whose pane it captured showing the rings (top-rings.txt),
then the processes after the key v (top-procs.txt), then after the key s
(top-sorted.txt), before q.  The same events went, as text, to the share
through another ftrace instance (live.txt), in the same trace clock.

From live.txt this computes what each interval of the batch run should
show, with top's rules (a job counts once top saw its SUBMIT; an interval
ends at top's marker): per ring the jobs completed, the share of the
interval with a job between COMMIT and END, the jobs in flight at its end;
per process the jobs completed; for both, the latency p50 and p99 of the
jobs completed.  An event is stamped by each instance apart, microseconds
apart, or as far apart as a vCPU waits between the two: QEMU's
single-threaded TCG runs the vCPUs in turn and kicks the one running every
100 ms of the virtual clock (TCG_KICK_PERIOD, accel/tcg/tcg-accel-ops-rr),
and the guest's clock runs on meanwhile (seen: a latency 48 ms longer in
top than in the live stream, CI and here).  Only an event that close to a
boundary may land on the other side of it,
so a count may differ by the events of its ring within SKEW of the
boundaries it depends on, and by no more.  A percentile of the jobs top
counted lies between that of the jobs certainly in the interval and that
of those perhaps in it, at top's rank, give or take SKEW, as each latency
may differ.

usage: top-check.py DIR     (prints KTAP)
"""

import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ktap import Ktap                   # pylint: disable=wrong-import-position
from tracecmd import pipe_events, read_text as read   # pylint: disable=wrong-import-position

HEAD = re.compile(r'^grtrace top - ([\d.]+)-([\d.]+) s, (\d+) jobs in flight, sort (\S+) '
                  r'\(s\), view (\w+)')
INTERVAL = re.compile(r'grtrace top - ([\d.]+)-([\d.]+) s,')
PROC = re.compile(r'^\s*\d+ \S+\s+[\d.]+\s+[\d.]+\s+(?:[\d.]+|-)\s+(?:[\d.]+|-)$')
# The most one instance's stamp trails the other's: a TCG round-robin
# slice of the other vCPU, and 10 ms of the host's for the QEMU thread.
SKEW_US = 110000
STAMP_US = 20000        # ... and when no vCPU waits between the two
MOVED = 2               # jobs of an interval whose stamps SKEW_US may move
BUSY_TOL = 3.0          # percentage points


def process(f):
    """(tgid, comm) of the task a SUBMIT's fields name"""
    return int(f.get('tgid') or f['pid']), f['comm'][:16]


def near(evs, key, stages, at_us):
    """Events of @stages within STAMP_US of @at_us whose job @key takes:
    key(ring, fence) -> bool; and those within SKEW_US, MOVED at most,
    whose stamp may have moved further."""
    d = [abs(us - at_us) for us, stage, ring, fence, _f in evs
         if stage in stages and abs(us - at_us) <= SKEW_US and key(ring, fence)]
    close = sum(1 for x in d if x <= STAMP_US)
    return close + min(MOVED, len(d) - close)


def live_events(path):
    """[(us, stage, ring, fence, fields)] in time order"""
    evs = [(us, stage, f['dev'] + '/' + f['ring'], f['fence'], f)
           for us, stage, f in pipe_events(path) if 'fence' in f]
    evs.sort(key=lambda e: e[0])
    return evs


def ms(word):
    """A P50_MS or P99_MS cell: milliseconds, None for "-" """
    return None if word == '-' else float(word)


def lat_problem(row, n, lats, lo, hi):
    """How top's p50 and p99 of its @n jobs stray from the latencies of
    the jobs that completed in (lo, hi], certainly or perhaps: @lats,
    [(complete us, latency us)]; None if they do not"""
    def within(skew):
        """(certain, perhaps): latencies of the jobs that completed in
        the interval, its boundaries moved in or out by @skew"""
        return (sorted(lat for us, lat in lats if lo + skew < us <= hi - skew),
                sorted(lat for us, lat in lats if lo - skew < us <= hi + skew))
    certain, perhaps = within(STAMP_US)
    far_certain, far_perhaps = within(SKEW_US)
    for k in (50, 99):
        got = row.get(f'p{k}')
        if not n or got is None:
            if (got is None) != (not n):
                return f'p{k} {got} ms of {n} jobs'
            continue
        i = max((n * k + 99) // 100 - 1, 0)
        # At most MOVED jobs' stamps moved by up to SKEW_US, in or out of
        # the interval or in latency, the others' by up to STAMP_US: top's
        # i-th is within SKEW_US of the i-th of the boundaries moved by
        # SKEW_US, and within STAMP_US of the (i - MOVED)-th and the
        # (i + MOVED)-th of those moved by STAMP_US.
        low = max(lat_low(perhaps, i - MOVED) - STAMP_US,
                  lat_low(far_perhaps, i) - SKEW_US)
        high = min(lat_high(certain, perhaps, n, i + MOVED) + STAMP_US,
                   lat_high(far_certain, far_perhaps, n, i) + SKEW_US)
        if not low <= got * 1000 <= high:
            return f'p{k} {got} ms of {n} jobs, live between {low / 1000} and {high / 1000} ms'
    return None


def lat_low(perhaps, i):
    """The least top's i-th latency can be: top's jobs are among those
    perhaps in the interval"""
    return perhaps[i] if 0 <= i < len(perhaps) else float('-inf')


def lat_high(certain, perhaps, n, i):
    """The most top's i-th latency of its @n can be: its jobs hold the
    certain ones, and are those perhaps in but as many as are not top's"""
    j = i + len(perhaps) - n
    return min(certain[i] if 0 <= i < len(certain) else float('inf'),
               perhaps[j] if 0 <= j < len(perhaps) else float('inf'))


def batch(path):
    """[{from, to, rings: {name: row}, procs: {(pid, comm): row}}]"""
    out = []
    cur = None
    section = None
    for line in read(path).splitlines():
        m = HEAD.match(line)
        if m:
            cur = {'from': float(m.group(1)), 'to': float(m.group(2)), 'rings': {}, 'procs': {}}
            out.append(cur)
            section = None
            continue
        if cur is None or not line.strip():
            continue
        w = line.split()
        if w[0] == 'RING':
            section = 'rings'
        elif w[0] == 'PID':
            section = 'procs'
        elif section == 'rings' and len(w) == 8:
            cur['rings'][w[0]] = {'busy': float(w[1]), 'jobs_s': float(w[2]),
                                  'flight': int(w[3]), 'p50': ms(w[5]), 'p99': ms(w[6])}
        elif section == 'procs' and PROC.match(line):
            cur['procs'][(int(w[0]), w[1])] = {'busy': float(w[2]), 'jobs_s': float(w[3]),
                                               'p50': ms(w[4]), 'p99': ms(w[5])}
    return out


def json_batch(path):
    """top -f json's intervals, as batch() gives the text's."""
    out = []
    for line in read(path).splitlines():
        o = json.loads(line)
        out.append({'from': o['from_s'], 'to': o['to_s'],
                    'rings': {r['ring']: {'busy': r['busy_pct'], 'jobs_s': r['jobs_per_s'],
                                          'flight': r['in_flight'], 'p50': r['p50_ms'],
                                          'p99': r['p99_ms']} for r in o['rings']},
                    'procs': {(p['pid'], p['comm']): {'busy': p['busy_pct'],
                                                      'jobs_s': p['jobs_per_s'],
                                                      'p50': p['p50_ms'], 'p99': p['p99_ms']}
                              for p in o['processes']}})
    return out


def seen_events(evs, start_us, to_us, seen):
    """The events up to to_us of the jobs top saw submitted (after
    start_us), as (us, stage, (ring, fence), SUBMIT fields); seen, (ring,
    fence) -> SUBMIT fields, is filled as they come"""
    for us, stage, ring, fence, f in evs:
        if us > to_us:
            break
        key = (ring, fence)
        if stage == 'submit' and us > start_us:
            seen[key] = f
        if key in seen:
            yield us, stage, key, seen[key]


def expect(evs, start_us, from_us, to_us):
    """What top should show for (from_us, to_us]: per ring the jobs completed
    and the jobs in flight at its end, per process the jobs completed; and,
    per ring and per process, the latency of each job completed within
    SKEW of the interval, [(complete us, latency us)]"""
    seen = {}
    submitted = {}
    jobs = {}
    procs = {}
    lats = {}
    done = set()
    for us, stage, key, sub in seen_events(evs, start_us, to_us + SKEW_US, seen):
        if stage == 'submit':
            submitted.setdefault(key, us)
        if stage != 'complete':
            continue
        if us > from_us - SKEW_US:
            for group in (key[0], process(sub)):
                lats.setdefault(group, []).append((us, us - submitted[key]))
        if us > to_us:
            continue
        done.add(key)
        if us > from_us:
            jobs[key[0]] = jobs.get(key[0], 0) + 1
            p = process(sub)
            procs[p] = procs.get(p, 0) + 1
    flight = {}
    for (ring, fence) in seen:
        if (ring, fence) not in done and submitted[(ring, fence)] <= to_us:
            flight[ring] = flight.get(ring, 0) + 1
    return jobs, flight, procs, lats


def union_busy(evs, start_us, from_us, to_us, by):
    """by(ring, SUBMIT fields) -> us of (from, to] with one of its jobs that
    top saw submitted between COMMIT and END"""
    count = {}
    since = {}
    busy = {}
    ended = set()
    for us, stage, key, sub in seen_events(evs, start_us, to_us, {}):
        group = by(key[0], sub)
        t = max(us, from_us)
        if stage == 'commit':
            if not count.get(group):
                since[group] = t
            count[group] = count.get(group, 0) + 1
        elif stage in ('end', 'complete') and key not in ended and count.get(group):
            ended.add(key)
            count[group] -= 1
            if not count[group]:
                busy[group] = busy.get(group, 0) + t - since[group]
    for group, n in count.items():
        if n:
            busy[group] = busy.get(group, 0) + to_us - since[group]
    return busy


def against_live(evs, ivs, diag):
    """What differs between top's intervals and the live stream's; each
    ring's figures beside the stream's to diag()."""
    start = ivs[0]['from'] * 1e6 if ivs else 0
    # The process of each job, from its SUBMIT (the other events name none).
    owner = {(ring, fence): process(f)
             for _us, stage, ring, fence, f in evs if stage == 'submit' and 'pid' in f}
    bad = []
    for k, iv in enumerate(ivs[1:], 1):
        lo, hi = iv['from'] * 1e6, iv['to'] * 1e6
        secs = iv['to'] - iv['from']
        jobs, flight, procs, lats = expect(evs, start, lo, hi)
        busy = union_busy(evs, start, lo, hi, lambda ring, f: ring)
        pbusy = union_busy(evs, start, lo, hi,
                           lambda ring, f: process(f))
        for ring in set(jobs) | set(iv['rings']):
            row = iv['rings'].get(ring, {'jobs_s': 0, 'busy': 0, 'flight': 0})
            got = round(row['jobs_s'] * secs)
            want = jobs.get(ring, 0)
            b = 100.0 * busy.get(ring, 0) / (hi - lo)
            diag(f'interval {k} {ring}: jobs {got} (live {want}), busy {row["busy"]:.1f}% '
                 f'(live {b:.1f}%), in flight {row["flight"]} (live {flight.get(ring, 0)})')
            mine = lambda r, _fence, ring=ring: r == ring
            jtol = near(evs, mine, ('complete',), lo) + near(evs, mine, ('complete',), hi)
            ftol = near(evs, mine, ('submit', 'complete'), hi)
            if abs(got - want) > jtol or abs(row['busy'] - b) > BUSY_TOL or \
               abs(row['flight'] - flight.get(ring, 0)) > ftol:
                bad.append(f'interval {k} {ring}: top {row}, live jobs {want} busy {b:.1f} '
                           f'flight {flight.get(ring, 0)}')
            elif 'p50' in row and (why := lat_problem(row, got, lats.get(ring, []), lo, hi)):
                bad.append(f'interval {k} {ring}: {why}')
        for p in set(procs) | set(iv['procs']):
            row = iv['procs'].get(p, {'jobs_s': 0, 'busy': 0})
            got = round(row['jobs_s'] * secs)
            b = 100.0 * pbusy.get(p, 0) / (hi - lo)
            mine = lambda r, fence, p=p: owner.get((r, fence)) == p
            jtol = near(evs, mine, ('complete',), lo) + near(evs, mine, ('complete',), hi)
            if abs(got - procs.get(p, 0)) > jtol or abs(row['busy'] - b) > BUSY_TOL:
                bad.append(f'interval {k} {p}: top {got} jobs, busy {row["busy"]}; '
                           f'live {procs.get(p, 0)}, {b:.1f}')
            elif 'p50' in row and (why := lat_problem(row, got, lats.get(p, []), lo, hi)):
                bad.append(f'interval {k} {p}: {why}')
    return bad


def main():
    d = sys.argv[1]
    out = Ktap('top:', 10)
    text = read(os.path.join(d, 'top-batch.txt'))
    ivs = batch(os.path.join(d, 'top-batch.txt'))
    out.result(len(ivs) == 4 and 'top -b: exit 0' in text,
               'top -b -n 4 printed four intervals and exited 0', text[-300:])
    evs = live_events(os.path.join(d, 'live.txt'))
    bad = against_live(evs, ivs, out.diag)
    busy_any = [r for iv in ivs[1:] for r in iv['rings'].values() if r['jobs_s'] > 0]
    out.result(len(ivs) > 1 and busy_any and not bad,
               'per interval, each ring\'s jobs, BUSY%, jobs in flight and latency p50 and '
               'p99, and each process\'s jobs, BUSY%, p50 and p99, as the live stream has them',
               '\n'.join(bad[:10]))
    try:
        jivs = json_batch(os.path.join(d, 'top.json'))
        bad = against_live(evs, jivs, lambda s: out.diag('json: ' + s))
    except (OSError, ValueError, KeyError, TypeError) as e:
        jivs, bad = [], [repr(e)]
    err = read(os.path.join(d, 'top-json.err'))
    out.result(len(jivs) == 4 and 'top -f json: exit 0' in err and not bad,
               'top -f json: four intervals, their rings and processes as the live '
               'stream has them', '\n'.join(bad[:10]) + err[-300:])
    names = {p[1] for iv in ivs for p in iv['procs']}
    out.result({'kmscube', 'glmark2-es2-drm'} <= names,
               'the processes of the batch run include kmscube and glmark2-es2-drm',
               str(sorted(names)))

    rings = read(os.path.join(d, 'top-rings.txt'))
    procs = read(os.path.join(d, 'top-procs.txt'))
    srt = read(os.path.join(d, 'top-sorted.txt'))
    # top's own markers: each interval lasts at least the period asked (1 s;
    # top once refreshed as fast as it could without -n), and in batch mode
    # each starts where the one before ended, by the clock top reports.  How
    # late after its deadline top ran is the guest scheduler's doing, not
    # top's: under single-threaded TCG beside other guests, intervals of 4 s
    # were seen.  No upper bound is derived from what this check knows.
    lens = [iv['to'] - iv['from'] for iv in ivs]
    gaps = [round(b['from'] - a['to'], 6) for a, b in zip(ivs, ivs[1:])]
    for text in (rings, procs, srt):
        lens += [float(b) - float(a) for a, b in INTERVAL.findall(text)]
    out.result(len(lens) >= 7 and all(x >= 0.999 for x in lens) and not any(gaps),
               'each interval, in batch mode and in the terminal, lasts at least the 1 s '
               'asked, batch intervals back to back',
               ' '.join(f'{x:.3f}' for x in lens) + f'; gaps {gaps}')
    m = re.search(r'^0000:00:02\.0/control\s+([\d.]+)\s+([\d.]+)', rings, re.M)
    out.result('view rings' in rings and m and float(m.group(2)) > 0,
               'tmux: the ring view shows the virtio-gpu control ring with jobs per second',
               rings[:600])
    out.result('view processes' in procs and re.search(r'^\s*\d+ kmscube ', procs, re.M) and
               re.search(r'^\s*\d+ glmark2-es2-drm ', procs, re.M) and 'RING' not in procs,
               'tmux: key v shows the processes, kmscube and glmark2-es2-drm', procs[:600])
    out.result('sort jobs/s' in srt and 'sort busy' in procs,
               'tmux: key s sorts by the next key (busy, then jobs/s)', srt[:300])
    summ = read(os.path.join(d, 'top-summary.txt'))
    rows = re.findall(r'^0000:00:02\.0/control\s+([\d.]+)\s+([\d.]+)', summ, re.M)
    out.result('top --summary: exit 0' in summ and any(float(j) > 0 and float(b) > 0
                                                       for b, j in rows),
               'top --summary: the aggregate_only windows of the control ring, busy and jobs',
               summ[-400:])
    err = read(os.path.join(d, 'top-tmux.err'))
    out.result(rings and not err.strip(), 'tmux: key q ends top, and its session with it', err)
    return out.finish()


if __name__ == '__main__':
    sys.exit(main())
