#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check grtrace's jobs made of the older gpu_scheduler events (6.12's).

usage: old-sched-check.py GRTRACE TRACE.DAT

TRACE.DAT is a recording of drm/sched's older events (drm_sched_job at
the push, drm_run_job, drm_sched_process_job, drm_sched_job_wait_dep),
made in the 6.12 guest while grtrace's scheduler suite drove the
scheduler (scripts/guest/tests/36-kernel-events.sh).  Those events name a
job by its scheduler's name, its id there and its finished fence's
address.  The check reads them with trace-cmd (its raw fields) and sets
"grtrace report -f json --events kernel" against that reading:

  - one job per pushed job (scheduler, id), and no other;
  - its SUBMIT at the push, its COMMIT at its first run, its END at the
    drm_sched_process_job of its fence's address (the last push with that
    address before it), to the microsecond trace-cmd prints;
  - COMPLETE unknown (null): no event says which fence signalled;
  - a GPU wait on each job drm_sched_job_wait_dep names whose fence had
    not signalled yet (the event comes before the scheduler looks), and
    on no other job, on the fences those events name; and grtrace's own
    record of the same recording, whose SYNC_WAIT_ENTER comes from the
    same event, waits on some of those fences and no other, none
    signalled before the probe's call (unwaited());
  - a reset on each job the backport's drm_sched_job_timedout says the
    driver reset (reset=1, done=0), and on no other;
  - no address of the recording in the tool's output, text or JSON.

