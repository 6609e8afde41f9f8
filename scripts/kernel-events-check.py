#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The jobs of the kernel's own events against grtrace's, job for job.

usage: kernel-events-check.py GRTRACE TRACE.DAT sched|virtio

TRACE.DAT holds both event sets of the same jobs: grtrace's and the
kernel's own, gpu_scheduler and dma_fence_signaled (sched: upstream's mock
scheduler suites, scripts/guest/tests/36-kernel-events.sh) or virtio_gpu
(virtio: the end-to-end test's e2e.dat).  "grtrace report --events
grtrace" and "--events kernel" rebuild the jobs from each set; they must be
the same jobs, with the same value of every field the kernel's events
carry, and each stage's two times in the order the two events fire:

sched   grtrace's probe and the kernel's event are two probes of the same
        tracepoint (queue, run, done; COMPLETE at dma_fence_signaled of the
        finished fence): a stage's two times come before either time of
        the next stage.
virtio  the control queue's commands.  grtrace's probes and the kernel's
        events are two probes of virtio_gpu_cmd_queue (grtrace's SUBMIT
        and COMMIT, the kernel's COMMIT) and of virtio_gpu_cmd_response
        (grtrace's END and COMPLETE, the kernel's END): both COMMITs come
        before either END and grtrace's COMPLETE.

Prints KTAP; exits 1 if a check fails.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ktap import Ktap                   # pylint: disable=wrong-import-position

MIN_JOBS = {'sched': 50, 'virtio': 20}
STAGES = ['submit_ns', 'commit_ns', 'end_ns', 'complete_ns']


def jobs(grtrace, dat, use):
    out = subprocess.run([grtrace, 'report', '--jobs', '-i', dat, '-f', 'json', '--events', use],
                         check=True, capture_output=True, text=True).stdout
    rep = json.loads(out)
    return rep['session'], rep['jobs']


def key(kind, j):
    """A job's identity: its ring's device and name and its fence (sched),
    its virtqueue's name and seqno (virtio: the device is named otherwise
    by each: its PCI device, its virtio device)."""
    ctx, seq = j['fence'].split(':')
    if kind == 'sched':
        return (j['ring'], int(ctx), int(seq))
    return (j['ring'].rsplit('/', 1)[1], int(seq))


def order_sched(g, k):
    """Stage by stage, both times before either time of the next stage."""
    both = [s for s in STAGES if g[s] is not None and k[s] is not None]
    return all(max(g[a], k[a]) <= min(g[b], k[b]) for a, b in zip(both, both[1:]))


def order_virtio(g, k, first):
    """Both COMMITs (virtio_gpu_cmd_queue) before both ENDs and grtrace's
    COMPLETE (virtio_gpu_cmd_response).  A command queued before the
    recording began (its seqno below the first one queued in it, first) has
    neither COMMIT; one not answered when it stopped has neither END nor
    COMPLETE (virgl answers fenced commands out of order: its seqno may be
    below the last one answered)."""
    commit = [g['commit_ns'], k['commit_ns']]
    end = [g['end_ns'], k['end_ns'], g['complete_ns']]
    seq = key('virtio', g)[1]
    if commit == [None, None] and seq < first:
        commit = []
    if end == [None, None, None]:
        end = []
    if None in commit + end:
        return False
    return not commit or not end or max(commit) <= min(end)


def main():
    grtrace, dat, kind = sys.argv[1:4]
    k = Ktap(f'{kind}:', 5)
    try:
        gs, gj = jobs(grtrace, dat, 'grtrace')
        ks, kj = jobs(grtrace, dat, 'kernel')
    except (OSError, ValueError, subprocess.CalledProcessError) as e:
        k.result(False, 'grtrace report reads both event sets', e)
        return k.finish()
    k.result(gs['jobs_from'] == 'grtrace' and ks['jobs_from'] == 'kernel' and
             ks['jobs'] >= MIN_JOBS[kind],
             f"both event sets read, at least {MIN_JOBS[kind]} jobs of the kernel's",
             f"grtrace: {gs['jobs']} jobs, kernel: {ks['jobs']} jobs")
    kl = [j for j in kj if kind == 'sched' or j['ring'].endswith('/control')]
    rings = {key(kind, j)[0] for j in kl}
    # virtio: a command grtrace saw submitted that had not reached the
    # virtqueue when the recording stopped has no kernel event yet.
    gl = [j for j in gj if key(kind, j)[0] in rings and
          (kind == 'sched' or j['commit_ns'] is not None or j['end_ns'] is not None)]
    if kind == 'virtio':
        # A command queued before the recording began (its seqno below the
        # first one queued in it) has its end in one set or the other, as
        # the recording began: grtrace's END comes before the kernel's
        # response, its COMPLETE after.
        first = min((key(kind, j)[1] for j in kl if j['commit_ns'] is not None), default=0)
        kl = [j for j in kl if j['commit_ns'] is not None or key(kind, j)[1] >= first]
        gl = [j for j in gl if j['commit_ns'] is not None or key(kind, j)[1] >= first]
    kern = {key(kind, j): j for j in kl}
    grt = {key(kind, j): j for j in gl}
    # A job made twice (one job's events taken for two) is a duplicate key.
    k.result(set(kern) == set(grt) and kern and len(kern) == len(kl) and len(grt) == len(gl),
             "the same jobs on the kernel events' rings",
             f"{len(kern)} of the kernel's ({len(kl)} with duplicates), {len(grt)} of "
             f"grtrace's ({len(gl)}); only the kernel's "
             f"{sorted(set(kern) - set(grt))[:4]}, only grtrace's {sorted(set(grt) - set(kern))[:4]}")
    both = sorted(set(kern) & set(grt))
    fields = ['pid', 'comm', 'ctx', 'status', 'client_id'] if kind == 'sched' else ['pid', 'comm', 'ctx']
    diff = [(x, f, grt[x][f], kern[x][f]) for x in both for f in fields
            if grt[x][f] != kern[x][f]]
    # sched: the mock scheduler's jobs all have a DRM client (1), which
    # neither set may lose
    none = [x for x in both if kind == 'sched' and kern[x]['client_id'] is None]
    k.result(not diff and not none, f"each job's {', '.join(fields)} the same",
             f"{len(diff)} differ, first {diff[:3]}; {len(none)} with no client, first {none[:3]}")
    if kind == 'sched':
        order = order_sched
    else:
        first = min((x[1] for x in both if kern[x]['commit_ns'] is not None), default=0)
        order = lambda g, kj: order_virtio(g, kj, first)   # noqa: E731
    bad = [x for x in both if not order(grt[x], kern[x])]
    k.result(not bad, "each stage's two times in the order their events fire",
             f"{len(bad)} jobs not, first {bad[:2]}: "
             f"{[(grt[x], kern[x]) for x in bad[:1]]}")
    if kind == 'sched':
        told = [x for x in both for s in STAGES
                if (grt[x][s] is None) != (kern[x][s] is None)]
        k.result(not told, 'each stage seen by both or by neither',
                 f"{len(told)} stages, first {told[:4]}")
    else:
        told = [x for x in both if kern[x]['submit_ns'] is not None or
                kern[x]['latency'] is not None]
        k.result(not told, "the kernel's: no SUBMIT, no latency (unknown)",
                 f"{len(told)} jobs with one, first {told[:4]}")
    return k.finish()


if __name__ == '__main__':
    sys.exit(main())
