#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""i915's request events, read by the tool: a recording of Debian's kernel
with i915's formats, its requests made here.

  i915-check.py GRTRACE SEED.DAT

SEED.DAT is step stock's recording ("grtrace record" on Debian's own
kernel, i915.ko loaded without an Intel GPU): it holds the formats of
i915's request events as that kernel defines them, and none of the events,
since no request was ever made.  This script writes requests into a copy
of it, in the ring buffer's page layout (include/linux/ring_buffer.h), by
those formats: i915_request_add by two of the recording's own processes
on three engines (a load-balanced one among them), dma_fence_signaled of
each request's fence, i915_request_retire (before the signal for every
third request, as i915_request_retire() traces before it signals a fence
not signalled yet); the last request never signals.  Then "grtrace
report" must give each request as its events say: ring, fence, process,
stamps, latency, and COMMIT, START and END unknown (the kernel has no
low-level tracepoints); "--per-process", "--in-flight", "dump" and
"export --chrome" must agree.  KTAP.
"""
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ktap import Ktap                   # pylint: disable=wrong-import-position
from sibling import load                # pylint: disable=wrong-import-position

gen = load('gen-tracedat.py')

TIME_EXTEND = 30
# (uabi class, uabi instance, the ring's name): I915_ENGINE_CLASS_RENDER,
# _COPY, and _VIDEO on a load-balanced engine (I915_ENGINE_CLASS_INVALID_VIRTUAL)
ENGINES = [(0, 0, 'rcs0'), (1, 0, 'bcs0'), (2, 0xfffe, 'vcs-virtual')]
NR = 30
EVENTS = ('i915_request_add', 'i915_request_retire', 'dma_fence_signaled')


def processes(path):
    """Up to two (comm, pid) of the recording's commands, as trace-cmd names them"""
    out = subprocess.run(['trace-cmd', 'report', '-i', path], check=True,
                         capture_output=True, text=True).stdout
    seen = []
    for line in out.splitlines():
        m = re.match(r'\s*(\S+)-(\d+)\s+\[\d+\].*virtio_gpu_cmd_queue:', line)
        if m and not m.group(1).startswith(('kworker', '<')) and \
                m.group(1) not in [c for c, _ in seen]:
            seen.append((m.group(1), int(m.group(2))))
    return seen[:2]


def payload(fmt, pid, values, strings=()):
    """An event's data by its format: common fields, @values, and the
    __data_loc strings of @strings after the fixed fields"""
    eid, fields = fmt
    size = max(o + s for o, s in fields.values())
    data = bytearray(size)
    struct.pack_into('<H', data, 0, eid)
    struct.pack_into('<i', data, fields['common_pid'][0], pid)
    for name, v in values.items():
        o, s = fields[name]
        data[o:o + s] = (v % (1 << (8 * s))).to_bytes(s, 'little')
    for name, text in strings:
        raw = text.encode() + b'\0'
        o, _ = fields[name]
        struct.pack_into('<I', data, o, (len(raw) << 16) | len(data))
        data += raw
    return bytes(data)


