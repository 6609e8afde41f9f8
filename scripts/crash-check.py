#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check what a crashed guest's next boot says of it (issue: GPU job history
that survives the reboot; scripts/guest/tests/crash.sh made DIR).

Boot 1 recorded the grtrace events into a persistent ftrace instance from
early boot and in a second instance, read as text to the share once it
stopped (live.txt: what reached the host before the crash); KUnit's drm_sched timeout suite
hung a mock job until the scheduler's timeout reported it; kmscube and
glmark2-es2-drm rendered on virgl (their pids in clients.txt, their output
next to it) until user space panicked the kernel (/init exited).  Boot 2 saved
the previous boot with grtrace persist --save (the backup grtrace_last) and
read it with grtrace: report --last-boot (text) twice, from the saved file,
report --last-boot=grtrace_json -f json, report -i instance:grtrace_jobs -f
csv (every job) and export --last-boot=grtrace_perfetto --chrome, each a
backup copy of the same buffer.

This reads live.txt and the serial log itself and checks, in KTAP:

- boot 1 recorded persistently (grtrace persist --status), panicked from
  user space, and booted again, with no other kernel report;
- boot 2 found the previous boot in the backup, and each backup, once read,
  is gone; persist --save read grtrace_last into a file, and report
  --last-boot read that file twice, with the same answer;
- every job of live.txt is in the previous boot's history, same submitter,
  same times of each stage, and the live instance overwrote none
  (live-stats.txt); the history reaches at least as far;
- per client, the history holds at least the SUBMITs live.txt had, and
  kmscube's SUBMITs are at least its last printed frame count;
- "in flight" is exactly the jobs with no COMPLETE, aged to the last event,
  among them jobs of the clients; "last completed" the latest COMPLETEs;
- the hung mock job is among the failed jobs, with the timeout's error;
- the text report names the same jobs in flight; the Perfetto export is JSON
  with them.

