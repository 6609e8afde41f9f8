#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the 3D recording of the guest (tests/35-virgl.sh): kmscube on virgl.

Against the virtio_gpu tracepoints of the same run, in the grtrace
tracepoints (trace.dat) and, separately, in the relay stream: every command
queued on the control queue is one job with one SUBMIT, and one COMPLETE
once answered, in the order SUBMIT <= COMMIT <= END <= COMPLETE; every event
of a job carries the virtio-gpu context of its command; its SUBMIT names
the task that queued the command; kmscube's 3D commands are all in one
context; the relay stream lost nothing.

usage: virgl-check.py DIR      (prints KTAP)
"""

import collections
import importlib.util
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from ktap import Ktap                   # pylint: disable=wrong-import-position

_spec = importlib.util.spec_from_file_location('e2e', os.path.join(HERE, 'e2e-check.py'))
e2e = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(e2e)

OUT = None
PHASES = ('submit', 'commit', 'end', 'complete')


def check(name, ok, detail=''):
    OUT.result(ok, name, detail)


def check_sink(sink, cmds, answered, jobs):
    """cmds: seqno -> (ctx_id, comm, pid) of virtio_gpu_cmd_queue.

    jobs: (ts, phase, seqno, ctx_id, pid, comm) of the control ring.
    """
    by_seq = collections.defaultdict(lambda: collections.defaultdict(list))
    for ts, phase, seq, ctx, pid, comm in jobs:
        by_seq[seq][phase].append((ts, ctx, pid, comm))
    bad_count, bad_order, bad_ctx, bad_task = [], [], [], []
    for seq, (ctx, comm, pid) in cmds.items():
        ev = by_seq.get(seq, {})
        want = 1 if seq in answered else 0
        if len(ev.get('submit', [])) != 1 or len(ev.get('complete', [])) != want:
            bad_count.append(seq)
            continue
        if any(e[1] != ctx for p in PHASES for e in ev.get(p, [])):
            bad_ctx.append(seq)
        sub = ev['submit'][0]
        if (sub[2], sub[3]) != (pid, comm[:15]):
            bad_task.append(seq)
        if want:
            times = [ev[p][0][0] for p in PHASES if p in ev]
            if len(times) != 4 or times != sorted(times):
                bad_order.append(seq)
    check(f'{sink}: one SUBMIT per queued command ({len(cmds)}), one COMPLETE '
          f'per answered one', not bad_count and cmds, f'seqnos {bad_count[:10]}')
    check(f'{sink}: SUBMIT <= COMMIT <= END <= COMPLETE', not bad_order,
          f'seqnos {bad_order[:10]}')
    check(f'{sink}: every event of a job carries its command\'s ctx_id', not bad_ctx,
          f'seqnos {bad_ctx[:10]}: ' + '; '.join(
              f'{s}: cmd {cmds[s][0]} events ' + ','.join(
                  f'{p}={e[1]}' for p in PHASES for e in by_seq[s].get(p, []))
              for s in bad_ctx[:3]))
    check(f'{sink}: SUBMIT names the task that queued the command', not bad_task,
          f'seqnos {bad_task[:10]}')


def main():
    global OUT                          # pylint: disable=global-statement
    OUT = Ktap('virgl: ')
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    try:
        client = open(os.path.join(d, 'kmscube.out'), errors='replace').read()
        events = e2e.read_trace(os.path.join(d, 'virgl.dat'))
        relay, rings = e2e.read_relay(d)
        stats = dict(re.findall(r'^(\w+)=(\S+)$',
                                open(os.path.join(d, 'stats.txt')).read(), re.M))
    except (OSError, ValueError, subprocess.CalledProcessError) as e:
        check('recording present and readable', False, str(e))
        sys.exit(OUT.finish())
    check('recording present and readable', True)
    m = re.search(r'Rendered (\d+) frames', client)
    check('kmscube rendered on virgl', m is not None and 'virgl' in client,
          client.strip().splitlines()[-1:] and client.strip().splitlines()[-1])

    cmds, answered = {}, set()
    for _ts, name, f in events:
        if f.get('name') != 'control':
            continue
        if name == 'virtio_gpu_cmd_queue':
            cmds[int(f['seqno'])] = (int(f['ctx_id']), f['@comm'], f['@pid'])
        elif name == 'virtio_gpu_cmd_response':
            answered.add(int(f['seqno']))
    mine = {c for c, comm, _p in cmds.values() if comm == 'kmscube' and c}
    check('kmscube queued 3D commands, all in one context', len(mine) == 1,
          f'contexts {sorted(mine)}')

    ftrace_jobs = []
    for ts, name, f in events:
        if not name.startswith('grtrace_') or f.get('ring') != 'control':
            continue
        phase = name[len('grtrace_'):]
        if phase not in PHASES:
            continue
        ftrace_jobs.append((ts, phase, int(f['fence'].split(':')[1]), int(f['ctx']),
                            int(f.get('pid', 0)), f.get('comm', '')))
    check_sink('tracepoints', cmds, answered, ftrace_jobs)

    control = {rid for rid, (_dev, name) in rings.items() if name == 'control'}
    lo, hi = min(cmds, default=0), max(cmds, default=-1)
    relay_jobs = [(ts, t, f['fence_seqno'], f['ctx_id'], f['pid'], f['comm'])
                  for ts, t, f in relay
                  if f['ring_id'] in control and t in PHASES and lo <= f['fence_seqno'] <= hi]
    # The relay session outlives trace-cmd: every command was answered.
    check_sink('relay', cmds, set(cmds), relay_jobs)
    check('relay: nothing dropped', stats.get('dropped') == '0' and
          stats.get('offered') == stats.get('written'),
          f"offered {stats.get('offered')} written {stats.get('written')}")

    sys.exit(OUT.finish())


if __name__ == '__main__':
    main()
