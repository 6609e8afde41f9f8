#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check grtrace report --host on a demo's recording (issue: the host's
side of a virtio-gpu job).

The demo recorded the guest (trace.dat: the grtrace and virtio_gpu events)
and QEMU's own virtio_gpu trace events (qemu-trace.log, host realtime).
This script reads both itself: the guest's virtio_gpu_cmd_queue events give
each fenced command of the control queue its fence id and seqno, the
grtrace_commit and grtrace_end events of the "control" ring say which of
them are whole in the recording, QEMU's fence_ctrl and fence_resp lines
the host's times of each fence, the virtio_gpu_cmd_* line before a
fence_ctrl (same QEMU thread, the command's type) when QEMU took it.
Then, in "grtrace report -f csv --host" (times in ns):

- every fenced guest command whole in the recording is one job row with the
  host's columns, and no other row has them;
- ON_HOST is exactly the host's take-to-answer time of that fence id;
- the report's header gives the clock offset, its rate (a guest's clock
  is its TSC at the frequency it calibrated at boot, a few ppm off the
  host's) and its precision;
- TO_HOST is QEMU's take of the fence, less the offset at that time,
  less the guest's COMMIT of the job (trace-cmd's stamp of
  grtrace_commit), and BACK the guest's END less that take and ON_HOST
  (the host's own time: its clock is the one that keeps time, the
  guest's is a few ppm off), each within 2 us (the microseconds of QEMU's
  log, trace-cmd's and the printed offset), and neither is negative (the
  host's interval lies inside DEVICE).  DEVICE is END less COMMIT by the
  same stamps;
- the same log with its clock made to run 20 ppm faster (every stamp moved
  away from the first) is joined too, at a rate 20 ppm higher: a guest
  clock calibrated 20 ppm off is a drift of 0.8 ms in a 40 s run, more
  than the bounds leave at one rate;
- the same log with its second half later (a clock that jumped) is
  refused: no offset fits its jobs at one rate, nor at any rate.  The jump
  is 20 ms and twice what the tool's largest rate, 100 ppm, covers over
  the run's fenced jobs: a fixed 5 ms was taken up by a rate in a run
  that a loaded machine made long.

A relay stream (no fence ids) and a log without QEMU's events are refused
with an error; with OTHER (QEMU's log of another run), grtrace must refuse
it, naming it.

usage: host-check.py GRTRACE DEMO_DIR [OTHER_QEMU_LOG]     (prints KTAP)
"""

import csv
import io
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ktap import Ktap                   # pylint: disable=wrong-import-position
from tracecmd import read_trace         # pylint: disable=wrong-import-position

FENCE = 1                               # VIRTIO_GPU_FLAG_FENCE
# QEMU's event of each command type it takes (hw/display/trace-events)
TAKE = {
    'virtio_gpu_cmd_ctx_submit': 0x207,
    'virtio_gpu_cmd_res_xfer_toh_3d': 0x205,
    'virtio_gpu_cmd_res_xfer_fromh_3d': 0x206,
    'virtio_gpu_cmd_res_create_3d': 0x204,
    'virtio_gpu_cmd_ctx_res_detach': 0x203,
    'virtio_gpu_cmd_ctx_res_attach': 0x202,
    'virtio_gpu_cmd_ctx_destroy': 0x201,
    'virtio_gpu_cmd_ctx_create': 0x200,
    'virtio_gpu_cmd_res_back_detach': 0x107,
    'virtio_gpu_cmd_res_back_attach': 0x106,
    'virtio_gpu_cmd_res_xfer_toh_2d': 0x105,
    'virtio_gpu_cmd_res_flush': 0x104,
    'virtio_gpu_cmd_set_scanout': 0x103,
    'virtio_gpu_cmd_res_unref': 0x102,
    'virtio_gpu_cmd_res_create_2d': 0x101,
    'virtio_gpu_cmd_get_display_info': 0x100,
}
LINE = re.compile(r'(\d+)@(\d+)\.(\d{6}):(virtio_gpu_\w+)\s*(.*)')
CLOCKS = re.compile(r'clocks +host realtime = guest \+ (\d+)\.(\d{6}) s ([+-]) ([\d.]+) ppm '
                    r'of \(guest - (\d+)\.(\d{6}) s\), within \+-([\d.]+) us')
FAST = 20e-6


def host_fences(path):
    """fence id -> (type, take ns, answer ns) from QEMU's log."""
    fences, last = {}, {}
    for line in open(path, errors='replace'):
        m = LINE.match(line)
        if not m:
            continue
        tid, ns = int(m.group(1)), int(m.group(2)) * 10**9 + int(m.group(3)) * 1000
        ev, args = m.group(4), m.group(5)
        if ev == 'virtio_gpu_fence_ctrl':
            f, t = re.match(r'fence 0x([0-9a-f]+), type 0x([0-9a-f]+)', args).groups()
            f, t = int(f, 16), int(t, 16)
            take = last.get(tid)
            fences[f] = [t, take[1] if take and take[0] == t else ns, None]
            last.pop(tid, None)
        elif ev == 'virtio_gpu_fence_resp':
            f = int(re.match(r'fence 0x([0-9a-f]+)', args).group(1), 16)
            if f in fences and fences[f][2] is None:
                fences[f][2] = ns
        else:
            last[tid] = (TAKE.get(ev), ns)
    return fences


def guest_fenced(path):
    """seqno -> (fence id, COMMIT us, END us) of the fenced control-queue
    commands whose job has a COMMIT and an END in the recording."""
    fenced, commit, end = {}, {}, {}
    for ts, ev, f in read_trace(path):
        if ev == 'virtio_gpu_cmd_queue' and f.get('name') == 'control' and \
                int(f['flags'], 16) & FENCE:
            fenced[int(f['seqno'])] = int(f['fence_id'])
        elif ev in ('grtrace_commit', 'grtrace_end') and f.get('ring') == 'control':
            seq = int(f['fence'].split(':')[1])
            (commit if ev == 'grtrace_commit' else end)[seq] = round(ts * 1e6)
    return {s: (fid, commit[s], end[s]) for s, fid in fenced.items()
            if s in commit and s in end}


def faster(log, path, jump_us=0):
    """QEMU's LOG written to PATH with each stamp moved away from the
    first by FAST of the distance: a clock FAST faster; or, with JUMP_US,
    each stamp of its second half (by lines) JUMP_US later."""
    lines = open(log, errors='replace').readlines()
    t0 = None
    with open(path, 'w') as dst:
        for i, line in enumerate(lines):
            m = LINE.match(line)
            if m:
                us = int(m.group(2)) * 10**6 + int(m.group(3))
                t0 = us if t0 is None else t0
                if jump_us:
                    us += jump_us if i >= len(lines) // 2 else 0
                else:
                    us += round((us - t0) * FAST)
                line = f'{m.group(1)}@{us // 10**6}.{us % 10**6:06d}:{line[m.end(3) + 1:]}'
            dst.write(line)


def main():
    grtrace, demo = sys.argv[1], sys.argv[2]
    other = sys.argv[3] if len(sys.argv) > 3 else None
    dat, log = os.path.join(demo, 'trace.dat'), os.path.join(demo, 'qemu-trace.log')
    out = Ktap('host:', 10 + (len(sys.argv) > 3))
    host = host_fences(log)
    guest = guest_fenced(dat)
    out.result(len(guest) > 0 and len(host) > 0, 'the recordings hold fenced commands',
               f'guest {len(guest)}, host {len(host)}')

    r = subprocess.run([grtrace, 'report', '--jobs', '-i', dat, '--host', log, '-f', 'csv'],
                       capture_output=True, text=True, check=False)
    out.result(r.returncode == 0, 'grtrace report --host exits 0', r.stderr.strip())
    rows = list(csv.DictReader(io.StringIO(r.stdout))) if r.returncode == 0 else []
    joined = [x for x in rows if x.get('t_on_host')]
    seqs = [int(x['fence'].split(':')[1]) for x in joined if x['ring'].endswith('/control')]
    out.result(len(seqs) == len(joined) and len(set(seqs)) == len(seqs) and
               set(seqs) == set(guest),
               'every fenced guest command is joined, once, and nothing else',
               f'joined {len(joined)} ({len(set(seqs))} distinct), fenced {len(guest)}; '
               f'missing {sorted(set(guest) - set(seqs))[:5]}, '
               f'extra {sorted(set(seqs) - set(guest))[:5]}')

    wrong = []
    for x, s in zip(joined, seqs):
        f = host.get(guest.get(s, (None,))[0])
        if not f or f[2] is None or int(x['t_on_host']) != f[2] - f[1]:
            wrong.append((s, x['t_on_host'], f))
    out.result(joined and not wrong, "ON_HOST is the host's own take-to-answer time of its fence",
               f'{len(wrong)} differ, e.g. {wrong[:3]}')

    t = subprocess.run([grtrace, 'report', '-i', dat, '--host', log, '--topn', '5'],
                       capture_output=True, text=True, check=False).stdout
    m = CLOCKS.search(t)
    out.result(m is not None, 'the report gives the clock offset, its rate and its precision',
               m.group(0) if m else t[:400])
    off_us = int(m.group(1)) * 10**6 + int(m.group(2)) if m else 0
    rate = float(m.group(3) + m.group(4)) * 1e-6 if m else 0
    at_us = int(m.group(5)) * 10**6 + int(m.group(6)) if m else 0
    bad = []
    for x, s in zip(joined, seqs):
        fid, commit_us, end_us = guest.get(s, (None, 0, 0))
        f = host.get(fid)
        if not f or f[2] is None:
            bad.append((s, 'no host times'))
            continue
        take = f[1] // 1000 - off_us
        take -= rate * (take - at_us)
        to_host = take - commit_us
        back = end_us - take - (f[2] - f[1]) // 1000
        device = end_us - commit_us
        got = [int(x[k]) / 1000 for k in ('t_to_host', 't_back', 't_device')]
        if min(got[:2]) < 0 or abs(got[0] - to_host) > 2 or abs(got[1] - back) > 2 or \
                abs(got[2] - device) > 2:
            bad.append((s, got, [to_host, back, device]))
    out.result(joined and not bad,
               "TO_HOST, BACK and DEVICE from the guest's stamps, QEMU's and the offset "
               "(2 us), none negative",
               f'{len(bad)} jobs, e.g. (seqno, report us, from the stamps) {bad[:3]}')

    # QEMU's log, its clock 20 ppm faster from its first stamp on
    rates = []
    with tempfile.TemporaryDirectory() as tmp:
        fast, jump = os.path.join(tmp, 'qemu-fast.log'), os.path.join(tmp, 'qemu-jump.log')
        faster(log, fast)
        ends = [(c, e) for _, c, e in guest.values()]
        span_us = max(e for _, e in ends) - min(c for c, _ in ends) if ends else 0
        jump_us = 20000 + int(2 * 100e-6 * span_us)
        faster(log, jump, jump_us=jump_us)
        for h in (log, fast):
            r = subprocess.run([grtrace, 'report', '-i', dat, '--host', h, '-f', 'json'],
                               capture_output=True, text=True, check=False)
            try:
                rates.append(json.loads(r.stdout)['session']['host']['rate_ppm'])
            except (ValueError, KeyError, TypeError):
                rates.append(r.stderr.strip()[:300])
        j = subprocess.run([grtrace, 'report', '-i', dat, '--host', jump],
                           capture_output=True, text=True, check=False)
    out.result(all(isinstance(x, float) for x in rates) and
               abs(rates[1] - rates[0] - FAST * 1e6) < 1,
               f"its log with a clock {FAST * 1e6:.0f} ppm faster is joined, at a rate "
               f"{FAST * 1e6:.0f} ppm higher", f'rates (ppm): {rates}')
    out.result(j.returncode != 0 and 'no clock offset fits' in j.stderr and not j.stdout,
               "its log with a clock that jumped in the middle is refused: no offset fits",
               f'jump {jump_us} us over {span_us} us; exit {j.returncode}: '
               f'{j.stderr.strip()[:300]}')

    # Bad input: a clear error, and no report
    for inp, host, want in ((demo, log, "trace.dat of its virtio_gpu events (fence ids)"),
                            (dat, '/dev/null', 'no timed QEMU virtio_gpu events')):
        r = subprocess.run([grtrace, 'report', '-i', inp, '--host', host],
                           capture_output=True, text=True, check=False)
        out.result(r.returncode != 0 and want in r.stderr and not r.stdout,
                   f'--host refuses {"a relay stream" if inp == demo else "a log without QEMU events"}',
                   f'exit {r.returncode}: {r.stderr.strip()[:300]}')

    if other:
        r = subprocess.run([grtrace, 'report', '-i', dat, '--host', other],
                           capture_output=True, text=True, check=False)
        out.result(r.returncode != 0 and other in r.stderr and
                   'not the host side' in r.stderr and not r.stdout,
                   "another run's host log is refused, by name",
                   f'exit {r.returncode}: {r.stderr.strip()[:300]}')
    return out.finish()


if __name__ == '__main__':
    sys.exit(main())
