#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the virtio-gpu end-to-end recording of the guest (tests/30-virtio-e2e.sh).

For every command the virtio_gpu_cmd_queue tracepoint saw on the control
queue, the grtrace tracepoints (trace.dat) and, separately, the relay stream
(events<N>.bin) must hold exactly one SUBMIT and one COMPLETE of that
command, with SUBMIT <= COMMIT <= END <= COMPLETE in time, and the jobs of
the dumb-buffer program must carry its pid and comm.  The tracepoints may
lack the SUBMIT of one command, the one whose virtio_gpu_cmd_queue comes
before any grtrace event: the start of the recording fell between the two.

usage: e2e-check.py DIR      (prints KTAP)
"""

import collections
import glob
import os
import re
import struct
import subprocess
import sys

REC = struct.Struct('<HHIQQQ')                       # struct grtrace_record
JOB = struct.Struct('<QQQQQIHHiIII16s')              # struct grtrace_job_payload
RING = struct.Struct('<IHH32s32s')                   # struct grtrace_ring_info
TYPES = ['submit', 'commit', 'start', 'end', 'complete', 'ctx_switch', 'irq',
         'sync_wait_enter', 'sync_wait_exit', 'error']
METADATA = 0x101

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ktap import Ktap                   # pylint: disable=wrong-import-position
from tracecmd import read_trace         # pylint: disable=wrong-import-position

OUT = None


def check(name, ok, detail=''):
    OUT.result(ok, name, detail)


def read_relay(directory):
    """Job records of the relay files (ts, type name, payload dict), rings."""
    jobs, rings = [], {}
    for path in sorted(glob.glob(os.path.join(directory, 'events*.bin'))):
        data = open(path, 'rb').read()
        off = 0
        while off + REC.size <= len(data):
            rtype, size, _cpu, ts, gseq, _cseq = REC.unpack_from(data, off)
            if size < REC.size or size % 8 or off + size > len(data):
                raise ValueError(f'{path}: bad record at offset {off}')
            body = data[off + REC.size:off + size]
            if rtype == METADATA and len(body) >= RING.size:
                rid, _eng, _r, dev, name = RING.unpack_from(body)
                rings[rid] = (dev.rstrip(b'\0').decode(), name.rstrip(b'\0').decode())
            elif rtype < len(TYPES) and len(body) >= JOB.size:
                f = JOB.unpack_from(body)
                jobs.append((gseq, ts, TYPES[rtype], {
                    'ctx_id': f[0], 'fence_context': f[1], 'fence_seqno': f[2],
                    'aux_context': f[3], 'aux_seqno': f[4],
                    'ring_id': f[5], 'status': f[8], 'depth': f[9], 'pid': f[10],
                    'comm': f[12].rstrip(b'\0').decode(errors='replace')}))
            off += size
        if off != len(data):
            raise ValueError(f'{path}: {len(data) - off} trailing bytes')
    jobs.sort()
    return [(ts, t, f) for _g, ts, t, f in jobs], rings


def check_jobs(sink, queued, answered, jobs, prog_pid, cut=()):
    """jobs: list of (ts, type, seqno, pid, comm) of the control ring.

    answered: the commands whose response the device gave while the
    recording ran; only those can have completed.  cut: the commands the
    start of the recording may have cut, their SUBMIT before it.
    """
    by_seq = collections.defaultdict(lambda: collections.defaultdict(list))
    for ts, typ, seq, pid, comm in jobs:
        by_seq[seq][typ].append((ts, pid, comm))
    queued = [q for q in queued if q not in cut or 'submit' in by_seq.get(q, {})]
    bad_count, bad_order = [], []
    for seq in queued:
        ev = by_seq.get(seq, {})
        want = 1 if seq in answered else 0
        if len(ev.get('submit', [])) != 1 or len(ev.get('complete', [])) != want:
            bad_count.append(seq)
            continue
        if not want:
            continue
        times = [ev[t][0][0] for t in ('submit', 'commit', 'end', 'complete') if t in ev]
        if times != sorted(times) or 'commit' not in ev or 'end' not in ev:
            bad_order.append(seq)
    # The relay session may run longer than trace-cmd: compare the same span.
    lo, hi = min(queued, default=0), max(queued, default=-1)
    submits = sum(1 for j in jobs if j[1] == 'submit' and lo <= j[2] <= hi)
    check(f'{sink}: one SUBMIT per queued command ({len(queued)}), one COMPLETE '
          f'per answered one ({len([q for q in queued if q in answered])})',
          not bad_count and len(queued) > 0, f'seqnos {bad_count[:10]}')
    check(f'{sink}: SUBMIT count equals virtio_gpu_cmd_queue count',
          submits == len(queued), f'{submits} vs {len(queued)}')
    check(f'{sink}: SUBMIT <= COMMIT <= END <= COMPLETE', not bad_order,
          f'seqnos {bad_order[:10]}')
    mine = [j for j in jobs if j[1] == 'submit' and j[4] == 'grtrace_dirtyfb']
    check(f'{sink}: dumb-buffer program jobs carry its pid and comm',
          len(mine) >= 20 and all(j[3] == prog_pid for j in mine),
          f'{len(mine)} jobs, pids {sorted({j[3] for j in mine})} vs {prog_pid}')


def check_depth(jobs):
    """jobs: list of (ts, type, seqno, depth) of the control ring.

    A SUBMIT's depth is the commands on the virtqueue that the driver has not
    taken back, its own included.  The driver reports END as it takes a
    command back, under the lock the depth is read under: the depth is 1 +
    the earlier commands whose END comes after the SUBMIT (commands queued
    before the session, whose END has no SUBMIT, included).
    """
    submits = sorted((ts, seq, depth) for ts, typ, seq, depth in jobs if typ == 'submit')
    known = {seq for _ts, seq, _d in submits}
    ends = {seq: ts for ts, typ, seq, _d in jobs if typ == 'end'}
    orphans = [ts for seq, ts in ends.items() if seq not in known]
    bad, deeper = [], 0
    for i, (ts, seq, depth) in enumerate(submits):
        later = [ends.get(s, float('inf')) for _t, s, _d in submits[max(0, i - 1024):i]]
        want = 1 + sum(e > ts for e in later) + sum(e > ts for e in orphans)
        if depth != want:
            bad.append(f'{seq}: {depth}, not {want}')
        deeper += depth > 1
    check('relay: SUBMIT depth counts the commands on the virtqueue '
          f'({deeper} of {len(submits)} SUBMITs deeper than 1)',
          submits and not bad, f'{len(bad)} wrong: ' + '; '.join(bad[:5]))


def main():
    global OUT                          # pylint: disable=global-statement
    OUT = Ktap('e2e: ', 12)
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    try:
        out = open(os.path.join(d, 'dirtyfb.out')).read()
        prog_pid = int(re.search(r'pid (\d+)', out).group(1))
        events = read_trace(os.path.join(d, 'e2e.dat'))
        relay, rings = read_relay(d)
    except (OSError, ValueError, AttributeError, subprocess.CalledProcessError) as e:
        check('recording present and readable', False, str(e))
        sys.exit(OUT.finish())
    check('recording present and readable', True)

    queued = [int(f['seqno']) for _ts, name, f in events
              if name == 'virtio_gpu_cmd_queue' and f.get('name') == 'control']
    answered = {int(f['seqno']) for _ts, name, f in events
                if name == 'virtio_gpu_cmd_response' and f.get('name') == 'control'}
    check('virtio_gpu_cmd_queue saw the workload', len(queued) >= 40, f'{len(queued)}')

    ftrace_jobs = []
    for ts, name, f in events:
        if not name.startswith('grtrace_') or f.get('ring') != 'control':
            continue
        seq = int(f['fence'].split(':')[1])
        ftrace_jobs.append((ts, name[len('grtrace_'):], seq, int(f.get('pid', 0)),
                            f.get('comm', '')))
    # grtrace_submit comes from grtrace's probe on virtio_gpu_cmd_queue, in
    # the same tracepoint call as that event, under the queue's lock: when
    # the recording starts, one command at most can have its SUBMIT before
    # the start and its virtio_gpu_cmd_queue after it, before any grtrace
    # event.
    first = min((ts for ts, name, _f in events if name.startswith('grtrace_')),
                default=float('inf'))
    cut = [int(f['seqno']) for ts, name, f in events
           if name == 'virtio_gpu_cmd_queue' and f.get('name') == 'control' and ts < first]
    check_jobs('tracepoints', queued, answered, ftrace_jobs, prog_pid,
               cut if len(cut) == 1 else ())

    control = {rid for rid, (_dev, name) in rings.items() if name == 'control'}
    check('relay: METADATA names the control ring', len(control) == 1, str(rings))
    relay_jobs = [(ts, t, f['fence_seqno'], f['pid'], f['comm'])
                  for ts, t, f in relay if f['ring_id'] in control]
    # The relay session outlives trace-cmd by a second: every command completed.
    check_jobs('relay', queued, set(queued), relay_jobs, prog_pid)
    check_depth([(ts, t, f['fence_seqno'], f['depth'])
                 for ts, t, f in relay if f['ring_id'] in control])

    sys.exit(OUT.finish())


if __name__ == '__main__':
    main()
