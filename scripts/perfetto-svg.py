#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Draw a window of a Chrome/Perfetto JSON trace as an SVG timeline.

What ui.perfetto.dev shows of "grtrace export --chrome", without a browser:
one row per thread track (device lanes, submitting threads), slices nested
by depth as Perfetto nests them (same track, contained in time), flows
(bind_id flow_out -> flow_in) as arrows, counter tracks as step lines.

usage: perfetto-svg.py TRACE.json OUT.svg START_MS END_MS [TITLE]
       (times in ms from the first event of the trace)
"""

import collections
import json
import sys
from xml.sax.saxutils import escape

W, LEFT, ROW, SLICE, TOP = 1000, 210, 16, 14, 34
COLOURS = {'job': '#9ecae1', 'host': '#fdae6b', 'device': '#74c476', 'queue': '#fdd0a2',
           'exec': '#31a354', 'complete': '#bcbddc', 'submit': '#636363', 'wait': '#e6550d'}


def colour(e):
    name = e.get('name', '')
    if e.get('cat') == 'wait' or name.startswith('wait'):
        return COLOURS['wait']
    return COLOURS.get(name, COLOURS.get(e.get('cat'), '#c6dbef'))


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    data = json.load(open(sys.argv[1]))
    events = data['traceEvents'] if isinstance(data, dict) else data
    t0 = min(e['ts'] for e in events if 'ts' in e)
    lo, hi = (t0 + float(v) * 1000 for v in sys.argv[3:5])
    title = sys.argv[5] if len(sys.argv) > 5 else ''

    names, procs = {}, {}
    for e in events:
        if e['ph'] == 'M' and e['name'] == 'thread_name':
            names[(e['pid'], e['tid'])] = e['args']['name']
        elif e['ph'] == 'M' and e['name'] == 'process_name':
            procs[e['pid']] = e['args']['name']
    tracks = collections.defaultdict(list)
    counters = collections.defaultdict(list)
    for e in events:
        if e['ph'] == 'X' and e['ts'] < hi and e['ts'] + e['dur'] > lo:
            tracks[(e['pid'], e['tid'])].append(e)
        elif e['ph'] == 'C':
            for k, v in e['args'].items():
                counters[f"{procs.get(e['pid'], e['pid'])} {e['name']}"].append((e['ts'], v))

    def x(ts):
        return LEFT + (min(max(ts, lo), hi) - lo) / (hi - lo) * (W - LEFT - 10)

    out, rows, y = [], [], TOP
    where = {}
    # Device lanes first (their pids are above 2^30), then threads by pid.
    for key in sorted(tracks, key=lambda k: (k[0] < 1 << 30, k)):
        stack, depth_max = [], 0
        for e in sorted(tracks[key], key=lambda e: (e['ts'], -e['dur'])):
            while stack and stack[-1]['ts'] + stack[-1]['dur'] <= e['ts']:
                stack.pop()
            e['_depth'] = len(stack)
            depth_max = max(depth_max, len(stack))
            stack.append(e)
        label = names.get(key, f'{procs.get(key[0], key[0])} {key[1]}')
        if key[0] >= 1 << 30:
            label = f'{procs.get(key[0], "")} {label}'
        rows.append((y, label))
        for e in tracks[key]:
            ey = y + e['_depth'] * ROW
            x1, x2 = x(e['ts']), x(e['ts'] + e['dur'])
            where[e.get('bind_id'), 'out' if e.get('flow_out') else 'in'] = (x1, x2, ey)
            out.append(f'<rect x="{x1:.1f}" y="{ey}" width="{max(x2 - x1, 0.8):.1f}" '
                       f'height="{SLICE}" fill="{colour(e)}" stroke="#555" stroke-width="0.3">'
                       f'<title>{escape(e["name"])} {e["dur"]:.0f} us</title></rect>')
            if x2 - x1 > 6 * len(e['name']):
                out.append(f'<text x="{x1 + 2:.1f}" y="{ey + 11}" font-size="9">'
                           f'{escape(e["name"])}</text>')
        y += (depth_max + 1) * ROW + 6
    for (bid, kind), (x1, x2, fy) in where.items():
        dst = where.get((bid, 'in')) if kind == 'out' else None
        if bid is not None and dst:
            out.append(f'<line x1="{x2:.1f}" y1="{fy + SLICE / 2}" x2="{dst[0]:.1f}" '
                       f'y2="{dst[2] + SLICE / 2}" stroke="#3182bd" stroke-width="0.8" '
                       f'marker-end="url(#a)"/>')
    for name, points in sorted(counters.items()):
        pts = [(t, v) for t, v in sorted(points) if t < hi]
        before = [p for p in pts if p[0] <= lo]
        pts = ([(lo, before[-1][1])] if before else []) + [p for p in pts if p[0] > lo]
        if not pts:
            continue
        top = max(v for _t, v in pts) or 1
        rows.append((y, f'{name} (max {top})'))
        path, last = [], None
        for t, v in pts + [(hi, pts[-1][1])]:
            vy = y + 24 - v / top * 22
            path.append(f'{x(t):.1f},{last if last is not None else vy:.1f} {x(t):.1f},{vy:.1f}')
            last = vy
        out.append(f'<polyline points="{" ".join(path)}" fill="none" stroke="#756bb1"/>')
        y += 30
    height = y + 24
    svg = ['<!-- SPDX-License-Identifier: GPL-2.0 -->',
           '<!-- drawn by scripts/perfetto-svg.py of the grtrace repository -->',
           f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{height}" '
           f'font-family="sans-serif">',
           '<defs><marker id="a" markerWidth="6" markerHeight="6" refX="5" refY="3" '
           'orient="auto"><path d="M0,0 L6,3 L0,6 z" fill="#3182bd"/></marker></defs>',
           f'<rect width="{W}" height="{height}" fill="white"/>',
           f'<text x="4" y="14" font-size="12">{escape(title)}</text>']
    for ry, label in rows:
        svg.append(f'<text x="4" y="{ry + 11}" font-size="9">{escape(label[:38])}</text>')
    svg += out
    for i in range(6):
        t = lo + (hi - lo) * i / 5
        svg.append(f'<text x="{x(t) - 10:.1f}" y="{height - 8}" font-size="9">'
                   f'{(t - t0) / 1000:.1f} ms</text>')
    svg.append('</svg>')
    open(sys.argv[2], 'w').write('\n'.join(svg) + '\n')


if __name__ == '__main__':
    main()
