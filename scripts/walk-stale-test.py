#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""walk-stale.py against a build directory made up here, one case per
reason it has to call a target stale and one for each way a target stays
up to date.  Prints KTAP.

The directory is what Kbuild leaves (O=): .config and the configuration
its last build synced (include/config/auto.conf), a source link, for each
object its output and its command file with fixdep's dependencies (the
source, headers, $(wildcard include/config/SYMBOL)); STAMP is older than
all of it but what a case makes newer.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from ktap import Ktap                   # pylint: disable=wrong-import-position

CONFIG = 'CONFIG_A=y\nCONFIG_B=y\nCONFIG_S="text"\n'
# object: (source, headers, symbols it reads)
OBJECTS = {
    'd1/a.o': ('d1/a.c', ['include/h1.h'], ['A']),
    'd1/b.o': ('d1/b.c', ['include/h2.h'], []),
    'd2/c.o': ('d2/c.c', ['include/h2.h'], ['B']),
}
MAKEFILES = {'Makefile': 'CONFIG_TOP_ONLY := y\n', 'd1/Makefile': 'obj-y += a.o b.o\n',
             'd2/Makefile': 'obj-$(CONFIG_D2) += c.o\n'}
TARGETS = ['d1/', 'd2/c.o']


def write(path, text=''):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write(text)


def tree(top):
    """A source tree and its build directory, all older than the stamp."""
    src, build = os.path.join(top, 'src'), os.path.join(top, 'build')
    for m, text in MAKEFILES.items():
        write(os.path.join(src, m), text)
    for obj, (c, hs, syms) in OBJECTS.items():
        write(os.path.join(src, c))
        for h in hs:
            write(os.path.join(src, h))
        write(os.path.join(build, obj))
        d, f = os.path.split(obj)
        lines = [f'source_{obj} := {src}/{c}', '', f'deps_{obj} := \\']
        lines += [f'  {src}/{h} \\' for h in hs]
        lines += [f'    $(wildcard include/config/{s}) \\' for s in syms]
        lines += ['', f'{obj}: $(deps_{obj})', '']
        write(os.path.join(build, d, f'.{f}.cmd'), '\n'.join(lines))
    write(os.path.join(build, '.config'), CONFIG)
    write(os.path.join(build, 'include/config/auto.conf'), CONFIG.replace('"text"', 'text'))
    os.symlink(src, os.path.join(build, 'source'))
    old = time.time() - 100
    for d, _, fs in os.walk(top):
        for f in fs:
            os.utime(os.path.join(d, f), (old, old), follow_symlinks=False)
    write(os.path.join(top, 'stamp'))
    os.utime(os.path.join(top, 'stamp'), (old + 50, old + 50))
    return src, build


def stale(top, *extra):
    r = subprocess.run([sys.executable, os.path.join(HERE, 'walk-stale.py'),
                        os.path.join(top, 'build'), os.path.join(top, 'stamp'),
                        '--global', os.path.join(top, 'src/Makefile'), *extra, *TARGETS],
                       capture_output=True, text=True, check=False)
    if r.returncode:
        return {'exit': r.stderr.strip()}
    return dict(line.split('\t', 1) for line in r.stdout.splitlines())


def case(out, name, change, want, *extra):
    top = tempfile.mkdtemp(prefix='walk-stale-test.')
    try:
        src, build = tree(top)
        change(src, build, top)
        got = stale(top, *extra)
        out.result(sorted(got) == sorted(want), f'{name}: stale {sorted(want) or "none"}',
                   f'walk-stale.py said {got}')
    finally:
        shutil.rmtree(top)


def main():
    out = Ktap('walk-stale: ', 10)
    nothing = lambda s, b, t: None                       # noqa: E731
    case(out, 'nothing changed since the stamp (a string is quoted in .config only)', nothing, [])
    case(out, 'no stamp', lambda s, b, t: os.unlink(os.path.join(t, 'stamp')), TARGETS)
    case(out, 'a header one object of a directory includes',
         lambda s, b, t: write(os.path.join(s, 'include/h1.h'), 'x'), ['d1/'])
    case(out, 'a header objects of both targets include',
         lambda s, b, t: write(os.path.join(s, 'include/h2.h'), 'x'), TARGETS)
    case(out, 'an object\'s output missing',
         lambda s, b, t: os.unlink(os.path.join(b, 'd2/c.o')), ['d2/c.o'])
    case(out, 'a symbol one object reads changed (fixdep\'s include/config/A)',
         lambda s, b, t: write(os.path.join(b, '.config'), CONFIG.replace('A=y', 'A=m')), ['d1/'])
    case(out, 'a symbol set anew that a directory\'s Makefile names',
         lambda s, b, t: write(os.path.join(b, '.config'), CONFIG + 'CONFIG_D2=y\n'), ['d2/c.o'])
    case(out, 'a symbol no object and no Makefile names',
         lambda s, b, t: write(os.path.join(b, '.config'), CONFIG + 'CONFIG_OTHER=y\n'), [])
    case(out, 'a symbol the top Makefile names',
         lambda s, b, t: write(os.path.join(b, '.config'), CONFIG + 'CONFIG_TOP_ONLY=y\n'),
         TARGETS)
    case(out, 'a Makefile of the series in a target\'s directory',
         lambda s, b, t: write(os.path.join(s, 'd1/Makefile'), 'obj-y += a.o\n'), ['d1/'],
         '--makefile', 'd1/Makefile')
    sys.exit(out.finish())


if __name__ == '__main__':
    main()
