#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The rework of a series: for each patch, the lines it removes ('-' lines)
from files that an earlier patch of the same series created.  A series cut
for review has none but those named in a justified list.

usage: rework.py DIR                  per patch, the rework lines and files
       rework.py DIR --check LIST     one line per series; exit 1 if a patch
                                      removes more lines from a file than
                                      LIST allows, or if an entry of LIST
                                      no longer matches any rework

DIR holds the series' folders (kernel/, tools/) and the quilt file `series`.
LIST has one entry per patch and file, tab-separated:
    SERIES  SUBJECT  FILE  LINES  why
SUBJECT is the patch's subject without its [PATCH n/m] prefix, so that
renumbering a series does not invalidate the list."""
import os
import re
import sys

from sibling import load

# The subject of a patch as the series file's headings read it.
subject_of = load('series-headings.py').subject


def rework(d):
    """[(series, patch, subject, {file: lines})] in series order."""
    names = [l.strip() for l in open(os.path.join(d, 'series'))
             if l.strip() and not l.startswith('#')]
    created = {}
    out = []
    for i, n in enumerate(names):
        # Each series on its own: a file the kernel series created is not
        # the user-space series' to rework, nor the reverse.
        if i and os.path.dirname(n) != os.path.dirname(names[i - 1]):
            created = {}
        cur = None
        rm = {}
        path = os.path.join(d, n)
        for line in open(path, errors='replace'):
            m = re.match(r'^diff --git a/(\S+) b/', line)
            if m:
                cur = m.group(1)
                continue
            if line.startswith('new file mode') and cur:
                created.setdefault(cur, i)
            if (line.startswith('-') and not line.startswith('---')
                    and cur in created and created[cur] < i):
                rm[cur] = rm.get(cur, 0) + 1
        out.append((os.path.dirname(n), n, subject_of(path), rm))
    return out


def main():
    if len(sys.argv) not in (2, 4) or (len(sys.argv) == 4 and sys.argv[2] != '--check'):
        sys.exit(__doc__)
    res = rework(sys.argv[1])
    if len(sys.argv) == 2:
        tot = 0
        for _, n, _, rm in res:
            s = sum(rm.values())
            tot += s
            if s:
                print(f"{n[:n.index('-')]} {s:5d} " + ' '.join(
                    f"{k.split('/')[-1]}:{v}"
                    for k, v in sorted(rm.items(), key=lambda x: -x[1])[:4]))
        print('total', tot)
        return
    allowed = {}
    for no, line in enumerate(open(sys.argv[3]), 1):
        if not line.strip() or line.startswith('#'):
            continue
        f = line.rstrip('\n').split('\t')
        if len(f) != 5 or not f[3].isdigit() or not f[4].strip():
            sys.exit(f'{sys.argv[3]}:{no}: want SERIES, SUBJECT, FILE, LINES and why, tab-separated')
        allowed[(f[0], f[1], f[2])] = [int(f[3]), no, False]
    bad = 0
    for series in dict.fromkeys(r[0] for r in res):
        tot = just = 0
        for s, n, subj, rm in res:
            if s != series:
                continue
            for fn, lines in sorted(rm.items()):
                tot += lines
                a = allowed.get((s, subj, fn))
                if a:
                    a[2] = True
                if a and lines <= a[0]:
                    just += lines
                    continue
                bad = 1
                print(f'# {n}: removes {lines} lines of {fn}, which an earlier patch created'
                      + (f' ({a[0]} justified)' if a else ' (not justified)'))
        print(f'{series}: {tot} rework lines, {just} justified')
    for (s, subj, fn), (n, no, used) in allowed.items():
        if not used:
            bad = 1
            print(f'# {sys.argv[3]}:{no}: no patch "{subj}" of {s} removes lines of {fn}: a stale entry')
    sys.exit(bad)


main()
