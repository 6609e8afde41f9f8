#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check grtrace top on a real run (issue: a live view), in KTAP.

scripts/guest/tests/crash.sh ran it while kmscube and glmark2-es2-drm
rendered on virgl: in batch mode for four intervals (top-batch.txt), beside
it another top, whose intervals are JSON objects (top.json), each with the
events it read (--trace: top-batch.trace, top-json.trace), and in a
terminal, tmux, whose pane it captured showing the rings (top-rings.txt),
then the processes after the key v (top-procs.txt), then after the key s
(top-sorted.txt), before q.

From each run's own events this counts every interval again, by top's
rules as grtrace-top(1) gives them: the events read up to the marker that
ends the interval and stamped up to it (and after top's start), that no
interval before counted, in time order; a job counts from its SUBMIT;
per ring the share of the interval with a job between COMMIT and END,
the jobs completed, in flight, their peak, the latency p50, p99 and
highest of the jobs completed, the errors; per process report's columns of
the jobs it completed: their number, GPU time (each stage's last stamp:
START, else COMMIT, else SUBMIT to END, else to COMPLETE, as report's EXEC
or DEVICE, negative if the stamps say so), its share of all processes' GPU
time, the latency p50, p99 and highest, the job of the highest (of equals
the one top counted first), the kernel's workers in one row "kworker/*
(N)" when several completed jobs, as report's summary shows them.
Each figure must be top's as printed, to its last digit: the stamps are
the ones top read (another ftrace instance stamps each event on
its own, up to a TCG time slice later: a comparison with it could only
bound top's figures).

usage: top-check.py DIR     (prints KTAP)
"""

import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ktap import Ktap                   # pylint: disable=wrong-import-position
from tracecmd import read_text as read   # pylint: disable=wrong-import-position

HEAD = re.compile(r'^grtrace top - ([\d.]+)-([\d.]+) s, (\d+) jobs in flight, sort (\S+) '
                  r'\(s\), view (\w+)')
INTERVAL = re.compile(r'grtrace top - ([\d.]+)-([\d.]+) s,')
# PID COMM JOBS GPU_TIME SHARE% LAT_P50 LAT_P99 LAT_MAX SLOWEST; COMM in 16
# columns, the kernel's workers' row without a PID
PROC = re.compile(r'^ *(\d+|-) (.{16}) +(\d+) +(-?[\d.]+) +(-?[\d.]+)' + r' +([\d.]+|-)' * 3 +
                  r' (\d+:\d+|-)$')
# A line of top --trace: "comm-pid [cpu] sec.nsec: name: fields"
LINE = re.compile(r'^(.+?)-(\d+) \[(\d+)\] (\d+)\.(\d{9}): (\w+): (.*)$')
MARK = re.compile(r'grtrace_top (\d+) (\d+)')


def read_trace(path):
    """top --trace's file: (events, markers); an event (ns, position, read,
    stage, fields) of a job, a marker n -> ns"""
    evs, marks = [], {}
    r = 0
    for pos, line in enumerate(read(path).splitlines()):
        if line.startswith('# read '):
            r = int(line.split()[2])
            continue
        m = LINE.match(line)
        if not m:
            continue
        ns = int(m.group(4)) * 1000000000 + int(m.group(5))
        if m.group(6) == 'print':
            mk = MARK.search(m.group(7))
            if mk:
                marks[int(mk.group(1))] = ns
        elif m.group(6).startswith('grtrace_'):
            f = dict(re.findall(r'(\w+)=(\S+)', m.group(7)))
            # a task's name may hold spaces: the SUBMIT's comm, up to its client_id
            c = re.search(r' comm=(.*) client_id=', m.group(7))
            if c:
                f['comm'] = c.group(1)
            if 'fence' in f:
                evs.append((ns, pos, r, m.group(6)[len('grtrace_'):], f))
    return evs, marks


def pct(lat, k):
    """gr_pct_index(): the nearest rank"""
    lat = sorted(lat)
    return lat[max((len(lat) * k + 99) // 100 - 1, 0)] if lat else None


def us(ns, text):
    """a LAT_P50, LAT_P99 or LAT_MAX cell: in text us to the ns, in JSON
    ns (none below 0: a COMPLETE stamped before its SUBMIT, counted an
    interval later)"""
    if ns is None or ns < 0:
        return '-'
    return '%.3f' % (ns / 1e3) if text else str(ns)


class Group:
    """A ring's or a process's figures of an interval"""
    def __init__(self):
        self.in_dev = self.busy_from = self.busy = self.jobs = self.gpu = 0
        self.errors = self.flying = self.peak = 0
        self.lat = []
        self.slow = None        # (latency, fence) of the first of the highest
        self.comm = ''
        self.leader = False     # comm is the leader's (a SUBMIT of pid tgid)

    def done(self, lat, fence):
        if self.slow is None or lat > self.slow[0]:
            self.slow = (lat, fence)
        self.lat.append(lat)

    def enter(self, ts):
        if not self.in_dev:
            self.busy_from = ts
        self.in_dev += 1

    def leave(self, ts):
        if not self.in_dev:
            return
        self.in_dev -= 1
        if not self.in_dev and ts > self.busy_from:
            self.busy += ts - self.busy_from


def count(evs, marks, bounds, text):
    """top's figures of each interval (from ns, to ns) of @bounds, from its
    events: [(rings {label: row}, procs {(tgid, comm): row}, jobs in
    flight)], a row's cells as top prints them (@text), its percentages
    with 1 decimal in text, 3 in JSON ('%.Nf' rounds the double as printf
    does): rings busy, jobs, flight, peak, p50, p99, highest (JSON: the
    slowest job), errors (JSON: then GPU time, share); processes jobs, GPU
    time, share, p50, p99, highest, slowest job"""
    prec = 1 if text else 3
    start = marks[0]
    by_ns = {ns: n for n, ns in marks.items()}
    done = set()
    jobs, unseen = {}, []
    rings, procs = {}, {}
    out = []
    for lo, hi in bounds:
        last = by_ns.get(hi)
        for g in list(rings.values()) + list(procs.values()):
            g.busy, g.busy_from, g.jobs, g.gpu, g.errors, g.lat, g.slow = 0, lo, 0, 0, 0, [], None
            g.peak = g.flying
        todo = sorted((e for e in evs if e[1] not in done and e[2] <= (last or 0) and e[0] <= hi),
                      key=lambda e: (e[0], e[1]))
        for ns, pos, _r, stage, f in todo:
            done.add(pos)
            if ns < start:
                continue
            ring = rings.setdefault(f['dev'] + '/' + f['ring'], Group())
            key = (f['dev'], f['ring_id'], f['fence'])
            ts = max(ns, lo)
            j = jobs.get(key)
            if stage == 'submit':
                if key in unseen[-256:] or j:
                    continue
                tgid = int(f.get('tgid') or 0) or int(f['pid'])
                # named as its leader, else as the first to submit
                if tgid not in procs:
                    procs[tgid] = Group()
                g = procs[tgid]
                if not g.leader and f['comm'] and (not g.comm or int(f['pid']) == tgid):
                    g.comm = f['comm'][:15]
                    g.leader = int(f['pid']) == tgid
                jobs[key] = {'submit': ns, 'proc': procs[tgid], 'ring': ring, 'on': False,
                             'commit': 0, 'start': 0, 'end': 0}
                ring.flying += 1
                ring.peak = max(ring.peak, ring.flying)
            elif stage == 'commit' and j:
                # on the device (BUSY%) from its first, GPU time from its last
                if not j['commit']:
                    j['on'] = True
                    ring.enter(ts)
                j['commit'] = ns
            elif stage == 'start' and j:
                j['start'] = ns
            elif stage == 'end' and j:
                j['end'] = ns
                if j['on']:
                    j['on'] = False
                    ring.leave(ts)
            elif stage == 'error':
                ring.errors += 1
            elif stage == 'complete':
                if not j:
                    unseen.append(key)
                    continue
                if int(f.get('status', 0)) < 0:
                    ring.errors += 1
                if j['on']:
                    ring.leave(ts)
                ring.jobs += 1
                j['proc'].jobs += 1
                # report's EXEC or DEVICE (gr_job_gpu())
                gpu = (j['end'] or ns) - (j['start'] or j['commit'] or j['submit'])
                ring.gpu += gpu
                j['proc'].gpu += gpu
                ring.done(ns - j['submit'], f['fence'])
                j['proc'].done(ns - j['submit'], f['fence'])
                ring.flying = max(ring.flying - 1, 0)
                del jobs[key]
        for g in rings.values():
            if g.in_dev and hi > g.busy_from:
                g.busy += hi - g.busy_from
        total = sum(g.gpu for g in procs.values())

        def share(gpu):
            return '%.*f' % (prec, 100.0 * gpu / total if total else 0)

        def slow(g):
            return (us(g.slow[0], text), g.slow[1]) if g.slow else ('-', '-')

        def gpu(g):
            return '%.3f' % (g.gpu / 1e3) if text else str(g.gpu)
        rr = {k: ('%.*f' % (prec, 100.0 * g.busy / (hi - lo)), str(g.jobs),
                  str(g.flying), str(g.peak), us(pct(g.lat, 50), text), us(pct(g.lat, 99), text),
                  slow(g)[0]) + (() if text else (slow(g)[1],)) + (str(g.errors),) +
                 (() if text else (str(g.gpu), share(g.gpu)))
              for k, g in rings.items()}
        # the kernel's workers, which submit for no process in particular,
        # in one row when several did, in the order top met them
        rows = {(t, g.comm): g for t, g in procs.items() if g.jobs}
        workers = [k for k in rows if k[1].startswith('kworker/')]
        if len(workers) > 1:
            kw = Group()
            kw.comm = 'kworker/* (%d)' % len(workers)
            for k in workers:
                g = rows.pop(k)
                kw.jobs += g.jobs
                kw.gpu += g.gpu
                if g.slow and (kw.slow is None or g.slow[0] > kw.slow[0]):
                    kw.slow = g.slow
                kw.lat += g.lat
            rows[(None, kw.comm)] = kw
        pr = {p: (str(g.jobs), gpu(g), share(g.gpu), us(pct(g.lat, 50), text),
                  us(pct(g.lat, 99), text)) + slow(g)
              for p, g in rows.items()}
        out.append((rr, pr, len(jobs)))
    return out


def batch(path):
    """[{from, to, flight, rings: {name: cells}, procs: {(pid, comm): cells}}]"""
    out = []
    cur = None
    section = None
    for line in read(path).splitlines():
        m = HEAD.match(line)
        if m:
            cur = {'from': m.group(1), 'to': m.group(2), 'flight': int(m.group(3)),
                   'rings': {}, 'procs': {}}
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
        elif section == 'rings' and len(w) == 9:
            cur['rings'][w[0]] = tuple(w[1:])
        elif section == 'procs' and PROC.match(line):
            m = PROC.match(line)
            pid = None if m.group(1) == '-' else int(m.group(1))
            cur['procs'][(pid, m.group(2).rstrip())] = m.groups()[2:]
    return out


def json_batch(path):
    """top -f json's intervals, as batch() gives the text's, each figure
    as JSON has it (a percentage as '%.3f' prints it, '-' for null)"""
    def c(v):
        return '-' if v is None else '%.3f' % v if isinstance(v, float) else str(v)
    out = []
    for line in read(path).splitlines():
        o = json.loads(line)
        out.append({'from': '%.9f' % o['from_s'], 'to': '%.9f' % o['to_s'],
                    'flight': o['in_flight'],
                    'rings': {r['ring']: (c(r['busy_pct']), c(r['jobs']),
                                          str(r['in_flight']), str(r['peak']),
                                          c(r['lat_p50']), c(r['lat_p99']), c(r['lat_max']),
                                          c(r['slowest']), str(r['errors']),
                                          c(r['gpu_time']), c(r['share_pct']))
                              for r in o['rings']},
                    'procs': {(p['pid'], p['comm']): (c(p['jobs']), c(p['gpu_time']),
                                                      c(p['share_pct']), c(p['lat_p50']),
                                                      c(p['lat_p99']), c(p['lat_max']),
                                                      c(p['slowest']))
                              for p in o['processes']}})
    return out


def against_trace(path, ivs, text, diag):
    """What differs between top's intervals and its own events, counted
    again; each ring's figures beside the count to diag()."""
    evs, marks = read_trace(path)
    if 0 not in marks:
        return ['%s: no start marker (grtrace_top 0)' % path]
    prec = 3 if text else 9
    # Each interval starts at the end of the one before (the first at the
    # start marker) and ends at a marker: in text, to the ms, the latest of
    # those the end rounds to (a short interval's mark and the one a period
    # after it can be under a ms apart)
    bounds = []
    lo = marks[0]
    for iv in ivs:
        ends = [t for t in marks.values() if '%.*f' % (prec, t / 1e9) == iv['to']]
        if '%.*f' % (prec, lo / 1e9) != iv['from'] or not ends:
            return ['%s: interval %s-%s s: not from %.9f to a marker' %
                    (path, iv['from'], iv['to'], lo / 1e9)]
        bounds.append((lo, max(ends)))
        lo = max(ends)
    bad = []
    zero = '%.*f' % (1 if text else 3, 0)
    counted = count(evs, marks, bounds, text)
    for k, (iv, (rings, procs, flight)) in enumerate(zip(ivs, counted)):
        if flight != iv['flight']:
            bad.append(f'interval {k}: {iv["flight"]} jobs in flight, counted {flight}')
        for ring in sorted(set(rings) | set(iv['rings'])):
            # a ring top knows of but the count does not: nothing counted
            want = rings.get(ring, (zero, '0', '0', '0', '-', '-', '-') +
                             (('0',) if text else ('-', '0', '0', zero)))
            got = iv['rings'].get(ring)
            diag(f'interval {k} {ring}: {got} (counted {" ".join(want)})')
            if got != want:
                bad.append(f'interval {k} {ring}: top {got}, counted {want}')
        for p in sorted(set(procs) | set(iv["procs"]), key=str):
            want = procs.get(p)
            got = iv['procs'].get(p)
            if got != want:
                bad.append(f'interval {k} {p}: top {got}, counted {want}')
    return bad


def main():
    d = sys.argv[1]
    out = Ktap('top:', 11)
    text = read(os.path.join(d, 'top-batch.txt'))
    ivs = batch(os.path.join(d, 'top-batch.txt'))
    out.result(len(ivs) == 4 and 'top -b: exit 0' in text,
               'top -b -n 4 printed four intervals and exited 0', text[-300:])
    bad = against_trace(os.path.join(d, 'top-batch.trace'), ivs, True, out.diag)
    busy_any = [r for iv in ivs[1:] for r in iv['rings'].values() if float(r[1]) > 0]
    out.result(len(ivs) > 1 and busy_any and not bad,
               'per interval, each ring\'s BUSY%, jobs, jobs in flight and their peak, '
               'latency p50, p99 and highest and errors, and each process\'s jobs, GPU time, '
               'share, latency p50, p99 and highest and slowest job (the kernel\'s workers in '
               'one row), as its own events give them (--trace), to the last digit',
               '\n'.join(bad[:10]))
    try:
        jivs = json_batch(os.path.join(d, 'top.json'))
        bad = against_trace(os.path.join(d, 'top-json.trace'), jivs, False,
                            lambda s: out.diag('json: ' + s))
    except (OSError, ValueError, KeyError, TypeError) as e:
        jivs, bad = [], [repr(e)]
    err = read(os.path.join(d, 'top-json.err'))
    out.result(len(jivs) == 4 and 'top -f json: exit 0' in err and not bad,
               'top -f json: four intervals, their rings and processes as its own events '
               'give them, to the last digit', '\n'.join(bad[:10]) + err[-300:])
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
    lens = [float(iv['to']) - float(iv['from']) for iv in ivs]
    gaps = [round(float(b['from']) - float(a['to']), 6) for a, b in zip(ivs, ivs[1:])]
    for text in (rings, procs, srt):
        lens += [float(b) - float(a) for a, b in INTERVAL.findall(text)]
    out.result(len(lens) >= 7 and all(x >= 0.999 for x in lens) and not any(gaps),
               'each interval, in batch mode and in the terminal, lasts at least the 1 s '
               'asked, batch intervals back to back',
               ' '.join(f'{x:.3f}' for x in lens) + f'; gaps {gaps}')
    m = re.search(r'^0000:00:02\.0/control\s+([\d.]+)\s+([\d.]+)', rings, re.M)
    out.result('view rings' in rings and m and float(m.group(2)) > 0,
               'tmux: the ring view shows the virtio-gpu control ring with jobs',
               rings[:600])
    out.result('view processes' in procs and re.search(r'^\s*\d+ kmscube ', procs, re.M) and
               re.search(r'^\s*\d+ glmark2-es2-drm ', procs, re.M) and 'RING' not in procs,
               'tmux: key v shows the processes, kmscube and glmark2-es2-drm', procs[:600])
    out.result('sort jobs ' in srt and 'sort time ' in procs,
               'tmux: key s sorts by the next key (time, then jobs)', srt[:300])
    small = read(os.path.join(d, 'top-small.txt')).rstrip('\n').split('\n')
    more = re.fullmatch(r'\((\d+) more\)', small[-1]) if small else None
    out.result(len(small) <= 7 and more and re.match(r' *(\d+|-) ', small[-2]) and
               int(more.group(1)) >= 1,
               'tmux: a terminal of 7 lines (SIGWINCH) draws one process and how many more',
               '\n'.join(small))
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
