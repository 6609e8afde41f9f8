#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the 3D recording of the guest (tests/35-virgl.sh, tests/demo.sh).

kmscube (atomic, explicit fences) and glmark2-es2-drm ran at once on virgl.
Against the virtio_gpu tracepoints of the same run and the clients' own
output, in the grtrace tracepoints (trace.dat) and, separately, in the relay
stream: every command queued on the control queue is one job with one
SUBMIT, and one COMPLETE once answered, in the order SUBMIT <= COMMIT <= END
<= COMPLETE; a SUBMIT's depth counts the commands on the virtqueue; every
event of a job carries the virtio-gpu context of its
command; its SUBMIT names the task that queued it; each client's 3D
commands are in one context of its own, and the two rendered at the same
time; the in-fence waits of EXECBUFFER are SYNC_WAIT pairs of the task,
followed by its SUBMIT_3D; the relay stream lost nothing.  bpftrace, perf
and a filtered trace-cmd instance, attached to the same run, counted the
clients' SUBMITs as trace-cmd did; each SUBMIT perf sampled is one of
trace-cmd's, once.

usage: virgl-check.py DIR      (prints KTAP)
"""

import collections
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from ktap import Ktap                   # pylint: disable=wrong-import-position
from sibling import load                # pylint: disable=wrong-import-position

e2e = load('e2e-check.py')

OUT = None
PHASES = ('submit', 'commit', 'end', 'complete')
CLIENTS = ('kmscube', 'glmark2-es2-drm')
SUBMIT_3D = 0x207


def check(name, ok, detail=''):
    OUT.result(ok, name, detail)


# A recording that begins while a task is between a command's SUBMIT and
# its queueing holds the command without its SUBMIT.  Each submitting task
# has at most one command there (the ioctl submits, then queues it, under
# the device's queue lock).  trace-cmd starts before the clients (it runs
# the script that starts them), so only the kernel's submitters can be
# caught, fbcon and the page-flip work: at most this many such commands,
# each of another task, none of a client.
EXCUSED_MAX = 2


def check_sink(sink, cmds, answered, jobs, excuse):
    """cmds: seqno -> (ctx_id, comm, pid, type) of virtio_gpu_cmd_queue.

    jobs: (ts, phase, seqno, ctx_id, pid, comm) of the control ring.
    excuse: the recording began after the sink's (trace-cmd's, not the
    relay session's, which starts before it): commands caught between
    their SUBMIT and their queueing, at most EXCUSED_MAX, are not counted.
    """
    by_seq = collections.defaultdict(lambda: collections.defaultdict(list))
    for ts, phase, seq, ctx, pid, comm in jobs:
        by_seq[seq][phase].append((ts, ctx, pid, comm))
    first = min((seq for seq, ev in by_seq.items() if ev.get('submit')), default=0)
    caught = sorted(seq for seq in cmds if seq < first) if excuse else []
    if excuse:
        # Each one lacks only its SUBMIT; the first SUBMIT follows them.
        odd = [seq for seq in caught if by_seq.get(seq, {}).get('submit') or
               len(by_seq.get(seq, {}).get('commit', [])) != 1 or
               cmds[seq][1][:15] in CLIENTS]
        if len({cmds[seq][2] for seq in caught}) != len(caught):
            odd += caught
        check(f'{sink}: at most {EXCUSED_MAX} commands queued before the first '
              f'SUBMIT recorded, each with its COMMIT, of another task, none a client\'s '
              f'({len(caught)})',
              len(caught) <= EXCUSED_MAX and not odd, f'seqnos {caught[:10]}')
    bad_count, bad_order, bad_ctx, bad_task = [], [], [], []
    for seq, (ctx, comm, pid, _type) in cmds.items():
        if seq in caught:
            continue
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
          f'seqnos {bad_ctx[:10]}')
    check(f'{sink}: SUBMIT names the task that queued the command', not bad_task,
          f'seqnos {bad_task[:10]}')


def check_waits(sink, events, cmds):
    """events: (ts, kind, pid, ctx, dep, status, seqno) in time order.

    kind is 'enter', 'exit' or 'submit' (seqno only for submits).  Every
    enter is followed by the exit of the same task and dependency, then by
    that task's SUBMIT of a SUBMIT_3D in the same context.
    """
    pending, bound, bad = {}, 0, []
    for ts, kind, pid, ctx, dep, status, seq in events:
        if kind == 'enter':
            if pid in pending:
                bad.append(f'pid {pid}: enter at {ts} inside a wait')
            pending[pid] = [ts, ctx, dep, None]
        elif kind == 'exit':
            w = pending.get(pid)
            if not w or w[2] != dep or w[3] is not None or status:
                bad.append(f'pid {pid}: exit at {ts} dep {dep} status {status} unmatched')
                pending.pop(pid, None)
                continue
            w[3] = ts
        elif pid in pending and pending[pid][3] is not None:
            w = pending.pop(pid)
            if w[1] != ctx or cmds.get(seq, (0, '', 0, 0))[3] != SUBMIT_3D:
                bad.append(f'pid {pid}: wait at {w[0]} then seqno {seq} ctx {ctx}')
            else:
                bound += 1
    bad += [f'pid {p}: wait at {w[0]} not followed by a SUBMIT' for p, w in pending.items()]
    check(f'{sink}: in-fence waits are SYNC_WAIT pairs of the task, then its '
          f'SUBMIT_3D in the same context ({bound})', bound > 0 and not bad,
          '\n'.join(bad[:5]) or 'no wait seen')
    return bound


def count_bpftrace(text):
    return {m.group(1): int(m.group(2))
            for m in re.finditer(r'^@\[(.*)\]: (\d+)$', text, re.M)}


def count_perf(text):
    """perf script's grtrace_submit samples: the count per comm field, the
    fences (context:seqno) of the samples in their order, and the number of
    exact copies left out (a second sample of the same time, task and
    fields: seen twice in demo-6.12, where trace-cmd and bpftrace had the
    SUBMIT once; perf.data is kept beside perf-script.out for perf script -D)."""
    c, fences, seen, copies = collections.Counter(), [], set(), 0
    for line in text.splitlines():
        if ' grtrace:grtrace_submit: ' not in line:
            continue
        if line in seen:
            copies += 1
            continue
        seen.add(line)
        f = dict(re.findall(r'(\w+)=(\S+)', line.split(' grtrace:grtrace_submit: ', 1)[1]))
        c[f.get('comm')] += 1
        fences.append(f.get('fence'))
    return c, fences, copies


def main():
    global OUT                          # pylint: disable=global-statement
    OUT = Ktap('virgl: ', 24)
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    try:
        out = {c: open(os.path.join(d, f'{c[:7]}.out'), errors='replace').read()
               for c in CLIENTS}
        events = e2e.read_trace(os.path.join(d, 'trace.dat'))
        relay, rings = e2e.read_relay(d)
        stats = dict(re.findall(r'^(\w+)=(\S+)$',
                                open(os.path.join(d, 'grtrace-stats.txt')).read(), re.M))
    except (OSError, ValueError, subprocess.CalledProcessError) as e:
        check('recording present and readable', False, str(e))
        sys.exit(OUT.finish())
    check('recording present and readable', True)
    check('kmscube rendered on virgl', re.search(r'Rendered \d+ frames', out['kmscube'])
          and 'virgl' in out['kmscube'], out['kmscube'][-300:])
    check('glmark2-es2-drm scored on virgl', re.search(r'glmark2 Score: \d+', out[CLIENTS[1]])
          and 'virgl' in out[CLIENTS[1]], out[CLIENTS[1]][-300:])

    top = [e for e in events if e[2]['@buffer'] == '']
    cmds, answered = {}, set()
    for _ts, name, f in top:
        if f.get('name') != 'control':
            continue
        if name == 'virtio_gpu_cmd_queue':
            cmds[int(f['seqno'])] = (int(f['ctx_id']), f['@comm'], f['@pid'],
                                     int(f['type'], 16))
        elif name == 'virtio_gpu_cmd_response':
            answered.add(int(f['seqno']))

    # One context per client, each its own; both rendering at once.
    ctxs, spans = {}, {}
    for seq, (ctx, comm, _pid, typ) in cmds.items():
        if typ == SUBMIT_3D and comm[:15] in CLIENTS:
            ctxs.setdefault(comm[:15], set()).add(ctx)
    for ts, name, f in top:
        if name == 'virtio_gpu_cmd_queue' and int(f['type'], 16) == SUBMIT_3D:
            s = spans.setdefault(f['@comm'][:15], [ts, ts])
            s[1] = ts
    ok = all(len(ctxs.get(c, ())) == 1 for c in CLIENTS) and \
        ctxs[CLIENTS[0]] != ctxs[CLIENTS[1]]
    check('each client\'s SUBMIT_3D commands are in one context of its own', ok,
          f'contexts {ctxs}')
    a, b = spans.get(CLIENTS[0], [0, -1]), spans.get(CLIENTS[1], [0, -1])
    check('the two clients submitted 3D work at the same time',
          a[0] < b[1] and b[0] < a[1], f'spans {spans}')

    ftrace_jobs, waits = [], []
    for ts, name, f in top:
        if not name.startswith('grtrace_') or f.get('ring') != 'control':
            continue
        phase = name[len('grtrace_'):]
        if phase in PHASES:
            seq = int(f['fence'].split(':')[1])
            ftrace_jobs.append((ts, phase, seq, int(f['ctx']),
                                int(f.get('pid', 0)), f.get('comm', '')))
            if phase == 'submit':
                waits.append((ts, 'submit', int(f['pid']), int(f['ctx']), None, 0, seq))
        elif phase.startswith('sync_wait_'):
            waits.append((ts, phase[len('sync_wait_'):], f['@pid'], int(f['ctx']),
                          f['dep'], int(f.get('status', 0)), None))
    check_sink('tracepoints', cmds, answered, ftrace_jobs, True)
    n_waits = check_waits('tracepoints', waits, cmds)

    control = {rid for rid, (_dev, name) in rings.items() if name == 'control'}
    lo, hi = min(cmds, default=0), max(cmds, default=-1)
    relay_jobs, relay_waits = [], []
    for ts, t, f in relay:
        if f['ring_id'] not in control:
            continue
        if t in PHASES and lo <= f['fence_seqno'] <= hi:
            relay_jobs.append((ts, t, f['fence_seqno'], f['ctx_id'], f['pid'], f['comm']))
        if t == 'submit' and lo <= f['fence_seqno'] <= hi:
            relay_waits.append((ts, 'submit', f['pid'], f['ctx_id'], None, 0, f['fence_seqno']))
        elif t.startswith('sync_wait_') and lo <= ts:
            relay_waits.append((ts, t[len('sync_wait_'):], f['pid'], f['ctx_id'],
                                f"{f['aux_context']}:{f['aux_seqno']}", f['status'], None))
    # The relay session outlives trace-cmd: every command was answered.
    check_sink('relay', cmds, set(cmds), relay_jobs, False)
    check('relay: as many in-fence waits as the tracepoints',
          check_waits('relay', relay_waits, cmds) == n_waits)
    e2e.OUT = OUT
    e2e.check_depth([(ts, t, f['fence_seqno'], f['depth'])
                     for ts, t, f in relay if f['ring_id'] in control])
    check('relay: nothing dropped', stats.get('dropped') == '0' and
          stats.get('offered') == stats.get('written'),
          f"offered {stats.get('offered')} written {stats.get('written')}")

    # The same run through bpftrace, perf and a filtered trace-cmd instance.
    submits = collections.Counter(f['comm'] for _ts, name, f in top
                                  if name == 'grtrace_submit')
    want = {c: submits[c] for c in CLIENTS}
    try:
        bt = count_bpftrace(open(os.path.join(d, 'bpftrace.out')).read())
        perf, perf_fences, perf_copies = count_perf(
            open(os.path.join(d, 'perf-script.out')).read())
        check('bpftrace and perf output present', True)
    except OSError as e:
        bt, perf, perf_fences, perf_copies = {}, {}, [], 0
        check('bpftrace and perf output present', False, str(e))
    check('bpftrace: @[args->comm] = count() on grtrace_submit equals '
          'trace-cmd\'s count per client', all(want[c] and bt.get(c) == want[c]
                                              for c in CLIENTS),
          f'bpftrace {bt}, trace-cmd {want}')
    check('perf record -e grtrace:* -a: grtrace_submit per client equals trace-cmd\'s',
          all(want[c] and perf.get(c) == want[c] for c in CLIENTS),
          f'perf {dict(perf)}, trace-cmd {want}')
    # perf's window lies inside trace-cmd's: each of its SUBMITs is one of
    # trace-cmd's, once.
    fences = {f['fence'] for _ts, name, f in top if name == 'grtrace_submit'}
    twice = [f for f, n in collections.Counter(perf_fences).items() if n > 1]
    alien = [f for f in perf_fences if f not in fences]
    check('perf: each grtrace_submit sample a fence of trace-cmd\'s, none twice '
          f'({len(perf_fences)} samples; {perf_copies} exact copies left out)',
          perf_fences and not twice and not alien,
          f'twice {twice[:5]} ({len(twice)}), not in trace.dat {alien[:5]} ({len(alien)})')
    filt = collections.Counter(f['comm'] for _ts, name, f in events
                               if f['@buffer'] == 'filtered' and name == 'grtrace_submit')
    check('trace-cmd -f \'comm == "glmark2-es2-drm"\': only and all of its SUBMITs',
          dict(filt) == {CLIENTS[1]: want[CLIENTS[1]]} and want[CLIENTS[1]],
          f'filtered instance {dict(filt)}, top level {want[CLIENTS[1]]}')

    sys.exit(OUT.finish())


if __name__ == '__main__':
    main()
