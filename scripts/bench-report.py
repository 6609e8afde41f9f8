#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the "bench <case>: median M min A max B ns/event" lines of the
grtrace_bench KUnit suite into one table with ratios to the bare
TRACE_EVENT baseline (e), and the targets and the seed's budgets.

usage: bench-report.py NAME=LOG [NAME=LOG ...]
"""

import re
import sys

LINE = re.compile(r'bench (\w+): median ([\d.]+) min ([\d.]+) max ([\d.]+) ns/event')
CASES = [
    ('a_no_hook', '(a) loop without a hook'),
    ('a_hook_stopped', '(a) call site, grtrace stopped'),
    ('b_relay', '(b) relay stream only'),
    ('c_ftrace', '(c) tracepoint recorded by ftrace'),
    ('d_relay_and_ftrace', '(d) both sinks'),
    ('e_bare_trace_event', '(e) bare TRACE_EVENT, ftrace'),
    ('f_relay_all_cpus', '(f) relay, all CPUs'),
    ('f_ftrace_all_cpus', '(f) ftrace, all CPUs'),
    ('f_relay_and_ftrace_all_cpus', '(f) both, all CPUs'),
    ('f_bare_trace_event_all_cpus', '(f) bare TRACE_EVENT, all CPUs'),
]


def parse(path):
    res = {}
    try:
        text = open(path, errors='replace').read()
    except OSError as e:
        print(f'# {path}: {e}')
        return res
    for m in LINE.finditer(text):
        res[m.group(1)] = tuple(float(x) for x in m.groups()[1:])
    res['throughput'] = [tuple(int(x) for x in m.groups()) for m in re.finditer(
        r'bench throughput: asked (\d+) achieved (\d+) written (\d+) overrun (\d+) '
        r'buffer (\d+)', text)]
    cpus = re.search(r'bench cpus: (\d+) online', text)
    res['cpus'] = int(cpus.group(1)) if cpus else None
    return res


def main():
    runs = []
    for arg in sys.argv[1:]:
        name, _, path = arg.partition('=')
        runs.append((name, parse(path)))
    if not runs:
        sys.exit(__doc__)

    head = f'{"case":38}' + ''.join(f'{n + " ns/event (min-max)":>30}{"x (e)":>8}' for n, _ in runs)
    print(head)
    for key, label in CASES:
        row = f'{label:38}'
        for _n, r in runs:
            base = r.get('f_bare_trace_event_all_cpus' if key.startswith('f_')
                         else 'e_bare_trace_event')
            if key in r:
                med, lo, hi = r[key]
                ratio = f'{med / base[0]:.2f}' if base and base[0] else '-'
                row += f'{f"{med:.1f} ({lo:.1f}-{hi:.1f})":>30}{ratio:>8}'
            else:
                row += f'{"-":>30}{"-":>8}'
        print(row)
    print(f'{"CPUs":38}' + ''.join(f'{str(r.get("cpus")):>30}{"":>8}' for _n, r in runs))

    print('\ntargets (median):')
    for name, r in runs:
        if 'e_bare_trace_event' not in r:
            print(f'  {name}: no results')
            continue
        e = r['e_bare_trace_event'][0]

        def ratio(k):
            return r[k][0] / e if k in r else float('nan')
        nh, hs = r.get('a_no_hook'), r.get('a_hook_stopped')
        noise = max(nh[2] - nh[1], hs[2] - hs[1]) if nh and hs else float('nan')
        diff = hs[0] - nh[0] if nh and hs else float('nan')
        checks = [
            ('relay only <= 1.0x bare TRACE_EVENT', ratio('b_relay') <= 1.0,
             f'{ratio("b_relay"):.2f}x'),
            ('both sinks <= 1.5x bare TRACE_EVENT', ratio('d_relay_and_ftrace') <= 1.5,
             f'{ratio("d_relay_and_ftrace"):.2f}x'),
            ('stopped hook within noise of no hook', abs(diff) <= noise,
             f'difference {diff:.2f} ns, spread {noise:.2f} ns'),
            ('seed budget < 1 us/event (both sinks)', r.get('d_relay_and_ftrace', (1e9,))[0] < 1000,
             f'{r.get("d_relay_and_ftrace", (float("nan"),))[0]:.1f} ns'),
        ]
        for what, ok, fig in checks:
            print(f'  {name}: {"met    " if ok else "NOT met"} {what}: {fig}')

    for name, r in runs:
        tp = r.get('throughput')
        if not tp:
            continue
        print(f'\nsustained throughput, {name}: grtrace record draining the relay buffers')
        print(f'  {"asked/s":>10}{"achieved/s":>12}{"written":>10}{"overrun":>10}')
        best = 0
        for asked, ach, wr, ov, buf in tp:
            print(f'  {asked:>10}{ach:>12}{wr:>10}{ov:>10}')
            if ov == 0:
                best = max(best, ach)
        print(f'  highest rate drained with no overrun: {best}/s '
              f'(buffer {tp[0][4] // 1024} KiB per CPU)')


if __name__ == '__main__':
    main()
