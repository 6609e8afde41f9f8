#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the Perfetto export of a guest joined with its host (grtrace export
--chrome --host): QEMU is a process of its own with the fences as slices,
every joined job's device phase holds "to host", "on host" and "back",
which tile it, and each fence has a flow from its guest job and one back.
Exits non-zero with the first problem printed.

usage: host-json-check.py TRACE_JSON
"""

import collections
import json
import sys


def main():
    ev = json.load(open(sys.argv[1]))['traceEvents']
    procs = {e['pid']: e['args']['name'] for e in ev
             if e['ph'] == 'M' and e['name'] == 'process_name'}
    qemu = [p for p, n in procs.items() if n == 'QEMU (host)']
    if len(qemu) != 1:
        sys.exit(f'no single QEMU process: {procs}')
    fences = [e for e in ev if e['ph'] == 'X' and e['pid'] == qemu[0] and e['cat'] == 'qemu'
              and e['name'].startswith('fence ')]
    if not fences:
        sys.exit('no fence slice on QEMU\'s tracks')
    parts = collections.defaultdict(list)
    devices = []
    for e in ev:
        if e['ph'] != 'X' or e['pid'] == qemu[0]:
            continue
        if e['cat'] == 'host':
            parts[(e['pid'], e['tid'])].append(e)
        elif e['cat'] == 'phase' and e['name'] == 'device':
            devices.append(e)
    split = 0
    for dev in devices:
        lo, hi = dev['ts'], dev['ts'] + dev['dur']
        inside = sorted((e for e in parts[(dev['pid'], dev['tid'])]
                         if lo - 0.002 <= e['ts'] and e['ts'] + e['dur'] <= hi + 0.002),
                        key=lambda e: e['ts'])
        if not inside:
            continue
        split += 1
        names = [e['name'] for e in inside]
        if inside[0]['name'] != 'to host' or inside[-1]['name'] != 'back' or \
                len(set(names)) != len(names):
            sys.exit(f'the device phase at {lo} holds {names}')
        t = lo
        for e in inside:
            if abs(e['ts'] - t) > 0.002:
                sys.exit(f'the parts of the device phase at {lo} do not tile it: {names}')
            t = e['ts'] + e['dur']
        if abs(t - hi) > 0.002:
            sys.exit(f'the parts of the device phase at {lo} end at {t}, the phase at {hi}')
    if split != len(fences):
        sys.exit(f'{len(fences)} fences on QEMU\'s tracks, {split} device phases split')
    flows = collections.Counter(e['ph'] for e in ev if e.get('cat') == 'host'
                                and e['ph'] in 'sf')
    if flows['s'] != 2 * len(fences) or flows['f'] != 2 * len(fences):
        sys.exit(f'flows {dict(flows)} for {len(fences)} fences: two each way expected')
    print(f'{len(fences)} fences on QEMU\'s tracks, each job split, {flows["s"]} flows')


if __name__ == '__main__':
    main()
