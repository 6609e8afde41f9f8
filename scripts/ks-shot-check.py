#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that a KernelShark screenshot of grtrace's session draws its lanes.

KernelShark draws each plot as a row: a coloured label box on the left
(one colour for the CPU plots, another for the task plots), the graph to
its right, on white.  A job's phase is a box in its task's colour.  The
rows are found from the labels' column; in each task row, the graph's
pixels of a saturated colour (not white, grey or black: the axis and the
label text) are its boxes.

The session of "grtrace export --kernelshark-session" lists one task plot
per lane, in lane order, and starts at the first jobs of the recording:
its first lane holds a job there (a lane is the first free one when a job
starts), so its row must have boxes.

usage: ks-shot-check.py PNG LANES     (LANES: the session's task plots;
                                       prints KTAP)
"""

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ktap import Ktap                   # pylint: disable=wrong-import-position

LABEL_X = 26            # inside the label boxes, left of their text
MIN_ROW = 28            # a plot's label box: 34 px high here (a row of the
                        # table below the graph, 20 px, is not one)
MIN_BOX = 20            # pixels of a box's colour that make a row drawn
VISIBLE = 8             # lanes the window shows whole beside 2 CPU rows


def saturated(px):
    return max(px) - min(px) >= 40


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    png, lanes = sys.argv[1], int(sys.argv[2])
    out = Ktap('ks-shot: ', 3)
    try:
        size = subprocess.run(['identify', '-format', '%w %h', png], check=True,
                              capture_output=True, text=True).stdout.split()
        w, h = int(size[0]), int(size[1])
        raw = subprocess.run(['convert', png, '-depth', '8', 'rgb:-'], check=True,
                             capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError, ValueError, IndexError) as e:
        out.result(False, f'{png}: read', str(e))
        sys.exit(out.finish())

    def px(x, y):
        i = (y * w + x) * 3
        return raw[i], raw[i + 1], raw[i + 2]

    # Rows: runs of one saturated label colour down the labels' column.
    rows, y = [], 0
    while y < h:
        c = px(LABEL_X, y)
        if not saturated(c):
            y += 1
            continue
        y0 = y
        while y < h and px(LABEL_X, y) == c:
            y += 1
        if y - y0 >= MIN_ROW:
            rows.append((y0, y, c))
    # The task plots: the rows in the last rows' colour (the CPU rows come
    # first, in another).  The 1200x980 window shows 2 CPU rows and 8
    # lanes whole; a session of more lanes scrolls, and shows at least 8 of
    # them (9 seen, with 10).
    task = [r for r in rows if rows and r[2] == rows[-1][2]]
    out.result(len(rows) > len(task) and
               (len(task) == lanes or lanes > len(task) >= VISIBLE),
               f'{len(task)} task rows below {len(rows) - len(task)} CPU rows, '
               f'one per lane of the session ({lanes}), or at least {VISIBLE} of more',
               f'rows (top, bottom, label colour): {rows}')

    # A row's graph: right of its label box, to the image's edge.
    drawn = []
    for y0, y1, c in task:
        x = LABEL_X
        while x < w and px(x, y0 + 1) == c:     # above the label's text
            x += 1
        n = sum(1 for yy in range(y0, y1) for xx in range(x + 10, w)
                if saturated(px(xx, yy)))
        drawn.append(n)
    out.result(drawn and drawn[0] >= MIN_BOX,
               'the first lane\'s row has its jobs\' boxes drawn',
               f'saturated pixels per task row: {drawn}')
    out.result(drawn and all(drawn[i] >= MIN_BOX or not any(d >= MIN_BOX for d in drawn[i:])
                             for i in range(len(drawn))),
               f'the lanes drawn ({sum(d >= MIN_BOX for d in drawn)}) are the first ones, '
               'as lanes fill in order',
               f'saturated pixels per task row: {drawn}')
    sys.exit(out.finish())


if __name__ == '__main__':
    main()