usage: crash-check.py DIR SERIAL_LOG     (prints KTAP)
"""

import csv
import io
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'guest'))
from ktap import Ktap                   # pylint: disable=wrong-import-position
from verdict import KERNEL_PROBLEM, PRINTK_PREFIX   # pylint: disable=wrong-import-position
from tracecmd import pipe_events, read_text as read   # pylint: disable=wrong-import-position

# An event's two stamps, one per instance, are one probe call apart: a
# median of 12-16 us in the TCG guest with KASAN.  The host adds the rest:
# QEMU's vCPU thread waits between the two calls whenever the loaded
# 2-core host runs something else (148 ms seen, among 23,000 events).  The
# bound on each stamp tells one of the same clock and boot from any other;
# the bound on the median, a stamp of another clock or a constant offset.
LAG_MAX_US = 1000000
LAG_MEDIAN_MAX_US = 1000
STAGES = ['submit', 'commit', 'start', 'end', 'complete']
# The panic that user space asked for (PID 1 exited), and its end marker
EXPECTED = re.compile(r'Kernel panic - not syncing: Attempted to kill init!')


def live_jobs(path):
    """fence -> {stage: us, 'pid', 'comm'} from the text of trace_pipe"""
    jobs = {}
    last = 0
    for us, stage, f in pipe_events(path):
        if stage not in STAGES:
            continue
        j = jobs.setdefault(f['fence'], {})
        j[stage] = us
        if stage == 'submit':
            j['pid'] = int(f['pid'])
            j['comm'] = f['comm']
        last = max(last, us)
    return jobs, last


def has_fence(fence, text):
    """@text names the fence context:seqno @fence as a whole token ("2:99"
    is not in "12:991")."""
    return re.search(r'(?<![0-9:])' + re.escape(fence) + r'(?![0-9:])', text) is not None


def main():
    d, serial = sys.argv[1], sys.argv[2]
    out = Ktap('crash:', 16)
    log = [PRINTK_PREFIX.sub('', l) for l in read(serial).splitlines()]

    st1 = read(os.path.join(d, 'status-1.txt'))
    out.result(re.search(r'^grtrace_boot\s+this boot, grtrace events on', st1, re.M) and
               'exit 0' in st1,
               'boot 1 records the grtrace events in a persistent instance (grtrace persist --status)',
               st1)
    boots = sum('Linux version' in l for l in log)
    panicked = any(EXPECTED.search(l) for l in log)
    out.result(panicked and boots == 2 and os.path.exists(os.path.join(d, 'boot1.done')),
               'the guest panicked from user space while the clients rendered, and booted again',
               f'{boots} boots, panic {panicked}')
    reports = [l for l in log if KERNEL_PROBLEM.search(l) and not EXPECTED.search(l)]
    second = [k for k, l in enumerate(log) if 'Linux version' in l][1:2]
    out.result(not reports and second and
               any('GRTRACE-TEST: crash PASS' in l for l in log[second[0]:]),
               'no kernel report but the panic asked for; the second boot\'s reads pass',
               '\n'.join(reports[:5]) or read(os.path.join(d, 'last-boot.err')))

    st2 = read(os.path.join(d, 'status-2.txt'))
    m = re.search(r'^grtrace_last\s+the previous boot, (\d+) events', st2, re.M)
    out.result(m and int(m.group(1)) > 0,
               'boot 2: the backup instance holds the previous boot\'s events', st2)
    before = read(os.path.join(d, 'instances-before.txt')).split()
    after = read(os.path.join(d, 'instances-after.txt')).split()
    copies = ['grtrace_last', 'grtrace_json', 'grtrace_jobs', 'grtrace_perfetto']
    again = read(os.path.join(d, 'again.err'))
    out.result(all(c in before and c not in after for c in copies) and 'grtrace_boot' in after
               and 'exit 1' in again,
               'each backup, read once, is gone; reading it again is an error',
               f'before {before}\nafter {after}\n{again}')

    save = read(os.path.join(d, 'save.txt'))
    text = read(os.path.join(d, 'last-boot.txt'))
    m = re.search(r'^(\d+) events of instance:grtrace_last saved in '
                  r'/var/lib/grtrace/last-boot.grt$', save, re.M)
    out.result(m and int(m.group(1)) > 0 and
               text.startswith('grtrace report: /var/lib/grtrace/last-boot.grt (1 file)\n') and
               text == read(os.path.join(d, 'last-boot-again.txt')),
               'persist --save kept grtrace_last in a file; report --last-boot read it twice, '
               'the same both times', f'{save}\n{text[:300]}')

    live, live_last = live_jobs(os.path.join(d, 'live.txt'))
    # Each check below says what it missed: a file boot 2 did not write
    # is an empty one here, not the end of the checks.
    rows = list(csv.DictReader(io.StringIO(read(os.path.join(d, 'last-boot-jobs.csv')))))
    hist = {r['fence']: r for r in rows}
    # Each instance's ring buffer stamps an event when it writes it: the
    # persistent instance's probe runs first (registered at boot), on the
    # same CPU, so its time is never later than the live one's.
    bad = []
    lag = []
    for fence, j in live.items():
        if 'submit' not in j:
            continue
        r = hist.get(fence)
        if not r:
            bad.append(f'{fence}: not in the history')
            continue
        if int(r['pid'] or 0) != j['pid'] or r['comm'] != j['comm']:
            bad.append(f'{fence}: submitter {r["pid"]} {r["comm"]}, live {j["pid"]} {j["comm"]}')
        for s in STAGES:
            if s not in j:
                continue
            late = j[s] - int(r[s + '_ns'] or 0) // 1000
            lag.append(late)
            if not r[s + '_ns'] or late < 0 or late > LAG_MAX_US:
                bad.append(f'{fence}: {s} at {r[s + "_ns"]} ns, live {j[s]} us')
    # The live instance kept all it recorded: an overrun, its oldest
    # events dropped, would leave this check less to compare.
    stats = read(os.path.join(d, 'live-stats.txt'))
    overruns = [int(n) for n in re.findall(r'^cpu\d+ overrun: (\d+)', stats, re.M)]
    out.result(live and not bad and overruns and not any(overruns),
               f'every job the live stream saw ({len(live)}) is in the previous boot\'s history, '
               f'same submitter, each stage stamped at most {LAG_MAX_US} us before the live '
               'instance\'s stamp; the live instance lost none', '\n'.join(bad[:10] + [stats]))
    lag.sort()
    median = lag[len(lag) // 2] if lag else None
    out.result(median is not None and median <= LAG_MEDIAN_MAX_US,
               f'the live instance\'s stamp trails the persistent one\'s by at most '
               f'{LAG_MEDIAN_MAX_US} us at the median',
               f'median {median} us, max {lag[-1] if lag else None} us ({len(lag)} events)')
    if lag:
        out.diag(f'live instance stamp - persistent stamp: median {median} us, '
                 f'max {lag[-1]} us ({len(lag)} events)')
    hist_last = max((int(r[s + '_ns']) for r in rows for s in STAGES if r.get(s + '_ns')),
                    default=0)
    out.result(rows and hist_last // 1000 >= live_last,
               'the history reaches at least as far as what reached the host before the crash',
               f'history {hist_last} ns, live {live_last} us')

    clients = {}
    for line in read(os.path.join(d, 'clients.txt')).splitlines():
        w = line.split()
        if len(w) == 2 and w[1].isdigit():
            clients[int(w[1])] = w[0]
    short = []
    for pid, name in clients.items():
        n_live = sum(1 for j in live.values() if j.get('pid') == pid)
        n_hist = sum(1 for r in rows if int(r['pid'] or 0) == pid)
        out.diag(f'{name} (pid {pid}): {n_live} SUBMITs reached the host, {n_hist} in the history')
        if not n_live or n_hist < n_live:
            short.append(f'{name}: {n_hist} in the history, {n_live} live')
    frames = re.findall(r'Rendered (\d+) frames', read(os.path.join(d, 'kmscube.out')))
    kms = [p for p, n in clients.items() if n == 'kmscube']
    n_kms = sum(1 for r in rows if kms and int(r['pid'] or 0) == kms[0])
    if not frames or n_kms < int(frames[-1]):
        short.append(f'kmscube printed {frames[-1] if frames else "no"} frames, '
                     f'{n_kms} jobs in the history')
    out.result(len(clients) == 2 and not short,
               'per client, the history holds every SUBMIT that reached the host; '
               'kmscube\'s at least its frames', '\n'.join(short))

    rep = json.loads(read(os.path.join(d, 'last-boot.json')) or '{}')
    last_ts = rep.get('session', {}).get('last_ts', 0)
    flying = rep.get('in_flight', [])
    want = {r['fence'] for r in rows if not r['complete_ns']}
    got = {j['fence'] for j in flying}
    ages = [j['fence'] for j in flying if j['age_ns'] != last_ts - j['first_ns']]
    out.result(flying and got == want and not ages and last_ts >= hist_last,
               f'in flight: the {len(want)} jobs with no COMPLETE, aged to the last event',
               f'report {sorted(got)}\nhistory {sorted(want)}\nages {ages}\n'
               f'last_ts {last_ts} vs {hist_last}')
    theirs = [j for j in flying if j.get('pid') in clients]
    out.result(theirs, 'the clients had jobs in flight at the crash, and the report names them',
               json.dumps(flying)[:500])
    for j in flying:
        out.diag(f'in flight: {j["ring"]} {j["fence"]} {j["comm"]}[{j["pid"]}] '
                 f'{j["stage"]} age {j["age_ns"] / 1e6:.3f} ms')
    done = sorted((r for r in rows if r['complete_ns']), key=lambda r: -int(r['complete_ns']))
    last = [j['fence'] for j in rep.get('last_completed', [])]
    out.result(last and last == [r['fence'] for r in done[:len(last)]],
               'last completed: the latest COMPLETEs, the last first',
               f'report {last}\nhistory {[r["fence"] for r in done[:10]]}')

    failed = rep.get('failed', [])
    hung = [j for j in failed if 'timeout' in j['status'] or 'ETIMEDOUT' in j['status']]
    kunit = any(re.search(r'^\s*ok \d+ drm_sched_basic_timeout$', l) for l in log)
    out.result(hung and kunit,
               'the hung mock job: KUnit\'s timeout test passed and the report lists it failed '
               'with the timeout', json.dumps(failed)[:500])
    for j in hung:
        out.diag(f'failed: {j["ring"]} {j["fence"]} {j["comm"]}[{j["pid"]}] {j["status"]}')

    missing = [f for f in got if not has_fence(f, text)]
    out.result('in flight at the last event' in text and not missing,
               'report --last-boot (text, grtrace_last saved) names the same jobs in flight',
               f'missing {missing}\n{text[:400]}')
    # The Perfetto export of another copy of the same buffer: each job of
    # the CSV once, a slice with its submitter, status, latency and phases.
    try:
        trace = json.loads(read(os.path.join(d, 'last-boot-trace.json')))
        sliced = {}
        for e in trace.get('traceEvents', []):
            if e.get('ph') == 'X' and e.get('cat') == 'job':
                sliced.setdefault(e['args']['fence'], []).append(e)
        # A job is a slice once two of its stages are known (export.c)
        spans = {f for f, r in hist.items()
                 if sum(1 for s in STAGES if r.get(s + '_ns')) >= 2}
        bad = [f'{f}: {len(sliced.get(f, []))} slices' for f in spans
               if len(sliced.get(f, [])) != 1]
        bad += [f'{f}: a slice, not a job of the CSV with two stages'
                for f in set(sliced) - spans]
        for f in spans:
            a, r = sliced.get(f, [{'args': {}}])[0]['args'], hist[f]
            for key in ('pid', 'status', 't_submit_host', 't_device', 't_complete', 'latency'):
                # an empty cell (unknown; no pid) is left out, or 0, there
                want = r[key] or (0 if key == 'pid' else None)
                if str(a.get(key)) != str(want):
                    bad.append(f'{f}: {key} {a.get(key)} in the export, {r[key]!r} in the CSV')
                    break
    except (ValueError, KeyError, TypeError) as e:
        spans, bad = set(), [repr(e)]
    out.result(spans and not bad and all(f in sliced for f in got if f in spans),
               'export --last-boot: each job of the CSV once, with its submitter, status, '
               'latency and phases; the jobs in flight among them',
               f'{len(hist)} jobs in the CSV; ' + '\n'.join(bad[:10]))
    return out.finish()


if __name__ == '__main__':
    sys.exit(main())
