#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write DIR/series, the quilt series of the series in DIR/kernel/ and
DIR/tools/ (git format-patch output, the second on top of the first):
each series under a heading with its cover letter's subject, and each run
of its patches of one kind under a heading that says what it holds.

usage: series-headings.py DIR"""
import os
import re
import sys

KINDS = [
    (r"original design's names", "The original design's names (optional)"),
    (r'^gpu: grtrace: Add GPU job tracepoints', 'Tracepoints and the driver API'),
    (r'^drm/sched/tests: Let mock schedulers share', "The DRM scheduler's jobs, from its tracepoints, and their test"),
    (r'^drm/sched(/tests: Let mock jobs fail|: (Trace|Test the stable))',
     "drm/sched: its stable events tested, and those its stable set lacks (posted apart, to drm-misc)"),
    (r'^drm/sched/tests', "Fixes of drm/sched's mock scheduler and its tests (posted apart, to drm-misc)"),
    (r'^gpu: grtrace: Record the DRM scheduler',
     "The DRM scheduler's jobs, from its tracepoints, and their test"),
    (r'^drm/sched: Test grtrace', "The DRM scheduler's jobs, from its tracepoints, and their test"),
    (r'^drm/sched: Report jobs to grtrace', 'DRM scheduler hooks and their tests'),
    (r'^relay', 'relay (posted apart)'),
    (r'^drm/virtio: Report commands to grtrace', 'virtio-gpu hooks'),
    (r'^drm/virtio', "virtio-gpu: its events where a tracer needs them, and exported (posted apart, to drm-misc)"),
    (r'^gpu: grtrace: Record virtio-gpu', "virtio-gpu's commands, from its tracepoints"),
    (r'^drm/amdgpu: Trace', "amdgpu: events of its rings' fences and recoveries (posted apart, to amd-gfx; built, never run on hardware)"),
    (r'^gpu: grtrace: Record amdgpu', "amdgpu's interrupts and resets, from its tracepoints (built, never run on hardware)"),
    (r'^drm/i915: (Trace|Export)', "i915: events of hangs, resets and context switches, and exports (posted apart, to intel-gfx; built, never run on hardware)"),
    (r'^gpu: grtrace: Record i915', "i915's requests, from its tracepoints (built, never run on hardware)"),
    (r'^drm/nouveau: Trace', "nouveau: events of its channels (posted apart, to nouveau; built, never run on hardware)"),
    (r'^gpu: grtrace: Record nouveau', "nouveau's channel work, from its tracepoints (built, never run on hardware)"),
    (r'^gpu: grtrace: (Add the relay stream|Add the config|Add the merged)',
     'The relay stream (drivers/gpu/grtrace)'),
    (r'^gpu: grtrace: (Add the governance|Add sampling)', 'Its governance'),
    (r'^gpu: grtrace: (Add KUnit|Test the relay)', 'KUnit tests'),
    (r'^selftests/grtrace: Test a flight recorder', 'kselftests'),
    (r'aggregate-only|flight recorder|benchmark',
     'Aggregate-only mode, the flight recorder and the benchmark'),
    (r'^gpu: grtrace:', 'grtrace core (drivers/gpu/grtrace)'),
    (r'^selftests/', 'kselftests'),
    (r'^Documentation', 'Documentation'),
    (r'^drm/(amdgpu|i915|nouveau): Report', 'Vendor driver hooks (built, never run on hardware)'),
    (r'^drm/(atomic-helper|tests)', "A fix of DRM's atomic helpers and its test (posted apart, to drm-misc-fixes)"),
    (r'^drm/sched: Disable', 'A fix of the DRM scheduler (posted apart, to drm-misc-fixes)'),
    (r'^kunit:', "A fix of KUnit's executor (posted apart, to the kselftest tree)"),
    (r'^tools/tracing', 'libtraceevent plugin (tools/tracing)'),
    (r'^tools/grtrace', 'grtrace tool (tools/grtrace)'),
]
# The 6.12 backport's own patches, and the headings it has for others.
BACKPORT_KINDS = [
    (r'^drm/sched: (Export|Trace)',
     "drm/sched: its older events exported, and a timeout's verdict traced"),
    (r'^drm/virtio', "virtio-gpu: its events where a tracer needs them, and exported"),
    (r'^relay', 'relay'),
    (r'^drm/amdgpu: Trace', "amdgpu: events of its rings' fences and recoveries (built, never run on hardware)"),
    (r'^drm/i915: (Trace|Export)',
     "i915: events of hangs, resets and context switches, and exports (built, never run on hardware)"),
    (r'^drm/nouveau: Trace', "nouveau: events of its channels (built, never run on hardware)"),
]
PARTS = [('kernel', 'Kernel series'), ('tools', 'User-space series, on top of the kernel series')]


def subject(path):
    """The Subject: header, unfolded"""
    with open(path, errors='replace') as f:
        lines = f.read().split('\n')
    i = next(k for k, line in enumerate(lines) if line.startswith('Subject: '))
    s = lines[i]
    for line in lines[i + 1:]:
        if not line.startswith((' ', '\t')):
            break
        s += line
    return re.sub(r'^Subject: (\[[^]]*\] )?', '', s).strip()


def kind(subj, backport=False):
    for pat, name in (BACKPORT_KINDS if backport else []) + KINDS:
        if re.search(pat, subj):
            return name
    return 'Other'


def main():
    d = sys.argv[1]
    backport = os.path.basename(os.path.normpath(d)) != 'patches'
    out = []
    for part, what in PARTS:
        pdir = os.path.join(d, part)
        if not os.path.isdir(pdir):
            continue
        names = sorted(n for n in os.listdir(pdir)
                       if n.endswith('.patch') and not n.startswith('0000-'))
        cover = os.path.join(pdir, '0000-cover-letter.patch')
        out += ['' if out else None, f'# {what}: {subject(cover)}']
        last = None
        for n in names:
            k = kind(subject(os.path.join(pdir, n)), backport)
            if k != last:
                out += ['', f'## {k}']
                last = k
            out.append(f'{part}/{n}')
    with open(os.path.join(d, 'series'), 'w') as f:
        f.write('\n'.join(x for x in out if x is not None) + '\n')


if __name__ == '__main__':
    main()