Prints KTAP; exits 1 if a check fails.
"""
import collections
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ktap import Ktap                   # pylint: disable=wrong-import-position

MIN_JOBS = 20
US = 1000
# trace-cmd's latency format: CPU and the entry's flags, whose hardirq,
# softirq and NMI bits say an event came from an interrupt
LINE = re.compile(r'^\s*(\S.*?)-(\d+)\s+(\d+)-0x([0-9a-f]+)\s+([\d.]+): (\w+):\s+(.*)$')
IRQ = 0x08 | 0x10 | 0x40
NAMES = ('drm_sched_job', 'drm_run_job', 'drm_sched_process_job', 'drm_sched_job_wait_dep',
         'dma_fence_signaled', 'drm_sched_job_timedout', 'grtrace_sync_wait_enter')


def events(path):
    """Every event, in time order: (name, ts_ns, raw fields, cpu, in an interrupt)."""
    out = subprocess.run(['trace-cmd', 'report', '-t', '-l', '-R', '-i', path], check=True,
                         capture_output=True, text=True).stdout
    evs = []
    for line in out.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        f = dict(w.split('=', 1) for w in m.group(7).split() if '=' in w)
        evs.append((m.group(6), round(float(m.group(5)) * 1e9), f, int(m.group(3)),
                    bool(int(m.group(4), 16) & IRQ)))
    return evs


def calls(evs):
    """For each grtrace_sync_wait_enter: (an event before its test, its event found).

    grtrace's probe and ftrace's on drm_sched_job_wait_dep run in one
    call of the tracepoint, in the order they were attached (either: it
    changes from boot to boot), with preemption off: on their CPU, no
    other event of task context comes between the two.  The last event of
    task context before the ENTER is then either that drm_sched_job_wait_dep,
    recorded before grtrace's probe tested the fence, or one before the
    call.  An interrupt's events in between are neither: the fence's
    signal may be one of them.  The event of a probe that ran after
    grtrace's is the next after the ENTER, or after the probe's own EXIT
    of the same fence (its second test found it signalled).
    """
    task = collections.defaultdict(list)
    for i, (name, ts, f, cpu, irq) in enumerate(evs):
        if not irq:
            task[cpu].append(i)
    out = {}
    for idx in task.values():
        for n, i in enumerate(idx):
            name, ts, f, cpu, irq = evs[i]
            if name != 'grtrace_sync_wait_enter' or f.get('dev') != 'drm_sched':
                continue
            fence = (int(f['aux_context'], 0), int(f['aux_seqno'], 0))
            # After the ENTER, the probe's own EXIT when its second test
            # found the fence signalled: the event of a probe before
            # ftrace's comes after it.
            after = idx[n + 1:n + 3]
            if after and evs[after[0]][0] == 'grtrace_sync_wait_exit' and \
               (int(evs[after[0]][2]['aux_context'], 0),
                    int(evs[after[0]][2]['aux_seqno'], 0)) == fence:
                after = after[1:]
            # the event names the dependency; the wait may be on its
            # scheduled fence, one context before its finished fence
            match = [j for j in idx[max(n - 1, 0):n] + after[:1]
                     if evs[j][0] == 'drm_sched_job_wait_dep' and
                     (int(evs[j][2]['ctx'], 0) - fence[0], int(evs[j][2]['seqno'], 0))
                     in ((0, fence[1]), (1, fence[1]))]
            out[i] = ((evs[idx[n - 1]][1], idx[n - 1]) if n else (0, -1), bool(match))
    return out


def unwaited(enters, signaled):
    """grtrace's waits without their event beside them, and on a fence signalled before.

    The probe's test of the fence comes after the event calls() gives
    and before the ENTER: a fence may signal between the two (an
    interrupt on this CPU, or another CPU), and the probe then closes
    the wait at once.  One signalled before that event, or by it, is one
    the test saw, and no wait (stamps in ns, the record's order on a
    CPU).  A probe that does not test enters a wait at every
    event (six on 6.12's suite).
    """
    alone = [(r, f"{c}:{q}") for r, c, q, _, _, found in enters if not found]
    late = [(r, f"{c}:{q}") for r, c, q, _, at, _ in enters if (c, q) in signaled and
            signaled[(c, q)] <= at]
    return alone, late


def expected(evs):
    """(scheduler, id) -> {submit, commit, end}; the waits' jobs and fences; addresses."""
    want, by_fence, waits, addrs, signaled, resets = {}, {}, set(), set(), {}, set()
    deps, every, enters = collections.Counter(), set(), []
    call = calls(evs)
    for i, (name, ts, f, _, _) in enumerate(evs):
        if name not in NAMES:
            continue
        if name == 'dma_fence_signaled':
            signaled.setdefault((int(f['context'], 0), int(f['seqno'], 0)), (ts, i))
            continue
        if name == 'grtrace_sync_wait_enter':
            if f['dev'] == 'drm_sched':
                enters.append(('drm_sched/' + f['ring'], int(f['aux_context'], 0),
                               int(f['aux_seqno'], 0), ts) + call[i])
            continue
        if name == 'drm_sched_job_timedout':
            # the backport's: a reset the driver made of a job not done
            if int(f['reset'], 0) and not int(f['done'], 0):
                resets.add((f['name'], int(f['id'], 0)))
            continue
        for k in ('fence', 'entity'):
            if k in f and int(f[k], 0):
                addrs.add(int(f[k], 0))
        if name in ('drm_sched_job', 'drm_run_job'):
            key = (f['name'], int(f['id'], 0))
            job = want.setdefault(key, {'submit': None, 'commit': None, 'end': None})
            if name == 'drm_sched_job':
                job['submit'] = ts
                by_fence[int(f['fence'], 0)] = key
            elif job['commit'] is None:
                job['commit'] = ts
        elif name == 'drm_sched_process_job':
            key = by_fence.pop(int(f['fence'], 0), None)
            if key:
                want[key]['end'] = ts
        else:
            dep = ('drm_sched/' + f['name'], f"{int(f['ctx'], 0)}:{int(f['seqno'], 0)}")
            every.add(dep)
            if (int(f['ctx'], 0), int(f['seqno'], 0)) not in signaled:
                # to a reader of the events, a fence that signalled
                # before the event is no wait
                waits.add((f['name'], int(f['id'], 0)))
                deps[dep] += 1
    return want, waits, deps, addrs, resets, (every, enters, signaled)


def main():
    grtrace, dat = sys.argv[1:3]
    k = Ktap('older sched:', 7)
    try:
        evs = events(dat)
        def report(*args):
            return subprocess.run([grtrace, 'report', '--jobs', '-i', dat, *args], check=True,
                                  capture_output=True, text=True).stdout
        rep = json.loads(report('-f', 'json', '--events', 'kernel'))
        text = report('--events', 'kernel')
        want, waits, deps, addrs, resets, (every, enters, signaled) = expected(evs)
    except (OSError, ValueError, KeyError, subprocess.CalledProcessError) as e:
        k.result(False, 'grtrace report and trace-cmd report read the recording', e)
        return k.finish()
    sess = rep['session']
    k.result(sess.get('jobs_from') == 'kernel' and len(want) >= MIN_JOBS and
             sess.get('kernel_events', {}).get('drm_sched_job', 0) > 0,
             f"jobs from the older events, at least {MIN_JOBS} pushed",
             f"jobs_from {sess.get('jobs_from')}, {len(want)} pushed, "
             f"kernel_events {sess.get('kernel_events')}")

    # A job is 0:id of its ring, drm_sched/NAME.
    have = {}
    for j in rep['jobs']:
        dev, _, name = j['ring'].partition('/')
        ctx, seq = j['fence'].split(':')
        have[(name, int(seq))] = j if dev == 'drm_sched' and ctx == '0' else None
    pushed = {key for key, w in want.items() if w['submit'] is not None}
    k.result(set(have) == set(want) and None not in have.values() and pushed == set(want)
             and len(have) == len(rep['jobs']),
             'one job per pushed job (scheduler, id), and no other',
             f"{len(have)} jobs, {len(want)} in the events; only in jobs "
             f"{sorted(set(have) - set(want))[:3]}, only in the events "
             f"{sorted(set(want) - set(have))[:3]}")

    off = []
    for key, w in want.items():
        j = have.get(key)
        if not j:
            continue
        for stage, field in (('submit', 'submit_ns'), ('commit', 'commit_ns'),
                             ('end', 'end_ns')):
            a, b = w[stage], j[field]
            if (a is None) != (b is None) or (a is not None and abs(a - b) > US):
                off.append((key, stage, a, b))
    ends = sum(1 for w in want.values() if w['end'] is not None)
    k.result(not off and ends >= MIN_JOBS,
             'SUBMIT at the push, COMMIT at the first run, END at its fence\'s process_job',
             f"{len(off)} stages differ, first {off[:3]}; {ends} jobs ended")

    told = [key for key, j in have.items() if j and j['complete_ns'] is not None]
    k.result(not told, 'COMPLETE unknown (null): no event names the signalled fence',
             f"{len(told)} jobs with one, first {told[:3]}")

    # The waits: those trace-cmd's reading gives, on the fences its
    # events name, ring by ring.  grtrace's own, its SYNC_WAIT_ENTER in the
    # same recording: each on a fence a drm_sched_job_wait_dep of its ring
    # names, and none on a fence signalled before the probe's call (the
    # probe skips those; ftrace's record of the event may come after
    # grtrace's probe, so the events' own reading is no measure of it).
    waited = {key for key, j in have.items() if j and j['t_gpu_wait'] is not None}
    on = collections.Counter((j['ring'], f) for j in have.values()
                             if j and j['t_gpu_wait'] is not None for f in j['waits_on'].split())
    stray = [(r, f"{c}:{q}") for r, c, q, _, _, _ in enters if (r, f"{c}:{q}") not in every]
    unsignalled = [(r, f"{c}:{q}") for r, c, q, _, _, _ in enters if (c, q) not in signaled]
    alone, late = unwaited(enters, signaled)
    k.result(waits and waits == waited and on == deps and enters and not stray and
             not unsignalled and not alone and not late,
             'a GPU wait on each job drm_sched_job_wait_dep names with its fence '
             'not yet signalled, on the fences they name; grtrace\'s on those fences, none signalled',
             f"{len(waits)} jobs waited, {len(waited)} with a wait in the report; only in "
             f"the events {sorted(waits - waited)[:3]}, only in the report "
             f"{sorted(waited - waits)[:3]}; fences only in the events "
             f"{sorted(deps - on)[:3]}, only in the report {sorted(on - deps)[:3]}; "
             f"grtrace's {len(enters)} waits: on no such fence {stray[:3]}, "
             f"on a fence never signalled {unsignalled[:3]}, "
             f"without its drm_sched_job_wait_dep beside it {alone[:3]}, "
             f"on a fence signalled before the probe's call {late[:3]}")

    # The backport's drm_sched_job_timedout: a reset on the job it names by
    # scheduler and id, where it says the driver reset, and on no other.
    reset = {key for key, j in have.items() if j and j.get('status') == 'reset'}
    k.result(resets and reset == resets,
             'a reset on each job drm_sched_job_timedout says was reset, and on no other',
             f"{len(resets)} in the events, {len(reset)} in the report; only in the events "
             f"{sorted(resets - reset)[:3]}, only in the report {sorted(reset - resets)[:3]}")

    dump = text + json.dumps(rep)
    seen = sorted(a for a in addrs if f'{a:x}' in dump or str(a) in dump)
    k.result(addrs and not seen, 'no address of the recording in the tool\'s output',
             f"{len(addrs)} addresses in the recording, {len(seen)} in the output")
    return k.finish()


if __name__ == '__main__':
    sys.exit(main())