def pages(events, psize):
    """The events (time, data) in ring buffer pages of @psize bytes"""
    out, page, last = [], None, 0
    for ts, data in events:
        n = (len(data) + 3) // 4 * 4
        rec = data + bytes(n - len(data))
        assert n <= 28 * 4, 'an event longer than one header says'
        if page is None or len(page) + 8 + 4 + n > psize:
            if page is not None:
                struct.pack_into('<Q', page, 8, len(page) - 16)
                out.append(bytes(page) + bytes(psize - len(page)))
            page, last = bytearray(struct.pack('<QQ', ts, 0)), ts
        delta = ts - last
        if delta >= 1 << 27:
            page += struct.pack('<II', ((delta & 0x7ffffff) << 5) | TIME_EXTEND, delta >> 27)
            delta = 0
        page += struct.pack('<I', (delta << 5) | (n // 4)) + rec
        last = ts
    if page is not None:
        struct.pack_into('<Q', page, 8, len(page) - 16)
        out.append(bytes(page) + bytes(psize - len(page)))
    return out


def requests(procs, start):
    """The requests written: one a process and engine's turn, 150 us apart"""
    reqs, seqno = [], {}
    for k in range(NR):
        p = k % len(procs)
        cls, inst, name = ENGINES[(k // 2) % len(ENGINES)]
        # A timeline a GEM context and engine; the second process's
        # fence contexts above 32 bits, which dma_fence_signaled cuts
        ctx = (p << 32) + 0x600 + 16 * p + ENGINES.index((cls, inst, name))
        seqno[ctx] = seqno.get(ctx, 0) + 1
        add = start + k * 150_000
        lat = 40_000 + 7_919 * k
        reqs.append({'ring': 'card0/' + name, 'class': cls, 'instance': inst, 'ctx': ctx,
                     'seqno': seqno[ctx], 'comm': procs[p][0], 'pid': procs[p][1],
                     'add': add, 'signal': None if k == NR - 1 else add + lat,
                     'retire_first': k % 3 == 1})
    return reqs


def write(seed, dest, reqs, fmts):
    """@seed (trace-cmd's v6, uncompressed) with @reqs' events after its
    own on its first CPU"""
    data = open(seed, 'rb').read()
    table, cpus = gen.cpu_table(data)
    psize = struct.unpack_from('<I', data, 14)[0]
    evs = []
    for r in reqs:
        common = {'dev': 0, 'ctx': r['ctx'], 'class': r['class'], 'instance': r['instance'],
                  'seqno': r['seqno'], 'tail': 0}
        evs.append((r['add'], payload(fmts['i915_request_add'], r['pid'], common)))
        if r['signal'] is None:
            continue
        evs.append((r['signal'], payload(
            fmts['dma_fence_signaled'], 0, {'context': r['ctx'], 'seqno': r['seqno']},
            [('driver', 'i915'), ('timeline', '%s[%d]' % (r['comm'], r['pid']))])))
        retire = r['signal'] - 2_000 if r['retire_first'] else r['signal'] + 15_000
        evs.append((retire, payload(fmts['i915_request_retire'], 0, common)))
    evs.sort(key=lambda e: e[0])
    new = pages(evs, psize)
    with open(dest, 'wb') as out:
        out.write(data[:cpus[0][0]])
        pos, table_new = cpus[0][0], []
        for c, (off, size) in enumerate(cpus):
            at = pos
            out.write(data[off:off + size])
            pos += size
            if c == 0:
                for pg in new:
                    out.write(pg)
                    pos += psize
            table_new.append((at, pos - at))
        gen.write_table(out, table, table_new)


def last_ts(seed):
    """The time of the recording's last event"""
    data = open(seed, 'rb').read()
    _, cpus = gen.cpu_table(data)
    psize = struct.unpack_from('<I', data, 14)[0]
    last = 0
    for off, size in cpus:
        for q in range(off, off + size, psize):
            last = max(last, gen.events(data[q:q + psize], psize)[2])
    return last


def report(grtrace, dat, *args):
    return json.loads(subprocess.run([grtrace, 'report', '-i', dat, '-f', 'json', *args],
                                     check=True, capture_output=True, text=True).stdout)


def main():
    grtrace, seed = sys.argv[1:3]
    k = Ktap('i915:', 8)
    with tempfile.TemporaryDirectory() as tmp:
        v6, dat = tmp + '/seed.dat', tmp + '/i915.dat'
        try:
            subprocess.run(['trace-cmd', 'convert', '-i', seed, '-o', v6, '--file-version',
                            '6', '--compression', 'none'], check=True, capture_output=True)
            fmts = gen.event_formats(v6)
            procs = processes(v6)
        except (OSError, subprocess.CalledProcessError) as e:
            k.result(False, 'trace-cmd reads the recording', e)
            return k.finish()
        missing = [e for e in EVENTS if e not in fmts]
        k.result(not missing and len(procs) == 2,
                 "the recording has the formats of Debian's i915 request events and "
                 "two processes that sent commands",
                 f"formats missing: {missing}; processes {procs}")
        if missing or len(procs) < 2:
            return k.finish()
        reqs = requests(procs, last_ts(v6) + 1_000_000)
        write(v6, dat, reqs, fmts)
        try:
            rep = report(grtrace, dat, '--jobs')
            procrep = report(grtrace, dat, '--per-process')
            flight = report(grtrace, dat, '--in-flight')
            dump = subprocess.run([grtrace, 'dump', dat], check=True, capture_output=True,
                                  text=True).stdout
            subprocess.run([grtrace, 'export', '--chrome', tmp + '/i915.json', '-i', dat],
                           check=True, capture_output=True)
            chrome = json.load(open(tmp + '/i915.json'))['traceEvents']
        except (OSError, ValueError, subprocess.CalledProcessError) as e:
            k.result(False, 'grtrace report reads the recording with the requests', e)
            return k.finish()

    kev = rep['session'].get('kernel_events', {})
    want = {'i915_request_add': NR, 'i915_request_retire': NR - 1}
    k.result(all(kev.get(n) == v for n, v in want.items()),
             'the header counts the i915 events written',
             f"kernel_events {kev}")

    jobs = {(j['ring'], j['fence']): j for j in rep['jobs'] if j['ring'].startswith('card0/')}
    bad = []
    for r in reqs:
        key = (r['ring'], '%d:%d' % (r['ctx'], r['seqno']))
        j = jobs.get(key)
        lat = None if r['signal'] is None else r['signal'] - r['add']
        want = {'comm': r['comm'], 'pid': r['pid'], 'ctx': r['ctx'], 'submit_ns': r['add'],
                'complete_ns': r['signal'], 'latency': lat, 'commit_ns': None,
                'start_ns': None, 'end_ns': None, 't_submit_host': None, 't_device': None}
        if j is None:
            bad.append((key, 'missing'))
            continue
        diff = {f: (j.get(f), v) for f, v in want.items() if j.get(f) != v}
        if diff:
            bad.append((key, diff))
    k.result(not bad and len(jobs) == NR,
             'grtrace report: each request a job of its engine, fence, process, '
             'SUBMIT at its add, COMPLETE at its signal; COMMIT, START, END unknown',
             f"{len(jobs)} jobs of card0 for {NR} requests; {len(bad)} differ, first {bad[:3]}")

    names = sorted({r['ring'] for r in reqs})
    got = sorted({j['ring'] for j in rep['jobs'] if j['ring'].startswith('card0/')})
    k.result(got == names, "the rings: card0's engines as intel_gpu_top names them, "
             "the load-balanced one apart", f"{got} against {names}")

    # The recording's own virtio-gpu commands are jobs of the same
    # processes, with no latency (their SUBMIT is unknown): a process's
    # latencies are its requests'.
    want, got = {}, {}
    for r in reqs:
        if r['signal'] is not None:
            want.setdefault('%s[%d]' % (r['comm'], r['pid']), []).append(r['signal'] - r['add'])
    for p in procrep.get('per_process', []):
        if p['group'] in want:
            got[p['group']] = (p['lat_n'], p['lat_min'], p['lat_max'])
    want = {g: (len(v), min(v), max(v)) for g, v in want.items()}
    k.result(got == want,
             'grtrace report --per-process: each process, the number of its requests '
             'signalled, their least and greatest latency', f"{got} against {want}")

    last = reqs[-1]
    got = [(j['ring'], j['fence'], j['comm'], j['stage'], j['first_ns'])
           for j in flight.get('in_flight', [])]
    want = [(last['ring'], '%d:%d' % (last['ctx'], last['seqno']), last['comm'], 'submit',
             last['add'])]
    k.result(got == want,
             'grtrace report --in-flight: the request that never signalled, alone',
             f"{got} against {want}")

    # dump: the records made of the events, a SUBMIT and a COMPLETE a
    # request (the last has none), on the rings of card0's METADATA
    rings = dict(re.findall(r'^metadata .*? ring=(\d+) .*? dev=card0 name=(\S+)', dump, re.M))
    got = sorted((t, 'card0/' + rings[r], f) for t, r, f in
                 re.findall(r'^(submit|complete) .*? ring=(\d+) fence=(\S+) ', dump, re.M)
                 if r in rings)
    want = sorted([('submit', r['ring'], '%d:%d' % (r['ctx'], r['seqno'])) for r in reqs] +
                  [('complete', r['ring'], '%d:%d' % (r['ctx'], r['seqno']))
                   for r in reqs if r['signal'] is not None])
    k.result(got == want, 'grtrace dump: a SUBMIT and a COMPLETE record a request, on its ring',
             f"{len(got)} records of card0 against {len(want)}; first differing "
             f"{[x for x in got if x not in want][:2]} {[x for x in want if x not in got][:2]}")

    # export --chrome: a job slice a signalled request in the process of
    # card0, as long as its latency, and no phase (they are unknown)
    pid = [e['pid'] for e in chrome if e.get('ph') == 'M' and e.get('name') == 'process_name'
           and e['args'].get('name') == 'card0']
    got = sorted((e['args']['fence'], round(e['dur'] * 1000)) for e in chrome
                 if pid and e.get('ph') == 'X' and e.get('cat') == 'job' and e['pid'] == pid[0])
    want = sorted(('%d:%d' % (r['ctx'], r['seqno']), r['signal'] - r['add'])
                  for r in reqs if r['signal'] is not None)
    phases = [e for e in chrome if pid and e.get('ph') == 'X' and e.get('cat') == 'phase' and
              e['pid'] == pid[0]]
    k.result(got == want and not phases,
             'grtrace export --chrome: a job slice a signalled request under card0, '
             'as long as its latency; no phase slice',
             f"{len(got)} slices against {len(want)}, {len(phases)} phase slices; "
             f"first differing {[x for x in got if x not in want][:2]}")
    return k.finish()


if __name__ == '__main__':
    sys.exit(main())
