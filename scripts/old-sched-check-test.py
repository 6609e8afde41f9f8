#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""old-sched-check.py's reading of grtrace's waits, on events made up here.

grtrace's probe on drm_sched_job_wait_dep tests the fence between the
event and its SYNC_WAIT_ENTER; the fence may signal in that window, and
ftrace's probe on the same tracepoint may run before or after grtrace's.
Each case is a few events of trace-cmd's latency format, as events()
returns them, and the waits the check must call without their event, or
on a fence signalled before the probe's call.  Prints KTAP.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from ktap import Ktap                   # pylint: disable=wrong-import-position
from sibling import load                # pylint: disable=wrong-import-position

CHECK = load('old-sched-check.py')


def dep(ts, ctx, cpu=1):
    """drm_sched_job_wait_dep of job 2 on finished fence CTX:1, in task context."""
    return ('drm_sched_job_wait_dep', ts, {'name': 'gfx', 'id': '2', 'fence': '0x10',
                                            'ctx': str(ctx), 'seqno': '1'}, cpu, False)


def enter(ts, ctx, cpu=1):
    return ('grtrace_sync_wait_enter', ts, {'dev': 'drm_sched', 'ring': 'gfx',
                                             'aux_context': str(ctx), 'aux_seqno': '1'},
            cpu, False)


def leave(ts, ctx, cpu=1):
    """The probe's own EXIT, when its second test found the fence signalled."""
    return ('grtrace_sync_wait_exit', ts, {'dev': 'drm_sched', 'ring': 'gfx',
                                            'aux_context': str(ctx), 'aux_seqno': '1'},
            cpu, False)


def signal(ts, ctx, cpu=1, irq=True):
    return ('dma_fence_signaled', ts, {'context': str(ctx), 'seqno': '1'}, cpu, irq)


def run(ts, cpu=1):
    """Another event of the worker, before the call."""
    return ('drm_run_job', ts, {'name': 'gfx', 'id': '1', 'fence': '0x20'}, cpu, False)


R = ('drm_sched/gfx', '8:1')
CASES = [
    ('ftrace first, no signal', [run(10), dep(20, 8), enter(30, 8), signal(90, 8)], [], []),
    ('ftrace first, signalled by an interrupt between the event and the ENTER',
     [run(10), dep(20, 8), signal(25, 8), enter(30, 8)], [], []),
    ('grtrace first, signalled by an interrupt before the ENTER',
     [run(10), signal(25, 8), enter(30, 8), dep(40, 8)], [], []),
    ('grtrace first, signalled on another CPU before the ENTER',
     [run(10), signal(25, 8, cpu=0, irq=False), enter(30, 8), dep(40, 8)], [], []),
    ('grtrace first, signalled by an interrupt before the ENTER, the probe\'s EXIT after it',
     [run(10), signal(25, 8), enter(30, 8), leave(32, 8), dep(40, 8)], [], []),
    ('grtrace first, signalled on another CPU after the ENTER, the probe\'s EXIT after it',
     [run(10), enter(30, 8), signal(31, 8, cpu=0, irq=False), leave(32, 8), dep(40, 8)],
     [], []),
    ('ftrace first, signalled by an interrupt, the probe\'s EXIT after the ENTER',
     [run(10), dep(20, 8), signal(25, 8), enter(30, 8), leave(32, 8)], [], []),
    ('two racing in one recording (CI of stop 98)',
     [run(10), dep(20, 8), signal(25, 8), enter(30, 8),
      dep(40, 9), signal(45, 9), enter(50, 9)], [], []),
    ('the scheduled fence, one context before the finished fence the event names',
     [run(10), dep(20, 8), enter(30, 7), signal(90, 7)], [], []),
    ('ftrace first, signalled before the event', [run(10), signal(15, 8), dep(20, 8),
                                                   enter(30, 8)], [], [R]),
    ('grtrace first, signalled before the call', [run(10), signal(5, 8), enter(30, 8),
                                                   dep(40, 8)], [], [R]),
    ('grtrace first, signalled before the call, in task context on this CPU',
     [run(10), signal(15, 8, irq=False), enter(30, 8), dep(40, 8)], [], [R]),
    ('its event two task events away', [dep(20, 8), run(25), enter(30, 8),
                                         signal(90, 8)], [R], []),
    ('its event on another CPU', [run(10), dep(20, 8, cpu=0), enter(30, 8),
                                   signal(90, 8)], [R], []),
    ('an event on another fence beside it', [run(10), dep(20, 5), enter(30, 8),
                                              signal(90, 8)], [R], []),
    ('grtrace first, an EXIT of another fence between the ENTER and its event',
     [run(10), enter(30, 8), leave(32, 5), dep(40, 8), signal(90, 8)], [R], []),
]


def main():
    k = Ktap('old-sched-check:', len(CASES))
    for name, evs, alone, late in CASES:
        _, _, _, _, _, (_, enters, signaled) = CHECK.expected(evs)
        got = CHECK.unwaited(enters, signaled)
        k.result(got == (alone, late), name,
                 f"without their event {got[0]}, on a fence signalled before {got[1]}; "
                 f"want {alone} and {late}")
    return k.finish()


if __name__ == '__main__':
    sys.exit(main())
