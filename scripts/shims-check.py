#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""shims-check.py PATCHES: the original design's names come in one patch.

grtrace answers to the names of the design it was specified from (second
names of files and keys, numeric values, /proc/grtrace_stats, module
aliases, its stats counters, a replay of its README) in one optional
patch, the last of grtrace's: a maintainer can take the series without
it.  This fails when any other kernel patch of PATCHES (patches/ or
patches-6.12/, read through their series file) adds a line to one of
grtrace's files (its code, headers, documentation and kselftests) that
brings one of them in.  Prints one line per offending patch and name.
"""
import os
import re
import sys

from sibling import load

# The subject of a patch as the series file's headings read it.
subject_of = load('series-headings.py').subject

LAST = "gpu: grtrace: Accept the original design's names too"

# name: a regular expression that a line added by any other patch must not
# match.
SHIMS = {
    'the "enable" file': r'\{ "enable",\s',
    'the "events" file': r'\{ "events",\s',
    'numeric levels': r'The numeric levels|kstrtouint\(val, 0, &n\) \|\| n > 3',
    'numeric rate limiter modes': r'by its number in the original design',
    'alias keys': r'GRTRACE_KEY_ALIAS',
    '/proc/grtrace_stats': r'/proc/grtrace_stats|GRTRACE_PERF_MON|proc_create_single\("grtrace_stats"',
    'module aliases': r'MODULE_ALIAS\("grtrace_',
    'the stats names': r'writes_ok|lost_events|rate_limited_drops|backpressure_drops',
    'the README replay': r'grtrace_seed_readme',
}


# grtrace's files: where the names would be grtrace's, not another
# subsystem's (a ring buffer's lost_events).
OURS = re.compile(r'^(drivers/gpu/grtrace/|include/.*grtrace|Documentation/.*grtrace'
                  r'|tools/testing/selftests/grtrace/)')


def main():
    patches = sys.argv[1]
    with open(os.path.join(patches, 'series')) as f:
        names = [l.strip() for l in f if l.strip().startswith('kernel/')]
    bad = 0
    seen_last = False
    for name in names:
        path = os.path.join(patches, name)
        if subject_of(path) == LAST:
            seen_last = True
            continue
        with open(path, errors='replace') as f:
            text = f.read()
        target = ''
        for line in text.split('\n'):
            if line.startswith('+++ '):
                target = line[6:] if line.startswith('+++ b/') else ''
                continue
            if not line.startswith('+') or not OURS.match(target):
                continue
            for shim, rx in SHIMS.items():
                if re.search(rx, line):
                    print(f'{name}: adds {shim}: {line[1:].strip()[:80]}')
                    bad = 1
    if not seen_last:
        print(f'no patch "{LAST}"')
        bad = 1
    return bad


if __name__ == '__main__':
    sys.exit(main())
