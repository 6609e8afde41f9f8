#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Rewrite the # headings of a quilt series file from the patches' subjects:
each run of patches of one kind gets one heading that says what it holds.

usage: series-headings.py DIR TITLE"""
import os
import re
import sys

KINDS = [
    (r'^gpu: grtrace:', 'grtrace core (drivers/gpu/grtrace)'),
    (r'^selftests/', 'kselftests'),
    (r'^Documentation', 'Documentation'),
    (r'^drm/sched', 'DRM scheduler hooks and their tests'),
    (r'^drm/virtio', 'virtio-gpu hooks'),
    (r'^drm/(amdgpu|i915|nouveau)', 'Vendor driver hooks (built, never run on hardware)'),
    (r'^tools/', 'User space (tools/)'),
]


def kind(subject):
    for pat, name in KINDS:
        if re.match(pat, subject):
            return name
    return 'Other'


def main():
    d, title = sys.argv[1], sys.argv[2]
    path = os.path.join(d, 'series')
    names = [l.strip() for l in open(path) if l.strip() and not l.startswith('#')]
    out, last = [f'# {title}'], None
    for n in names:
        with open(os.path.join(d, n), errors='replace') as f:
            subj = next(l for l in f if l.startswith('Subject: '))
        subj = re.sub(r'^Subject: (\[[^]]*\] )?', '', subj).strip()
        k = kind(subj)
        if k != last:
            out += ['', f'# {k}']
            last = k
        out.append(n)
    with open(path, 'w') as f:
        f.write('\n'.join(out) + '\n')


if __name__ == '__main__':
    main()
