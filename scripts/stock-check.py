#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check grtrace's jobs made of a kernel's own events, on Debian's kernel.

usage: stock-check.py GRTRACE TRACE.DAT QEMU-TRACE.LOG TOP-BATCH.TXT

TRACE.DAT is "grtrace record" of a kernel without grtrace (step stock:
virtio_gpu and dma_fence events) while kmscube and glmark2-es2-drm
rendered; QEMU-TRACE.LOG QEMU's own trace of the same run, TOP-BATCH.TXT
what "grtrace top -b" printed meanwhile, reading the same events through
an ftrace instance of its own, top.csv beside it what another "grtrace top
-f csv" printed, and cpu.txt the DRM ioctls grtrace-bpf-annotate printed.
Each check sets the tool's answer ("grtrace report -f json", top's
intervals) against another reader: trace-cmd's report of the same events,
and QEMU; "grtrace dump", "grtrace timeline --latency" and "grtrace export"
(Chrome, KernelShark) against the report; "grtrace report --in-flight" of
the recording cut by "trace-cmd split" against the events; "grtrace report
-i instance:NAME" of an ftrace instance of the same events (instance.json)
against the report.  The exports and
cuts are written beside TOP-BATCH.TXT.  Prints KTAP; exits 1 if a check
fails.
"""
import bisect
import csv
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ktap import Ktap                   # pylint: disable=wrong-import-position
from sibling import load                # pylint: disable=wrong-import-position

MIN_JOBS = 50           # kmscube's 150 frames made about 400 commands alone
# The clients of scripts/guest/tests/stock.sh, as top and report name their
# processes (top's COMM column holds 16 characters)
CLIENTS = ('kmscube', 'glmark2-es2-drm')
MIN_FENCED = 20
FLAG_FENCE = 1          # VIRTIO_GPU_FLAG_FENCE
# An event is stamped by each instance apart, microseconds apart (up to
# milliseconds when the vCPU is descheduled between the two): only a job
# whose COMMIT or end is that close to an interval's boundary may land in
# another interval in top than in the recording; and MOVED jobs of an
# interval whose stamp a vCPU waiting a round-robin slice of QEMU's
# single-threaded TCG (100 ms) moved further (scripts/top-check.py).
SKEW_NS = 20_000_000
MOVED = 2
INTERVAL = re.compile(r'^grtrace top - ([\d.]+)-([\d.]+) s,')
PROC = re.compile(r'^ *(?:\d+|-) (.{16}) +\d+ +-?[\d.]+ +-?[\d.]+(?: +(?:[\d.]+|-)){3} '
                  r'(?:\d+:\d+|-)$')
RING = re.compile(r'^(\S+/control)\s+[\d.]+\s+([\d.]+)\s')
EVENT = re.compile(r'^\s*(\S.*?)-(\d+)\s+\[\d+\]\s+([\d.]+): (\w+):\s+(.*)$')


def tracecmd_events(path):
    """The virtio_gpu and dma_fence events, as trace-cmd reads them."""
    out = subprocess.run(['trace-cmd', 'report', '-i', path], check=True,
                         capture_output=True, text=True).stdout
    events = []
    for line in out.splitlines():
        m = EVENT.match(line)
        if not m:
            continue
        f = dict(w.split('=', 1) for w in m.group(5).split() if '=' in w)
        ts = round(float(m.group(3)) * 1e9)
        events.append((m.group(4), m.group(1).strip(), int(m.group(2)), ts, f))
    return events


def command_signals(events):
    """fence id -> when its fence signalled: virtio-gpu's fences of commands
    are on its "controlq" timeline, seqno the fence id (its CRTCs' fences,
    also the driver's, count from 1 too)."""
    return {int(f['seqno']): ts for name, ts, f in events
            if name == 'dma_fence_signaled' and f.get('driver') == 'virtio_gpu'
            and f.get('timeline') == 'controlq'}


def fenced(f):
    return bool(int(f['flags'], 0) & FLAG_FENCE and int(f['fence_id']))


def command_key(f):
    """A command's job is 0:seqno; before the events had a seqno (Linux
    6.1), 0:fence id, and a command without a fence has none (None)."""
    if 'seqno' in f:
        return int(f['seqno'])
    return int(f['fence_id']) if fenced(f) else None


def top_intervals(path):
    """(from_ns, to_ns, jobs of the control ring, processes) per interval."""
    out = []
    with open(path, errors='replace') as f:
        for line in f:
            m = INTERVAL.match(line)
            if m:
                out.append([round(float(m.group(1)) * 1e9), round(float(m.group(2)) * 1e9),
                            0, set()])        # no ring line: no job
                continue
            m = RING.match(line)
            if m and out:
                out[-1][2] = int(m.group(2))
            # PID COMM JOBS GPU_TIME SHARE% LAT_P50 LAT_P99 LAT_MAX SLOWEST, COMM
            # in 16 columns (the kernel's workers' row without a PID)
            m = PROC.match(line)
            if m and out:
                out[-1][3].add(m.group(1).rstrip())
    return out


def csv_intervals(path):
    """top -f csv's rows as top_intervals gives the text's."""
    out = {}
    with open(path, newline='', errors='replace') as f:
        for row in csv.DictReader(f):
            span = (round(float(row['from_s']) * 1e9), round(float(row['to_s']) * 1e9))
            iv = out.setdefault(span, [span[0], span[1], 0, set()])
            if row['kind'] == 'ring' and row['name'].endswith('/control'):
                iv[2] = int(row['jobs'])
            elif row['kind'] == 'process':
                iv[3].add(row['name'])
    return list(out.values())


def top_check(k, what, read, path, queued, events):
    """Each interval's jobs of the control ring as the recording has them:
    those top saw queued (after its first interval began) that ended in the
    interval, at their fence's signal (fenced) or their answer."""
    try:
        iv = read(path)
    except (OSError, KeyError, ValueError) as e:
        k.result(False, f'{what}: its intervals', e)
        return
    signal = command_signals(events)
    answer = {command_key(f): ts for name, ts, f in events
              if name == 'virtio_gpu_cmd_response' and f.get('vq') == '0'}
    ends = []
    for s, (_, _, f, commit) in queued.items():
        fenced = int(f['flags'], 0) & FLAG_FENCE and int(f['fence_id'])
        end = signal.get(int(f['fence_id'])) if fenced else answer.get(s)
        if end is not None:
            ends.append((commit, end))
    bad = []
    for lo, hi, jobs, _ in iv:
        t0 = iv[0][0]
        want = sum(1 for c, e in ends if c >= t0 and lo <= e < hi)
        near = sum(1 for c, e in ends if abs(c - t0) < SKEW_NS or
                   min(abs(e - lo), abs(e - hi)) < SKEW_NS)
        if abs(jobs - want) > near + MOVED:
            bad.append((lo, hi, jobs, want, near))
    seen = {c: sum(1 for x in iv if c in x[3]) for c in CLIENTS}
    k.result(len(iv) >= 3 and all(seen.values()) and not bad,
             f"{what}: each interval's jobs as the recording has them; each client in one",
             f"{len(iv)} intervals, " +
             ", ".join(f"{c} in {n}" for c, n in seen.items()) +
             f"; (from, to, top, recording, near a boundary) differing: {bad[:3]}")


PHASES = ('t_submit_host', 't_queue', 't_exec', 't_device', 't_complete')


def export_check(k, grtrace, dat, jobs, work):
    """export --chrome and --kernelshark of the recording: a slice per job
    and a box per phase of each, named by its fence, the report's DEVICE
    and COMPLETE phases as their lengths."""
    want = {(j['fence'], ph): j[key] for j in jobs
            for ph, key in (('device', 't_device'), ('complete', 't_complete'))
            if j[key] is not None}
    chrome = os.path.join(work, 'stock-chrome.json')
    lanes = os.path.join(work, 'stock-lanes.dat')
    try:
        subprocess.run([grtrace, 'export', '-i', dat, '--chrome', chrome],
                       check=True, capture_output=True, text=True)
        ev = json.load(open(chrome))['traceEvents']
        sl = [e['args'] for e in ev if e.get('cat') == 'job']
        have = {(a['fence'], ph): a[key] for a in sl
                for ph, key in (('device', 't_device'), ('complete', 't_complete')) if key in a}
        # A job with one stamp (a command queued as the recording ended)
        # has no phase to draw
        drawn = [j for j in jobs if any(j[key] is not None for key in PHASES)]
        why = f"{len(sl)} job slices, {len(drawn)} jobs with a phase of {len(jobs)}; " \
              f"{len(have)} phases, {len(want)} in the report; " \
              f"differ {sorted(set(have.items()) ^ set(want.items()))[:3]}"
        ok = have == want and len(sl) == len(drawn) == len({a['fence'] for a in sl}) and \
            {a['fence'] for a in sl} == {j['fence'] for j in drawn}
    except (OSError, ValueError, KeyError, subprocess.CalledProcessError) as e:
        ok, why = False, repr(e)
    k.result(ok, "export --chrome: a slice per job with a phase, each phase's length the "
             "report's", why)
    try:
        subprocess.run([grtrace, 'export', '-i', dat, '--kernelshark', lanes],
                       check=True, capture_output=True, text=True)
        out = subprocess.run(['trace-cmd', 'report', '-i', lanes], check=True,
                             capture_output=True, text=True).stdout
        boxes = re.findall(r' job: +\S+ (\w+) fence=(\S+) .*?dur_ns=(\d+)', out)
        have = {(f, ph): int(d) for ph, f, d in boxes}
        why = f"{len(boxes)} boxes, {len(want)} phases in the report; differ " \
              f"{sorted(set(have.items()) ^ set(want.items()))[:3]}"
        ok = have == want and len(boxes) == len(want)
    except (OSError, ValueError, subprocess.CalledProcessError) as e:
        ok, why = False, repr(e)
    k.result(ok, "export --kernelshark: a box per phase of each job, its length the report's "
             "(trace-cmd report of the lanes)", why)


# QEMU's log as host-check.py reads it: its lines, and the event of
# each command type QEMU takes
_host_check = load('host-check.py')
TAKE = _host_check.TAKE
QEMU_LINE = _host_check.LINE           # a line of QEMU's log


def move_take(log, path, fence, host_ns):
    """QEMU's LOG written to PATH with the take of FENCE (its command's own
    event, the last line of its thread before its fence_ctrl, of the
    fence's type, as grtrace takes it) stamped at HOST_NS; returns the
    stamp (ns) of the line of that thread before the take, None if FENCE
    has no such event."""
    lines = open(log, errors='replace').readlines()
    last, before = {}, {}
    for i, line in enumerate(lines):
        m = QEMU_LINE.match(line)
        if not m:
            continue
        tid, ns = m.group(1), int(m.group(2)) * 10**9 + int(m.group(3)) * 1000
        if m.group(4) == 'virtio_gpu_fence_ctrl':
            f = re.match(r'fence 0x([0-9a-f]+), type 0x([0-9a-f]+)', m.group(5))
            take = last.pop(tid, None)
            if f and int(f.group(1), 16) == fence:
                if not take or take[2] != int(f.group(2), 16):
                    return None
                us = host_ns // 1000
                lines[take[0]] = (f'{tid}@{us // 10**6}.{us % 10**6:06d}:' +
                                  lines[take[0]].split(':', 1)[1])
                with open(path, 'w') as dst:
                    dst.writelines(lines)
                return take[1]
        elif m.group(4) in TAKE:
            last[tid] = (i, before.get(tid, 0), TAKE[m.group(4)])
        before[tid] = ns
    return None


def late_take_check(k, grtrace, dat, qemu, queued, work):
    """The kernel stamps virtio_gpu_cmd_queue after adding the command to
    the virtqueue, where QEMU may already be taking commands (it did, 116 us
    before the stamp, in a run of CI): QEMU's log with one command's take
    moved before its COMMIT, after the COMMIT of the command before it, is
    joined all the same; moved before that one's COMMIT, it is refused."""
    def report(log):
        r = subprocess.run([grtrace, 'report', '--jobs', '-i', dat, '--host', log,
                            '-f', 'json'], capture_output=True, text=True, check=False)
        try:
            return json.loads(r.stdout), r.stderr.strip()[:400]
        except ValueError:
            return None, r.stderr.strip()[:400]

    rep, why = report(qemu)
    host = rep['session'].get('host') if rep else None
    if not host:
        k.result(False, "a command QEMU took before its COMMIT's stamp is joined", why)
        k.result(False, "a command QEMU took before it was added is refused", why)
        return
    width = host['offset_hi_ns'] - host['offset_lo_ns']

    def to_host(g):
        return g + host['offset_ns'] + round(host['rate_ppm'] * 1e-6 * (g - host['offset_at_ns']))
    commit = {int(j['fence'].split(':')[1]): j['commit_ns'] for j in rep['jobs']
              if j['ring'].endswith('/control') and j['commit_ns'] is not None}
    # A joined command queued well after the one before it, whose take
    # can move before its COMMIT and stay after its thread's line before
    moved = None
    for j in rep['jobs']:
        s = int(j['fence'].split(':')[1])
        if j['t_on_host'] is None or s not in queued or s - 1 not in commit or \
                commit[s] - commit[s - 1] < 2 * width + 400_000:
            continue
        out = os.path.join(work, 'qemu-late-take.log')
        t = to_host(commit[s]) - width - 200_000
        prev = move_take(qemu, out, int(queued[s][2]['fence_id']), t)
        if prev is not None and prev < t - 1000:
            moved = (s, out)
            break
    if not moved:
        k.result(False, "a command QEMU took before its COMMIT's stamp is joined",
                 f"no joined command queued {2 * width + 400_000} ns after the one before")
        k.result(False, "a command QEMU took before it was added is refused", "none moved")
        return
    s, out = moved
    late, why = report(out)
    lj = [j for j in late['jobs'] if j['fence'] == f'0:{s}'] if late else []
    h = late['session'].get('host', {}) if late else {}
    k.result(h.get('joined') == host['joined'] and h.get('joined_taken_before_commit', 0) >= 1
             and lj and lj[0]['t_to_host'] is not None and lj[0]['t_to_host'] < 0,
             "a command QEMU took between its add and its COMMIT's stamp is joined, its "
             "TO_HOST negative, counted in the header",
             f"0:{s} taken {width + 200_000} ns before its COMMIT: joined {h.get('joined')} of "
             f"{host['joined']}, {h.get('joined_taken_before_commit')} before the stamp, "
             f"TO_HOST {lj[0]['t_to_host'] if lj else None}; {why}")
    # Before the COMMIT of the command before, by more than the tool's
    # rate (at most 100 ppm) can tilt the offset over the run: one take
    # moved by less was absorbed by a refit at 70 ppm in a make check
    # (every command then bounded by the COMMIT before its own)
    tilt = round(100e-6 * (max(commit.values()) - min(commit.values())))
    out = os.path.join(work, 'qemu-early-take.log')
    move_take(qemu, out, int(queued[s][2]['fence_id']),
              to_host(commit[s - 1]) - width - 200_000 - tilt)
    r = subprocess.run([grtrace, 'report', '-i', dat, '--host', out],
                       capture_output=True, text=True, check=False)
    k.result(r.returncode != 0 and 'no clock offset fits' in r.stderr and not r.stdout,
             "a command QEMU took before the command before it was queued (so before it "
             "was added) is refused: no offset fits",
             f'exit {r.returncode}: {r.stderr.strip()[:300]}')


IOCTL = re.compile(r'^\[(\d+)\.(\d{9})\] IOCTL_(ENTER|EXIT) pid=(\d+) tid=(\d+) ')
MIN_MERGED = 20


def merge_check(k, grtrace, dat, cpu):
    """grtrace merge of the recording with the annotator's DRM ioctls of the
    same run (CPU.txt): the events cannot tell a command's SUBMIT, so each
    job is matched at its COMMIT, which virtio_gpu_cmd_queue stamps in the
    thread that queued it.  Each job's ioctl, computed here from the dump's
    COMMIT (its time and thread) and the ioctls' windows, is merge's.  An
    ioctl whose EXIT is missing (a thread does not enter one while in
    another: the annotator's program did not run at its exit) lasts until
    the thread's next ioctl, as grtrace-merge(1) says."""
    try:
        win = {}                        # tid -> [(enter ns, exit ns, ENTER's line)]
        open_ = {}
        no_exit = 0                     # ENTERs the thread's next ENTER follows
        for n, line in enumerate(open(cpu, errors='replace'), 1):
            m = IOCTL.match(line)
            if not m:
                continue
            ns, tid = int(m.group(1)) * 10**9 + int(m.group(2)), int(m.group(5))
            if m.group(3) == 'ENTER':
                if tid in open_:
                    enter, at = open_.pop(tid)
                    win.setdefault(tid, []).append((enter, ns - 1, at))
                    no_exit += 1
                open_[tid] = (ns, n)
            elif tid in open_:
                enter, at = open_.pop(tid)
                win.setdefault(tid, []).append((enter, ns, at))
        for tid, (enter, at) in open_.items():
            win.setdefault(tid, []).append((enter, float('inf'), at))
        want = {}                       # fence -> ENTER's line, or None
        dump = subprocess.run([grtrace, 'dump', dat], capture_output=True, text=True,
                              check=True).stdout
        for line in dump.splitlines():
            if not line.startswith('commit '):
                continue
            f = dict(x.split('=', 1) for x in line.split()[1:] if '=' in x)
            ts, tid = int(f['ts']), int(f['pid'])
            want[f['fence']] = next((at for a, b, at in win.get(tid, []) if a <= ts <= b), None)
        out = subprocess.run([grtrace, 'merge', '-c', cpu, '-i', dat, '-f', 'csv'],
                             capture_output=True, text=True, check=True).stdout
        got = {r['fence']: int(r['ioctl_line']) if r['matched'] == '1' else None
               for r in csv.DictReader(out.splitlines())}
        kms = sum(1 for r in csv.DictReader(out.splitlines())
                  if r['matched'] == '1' and r['comm'] == 'kmscube')
        differ = sorted(f for f in want.keys() | got.keys() if want.get(f) != got.get(f))
        # timeline -c marks them on kmscube's row too (^), at their COMMIT
        tl = subprocess.run([grtrace, 'timeline', '-c', cpu, '-i', dat, '-w', '100'],
                            capture_output=True, text=True, check=True).stdout
        marked = [ln for ln in tl.splitlines() if ln.startswith('kmscube/') and '^' in ln]
        if not marked:
            differ.append('timeline -c: no ^ on a kmscube row')
        # Each missing EXIT counted by the annotator, with the runs the
        # kernel skipped (Debian's 7.3 skipped some under two clients)
        err = open(os.path.join(os.path.dirname(cpu), 'annotate.err'), errors='replace').read()
        m = re.search(r"(\d+) without exit, (\d+) not waited for.*\n.*runs the kernel "
                      r"skipped: (\d+) enters, (\d+) exits", err)
        lost = re.search(r" (\d+) lost\n", err)
        # An EXIT the ring buffer had no room for is counted lost, not
        # without exit, and shows as an ENTER the next ENTER follows
        if not m or not lost or not (int(m.group(1)) <= no_exit <=
                                     int(m.group(1)) + int(lost.group(1))) \
                or int(m.group(4)) < int(m.group(1)):
            differ.append(f"annotator: {m.groups() if m else None} counted, "
                          f"{lost.group(1) if lost else None} lost, {no_exit} ENTERs "
                          "without EXIT in its output")
        why = (f"{len(win)} threads with ioctls, {sum(map(len, win.values()))} ioctls "
               f"({no_exit} without EXIT, counted); "
               f"{sum(v is not None for v in want.values())} of {len(want)} jobs in one, "
               f"{kms} of kmscube matched; differ {differ[:5]}: "
               f"{[(f, want.get(f), got.get(f)) for f in differ[:3] if f in want or f in got]}")
    except (OSError, ValueError, KeyError, subprocess.CalledProcessError) as e:
        differ, kms, why = True, 0, repr(e)
    k.result(not differ and kms >= MIN_MERGED,
             f"grtrace merge with the annotator's ioctls: each job matched at its COMMIT "
             f"to the ioctl of its thread around it (at least {MIN_MERGED} of kmscube's), "
             "and no other; timeline -c marks them; the annotator counts each missing EXIT",
             why)


def in_flight_check(k, grtrace, dat, events, queued, work):
    """report --in-flight of the recording cut (trace-cmd split) just after
    the queueing of three commands, a quarter, half and three quarters
    through it: in flight, the commands queued before the cut and not
    answered by it, and the fenced ones answered whose fence had not
    signalled."""
    answered = {command_key(f): ts for name, _, _, ts, f in events
                if name == 'virtio_gpu_cmd_response' and f.get('vq') == '0'}
    signaled = command_signals([(name, ts, f) for name, _, _, ts, f in events])
    times = sorted(ts for *_, ts, _ in events)
    order = sorted(queued, key=lambda s: queued[s][3])
    bad = []
    for q in (1, 2, 3):
        s = order[len(order) * q // 4] if order else None
        at = queued[s][3] if s is not None else 0
        nxt = min((t for t in times if t > at), default=at + 2000)
        cut = (at + nxt) // 2
        want = {x for x, (_, _, f, t) in queued.items() if t <= cut and
                (answered.get(x, cut + 1) > cut or
                 (fenced(f) and signaled.get(int(f['fence_id']), cut + 1) > cut))}
        out = os.path.join(work, f'stock-cut{q}.dat')
        for old in (out, out + '.1'):
            if os.path.exists(old):
                os.remove(old)
        try:
            subprocess.run(['trace-cmd', 'split', '-i', dat, '-o', out, '0', f'{cut / 1e9:.9f}'],
                           check=True, capture_output=True, text=True)
            # trace-cmd before 3.3 names its one output file OUT.1
            cut_dat = out if os.path.exists(out) else out + '.1'
            rep = json.loads(subprocess.run([grtrace, 'report', '--in-flight', '-f', 'json',
                                             '-i', cut_dat], check=True,
                                            capture_output=True, text=True).stdout)
            have = {int(j['fence'].split(':')[1]) for j in rep['in_flight']}
        except (OSError, ValueError, KeyError, subprocess.CalledProcessError) as e:
            have = repr(e)
        if have != want or not want:
            bad.append(f"cut at {cut / 1e9:.6f} s: {have} in flight, the events say {want}")
    k.result(not bad, "report --in-flight of the recording cut after three commands: "
             "the commands not answered or whose fence had not signalled", '; '.join(bad))


def instance_check(k, jobs, path):
    """grtrace report -i instance:NAME of an ftrace instance of the same
    events (stock.sh enables it before grtrace record starts and stops it
    after): every job of the recording, its task and its status, and each
    stamp the recording has (COMMIT, END, COMPLETE) of the same call of the
    tracepoint as the instance's.  Each buffer stamps that call apart: the
    instance's probe, registered first, runs first, and the vCPU may be
    descheduled between the two (28.7 ms seen), so no bound on the
    difference holds.  What the order of the calls tells instead: the
    recording's stamp is at or after the instance's, and before the
    instance's stamp of the job's next event (END after COMMIT: the command
    is queued under the queue's lock, which its response is taken off
    under; COMPLETE after END: one worker takes the responses and then
    signals their fences) or, for COMPLETE, of the next COMPLETE on its
    ring (that worker signals a ring's fences in order, one run after
    another)"""
    try:
        got = {j['fence']: j for j in json.load(open(path))['jobs']}
    except (OSError, ValueError, KeyError) as e:
        k.result(False, 'report -i instance:NAME of the kernel\'s events', repr(e))
        return
    done = {}
    for g in got.values():
        if g['complete_ns'] is not None:
            done.setdefault(g['ring'], []).append(g['complete_ns'])
    for ring in done.values():
        ring.sort()
    bad = []
    for j in jobs:
        g = got.get(j['fence'])
        if g is None:
            bad.append((j['fence'], 'missing'))
            continue
        for key in ('ring', 'comm', 'pid', 'status'):
            if g[key] != j[key]:
                bad.append((j['fence'], key, j[key], g[key]))
        after = None
        if g['complete_ns'] is not None:
            later = done[g['ring']]
            i = bisect.bisect_right(later, g['complete_ns'])
            after = later[i] if i < len(later) else None
        nxt = {'commit_ns': g['end_ns'] if g['end_ns'] is not None else g['complete_ns'],
               'end_ns': g['complete_ns'], 'complete_ns': after}
        for key in ('commit_ns', 'end_ns', 'complete_ns'):
            if j[key] is None:
                continue
            if g[key] is None or j[key] < g[key] or \
               (nxt[key] is not None and j[key] > nxt[key]):
                bad.append((j['fence'], key, j[key], g[key], nxt[key]))
    k.result(len(jobs) >= MIN_JOBS and not bad,
             "report -i instance:NAME of an ftrace instance of the kernel's events: every "
             "job of the recording, its task, status and stamps",
             f"{len(jobs)} jobs in the recording, {len(got)} in the instance; "
             f"{len(bad)} differ, first {bad[:3]}")


def main():
    grtrace, dat, qemu, top = sys.argv[1:5]
    k = Ktap('stock:', 21)
    try:
        rep = json.loads(subprocess.run([grtrace, 'report', '--jobs', '-i', dat, '-f', 'json'],
                                        check=True, capture_output=True, text=True).stdout)
        procs = json.loads(subprocess.run(
            [grtrace, 'report', '-i', dat, '-f', 'json', '--per-process'],
            check=True, capture_output=True, text=True).stdout)
        events = tracecmd_events(dat)
    except (OSError, ValueError, subprocess.CalledProcessError) as e:
        k.result(False, 'grtrace report and trace-cmd report read the recording', e)
        return k.finish()
    # grtrace record's clock: CLOCK_MONOTONIC, the relay stream's and
    # grtrace-bpf-annotate's, for merge (trace-cmd's own default is local).
    clock = re.search(r'\[(\w+)\]', subprocess.run(
        ['trace-cmd', 'dump', '--clock', '-i', dat],
        capture_output=True, text=True, check=False).stdout)
    k.result(clock and clock.group(1) == 'mono',
             'grtrace record: the recording\'s clock is mono (CLOCK_MONOTONIC)',
             f"trace-cmd dump --clock: {clock.group(1) if clock else 'no clock'}")
    sess = rep['session']
    k.result(sess.get('jobs_from') == 'kernel' and sess['jobs'] >= MIN_JOBS,
             f"grtrace report: at least {MIN_JOBS} jobs, from the kernel's own events",
             f"jobs_from {sess.get('jobs_from')}, {sess['jobs']} jobs")

    # One job per command queued on the control queue, by seqno (by fence
    # id, of the fenced commands, when the events have no seqno); those of
    # the others counted as unpaired.
    cmds = [(name, comm, pid, ts, f) for name, comm, pid, ts, f in events
            if name in ('virtio_gpu_cmd_queue', 'virtio_gpu_cmd_response')]
    queued = {command_key(f): (comm, pid, f, ts) for name, comm, pid, ts, f in cmds
              if name == 'virtio_gpu_cmd_queue' and f.get('vq') == '0'}
    queued.pop(None, None)
    unpaired = sum(1 for *_, f in cmds if command_key(f) is None)
    k.result(sess.get('unpaired_events') == unpaired,
             "events of commands the kernel's events cannot pair (no seqno, no fence) "
             "counted, and only those",
             f"{sess.get('unpaired_events')} counted, {unpaired} in the recording; "
             f"seqno in the events: {all('seqno' in f for *_, f in cmds)}")
    jobs = {int(j['fence'].split(':')[1]): j for j in rep['jobs']
            if j['ring'].endswith('/control')}
    # A command queued before trace-cmd's events were on, answered after:
    # a job with no COMMIT, before the first queued, labelled incomplete.
    before = {s for s in set(jobs) - set(queued)
              if queued and s < min(queued) and jobs[s]['commit_ns'] is None
              and 'incomplete' in jobs[s]['labels']}
    k.result(set(jobs) - before == set(queued) and len(jobs) == len(rep['jobs']),
             'one job per command trace-cmd shows queued, and no other '
             '(but those answered before their first)',
             f"{len(jobs)} jobs, {len(queued)} queued, {len(before)} before; only in jobs "
             f"{sorted(set(jobs) - set(queued))[:5]}, only queued "
             f"{sorted(set(queued) - set(jobs))[:5]}")

    # Named as trace-cmd names the task that queued it; each client's
    # jobs in its row of --per-process.  The kernel's events give the
    # thread alone, so a row is a thread: Mesa's "kmscube:disk$0" has its own
    queued_by = {c: sum(1 for comm, _, _, _ in queued.values() if comm == c)
                 for c in CLIENTS}
    # (glmark2-es2-drm fills the 15 characters of a name: its threads' names
    # are cut to its own, rows of their own with the same name)
    groups = {}
    for g in procs.get('per_process', []):
        name = g['group'].split('[')[0]
        groups[name] = groups.get(name, 0) + g['jobs']
    # trace-cmd prints "<...>" for a thread its saved names lack, grtrace ""
    wrong = [s for s, (comm, pid, _, _) in queued.items()
             if s in jobs and (jobs[s]['comm'] != comm.replace('<...>', '') or
                               jobs[s]['pid'] != pid)]
    k.result(all(queued_by[c] > 0 and groups.get(c) == queued_by[c] for c in CLIENTS) and
             not wrong,
             "each job named by its task; both clients' jobs per process",
             "; ".join(f"{c}: {groups.get(c)} in --per-process, {queued_by[c]} queued"
                       for c in CLIENTS) +
             f"; {len(wrong)} named otherwise, first {wrong[:5]}")

    # What the events cannot tell is unknown, not zero.
    told = [s for s, j in jobs.items() if j['submit_ns'] is not None or
            j['t_submit_host'] is not None or j['latency'] is not None]
    k.result(not told, 'SUBMIT, HOST and LATENCY unknown (null) for every job',
             f"{len(told)} jobs with one, first {told[:5]}")

    # The phases in order, DEVICE from COMMIT to END.
    bad = []
    for s, j in jobs.items():
        c, e, d = j['commit_ns'], j['end_ns'], j['complete_ns']
        if s in before:
            continue
        if c is None or (e is not None and (e < c or j['t_device'] != e - c)) or \
           (d is not None and (e is None or d < e)):
            bad.append(s)
    k.result(not bad, 'COMMIT <= END <= COMPLETE, DEVICE = END - COMMIT',
             f"{len(bad)} jobs not, first {bad[:5]}: {[jobs[s] for s in bad[:1]]}")

    # A COMPLETE for each fenced command whose fence trace-cmd saw signal.
    # A COMPLETE for each fenced command whose fence trace-cmd saw signal,
    # at that signal (trace-cmd prints microseconds).
    signaled = command_signals([(name, ts, f) for name, _, _, ts, f in events])
    fenced = {s: int(f['fence_id']) for s, (_, _, f, _) in queued.items()
              if int(f['flags'], 0) & FLAG_FENCE}
    want = {s: signaled[fid] for s, fid in fenced.items() if fid in signaled}
    have = {s: j['complete_ns'] for s, j in jobs.items() if j['complete_ns'] is not None}
    off = sorted(s for s in want.keys() & have.keys() if abs(want[s] - have[s]) > 1000)
    k.result(len(want) >= MIN_FENCED and want.keys() == have.keys() and not off,
             f"COMPLETE exactly for the fenced commands whose fence signalled "
             f"(at least {MIN_FENCED}), at the signal",
             f"{len(want)} signalled, {len(have)} with COMPLETE; "
             f"differ {sorted(want.keys() ^ have.keys())[:5]}; at another time {off[:5]}")

    # QEMU's own trace answers every fenced command whole in the recording.
    whole = {s for s in fenced if jobs.get(s, {}).get('end_ns') is not None}
    try:
        host = subprocess.run([grtrace, 'report', '-i', dat, '--host', qemu, '--limit', '1'],
                              capture_output=True, text=True, check=False)
        m = re.search(r'(\d+) of the guest\'s (\d+) fenced virtio-gpu commands joined',
                      host.stdout)
    except OSError as e:
        m, host = None, e
    k.result(getattr(host, 'returncode', 1) == 0 and m and
             int(m.group(1)) == int(m.group(2)) == len(whole),
             "QEMU's trace has each fenced command, joined by fence id",
             f"{m.group(0) if m else 'no join line'}; {len(whole)} fenced and whole; "
             f"{getattr(host, 'stderr', host)}")
    # grtrace dump of the recording: the records report made its jobs of,
    # each stage of each job at the time the report gives it.
    try:
        out = subprocess.run([grtrace, 'dump', dat], capture_output=True, text=True,
                             check=True).stdout
        stages, control = {}, set()
        for line in out.splitlines():
            w = line.split()
            f = dict(x.split('=', 1) for x in w[1:] if '=' in x)
            if w[0] == 'metadata' and f['name'] == 'control':
                control.add(f['ring'])
            elif w[0] in ('commit', 'end', 'complete') and f['ring'] in control:
                stages.setdefault(int(f['fence'].split(':')[1]), {})[w[0]] = int(f['ts'])
        differ = [s for s, j in jobs.items()
                  if stages.get(s) != {st: j[st + '_ns'] for st in ('commit', 'end', 'complete')
                                       if j[st + '_ns'] is not None}]
        why = f"{len(stages)} jobs in the dump, {len(jobs)} in the report; differ {differ[:5]}"
    except (OSError, ValueError, KeyError, subprocess.CalledProcessError) as e:
        differ, why = True, repr(e)
    k.result(not differ and len(stages) == len(jobs),
             'grtrace dump of the recording: the records of the jobs, each stage at its '
             "time in the report", why)
    # timeline --latency of the same recording: per phase, as many jobs
    # and the same longest as the report's jobs (us, 3 decimals)
    try:
        out = subprocess.run([grtrace, 'timeline', '--latency', dat], capture_output=True,
                             text=True, check=True).stdout
        rows = {m.group(1): (int(m.group(2)), m.group(3)) for m in re.finditer(
            r'^  (start->end|end->complete) +(\d+) +\S+ +\S+ +\S+ +(\S+)$', out, re.M)}
        want = {}
        for phase, key in (('start->end', 't_device'), ('end->complete', 't_complete')):
            v = [j[key] for j in rep['jobs'] if j[key] is not None]
            want[phase] = (len(v), f'{max(v) / 1000:.3f}' if v else None)
        why = f'timeline {rows}, report {want}'
    except (OSError, ValueError, subprocess.CalledProcessError) as e:
        rows, want, why = None, {}, repr(e)
    k.result(rows == want and all(n for n, _ in want.values()),
             "grtrace timeline --latency: each phase's jobs and longest as the report's", why)
    # --hist size counts a relay stream's records: a trace.dat has none
    r = subprocess.run([grtrace, 'report', '-i', dat, '--hist', 'size'],
                       capture_output=True, text=True, check=False)
    k.result(r.returncode == 1 and not r.stdout and
             "--hist size counts relay records" in r.stderr,
             "report --hist size of a trace.dat refused, not the sizes of the records "
             "the tool made", f"exit {r.returncode}: {r.stderr.strip()[:200]} {r.stdout[-200:]}")
    work = os.path.dirname(os.path.abspath(top))
    merge_check(k, grtrace, dat, os.path.join(work, 'cpu.txt'))
    late_take_check(k, grtrace, dat, qemu, queued, work)
    export_check(k, grtrace, dat, rep['jobs'], work)
    in_flight_check(k, grtrace, dat, events, queued, work)
    instance_check(k, rep['jobs'], os.path.join(work, 'instance.json'))
    events = [(name, ts, f) for name, _, _, ts, f in events]
    top_check(k, 'grtrace top -b', top_intervals, top, queued, events)
    # Another top beside it, its rows as CSV (-f csv)
    top_check(k, 'grtrace top -f csv', csv_intervals,
              os.path.join(os.path.dirname(top), 'top.csv'), queued, events)
    return k.finish()


if __name__ == '__main__':
    sys.exit(main())
